#!/usr/bin/env python3
"""The cost `check` adds by reading the frameworks' libraries as the loader does (gpudoctor.probes.loading).

No torch is installed on the project machine, and a torch wheel is too big to fetch for a timing: this
builds a synthetic install of realistic shape with the C compiler instead, and says so. Modelled on
PyTorch 2.5.1+cu124 from PyPI: torch/lib/libtorch_cuda.so and libtorch_global_deps.so (the first made
sparse to 1.1 GiB, the real file's size, so the kernel sees a file of that size; only headers are read),
each needing the CUDA sonames of NVIDIA's wheels, with an RPATH of the twelve $ORIGIN/../../nvidia/*/lib
directories, those directories holding their libraries, 40 other files in torch/lib, and an interpreter
stand-in. Then it times, in this process, with a live host:

- `elf`: reading the two libraries' dynamic sections and the interpreter's (gpudoctor.elf);
- `probe`: the whole loading probe, which also lists every searched directory (the run path's, the
  default directories of this machine: /usr/lib/x86_64-linux-gnu and the others) and resolves each soname.

    .venv/bin/python bench/elf_read.py [--runs 50]

Target (issue 14): at most 20 ms added to `check` on a machine with torch installed.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# NVIDIA wheel directory -> the sonames PyTorch 2.5.1+cu124 takes from it.
WHEELS = {
    "cublas": ["libcublas.so.12", "libcublasLt.so.12"],
    "cuda_cupti": ["libcupti.so.12"],
    "cuda_nvrtc": ["libnvrtc.so.12"],
    "cuda_runtime": ["libcudart.so.12"],
    "cudnn": ["libcudnn.so.9"],
    "cufft": ["libcufft.so.11"],
    "curand": ["libcurand.so.10"],
    "cusolver": ["libcusolver.so.11"],
    "cusparse": ["libcusparse.so.12"],
    "nccl": ["libnccl.so.2"],
    "nvjitlink": ["libnvJitLink.so.12"],
    "nvtx": ["libnvToolsExt.so.1"],
}


def _cc(cwd: Path, *args: str) -> None:
    subprocess.run(["cc", *args], cwd=cwd, check=True, capture_output=True, timeout=300)


def build(root: Path) -> tuple[Path, Path]:
    site = root / "site-packages"
    lib = site / "torch/lib"
    lib.mkdir(parents=True)
    (root / "x.c").write_text("int x(void) { return 0; }\n")
    link_args: list[str] = []
    for pkg, sonames in WHEELS.items():
        d = site / "nvidia" / pkg / "lib"
        d.mkdir(parents=True)
        for soname in sonames:
            _cc(root, "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", str(d / soname), "x.c")
            link_args += [f"-L{d}", f"-l:{soname}"]
    rpath = ":".join(f"$ORIGIN/../../nvidia/{pkg}/lib" for pkg in WHEELS) + ":$ORIGIN"
    for name in ("libtorch_cuda.so", "libtorch_global_deps.so"):
        _cc(
            root,
            "-shared",
            "-fPIC",
            f"-Wl,-soname,{name}",
            "-o",
            str(lib / name),
            "x.c",
            "-Wl,--no-as-needed",
            *link_args,
            "-Wl,--disable-new-dtags",
            f"-Wl,-rpath,{rpath}",
        )
    os.truncate(lib / "libtorch_cuda.so", 1_100 * 1024 * 1024)  # sparse: the real file's size, no disk used
    for i in range(40):
        (lib / f"libother{i}.so").write_bytes(b"")
    exe = root / "python3"
    shutil.copy(sys.executable, exe) if os.path.getsize(sys.executable) < 64 * 1024 * 1024 else exe.symlink_to(sys.executable)
    return site, exe


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    if shutil.which("cc") is None:
        print("needs a C compiler (cc) to build the synthetic install", file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from gpudoctor.facts import Distro, FrameworkFacts, PlatformFacts, ToolkitFacts, TorchFacts
    from gpudoctor.host import PythonEnv
    from gpudoctor.host.live import LiveHost
    from gpudoctor.probed import Absent, Found
    from gpudoctor.probes.loading import probe_loading

    with tempfile.TemporaryDirectory() as tmp:
        site, exe = build(Path(tmp))
        host = LiveHost(environ={})
        env = PythonEnv(str(exe), "3.11", tmp, "venv", [str(site)], {"torch": "2.5.1+cu124"}, {"torch": str(site)})
        fw = FrameworkFacts(
            Found(env, "bench"),
            "--python",
            Found(TorchFacts("2.5.1+cu124", "12.4", None, str(site)), "bench"),
            Absent("-", "-"),
            Absent("-", "-"),
            {},
        )
        plat = PlatformFacts("Linux", "", platform.machine(), Distro(id="debian"), None, None, None, {})
        tks = ToolkitFacts((), None, None, None, None, ())  # type: ignore[arg-type]
        paths = [str(site / "torch/lib/libtorch_global_deps.so"), str(site / "torch/lib/libtorch_cuda.so"), str(exe)]

        def elf() -> None:
            for p in paths:
                host.elf(p)

        def probe() -> None:
            result = probe_loading(host, plat, fw, tks, (), None)
            assert result is not None and result.frameworks[0].loads

        for name, fn in (("elf", elf), ("probe", probe)):
            fn()  # warm: first-time imports and the page cache
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                fn()
                times.append(time.perf_counter() - start)
            print(
                f"{name:6} median {statistics.median(times) * 1000:6.2f} ms   max {max(times) * 1000:6.2f} ms   ({args.runs} runs)"
            )
        loads = probe_loading(host, plat, fw, tks, (), None)
        assert loads is not None
        print(f"resolved {len(loads.frameworks[0].loads)} sonames over {len(loads.dirs)} listed directories")
    return 0


if __name__ == "__main__":
    sys.exit(main())
