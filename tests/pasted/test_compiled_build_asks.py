"""A compiled program's own CUDA kernels without an image for the GPU (no kernel image), the program's source shown but
no build tree (pasted.ask._build_tree_asks, branch h297): Caffe's CUDA_CHECK ("Check failed: error == cudaSuccess (48
vs. 0)") is a C++ program's, so no pip list; the toolkit on PATH, which a rebuild compiles with, is asked; a source
path in a hosted CI runner's workspace is a released binary's, for which no toolkit is asked."""

from __future__ import annotations

import pytest

from tests.pasted.test_windows_loader_codes import _case, _run

pytestmark = pytest.mark.slow

_NVCC = ("nvcc", "--version")


@pytest.mark.parametrize(
    ("blind_set", "prefix"),
    [
        ("plans20", "2062-"),  # OpenPose's Caffe on an RTX 3090: the glog CHECK alone
        ("plans18", "1862-"),  # tensorRT_Pro's simple_yolo.cu built with CMake for another architecture
    ],
)
def test_a_programs_own_kernels_ask_the_toolkit_a_rebuild_uses(blind_set, prefix):
    snapshot, _, asks = _run(_case(blind_set, prefix))
    assert _NVCC in asks
    assert not any(a[:3] == ("python3", "-m", "pip") for a in asks)


@pytest.mark.parametrize(("blind_set", "prefix"), [("plans20", "2031-"), ("plans20", "2049-")])
def test_a_binary_built_in_a_ci_workspace_asks_no_toolkit(blind_set, prefix):
    # koboldcpp's exe (d:\a\koboldcpp\...) and llama-box (D:\a\llama-box\...): released by the projects' CI
    _, _, asks = _run(_case(blind_set, prefix))
    assert _NVCC not in asks


def test_caffes_check_on_windows_asks_no_pip_list():
    # tests/blind/plans21/cases/2161-* (Caffe for Windows, error 35 through CUDA_CHECK)
    _, codes, asks = _run(_case("plans21", "2161-"))
    assert not any("pip" in a for a in asks)
