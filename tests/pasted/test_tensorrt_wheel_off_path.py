"""TensorRT's pip wheel installed, and the loader still misses its libnvinfer (issue 28, pip-installed TensorRT libraries
not on the loader path): the wheel keeps the libraries in site-packages/tensorrt_libs (8.6 and later), which
`import tensorrt` loads by path and a program opening the soname by name never searches. The fix is that folder on
LD_LIBRARY_PATH, not another TensorRT.

Real reports, whole: tests/blind/plans13/cases/1301-ort18597-wsl2-conda-ort1163-pip-tensorrt861-libs-trt-ep-libnvinfer-so-8-not-on-loader-path
(a conda listing with tensorrt 8.6.1.post1 and tensorrt-libs 8.6.1, ONNX Runtime's TensorRT provider in WSL 2) and
https://github.com/ORB-HD/deface/issues/53 (Colab, `!pip install tensorrt==8.6.1.post1`, the same provider). The quiet
twins: the 1301 report without its TensorRT lines, or with TensorRT 10 wheels (another major), and plans5 425 (a plugin
built in NVIDIA's image, no TensorRT on the host): TensorRT of that major is installed there."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, Output, PrependPath
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner.remedy import KEEP_VALUES

_ROOT = Path(__file__).resolve().parents[1]
_ORT = _ROOT / (
    "blind/plans13/cases/1301-ort18597-wsl2-conda-ort1163-pip-tensorrt861-libs-trt-ep-libnvinfer-so-8-not-on-loader-path"
    "/input.txt"
)
_COLAB = _ROOT / "pasted/catalogue_examples/deface-53-colab-pip-tensorrt861-libnvinfer-so-8.txt"
_CODE = "framework-cuda-libs-missing"


def _finding(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return next(f for f in report.findings if f.code == _CODE)


def _folder_step(f) -> tuple[str, ...]:
    step = f.remediation.commands[0]
    assert isinstance(step, PrependPath) and step.name == "LD_LIBRARY_PATH"
    (where,) = step.parts
    assert isinstance(where, Output)
    return tuple(str(a) for a in where.argv)


def test_a_listed_tensorrt_86_wheel_puts_tensorrt_libs_on_the_loader_path_and_installs_nothing():
    f = _finding(_ORT.read_text("utf-8"))
    assert "installed" in f.title and "8.6.1" in f.title
    assert _folder_step(f)[-1] == "import os, tensorrt_libs as m; print(os.path.dirname(m.__file__))"
    cmds = [c.argv for c in f.remediation.commands if isinstance(c, Cmd)]
    # the folder the interpreter printed is kept for new shells as its value (+: the one directory put first)
    assert cmds == [
        ("python3", "-c", KEEP_VALUES["bashrc"], "+LD_LIBRARY_PATH"),
        ("python3", "-c", 'import ctypes; ctypes.CDLL("libnvinfer.so.8")'),
    ]
    assert f.remediation.component == "environment"


def test_a_notebooks_pip_install_of_tensorrt_86_is_the_same_wheel():
    f = _finding(_COLAB.read_text("utf-8"))
    assert "tensorrt 8.6.1.post1" in f.title
    assert _folder_step(f)[-1].startswith("import os, tensorrt_libs as m")
    assert not any(isinstance(c, Cmd) and "install" in c.argv for c in f.remediation.commands)


def test_without_a_tensorrt_wheel_shown_the_runtime_is_installed():
    listed = ("> tensorrt", "> nvidia-tensorrt")
    text = "\n".join(line for line in _ORT.read_text("utf-8").splitlines() if not line.startswith(listed))
    f = _finding(text)
    assert "not installed" in f.title
    assert any(isinstance(c, Cmd) and c.argv[-1].startswith("tensorrt==") for c in f.remediation.commands)


def test_a_wheel_of_another_major_is_not_the_missing_runtime():
    text = _ORT.read_text("utf-8").replace("8.6.1.post1", "10.0.1").replace("8.6.1 ", "10.0.1 ")
    assert "8.6.1" not in text.split("verify tensorrt")[0]
    f = _finding(text)
    assert "not installed" in f.title


def test_a_plugin_built_in_nvidias_image_on_a_host_without_tensorrt_still_installs_it():
    case = _ROOT / "blind/plans5/cases/425-trt2596-plugin-built-in-trt2210-container-used-on-host-without-libnvinfer8/input.txt"
    f = _finding(case.read_text("utf-8"))
    assert "not installed" in f.title
