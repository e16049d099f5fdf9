"""ld.so's documented search (ld.so(8), "Finding shared objects"), one step per case, gpudoctor.loader against the
real dynamic loader on libraries compiled for the case (as tests/unit/test_loader_ldso.py does, whose cases are the
ones not repeated here).

ld.so(8): "(1) Using the directories specified in the DT_RPATH dynamic section attribute of the binary if present
and DT_RUNPATH attribute does not exist. ... (2) Using the environment variable LD_LIBRARY_PATH ... (3) Using the
directories specified in the DT_RUNPATH dynamic section attribute of the binary if present. Such directories are
searched only to find those objects required by DT_NEEDED (direct dependencies) entries and do not apply to those
objects' children ... (4) From the cache file /etc/ld.so.cache ... (5) In the default path /lib, and then /usr/lib
... If the binary was linked with the -z nodeflib linker option, this step is skipped." and "$ORIGIN ... expands to
the directory containing the program or shared object". glibc also searches the RPATH of each object that loaded the
needing one (elf/dl-load.c, _dl_map_object), as gpudoctor.loader says.

The cache and default-directory cases run the program in a private mount namespace (unshare -m, root only): a cache
built by ldconfig -C bound over /etc/ld.so.cache, or an overlay adding the library to /usr/lib; nothing outside the
namespace changes.
"""

from __future__ import annotations

import os
import platform
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gpudoctor.facts import ElfObject
from gpudoctor.host.live import LiveHost
from gpudoctor.loader import LoaderEnv, default_dirs, expand, resolve_for, split_path_list
from gpudoctor.parsers.ldconfig import parse_ldconfig
from gpudoctor.probes.common import lib_dir
from tests.unit.test_loader_ldso import CC, SONAME, _cc, _lib, _system_cache

pytestmark = [
    pytest.mark.skipif(CC is None, reason="no C compiler (cc) to build test libraries with"),
    pytest.mark.skipif(platform.system() != "Linux", reason="glibc's ld.so is the reference"),
]
MACHINE = platform.machine()
DEFAULTS = default_dirs(MACHINE, os.path.isdir(f"/usr/lib/{MACHINE}-linux-gnu"))


@dataclass
class Case:
    """main -> [libtop ->] libmid -> SONAME. Paths are relative to the case's directory; `$ORIGIN` as written."""

    copies: tuple[str, ...]  # directories holding a copy of SONAME
    mid: str | None = None  # libmid's run path
    mid_runpath: bool = False  # as DT_RUNPATH (else DT_RPATH)
    mid_nodeflib: bool = False
    top: str | None = None  # libtop's extra run path (RPATH); None: no libtop in the chain
    exe: str | None = None  # the executable's extra run path
    exe_runpath: bool = False
    llp: tuple[str, ...] = ()
    cache: tuple[str, ...] = ()  # directories of a private ld.so.cache
    default: bool = False  # a copy overlaid into /usr/lib
    env: dict = field(default_factory=dict)


def _dtags(runpath: bool) -> str:
    return "-Wl,--enable-new-dtags" if runpath else "-Wl,--disable-new-dtags"


def _build(tmp: Path, case: Case) -> tuple[Path, Path, Path | None]:
    for d in ("lib", "lib2", "bin"):
        (tmp / d).mkdir()
    _lib(tmp, "link", 0)  # the copy linked against: no run path names it
    (tmp / "mid.c").write_text("int gd_dep(void); int gd_mid(void) { return gd_dep(); }\n")
    args = ["-shared", "-fPIC", "-Wl,-soname,libmid.so", "-o", "lib/libmid.so", "mid.c", "-Llink", "-l:" + SONAME]
    if case.mid is not None:
        args += [_dtags(case.mid_runpath), f"-Wl,-rpath,{case.mid}"]
    if case.mid_nodeflib:
        args.append("-Wl,-z,nodefaultlib")  # DF_1_NODEFLIB (GNU ld ignores "nodeflib")
    _cc(*args, cwd=tmp)
    needed = "mid"
    if case.top is not None:
        (tmp / "top.c").write_text("int gd_mid(void); int gd_top(void) { return gd_mid(); }\n")
        _cc(
            "-shared", "-fPIC", "-Wl,-soname,libtop.so", "-o", "lib2/libtop.so", "top.c", "-Llib", "-lmid",
            "-Wl,-rpath-link,link", "-Wl,--disable-new-dtags", f"-Wl,-rpath,$ORIGIN/../lib:{case.top}", cwd=tmp,
        )  # fmt: skip
        needed = "top"
    (tmp / "main.c").write_text(f"int gd_{needed}(void); int main(void) {{ return gd_{needed}() == 0; }}\n")
    rpath = "$ORIGIN/../lib:$ORIGIN/../lib2" + (f":{case.exe}" if case.exe else "")
    _cc(
        "-o", "bin/main", "main.c", "-Llib", "-Llib2", f"-l{needed}", "-Wl,-rpath-link,link:lib",
        _dtags(case.exe_runpath), f"-Wl,-rpath,{rpath}", cwd=tmp,
    )  # fmt: skip
    return tmp / "bin/main", tmp / "lib/libmid.so", (tmp / "lib2/libtop.so") if case.top is not None else None


