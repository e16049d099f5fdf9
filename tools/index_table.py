"""Build or re-check compat_matrix/indexes.toml: what the package indexes really hold for every framework build
the planner can print (gpudoctor.planner.pick_torch / pick_tensorflow / pick_jax), per Python and platform.

    .venv/bin/python tools/index_table.py            # rebuild the table from the indexes (network, ~3 minutes)
    .venv/bin/python tools/index_table.py --only jax # only one framework's rows (torch, tensorflow, jax)
    .venv/bin/python tools/index_table.py --check    # re-ask the indexes; list the rows whose answer changed
                                                     # (exit 1 when one did); `make verify-indexes` runs this

Where the answers come from (docs/matrix.md, "What the package indexes hold"):

- The package index, live, through pip's own package finder: the one `pip index versions NAME --python-version
  X.Y --platform TAG... --only-binary=:all:` builds (pip's default index: nothing here names a host), which
  lists every release with a wheel for that Python and platform; a release's Requires-Dist is read from its
  wheel's METADATA with HTTP range requests (pip's lazy wheel). A build `PKG[EXTRA]==V` holds for (Python,
  platform) when V has a wheel there and every requirement its extras add (under that Python's and
  platform's markers) has one there too, one level further for a requirement that names extras itself
  (jax[cuda12] -> jax-cuda12-plugin[with_cuda] -> nvidia-*). Base requirements (numpy, protobuf, ...) are
  not checked and the versions are not solved together: a full `pip install --dry-run` of one
  tensorflow[and-cuda] took 75 s here, and 2.15.0's never finished (pip backtracks over tensorrt). pip runs in
  this process: a pip process per question took over 30 minutes on a loaded machine.
- The PyTorch download index: asked the same way first; where it cannot be reached (it could not from the
  machine that built the table) the rows keep the published listings they were written from:
  compat_matrix/torch.toml's release rows and the previous-versions page. torch from the package index
  itself (no --index-url) is asked live like the rest (variant "pypi").
- JAX's release page (the jax[cudaNN_pip] builds before the CUDA plugins): not reachable from here either;
  those rows stay "unknown".

pip reads no configuration (PIP_CONFIG_FILE=/dev/null, no PIP_* variables: a machine's pip.conf, constraints
or find-links must not change the answer); every request has pip's time limit (TIMEOUT_S, retried twice); a
question the index does not answer leaves the cell unknown, never "no".
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import sys
import threading
import time
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli: gpudoctor's own dependency on Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "compat_matrix" / "indexes.toml"
PYTHONS = ("3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14")


def _manylinux(arch: str) -> tuple[str, ...]:
    # A current glibc (2.35, Ubuntu 22.04): every manylinux tag up to it, newest first, as pip would accept.
    return (
        *(f"manylinux_2_{n}_{arch}" for n in range(35, 16, -1)),
        f"manylinux2014_{arch}",
        *((f"manylinux2010_{arch}", f"manylinux1_{arch}") if arch == "x86_64" else ()),
    )


PLATFORMS: dict[str, tuple[str, ...]] = {
    "linux_x86_64": _manylinux("x86_64"),
    "linux_aarch64": _manylinux("aarch64"),
    "windows_amd64": ("win_amd64",),
}
_MARKERS = {
    "linux_x86_64": {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix"},
    "linux_aarch64": {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "aarch64", "os_name": "posix"},
    "windows_amd64": {"sys_platform": "win32", "platform_system": "Windows", "platform_machine": "AMD64", "os_name": "nt"},
}
PYTORCH_INDEX = "https://download.pytorch.org/whl"
TIMEOUT_S = 30  # seconds per request to an index (pip's --timeout), retried twice
WORKERS = 6
SENTINEL_S = 60


def _isolate_pip() -> None:
    """pip's configuration of this machine (pip.conf, PIP_* variables: constraints, find-links, other indexes)
    must not change the answer: pip reads none of it after this."""
    for key in [k for k in os.environ if k.startswith("PIP_")]:
        del os.environ[key]
    os.environ["PIP_CONFIG_FILE"] = os.devnull


def _target(python: str, platform: str) -> list[str]:
    return ["--python-version", python, *(a for tag in PLATFORMS[platform] for a in ("--platform", tag)), "--only-binary=:all:"]


class Index:
    """The answers of one index (None: pip's default, the package index), asked once each and cached.

    Asked in this process through pip's own `pip index versions` machinery (its option parser, session and
    package finder, the same objects that command builds), because a pip process per question took 30 minutes
    on a loaded machine; a release's Requires-Dist is read from its wheel's METADATA by HTTP range requests
    (pip's lazy wheel), nothing downloaded whole. Every request carries pip's time limit (TIMEOUT_S, retried
    twice)."""

    def __init__(self, url: str | None = None) -> None:
        from pip._internal.commands import create_command

        self.url = url
        self._command = create_command("index")
        self._local = threading.local()
        self._versions: dict[tuple[str, str, str], dict[str, object] | None] = {}
        self._requires: dict[tuple[str, str, str], list[str] | None] = {}
        self._alive: tuple[bool, float] | None = None
        self._guard = threading.Lock()
        self._locks: dict[tuple, threading.Lock] = {}

    def _where(self) -> list[str]:
        return ["--index-url", self.url] if self.url else []

    def _finder(self, python: str, platform: str):
        """This thread's pip package finder for the target (each thread its own HTTP session)."""
        from pip._internal.cli import cmdoptions

        finders = self._local.__dict__.setdefault("finders", {})
        if (python, platform) not in finders:
            args = ["versions", "-", *_target(python, platform), *self._where(), "--timeout", str(TIMEOUT_S), "--retries", "2"]
            options, _ = self._command.parse_args(args)
            if "session" not in self._local.__dict__:
                self._local.session = self._command._build_session(options)
            finders[(python, platform)] = self._command._build_package_finder(
                options=options, session=self._local.session, target_python=cmdoptions.make_target_python(options)
            )
        return finders[(python, platform)]

    def answers(self) -> bool:
        """Whether the index answers now: it lists `pip` (the package index) or `torch` (PyTorch's), asked
        again at most every SENTINEL_S seconds."""
        now = time.monotonic()
        if self._alive is None or now - self._alive[1] > SENTINEL_S:
            name, platform = ("torch", "linux_x86_64") if self.url else ("pip", "linux_x86_64")
            try:
                found = bool(self._finder("3.10", platform).find_all_candidates(name))
            except Exception:  # any failure of the index is "does not answer"
                found = False
            self._alive = (found, now)
        return self._alive[0]

    def _lock(self, key: tuple) -> threading.Lock:
        # One question asked once even when several workers need its answer at the same time.
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def _candidates(self, name: str, python: str, platform: str) -> dict[str, object] | None:
        key = (canonicalize_name(name), python, platform)
        with self._lock(key):
            if key not in self._versions:
                try:
                    found = self._finder(python, platform).find_all_candidates(key[0])
                except Exception:
                    found = None
                if found:
                    # Final releases and post-releases only, as `pip index versions` lists them; the newest
                    # wheel of each release (any of them installs: they differ in tags only).
                    self._versions[key] = {str(c.version): c.link for c in found if not c.version.is_prerelease}
                elif found is not None and self.answers():
                    # pip finds nothing, not an error, on an index it cannot reach: only an index that still
                    # lists a project it certainly has makes the empty answer a real "none".
                    self._versions[key] = {}
                else:
                    self._versions[key] = None
            return self._versions[key]

    def versions(self, name: str, python: str, platform: str) -> tuple[str, ...] | None:
        """Releases of `name` with a wheel for that Python and platform; () none; None: the index did not answer."""
        found = self._candidates(name, python, platform)
        return None if found is None else tuple(found)

    def requires(self, name: str, version: str, python: str, platform: str) -> list[str] | None:
        """The Requires-Dist of that release's wheel for the target, or None when it could not be read. Read
        once per wheel file: markers, not separate metadata, tell Pythons apart."""
        from pip._internal.network.lazy_wheel import dist_from_wheel_url

        link = (self._candidates(name, python, platform) or {}).get(version)
        if link is None:
            return None
        self._finder(python, platform)  # this thread's session
        key = (canonicalize_name(name), version, link.filename)  # type: ignore[attr-defined]
        with self._lock(key):
            if key not in self._requires:
                try:
                    dist = dist_from_wheel_url(key[0], link.url, self._local.session)  # type: ignore[attr-defined]
                    self._requires[key] = list(dist.metadata.get_all("Requires-Dist") or [])
                except Exception:
                    self._requires[key] = None
            return self._requires[key]


def _marker_env(python: str, platform: str, extra: str) -> dict[str, str]:
    return {
        **_MARKERS[platform],
        "python_version": python,
        "python_full_version": python + ".0",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "platform_release": "",
        "platform_version": "",
        "implementation_version": python + ".0",
        "extra": extra,
    }


def _extra_requirements(requires: list[str], extras: frozenset[str], python: str, platform: str) -> list[Requirement]:
    """The requirements `extras` add for that Python and platform (the base requirements are left out)."""
    out = []
    for text in requires:
        req = Requirement(text)
        if req.marker is None or "extra" not in str(req.marker):
            continue
        if any(req.marker.evaluate(_marker_env(python, platform, e)) for e in extras):
            out.append(req)
    return out


def _newest(versions: tuple[str, ...], req: Requirement) -> list[str]:
    ok = []
    for v in versions:
        try:
            if req.specifier.contains(Version(v), prereleases=True):
                ok.append(v)
        except InvalidVersion:
            continue
    return sorted(ok, key=Version, reverse=True)


def check_build(index: Index, name: str, version: str, extras: frozenset[str], python: str, platform: str, depth: int = 0):
    """(True | False | None, why): does `name[extras]==version` install for that Python and platform?"""
    have = index.versions(name, python, platform)
    if have is None:
        return None, f"the index did not answer for {name} (Python {python}, {platform})"
    if version not in have:
        return False, f"no {name} {version} wheel for Python {python} on {platform}"
    if not extras:
        return True, ""
    requires = index.requires(name, version, python, platform)
    if requires is None:
        return None, f"could not read the requirements of {name} {version}"
    for req in _extra_requirements(requires, extras, python, platform):
        found = index.versions(req.name, python, platform)
        if found is None:
            return None, f"the index did not answer for {req.name} (Python {python}, {platform})"
        fits = _newest(found, req)
        if not fits:
            return (
                False,
                f"{req.name}{req.specifier} (from {name}[{','.join(sorted(extras))}]=={version}): no wheel for Python {python} on {platform}",
            )
        if req.extras and depth < 1:
            ok, why = check_build(index, req.name, fits[0], frozenset(req.extras), python, platform, depth + 1)
            if ok is not True:
                return ok, why
    return True, ""


# --- the builds the planner prints ------------------------------------------------------------------------


def _matrix():
    sys.path.insert(0, str(ROOT / "src"))
    from gpudoctor.matrix import load_matrix

    return load_matrix()


def _series(versions: set[str], release: str) -> list[str]:
    """Final releases (and post-releases) of the X.Y series, oldest first."""
    out = []
    for v in versions:
        try:
            pv = Version(v)
        except InvalidVersion:
            continue
        if not pv.is_prerelease and not pv.is_devrelease and f"{pv.major}.{pv.minor}" == release:
            out.append(v)
    return sorted(out, key=Version)


def _gather(index: Index, names: list[str]) -> None:
    jobs = [(n, py, pl) for n in names for py in PYTHONS for pl in PLATFORMS]
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(lambda j: index.versions(*j), jobs))


