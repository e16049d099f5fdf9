"""Tests written for mutants that survived the suite (tools/mutate.py; docs/testing.md, "Mutation testing").

Each names the rule it pins down; facts as in the other rule-edge tests (sources there and in the matrix).
"""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpudoctor.checks import Context, run_checks
from gpudoctor.checks.requirements import evaluate, parse_requirements
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.matrix import load_matrix
from gpudoctor.planner.judge import judge_driver
from gpudoctor.planner.machine import machine_from_facts
from gpudoctor.render.junit import render_junit

MACHINES = Path(__file__).resolve().parents[1] / "machines"


def report_of(slug):
    return diagnose(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))))


def with_driver(facts, version, cuda):
    return dataclasses.replace(
        facts,
        driver=dataclasses.replace(
            facts.driver,
            nvml_driver_version=None,
            nvml_cuda_version=None,
            smi_driver_version=version,
            smi_cuda_version=cuda,
        ),
    )


def test_a_minors_release_is_its_first_ga_row_not_a_release_candidate():
    """CUDA 11.0 is listed with its RC (11.0.1, driver 450.36.06) ahead of GA 11.0.2 (450.51.05): release notes."""
    row = load_matrix().cuda_release("11.0")
    assert (row.release, row.prerelease, row.driver("linux")) == ("11.0.2", False, "450.51.05")


def test_jax_with_a_cuda12_plugin_on_a_cuda11_driver_is_too_old():
    """JAX's CUDA 12 plugin needs a CUDA 12 driver: 510.47.03 runs CUDA up to 11.6."""
    facts = with_driver(report_of("rtx4090-jax-plugin-mismatch").facts, "510.47.03", "11.6")
    found, _ = run_checks(facts)
    titles = [f.title for f in found if f.code == "framework-driver-too-old"]
    assert any(
        t.startswith("JAX 0.4.38 (CUDA 12 plugin) needs CUDA 12.") and t.endswith("which driver 510.47.03 cannot run")
        for t in titles
    ), titles


@pytest.mark.parametrize(
    ("driver", "cuda", "ok", "full"),
    [
        ("530.30.02", "12.1", True, True),  # the toolkit driver of 12.1
        ("525.60.13", "12.1", True, False),  # minor-version compatibility only
        ("510.47.03", "12.1", False, False),  # too old
    ],
)
def test_judge_driver_says_whether_support_is_full(driver, cuda, ok, full):
    report = report_of("p100-driver510-torch-cu121")
    machine = dataclasses.replace(machine_from_facts(report.facts, Context()), driver=driver)
    judgement, is_full = judge_driver(load_matrix(), machine, cuda)
    assert (judgement.ok, is_full) == (ok, full)


def test_an_unmet_package_requirement_installs_what_the_spec_asks():
    report = report_of("rtx4090-jax-cpu-only")
    (outcome,) = evaluate(parse_requirements(["jaxlib>=99"]), report.facts, report.findings)
    assert not outcome.met
    assert any("'jaxlib>=99'" in line or "jaxlib>=99" in line for line in outcome.finding.remediation.lines())


def test_junit_hostname_is_one_line():
    report = report_of("p100-driver510-torch-cu121")
    doc = ET.fromstring(render_junit(report, node="node-7\nevil"))
    hostname = doc.find("testsuite").get("hostname")
    assert "\n" not in hostname and hostname.startswith("node-7")


# --- the shared fix pieces (planner/remedy.py) ---------------------------------------------------------------


@pytest.mark.parametrize(("cc", "fits"), [("7.5", True), ("7.0", False), ("8.6", True), ("6.1", False)])
def test_open_kernel_modules_need_turing_or_newer(cc, fits):
    """NVIDIA's open GPU kernel modules support Turing (7.5) and newer only: https://github.com/NVIDIA/open-gpu-kernel-modules"""
    from gpudoctor.planner.remedy import open_modules_fit

    facts = report_of("h100x8-driver565-torch221-cu121").facts
    gpus = tuple(dataclasses.replace(g, compute_capability=cc) for g in facts.driver.gpus)
    assert open_modules_fit(dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, gpus=gpus))) is fits


