"""CTranslate2's CUDA 12 build missing cuBLAS 12 on Windows (issue 27): it loads cuDNN as well, of the major its release
was built for (compat_matrix/libraries.toml: cuDNN 8 for 4.0-4.4, 9 from 4.5). With the release shown the cuDNN wheel of
that major comes along with cuBLAS's; without it, where.exe over the DLLs and the release are read first. The same holds
on Linux and for the CUDA 11 builds (3.x, cuDNN 8 only: nothing to read first), issue 27, h180: plans12's 1241 (Linux,
libcublas.so.12) and 1250 (Windows, cublas64_11.dll), with plans3's 245 (Colab, libcublas.so.11, whose alternative
installs nvidia-cudnn-cu11 beside nvidia-cublas-cu11). Other libraries' answers stay (the twins)."""

from __future__ import annotations

from pathlib import Path

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


CASES = "tests/blind/plans{}/cases/{}/input.txt"


def _lines(path: str):
    report, _target, _steps, _asks = _run(Path(path).read_text(encoding="utf-8"))
    (finding,) = [f for f in report.findings if f.code == "framework-cuda-libs-missing"]
    return finding.remediation.commands


def test_linux_cuda12_build_brings_cudnn_and_both_directories():
    lines = _lines(CASES.format(12, "1241-whisperx-788-venv-cuda118-system-ctranslate2-4-needs-libcublas-so-12-not-found"))
    cmds = [c for c in lines if isinstance(c, Cmd)]
    assert cmds[0].argv == (
        "/App/install/OPS/pyenv/ai-speech/bin/python",
        "-c",
        "import ctranslate2; print(ctranslate2.__version__)",
    )
    assert cmds[1].argv[-3:] == ("install", "nvidia-cublas-cu12", "nvidia-cudnn-cu12==9.*")
    assert all(c.argv[0] != "where.exe" for c in cmds)
    paths = [c for c in lines if isinstance(c, PrependPath)]
    assert [(p.name, p.parts[0].site_dir) for p in paths] == [
        ("LD_LIBRARY_PATH", "nvidia/cublas/lib"),
        ("LD_LIBRARY_PATH", "nvidia/cudnn/lib"),
    ]


@pytest.mark.parametrize(
    ("path", "name", "site"),
    [
        (
            CASES.format(12, "1250-fasterwhisper-535-windows-cuda12-installed-ctranslate2-3x-needs-cublas64-11-dll-torch-fine"),
            "PATH",
            "nvidia/cudnn",
        ),
        (CASES.format(3, "245-whisperct2-74-colab-cuda12-ct2-3x-libcublas11"), "LD_LIBRARY_PATH", "nvidia/cudnn/lib"),
    ],
)
def test_cuda11_build_brings_cudnn8_without_reading_first(path, name, site):
    lines = _lines(path)
    cmds = [c for c in lines if isinstance(c, Cmd)]
    assert cmds[0].argv[-3:] == ("install", "nvidia-cublas-cu11", "nvidia-cudnn-cu11==8.*")
    paths = [c for c in lines if isinstance(c, PrependPath)]
    assert [(p.name, p.parts[0].site_dir) for p in paths][-1] == (name, site)
    assert len(paths) == 2