def _rows_for(index: Index, jobs: list[tuple], today: str) -> list[dict]:
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(lambda j: _row_for(index, *j, today), jobs))


def _row_for(index: Index, framework: str, name: str, extras: frozenset[str], version: str, variant: str, today: str) -> dict:
    package = f"{name}[{','.join(sorted(extras))}]" if extras else name
    row: dict = {"framework": framework, "package": package, "version": version, "variant": variant}
    whys: dict[str, str] = {}  # the first failure on each platform
    for platform in PLATFORMS:
        held: list[str] = []
        unknown = False
        for py in PYTHONS:
            ok, why = check_build(index, name, version, extras, py, platform)
            if ok:
                held.append(py)
            elif ok is None:
                unknown = True
                whys.setdefault(platform, why)
            elif extras and version in (index.versions(name, py, platform) or ()):
                whys.setdefault(platform, why)  # the wheel is there, its extra's pins are not: say which
        row[platform] = "unknown" if unknown and not held else held
    if whys:
        row["why"] = "; ".join(f"{p}: {w}" for p, w in whys.items())
    row["source"] = "pip"
    row["checked"] = today
    return row


def pip_rows(today: str, only: str | None = None) -> list[dict]:
    m = _matrix()
    index = Index()
    rows: list[dict] = []
    jobs: list[tuple] = []
    if only == "jax":
        return jax_rows(index, m, today)
    # TensorFlow: every release of each matrix series, as the planner prints it (the plain package as well:
    # CPU builds and native Windows print `tensorflow==X.Y.*`).
    _gather(index, sorted({r.package for r in m.tf_releases} | {"tensorflow"}))
    for r in m.tf_releases:
        kinds = [(r.package, frozenset(), "system CUDA")]
        if r.and_cuda:
            kinds = [("tensorflow", frozenset(), "plain"), ("tensorflow", frozenset({"and-cuda"}), "and-cuda")]
        for name, extras, variant in kinds:
            have = {v for py in PYTHONS for pl in PLATFORMS for v in (index.versions(name, py, pl) or ())}
            for v in _series(have, r.version):
                jobs.append(("tensorflow", name, extras, v, variant))
    rows += _rows_for(index, jobs, today)
    return rows if only == "tensorflow" else rows + jax_rows(index, m, today)


