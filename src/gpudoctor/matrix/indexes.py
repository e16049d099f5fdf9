"""What the package indexes hold (compat_matrix/indexes.toml, written by tools/index_table.py): whether a
framework build the planner prints installs for a Python on a platform. Read on first use, then cached.

One question, one function: `holds(framework, spec, cuda_variant, python, platform) -> Holds`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

PLATFORMS = ("linux_x86_64", "linux_aarch64", "windows_amd64")
_COMPANIONS = ("torchvision", "torchaudio")


@dataclass(frozen=True)
class Holds:
    """`answer`: "yes" (some release the spec allows installs there), "no" (the table has the build and none
    does) or "unknown" (no row, or the rows cannot say). `source`: the [sources] entry the answer rests on.
    `why`: what fails, for "no" and "unknown"."""

    answer: str
    source: str = ""
    why: str = ""
    rows: tuple[str, ...] = ()  # the rows consulted: "tensorflow[and-cuda]==2.15.0 (and-cuda)"


@dataclass(frozen=True)
class _Table:
    pythons: tuple[str, ...]
    sources: dict[str, str]
    rows: tuple[dict[str, Any], ...]


@functools.lru_cache(maxsize=1)
def table() -> _Table:
    from gpudoctor.matrix.load import _parse_toml, bundled_text

    doc = _parse_toml(bundled_text("indexes.toml"))
    return _Table(tuple(doc["pythons"]), dict(doc["sources"]), tuple(doc["row"]))


def platform_key(system: str, machine: str) -> str | None:
    """The table's platform for a machine's `platform.system()` and `platform.machine()`; None when it has none."""
    system, machine = system.lower(), machine.lower()
    if system == "linux" and machine in ("x86_64", "amd64"):
        return "linux_x86_64"
    if system == "linux" and machine in ("aarch64", "arm64"):
        return "linux_aarch64"
    if system == "windows" and machine in ("amd64", "x86_64"):
        return "windows_amd64"
    return None


def _series(version: str) -> str:
    parts = version.split(".")
    return ".".join(parts[:2])


def holds(framework: str, spec: str, cuda_variant: str | None, python: str | None, platform: str | None) -> Holds:
    """Whether `pip install SPEC` installs the framework build for Python X.Y on a platform of PLATFORMS, per
    the table. For torch `cuda_variant` is the index's ("cu121", "cpu"; None: the package index's own torch).

    `spec` as the planner prints it: "tensorflow[and-cuda]==2.15.*", "jax[cuda12]>=0.4.30,<0.4.31",
    "torch==2.2.1+cu118" (a local tag names the variant). For tensorflow and jax the extras name the
    variant; `cuda_variant` is needed for torch only."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    try:
        req = Requirement(spec)
    except InvalidRequirement:
        return Holds("unknown", why=f"not a requirement: {spec!r}")
    name = canonicalize_name(req.name)
    extras = sorted(canonicalize_name(e) for e in req.extras)
    t = table()
    if python is None or platform not in PLATFORMS:
        return Holds("unknown", why=f"no Python or no platform the table covers ({python}, {platform})")
    python = ".".join(python.split(".")[:2])
    # A local tag in the pin names the torch variant ("2.2.1+cu118"); the specifier is matched without it.
    local = None
    bare = []
    for s in req.specifier:
        version, plus, tag = s.version.partition("+")
        if plus:
            local = tag
        bare.append((s.operator, version))
    # torch without a variant: the package index's own wheels (its rows' variant "pypi").
    variant = local or cuda_variant or ("pypi" if framework == "torch" else None)
    from packaging.specifiers import SpecifierSet

    specifier = SpecifierSet(",".join(op + v for op, v in bare))
    matched = []
    for row in t.rows:
        if row["framework"] != framework:
            continue
        r = Requirement(row["package"])
        if canonicalize_name(r.name) != name or sorted(canonicalize_name(e) for e in r.extras) != extras:
            continue
        if framework == "torch" and row["variant"] != variant:
            continue
        if framework == "torch" and row["version"].count(".") == 1:  # a release series (the PyTorch index's rows)
            pins = [v for op, v in bare if op in ("==", "===")]
            if len(pins) != 1 or _series(pins[0].rstrip(".*")) != row["version"]:
                continue
        else:
            try:
                if not specifier.contains(Version(row["version"]), prereleases=True):
                    continue
            except InvalidVersion:
                continue
        matched.append(row)
    if framework == "torch" and not [v for op, v in bare if op in ("==", "===")]:
        return Holds("unknown", why=f"{spec}: the torch rows are per release series; give one pin")
    if not matched:
        return Holds("unknown", why=f"no row for {spec} ({variant or 'no variant'})")
    names = tuple(f"{r['package']}=={r['version']} ({r['variant']})" for r in matched)
    yes = [r for r in matched if isinstance(r[platform], list) and python in r[platform]]
    if yes:
        return Holds("yes", yes[-1]["source"], rows=names)
    unknown = [r for r in matched if r[platform] == "unknown" or python not in t.pythons]
    if unknown:
        why = unknown[-1].get("why") or f"the source cannot say for Python {python} on {platform}"
        return Holds("unknown", unknown[-1]["source"], why, names)
    whys = sorted({r["why"] for r in matched if r.get("why")})
    why = "; ".join(whys[:2]) if whys else f"no wheel for Python {python} on {platform}"
    return Holds("no", matched[-1]["source"], why, names)
