"""The DLLs of one CUDA and cuDNN major on Windows, brought as NVIDIA's wheels into the Python that runs the program,
and their bin folders put first on PATH: the decided step where a Python package's CUDA provider cannot load its DLLs
and the text names the majors it needs (no toolkit, no administrator). Pure: facts in, command lines out.

Before this, such a plan stopped at where.exe and a `<cudnn-folder>` placeholder moved to prose; the reviewers of the
blind sets asked for the install and the PATH line (microsoft/onnxruntime#21215, tests/blind/plans7/cases/616-*: "keep
onnxruntime-gpu 1.18.1 and put CUDA 11.8 runtime DLLs and cuDNN 8.9 for CUDA 11 on PATH"; hacksider/Deep-Live-Cam#948,
tests/blind/plans17/cases/1749-*: cuDNN 8 for CUDA 11 onto PATH).
"""

from __future__ import annotations

from gpudoctor.cmdline import Line, Output
from gpudoctor.facts import Facts

# What onnxruntime's CUDA provider loads besides cuDNN, as NVIDIA's wheels of each CUDA major: the CUDA runtime,
# cuBLAS, cuFFT and cuRAND (onnxruntime.ai's CUDA execution provider requirements; onnxruntime-gpu 1.23.2's `cuda`
# extra names these four for CUDA 12, checks.libraries._ORT_CUDA12_WHEELS). Each resolves for win_amd64 (pip install
# --dry-run --no-deps --only-binary=:all: --python-version 3.10 --platform win_amd64, 2026-12-01: cu11 11.8.89,
# 11.11.3.6, 10.9.0.58, 10.3.0.86; cu12 12.9.79, 12.9.2.10, 11.4.1.4, 10.3.10.19), and their DLLs sit in
# nvidia/<library>/bin (nvidia_cuda_runtime_cu11-11.8.89-py3-none-win_amd64.whl: nvidia/cuda_runtime/bin/cudart64_110.dll;
# ..._cu12-12.9.79: nvidia/cuda_runtime/bin/cudart64_12.dll).
_CUDA_WHEELS = {
    11: ("nvidia-cuda-runtime-cu11", "nvidia-cublas-cu11", "nvidia-cufft-cu11", "nvidia-curand-cu11"),
    12: ("nvidia-cuda-runtime-cu12", "nvidia-cublas-cu12", "nvidia-cufft-cu12", "nvidia-curand-cu12"),
}

# Every bin folder of NVIDIA's wheels in the interpreter's site-packages (the nvidia namespace package), joined by
# Windows' path separator. No quote of either kind inside: Windows PowerShell 5.1 drops double quotes from a native
# argument, and a single quote ends cmd.exe's `for /f ('...')` command (gpudoctor.cmdline refuses it, and the line
# would not be printed for cmd at all): the folder's name comes in as the program's argument (_BIN) instead.
_WHEEL_BINS = (
    "import os, sys, nvidia; r = list(nvidia.__path__)[0]; print(os.pathsep.join(sorted(os.path.join(r, d, sys.argv[1])"
    " for d in os.listdir(r) if os.path.isdir(os.path.join(r, d, sys.argv[1])))))"
)
_BIN = "bin"


def windows_wheel_dlls(facts: Facts, cuda: int, dnn: str | None, *, note: str) -> tuple[Line, ...] | None:
    """The pip install of CUDA `cuda`'s runtime, cuBLAS, cuFFT and cuRAND wheels and the cuDNN wheel `dnn` (a
    requirement: checks.libraries' _CUDNN_CU11/_CUDNN_CU12) into the program's Python, and the line that puts every
    NVIDIA wheel's bin folder first on PATH; None where no wheel of those majors exists (CUDA 10, cuDNN 7: NVIDIA
    publishes none)."""
    from gpudoctor.planner.remedy import library_dir, pip, python_exe

    wheels = _CUDA_WHEELS.get(cuda)
    if wheels is None or dnn is None:
        return None
    exe = "python" if python_exe(facts) == "python3" else python_exe(facts)
    return (
        pip(facts, "install", *wheels, dnn),
        library_dir(facts, (Output((exe, "-c", _WHEEL_BINS, _BIN)),), windows=True, note=note),
    )


def install_words(cuda: int, cudnn: int, dnn: str) -> str:
    """The wheels named in words, for a summary."""
    return f"NVIDIA's CUDA {cuda} runtime, cuBLAS, cuFFT and cuRAND wheels and cuDNN {cudnn}'s ({dnn})"
