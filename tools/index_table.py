"""Build or re-check compat_matrix/indexes.toml: what the package indexes really hold for every framework build
the planner can print (gpudoctor.planner.pick_torch / pick_tensorflow / pick_jax), per Python and platform.

    .venv/bin/python tools/index_table.py            # rebuild the table from the indexes (network, ~10 minutes)
    .venv/bin/python tools/index_table.py --check    # re-ask the indexes; list the rows whose answer changed
                                                     # (exit 1 when one did); `make verify-indexes` runs this

Where the answers come from (docs/matrix.md, "What the indexes hold"):

- The package index, live, through pip's own finder and resolver (pip's default index: nothing here names a
  host). `pip index versions NAME --python-version X.Y --platform TAG... --only-binary=:all:` gives every
  release with a wheel for that Python and platform; `pip install --dry-run --no-deps --report -` gives a
  release's Requires-Dist. A build `PKG[EXTRA]==V` holds for (Python, platform) when V has a wheel there and
  every requirement its extras add (evaluated with that Python's and platform's markers) has a wheel there
  too, one level further for a requirement that names extras itself (jax[cuda12] -> jax-cuda12-plugin
  [with_cuda] -> nvidia-*). Base requirements (numpy, protobuf, ...) are not checked, and the versions are
  not solved together: a full `pip install --dry-run` of one tensorflow[and-cuda] took 75 s here, and
  2.15.0's never finished (pip backtracks over tensorrt for minutes).
- The PyTorch download index: tried first (same pip commands with its --index-url); where it cannot be
  reached (it could not from the machine that built the table) the rows keep the published listings they
  were written from: compat_matrix/torch.toml's release rows and the previous-versions page.
- JAX's release page (the jax[cudaNN_pip] builds before the CUDA plugins): not reachable from here either;
  those rows stay "unknown".

Every pip call runs with PIP_CONFIG_FILE=/dev/null and no PIP_* variables (so a machine's pip.conf, its
constraints or its find-links do not change the answer) and a time limit; a call that fails for any other
reason than "no such distribution" leaves the answer unknown, never "no".
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
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
PYTHONS = ("3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14")


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
CALL_TIMEOUT_S = 120
WORKERS = 6
SENTINEL_S = 60
# `pip index versions` prints "NAME (LATEST)" and "Available versions: A, B, ..." (every pip since 21.2).
_AVAILABLE = re.compile(r"^Available versions: (.*)$", re.M)
_NO_SUCH = re.compile(r"No matching distribution found|Could not find a version that satisfies")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    return env


def _pip(args: list[str]) -> tuple[int | None, str, str]:
    """(exit status or None on a timeout, stdout, stderr) of one bounded pip call."""
    cmd = [sys.executable, "-m", "pip", *args, "--disable-pip-version-check", "--no-input", "--timeout", "30", "--retries", "2"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=CALL_TIMEOUT_S, env=_env(), check=False)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {CALL_TIMEOUT_S} s"
    return done.returncode, done.stdout, done.stderr


def _target(python: str, platform: str) -> list[str]:
    return ["--python-version", python, *(a for tag in PLATFORMS[platform] for a in ("--platform", tag)), "--only-binary=:all:"]


class Index:
    """The answers of one index (None: the package index), asked once each and cached."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url
        self._versions: dict[tuple[str, str, str], tuple[str, ...] | None] = {}
        self._requires: dict[tuple[str, str, str], list[str] | None] = {}
        self._alive: tuple[bool, float] | None = None

    def _where(self) -> list[str]:
        return ["--index-url", self.url] if self.url else []

    def answers(self) -> bool:
        """Whether the index answers now: it lists `pip` (the package index) or `torch` (PyTorch's), asked
        again at most every SENTINEL_S seconds."""
        now = time.monotonic()
        if self._alive is None or now - self._alive[1] > SENTINEL_S:
            name, py = ("torch", "3.10") if self.url else ("pip", "3.12")
            rc, out, _ = _pip(["index", "versions", name, "--python-version", py, *self._where()])
            self._alive = (rc == 0 and _AVAILABLE.search(out) is not None, now)
        return self._alive[0]

    def versions(self, name: str, python: str, platform: str) -> tuple[str, ...] | None:
        """Releases of `name` with a wheel for that Python and platform; () none; None: the index did not answer."""
        key = (canonicalize_name(name), python, platform)
        if key not in self._versions:
            rc, out, err = _pip(["index", "versions", key[0], *_target(python, platform), *self._where()])
            listed = _AVAILABLE.search(out) if rc == 0 else None
            if listed:
                self._versions[key] = tuple(v.strip() for v in listed.group(1).split(",") if v.strip())
            elif rc is not None and _NO_SUCH.search(err) and self.answers():
                # pip says "no matching distribution" for an index it cannot reach as well: only an index that
                # still answers for a project it certainly has makes the empty answer a real "none".
                self._versions[key] = ()
            else:
                self._versions[key] = None
        return self._versions[key]

    def requires(self, name: str, version: str, python: str, platform: str) -> list[str] | None:
        """The Requires-Dist of that release's wheel for the platform (read once, from the wheel for the first
        Python asked: markers, not separate metadata, tell Pythons apart), or None when it could not be read."""
        key = (canonicalize_name(name), version, platform)
        if key not in self._requires:
            # --target: pips before 25 refuse --platform without it, even for a dry run (nothing is written there).
            target = ["--target", os.path.join(tempfile.gettempdir(), "index-table-dry-run")]
            args = ["install", "--dry-run", "--no-deps", "--ignore-installed", "--quiet", "--report", "-", *target]
            rc, out, _ = _pip([*args, *_target(python, platform), *self._where(), f"{key[0]}=={version}"])
            try:
                report = json.loads(out) if rc == 0 else None
                self._requires[key] = list(report["install"][0]["metadata"].get("requires_dist", [])) if report else None
            except (ValueError, KeyError, IndexError):
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
    whys: list[str] = []
    for platform in PLATFORMS:
        held: list[str] = []
        unknown = False
        for py in PYTHONS:
            ok, why = check_build(index, name, version, extras, py, platform)
            if ok:
                held.append(py)
            elif ok is None:
                unknown = True
                whys.append(why)
            elif extras and version in (index.versions(name, py, platform) or ()):
                whys.append(why)  # the wheel is there, its extra's pins are not: say which
        row[platform] = "unknown" if unknown and not held else held
    if whys:
        row["why"] = sorted(set(whys))[0] if len(set(whys)) == 1 else "; ".join(sorted(set(whys))[:2])
    row["source"] = "pip"
    row["checked"] = today
    return row


