"""A TensorRT DLL that did not load on Windows (issue 27), by who said so: trtexec's DynamicLibrary ("Unable to open
library: X.dll", no reason printed on Windows) asks where.exe for the DLL, TensorRT's core DLL and the CUDA DLLs it
loads; TensorRT 10's Python package ("Could not find: nvinfer_10.dll"), which walks PATH only where its libraries wheel
did not import, asks which TensorRT wheels the environment holds. Minimal pastes shaped like real reports (NVIDIA/
TensorRT 3402 and AUTOMATIC1111/stable-diffusion-webui-tensorrt 37 for trtexec, Kiteretsu77/FAST_Anime_VSR 3 for a
TensorRT 8 zip), with quiet twins."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd, PrependPath
from tests.pasted.test_windows_evidence import _run

NEEDS = ("cudart64_*.dll", "cublas64_*.dll", "cublasLt64_*.dll")


def _codes_and_commands(text: str):
    report, _target, _steps, _asks = _run(text)
    codes = [f.code for f in report.findings]
    commands = [c for f in report.findings if f.remediation for c in f.remediation.commands]
    return codes, commands


@pytest.mark.parametrize(
    ("text", "dll", "core"),
    [
        # trtexec of TensorRT 8.6 from a zip's bin folder (the webui extension's report)
        (
            "[06/06/2023-01:57:53] [I] TensorRT version: 8.6.1\n[06/06/2023-01:57:53] [I] Loading standard plugins\n"
            "[06/06/2023-01:57:56] [E] Uncaught exception detected: Unable to open library: nvinfer_plugin.dll\n"
            "&&&& FAILED TensorRT.trtexec [TensorRT v8601] # C:\\sd\\TensorRT-8.6.1.6\\bin\\trtexec.exe --onnx=m.onnx",
            "nvinfer_plugin.dll",
            "nvinfer.dll",
        ),
        # a self-built TensorRT 10 trtexec, the DLL beside it
        (
            "Unable to open library: nvinfer_plugin_10.dll\n"
            "&&&& RUNNING TensorRT.trtexec [TensorRT v100001] # D:\\code\\TensorRT\\build\\Release\\trtexec.exe",
            "nvinfer_plugin_10.dll",
            "nvinfer_10.dll",
        ),
        # the core library itself: asked once
        ("[E] Uncaught exception detected: Unable to open library: nvinfer_10.dll", "nvinfer_10.dll", None),
    ],
)
def test_trtexec_dll_asks_where(text, dll, core):
    codes, commands = _codes_and_commands(text)
    assert codes == ["windows-dll-missing"]
    (cmd,) = commands
    assert isinstance(cmd, Cmd)
    assert cmd.argv == ("where.exe", dll, *((core,) if core else ()), *NEEDS)


@pytest.mark.parametrize(
    "text",
    [
        # the traceback as TensorRT 10's package raises it
        'File "C:\\Users\\me\\venv\\lib\\site-packages\\tensorrt\\__init__.py", line 73, in find_lib\n'
        "    raise FileNotFoundError(\n"
        "FileNotFoundError: Could not find: nvinfer_10.dll. Is it on your PATH?",
        # quoted in prose, without its second sentence
        '(venv) PS C:\\work> python -c "import tensorrt"\n'
        "now I get a different error `FileNotFoundError: Could not find: nvinfer_10.dll`",
    ],
)
def test_tensorrt10_python_package_asks_its_wheels(text):
    codes, commands = _codes_and_commands(text)
    assert codes == ["windows-dll-missing"]
    first = commands[0]
    assert isinstance(first, Cmd)
    assert first.argv[1:4] == ("-m", "pip", "show")
    assert {"tensorrt", "tensorrt-cu12-libs", "tensorrt-cu12-bindings"} <= set(first.argv[4:])
    # Windows' interpreter (the venv's python.exe where the traceback names it), never python3
    assert first.argv[0].lower() == "python" or first.argv[0].lower().endswith("\\scripts\\python.exe")


def test_tensorrt8_zip_keeps_the_path_answer():
    # TensorRT 8's Windows package came as a zip: its lib folder goes on PATH (the generic answer), found first by the
    # search of the interpreter's drive, then C: (where.exe /R)
    text = (
        "TensorRT-8.6.1.6\n(venv) F:\\app>python main.py\n"
        'File "F:\\app\\venv\\lib\\site-packages\\tensorrt\\__init__.py", line 81, in find_lib\n'
        "FileNotFoundError: Could not find: nvinfer.dll. Is it on your PATH?"
    )
    codes, commands = _codes_and_commands(text)
    assert codes == ["windows-dll-missing"]
    assert [type(c) for c in commands] == [Cmd, Cmd, PrependPath]
    assert [c.words for c in commands[:2]] == [
        ("where.exe", "/R", "F:\\", "nvinfer.dll"),
        ("where.exe", "/R", "C:\\", "nvinfer.dll"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        # Linux: the reason follows the name, and the so is read by the Linux checks, not as a Windows DLL
        "[E] Uncaught exception detected: Unable to open library: libnvinfer_plugin.so.8 due to "
        "/opt/TensorRT-8.6.0.12/lib/libnvinfer_plugin.so.8: file too short",
        # a DLL named with no failure
        "C:\\> where nvinfer_10.dll\nC:\\TensorRT-10.0.1.6\\lib\\nvinfer_10.dll",
    ],
)
def test_quiet_twins(text):
    codes, _ = _codes_and_commands(text)
    assert "windows-dll-missing" not in codes


def test_cuda_major_said_narrows_the_wheels():
    text = (
        "- CUDA: 12.6\n- OS: Windows 10\n"
        '(venv) PS C:\\work> python -c "import tensorrt"\nFileNotFoundError: Could not find: nvinfer_10.dll'
    )
    _codes, commands = _codes_and_commands(text)
    assert commands[0].argv[4:] == ("tensorrt", "tensorrt-cu12-libs", "tensorrt-cu12-bindings")
