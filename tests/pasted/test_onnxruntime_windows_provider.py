"""onnxruntime's CUDA provider DLL failing with LoadLibrary error 126 on Windows where the text names the GPU package's
release (issue 27): that release's CUDA and cuDNN majors (compat_matrix/libraries.toml, from onnxruntime.ai's
requirements) name the DLLs that must be on PATH, and where.exe over exactly those is the step. Real reports
(tests/pasted/catalogue_examples) and minimal variants; twins where the rows do not say (a release outside them, the
NuGet package between 1.17 and 1.19) or the platform is Linux stay without the finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd
from tests.pasted.test_windows_evidence import _run

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
ERROR_126 = (
    '[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load '
    '"C:\\app\\{where}\\onnxruntime_providers_cuda.dll"'
)


def _ort_findings(text: str):
    report, _target, _steps, _asks = _run(text)
    return [f for f in report.findings if f.code == "framework-cuda-libs-missing" and f.title.endswith("DLLs on PATH")]


@pytest.mark.parametrize(
    ("text", "dlls"),
    [
        (
            (EXAMPLES / "yolov8net-6-nuget-gpu-1141-error-126.txt").read_text(encoding="utf-8"),
            ("cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "cudnn64_8.dll"),
        ),
        (
            "Microsoft.ML.OnnxRuntime.Gpu 1.16.3\n" + ERROR_126.format(where="bin\\Debug\\net8.0"),
            ("cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "cudnn64_8.dll"),
        ),
    ],
)
def test_release_names_the_dlls(text, dlls):
    (finding,) = _ort_findings(text)
    # the DLLs PATH finds, then (h245) cuDNN's bin folder first on PATH, the folder the person's to fill in
    cmd, path = finding.remediation.commands
    assert isinstance(cmd, Cmd)
    assert cmd.argv == ("where.exe", *dlls)
    assert (type(path).__name__, path.name, path.parts[1:]) == ("PrependPath", "PATH", ("\\bin",))


def test_the_pip_package_gets_its_builds_wheels_on_path():
    # (h310) the pip package in a Python: the DLLs of its build's majors as NVIDIA's wheels into that Python, every
    # wheel's bin folder first on PATH, after the where.exe that shows which are missing (gpudoctor.checks.dll_wheels)
    text = "pip install onnxruntime-gpu==1.20.1\n" + ERROR_126.format(where="venv\\Lib\\site-packages\\onnxruntime\\capi")
    (finding,) = _ort_findings(text)
    where, install, path = finding.remediation.commands
    assert where.argv == ("where.exe", "cudart64_12.dll", "cublas64_12.dll", "cublasLt64_12.dll", "cudnn64_9.dll")
    assert install.argv[-5:] == (
        "nvidia-cuda-runtime-cu12",
        "nvidia-cublas-cu12",
        "nvidia-cufft-cu12",
        "nvidia-curand-cu12",
        "nvidia-cudnn-cu12==9.*",
    )
    assert (type(path).__name__, path.name, type(path.parts[0]).__name__) == ("PrependPath", "PATH", "Output")


@pytest.mark.parametrize(
    "text",
    [
        # a release before the matrix's rows: not guessed
        (EXAMPLES / "ort-12488-nuget-gpu-1120-error-126.txt").read_text(encoding="utf-8"),
        # NuGet between 1.17 and 1.19: its CUDA major is not the package index's by the rows
        "Microsoft.ML.OnnxRuntime.Gpu 1.17.1\n" + ERROR_126.format(where="bin\\Debug\\net8.0"),
        # no release named
        ERROR_126.format(where="venv\\Lib\\site-packages\\onnxruntime\\capi"),
        # Linux: the provider's own message names the library (check_onnxruntime_cuda11's)
        "onnxruntime-gpu 1.16.0 on Ubuntu 22.04\nFAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
        "libcublasLt.so.11: cannot open shared object file: No such file or directory",
    ],
)
def test_rows_do_not_say(text):
    assert _ort_findings(text) == []
