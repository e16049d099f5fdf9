"""cuDNN rules at their edges, on recorded machines' facts with one fact changed at a time.

Base: tests/machines/rtx3060-tf211-cudnn80-too-old: TensorFlow 2.11.0 (CUDA 11, built against cuDNN 8.1,
https://www.tensorflow.org/install/source#gpu) loads /usr/local/cuda-11.8/lib64/libcudnn.so.8, which is cuDNN
8.0.5, through LD_LIBRARY_PATH.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.checks.cudnn import torch_pip_wheel
from gpudoctor.doctor import diagnose
from gpudoctor.facts import CudnnInstall
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot

MACHINES = Path(__file__).resolve().parents[1] / "machines"
LIB = "/usr/local/cuda-11.8/lib64/libcudnn.so.8.0.5"


def facts_of(slug):
    return diagnose(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json")))).facts


@pytest.fixture(scope="module")
def tf211():
    return facts_of("rtx3060-tf211-cudnn80-too-old")


def codes(facts, code):
    found, internal = run_checks(facts)
    assert not internal
    return [f for f in found if f.code == code]


def with_cudnn(facts, *installs):
    return dataclasses.replace(facts, cudnn=tuple(installs))


def test_the_librarys_own_version_decides(tf211):
    (f,) = codes(tf211, "cudnn-too-old")
    assert f.title == "cuDNN 8.0.5 is older than TensorFlow 2.11.0 requires (8.1)"


def test_without_the_librarys_version_the_header_of_that_major_says_it(tf211):
    """A library file named only by its major (libcudnn.so.8) says nothing; cudnn_version.h does."""
    facts = with_cudnn(
        tf211,
        CudnnInstall("8", 8, "library", "/usr/local/cuda-11.8/lib64/libcudnn.so.8"),
        CudnnInstall("9.1.0", 9, "header", "/usr/include/cudnn_version_v9.h"),
        CudnnInstall("8.0.5", 8, "header", "/usr/include/cudnn_version.h"),
    )
    (f,) = codes(facts, "cudnn-too-old")
    assert f.title == "cuDNN 8.0.5 is older than TensorFlow 2.11.0 requires (8.1)"


def test_with_no_version_anywhere_nothing_is_claimed(tf211):
    facts = with_cudnn(tf211, CudnnInstall(None, 8, "library", LIB))
    assert codes(facts, "cudnn-too-old") == []


def test_a_library_in_another_directory_does_not_lend_its_version(tf211):
    facts = with_cudnn(tf211, CudnnInstall("8.0.5", 8, "library", "/opt/other/libcudnn.so.8.0.5"))
    assert codes(facts, "cudnn-too-old") == []


def test_at_the_required_version_it_is_not_too_old(tf211):
    facts = with_cudnn(tf211, CudnnInstall("8.1.0", 8, "library", LIB))
    assert codes(facts, "cudnn-too-old") == []
    facts = with_cudnn(tf211, CudnnInstall("8.0.99", 8, "library", LIB))
    assert [f.title for f in codes(facts, "cudnn-too-old")] == ["cuDNN 8.0.99 is older than TensorFlow 2.11.0 requires (8.1)"]


@pytest.mark.parametrize(
    ("loaded", "too_old"), [("8.1.0", True), ("8.0.9", True), ("8.1.1", False), ("8.1.1.0", False), ("8.1.2", False)]
)
def test_the_patch_level_counts_and_a_fourth_part_does_not(tf211, loaded, too_old):
    """docs/findings/cudnn-too-old.md: "the first three version parts are lower than the minimum's": with a dotted
    build_info cuDNN of 8.1.1 (three parts), 8.1.0 is too old although its major.minor is the minimum's."""
    tf = dataclasses.replace(
        tf211.frameworks.tensorflow, value=dataclasses.replace(tf211.frameworks.tensorflow.value, cudnn="8.1.1")
    )
    facts = with_cudnn(
        dataclasses.replace(tf211, frameworks=dataclasses.replace(tf211.frameworks, tensorflow=tf)),
        CudnnInstall(loaded, 8, "library", LIB),
    )
    found = codes(facts, "cudnn-too-old")
    assert [f.title for f in found] == ([f"cuDNN {loaded} is older than TensorFlow 2.11.0 requires (8.1.1)"] if too_old else [])


@pytest.mark.parametrize(
    ("version", "kind", "wheel"),
    [
        ("2.2.1+cu121", "venv", True),  # the local tag: one of PyTorch's own wheels
        ("2.2.1", "venv", True),  # untagged outside conda: the PyPI wheel
        ("2.2.1", "conda", False),  # untagged in conda: the conda package
        ("2.1.0a0+32f93b1", "venv", False),  # a pre-release: a source or NGC build
    ],
)
def test_torch_pip_wheel(version, kind, wheel):
    facts = facts_of("rtx4090-torch-cu121-with-cudnn-cu11-wheel")
    py = facts.frameworks.python
    env = dataclasses.replace(py.value, kind=kind)
    facts = dataclasses.replace(
        facts, frameworks=dataclasses.replace(facts.frameworks, python=dataclasses.replace(py, value=env))
    )
    assert torch_pip_wheel(facts, version) is wheel
