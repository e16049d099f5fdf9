"""A native-Windows TensorFlow GPU build in a paste that lists no DLL folder and no failed load (issue 27): whether its
CUDA and cuDNN DLLs are on PATH is unknown, not missing, so no finding says they are missing; where.exe over the DLLs
that TensorFlow release loads (its tested build configuration's CUDA runtime, cuBLAS and cuDNN; cuDNN 8's sub-libraries
and zlibwapi.dll) is asked. A paste that shows the load failing keeps the finding (the twin)."""

from __future__ import annotations

import pytest

from tests.pasted.test_windows_evidence import _run


def _form(version: str, os_name: str, text: str) -> str:
    return f"### TensorFlow version\n\n{version}\n\n### OS platform and distribution\n\n{os_name}\n\n{text}"


@pytest.mark.parametrize(
    ("text", "dlls"),
    [
        (
            _form("2.10.0", "windows 10", "My GPU stays at 0% usage while training."),
            (
                "cudart64_110.dll",
                "cublas64_11.dll",
                "cudnn64_8.dll",
                "cudnn_cnn_infer64_8.dll",
                "cudnn_ops_infer64_8.dll",
                "zlibwapi.dll",
            ),
        ),
        (
            _form("2.3.0", "Windows 10", "tf.config.list_physical_devices('GPU') returns []"),
            ("cudart64_101.dll", "cublas64_10.dll", "cudnn64_7.dll"),
        ),
    ],
)
def test_unshown_dlls_are_asked_not_called_missing(text, dlls):
    report, _target, _steps, asks = _run(text)
    assert "windows-dll-missing" not in [f.code for f in report.findings]
    assert [a.command.argv for a in asks if a.command.argv[0] == "where.exe"] == [("where.exe", *dlls)]


def test_failed_load_shown_keeps_the_finding():
    text = _form(
        "2.10.0",
        "windows 10",
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
        "'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
    )
    report, _target, _steps, asks = _run(text)
    assert "windows-dll-missing" in [f.code for f in report.findings]
    # The release's unshown DLLs are not asked for; the one whose load failed is (where Windows looks, and which
    # installed toolkit holds it: pasted/ask._missing_dll_asks, tests/pasted/test_asks_follow_the_error.py).
    wheres = [tuple(map(str, a.command.argv)) for a in asks if a.command.argv[0] == "where.exe"]
    assert wheres and all("cudart64_110.dll" in argv and "cudnn64_8.dll" not in argv for argv in wheres)


def test_linux_tensorflow_is_not_asked_where():
    report, _target, _steps, asks = _run(_form("2.10.0", "Ubuntu 22.04", "the GPU is not used"))
    assert not [a for a in asks if a.command.argv[0] == "where.exe"]
