"""Issue 27 (h245): onnxruntime's "CUDA_PATH is set but CUDA wasn't able to be loaded" says the program ran on Windows.

onnxruntime raises it where its CUDA provider did not load and the CUDA_PATH variable is set
(onnxruntime/python/onnxruntime_pybind_state.cc @06c980b3ea02ef3f7e8ae5b03c7271986210c25c); CUDA_PATH is what NVIDIA's
Windows installer sets (its Linux guide sets PATH and LD_LIBRARY_PATH). gpudoctor.pasted.cues reads the message as a
Windows cue where the text names no Linux, so the asks and the plan are cmd.exe's and PowerShell's (where.exe, not
ldconfig), and the onnxruntime release the text states decides the DLLs the provider needs (checks.libraries).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pasted.cli_json import check

BLIND = Path(__file__).resolve().parent.parent / "blind"


def test_the_message_with_a_release_stated_names_the_dlls_on_windows():
    # plans17/1749: "i am using cuda 11.8, onnxruntime-gpu 1.16.3 and python 3.10.0" and the message; no OS named
    doc = check(
        BLIND
        / "plans17/cases/1749-deeplivecam-948-windows-py3100-onnxruntime-gpu-1163-cuda118-cudnn8-missing-cuda-path-set-not-loaded"
        / "input.txt"
    )
    assert doc["facts"]["platform"]["system"] == "Windows"
    (finding,) = [f for f in doc["findings"] if f["code"] == "framework-cuda-libs-missing"]
    argvs = [c["argv"] for c in finding["remediation"]["argv"] if "argv" in c]
    assert ["where.exe", "cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "cudnn64_8.dll"] in argvs
    # (h310) then the DLLs of that build's majors as NVIDIA's wheels, their bin folders first on PATH
    assert [
        "python",
        "-m",
        "pip",
        "install",
        "nvidia-cuda-runtime-cu11",
        "nvidia-cublas-cu11",
        "nvidia-cufft-cu11",
        "nvidia-curand-cu11",
        "nvidia-cudnn-cu11==8.*",
    ] in argvs
    assert [c["prepend"] for c in finding["remediation"]["argv"] if "prepend" in c] == ["PATH"]
    assert not any(a[0] in ("ldconfig", "python3") for a in (x["argv"] for x in doc["pasted"]["ask_for"]))


@pytest.mark.parametrize(
    ("text", "system"),
    [
        # https://github.com/microsoft/onnxruntime/issues/21527 (its title; the report is a conda environment on Windows)
        ("CUDA_PATH is set but CUDA wasnt able to be loaded\n", "Windows"),
        # the quiet twin: the same words where the text names Linux stay Linux's (a CUDA_PATH set by hand there)
        ("CUDA_PATH is set but CUDA wasnt able to be loaded\nOS: Ubuntu 22.04\n", "Linux"),
    ],
)
def test_the_message_says_windows_only_where_no_linux_is_named(tmp_path, text, system):
    paste = tmp_path / "input.txt"
    paste.write_text(text, encoding="utf-8")
    assert check(paste)["facts"]["platform"]["system"] == system


@pytest.mark.parametrize(
    "case",
    [
        # a C# program's NuGet package, Microsoft.ML.OnnxRuntime.GPU 1.16.0, with CUDA 12.2 installed
        "plans17/cases/1712-ort20571-windows-csharp-nuget-ort1160-cuda122-cudnn89-providers-cuda-dll-error-126-needs-cuda118",
        # (a Python program's onnxruntime-gpu, plans17/1749, gets its build's wheels instead since h310: the test above)
    ],
)
def test_the_missing_provider_dlls_are_found_on_disk_then_put_on_path(case):
    """(h245) The plan goes past where.exe: it lists where cuDNN's DLLs lie on the disk, the folder whose bin goes first
    on PATH (its line told for both shells, planner.deciders), and names the CUDA 11 and cuDNN 8 releases to install."""
    doc = check(BLIND / case / "input.txt")
    (finding,) = [f for f in doc["findings"] if f["code"] == "framework-cuda-libs-missing"]
    argvs = [c["argv"] for c in finding["remediation"]["argv"]]
    assert argvs == [
        ["where.exe", "cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "cudnn64_8.dll"],
        ["where.exe", "/R", "C:\\Program Files", "cudnn*.dll"],
    ]
    summary = finding["remediation"]["summary"]
    assert "CUDA 11.8 toolkit" in summary and "cuDNN 8.9.7 for CUDA 11.x" in summary
