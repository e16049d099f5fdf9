"""Rule edges the second held-out mutation sample (seed 22, docs/testing.md) showed unguarded.

Written after that sample's one run; each test pins the rule's behaviour, with the reason it is right.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.checks.cudnn import _wheel_dirs
from gpudoctor.checks.requirements import evaluate, parse_requirements
from gpudoctor.facts import LibDir
from gpudoctor.probed import Found
from tests.unit.test_rule_edges_checks import facts_of, findings


def with_platform(facts, **changes):
    return dataclasses.replace(facts, platform=dataclasses.replace(facts.platform, **changes))


# --- gpu-none: where it looked --------------------------------------------------------------------------------


def test_gpu_none_in_a_container_says_it_saw_the_containers_view_of_the_bus():
    # A container may see a filtered /sys; "no GPU on the PCI bus" would overstate what was read.
    facts = facts_of("ci-docker-cuda13-no-gpu")
    (f,) = findings(facts, "gpu-none")
    assert "is on this container's view of the PCI bus," in f.detail
    (bare,) = findings(with_platform(facts, container=None), "gpu-none")
    assert "is on the PCI bus," in bare.detail and "container" not in bare.detail


# --- container-no-gpu: what says a GPU was meant to be here ----------------------------------------------------


def _container_evidence(facts):
    (f,) = findings(facts, "container-no-gpu")
    return {e.source: e.value for e in f.evidence}


def test_container_no_gpu_names_the_images_cuda_requirement_and_else_the_installed_framework():
    facts = facts_of("docker-started-without-gpus")  # NVIDIA_REQUIRE_CUDA=cuda>=12.1 and a CUDA torch
    assert _container_evidence(facts)["env:NVIDIA_REQUIRE_CUDA"] == "cuda>=12.1"
    # The image's variable alone (no framework installed yet) is still a hint that a GPU was meant.
    no_fw = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, torch=facts.frameworks.tensorflow))
    assert _container_evidence(no_fw)["env:NVIDIA_REQUIRE_CUDA"] == "cuda>=12.1"
    # A CUDA framework alone (an image without NVIDIA's variables) is the hint then.
    env = {k: v for k, v in facts.platform.env.items() if k != "NVIDIA_REQUIRE_CUDA"}
    assert _container_evidence(with_platform(facts, env=env))["env:NVIDIA_REQUIRE_CUDA"] == "a CUDA framework is installed"


# --- cuDNN: NVIDIA's wheel directories another framework saw -----------------------------------------------------


def test_the_wheel_directories_added_are_other_frameworks_wheel_dirs_each_once():
    facts = facts_of("rtx4090-torch-cu121-with-cudnn-cu11-wheel")
    own = (LibDir("/site/tensorflow", "bundled", ("libcudnn.so.8",)),)
    wheel = LibDir("/site/nvidia/cudnn/lib", "wheel", ("libcudnn.so.9",))
    torch = facts.frameworks.torch
    assert isinstance(torch, Found)
    dirs = (wheel, LibDir("/site/torch/lib", "bundled", ("libcudnn.so.9",)), own[0], wheel)
    facts = dataclasses.replace(
        facts,
        frameworks=dataclasses.replace(
            facts.frameworks, torch=dataclasses.replace(torch, value=dataclasses.replace(torch.value, lib_dirs=dirs))
        ),
    )
    # torch's own bundled directory is not a place the loader searches for TensorFlow, and a directory
    # already among TensorFlow's own is not added again.
    assert _wheel_dirs(facts, own) == (own[0], wheel)


# --- TensorFlow on native Windows --------------------------------------------------------------------------------


def _windows_tf(version: str):
    facts = facts_of("windows-tf291-venv-no-cuda-dlls")
    tf = facts.frameworks.tensorflow
    assert isinstance(tf, Found)
    tf = dataclasses.replace(tf, value=dataclasses.replace(tf.value, version=version))
    return findings(
        dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, tensorflow=tf)),
        "framework-windows-native-gpu",
    )


@pytest.mark.parametrize("version", ["1.12.0", "1.10.0"])
def test_a_tensorflow_older_than_the_matrix_is_not_called_cpu_only_on_windows(version):
    # TensorFlow up to 2.10 built for the GPU on native Windows (tensorflow.org/install/pip#windows-native);
    # releases older than the matrix's first row (1.13) are among them, whatever the matrix lacks.
    assert _windows_tf(version) == []


def test_a_tensorflow_newer_than_the_matrix_is_cpu_only_on_windows():
    # After 2.10 no release has GPU support on native Windows: one the matrix does not list yet is judged so.
    (f,) = _windows_tf("2.99.0")
    assert f.title == "TensorFlow 2.99.0 has no GPU support on native Windows"


# --- requirements -----------------------------------------------------------------------------------------------


def test_a_driver_version_that_is_no_version_is_not_met_and_says_false():
    # The JSON document's "met" is a boolean (schemas/report.schema.json); an unreadable driver version meets nothing.
    facts = facts_of("h100x8-driver565-torch221-cu121")
    facts = dataclasses.replace(
        facts, driver=dataclasses.replace(facts.driver, nvml_driver_version="unknown", smi_driver_version=None)
    )
    (outcome,) = evaluate(parse_requirements(["driver>=535"]), facts, run_checks(facts)[0])
    assert outcome.met is False
    assert outcome.to_json()["met"] is False


def test_bf16_unmet_suggests_fp16_with_loss_scaling_and_other_precisions_do_not():
    # A T4 (compute capability 7.5) has no BF16 and no TF32 (NVIDIA's Ampere whitepaper): FP16 with loss scaling is
    # the documented fallback for BF16 only; for TF32 the advice would be wrong (FP32 is the fallback there).
    facts = facts_of("t4-jax-beside-tf-notebook")
    checks = run_checks(facts)[0]
    bf16, tf32 = evaluate(parse_requirements(["bf16", "tf32"]), facts, checks)
    assert bf16.met is False and tf32.met is False
    assert bf16.finding is not None and tf32.finding is not None
    assert "Use FP16 with loss scaling (torch.autocast(dtype=torch.float16)) on older GPUs." in bf16.finding.remediation.summary
    assert "FP16" not in tf32.finding.remediation.summary
