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