def test_without_a_compute_capability_the_loaded_modules_flavor_decides():
    from gpudoctor.planner.remedy import _loaded_flavor, open_modules_fit

    facts = report_of("h100x8-driver565-torch221-cu121").facts
    gpus = tuple(dataclasses.replace(g, compute_capability=None, name=None) for g in facts.driver.gpus)
    facts = dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, gpus=gpus))
    proc = facts.kernel.proc_driver
    for flavor, fits in (("open", True), ("proprietary", None)):
        changed = dataclasses.replace(proc, value=dataclasses.replace(proc.value, flavor=flavor))
        with_flavor = dataclasses.replace(facts, kernel=dataclasses.replace(facts.kernel, proc_driver=changed))
        assert _loaded_flavor(with_flavor) == flavor
        assert open_modules_fit(with_flavor) is fits


def test_module_reload_and_reboot_run_as_root():
    from gpudoctor.cmdline import render_all
    from gpudoctor.planner.remedy import reboot, reload_modules

    assert render_all(reload_modules(), "posix") == [
        "# or, without a reboot: stop GPU jobs and the display manager first",
        "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia",
        "sudo modprobe nvidia",
    ]
    assert render_all(reboot(), "posix") == ["sudo reboot"]


def test_junit_counts_errors():
    report = report_of("p100-driver510-torch-cu121")
    suite = ET.fromstring(render_junit(report)).find("testsuite")
    assert {k: suite.get(k) for k in ("failures", "errors", "skipped")} == {"failures": "1", "errors": "0", "skipped": "0"}


def test_a_pre_release_torch_too_new_for_the_driver_is_told_to_upgrade_the_driver():
    """2.2.0a0+81ea7a4 is a source or NGC build: no build from the index replaces it."""
    facts = report_of("p100-driver510-torch-cu121").facts
    torch = facts.frameworks.torch
    nightly = dataclasses.replace(torch, value=dataclasses.replace(torch.value, version="2.2.0a0+81ea7a4"))
    facts = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, torch=nightly))
    found, _ = run_checks(facts)
    (f,) = [f for f in found if f.code == "framework-driver-too-old"]
    assert "PyTorch 2.2.0a0+81ea7a4 is a pre-release, built from source or shipped in a container image" in f.remediation.summary


def test_a_pending_mig_mode_is_reset_as_root():
    facts = report_of("h100-mig-four-instances").facts
    gpus = tuple(dataclasses.replace(g, mig_current=False, mig_pending=True) for g in facts.driver.gpus)
    found, _ = run_checks(dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, gpus=gpus)))
    (f,) = [f for f in found if f.code == "mig-enabled"]
    assert f.title == "MIG mode on GPU 0 is pending a GPU reset"
    assert f.remediation.lines() == ["# no process may use this GPU", "sudo nvidia-smi --gpu-reset -i 0"]


# --- the framework step's words ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "word"),
    [("2.2.1+cu121", "2.3.0", "upgrade"), ("2.3.0", "2.2.1", "downgrade"), ("2.2.1+cu121", "2.2.0", "reinstall")],
)
def test_the_move_is_named_by_major_minor(before, after, word):
    from gpudoctor.checks.frameworks import _move_word

    assert _move_word(before, after) == word


