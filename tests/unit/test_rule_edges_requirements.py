"""`--require` per-GPU specs hold only when EVERY visible GPU passes, on both sides of each bound.

Base: tests/cli/machines/rtx2070x2-cpu-builds.json (two RTX 2070s: compute capability 7.5, 8 GiB each). One
GPU is changed at a time, first and then second, so "any GPU passes" and "the first GPU passes" both fail
here. Compute capabilities: NVIDIA's CUDA GPUs list (https://developer.nvidia.com/cuda-gpus); BF16 needs 8.0.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks.requirements import evaluate, parse_requirements
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from tests.cli.conftest import machine

GIB = 1024**3


@pytest.fixture(scope="module")
def facts():
    return diagnose(ReplayHost(load_snapshot(machine("rtx2070x2-cpu-builds")))).facts


def with_gpu(facts, index, **changes):
    gpus = tuple(dataclasses.replace(g, **changes) if g.index == index else g for g in facts.driver.gpus)
    return dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, gpus=gpus))


def met(facts, spec) -> bool:
    (outcome,) = evaluate(parse_requirements([spec]), facts)
    assert (outcome.finding is None) == outcome.met
    return outcome.met


def test_the_base_machine(facts):
    assert [(g.index, g.compute_capability, g.memory_total_bytes) for g in facts.driver.gpus] == [
        (0, "7.5", 8 * GIB),
        (1, "7.5", 8 * GIB),
    ]


@pytest.mark.parametrize("changed", [0, 1])
@pytest.mark.parametrize(
    ("spec", "change"),
    [
        ("cc>=8.0", {"compute_capability": "8.6"}),
        ("gpu-memory>=16GiB", {"memory_total_bytes": 24 * GIB}),
        ("gpu-memory-free>=10GiB", {"memory_free_bytes": 20 * GIB}),
        ("bf16", {"compute_capability": "8.0"}),
    ],
)
def test_one_gpu_passing_is_not_enough(facts, spec, change, changed):
    assert not met(facts, spec)
    one = with_gpu(facts, changed, **change)
    assert not met(one, spec), f"{spec} met with only GPU {changed} passing"
    both = with_gpu(one, 1 - changed, **change)
    assert met(both, spec)


@pytest.mark.parametrize("changed", [0, 1])
def test_the_unmet_finding_names_every_gpu(facts, changed):
    (outcome,) = evaluate(parse_requirements(["cc>=8.0"]), with_gpu(facts, changed, compute_capability="8.6"))
    detail = outcome.finding.detail
    assert f"GPU {changed} (NVIDIA GeForce RTX 2070): compute capability 8.6" in detail
    assert f"GPU {1 - changed} (NVIDIA GeForce RTX 2070): compute capability 7.5" in detail


@pytest.mark.parametrize(
    ("spec", "holds"),
    [
        ("cc>=7.5", True),
        ("cc>7.5", False),
        ("cc<=7.5", True),
        ("cc<7.5", False),
        ("cc==7.5", True),
        ("gpu-memory>=8GiB", True),
        ("gpu-memory>8GiB", False),
        ("gpu-memory<=8GiB", True),
        ("gpu-memory<8GiB", False),
        ("gpu-memory==8GiB", True),
        ("gpu-memory!=8GiB", False),
        ("gpus>=2", True),
        ("gpus>2", False),
        ("gpus<=2", True),
        ("gpus==3", False),
    ],
)
def test_both_sides_of_each_bound(facts, spec, holds):
    assert met(facts, spec) is holds


def test_an_unknown_value_on_one_gpu_fails_the_requirement(facts):
    assert not met(with_gpu(facts, 1, memory_total_bytes=None), "gpu-memory>=1GiB")
    assert met(facts, "gpu-memory>=1GiB")


@pytest.mark.parametrize(("visible", "count"), [("0", 1), ("1", 1), ("0,1", 2), ("1,0,1", 2)])
def test_cuda_visible_devices_decides_which_gpus_count(facts, visible, count):
    env = {**facts.platform.env, "CUDA_VISIBLE_DEVICES": visible}
    chosen = dataclasses.replace(facts, platform=dataclasses.replace(facts.platform, env=env))
    assert met(chosen, f"gpus=={count}")
    # Only the visible GPU is judged: GPU 1 alone at 8.6 meets cc>=8.0 when it is the only one visible.
    upgraded = with_gpu(chosen, 1, compute_capability="8.6")
    assert met(upgraded, "cc>=8.0") is (visible == "1")


def test_driver_bounds(facts):
    version = facts.driver.version
    assert met(facts, f"driver>={version}") and not met(facts, f"driver>{version}")
    assert met(facts, f"driver<={version}") and not met(facts, f"driver<{version}")


def test_too_few_gpus_asks_the_scheduler_for_the_smallest_count_that_meets_it(facts):
    (outcome,) = evaluate(parse_requirements(["gpus>=3"]), facts)
    assert not outcome.met
    lines = outcome.finding.remediation.lines()
    assert lines[lines.index("srun --gres=gpu:3 '<command>'") - 1] == "# Slurm"
    assert "Slurm --gres=gpu:3" in outcome.finding.remediation.summary


def test_a_package_requirement_fails_closed_when_the_environment_cannot_be_read(facts):
    from gpudoctor.probed import Absent

    unreadable = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, python=Absent("permission")))
    (outcome,) = evaluate(parse_requirements(["torch>=1"]), unreadable)
    assert not outcome.met
    assert outcome.found == "unknown: the Python environment could not be read"
