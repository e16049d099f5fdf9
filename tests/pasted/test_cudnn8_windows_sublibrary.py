"""cuDNN 8's own "Could not load library cudnn_*64_8.dll. Error code 126" on Windows: cuDNN's main DLL printed it (from
cuDNN's folder, or from a program's package that carries it alone, as CTranslate2's Windows wheels do); the
sub-library's own dependencies (zlibwapi.dll, cuBLAS of cuDNN's CUDA major) are read first. Where a Python environment
may run the program, NVIDIA's cuBLAS and cuDNN 8 wheels for CUDA 11 go into it with both bin folders on PATH (issue 27,
h180: tests/blind/plans12/cases/1243-* and plans8's 835, faster-whisper on CTranslate2 3.x); a compiled program keeps
the toolkit's folder. Other error codes and other DLLs keep their own answers (the twins)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, PrependPath
from tests.pasted.test_windows_evidence import _run


def _finding(text: str):
    report, _target, _steps, _asks = _run(text)
    return [f for f in report.findings if f.code == "windows-dll-missing"]


def _where_first(f) -> None:
    where = f.remediation.commands[0]
    assert where.argv[0] == "where.exe" and "zlibwapi.dll" in where.argv and "cublas64_11.dll" in where.argv
    assert where.argv[1].startswith("cudnn_") and where.argv[1].endswith("64_8.dll")


@pytest.mark.parametrize(
    "path",
    [
        # whisper-writer (faster-whisper 0.10 on CTranslate2 3.x) on Windows 10 and 11, nothing else shown
        "tests/blind/plans12/cases/1243-whisperwriter-29-windows-faster-whisper-auto-device-gpu-without-cuda11-cudnn8-dlls-error-126/input.txt",
        # faster-whisper on Windows 10 with the CUDA 12 toolkit and a cuDNN zip on PATH
        "tests/blind/plans8/cases/835-fasterwhisper85-windows-cuda12-toolkit-cudnn8-error-126/input.txt",
    ],
)
def test_cudnn8_sublibrary_126_brings_the_cuda11_wheels_into_the_environment(path):
    (f,) = _finding(Path(path).read_text(encoding="utf-8"))
    _where_first(f)
    cmds = f.remediation.commands
    (install,) = [c for c in cmds if isinstance(c, Cmd) and "install" in c.argv]
    assert install.argv == ("python", "-m", "pip", "install", "nvidia-cublas-cu11", "nvidia-cudnn-cu11==8.*")
    paths = [c for c in cmds if isinstance(c, PrependPath)]
    assert [(p.name, p.parts[0].site_dir, p.parts[1]) for p in paths] == [
        ("PATH", "nvidia/cublas", "\\bin"),
        ("PATH", "nvidia/cudnn", "\\bin"),
    ]


def test_a_compiled_program_keeps_the_toolkit_folder():
    # a C# ONNX program, the adv sub-library: no Python to install a wheel into
    (f,) = _finding("Windows 10, a C# ONNX program\nCould not load library cudnn_adv_infer64_8.dll. Error code 126\n")
    _where_first(f)
    assert not any(isinstance(c, Cmd) and "install" in c.argv for c in f.remediation.commands)
    (path,) = [c for c in f.remediation.commands if isinstance(c, PrependPath)]
    assert path.parts == ("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin",)


def test_a_cudnn_main_dll_missing_keeps_the_folder_on_path_answer():
    # cudnn64_8.dll itself not found: nothing of cuDNN loaded, its folder goes on PATH
    (f,) = _finding("Windows 10\nCould not locate cudnn64_8.dll. Please make sure it is in your library path!\n")
    assert not any(isinstance(c, Cmd) and "zlibwapi.dll" in c.argv for c in f.remediation.commands)


def test_error_127_is_not_read_as_a_missing_dependency():
    for f in _finding("C# app: Could not load library cudnn_cnn_infer64_8.dll. Error code 127"):
        assert not any(isinstance(c, Cmd) and "zlibwapi.dll" in c.argv for c in f.remediation.commands)
