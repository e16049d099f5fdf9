"""ONNX Runtime on Windows naming the DLL LoadLibrary could not find: 'Error loading "X" which depends on "Y" which is
missing.' (onnxruntime/core/platform/windows/dll_load_error.cc), whole or retyped without its quotes. Real lines:
deepbeepmeep/Wan2GP#1513 (whole), danielgatis/rembg#783 (retyped)."""

from __future__ import annotations

import pytest

from gpudoctor.pasted import Source, read_pasted


def _missing(text: str) -> set[str]:
    snap = read_pasted([Source("t", text)])
    return {e["values"]["soname"] for e in snap["pasted"]["errors"] if e["kind"] == "library-missing"}


@pytest.mark.parametrize(
    ("line", "soname"),
    [
        (
            '[ONNXRuntimeError] : 1 : FAIL : Error loading "C:\\Users\\u\\.conda\\envs\\wan2gp\\Lib\\site-packages\\'
            'onnxruntime\\capi\\onnxruntime_providers_cuda.dll" which depends on "cublasLt64_12.dll" which is missing. '
            '(Error 126: "The specified module could not be found.")',
            "cublasLt64_12.dll",
        ),
        ("Error loading onnxruntime_providers_cuda.dll which depends on cublasLt64_12.dll which is missing", "cublasLt64_12.dll"),
    ],
)
def test_the_dependency_named_is_the_missing_dll(line, soname):
    assert _missing(line) == {soname}


def test_a_dependency_found_is_not_missing():
    assert _missing('Error loading "onnxruntime_providers_cuda.dll" which depends on "cublasLt64_12.dll" (found)') == set()