def pypi_torch_rows(today: str) -> list[dict]:
    """torch from the package index itself (no --index-url: each release's default CUDA variant there)."""
    index = Index()
    m = _matrix()
    _gather(index, ["torch"])
    have = {v for py in PYTHONS for pl in PLATFORMS for v in (index.versions("torch", py, pl) or ())}
    jobs = [("torch", "torch", frozenset(), v, "pypi") for r in m.torch_releases for v in _series(have, r.version)]
    return _rows_for(index, jobs, today)


def jax_rows(index: Index, m, today: str) -> list[dict]:
    rows: list[dict] = []
    # JAX: every release from the matrix's first row, per CUDA major of the row in force, plus jax[cpu].
    releases = sorted(m.jax_releases, key=lambda r: Version(r.version))
    _gather(index, ["jax"])  # cached when the TensorFlow rows asked already
    have = {v for py in PYTHONS for pl in PLATFORMS for v in (index.versions("jax", py, pl) or ())}
    jobs = []
    unreachable = []
    for v in sorted(have, key=Version):
        if Version(v).is_prerelease or Version(v) < Version("0.4"):
            continue
        # Plain jax (pure Python): `jax==V` is printed to bring jax to the installed jaxlib's version.
        jobs.append(("jax", "jax", frozenset(), v, "plain"))
        if Version(v) < Version(releases[0].version):
            continue  # older than the matrix: the planner prints no GPU build of it
        row = [r for r in releases if Version(r.version) <= Version(v)][-1]
        jobs.append(("jax", "jax", frozenset({"cpu"}), v, "cpu"))
        for major in sorted(row.cuda):
            if row.cuda[major].plugin:
                jobs.append(("jax", "jax", frozenset({f"cuda{major}"}), v, f"cuda{major}"))
            else:
                unreachable.append(
                    {
                        "framework": "jax",
                        "package": f"jax[cuda{major}_pip]",
                        "version": v,
                        "variant": f"cuda{major}",
                        **{p: "unknown" for p in PLATFORMS},
                        "why": "its CUDA jaxlib is on JAX's release page (--find-links), which could not be reached",
                        "source": "jax-release-page",
                        "checked": today,
                    }
                )
    rows += _rows_for(index, jobs, today) + unreachable
    return rows


