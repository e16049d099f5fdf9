"""gpudoctor.loader against the real dynamic loader: small ELF libraries built with the C compiler, resolved
by gpudoctor (ELF records read through the live host) and by ld.so itself (LD_DEBUG=libs, and ldd), which
must agree on the file that loads, or on none.

The libraries carry a CUDA-like soname (libcudnn_gdtest.so.8) so that the probes' own directory listing
(gpudoctor.probes.common.lib_dir) sees them, and a name no system has, so the ldconfig cache and default
directories (which gpudoctor also consults, from this machine's `ldconfig -p`) hold no copy.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpudoctor.facts import ElfObject
from gpudoctor.host.live import LiveHost
from gpudoctor.loader import LoaderEnv, default_dirs, resolve_for
from gpudoctor.probes.common import lib_dir

CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = [
    pytest.mark.skipif(CC is None, reason="no C compiler (cc) to build test libraries with"),
    pytest.mark.skipif(platform.system() != "Linux", reason="glibc's ld.so is the reference"),
]
SONAME = "libcudnn_gdtest.so.8"


def _cc(*args: str, cwd: Path) -> None:
    assert CC is not None
    done = subprocess.run([CC, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"cc {' '.join(args)}: {done.stderr[-2000:]}"


def _lib(tmp: Path, where: str, value: int) -> None:
    """libcudnn_gdtest.so.8 in tmp/where, answering `value` (so a test could also tell copies apart at run time)."""
    d = tmp / where
    d.mkdir(parents=True, exist_ok=True)
    src = d / "dep.c"
    src.write_text(f"int gd_dep(void) {{ return {value}; }}\n")
    _cc("-shared", "-fPIC", f"-Wl,-soname,{SONAME}", "-o", str(d / SONAME), str(src), cwd=tmp)


def _build(tmp: Path, mid_path: str | None, new_dtags: bool, exe_rpath: str | None) -> tuple[Path, Path]:
    """bin/main -> lib/libmid.so (with a static archive linked in) -> libcudnn_gdtest.so.8.

    mid_path: libmid's run path ($ORIGIN-relative), as RUNPATH (new_dtags) or RPATH; exe_rpath: the
    executable's own DT_RPATH entry besides lib/ (always old-style, as conda's python carries)."""
    (tmp / "lib").mkdir()
    (tmp / "bin").mkdir()
    (tmp / "st.c").write_text("int gd_static(void) { return 7; }\n")
    _cc("-c", "-fPIC", "-o", "st.o", "st.c", cwd=tmp)
    subprocess.run(["ar", "rcs", "libst.a", "st.o"], cwd=tmp, check=True, capture_output=True, timeout=60)
    (tmp / "mid.c").write_text("int gd_dep(void); int gd_static(void); int gd_mid(void) { return gd_dep() + gd_static(); }\n")
    # Link against a copy in link/, which no run path names: only the run-time search decides.
    _lib(tmp, "link", 0)
    args = ["-shared", "-fPIC", "-Wl,-soname,libmid.so", "-o", "lib/libmid.so", "mid.c", "-Llink", "-l:" + SONAME, "-L.", "-lst"]
    if mid_path is not None:
        args.append("-Wl,--enable-new-dtags" if new_dtags else "-Wl,--disable-new-dtags")
        args.append(f"-Wl,-rpath,{mid_path}")
    _cc(*args, cwd=tmp)
    (tmp / "main.c").write_text("int gd_mid(void); int main(void) { return gd_mid() == 0; }\n")
    rpath = "$ORIGIN/../lib" + (f":{exe_rpath}" if exe_rpath else "")
    # -rpath-link: the link editor finds libmid's dependency where the run-time loader will not look.
    _cc(
        "-o",
        "bin/main",
        "main.c",
        "-Llib",
        "-lmid",
        "-Wl,-rpath-link,link",
        "-Wl,--disable-new-dtags",
        f"-Wl,-rpath,{rpath}",
        cwd=tmp,
    )
    return tmp / "bin/main", tmp / "lib/libmid.so"


def _ldso(main: Path, env: dict[str, str]) -> str | None:
    """The file ld.so loads for SONAME, from LD_DEBUG=libs (None when it cannot find one)."""
    run_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LD_DEBUG": "libs", **env}
    result = subprocess.run([str(main)], env=run_env, capture_output=True, text=True, timeout=60)
    init = re.findall(r"calling init: (\S+/" + re.escape(SONAME) + r")$", result.stderr, re.M)
    if init:
        return os.path.normpath(init[0])
    assert "cannot open shared object file" in result.stderr, result.stderr[-2000:]
    return None


def _ldd(main: Path, env: dict[str, str]) -> str | None:
    ldd = shutil.which("ldd")
    if ldd is None:
        return "skipped"
    run_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}
    out = subprocess.run([ldd, str(main)], env=run_env, capture_output=True, text=True, timeout=60).stdout
    m = re.search(re.escape(SONAME) + r" => (\S+)", out)
    assert m, out
    return None if m.group(1) == "not" else os.path.normpath(m.group(1))


def _system_cache() -> dict[str, tuple[str, ...]] | None:
    from gpudoctor.parsers.ldconfig import parse_ldconfig

    for exe in ("ldconfig", "/sbin/ldconfig"):
        try:
            out = subprocess.run([exe, "-p"], capture_output=True, text=True, timeout=60)
        except OSError:
            continue
        if out.returncode == 0:
            return parse_ldconfig(out.stdout)
    return None


def _gpudoctor(main: Path, mid: Path, env: dict[str, str]) -> str | None:
    host = LiveHost()

    def obj(path: Path) -> ElfObject:
        d = host.elf(str(path))
        return ElfObject(str(path), d.needed, d.soname, d.rpath, d.runpath, d.nodeflib)

    exe, needer = obj(main), obj(mid)
    assert SONAME in needer.needed and not any("libst" in n for n in needer.needed)  # the archive is linked in
    from gpudoctor.loader import expand, split_path_list

    llp = split_path_list(env.get("LD_LIBRARY_PATH"))
    dirs = set(llp) | set(expand(needer.runpath or needer.rpath, str(mid.parent))) | set(expand(exe.rpath, str(main.parent)))
    defaults = default_dirs(platform.machine(), os.path.isdir(f"/usr/lib/{platform.machine()}-linux-gnu"))
    listings = {}
    for d in dirs | set(defaults):
        listed = lib_dir(host, d, "searched")
        if listed is not None:
            listings[d] = frozenset(listed.names)
    preload = tuple(obj(Path(p)) for p in split_path_list(env.get("LD_PRELOAD")))
    loader_env = LoaderEnv(llp, _system_cache(), listings, defaults, preload)
    # mid was loaded because the executable needs it: the chain above it is the executable alone.
    return resolve_for(SONAME, needer, (exe,), loader_env).path


CASES = {
    # name: (copies to build, libmid's run path, new dtags, exe's extra rpath, LD_LIBRARY_PATH, the copy ld.so loads)
    "rpath-before-ld-library-path": (("rp", "llp"), "$ORIGIN/../rp", False, None, "llp", "rp"),
    "runpath-after-ld-library-path": (("rp", "llp"), "$ORIGIN/../rp", True, None, "llp", "llp"),
    "runpath-alone": (("rp",), "$ORIGIN/../rp", True, None, None, "rp"),
    "origin-in-braces": (("rp",), "${ORIGIN}/../rp", False, None, None, "rp"),
    "executable-rpath-inherited": (("exe",), None, False, "$ORIGIN/../exe", None, "exe"),
    "runpath-hides-executable-rpath": (("exe",), "$ORIGIN/../nowhere", True, "$ORIGIN/../exe", None, None),
    "rpath-before-executable-rpath": (("rp", "exe"), "$ORIGIN/../rp", False, "$ORIGIN/../exe", None, "rp"),
    "ld-library-path-before-runpath-missing-dir": (("llp",), "$ORIGIN/../nowhere", True, None, "nowhere:llp", "llp"),
    "nowhere": ((), "$ORIGIN/../rp", True, None, None, None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_gpudoctor_resolves_as_ld_so_does(case, tmp_path):
    copies, mid_path, new_dtags, exe_rpath, llp, winner = CASES[case]
    main, mid = _build(tmp_path, mid_path, new_dtags, exe_rpath)
    for i, where in enumerate(copies, 1):
        _lib(tmp_path, where, i)
    env = {"LD_LIBRARY_PATH": ":".join(str(tmp_path / p) for p in llp.split(":"))} if llp else {}
    expected = _ldso(main, env)
    ldd = _ldd(main, env)
    assert ldd in ("skipped", expected), f"ldd says {ldd}, LD_DEBUG says {expected}"
    assert _gpudoctor(main, mid, env) == expected
    # The case is what its name says (ld.so's answer is the one written by hand).
    assert expected == (str(tmp_path / winner / SONAME) if winner else None)


def test_a_preload_wins_over_every_path(tmp_path):
    main, mid = _build(tmp_path, "$ORIGIN/../rp", False, None)
    _lib(tmp_path, "rp", 1)
    _lib(tmp_path, "pre", 2)
    env = {"LD_PRELOAD": str(tmp_path / "pre" / SONAME), "LD_LIBRARY_PATH": str(tmp_path / "rp")}
    expected = _ldso(main, env)
    assert expected == str(tmp_path / "pre" / SONAME)
    assert _gpudoctor(main, mid, env) == expected
