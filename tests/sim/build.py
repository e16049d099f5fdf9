"""Compile the simulated machine's two C libraries once per source version, with the system C compiler.

- fake_nvml.c against NVIDIA's real nvml.h, from the nvidia-nvml-dev-cu12 wheel (pyproject.toml's `test`
  extra installs it: site-packages/nvidia/nvml_dev/include/nvml.h), three times: the current library,
  and the libraries of drivers older than R535 and than R510 (without the entry points those added);
- tests/fixtures/bandwidth/fake_libcuda.c, the deterministic CUDA driver the bandwidth tests use.

Each is built into a cache directory named by the hash of its sources, flags and header, under the
system temp directory, so a test session compiles at most once and a changed source never meets a
stale library. A build writes under a temporary name and renames, so two sessions never see half a file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
NVML_SOURCE = HERE / "fake_nvml.c"
CUDA_SOURCE = HERE.parent / "fixtures" / "bandwidth" / "fake_libcuda.c"


class Unavailable(Exception):
    """The libraries cannot be built here (no C compiler, no nvml.h): the reason a test skips with."""


@dataclass(frozen=True)
class Libraries:
    """Directories each holding one soname, ready to put first on LD_LIBRARY_PATH."""

    nvml: Path  # holds libnvidia-ml.so.1
    nvml_before_r535: Path  # libnvidia-ml.so.1 of a driver older than R535
    nvml_before_r510: Path  # and of one older than R510
    cuda: Path  # holds libcuda.so.1


def compiler() -> str:
    found = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if found is None:
        raise Unavailable("no C compiler (cc, gcc or clang) to build the simulated NVIDIA libraries")
    return found


def nvml_include_dir() -> Path:
    """The directory of nvml.h: $GPUDOCTOR_NVML_INCLUDE, else where the nvidia-nvml-dev-cu12 wheel installs it into this
    interpreter's site-packages, else a CUDA toolkit's include directory (on a GPU machine without the test extra,
    tools/nvml_compare.py builds the fake from there; docs/gpu-truth.md)."""
    candidates = [Path(os.environ["GPUDOCTOR_NVML_INCLUDE"])] if os.environ.get("GPUDOCTOR_NVML_INCLUDE") else []
    candidates += [Path(sysconfig.get_paths()[key]) / "nvidia" / "nvml_dev" / "include" for key in ("purelib", "platlib")]
    cuda = [os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    candidates += [Path(c) / sub for c in cuda if c for sub in ("include", "targets/x86_64-linux/include")]
    for candidate in candidates:
        if (candidate / "nvml.h").is_file():
            return candidate
    raise Unavailable(
        "NVIDIA's nvml.h is not installed: the nvidia-nvml-dev-cu12 wheel (pip install -e '.[test]') "
        f"carries it; {sys.executable} has none"
    )


def _build(cc: str, source: Path, soname: str, flags: list[str], extra_inputs: list[Path]) -> Path:
    digest = hashlib.sha256()
    for item in (source, *extra_inputs):
        digest.update(item.read_bytes())
    digest.update(" ".join([cc, *flags]).encode())
    # One cache per user: a directory another user built is not ours to write into (or to trust).
    out = Path(tempfile.gettempdir()) / f"gpudoctor-sim-{os.getuid()}-{digest.hexdigest()[:16]}"
    target = out / soname
    if target.is_file():
        return out
    out.mkdir(mode=0o755, exist_ok=True)
    partial = out / f".{soname}.{os.getpid()}"
    argv = [cc, "-shared", "-fPIC", "-O1", f"-Wl,-soname,{soname}", *flags, "-o", str(partial), str(source)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        # A compile error is a bug in the fake (or a header it no longer matches): fail loudly, never skip.
        raise RuntimeError(f"building {source.name} failed:\n{done.stderr}")
    os.replace(partial, target)
    return out


def build_libraries() -> Libraries:
    cc = compiler()
    include = nvml_include_dir()
    header = [include / "nvml.h"]
    nvml = _build(cc, NVML_SOURCE, "libnvidia-ml.so.1", [f"-I{include}"], header)
    r535 = _build(cc, NVML_SOURCE, "libnvidia-ml.so.1", [f"-I{include}", "-DBEFORE_R535"], header)
    r510 = _build(cc, NVML_SOURCE, "libnvidia-ml.so.1", [f"-I{include}", "-DBEFORE_R510"], header)
    cuda = _build(cc, CUDA_SOURCE, "libcuda.so.1", [], [])
    return Libraries(nvml, r535, r510, cuda)