# --- PyTorch: its own index, else the published listings ----------------------------------------------------

# Releases whose pip wheels the previous-versions page lists under "Linux and Windows", per CUDA variant
# (pytorch/pytorch.github.io _get_started/previous-versions.md at e3f009bb, which covers 1.0-2.3.1).
_LISTED_WINDOWS_UPTO = Version("2.3")
# The page lists cu102 under "Linux and Windows" for 1.11 and 1.12 too, but issue 27 found no Windows cu102
# wheel after 1.10: left unknown rather than taken from a page that groups the two systems.
_WINDOWS_DOUBT = {("1.11", "cu102"), ("1.12", "cu102")}
# Linux aarch64 CUDA wheels where shared/reference/pytorch.yaml names an aarch64 build (arch_list_per_variant).
_AARCH64 = {("2.4", "cu124"), ("2.6", "cu126"), ("2.9", "cu130"), ("2.12", "cu130"), ("2.12", "cu132")}


def _pythons_in(spec) -> list[str]:
    return [py for py in PYTHONS if spec.contains(Version(py + ".0"))]


def torch_rows(today: str, live: bool) -> list[dict]:
    from packaging.specifiers import SpecifierSet

    m = _matrix()
    rows = []
    reachable = live and Index(f"{PYTORCH_INDEX}/cu121").answers()
    for rel in m.torch_releases:
        stable = _pythons_in(SpecifierSet(rel.python))
        for tag in [*rel.variants, "cpu"]:
            row: dict = {"framework": "torch", "package": "torch", "version": rel.version, "variant": tag}
            if reachable:
                index = Index(f"{PYTORCH_INDEX}/{tag}")
                for platform in PLATFORMS:
                    found = [index.versions("torch", py, platform) for py in PYTHONS]
                    row[platform] = [py for py, vs in zip(PYTHONS, found, strict=True) if vs and _series(set(vs), rel.version)]
                row["source"] = "pytorch-index"
            else:
                row["linux_x86_64"] = stable
                windows_listed = Version(rel.version) <= _LISTED_WINDOWS_UPTO and (rel.version, tag) not in _WINDOWS_DOUBT
                row["linux_aarch64"] = stable if (rel.version, tag) in _AARCH64 else "unknown"
                row["windows_amd64"] = stable if windows_listed else "unknown"
                row["source"] = "pytorch-listing"
            row["checked"] = today
            rows.append(row)
    return rows


