"""docs/findings/program-fault.md on whole real reports (tests/pasted/head/pytorch): a failure that is the program's own
is said as the program's, at info and with no plan step, only where nothing in the environment is found at fault
(gpudoctor.checks.reported.check_reported_program_fault)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.model import Severity
from tests.spec.machine import pasted_findings
from tests.spec.registry import FIRES, QUIET, states

HEAD = Path(__file__).resolve().parents[1] / "pasted" / "head" / "pytorch"
CODE = "program-fault"


def _text(name: str) -> str:
    return (HEAD / name).read_text(encoding="utf-8")


@states(CODE, FIRES)
def test_a_kernels_assertion_on_the_labels_is_the_programs():
    """layumi/Person_reID_baseline_pytorch#372: Assertion `t >= 0 && t < n_classes` failed, then the device-side assert."""
    found = pasted_findings(_text("device-side-assert.txt"))
    f = found[CODE]
    assert f.severity == Severity.INFO and f.remediation is None
    assert "CUDA_LAUNCH_BLOCKING=1" in f.detail
    assert set(found) == {CODE}


@states(CODE, FIRES)
def test_nccl_asked_for_on_windows_is_the_programs_backend_choice():
    """bshall/hubert#1: init_process_group with NCCL in a Windows conda environment (H:\\CONDA\\envs\\...)."""
    found = pasted_findings(_text("nccl-not-built-in.txt"))
    assert set(found) == {CODE} and "backend='gloo'" in found[CODE].detail


@states(CODE, QUIET)
def test_beside_an_environment_fault_the_environment_is_the_reports():
    """The same assert where nvidia-smi cannot reach the driver: driver-unreachable, not the program's fault."""
    text = _text("device-side-assert.txt") + (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
        "driver is installed and running.\n"
    )
    found = pasted_findings(text)
    assert CODE not in found and "driver-unreachable" in found


@states(CODE, QUIET)
def test_nccl_missing_from_a_linux_build_is_not_the_programs():
    """Linux PyTorch without NCCL is a CPU-only or custom build: the build decides, not the program's backend."""
    text = (
        '  File "/home/u/venv/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 727, in '
        "_new_process_group_helper\nRuntimeError: Distributed package doesn't have NCCL built in\n"
    )
    found = pasted_findings(text)
    assert CODE not in found and "pasted-error-unexplained" in found


# pytorch/pytorch#121834 (a comment of 2024-05-08, the pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime image, resnet18
# training that "did not affect the progress of training"; the maintainer: fixed in 2.3.1, the warning alone harmless).
_PLAN_WARNING = (
    "/opt/conda/lib/python3.10/site-packages/torch/autograd/graph.py:744: UserWarning: Plan failed with a cudnnException: "
    "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED "
    "(Triggered internally at /opt/conda/conda-bld/pytorch_1712608935911/work/aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)\n"
    "  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n"
)


@states(CODE, QUIET)
def test_a_line_printed_as_a_python_warning_is_no_fault_the_program_went_on():
    """PyTorch 2.3's cuDNN v8 API warns (warnings.formatwarning's "<file>:<line>: UserWarning: ...") and tries its next
    plan: nothing failed, so nothing is said (the blind control tests/blind/plans11/cases/1110-* is the same warning).
    Its twin: the same status raised, not warned (tests/pasted/catalogue_examples: a RuntimeError), stays the program's."""
    assert pasted_findings(_PLAN_WARNING) == {}
    raised = (
        Path(__file__).resolve().parents[1] / "pasted" / "catalogue_examples" / "sknet-14-cudnn-not-supported-non-contiguous.txt"
    )
    assert set(pasted_findings(raised.read_text(encoding="utf-8"))) == {CODE}
