"""framework-driver-too-old at its bound: the CUDA major's minor-version floor, not the toolkit driver.

Base: tests/machines/p100-driver510-torch-cu121 (PyTorch 2.2.1+cu121, driver 510.47.03 read by nvidia-smi).
PyTorch cu121 carries the CUDA 12.1 runtime; CUDA 12.1's toolkit driver is 530.30.02, and every CUDA 12.x
runtime runs from 525.60.13 on through minor-version compatibility (CUDA Compatibility guide,
https://docs.nvidia.com/deploy/cuda-compatibility/; toolkit drivers: CUDA Toolkit release notes,
https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html). So 525.60.12 is too old and must name
525.60.13; 525.60.13 is enough.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot

SNAPSHOT = Path(__file__).resolve().parents[1] / "machines" / "p100-driver510-torch-cu121" / "snapshot.json"


@pytest.fixture(scope="module")
def base():
    return diagnose(ReplayHost(load_snapshot(str(SNAPSHOT)))).facts


def too_old(facts, version, cuda):
    facts = dataclasses.replace(
        facts, driver=dataclasses.replace(facts.driver, smi_driver_version=version, smi_cuda_version=cuda)
    )
    found, internal = run_checks(facts)
    assert not internal
    return [f for f in found if f.code == "framework-driver-too-old"]


def test_one_below_the_minor_version_floor_names_the_floor(base):
    (f,) = too_old(base, "525.60.12", "12.0")
    assert f.title == "PyTorch 2.2.1+cu121 needs CUDA 12.1, which driver 525.60.12 cannot run"
    assert "a CUDA 12.1 runtime needs driver >= 525.60.13." in f.detail  # the floor, not 530.30.02
    assert "530.30.02" not in f.detail


@pytest.mark.parametrize(("version", "cuda"), [("525.60.13", "12.0"), ("530.30.01", "12.1"), ("530.30.02", "12.1")])
def test_at_or_above_the_floor_the_framework_runs(base, version, cuda):
    assert too_old(base, version, cuda) == []


def test_the_recorded_driver_names_the_floor_and_the_cuda_it_supports(base):
    (f,) = too_old(base, "510.47.03", "11.6")
    assert "The driver supports CUDA up to 11.6; a CUDA 12.1 runtime needs driver >= 525.60.13." in f.detail


def test_a_driver_known_only_by_its_cuda(base):
    """No version number, only the CUDA it reports: the lowest driver that runs CUDA 12.1 is still the floor."""
    (f,) = too_old(base, None, "11.8")
    assert f.title == "PyTorch 2.2.1+cu121 needs CUDA 12.1, which the driver (CUDA 11.8) cannot run"
    assert "(its version number was not reported)" in f.detail and "needs driver >= 525.60.13." in f.detail
    assert ("cmd:nvidia-smi", "driver's CUDA version 11.8; driver version not reported") in {
        (e.source, e.value) for e in f.evidence
    }
    # Every driver that reports CUDA 12.0 is at or above 525.60.13: it runs 12.1 by minor-version compatibility.
    assert too_old(base, None, "12.0") == []
