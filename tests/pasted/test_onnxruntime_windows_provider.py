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
            "pip install onnxruntime-gpu==1.20.1\n" + ERROR_126.format(where="venv\\Lib\\site-packages\\onnxruntime\\capi"),
            ("cudart64_12.dll", "cublas64_12.dll", "cublasLt64_12.dll", "cudnn64_9.dll"),
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


def test_a_cuda11_python_build_gets_nvidia_wheels_and_their_bin_folders_on_path():
    """The Python package's CUDA 11 build (1.16.3: CUDA 11.8, cuDNN 8) with Python shown: where.exe first, then NVIDIA's
    cu11 wheels in that interpreter and each wheel's bin folder first on PATH (h265; plans7 616 and plans17 1749 are the
    real cases), not a cuDNN folder to fill in."""
    text = "pip install onnxruntime-gpu==1.16.3\nC:\\proj>venv\\Scripts\\python.exe run.py\n" + ERROR_126.format(
        where="venv\\Lib\\site-packages\\onnxruntime\\capi"
    )
    (finding,) = _ort_findings(text)
    where, install, *paths = finding.remediation.commands
    assert where.argv[0] == "where.exe"
    assert install.argv[-5:] == (
        "install",
        "nvidia-cuda-runtime-cu11",
        "nvidia-cublas-cu11",
        "nvidia-cufft-cu11",
        "nvidia-cudnn-cu11==8.*",
    )
    assert [(p.name, p.parts[0].site_dir, p.parts[1]) for p in paths] == [
        ("PATH", f"nvidia/{folder}", "\\bin") for folder in ("cuda_runtime", "cublas", "cufft", "cudnn")
    ]


def test_a_cuda12_build_and_the_nuget_package_keep_the_listing():
    """A CUDA 12 build's error 126 (its DLLs a CUDA 12 install serves: off PATH or the MSVC runtime) and the NuGet package
    (no Python to install wheels into) get no wheel install."""
    for text in (
        "pip install onnxruntime-gpu==1.20.1\n" + ERROR_126.format(where="venv\\Lib\\site-packages\\onnxruntime\\capi"),
        "Microsoft.ML.OnnxRuntime.Gpu 1.16.3\n" + ERROR_126.format(where="bin\\Debug\\net8.0"),
    ):
        (finding,) = _ort_findings(text)
        assert [type(c).__name__ for c in finding.remediation.commands] == ["Cmd", "PrependPath"]


def test_a_cuda11_toolkit_stated_leaves_cudnn_alone_to_install():
    """The text states CUDA 11.8 in use (its toolkit serves cudart, cuBLAS and cuFFT): cuDNN 8's wheel alone."""
    text = "i am using cuda 11.8, onnxruntime-gpu 1.16.3 and python 3.10.0.\n" + ERROR_126.format(
        where="venv\\Lib\\site-packages\\onnxruntime\\capi"
    )
    (finding,) = _ort_findings(text)
    where, install, path = finding.remediation.commands
    assert install.argv[-2:] == ("install", "nvidia-cudnn-cu11==8.*")
    assert path.parts[0].site_dir == "nvidia/cudnn"
