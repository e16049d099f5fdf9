"""CTranslate2's CUDA 12 build missing cuBLAS 12 on Windows (issue 27): it loads cuDNN as well, of the major its release
was built for (compat_matrix/libraries.toml: cuDNN 8 for 4.0-4.4, 9 from 4.5). With the release shown the cuDNN wheel of
that major comes along with cuBLAS's; without it, where.exe over the DLLs and the release are read first. Linux keeps
its plan (the twin)."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd
from tests.pasted.test_windows_evidence import _run

ERROR = "RuntimeError: Library cublas64_12.dll is not found or cannot be loaded"


def _cmds(text: str) -> list[Cmd]:
    report, _target, _steps, _asks = _run(text)
    (finding,) = [f for f in report.findings if f.code == "framework-cuda-libs-missing"]
    return [c for c in finding.remediation.commands if isinstance(c, Cmd)]


@pytest.mark.parametrize(("version", "cudnn"), [("4.5.0", "nvidia-cudnn-cu12==9.*"), ("4.4.0", "nvidia-cudnn-cu12==8.9.7.29")])
def test_release_shown_brings_its_cudnn(version, cudnn):
    cmds = _cmds(f"ctranslate2=={version}\nfaster-whisper==1.1.0\n{ERROR}")
    assert cmds[0].argv[-3:] == ("install", "nvidia-cublas-cu12", cudnn)


def test_release_unshown_reads_path_and_release_first():
    cmds = _cmds(f"Windows, cuda 12.8\n{ERROR}")
    assert cmds[0].argv == ("where.exe", "cublas64_12.dll", "cublasLt64_12.dll", "cudnn64_9.dll", "cudnn64_8.dll")
    assert cmds[1].argv[1:] == ("-c", "import ctranslate2; print(ctranslate2.__version__)")
    assert cmds[2].argv[-2:] == ("install", "nvidia-cublas-cu12")


def test_linux_plan_unchanged():
    cmds = _cmds("Ubuntu 22.04\nRuntimeError: Library libcublas.so.12 is not found or cannot be loaded")
    assert cmds[0].argv[-2:] == ("install", "nvidia-cublas-cu12")
    assert all(c.argv[0] != "where.exe" for c in cmds)
