"""CTranslate2's CUDA 12 build missing cuBLAS 12 on Windows (issue 27): it loads cuDNN as well, of the major its release
was built for (compat_matrix/libraries.toml: cuDNN 8 for 4.0-4.4, 9 from 4.5). With the release shown the cuDNN wheel of
that major comes along with cuBLAS's; without it, where.exe over the DLLs and the release are read first. Linux keeps
its plan (the twin)."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd, PrependPath
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
    # then the whole set of the newest CUDA 12 build (4.5 and later: cuDNN 9), not cuBLAS alone (h103)
    assert cmds[2].argv[-3:] == ("install", "nvidia-cublas-cu12", "nvidia-cudnn-cu12==9.*")


@pytest.mark.parametrize(
    "text",
    [
        f'win 11 rtx 3090\n"Error: {ERROR.split(": ", 1)[1]}"',  # a web UI's error box, no release, no interpreter
        f"PS C:\\Users\\me\\app> .\\venv\\Scripts\\python.exe app.py\n{ERROR}",  # the app's own venv
    ],
)
def test_release_unshown_puts_both_bin_folders_on_path(text):
    report, _target, _steps, _asks = _run(text)
    (finding,) = [f for f in report.findings if f.code == "framework-cuda-libs-missing"]
    lines = finding.remediation.commands
    installs = [c for c in lines if isinstance(c, Cmd) and "install" in c.argv]
    assert [c.argv[-2:] for c in installs] == [("nvidia-cublas-cu12", "nvidia-cudnn-cu12==9.*")]
    paths = [c for c in lines if isinstance(c, PrependPath)]
    assert [(p.name, p.parts[0].site_dir, p.parts[1]) for p in paths] == [
        ("PATH", "nvidia/cublas", "\\bin"),
        ("PATH", "nvidia/cudnn", "\\bin"),
    ]
    assert "faster-whisper==0.10.1" in finding.remediation.summary  # the CUDA 11 route keeps faster-whisper consistent


def test_a_working_ctranslate2_is_quiet():
    report, _target, _steps, _asks = _run(
        "Windows 11\n>>> import ctranslate2\n>>> ctranslate2.__version__\n'4.5.0'\n>>> ctranslate2.get_cuda_device_count()\n1\n"
    )
    assert "framework-cuda-libs-missing" not in {f.code for f in report.findings}


def test_linux_plan_unchanged():
    cmds = _cmds("Ubuntu 22.04\nRuntimeError: Library libcublas.so.12 is not found or cannot be loaded")
    assert cmds[0].argv[-2:] == ("install", "nvidia-cublas-cu12")
    assert all(c.argv[0] != "where.exe" for c in cmds)
