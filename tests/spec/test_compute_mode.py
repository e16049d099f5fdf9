"""docs/findings/gpu-compute-mode-restricted.md, each documented rule as a test on a minimal pasted text: CUDA's
error 46 beside an nvidia-smi that shows the GPU's compute mode (tests/spec/machine.py)."""

from __future__ import annotations

import pytest

from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

TABLE = (
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
    "|=========================================+======================+======================|\n"
    "|   0  Tesla V100-SXM2-32GB           On  | 00000000:00:1E.0 Off |                    0 |\n"
    "| N/A   34C    P0              41W / 300W |    310MiB / 32768MiB |      0%   {mode} |\n"
    "+-----------------------------------------+----------------------+----------------------+\n"
)
ERROR_46 = "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable\n"


@pytest.mark.parametrize(("cell", "mode"), [("E. Process", "Exclusive_Process"), ("Prohibited", "Prohibited")])
@states("gpu-compute-mode-restricted", FIRES)
def test_error_46_beside_a_restricted_compute_mode_fires_with_the_mode(cell, mode):
    """The rule: "the text shows error 46 and an nvidia-smi table whose Compute M. cell reads E. Process, E. Thread or
    Prohibited"; the fix lists the processes holding the GPU and sets the mode back to Default as root."""
    f = pasted_findings(ERROR_46 + TABLE.format(mode=f"{cell:>10}"))["gpu-compute-mode-restricted"]
    assert mode in f.title
    assert argv_of(f) == [
        ("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv"),
        ("nvidia-smi", "-c", "DEFAULT"),
    ]
    assert f.remediation.requires_root


@states("gpu-compute-mode-restricted", FIRES)
def test_nvidia_smi_q_compute_mode_field_counts_too():
    text = "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n    Compute Mode : Exclusive_Process\n"
    assert "Exclusive_Process" in pasted_findings(text)["gpu-compute-mode-restricted"].title


@pytest.mark.parametrize(
    "text",
    [
        ERROR_46 + TABLE.format(mode="   Default"),  # the mode is Default: another cause (asked, not said)
        ERROR_46,  # no compute mode shown
        TABLE.format(mode="E. Process"),  # a restricted mode without the error: the machine's policy, no failure
    ],
    ids=["default-mode", "mode-not-shown", "no-error-46"],
)
@states("gpu-compute-mode-restricted", QUIET)
def test_without_both_the_error_and_a_restricted_mode_it_is_quiet(text):
    assert "gpu-compute-mode-restricted" not in pasted_findings(text)