@pytest.mark.parametrize(
    ("installed", "release", "note"),
    [
        ("2.15.1", "2.16.1", "Major move: Keras 3"),
        ("2.16.1", "2.15.1", "Back to Keras 2"),
        ("2.16.1", "2.16.2", ""),  # both on Keras 3: nothing to say
        ("2.15.0", "2.15.1", ""),
    ],
)
def test_the_keras_note_is_said_only_across_2_16(installed, release, note):
    """TensorFlow 2.16 made Keras 3 the default: https://github.com/tensorflow/tensorflow/releases/tag/v2.16.1"""
    from types import SimpleNamespace

    from gpudoctor.checks.frameworks import _keras_note

    plan = SimpleNamespace(fits=True, change=None, chosen=SimpleNamespace(build=SimpleNamespace(release=release)))
    said = _keras_note("tensorflow", installed, plan)
    assert (note in said) if note else said == ""
    assert _keras_note("torch", installed, plan) == ""


def test_a_cudnn_mismatch_cites_the_frameworks_sources():
    report = report_of("rtx4090-torch-cu121-with-cudnn-cu11-wheel")
    (f,) = [f for f in report.findings if f.code == "cudnn-cuda-mismatch"]
    assert f.sources == ("pytorch-release-md", "pypi-torch-wheels")


def test_with_no_driver_seen_the_build_says_the_lowest_driver_and_the_full_one():
    report = report_of("p100-driver510-torch-cu121")
    machine = dataclasses.replace(machine_from_facts(report.facts, Context()), driver=None, driver_cuda=None)
    judgement, full = judge_driver(load_matrix(), machine, "12.1")
    assert full is None
    assert "it needs a driver >= 525.60.13 (>= 530.30.02 for full support)" in judgement.text
    judgement, _ = judge_driver(load_matrix(), machine, "13.0")  # 13.0's toolkit driver is its floor: said once
    assert "it needs a driver >= 580.65.06" in judgement.text and "for full support" not in judgement.text


def test_removing_wsls_linux_driver_is_roots():
    (f,) = [f for f in report_of("wsl2-linux-driver-installed").findings if f.code == "wsl-linux-driver-installed"]
    assert f.remediation.requires_root


def test_a_container_without_the_gpu_cites_how_the_container_was_recognised():
    report = report_of("docker-started-without-gpus")
    (f,) = [f for f in report.findings if f.code == "container-no-gpu"]
    evidence = report.facts.platform.container_evidence
    assert evidence and evidence != report.facts.platform.container
    assert ("platform", evidence) in {(e.source, e.value) for e in f.evidence}


def test_an_unknown_distribution_gets_no_driver_command_even_for_a_gpu_the_open_modules_fit():
    from gpudoctor.facts import Distro
    from gpudoctor.planner.remedy import driver_install, open_modules_fit
    from tests.unit.test_checks_prescriptions import CTX, facts_of, with_platform

    facts = with_platform(facts_of("h100x8-driver565-torch221-cu121"), distro=Distro(id="gentoo"))
    assert open_modules_fit(facts, CTX) is True
    assert driver_install(facts, "550", CTX) == ()


@pytest.mark.parametrize(
    ("distribution", "cuda_build"), [("tensorflow-cpu", None), ("tensorflow-cpu", True), ("tensorflow", False)]
)
def test_tensorflow_gpu_is_unmet_by_a_cpu_build_either_way_it_is_known(distribution, cuda_build):
    """The tensorflow-cpu distribution is CPU-only whatever its build info says; so is a build that says so."""
    report = report_of("rtx3060-tf211-on-cuda118-cudnn86")
    tf = report.facts.frameworks.tensorflow
    changed = dataclasses.replace(tf, value=dataclasses.replace(tf.value, distribution=distribution, is_cuda_build=cuda_build))
    facts = dataclasses.replace(report.facts, frameworks=dataclasses.replace(report.facts.frameworks, tensorflow=changed))
    (outcome,) = evaluate(parse_requirements(["tensorflow:gpu"]), facts, report.findings)
    assert not outcome.met
    assert outcome.found == f"{distribution} 2.11.0 is a CPU-only build"


@pytest.mark.parametrize("spec", ["", "   "])
def test_an_empty_specifier_is_refused(spec):
    from gpudoctor.matrix import parse_spec

    with pytest.raises(ValueError, match="empty specifier"):
        parse_spec(spec)
