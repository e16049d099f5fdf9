"""A GPU whose last driver is a legacy branch (compat_matrix/gpu_arch.toml arch.last_driver, planner/legacy_gpus.py):
a driver floor above that branch, or a driver-API function no driver of it has, is answered with the CPU or another
GPU, never with a driver upgrade that cannot be made (branch h297)."""

from __future__ import annotations

import pytest

from tests.pasted.test_windows_loader_codes import _case, _run

pytestmark = pytest.mark.slow


def _fix(finding) -> tuple[str, tuple]:
    return finding.remediation.component, finding.remediation.commands


def test_a_driver_floor_above_the_gpus_last_branch_is_no_driver_upgrade():
    # tests/blind/plans20/cases/2015-* (pytorch/pytorch#31876): a GeForce 210 (compute capability 1.2) on 342.01, the
    # last Windows release of the 340.xx branch, under torch 1.2.0 built for CUDA 10.0 (needs 411.31)
    snapshot, codes, _ = _run(_case("plans20", "2015-"))
    found = codes["framework-driver-too-old"]
    assert _fix(found) == ("gpu", ())  # (no driver step: none for this GPU reaches 411.31)
    assert "340.xx" in found.remediation.summary
    # the toolkit no longer targeting the GPU gives the same remedy, so the plan says it once
    assert codes["toolkit-arch-unsupported"].remediation == found.remediation


def test_a_driver_function_missing_on_a_gpu_of_the_oldest_branch_is_the_gpu_too_old():
    # tests/blind/plans13/cases/1355-* (AI-Horde-Worker: numba's cuDeviceGetUuid on a GeForce GTX 280, compute
    # capability 1.3, whose 340.xx branch runs CUDA 6.5 at most)
    _, codes, _ = _run(_case("plans13", "1355-"))
    assert set(codes) == {"framework-arch-unsupported"}
    assert _fix(codes["framework-arch-unsupported"]) == ("gpu", ())


@pytest.mark.parametrize(
    "text",
    [
        # a Maxwell GPU: current drivers drive it, so a newer driver is the way (nvidia-smi decides)
        "numba.cuda.cudadrv.error.CudaDriverError: Driver missing function: cuDeviceGetUuid\nGPU: GeForce GTX 750 Ti\n",
        # a Kepler GPU on a driver below its last branch (470.xx): that branch may still have the function
        "numba.cuda.cudadrv.error.CudaDriverError: Driver missing function: cuDeviceGetUuid\nTesla K80, driver 390.116\n",
    ],
)
def test_a_driver_that_a_newer_one_of_the_gpu_can_replace_is_not_the_gpu_too_old(text):
    _, codes, _ = _run(text)
    assert "framework-arch-unsupported" not in codes
