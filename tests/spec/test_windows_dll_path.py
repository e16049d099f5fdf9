"""docs/findings/windows-dll-missing.md on whole real reports: the toolkit's folder from CUDA_PATH's value where the
text copies it, and the prose of a step whose folder is left to fill in written for Windows' shell, never a POSIX
export (gpudoctor.checks.windows, gpudoctor.planner.deciders.shown)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.test_corpus import run_cli
from tests.spec.machine import pasted_findings
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests/pasted/catalogue_examples"
CODE = "windows-dll-missing"


@states(CODE, FIRES)
def test_cuda_path_value_names_the_toolkit_folder_to_put_on_path():
    """tests/blind/plans9 case 909 (its thread is named only there): cublas64_11.dll error 126,
    the variables copied (CUDA_PATH: ...\\CUDA\\v11.8): that toolkit's bin goes first on PATH, no folder to fill in."""
    path = (
        ROOT
        / "tests/blind/plans9/cases/909-paddle69102-windows-paddle-cu118-cublas64-11-error-126-works-from-system32-ask/input.txt"
    )
    f = pasted_findings(path.read_text(encoding="utf-8"))[CODE]
    assert "CUDA 11.8" in f.remediation.summary
    (line,) = f.remediation.commands
    assert line.parts == ("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin",)


@states(CODE, FIRES)
def test_a_folder_left_to_fill_in_is_shown_in_powershell_not_a_posix_export():
    """https://github.com/PaddlePaddle/PaddleOCR/issues/4171 (tests/pasted/catalogue_examples): cudnn64_7.dll error 126
    on Windows with no cuDNN folder shown: the step's prose writes PowerShell's $env:PATH, the listing is where.exe."""
    _, out, _ = run_cli("check", "--from", str(EXAMPLES / "paddleocr-4171-windows-cudnn64-7-error-126.txt"), "--format", "json")
    doc = json.loads(out)
    (f,) = [f for f in doc["findings"] if f["code"] == CODE]
    assert "$env:PATH = <cudnn-folder>" in f["remediation"]["summary"]
    assert "export PATH" not in f["remediation"]["summary"]
    assert [c["argv"][0] for s in doc["plan"]["steps"] for c in s["commands"]] == ["where.exe"]


@states(CODE, FIRES)
def test_a_zips_dll_is_searched_for_on_the_drives_the_text_shows():
    """tests/blind/plans4 case 328 (NVIDIA/TensorRT#3252): TensorRT 8.6's zip, nvinfer.dll not on PATH, the venv's
    interpreter on F:. Nothing shown names the folder the zip was unpacked to, so the step prints the read-only search
    whose answer it is (where.exe /R, the interpreter's drive first), and the PATH line stays in prose until then."""
    path = ROOT / "tests/blind/plans4/cases/328-trt3252-windows-venv-tensorrt-zip-lib-not-on-path/input.txt"
    _, out, _ = run_cli("check", "--from", str(path), "--format", "json")
    doc = json.loads(out)
    (step,) = [s for s in doc["plan"]["steps"] if CODE in s["codes"]]
    assert [c["argv"] for c in step["commands"]] == [
        ["where.exe", "/R", "F:\\", "nvinfer.dll"],
        ["where.exe", "/R", "C:\\", "nvinfer.dll"],
    ]
    (f,) = [f for f in doc["findings"] if f["code"] == CODE]
    # (the paste's prompt, "(venv) F:\\FAST_Anime_VSR>", is cmd.exe's: the prose's PATH line is written for it)
    assert 'set "PATH=<folder-holding-the-dll>;%PATH%"' in f["remediation"]["summary"]


@states(CODE, QUIET)
def test_no_search_where_the_text_names_the_dlls_folder():
    """The twin, tests/blind/plans4 case 312 (PaddlePaddle/Paddle#38663): cublas64_11.dll with CUDA 11.2 named, whose
    installer's bin folder is the one: the PATH line is printed, nothing is searched for."""
    path = ROOT / "tests/blind/plans4/cases/312-paddle38663-windows-paddle221-post112-cublas64-11-error126-path/input.txt"
    f = pasted_findings(path.read_text(encoding="utf-8"))[CODE]
    (line,) = f.remediation.commands
    assert line.parts == ("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin",)


def test_where_exe_only_reads():
    """The consequence model reads where.exe (a search of PATH, or with /R of a folder tree) as an inspection."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.planner.actions import classify

    assert classify(Cmd(("where.exe", "/R", "C:\\", "nvinfer.dll"))).kind == "inspect"