# --- the file -------------------------------------------------------------------------------------------------

HEADER = """\
# What the package indexes hold: one row per framework build the planner can print (tensorflow[and-cuda]==2.15.0,
# jax[cuda12]==0.4.38, torch 2.2 from the cu118 index, torch==2.2.1 from the package index itself (variant
# "pypi"), ...) and the Pythons it installs for on each platform.
# Written by tools/index_table.py; re-checked by `make verify-indexes`. Read by gpudoctor.matrix.indexes
# (holds()). Do not edit rows by hand: change the script and run it.
#
# A platform's value: the Pythons (of `pythons`) the build installs for there, [] none, or "unknown" (the source
# could not say). `why`: what failed (an extra's pin without a wheel, an index that did not answer).
# `source`: a key of [sources]. `checked`: the day the row was last asked.
schema_version = 1
pythons = {pythons}

"""


SOURCES = """\
[sources]
pip = "The package index through pip's own package finder, as pip index versions builds it with --python-version, --platform (manylinux up to glibc 2.35, or win_amd64) and --only-binary=:all:, and each release's Requires-Dist from its wheel's METADATA (pip's lazy wheel); a build holds when its release has a wheel there and every requirement its extras add does too (one level into a requirement's own extras); base requirements are not checked and versions are not solved together"
pytorch-index = "The PyTorch download index (https://download.pytorch.org/whl/<variant>) through the same pip finder"
pytorch-listing = "The PyTorch download index could not be reached: compat_matrix/torch.toml's release rows (RELEASE.md compatibility matrix, previous-versions page, builder scripts) for Linux x86_64; native Windows where pytorch/pytorch.github.io _get_started/previous-versions.md (commit e3f009bb, 1.0-2.3.1) lists the variant's pip wheels under 'Linux and Windows' (cu102 of 1.11/1.12 left unknown: issue 27 found none after 1.10); Linux aarch64 where shared/reference/pytorch.yaml names an aarch64 build; every other cell unknown. Patch releases are not listed per series"
jax-release-page = "JAX's release page for CUDA jaxlib builds (jax[cudaNN_pip] with --find-links https://storage.googleapis.com/jax-releases/jax_cuda_releases.html): not reachable from the machine that built the table"
"""


