"""Ollama's installer saying it found no NVIDIA or AMD GPU (scripts/install.sh @3fa8daae): a failure, asked about, only
where the text names an NVIDIA GPU; on a machine without one it is what the installer says to everyone
(gpudoctor.checks.reported._failure)."""

from __future__ import annotations

from pathlib import Path

from tests.spec.machine import pasted_findings
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
CODE = "pasted-error-unexplained"


@states(CODE, FIRES)
def test_installer_warning_beside_an_nvidia_gpu_named_is_no_clean_bill():
    """tests/blind/plans9 case 940 (its thread is named only there): an RTX 3060 Ti inside WSL 2, and the
    installer found no GPU: not 'No problems found'."""
    path = ROOT / "tests/blind/plans9/cases/940-ollama4659-wsl2-rtx3060ti-no-gpu-detected-after-wsl-reinstall-ask/input.txt"
    assert CODE in pasted_findings(path.read_text(encoding="utf-8"))


@states(CODE, QUIET)
def test_installer_warning_with_no_gpu_named_is_quiet():
    """https://github.com/ollama/ollama/issues/2784 (tests/pasted/catalogue_examples): the warning alone."""
    text = (ROOT / "tests/pasted/catalogue_examples/ollama-2784-install-no-nvidia-gpu-detected.txt").read_text(encoding="utf-8")
    assert CODE not in pasted_findings(text)
