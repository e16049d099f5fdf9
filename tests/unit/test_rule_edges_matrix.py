"""The matrix's driver queries on both sides of every bound: one version below, at, and above.

Facts, from NVIDIA's own tables:
- toolkit drivers (full support): CUDA 11.8 520.61.05, 12.0 525.60.13, 12.1 530.30.02, 12.2 535.54.03,
  12.2.2 535.104.05, 13.0 580.65.06 -- CUDA Toolkit release notes, table "CUDA Toolkit and Corresponding
  Driver Versions" (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html).
- minor-version-compatibility floors: CUDA 11.x 450.80.02, 12.x 525.60.13, 13.x 580.65.06 -- CUDA
  Compatibility guide (https://docs.nvidia.com/deploy/cuda-compatibility/).
- CUDA 13.0 builds for compute capability 7.5 to 12.1, CUDA 12.8 for 5.0 to 12.0 -- CUDA 13.0 and 12.8
  release notes (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html).
A bound checked only on one side lets `>=` become `>` unnoticed (tools/mutate.py: docs/testing.md).
"""

from __future__ import annotations

import pytest

from gpudoctor.matrix import load_matrix


@pytest.fixture(scope="module")
def m():
    return load_matrix()


@pytest.mark.parametrize(
    ("cuda", "driver"),
    [
        ("11.8", "520.61.05"),
        ("12.0", "525.60.13"),
        ("12.1", "530.30.02"),
        ("12.2", "535.54.03"),
        ("12.2.2", "535.104.05"),  # an update with its own row
        ("12.2.140", "535.54.03"),  # an nvcc build number: the GA row
        ("13.0", "580.65.06"),
    ],
)
def test_min_driver_for_cuda(m, cuda, driver):
    assert m.min_driver_for_cuda(cuda) == driver


def test_minor_compat_floors(m):
    assert (m.minor_compat_floor(11), m.minor_compat_floor(12), m.minor_compat_floor(13)) == (
        "450.80.02",
        "525.60.13",
        "580.65.06",
    )


@pytest.mark.parametrize(
    ("driver", "cuda", "ok", "via"),
    [
        ("530.30.03", "12.1", True, "full"),
        ("530.30.02", "12.1", True, "full"),  # at the toolkit driver
        ("530.30.01", "12.1", True, "minor-version-compat"),  # just below it: the CUDA 12 floor carries it
        ("525.60.13", "12.1", True, "minor-version-compat"),  # at the floor
        ("525.60.12", "12.1", False, None),  # just below the floor
        ("520.61.05", "11.8", True, "full"),
        ("450.80.02", "11.8", True, "minor-version-compat"),
        ("450.80.01", "11.8", False, None),
        ("580.65.06", "13.0", True, "full"),
        ("580.65.05", "13.0", False, None),  # 13.0's toolkit driver is its major's floor: nothing in between
    ],
)
def test_driver_supports_cuda_on_both_sides_of_each_bound(m, driver, cuda, ok, via):
    verdict = m.driver_supports_cuda(driver, cuda)
    assert (verdict.ok, verdict.via) == (ok, via), verdict.reason
    assert verdict.known
    assert verdict.needed == m.min_driver_for_cuda(cuda)
    assert verdict.floor == m.minor_compat_floor(int(cuda.split(".")[0]))
    if not ok:
        assert f"driver {driver} is older than {verdict.needed}" in verdict.reason
    elif via == "minor-version-compat":
        assert f"but >= {verdict.floor}" in verdict.reason


def test_a_cuda_the_matrix_does_not_know_is_unknown_not_refused(m):
    verdict = m.driver_supports_cuda("999.0", "99.1")
    assert (verdict.ok, verdict.known) == (False, False)
    assert "not in the compatibility matrix" in verdict.reason
    garbled = m.driver_supports_cuda("not-a-driver", "12.1")
    assert (garbled.ok, garbled.known) == (False, False)


@pytest.mark.parametrize(
    ("driver", "cuda"),
    [
        ("530.30.02", "12.1"),
        ("530.30.01", "12.0"),
        ("525.60.13", "12.0"),
        ("525.60.12", "11.8"),
        ("580.65.06", "13.0"),
        ("580.65.05", "12.9"),
    ],
)
def test_max_cuda_for_driver_at_each_bound(m, driver, cuda):
    assert m.max_cuda_for_driver(driver) == cuda


@pytest.mark.parametrize(
    ("reported", "cuda", "ok", "via"),
    [
        ("12.1", "12.1", True, "full"),
        ("12.2", "12.1", True, "full"),
        ("12.0", "12.1", True, "minor-version-compat"),  # every driver reporting 12.0 is >= 525.60.13
        ("11.8", "12.0", False, None),  # another major never runs through minor-version compatibility
        ("11.1", "11.8", True, "minor-version-compat"),
        ("11.0", "11.8", False, None),  # 11.0's own driver 450.51.05 is below CUDA 11's floor 450.80.02
    ],
)
def test_driver_known_by_its_cuda_on_both_sides(m, reported, cuda, ok, via):
    verdict = m.driver_cuda_supports_cuda(reported, cuda)
    assert (verdict.ok, verdict.via) == (ok, via), verdict.reason
    if not ok:
        lowest = min((d for d in (verdict.floor, verdict.needed) if d), key=lambda v: tuple(int(p) for p in v.split(".")))
        assert verdict.reason.endswith(f"needs a driver >= {lowest}")


@pytest.mark.parametrize(("cuda", "cc", "ok"), [("13.0", "7.5", True), ("13.0", "7.0", False), ("12.8", "5.0", True)])
def test_cuda_can_target_at_the_ends_of_its_range(m, cuda, cc, ok):
    assert m.cuda_can_target(cuda, cc) is ok


def test_cuda_cc_ranges(m):
    assert m.cuda_cc_range("13.0") == ("7.5", "12.1")
    assert m.cuda_cc_range("12.8") == ("5.0", "12.0")


@pytest.mark.parametrize(
    ("driver", "branch", "smi_cuda"), [("565.57.01", 565, "12.7"), ("565.00", 565, "12.7"), ("564.99", 560, "12.6")]
)
def test_driver_branch_is_the_highest_at_or_below(m, driver, branch, smi_cuda):
    assert m.driver_branch(driver).branch == branch
    assert m.smi_cuda_for_driver(driver) == smi_cuda
