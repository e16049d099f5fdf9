"""`gpudoctor fix` with no GPU and no driver seen: it does not choose a CUDA build unless told the target
(issue 12: "no GPU, no guess"); told one (--gpu/--driver/--cuda/--cpu), it plans for it."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.checks import Context
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.install import fix as fx
from gpudoctor.install.environment import read_env
from gpudoctor.planner.model import Target
from tests.hostile.test_corpus import run_cli

MACHINE = Path(__file__).resolve().parents[1] / "machines" / "docker-started-without-gpus" / "snapshot.json"


def _reinstall(target: Target | None = None):
    host = ReplayHost(load_snapshot(str(MACHINE)))
    facts = diagnose(host).facts
    assert facts.driver.version is None and not facts.driver.gpus  # the premise: nothing seen
    return fx._reinstall(facts, Context(), read_env(host, facts), "torch", ("framework-driver-too-old",), target=target)


def test_without_a_target_the_reinstall_is_refused_with_the_options():
    fix = _reinstall()
    assert fix.payload is None
    assert "without guessing" in fix.blocked
    assert all(o in fix.manual[0] for o in ("--gpu", "--driver", "--cuda", "--cpu"))


def test_a_driver_named_decides_the_build():
    # R470 runs CUDA 11.4: the installed 2.2.1+cu121 does not run; its cu118 build does (minor-version compatibility).
    fix = _reinstall(Target(driver="470.182.03"))
    assert not fix.blocked, fix.blocked
    assert fix.payload.chosen.build.label == "PyTorch 2.2 (cu118)"  # the installed release, pinned to 2.2.*


def test_cpu_named_gives_a_cpu_build():
    fix = _reinstall(Target(cpu=True))
    assert not fix.blocked, fix.blocked
    assert fix.payload.chosen.build.cuda is None


def test_the_cli_takes_the_target_options_and_rejects_a_wrong_one():
    code, out, err = run_cli("fix", "--replay", str(MACHINE), "--gpu", "RTX 9999")
    assert code == 2 and "--gpu RTX 9999: not a compute capability" in err and "Traceback" not in err
    # Accepted: the container's one finding (no GPU passed in) has no automatic fix, which it says.
    code, out, err = run_cli("fix", "--replay", str(MACHINE), "--driver", "550.54.14")
    assert code == 1 and "none has a safe automatic fix" in out, err
    code, helped, _ = run_cli("fix", "--help")
    assert all(o in helped for o in ("--gpu", "--driver", "--cuda", "--cpu"))


def _plan_text(slug: str) -> str:
    code, out, err = run_cli("check", "--replay", str(MACHINE.parent.parent / slug / "snapshot.json"))
    assert code in (0, 1), err
    return out.split("Plan", 1)[1]


def test_the_plan_says_fix_applies_only_where_fix_would_do_the_step():
    # The plan installs CUDA 11 libraries and cuDNN from NVIDIA's repository: fix does not run apt, so no label
    # (it used to offer a TensorFlow 2.21 reinstall here, a different fix from the one printed).
    assert "gpudoctor fix can apply this" not in _plan_text("rtx3060-tf211-cuda12-only")
    code, out, _ = run_cli("fix", "--replay", str(MACHINE.parent.parent / "rtx3060-tf211-cuda12-only" / "snapshot.json"))
    assert "none has a safe automatic fix" in out
    # A PyTorch build the driver cannot run: the plan's step is the reinstall fix performs.
    assert "1. PyTorch (gpudoctor fix can apply this)" in _plan_text("p100-driver510-torch-cu121")
