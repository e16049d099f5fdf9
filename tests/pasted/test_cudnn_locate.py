"""cuDNN's own "Could not locate <sub-library>.dll" on Windows (gpudoctor.checks.cudnn_locate): the text's facts decide
the finding, never a PATH edit asserted before them. Another cuDNN major's DLLs shown beside CTranslate2 at work decide
the CTranslate2 of that major (tests/blind/plans22 2231, whisperX#899; tests/pasted/cases/whisperwebui-235-*); otherwise
the reads that tell the causes apart come first (plans22 2232 to 2234 and 2251, plans17 1708), with
the cuDNN wheel's bin folder listed where the text names NVIDIA's pip wheel. Other cuDNN lines keep their answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, PrependPath
from tests.pasted.test_windows_evidence import _run

_CASES = Path("tests/blind/plans22/cases")


def _finding(text: str):
    report, _target, _steps, _asks = _run(text)
    (f,) = [f for f in report.findings if f.code == "windows-dll-missing"]
    return f


def _case(prefix: str) -> str:
    (path,) = _CASES.glob(f"{prefix}-*/input.txt")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "text",
    [
        _case("2231"),
        Path(
            "tests/pasted/cases/whisperwebui-235-windows10-torch-lib-cudnn9-faster-whisper-wants-cudnn-ops-infer64-8/report.txt"
        ).read_text(encoding="utf-8"),
    ],
)
def test_another_major_shown_beside_ctranslate2_installs_its_build_of_that_major(text):
    f = _finding(text)
    argvs = [c.argv for c in f.remediation.commands if isinstance(c, Cmd)]
    assert argvs[0][1:] == ("-m", "pip", "show", "ctranslate2")
    assert argvs[1][1:] == ("-m", "pip", "install", "ctranslate2==4.5.0")  # the cuDNN 9 build (compat_matrix)
    assert not any(isinstance(c, PrependPath) for c in f.remediation.commands)


@pytest.mark.parametrize(
    ("prefix", "wheel"),
    [("2232", False), ("2233", True), ("2234", False), ("2251", True)],
)
def test_undecided_reads_first_and_edits_no_path(prefix, wheel):
    f = _finding(_case(prefix))
    cmds = f.remediation.commands
    assert all(isinstance(c, Cmd) for c in cmds)  # reads only: no PATH edit with a placeholder
    assert cmds[0].argv[0] == "where.exe" and cmds[0].argv[1].startswith("cudnn_")
    assert cmds[1].argv[1:] == ("-m", "pip", "list") and "ctranslate2" in cmds[1].pipe[-1]
    listing = [c for c in cmds if "nvidia.cudnn" in " ".join(c.argv)]
    assert bool(listing) == wheel


def test_cudnn9_reads_cublas12_beside_it():
    f = _finding(_case("2234"))
    assert f.remediation.commands[0].argv[1:] == (
        "cudnn_ops64_9.dll",
        "cudnn64_9.dll",
        "cublas64_12.dll",
        "cublasLt64_12.dll",
    )


def test_file_shown_in_a_folder_is_not_called_missing():
    f = _finding(_case("2232"))
    assert "CUDA\\v11.4\\bin" in f.title


def test_another_major_without_ctranslate2_stays_a_read():
    f = _finding(
        "Windows 10\nCould not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!\nI only have cudnn_ops64_9.dll\n"
    )
    assert f.remediation.commands[0].argv[0] == "where.exe"


def test_cudnn_main_dll_and_error_126_keep_their_answers():
    # the main DLL is no sub-library: the folder-on-PATH answer stays (tests/pasted/test_cudnn8_windows_sublibrary.py)
    main = _finding("Windows 10\nCould not locate cudnn64_8.dll. Please make sure it is in your library path!\n")
    assert any(isinstance(c, PrependPath) for c in main.remediation.commands)
    own = _finding("Windows 10\nCould not load library cudnn_cnn_infer64_8.dll. Error code 126\n")
    assert "zlibwapi.dll" in own.remediation.commands[0].argv
