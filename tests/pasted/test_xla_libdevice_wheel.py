"""XLA's "Can't find libdevice directory" off Windows, where the roots it searched name its build's CUDA (issue 28, XLA's
libdevice): NVIDIA's nvcc wheel of that CUDA carries nvvm/libdevice and ptxas in its package folder, which XLA_FLAGS then
names; no root, no toolkit install, no driver change.

Real reports, whole: tests/blind/plans13/cases/1309-tf60254-wsl2-tf2120-pip-gtx1050ti-keras-fit-xla-cant-find-libdevice-cuda-118-dirs
(TensorFlow 2.12 in WSL 2, Keras' fit) and https://github.com/tensorflow/tensorflow/issues/60790 (catalogue_examples:
the log cut before "Searched for CUDA", the roots still read). The quiet twins: the same log with XLA pointed at a folder
(what is in it decides), a build's CUDA with no checked wheel pin (plans10 1001, jaxlib for CUDA 10.1: the asks stay), and
Windows, where the toolkit folder the text names is check_xla_libdevice_root's answer."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, Output, SetFrom
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner.remedy import KEEP_VALUES

_ROOT = Path(__file__).resolve().parents[1]
_EXAMPLES = _ROOT / "pasted" / "catalogue_examples"
_WSL = _ROOT / (
    "blind/plans13/cases/1309-tf60254-wsl2-tf2120-pip-gtx1050ti-keras-fit-xla-cant-find-libdevice-cuda-118-dirs/input.txt"
)
_CODE = "toolkit-missing-for-build"


def _codes(text: str, env: dict | None = None) -> dict:
    raw = read_pasted([Source("t", text)])
    raw["env"] = {**raw.get("env", {}), **(env or {})}  # what a machine's environment holds (a paste's is not read)
    snapshot = validate_snapshot(raw, "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return {f.code: f for f in report.findings}


def _argvs(finding) -> list[tuple[str, ...]]:
    return [tuple(map(str, c.argv)) for c in finding.remediation.commands if isinstance(c, Cmd)]


def test_tensorflow_212_in_wsl_gets_the_cuda_118_nvcc_wheel_and_its_folder_for_xla_flags():
    codes = _codes(_WSL.read_text("utf-8"))
    f = codes[_CODE]
    assert "11.8" in f.title
    # the folder the wheel's interpreter prints is set, not told in prose (issue 27): one line after the install, then
    # kept for new shells (WSL's Ubuntu, no Python of its own shown: ~/.bashrc), the value it set, by its name
    install, set_from, keep = f.remediation.commands
    assert isinstance(set_from, SetFrom)
    assert _argvs(f) == [
        ("python3", "-m", "pip", "install", "nvidia-cuda-nvcc-cu11==11.8.89"),
        ("python3", "-c", KEEP_VALUES["bashrc"], "XLA_FLAGS"),
    ]
    assert set_from.name == "XLA_FLAGS"
    prefix, program, suffix = set_from.parts
    assert (prefix, suffix) == ('--xla_gpu_cuda_data_dir="', '"')
    assert isinstance(program, Output)
    assert program.argv == ("python3", "-c", "import os, nvidia.cuda_nvcc as m; print(os.path.dirname(m.__file__))")
    assert "pasted-error-unexplained" not in codes
    # nothing of the driver: the GPU was found (WSL's driver is Windows')
    assert not any(code.startswith("driver") for code in codes)


def test_a_log_cut_before_its_searched_header_still_names_the_build_cuda():
    f = _codes((_EXAMPLES / "tensorflow-60790-libdevice-not-found.txt").read_text("utf-8"))[_CODE]
    assert _argvs(f)[0][-1] == "nvidia-cuda-nvcc-cu11==11.8.89"


def test_xla_pointed_at_a_folder_is_left_to_the_asks():
    codes = _codes(_WSL.read_text("utf-8"), {"XLA_FLAGS": "--xla_gpu_cuda_data_dir=/opt/cuda"})
    assert not any("nvidia-cuda-nvcc-cu11==11.8.89" in " ".join(a) for f in codes.values() if f.remediation for a in _argvs(f))
    # nor is XLA_FLAGS set over the folder it was given
    assert not any(isinstance(c, SetFrom) for f in codes.values() if f.remediation for c in f.remediation.commands)


def test_a_build_cuda_with_no_checked_wheel_is_left_to_the_asks():
    case = _ROOT / "blind/plans10/cases/1001-jax4452-jaxlib-cuda101-libdevice-not-in-usr-local-cuda-10-1-ask/input.txt"
    codes = _codes(case.read_text("utf-8"))
    assert not any("nvidia-cuda-nvcc" in " ".join(a) for f in codes.values() if f.remediation for a in _argvs(f))


def test_windows_is_the_named_toolkit_folders_answer_not_the_wheel():
    codes = _codes((_EXAMPLES / "tensorflow-models-10739-windows-libdevice-cuda-dir-set.txt").read_text("utf-8"))
    assert not any("nvidia-cuda-nvcc" in " ".join(a) for f in codes.values() if f.remediation for a in _argvs(f))
