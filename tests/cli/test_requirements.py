"""gpudoctor.checks.requirements: parsing specs, and the verdicts the CLI tests cannot reach through a machine."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks.requirements import (
    RequirementSyntaxError,
    evaluate,
    parse_requirement,
    parse_requirements,
    split_specs,
)
from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.model import Finding, Remediation, Severity
from tests.cli.conftest import machine


@pytest.fixture(scope="module")
def rtx4090():
    return diagnose(ReplayHost(load_snapshot(machine("rtx4090-torch-cu121"))))


@pytest.fixture(scope="module")
def rtx2070x2():
    return diagnose(ReplayHost(load_snapshot(machine("rtx2070x2-cpu-builds"))))


@pytest.mark.parametrize(
    ("value", "specs"),
    [
        ("gpu bf16", ["gpu", "bf16"]),
        ("torch >= 2.3, <3 bf16", ["torch>=2.3,<3", "bf16"]),
        ("driver>=535\ncuda>=12.1\n", ["driver>=535", "cuda>=12.1"]),
        ("  gpus >=2  ", ["gpus>=2"]),
        ("gpu-memory >= 40 GiB bf16", ["gpu-memory>=40GiB", "bf16"]),
        ("gpus>=2 gib", ["gpus>=2gib"]),  # glued, and then a malformed count: a usage error, not a silent 'gib
        ("", []),
    ],
)
def test_split_specs(value, specs):
    assert split_specs(value) == specs


def test_parse_kinds_aliases_and_units():
    assert parse_requirement("cc>=8.0").kind == "cc"
    assert parse_requirement("Compute-Capability>=8.0").kind == "cc"
    assert parse_requirement("tensorflow:cuda").subject == "tensorflow"
    assert parse_requirement("jax:gpu").kind == "build"
    assert parse_requirement("gpu-memory>=40GiB").sizes == ((">=", 40 * 1024**3),)
    assert parse_requirement("gpu-memory>=40GB").sizes == ((">=", 40 * 1000**3),)
    assert parse_requirement("gpu-memory-free>=1.5gib,<80GiB").sizes == ((">=", int(1.5 * 1024**3)), ("<", 80 * 1024**3))
    assert parse_requirement("gpu-memory-free>=20GiB").subject == "free"
    assert str(parse_requirement("torch>=2.3,!=2.4.0").specifier) == "!=2.4.0,>=2.3"
    assert [r.spec for r in parse_requirements(["gpu", "torch>=2.3 bf16"])] == ["gpu", "torch>=2.3", "bf16"]
    with pytest.raises(RequirementSyntaxError, match="unknown requirement 'cuda-toolkit'"):
        parse_requirement("cuda-toolkit>=12")


def _only(outcomes):
    assert len(outcomes) == 1
    return outcomes[0]


def test_prerelease_and_local_versions_count(rtx4090):
    facts = rtx4090.facts
    env = facts.frameworks.python.value
    nightly = dataclasses.replace(env, distributions={**env.distributions, "torch": "2.4.0.dev20240501+cu121"})
    patched = dataclasses.replace(
        facts,
        frameworks=dataclasses.replace(facts.frameworks, python=dataclasses.replace(facts.frameworks.python, value=nightly)),
    )
    assert _only(evaluate(parse_requirements(["torch>=2.4.0.dev0"]), patched)).met
    assert _only(evaluate(parse_requirements(["torch==2.2.1"]), facts)).met  # the +cu121 local tag does not matter


def _blocking(code: str, title: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(
        code,
        severity,
        "frameworks",
        title,
        "detail",
        (),
        Remediation("fix it", (Cmd(("pip", "install", "the-right-build")),), component="torch"),
    )


def test_torch_cuda_is_unmet_when_a_framework_check_says_it_cannot_use_the_gpu(rtx4090):
    arch = _blocking(
        "framework-arch-unsupported",
        "PyTorch 2.2.1+cu121 has no kernels for GPU 0 (NVIDIA GeForce RTX 4090, compute capability 8.9)",
    )
    o = _only(evaluate(parse_requirements(["torch:cuda"]), rtx4090.facts, [arch]))
    assert not o.met
    assert o.found == (
        "torch 2.2.1+cu121 (CUDA 12.1) cannot use this GPU: PyTorch 2.2.1+cu121 has no kernels for GPU 0 "
        "(NVIDIA GeForce RTX 4090, compute capability 8.9) (framework-arch-unsupported)"
    )
    assert o.finding.remediation.lines() == ["pip install the-right-build"]
    assert o.finding.code == "requirement-unmet" and o.finding.severity is Severity.ERROR


@pytest.mark.parametrize(
    "finding",
    [
        _blocking("framework-arch-unsupported", "TensorFlow 2.11.0 has no kernels for GPU 0"),  # another framework
        _blocking("framework-driver-too-old", "PyTorch 2.2.1 needs CUDA 12.1", Severity.WARNING),  # not an error
        _blocking("framework-cpu-build", "PyTorch 2.2.1 something else"),  # not a blocking code
    ],
)
def test_torch_cuda_ignores_findings_that_do_not_block_it(rtx4090, finding):
    assert _only(evaluate(parse_requirements(["torch:cuda"]), rtx4090.facts, [finding])).met


def test_cudnn_missing_blocks_torch(rtx4090):
    missing = _blocking("cudnn-missing", "PyTorch 2.2.1+cu121 needs libcudnn.so.8 and none can be loaded")
    assert not _only(evaluate(parse_requirements(["torch:cuda"]), rtx4090.facts, [missing])).met


class _NoPrecisionTable:
    """A matrix from before the precision table: it answers nothing about formats."""


def test_bf16_without_the_matrix_precision_table_uses_cc_8_0(rtx2070x2):
    facts = rtx2070x2.facts  # NVML says compute capability 7.5
    o = _only(evaluate(parse_requirements(["bf16"]), facts, matrix=_NoPrecisionTable()))
    assert not o.met
    assert o.finding.sources == ("cuda-programming-guide-wmma", "ptx-isa")
    ampere = dataclasses.replace(
        facts,
        driver=dataclasses.replace(
            facts.driver, gpus=tuple(dataclasses.replace(g, compute_capability="8.0") for g in facts.driver.gpus)
        ),
    )
    assert _only(evaluate(parse_requirements(["bf16"]), ampere, matrix=_NoPrecisionTable())).met
    assert not _only(evaluate(parse_requirements(["fp8"]), ampere, matrix=_NoPrecisionTable())).met


@pytest.mark.parametrize("matrix", [None, _NoPrecisionTable()], ids=["bundled-matrix", "no-precision-table"])
def test_bf16_with_a_compute_capability_that_is_not_a_version_is_unknown(rtx2070x2, matrix):
    # A snapshot may hold any text there: compared with the documented floor, it raised TypeError.
    facts = rtx2070x2.facts
    odd = dataclasses.replace(
        facts,
        driver=dataclasses.replace(
            facts.driver, gpus=tuple(dataclasses.replace(g, compute_capability="N/A") for g in facts.driver.gpus)
        ),
    )
    o = _only(evaluate(parse_requirements(["bf16"]), odd, matrix=matrix))
    assert not o.met
    assert o.found.endswith("compute capability unknown")


def test_bf16_from_the_matrix_cites_its_sources(rtx2070x2):
    o = _only(evaluate(parse_requirements(["bf16"]), rtx2070x2.facts))
    assert not o.met
    assert o.finding.sources  # the precision table's source keys


def test_compute_capability_unknown_is_unmet(rtx4090):
    o = _only(evaluate(parse_requirements(["cc>=5.0"]), rtx4090.facts, matrix=_NoPrecisionTable()))
    assert not o.met
    assert o.found == "GPU 0 (NVIDIA GeForce RTX 4090): compute capability unknown"


def test_mig_instances_in_cuda_visible_devices_count_every_gpu(rtx2070x2):
    facts = rtx2070x2.facts
    env = {**facts.platform.env, "CUDA_VISIBLE_DEVICES": "MIG-0a1b2c3d-0000-0000-0000-000000000000"}
    gpus = tuple(dataclasses.replace(g, mig_current=True, mig_devices=1) for g in facts.driver.gpus)
    patched = dataclasses.replace(
        facts, platform=dataclasses.replace(facts.platform, env=env), driver=dataclasses.replace(facts.driver, gpus=gpus)
    )
    o = _only(evaluate(parse_requirements(["gpus>=2"]), patched))
    assert o.met and "names MIG instances; all GPUs counted" in o.found