def _namespace_prefix(tmp: Path, case: Case) -> list[str]:
    """The shell lines that set up the private mounts, or [] when the case needs none."""
    lines = []
    if case.default:
        _lib(tmp, "overlay", 9)
        (tmp / "overlay" / "dep.c").unlink()
        lines.append(f"mount -t overlay overlay -o lowerdir={shlex.quote(str(tmp / 'overlay'))}:/usr/lib /usr/lib")
    if case.cache:
        conf = tmp / "ld.so.conf"
        conf.write_text("".join(f"{d if d.startswith('/') else tmp / d}\n" for d in case.cache))
        ldconfig = ["ldconfig", "-C", str(tmp / "ld.so.cache"), "-f", str(conf)]
        if any(d.startswith("/") for d in case.cache):
            lines.append(shlex.join(ldconfig))  # a system directory: cached as the namespace shows it
        else:
            done = subprocess.run(ldconfig, capture_output=True, timeout=60)
            assert done.returncode == 0, done.stderr
        lines.append(f"mount --bind {shlex.quote(str(tmp / 'ld.so.cache'))} /etc/ld.so.cache")
    return lines


def _ldso(tmp: Path, main: Path, case: Case, env: dict[str, str]) -> tuple[str | None, list[str]]:
    """The file ld.so loads (LD_DEBUG=libs), and the default directories holding SONAME as the program saw them."""
    mounts = _namespace_prefix(tmp, case)
    show = "; ".join(f"test -e {d}/{SONAME} && echo HAS:{d}" for d in DEFAULTS)
    script = " && ".join([*mounts, f"{{ {shlex.quote(str(main))}; {show}; true; }}"])
    argv = ["sh", "-c", script]
    if mounts:
        if shutil.which("unshare") is None or os.geteuid() != 0:
            pytest.skip("needs root and unshare for a private mount namespace (root or not root)")
        probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"], capture_output=True, timeout=60)
        if probe.returncode != 0:
            pytest.skip("needs root: this machine does not let root make a mount namespace")
        argv = ["unshare", "-m", "--propagation", "private", *argv]
    run_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LD_DEBUG": "libs", **env}
    result = subprocess.run(argv, env=run_env, capture_output=True, text=True, timeout=60)
    if mounts and result.returncode != 0 and "mount" in result.stderr:
        pytest.skip(f"needs root: the private mount failed here ({result.stderr.strip()[-200:]})")
    has = re.findall(r"^HAS:(\S+)$", result.stdout, re.M)
    init = re.findall(r"calling init: (\S+/" + re.escape(SONAME) + r")$", result.stderr, re.M)
    if init:
        return os.path.normpath(init[0]), has
    assert "cannot open shared object file" in result.stderr, result.stderr[-3000:]
    return None, has


def _gpudoctor(tmp: Path, main: Path, mid: Path, top: Path | None, case: Case, env: dict[str, str], has: list[str]):
    host = LiveHost()

    def obj(path: Path) -> ElfObject:
        d = host.elf(str(path))
        return ElfObject(str(path), d.needed, d.soname, d.rpath, d.runpath, d.nodeflib)

    exe, needer = obj(main), obj(mid)
    chain = ((obj(top),) if top else ()) + (exe,)
    llp = split_path_list(env.get("LD_LIBRARY_PATH"))
    dirs = set(llp)
    for o in (needer, *chain):
        dirs |= set(expand(o.runpath or o.rpath, os.path.dirname(o.path)))
    listings = {}
    for d in dirs | set(DEFAULTS):
        listed = lib_dir(host, d, "searched")
        if listed is not None:
            listings[d] = frozenset(listed.names) | ({SONAME} if d in has else frozenset())
    if case.cache:
        out = subprocess.run(["ldconfig", "-p", "-C", str(tmp / "ld.so.cache")], capture_output=True, text=True, timeout=60)
        cache = parse_ldconfig(out.stdout)
    else:
        cache = _system_cache()
    return resolve_for(SONAME, needer, chain, LoaderEnv(llp, cache, listings, DEFAULTS)).path


