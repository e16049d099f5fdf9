"""docs/findings/toolkit-newer-than-driver, on pasted reports: Triton's "device kernel image is invalid" on a driver
below CUDA 12 (below 525.60.13) is the CUDA 12 ptxas Triton bundles, newer than the driver loads; the plan clears
Triton's cache, reads the toolkit's ptxas and points TRITON_PTXAS_PATH at it. Quiet on a driver that runs CUDA 12,
and where no driver is shown.

Real data: blind set 15's A10 report
(tests/blind/plans15/cases/1514-triton2971-docker-cuda118-a10-host-driver-470-triton-nightly-bundled-ptxas-12-device-kernel-image-invalid/input.txt:
nvidia-smi's 470.182.03, CUDA 11.4) and tests/pasted/catalogue_examples/triton-4029-device-kernel-image-invalid-driver-470.txt
(Triton 2.3.1, "nvidia driver 470.57.02"). Quiet twins: https://github.com/predibase/lorax/issues/237 (its title and
the nvidia-smi header of its comment, verbatim: driver 535.54.03, CUDA 12.2) and blind set 15's shared-cache report
(tests/blind/plans15/cases/1513-triton1323-cluster-shared-home-v100-and-a100-triton-cache-cubin-from-v100-device-kernel-image-invalid/input.txt:
no driver shown)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import SetEnv
from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

LORAX_237 = (
    '"Triton Error [CUDA]: device kernel image is invalid" when running at runpod.io\n'
    "\n"
    "```\n"
    "+---------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 535.54.03              Driver Version: 535.54.03    CUDA Version: 12.2     |\n"
    "|-----------------------------------------+----------------------+----------------------+\n"
)


def _text(path: str) -> str:
    (p,) = Path(".").glob(path)
    return p.read_text(encoding="utf-8")


@states("toolkit-newer-than-driver", FIRES)
def test_tritons_invalid_image_on_a_driver_below_cuda12_points_triton_at_a_cuda11_ptxas():
    for path in (
        "tests/blind/plans15/cases/1514-*/input.txt",
        "tests/pasted/catalogue_examples/triton-4029-device-kernel-image-invalid-driver-470.txt",
    ):
        f = pasted_findings(_text(path))["toolkit-newer-than-driver"]
        assert argv_of(f) == [("rm", "-rf", "~/.triton/cache"), ("/usr/local/cuda/bin/ptxas", "--version")], path
        env = [c for c in f.remediation.commands if isinstance(c, SetEnv)]
        assert [(e.name, e.value) for e in env] == [("TRITON_PTXAS_PATH", "/usr/local/cuda/bin/ptxas")], path


@states("toolkit-newer-than-driver", QUIET)
def test_quiet_on_a_driver_that_runs_cuda12_or_where_no_driver_is_shown():
    for text in (LORAX_237, _text("tests/blind/plans15/cases/1513-*/input.txt")):
        assert "toolkit-newer-than-driver" not in pasted_findings(text)
