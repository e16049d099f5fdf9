"""A finding's alternative fix ("or instead") as data, in the plan, the terminal, JSON and the lint;
toolkit-torch-major-mismatch's two sides; and PyTorch wheels that carry their own cuDNN.

Expectations are written by hand from what a person would paste (the quoting layer's rules:
docs/shell-quoting or gpudoctor.cmdline), not read back from the code under test.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from gpudoctor.checks import Context
from gpudoctor.checks.cudnn import needs, torch_carries_cudnn
from gpudoctor.checks.toolkit import torch_major_remediation, torch_side
from gpudoctor.cmdline import Cmd, EvalShell
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner import prescribe
from gpudoctor.probes import run_probes
from gpudoctor.render.terminal import render_plan
from gpudoctor.render.textconsole import TextConsole
from tests.conftest import replay_host

ROOT = Path(__file__).resolve().parents[2]
CTX = Context()

PY = Cmd(
    (
        "/opt/my env/bin/python",
        "-m",
        "pip",
        "install",
        "torch==2.1.2+cu121",
        "--index-url",
        "https://download.pytorch.org/whl/cu121",
    )
)
SWITCH = Cmd(("gpudoctor", "switch-cuda", "11.8"), root=True, note="re-points /usr/local/cuda for everyone")
EVAL = EvalShell(("gpudoctor", "switch-cuda", "11.8"), note="this shell")


def mismatch(first: Remediation) -> Finding:
    return Finding("toolkit-torch-major-mismatch", Severity.WARNING, "toolkit", "t", "d", remediation=first)


TOOLKIT_FIRST = Remediation(
    "Build extensions with a CUDA 11.x toolkit.",
    (SWITCH, EVAL),
    requires_root=True,
    component="toolkit",
    alternative=Remediation("Move PyTorch to nvcc's CUDA major (12.2).", (PY,), component="torch"),
)


# --- the alternative as data -------------------------------------------------------------------


def test_an_alternative_is_printed_after_the_step_and_labelled_in_posix():
    plan = prescribe.build([mismatch(TOOLKIT_FIRST)])
    (step,) = plan.steps
    assert step.component == "toolkit"
    assert step.lines() == [
        "# re-points /usr/local/cuda for everyone",
        "sudo gpudoctor switch-cuda 11.8",
        "# this shell",
        'eval "$(gpudoctor switch-cuda 11.8 --shell)"',
    ]  # the alternative's pip line is not among the commands to run
    assert step.printed() == [
        "Build extensions with a CUDA 11.x toolkit.",
        "# re-points /usr/local/cuda for everyone",
        "sudo gpudoctor switch-cuda 11.8",
        "# this shell",
        'eval "$(gpudoctor switch-cuda 11.8 --shell)"',
        "or instead (PyTorch, for toolkit-torch-major-mismatch): Move PyTorch to nvcc's CUDA major (12.2).",
        "'/opt/my env/bin/python' -m pip install torch==2.1.2+cu121 --index-url https://download.pytorch.org/whl/cu121",
    ]
    assert plan.problems == ()


def test_an_alternative_is_rendered_for_powershell_too():
    plan = prescribe.build([mismatch(TOOLKIT_FIRST)], "powershell")
    assert plan.steps[0].printed(plan.target) == [
        "Build extensions with a CUDA 11.x toolkit.",
        "# as Administrator, re-points /usr/local/cuda for everyone",
        "gpudoctor switch-cuda 11.8",
        "# this shell",
        "gpudoctor switch-cuda 11.8 --shell powershell | Invoke-Expression",
        "or instead (PyTorch, for toolkit-torch-major-mismatch): Move PyTorch to nvcc's CUDA major (12.2).",
        "& '/opt/my env/bin/python' -m pip install torch==2.1.2+cu121 --index-url https://download.pytorch.org/whl/cu121",
    ]


def test_the_terminal_plan_shows_the_alternative_under_its_step_without_a_number():
    out = io.StringIO()
    render_plan(TextConsole(out, width=200, styled=False), prescribe.build([mismatch(TOOLKIT_FIRST)]))
    lines = out.getvalue().splitlines()
    assert lines[0] == "Plan: in this order"
    assert lines[1].startswith("  1. CUDA toolkit")
    assert lines[-2] == "     or instead (PyTorch, for toolkit-torch-major-mismatch): Move PyTorch to nvcc's CUDA major (12.2)."
    assert (
        lines[-1]
        == "       '/opt/my env/bin/python' -m pip install torch==2.1.2+cu121 --index-url https://download.pytorch.org/whl/cu121"
    )
    assert not any(line.startswith("  2.") for line in lines)


def test_json_carries_the_alternative_on_the_remediation_and_the_step():
    doc = json.loads(json.dumps(mismatch(TOOLKIT_FIRST).to_json()))
    alt = doc["remediation"]["alternative"]
    assert alt == {
        "summary": "Move PyTorch to nvcc's CUDA major (12.2).",
        "commands": [
            "'/opt/my env/bin/python' -m pip install torch==2.1.2+cu121 --index-url https://download.pytorch.org/whl/cu121"
        ],
        "argv": [
            {
                "argv": [
                    "/opt/my env/bin/python",
                    "-m",
                    "pip",
                    "install",
                    "torch==2.1.2+cu121",
                    "--index-url",
                    "https://download.pytorch.org/whl/cu121",
                ],
                "root": False,
            }
        ],
        "requires_root": False,
        "component": "torch",
        "where": None,
        "alternative": None,
    }
    step = json.loads(json.dumps(prescribe.build([mismatch(TOOLKIT_FIRST)]).to_json()))["steps"][0]
    assert step["alternatives"] == [
        {
            "code": "toolkit-torch-major-mismatch",
            "component": "torch",
            "title": "PyTorch",
            "summary": "Move PyTorch to nvcc's CUDA major (12.2).",
            "requires_root": False,
            "where": "this machine",
            "commands": alt["argv"],
            "lines": alt["commands"],
        }
    ]
    assert len(step["commands"]) == 2  # the switch and the eval, not the pip line
    # No alternative: null on the remediation, an empty list on the step.
    plain = Finding("x", Severity.INFO, "toolkit", "t", "d", remediation=Remediation("s", (SWITCH,), component="toolkit"))
    assert plain.to_json()["remediation"]["alternative"] is None
    assert prescribe.build([plain]).to_json()["steps"][0]["alternatives"] == []


def test_an_alternative_has_no_alternative_of_its_own():
    with pytest.raises(ValueError):
        Remediation("a", alternative=TOOLKIT_FIRST)


# --- the lint --------------------------------------------------------------------------------------


def test_the_lint_does_not_hold_an_alternatives_switch_against_the_steps():
    # The plan switches to 12.5 (another toolkit finding); the mismatch's alternative would switch to 11.8.
    paths = Finding(
        "cuda-paths-disagree",
        Severity.WARNING,
        "toolkit",
        "t",
        "d",
        remediation=Remediation(
            "Make them name one toolkit.", (Cmd(("gpudoctor", "switch-cuda", "12.5"), root=True),), component="toolkit"
        ),
    )
    torch_first = Remediation(
        "Move PyTorch.",
        (PY,),
        component="torch",
        alternative=Remediation("Or the toolkit.", (SWITCH, EVAL), requires_root=True, component="toolkit"),
    )
    plan = prescribe.build([paths, mismatch(torch_first)])
    assert plan.problems == ()
    # Two switches as steps do contradict each other.
    both = prescribe.build([paths, mismatch(replace(TOOLKIT_FIRST, alternative=None))])
    assert both.problems == ("the plan switches to different CUDA toolkits: 11.8, 12.5",)


def test_the_lint_checks_an_alternative_on_its_own():
    broken = Remediation(
        "Drop cuDNN.", (Cmd(("python3", "-m", "pip", "uninstall", "-y", "nvidia-cudnn-cu12")),), component="cudnn"
    )
    plan = prescribe.build([mismatch(replace(TOOLKIT_FIRST, alternative=broken))])
    assert plan.problems == (
        "the alternative for toolkit-torch-major-mismatch: the cuDNN step removes nvidia-cudnn-cu12 and installs nothing in its place",
    )


def test_an_alternative_stands_in_where_the_first_choice_contradicts_the_plan():
    other = Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        "t",
        "d",
        remediation=Remediation(
            "Reinstall.", (Cmd(("python3", "-m", "pip", "install", "torch==2.2.1+cu121")),), component="torch"
        ),
    )
    first = Remediation(
        "Move PyTorch.",
        (Cmd(("python3", "-m", "pip", "install", "torch==2.2.1+cu118")),),
        component="torch",
        alternative=Remediation("Use CUDA 12.1.", (SWITCH,), requires_root=True, component="toolkit"),
    )
    plan = prescribe.build([other, mismatch(first)])
    assert plan.problems == ()
    assert [s.component for s in plan.steps] == ["toolkit", "torch"]
    assert plan.steps[0].summaries == ("Use CUDA 12.1.",)
    # "Move PyTorch" (torch 2.2.1+cu118) is not offered instead: the torch step installs 2.2.1+cu121 and would undo it
    # (issue 27, kind 2).
    assert plan.steps[0].alternatives == ()
    assert plan.steps[1].lines() == ["python3 -m pip install torch==2.2.1+cu121"]


# --- toolkit-torch-major-mismatch: the two sides ----------------------------------------------------


def real_facts(slug: str, edit=None):
    snap = json.loads((ROOT / "tests" / "real" / slug / "snapshot.json").read_text(encoding="utf-8"))
    if edit:
        edit(snap)
    return run_probes(replay_host(snap))


def test_the_same_release_is_kept_when_it_has_a_build_of_nvccs_major():
    side = torch_side(real_facts("pytorch-sparse-nvcc112-torch-cu102"), CTX, "11.2.152")
    assert side.same_release and side.plan.chosen.build.variant == "cu111"
    assert side.plan.chosen.build.specs == ("torch==1.10.1+cu111",)
    assert "needs a driver >= 450.80.02 (>= 455.23 for full CUDA 11.1 support)" in side.remediation().summary


def test_the_nearest_newer_release_when_the_installed_one_has_none():
    # torch 1.12.1+cu113 on Python 3.8, nvcc 12.2: 2.1 is the first release with a CUDA 12 build (cu121).
    side = torch_side(real_facts("embodiedocc2-nvcc122-torch-cu113"), CTX, "12.2.140")
    assert not side.same_release
    assert (side.plan.chosen.build.release, side.plan.chosen.build.variant) == ("2.1", "cu121")


def test_no_torch_side_where_no_build_is_old_enough_for_nvcc():
    # nvcc 12.0: the first CUDA 12 PyTorch builds are cu121, newer than nvcc.
    assert torch_side(real_facts("era3d-tinycudann-nvcc120-torch212-cu118"), CTX, "12.0") is None


def test_the_toolkit_side_is_first_and_pytorchs_the_alternative():
    r = torch_major_remediation(real_facts("pytorch-sparse-nvcc112-torch-cu102"), CTX, "11.2.152")
    assert r.component == "toolkit" and "Install CUDA 10.2" in r.summary
    assert r.alternative.component == "torch"
    # One pip command (issue 27, kind 10): the exact build from its CUDA index.
    (cmd,) = r.alternative.commands
    assert cmd.argv[1:] == (
        "-m",
        "pip",
        "install",
        "torch==1.10.1+cu111",
        "--index-url",
        "https://download.pytorch.org/whl/cu111",
    )


def test_pytorchs_side_is_first_where_the_toolkit_has_no_move():
    # Driver 470 (CUDA 11.4) cannot run torch's CUDA 12, and CUDA 11 is not torch's major: no toolkit fits.
    facts = real_facts("pytorch-sparse-nvcc112-torch-cu102")
    facts = replace(
        facts,
        frameworks=replace(
            facts.frameworks,
            torch=replace(
                facts.frameworks.torch, value=replace(facts.frameworks.torch.value, version="2.1.2+cu121", cuda="12.1")
            ),
        ),
    )
    facts = replace(facts, driver=replace(facts.driver, nvml_driver_version="470.82.01", nvml_cuda_version="11.4"))
    assert (facts.driver.version, facts.driver.cuda_version) == ("470.82.01", "11.4")
    r = torch_major_remediation(facts, CTX, "11.2.152")
    assert r.component == "torch" and r.alternative.component == "toolkit"
    assert r.alternative.commands == ()
    assert "cu11" in r.summary


# --- PyTorch wheels that carry cuDNN ---------------------------------------------------------------

SITE = "/home/user/miniconda3/envs/embodiedocc/lib/python3.8/site-packages"


def torch_env(version: str, cuda: str, conda: bool, lib: tuple[str, ...]):
    def edit(snap):
        snap["files"][f"{SITE}/torch/version.py"] = f"__version__ = '{version}'\ndebug = False\ncuda = '{cuda}'\nhip = None\n"
        for name in lib:
            snap["files"][f"{SITE}/torch/lib/{name}"] = {"binary": True, "type": "file"}
        snap["python"]["distributions"]["torch"] = version
        if not conda:
            snap["python"]["kind"] = "venv"

    return real_facts("embodiedocc2-nvcc122-torch-cu113", edit)


def test_a_torch_112_pip_wheel_carries_its_cudnn():
    # torch 1.12.1+cu113 from pip, torch/lib listed with its hashed cudart and no libcudnn: no cuDNN is asked for.
    facts = torch_env("1.12.1+cu113", "11.3", conda=True, lib=("libcudart-a7b20f20.so.11.0",))
    assert facts.frameworks.torch.value.lib_dirs  # the directory was listed
    assert torch_carries_cudnn(facts, CTX) == ("pytorch-release-md", "pypi-torch-wheels")
    assert [n.framework for n in needs(facts, CTX)] == []
    codes = {f.code for f in diagnose_facts(facts)}
    assert "cudnn-missing" not in codes


def test_a_torch_113_cu117_wheel_loads_cudnn_from_nvidias_wheel():
    facts = torch_env("1.13.1+cu117", "11.7", conda=False, lib=("libcudart-e409450e.so.11.0",))
    assert torch_carries_cudnn(facts, CTX) == ()
    (need,) = needs(facts, CTX)
    assert (need.framework, need.cudnn_major, need.minimum) == ("PyTorch 1.13.1+cu117", 8, "8.5.0.96")
    assert "cudnn-missing" in {f.code for f in diagnose_facts(facts)}


def test_a_conda_package_of_112_is_still_judged():
    # Untagged torch in a conda environment: the pytorch channel's package, which loads the environment's cudnn.
    facts = torch_env("1.12.1", "11.3", conda=True, lib=("libc10_cuda.so", "libcudart.so.11.0"))
    assert torch_carries_cudnn(facts, CTX) == ()
    assert [n.framework for n in needs(facts, CTX)] == ["PyTorch 1.12.1"]


def diagnose_facts(facts):
    from gpudoctor.checks import run_checks

    findings, internal = run_checks(facts, ctx=CTX)
    assert not internal
    return findings
