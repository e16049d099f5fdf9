"""gpudoctor.probes.loading on a framework tree built with the C compiler, against ld.so itself.

A torch-like layout in a temp dir: site-packages/torch/lib/libtorch_cuda.so needing libcudnn.so.9 (and
libcudart.so.12), with its run path to NVIDIA's wheel directories ($ORIGIN/../../nvidia/*/lib) written as
RUNPATH or RPATH, the wheel's copies there, and an older libcudnn.so.9 on LD_LIBRARY_PATH. The probe's
answer (through the live host, as `gpudoctor check` reads a machine) must name the file LD_DEBUG=libs
shows loading, with every copy listed; and the cuDNN check must follow it.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpudoctor.facts import Distro, FrameworkFacts, PlatformFacts, ToolkitFacts, TorchFacts
from gpudoctor.host import PythonEnv
from gpudoctor.host.live import LiveHost
from gpudoctor.probed import Absent, Found
from gpudoctor.probes.common import lib_dir
from gpudoctor.probes.loading import probe_loading

CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = [
    pytest.mark.skipif(CC is None, reason="no C compiler (cc) to build test libraries with"),
    pytest.mark.skipif(platform.system() != "Linux", reason="glibc's ld.so is the reference"),
]


def _cc(cwd: Path, *args: str) -> None:
    assert CC is not None
    done = subprocess.run([CC, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def _so(d: Path, soname: str, value: int) -> None:
    d.mkdir(parents=True, exist_ok=True)
    (d / "x.c").write_text(f"int v_{re.sub(r'[^a-z]', '_', soname)}(void) {{ return {value}; }}\n")
    _cc(d, "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", soname, "x.c")


def _tree(tmp: Path, new_dtags: bool) -> tuple[Path, Path, Path]:
    site = tmp / "site-packages"
    lib = site / "torch/lib"
    _so(site / "nvidia/cudnn/lib", "libcudnn.so.9", 98)
    _so(site / "nvidia/cuda_runtime/lib", "libcudart.so.12", 12)
    _so(tmp / "old", "libcudnn.so.9", 91)
    lib.mkdir(parents=True)
    (tmp / "t.c").write_text(
        "int v_libcudnn_so__(void); int v_libcudart_so___(void); int t(void) { return v_libcudnn_so__() + v_libcudart_so___(); }\n"
    )
    _cc(
        tmp,
        "-shared",
        "-fPIC",
        "-Wl,-soname,libtorch_cuda.so",
        "-o",
        str(lib / "libtorch_cuda.so"),
        "t.c",
        f"-L{site}/nvidia/cudnn/lib",
        "-l:libcudnn.so.9",
        f"-L{site}/nvidia/cuda_runtime/lib",
        "-l:libcudart.so.12",
        "-Wl,--enable-new-dtags" if new_dtags else "-Wl,--disable-new-dtags",
        "-Wl,-rpath,$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN/../../nvidia/cuda_runtime/lib",
    )
    # The interpreter stand-in: an executable that loads libtorch_cuda.so, as python loads torch.
    (tmp / "m.c").write_text("int t(void); int main(void) { return t() == 0; }\n")
    _cc(
        tmp,
        "-o",
        "python3",
        "m.c",
        f"-L{lib}",
        "-ltorch_cuda",
        f"-Wl,-rpath,{lib}",
        f"-Wl,-rpath-link,{site}/nvidia/cudnn/lib:{site}/nvidia/cuda_runtime/lib",
    )
    return site, tmp / "python3", tmp / "old"


def _ldso_loads(exe: Path, env: dict[str, str], soname: str) -> str | None:
    out = subprocess.run(
        [str(exe)],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LD_DEBUG": "libs", **env},
        capture_output=True,
        text=True,
        timeout=60,
    ).stderr
    found = re.findall(r"calling init: (\S+/" + re.escape(soname) + r")$", out, re.M)
    return os.path.normpath(found[0]) if found else None


@pytest.mark.parametrize("new_dtags", [True, False], ids=["runpath", "rpath"])
def test_probe_names_the_copy_ld_so_loads(tmp_path, new_dtags):
    site, exe, old = _tree(tmp_path, new_dtags)
    host = LiveHost(environ={"LD_LIBRARY_PATH": str(old)})
    ld_path = tuple(d for d in (lib_dir(host, str(old), "LD_LIBRARY_PATH"),) if d is not None)
    env = PythonEnv(str(exe), "3.11.0", str(tmp_path), "venv", [str(site)], {"torch": "2.5.1+cu124"}, {"torch": str(site)})
    torch = TorchFacts("2.5.1+cu124", "12.4", None, str(site), ())
    frameworks = FrameworkFacts(Found(env, "test"), "--python", Found(torch, "test"), Absent("-", "-"), Absent("-", "-"), {})
    plat = PlatformFacts("Linux", "", platform.machine(), Distro(), None, None, None, {"LD_LIBRARY_PATH": str(old)})
    tks = ToolkitFacts((), None, None, None, None, ())  # type: ignore[arg-type]
    loading = probe_loading(host, plat, frameworks, tks, ld_path, None)
    assert loading is not None
    fl = loading.of("torch")
    assert fl is not None and [o.path.rsplit("/", 1)[1] for o in fl.objects] == ["libtorch_cuda.so"]
    by_soname = {r.soname: r for r in fl.loads}
    for soname in ("libcudnn.so.9", "libcudart.so.12"):
        expected = _ldso_loads(exe, {"LD_LIBRARY_PATH": str(old)}, soname)
        assert expected is not None
        assert by_soname[soname].path == expected, f"{soname}: gpudoctor {by_soname[soname].path}, ld.so {expected}"
    cudnn = by_soname["libcudnn.so.9"]
    wheel = str(site / "nvidia/cudnn/lib/libcudnn.so.9")
    # Every copy is listed, the loader's choice first: RUNPATH loses to LD_LIBRARY_PATH, RPATH wins over it.
    assert [c.path for c in cudnn.copies] == (
        [str(old / "libcudnn.so.9"), wheel] if new_dtags else [wheel, str(old / "libcudnn.so.9")]
    )
    assert cudnn.via == ("LD_LIBRARY_PATH" if new_dtags else "RPATH of libtorch_cuda.so")
    assert cudnn.needed_by == str(site / "torch/lib/libtorch_cuda.so") and cudnn.how == "needed"