def pip_rows(today: str) -> list[dict]:
    m = _matrix()
    index = Index()
    rows: list[dict] = []
    jobs: list[tuple] = []
    # TensorFlow: every release of each matrix series, as the planner prints it (the plain package as well:
    # CPU builds and native Windows print `tensorflow==X.Y.*`).
    tf_names = sorted({r.package for r in m.tf_releases} | {"tensorflow"})
    jax_names = ["jax"]
    _gather(index, tf_names + jax_names)
    for r in m.tf_releases:
        kinds = [(r.package, frozenset(), "system CUDA")]
        if r.and_cuda:
            kinds = [("tensorflow", frozenset(), "plain"), ("tensorflow", frozenset({"and-cuda"}), "and-cuda")]
        for name, extras, variant in kinds:
            have = {v for py in PYTHONS for pl in PLATFORMS for v in (index.versions(name, py, pl) or ())}
            for v in _series(have, r.version):
                jobs.append(("tensorflow", name, extras, v, variant))
    rows += _rows_for(index, jobs, today)
    # JAX: every release from the matrix's first row, per CUDA major of the row in force, plus jax[cpu].
    releases = sorted(m.jax_releases, key=lambda r: Version(r.version))
    have = {v for py in PYTHONS for pl in PLATFORMS for v in (index.versions("jax", py, pl) or ())}
    jobs = []
    unreachable = []
    for v in sorted((x for x in have if Version(x) >= Version(releases[0].version)), key=Version):
        if Version(v).is_prerelease:
            continue
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
# jax[cuda12]==0.4.38, torch 2.2 from the cu118 index, ...) and the Pythons it installs for on each platform.
# Written by tools/index_table.py; re-checked by `make verify-indexes`. Read by gpudoctor.matrix.indexes
# (holds()). Do not edit rows by hand: change the script and run it.
#
# A platform's value: the Pythons (of `pythons`) the build installs for there, [] none, or "unknown" (the source
# could not say). `why`: what failed (an extra's pin without a wheel, an index that did not answer).
# `source`: a key of [sources]. `checked`: the day the row was last asked.
schema_version = 1
pythons = {pythons}

[sources]
pip = "The package index through pip's own finder (pip index versions; pip install --dry-run --no-deps --report -) with --python-version, --platform (manylinux up to glibc 2.35, or win_amd64) and --only-binary=:all:; a build holds when its release has a wheel there and every requirement its extras add does too (one level into a requirement's own extras); base requirements are not checked and versions are not solved together"
pytorch-index = "The PyTorch download index (https://download.pytorch.org/whl/<variant>) through pip index versions"
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
    return "\n".join(lines) + "\n"


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
    today = datetime.date.today().isoformat()
    rows = torch_rows(today, live=True) + pip_rows(today)
    if args.only:
        rows = [r for r in rows if r["framework"] == args.only]
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
    TABLE.write_text(render(rows), encoding="utf-8")
    print(f"{TABLE.relative_to(ROOT)}: {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