def _toml_value(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(json.dumps(x) for x in v) + "]"
    return json.dumps(v)


def render(rows: list[dict]) -> str:
    lines = [HEADER.format(pythons=_toml_value(list(PYTHONS))).rstrip("\n"), "", "row = ["]
    for row in rows:
        lines.append("  { " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in row.items()) + " },")
    lines.append("]")
    return "\n".join(lines) + "\n\n" + SOURCES  # a table last: TOML would put later keys inside it


def _key(row: dict) -> tuple[str, str, str, str]:
    return (row["framework"], row["package"], row["version"], row["variant"])


def compare(old: list[dict], new: list[dict]) -> list[str]:
    """The rows whose answer changed, appeared or went (platform values and `why`; dates and sources aside)."""
    before = {_key(r): r for r in old}
    after = {_key(r): r for r in new}
    changes = []
    for k in sorted(set(before) | set(after)):
        a, b = before.get(k), after.get(k)
        name = f"{k[1]}=={k[2]} ({k[3]})"
        if a is None or b is None:
            changes.append(f"{name}: {'new on the index' if a is None else 'no longer found'}")
            continue
        for field in (*PLATFORMS, "why"):
            if a.get(field) != b.get(field):
                changes.append(f"{name} {field}: {a.get(field)} -> {b.get(field)}")
    return changes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="re-ask the indexes and list the rows whose answer changed")
    ap.add_argument("--only", choices=("torch", "tensorflow", "jax"), help="only this framework's rows")
    args = ap.parse_args(argv)
    _isolate_pip()
    today = datetime.date.today().isoformat()
    rows = (torch_rows(today, live=True) + pypi_torch_rows(today) if args.only in (None, "torch") else []) + (
        pip_rows(today, args.only) if args.only != "torch" else []
    )
    if args.check:
        old = tomllib.loads(TABLE.read_text(encoding="utf-8"))["row"]
        if args.only:
            old = [r for r in old if r["framework"] == args.only]
        changes = compare(old, rows)
        unknown = sum(1 for r in rows for p in PLATFORMS if r[p] == "unknown")
        print(f"{len(rows)} rows re-checked ({unknown} platform cells unknown); {len(changes)} changed")
        for c in changes:
            print("  " + c)
        return 1 if changes else 0
    if args.only and TABLE.exists():  # the other frameworks' rows stay as they are
        old = tomllib.loads(TABLE.read_text(encoding="utf-8"))["row"]
        order = ("torch", "tensorflow", "jax")
        rows = sorted([r for r in old if r["framework"] != args.only] + rows, key=lambda r: order.index(r["framework"]))
    TABLE.write_text(render(rows), encoding="utf-8")
    print(f"{TABLE.relative_to(ROOT)}: {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
