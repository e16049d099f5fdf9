"""Matrix driver verdicts the bundled data never reaches, on a user's matrix file (mutation survivors, docs/testing.md).

A matrix file given with `--matrix` (docs/matrix.md) may list a CUDA release before NVIDIA has published its
driver: the bundled data already does so for CUDA 13.4 ("Minimum driver unknown: the Linux driver is no longer
bundled from 13.4", compat_matrix/cuda_driver.toml, from the CUDA 13.3/13.4 release notes
https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html), where the CUDA 13 minor-version-compatibility
floor still answers. A new major has no such floor yet (the floors come per major from the CUDA Compatibility
guide, https://docs.nvidia.com/deploy/cuda-compatibility/), so neither bound is known.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.matrix import check_matrix, load_matrix

DATA = Path(__file__).resolve().parents[2] / "compat_matrix"


@pytest.fixture(scope="module")
def matrix_with_cuda_14(tmp_path_factory):
    """The bundled matrix with one more release, CUDA 14.0, listed with no driver for either OS."""
    text = (DATA / "cuda_driver.toml").read_text(encoding="utf-8")
    last = next(line for line in text.splitlines() if line.startswith('  { cuda = "13.4", release = "13.4.1"'))
    added = '  { cuda = "14.0", release = "14.0.0", label = "14.0 GA", confidence = "low", source = "cuda-13.3-notes-copies" },'
    path = tmp_path_factory.mktemp("matrix") / "cuda_driver.toml"
    path.write_text(text.replace(last, last + "\n" + added), encoding="utf-8")
    assert check_matrix(path) == []  # a valid matrix file: the release needs no driver
    return load_matrix(path)


@pytest.mark.parametrize("os_name", ["linux", "windows"])
def test_a_release_with_no_driver_and_no_floor_is_refused_and_says_nothing_is_known(matrix_with_cuda_14, os_name):
    # Driver 595.45.04 is the toolkit driver of CUDA 13.2 (its branch R595 serves 13.2, below 14.0), there is no
    # CUDA 14 toolkit driver and no CUDA 14 minor-version floor: nothing says the driver runs 14.0, so the
    # verdict is "no", and its reason says why (no minimum known) instead of naming a minimum that does not exist.
    v = matrix_with_cuda_14.driver_supports_cuda("595.45.04", "14.0", os_name)
    assert (v.ok, v.via, v.needed, v.floor, v.known) == (False, None, None, None, True)
    assert v.reason == f"no driver minimum is known for CUDA 14.0 on {os_name}"
