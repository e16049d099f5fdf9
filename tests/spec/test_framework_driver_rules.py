"""docs/findings/framework-driver-too-old.md, "The version named as needed" and "When it stays silent", stated on the
recorded machine tests/machines/h100x8-driver565-torch221-cu121 (PyTorch 2.2.1+cu121) with the driver changed."""

from __future__ import annotations

import dataclasses

import pytest

from tests.spec.machine import facts_of, judged, replace
from tests.spec.registry import FIRES, QUIET, states

H100 = "h100x8-driver565-torch221-cu121"


def _driver(version: str, cuda: str, torch_cuda: str = "12.1"):
    facts = facts_of(H100)
    torch = facts.frameworks.torch
    facts = replace(
        facts, frameworks={"torch": dataclasses.replace(torch, value=dataclasses.replace(torch.value, cuda=torch_cuda))}
    )
    return replace(facts, driver={"smi_driver_version": version, "smi_cuda_version": cuda, "nvml_driver_version": None,
                                  "nvml_cuda_version": None})  # fmt: skip


@states("framework-driver-too-old", FIRES)
def test_the_version_named_as_needed_is_the_floor_of_the_major():
    """framework-driver-too-old.md: "the floor of that major, when the floor is known. For example, driver 510.47.03
    with a cu121 PyTorch gives "needs driver >= 525.60.13"" (not 530.30.02, CUDA 12.1's toolkit driver)."""
    facts = _driver("510.47.03", "11.6")
    assert facts.driver.version == "510.47.03"
    (f,) = judged(facts, "framework-driver-too-old")
    assert "driver >= 525.60.13" in f.detail and "530.30.02" not in f.detail


@pytest.mark.parametrize(("driver", "fires"), [("525.60.13", False), ("525.60.12", True), ("530.30.02", False)])
@states("framework-driver-too-old", FIRES, QUIET)
def test_a_cu121_pytorch_runs_from_the_cuda12_floor(driver, fires):
    """framework-driver-too-old.md: the driver runs that CUDA when "it is at least the minor-version-compatibility floor
    of the same major: ... CUDA 12, 525.60.13"."""
    assert len(judged(_driver(driver, "12.0"), "framework-driver-too-old")) == int(fires)


@states("framework-driver-too-old", QUIET)
def test_a_cuda_release_the_matrix_does_not_know_is_not_judged():
    """framework-driver-too-old.md: "When it stays silent: the matrix does not know the CUDA release." (a build for
    CUDA 19.0 on a CUDA 12.0 driver)"""
    assert judged(_driver("525.147.05", "12.0", torch_cuda="19.0"), "framework-driver-too-old") == []


@pytest.mark.parametrize(("driver_cuda", "fires"), [("11.0", True), ("11.8", False)])
@states("framework-driver-too-old", FIRES, QUIET)
def test_jax_needs_the_minimum_cuda_of_its_plugins_major(driver_cuda, fires):
    """framework-driver-too-old.md, "The CUDA each framework needs": "JAX: the minimum CUDA for its plugin's major in
    jax.toml, else N.0" - jaxlib 0.4.20+cuda11.cudnn86 needs CUDA >= 11.8 (jax.toml), which a driver known only as
    reporting CUDA 11.0 cannot run (11.0's first drivers are below CUDA 11's floor)."""
    from gpudoctor.facts import JaxFacts
    from gpudoctor.probed import Found

    facts = _driver("", driver_cuda)
    jax = JaxFacts("0.4.20", "0.4.20+cuda11.cudnn86", {}, "/site-packages/jax")
    facts = replace(facts, frameworks={"torch": facts.frameworks.tensorflow, "jax": Found(jax, "dist:jax")},
                    driver={"smi_driver_version": None})  # fmt: skip
    assert (facts.driver.version, facts.driver.cuda_version) == (None, driver_cuda)
    found = judged(facts, "framework-driver-too-old")
    assert len(found) == int(fires)
    if fires:
        assert found[0].title.startswith("JAX 0.4.20 (CUDA 11 plugin) needs CUDA 11.8")
