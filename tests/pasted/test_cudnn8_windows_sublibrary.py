"""cuDNN 8's own "Could not load library cudnn_*64_8.dll. Error code 126" on Windows: cuDNN's main DLL printed it, so
its folder is found; the sub-library's own dependencies (zlibwapi.dll, cuBLAS of cuDNN's CUDA major) are read first.
Other error codes and other DLLs keep their own answers (the twins)."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd, PrependPath
from tests.pasted.test_windows_evidence import _run


def _finding(text: str):
    report, _target, _steps, _asks = _run(text)
    return [f for f in report.findings if f.code == "windows-dll-missing"]


@pytest.mark.parametrize(
    "text",
    [
        # a speech-to-text program on Windows 11 with cuDNN unpacked into the CUDA 12 toolkit's bin
        "Windows 11, CUDA 12.1\nCould not load library cudnn_cnn_infer64_8.dll. Error code 126\n"
        "Please make sure cudnn_cnn_infer64_8.dll is in your library path!\n",
        # a C# ONNX program, the adv sub-library
        "C:\\app> dotnet run\nCould not load library cudnn_adv_infer64_8.dll. Error code 126\n",
    ],
)
def test_cudnn8_sublibrary_126_reads_its_dependencies_first(text):
    (f,) = _finding(text)
    cmds = f.remediation.commands
    where = next(c for c in cmds if isinstance(c, Cmd))
    assert where.argv[0] == "where.exe" and "zlibwapi.dll" in where.argv and "cublas64_11.dll" in where.argv
    assert where.argv[1].startswith("cudnn_") and where.argv[1].endswith("64_8.dll")
    (path,) = [c for c in cmds if isinstance(c, PrependPath)]
    assert path.parts == ("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin",)


def test_a_cudnn_main_dll_missing_keeps_the_folder_on_path_answer():
    # cudnn64_8.dll itself not found: nothing of cuDNN loaded, its folder goes on PATH
    (f,) = _finding("Windows 10\nCould not locate cudnn64_8.dll. Please make sure it is in your library path!\n")
    assert not any(isinstance(c, Cmd) and "zlibwapi.dll" in c.argv for c in f.remediation.commands)


def test_error_127_is_not_read_as_a_missing_dependency():
    for f in _finding("C# app: Could not load library cudnn_cnn_infer64_8.dll. Error code 127"):
        assert not any(isinstance(c, Cmd) and "zlibwapi.dll" in c.argv for c in f.remediation.commands)