CASES = {
    # (1) DT_RPATH of the objects that loaded the needing one, beyond the executable
    "rpath-of-a-loader-not-the-executable": (Case(("toprp",), top="$ORIGIN/../toprp"), "toprp"),
    "loader-rpath-before-ld-library-path": (Case(("toprp", "llp"), top="$ORIGIN/../toprp", llp=("llp",)), "toprp"),
    "needer-rpath-before-its-loaders-rpath": (
        Case(("rp", "toprp"), mid="$ORIGIN/../rp", top="$ORIGIN/../toprp"),
        "rp",
    ),  # fmt: skip
    "needer-runpath-hides-loaders-rpath": (
        Case(("toprp",), mid="$ORIGIN/../none", mid_runpath=True, top="$ORIGIN/../toprp"),
        None,
    ),  # fmt: skip
    # $ORIGIN is the directory of the object whose run path it is
    "origin-of-the-executable-is-bin": (Case(("bin/dep",), exe="$ORIGIN/dep"), "bin/dep"),
    "origin-of-the-executable-is-not-the-needers": (Case(("lib/dep",), exe="$ORIGIN/dep"), None),
    "origin-of-the-needer-is-lib": (Case(("lib/dep",), mid="$ORIGIN/dep", mid_runpath=True), "lib/dep"),
    "origin-of-the-needer-is-not-the-executables": (Case(("bin/dep",), mid="$ORIGIN/dep", mid_runpath=True), None),
    # (3) DT_RUNPATH applies to the object's own DT_NEEDED only, not to its children
    "executable-runpath-not-inherited": (Case(("exe",), exe="$ORIGIN/../exe", exe_runpath=True), None),
    "runpath-before-the-cache": (Case(("rp", "cached"), mid="$ORIGIN/../rp", mid_runpath=True, cache=("cached",)), "rp"),
    "ld-library-path-before-the-cache": (Case(("llp", "cached"), llp=("llp",), cache=("cached",)), "llp"),
    # (4) the cache
    "the-cache": (Case(("cached",), cache=("cached",)), "cached"),
    "the-cache-before-the-defaults": (Case(("cached",), cache=("cached",), default=True), "cached"),
    # -z nodefaultlib (DF_1_NODEFLIB): glibc drops the cache's entries inside the default directories only
    # (elf/dl-load.c, _dl_map_object: "we must not use a cache entry from any of these directories")
    "nodeflib-keeps-a-cache-entry-elsewhere": (Case(("cached",), mid_nodeflib=True, cache=("cached",)), "cached"),
    "nodeflib-drops-a-cache-entry-in-a-default-directory": (
        Case((), mid_nodeflib=True, default=True, cache=("/usr/lib",)),
        None,
    ),  # fmt: skip
    "a-cache-entry-in-a-default-directory": (Case((), default=True, cache=("/usr/lib",)), "default"),
    # (5) the default directories
    "the-default-directories": (Case((), default=True), "default"),
    "nodeflib-skips-the-defaults": (Case((), mid_nodeflib=True, default=True), None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_step_of_the_search_as_ld_so_takes_it(name, tmp_path):
    """ld.so(8), "Finding shared objects", one step per case (the comment above each group of CASES quotes it): the
    real ld.so loads the copy the case names, and gpudoctor.loader.resolve_for names the same file, or none."""
    case, winner = CASES[name]
    main, mid, top = _build(tmp_path, case)
    for i, where in enumerate(case.copies, 1):
        _lib(tmp_path, where, i)
    env = {"LD_LIBRARY_PATH": ":".join(str(tmp_path / p) for p in case.llp)} if case.llp else {}
    expected, has = _ldso(tmp_path, main, case, env)
    # The case is what its name says: ld.so's own answer is the one written by hand.
    if winner == "default":
        assert expected is not None and os.path.dirname(expected) in DEFAULTS and has, (expected, has)
    else:
        assert expected == (str(tmp_path / winner / SONAME) if winner else None)
    assert _gpudoctor(tmp_path, main, mid, top, case, env, has) == expected
