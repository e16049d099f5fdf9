"""docs/findings/framework-cuda-libs-missing.md, onnxruntime-gpu on Windows, on whole real reports: the CUDA provider's
own warning ("Require cuDNN 9.* and CUDA 12.*") names the majors of the build that failed
(gpudoctor.checks.libraries.check_onnxruntime_windows_provider)."""

from __future__ import annotations

from pathlib import Path

from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
CODE = "framework-cuda-libs-missing"
CUDA12 = ("where.exe", "cudart64_12.dll", "cublas64_12.dll", "cublasLt64_12.dll", "cudnn64_9.dll")


def _findings(path: str) -> dict:
    return pasted_findings((ROOT / path).read_text(encoding="utf-8"))


@states(CODE, FIRES)
def test_warning_of_another_build_than_the_release_named_goes_back_to_that_release():
    """tests/blind/plans9 case 924 (its thread is named only there): 1.18.1 named as the release
    used before, 1.19.0's warning asks for cuDNN 9 and CUDA 12: the pin back to 1.18.1 (a CUDA 11 build; pip's dry
    run finds its win_amd64 wheels for CPython 3.9 to 3.12) in the Anaconda environment that ran, then the CUDA 12
    DLLs."""
    f = _findings(
        "tests/blind/plans9/cases/924-ort21769-windows-anaconda-ort-gpu-1190-needs-cuda12-cudnn9-has-cuda117-error-126/input.txt"
    )[CODE]
    assert argv_of(f) == [
        ("C:\\Users\\sunny\\anaconda3\\envs\\pytorch\\python.exe", "-m", "pip", "install", "onnxruntime-gpu==1.18.1"),
        CUDA12,
    ]


@states(CODE, FIRES)
def test_warning_alone_names_the_dlls_to_look_for():
    """tests/blind/plans4 case 310 (its thread is named only there): no release named, the
    warning's majors say which DLLs the provider loads; nothing is pinned."""
    f = _findings("tests/blind/plans4/cases/310-ort21825-windows-ort119-cuda126-cudnn9-error126-ask/input.txt")[CODE]
    assert argv_of(f) == [CUDA12]


@states(CODE, QUIET)
def test_without_the_warning_the_release_named_decides_and_nothing_is_pinned():
    """FaceFusion#89 (tests/blind/plans4 case 353): onnxruntime 1.15.1's error 126 without the later warning: the
    named release's own majors (CUDA 11), no pin back."""
    found = _findings("tests/blind/plans4/cases/353-facefusion89-windows-venv-ort1151-cuda11-dlls-missing-with-cuda121/input.txt")
    f = found.get(CODE)
    assert f is None or all(a[0] == "where.exe" for a in argv_of(f))
