"""No GPU, no guess; the driver's CUDA version decides even without the driver's version; what a plan does to
the installed framework, named; the commands rendered by gpudoctor.cmdline for the target's shell.

Expectations are written by hand from compat_matrix/ (torch.toml, cuda_driver.toml, tensorflow.toml) and the
recorded machines; each test says which rows decide it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor import cmdline
from gpudoctor.cmdline import Cmd
from gpudoctor.errors import UsageError
from gpudoctor.install.environment import read_env
from gpudoctor.planner import pick_torch
from gpudoctor.planner.machine import machine_from_facts, target_gaps
from gpudoctor.planner.model import Target
from gpudoctor.planner.plan import TargetNeeded, change_of, plan_install
from gpudoctor.planner.render import render_plan
from tests.unit.test_install_plan import CTX, plan_for, probe

NO_GPU = "docker-started-without-gpus"  # torch 2.2.1+cu121 installed, Python 3.10.12, no driver, no device nodes


# --- no GPU, no guess ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("framework", ["torch", "tensorflow", "jax"])
def test_no_gpu_and_no_driver_refuses_to_choose_a_cuda_build(framework):
    with pytest.raises(TargetNeeded) as err:
        plan_for(NO_GPU, framework)
    assert err.value.gaps == ("no NVIDIA GPU", "no NVIDIA driver")
    assert err.value.exit_code == 2  # a usage error (docs/exit-codes.md)
    for option in ("--gpu NAME|CC", "--driver VERSION", "--cuda VERSION", "--cpu"):
        assert option in err.value.hint
    assert [o["option"] for o in err.value.to_json()["options"]] == [
        "--gpu NAME|CC",
        "--driver VERSION",
        "--cuda VERSION",
        "--cpu",
    ]


def test_a_gpu_or_a_driver_is_enough_and_a_gpu_of_unknown_capability_is_not():
    host, facts = probe("p100-driver510-torch-cu121")
    machine = replace(machine_from_facts(facts, CTX), driver=None, driver_cuda=None)
    # The P100 (6.0) without its driver: the builds with sm_60 kernels narrow the choice (see the tests below).
    assert target_gaps(machine) == ()
    # A GPU whose compute capability is unknown narrows nothing: without the driver every build is a guess.
    blind = replace(machine, gpus=tuple(replace(g, cc=None) for g in machine.gpus))
    assert target_gaps(blind) == ("no NVIDIA driver",)
    # A driver without a GPU list (a GKE pod's pasted collect_env: driver 470, CUDA 11.4) chooses by the driver.
    assert target_gaps(replace(machine_from_facts(facts, CTX), gpus=())) == ()


def test_told_the_driver_cuda_it_never_offers_a_build_that_driver_cannot_run():
    # --cuda 12.1: every CUDA 13 variant needs >= 580.65.06 (the CUDA 13 floor), a newer major: ruled out.
    # PyTorch 2.14 (Python >=3.10) has cu126: CUDA 12 minor-version compatibility, full support from 560.28.03.
    plan = plan_for(NO_GPU, "torch", target=Target(cuda="12.1"))
    assert (plan.chosen.build.release, plan.chosen.build.variant) == ("2.14", "cu126")
    (drv,) = [j for j in plan.chosen.judgements if j.topic == "driver"]
    assert drv.ok and drv.note and drv.needs == "560.28.03"
    assert all(not c.build.cuda.startswith("13") or c.failures() for c in plan.ruled_out)
    assert plan.machine.told == ("--cuda 12.1",) and "as told: --cuda 12.1" in plan.machine.describe()


def test_the_driver_cuda_decides_even_without_the_driver_version():
    # p100: driver 510.47.03, whose CUDA is 11.6 (NVML and nvidia-smi say so). With only that CUDA version,
    # the choice is the one the driver version gives: 2.7 cu118, by CUDA 11 minor-version compatibility.
    host, facts = probe("p100-driver510-torch-cu121")
    driver = replace(facts.driver, nvml_driver_version=None, smi_driver_version=None)
    facts = replace(facts, driver=driver)
    machine = machine_from_facts(facts, CTX)
    assert (machine.driver, machine.driver_cuda) == (None, "11.6")
    plan = plan_install(facts, CTX, "torch", env=read_env(host, facts))
    assert (plan.chosen.build.release, plan.chosen.build.variant) == ("2.7", "cu118")
    (drv,) = [j for j in plan.chosen.judgements if j.topic == "driver"]
    assert drv.note and drv.text.startswith(
        "the driver runs CUDA up to 11.6; CUDA 11.8 runs only through CUDA 11 minor-version compatibility"
    )
    # A CUDA 12 build needs the CUDA 12 floor, 525.60.13 (cuda_driver.toml), as with the driver version known.
    cu12 = [c for c in plan.ruled_out if c.build.cuda.startswith("12.")]
    assert cu12 and all(j.needs == "525.60.13" for c in cu12 for j in c.failures() if j.topic == "driver")


def test_told_the_driver_version():
    # 535.104.05 is CUDA 12.2's toolkit driver (cuda_driver.toml): up to 12.2 fully.
    plan = plan_for(NO_GPU, "torch", target=Target(driver="535.104.05", gpu="8.9"))
    assert plan.machine.driver_cuda == "12.2"
    assert [g.cc for g in plan.machine.gpus] == ["8.9"]
    assert "driver 535.104.05" in plan.machine.describe()


@pytest.mark.parametrize(
    "gpu, cc", [("RTX 4090", "8.9"), ("GeForce RTX 4090", "8.9"), ("A100", "8.0"), ("8.6", "8.6"), ("sm_120", "12.0")]
)
def test_the_gpu_by_name_or_compute_capability(gpu, cc):
    plan = plan_for(NO_GPU, "torch", target=Target(gpu=gpu, cuda="12.8"))
    assert [g.cc for g in plan.machine.gpus] == [cc]


def test_a_gpu_without_a_driver_names_the_driver_the_build_needs():
    # No driver told: the build is not checked against one, but its CUDA's floor is said (CUDA 13: 580.65.06).
    plan = plan_for(NO_GPU, "torch", target=Target(gpu="8.9"))
    (drv,) = [j for j in plan.chosen.judgements if j.topic == "driver"]
    assert drv.note and "needs a driver >=" in drv.text


@pytest.mark.parametrize(
    "target", [Target(gpu="no such gpu"), Target(driver="five"), Target(cuda="twelve"), Target(driver="535.104.05", cuda="12.8")]
)
def test_a_target_that_is_not_one_is_a_usage_error(target):
    with pytest.raises(UsageError):
        plan_for(NO_GPU, "torch", target=target)


def test_a_cpu_build_when_asked():
    plan = plan_for(NO_GPU, "torch", target=Target(cpu=True))
    build = plan.chosen.build
    assert build.variant == "cpu" and build.cuda is None
    assert build.index_url == f"{pick_torch.INDEX}/cpu" and build.specs == (f"torch=={build.release}.*",)
    assert [j.topic for j in plan.chosen.judgements] == ["python"]
    assert "a CPU-only build: the framework will not use a GPU" in plan.notes
    jax = plan_for(NO_GPU, "jax", target=Target(cpu=True))
    assert jax.chosen.build.specs[0].startswith("jax>=") and "[" not in jax.chosen.build.specs[0]
    tf = plan_for(NO_GPU, "tensorflow", target=Target(cpu=True))
    assert tf.chosen.build.specs == (f"tensorflow=={tf.chosen.build.release}.*",)


# --- upgrades, downgrades, major moves: named ----------------------------------------------------------------


def test_an_older_release_is_a_downgrade():
    plan = plan_for("p100-driver510-torch-cu121", "torch", "2.1")
    assert plan.change.kind == "downgrade"
    assert plan.change.text == "downgrade torch 2.2.1+cu121 -> 2.1.* (cu118)"
    assert "change: downgrade torch 2.2.1+cu121 -> 2.1.* (cu118)" in render_plan(plan)


def test_a_newer_release_is_an_upgrade():
    plan = plan_for("p100-driver510-torch-cu121", "torch")
    assert plan.change.text == "upgrade torch 2.2.1+cu121 -> 2.7.* (cu118)" and plan.change.major == ()


def test_the_same_version_again_is_a_reinstall_and_another_patch_is_not():
    plan = plan_for("p100-driver510-torch-cu121", "torch", "2.2.1")  # 2.2.1+cu118: the same version, another build
    assert (plan.change.kind, plan.change.text) == ("reinstall", "reinstall torch 2.2.1+cu121 (same version) as 2.2.1+cu118")
    other = plan_for("p100-driver510-torch-cu121", "torch", "2.2.2")
    assert other.change.kind == "upgrade" and other.change.text == "upgrade torch 2.2.1+cu121 -> 2.2.2+cu118"
    # The release asked, its installed patch kept: pip would keep 2.2.1+cu121 for torch==2.2.*, so the plan pins
    # the installed version with the new build's tag (issue 27, kind 10: a build switch that really replaces).
    same_release = plan_for("p100-driver510-torch-cu121", "torch", "2.2")
    assert same_release.change.kind == "reinstall" and same_release.steps[0].argv[4] == "torch==2.2.1+cu118"


def test_tensorflow_across_216_is_called_out_as_keras_3():
    plan = plan_for("rtx3060-tf211-cuda12-only", "tensorflow", "2.17")
    assert plan.change.text == "upgrade tensorflow 2.11.0 -> 2.17.* (and-cuda)"
    assert len(plan.change.major) == 1 and "Keras 3" in plan.change.major[0]
    text = render_plan(plan)
    assert "a major move: from TensorFlow 2.16 tf.keras is Keras 3" in text
    below = plan_for("rtx3060-tf211-cuda12-only", "tensorflow", "2.15")
    assert below.change.kind == "upgrade" and below.change.major == ()


def test_torch_1_to_2_is_a_major_version():
    plan = plan_for("p100-driver510-torch-cu121", "torch")
    machine = replace(plan.machine, installed={"torch": "1.13.1+cu117"})
    change = change_of("torch", machine, plan.chosen.build)
    assert change.kind == "upgrade" and change.major == ("a major version: PyTorch 1.x -> 2.x",)
    back = change_of(
        "tensorflow",
        replace(machine, installed={"tensorflow": "2.17.0"}),
        plan_for("rtx3060-tf211-cuda12-only", "tensorflow", "2.15").chosen.build,
    )
    assert back.kind == "downgrade" and "Keras 2" in back.major[0]


def test_a_first_install_is_called_an_install():
    plan = plan_for("rtx3090-driver525-conda-py310", "torch")
    assert plan.change.kind == "install" and plan.change.before is None and plan.change.text.startswith("install torch ")


# --- commands through gpudoctor.cmdline -------------------------------------------------------------------------


def test_steps_and_undo_render_through_the_quoting_layer():
    plan = plan_for("p100-driver510-torch-cu121", "torch")
    text = render_plan(plan)
    for step in plan.steps:
        line = cmdline.render(Cmd(step.argv))
        assert f"  {line}\n" in text
    (undo,) = plan.undo
    assert isinstance(undo, Cmd)
    assert undo.words == (
        "/usr/bin/python3",
        "-m",
        "pip",
        "install",
        "torch==2.2.1+cu121",
        "--index-url",
        f"{pick_torch.INDEX}/cu121",
    )
    assert f"  {cmdline.render(undo)}\n" in text
    assert plan.to_json()["undo"] == [undo.to_json()]


def test_the_undo_line_uses_the_mirror_given():
    plan = plan_for("p100-driver510-torch-cu121", "torch", index_url="https://mirror.invalid/whl/{variant}")
    assert plan.undo[0].words[-2:] == ("--index-url", "https://mirror.invalid/whl/cu121")
    flat = plan_for("p100-driver510-torch-cu121", "torch", index_url="https://mirror.invalid/simple")
    assert flat.undo[0].words[-2:] == ("--index-url", "https://mirror.invalid/simple")


def test_a_windows_target_gets_powershell():
    plan = plan_for("windows-rtx3080-tensorflow215", "torch")
    text = render_plan(plan)
    assert plan.steps and "$ " not in text.split("the plan", 1)[1] and "PS> " not in text
    for step in plan.steps:
        rendered = cmdline.render(Cmd(step.argv), "powershell")
        assert f"  {rendered}\n" in text
    assert f"'torch=={plan.chosen.build.release}.*'" in text  # single quotes: PowerShell's literal string


def test_by_cuda_version_minor_compatibility_needs_every_such_driver_above_the_floor():
    # CUDA 11.0's toolkit driver 450.36.06 is below CUDA 11's minor-version floor 450.80.02 (cuda_driver.toml):
    # a driver reporting 11.0 may not run cu118. nvidia-smi's 12.7 (R565) is no toolkit release: 12.6's
    # driver 560.28.03 bounds it, above the CUDA 12 floor, so cu128 runs by compatibility.
    old = plan_for(NO_GPU, "torch", target=Target(cuda="11.0", gpu="7.0"))
    assert not old.chosen.build.cuda.startswith("11.8")
    cu118 = [c for c in old.ruled_out if c.build.variant == "cu118"]
    assert cu118 and all(j.needs == "450.80.02" for c in cu118 for j in c.failures() if j.topic == "driver")
    new = plan_for(NO_GPU, "torch", "2.11", target=Target(cuda="12.7", gpu="12.0"))
    (drv,) = [j for j in new.chosen.judgements if j.topic == "driver"]
    assert new.chosen.build.variant == "cu128" and drv.ok and drv.note and "minor-version compatibility" in drv.text
