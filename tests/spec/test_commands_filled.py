"""No printed command holds an unfilled placeholder; a fix left undecided asks for what decides it (issue 27).

A command with `<container>` in it is not one to paste: the shell passes the quoted word on and the command fails.
The facts fill a placeholder in where they decide it (the image a paste ran, the one GPU's index); where they do not,
the command moves into the step's prose and the read-only command that lists the values takes its place
(gpudoctor.planner.deciders). A driver fix a paste cannot decide for want of the distribution asks for
/etc/os-release (gpudoctor.pasted.ask).

Walks the plan `check` prints, its alternatives, the findings' fixes and the pasted asks, for every recorded machine,
real case, pasted case and catalogue example (as tests/spec/test_env_steps_keep.py walks them).
"""

from __future__ import annotations

import re

import pytest

from gpudoctor.cmdline import Cmd, Placeholder, render
from gpudoctor.model import Remediation
from gpudoctor.planner.deciders import decided, placeholders
from tests.spec.test_env_steps_keep import _cases, _checked, _lines

# A placeholder as printed: `<name>`, quoted or not (prose and a command's note may name one; a command may not).
PLACEHOLDER = re.compile(r"<[a-z][a-z0-9-]*>")


def _printed(checked) -> list[str]:
    target = checked.plan.target
    lines = [render(line, target) for line in _lines(checked)]
    return lines + [render(a.command, target) for a in checked.asks]


@pytest.mark.parametrize("case", _cases())
def test_no_printed_command_holds_a_placeholder(case: str) -> None:
    checked = _checked(case)
    assert [line for line in _printed(checked) if PLACEHOLDER.search(line.split("\n")[-1])] == []


def _words(checked, component: str) -> list[tuple[str, ...]]:
    return [c.words for s in checked.plan.steps if s.component == component for c in s.commands if isinstance(c, Cmd)]


def _asked(checked) -> list[tuple[str, ...]]:
    return [a.command.words for a in checked.asks]


def test_the_image_the_paste_ran_is_filled_in() -> None:
    """3dgrut#71 ran `docker run ... 3dgrut`: the plan's run names that image, and asks for no listing of images."""
    checked = _checked("example:3dgrut-71-docker-unknown-runtime-nvidia.txt")
    words = _words(checked, "container")
    assert ("docker", "run", "--gpus", "all", "3dgrut") in words
    assert ("docker", "images") not in words


def test_an_undecided_placeholder_becomes_the_command_that_lists_its_values() -> None:
    """WSL 1 (wsl#5554): the distribution's name is not in the paste; `wsl -l -v` lists them, the conversion is prose."""
    checked = _checked("pasted:wsl-5554-wsl1-kernel-nvidia-driver-440-apt")
    (step,) = [s for s in checked.plan.steps if s.component == "platform"]
    assert [c.words for c in step.commands] == [("wsl", "--update"), ("wsl", "-l", "-v")]
    assert "wsl --set-version <distro> 2" in " ".join(step.summaries)


def test_a_slurm_job_id_is_listed_not_written() -> None:
    """ray#7014 (Slurm, no device files): the job's id is not shown, so the job's own SLURM_JOB_ID gives it (squeue --me is Slurm 20.11 on)."""
    checked = _checked("example:ray-7014-slurm-nodevfiles.txt")
    printed = [*(w for s in checked.plan.steps for w in _words(checked, s.component)), *_asked(checked)]
    assert ("printenv", "SLURM_JOB_ID") in printed
    assert not [w for w in printed if w[:3] == ("scontrol", "show", "job")]


def test_a_rerun_with_more_environment_is_an_export() -> None:
    """nccl#1410: `env NCCL_DEBUG=INFO <failing-command>` becomes the export before the same command is run again."""
    assert ("export", "NCCL_DEBUG=INFO") in _asked(_checked("example:nccl-1410-unhandled-cuda-error.txt"))


def test_a_driver_fix_left_undecided_asks_for_the_distribution() -> None:
    """chatglm3#100: the driver is too old for the build, and the paste does not show the distribution, which decides
    the driver's packages: /etc/os-release is asked, and the driver step prints it."""
    checked = _checked("pasted:chatglm3-100-driver-found-11060")
    assert ("cat", "/etc/os-release") in _asked(checked)
    assert ("cat", "/etc/os-release") in _words(checked, "driver")


def test_a_driver_fix_decided_without_the_distribution_asks_nothing_of_it() -> None:
    """The quiet twin: ansible-slurm#287 (a library/module mismatch): its fix (reload or reboot) is decided without
    the distribution, which is not asked."""
    checked = _checked("pasted:ansible-slurm-287-nvrm-api-mismatch-535-530")
    assert _words(checked, "driver")
    assert ("cat", "/etc/os-release") not in _asked(checked)


def test_the_rule_keeps_order_and_fills_what_it_knows() -> None:
    """The rule itself: commands before the first unfilled one stay; it and those after become prose; the lister
    follows. A known value is written in, and then nothing is listed."""
    r = Remediation(
        "Restart it.",
        (Cmd(("nvidia-smi",)), Cmd(("docker", "restart", Placeholder("container"))), Cmd(("docker", "ps"))),
        component="container",
    )
    out = decided(r, {})
    assert [c.words for c in out.commands] == [("nvidia-smi",), ("docker", "ps", "-a")]
    assert "docker restart <container>; docker ps" in out.summary
    filled = decided(r, {"container": "web"})
    assert [c.words for c in filled.commands] == [("nvidia-smi",), ("docker", "restart", "web"), ("docker", "ps")]
    assert filled.summary == "Restart it."
    assert placeholders(Cmd(("echo", "FROM <image>"))) == ("image",)
    assert placeholders(Cmd(("pip", "install", "torch<2.5"))) == ()


def test_a_pip_fix_with_the_usual_name_asks_which_python_runs_the_program() -> None:
    """pytorch#122924 (Windows, a CPU torch on an RTX 4080 laptop) pastes no interpreter, and its fix reinstalls torch
    with `python -m pip`: which Python runs the program is asked (sys.executable), for the pip step must be that one."""
    asked = _asked(_checked("pasted:pytorch-122924-windows-torch222-cpu-rtx4080-laptop"))
    assert ("python", "-c", "import sys; print(sys.executable)") in asked


def test_a_pip_fix_with_the_programs_own_interpreter_asks_nothing_of_it() -> None:
    """The quiet twin: transcan#4 (Windows) shows its venv's python.exe in the traceback, and the pip step runs that
    interpreter: which Python runs the program is not asked."""
    checked = _checked("pasted:transcan-4-windows-jaxlib-0412-vs-jax-0411")
    pips = [c.words for s in checked.plan.steps for c in s.commands if isinstance(c, Cmd) and c.words[1:3] == ("-m", "pip")]
    assert pips and pips[0][0].endswith("\\venv\\Scripts\\python.exe")
    assert not [a for a in _asked(checked) if "print(sys.executable)" in " ".join(a)]


def test_a_listing_the_step_already_runs_is_not_printed_twice() -> None:
    """tests/blind/plans8 case 808 (pytorch/pytorch#131650): MIG enabled on two A100s, the instance's UUID unknown. The
    step already lists the instances (nvidia-smi -L, under its own note): the lister of <uuid> is that same command,
    printed once, and the prose's export holds the placeholder whole, neither of its quotes left behind."""
    from gpudoctor.cmdline import SetEnv

    r = Remediation(
        "List the MIG devices.",
        (
            Cmd(("nvidia-smi", "-L"), note="the instances"),
            SetEnv("CUDA_VISIBLE_DEVICES", f"MIG-{Placeholder('uuid')}"),
        ),
        component="gpu",
    )
    out = decided(r, {})
    assert [c.words for c in out.commands] == [("nvidia-smi", "-L")]
    assert out.summary.endswith("filled in (the commands below list the values): export CUDA_VISIBLE_DEVICES=MIG-<uuid>.")


def test_a_listing_the_step_does_not_run_is_added() -> None:
    """The twin: a step that runs another command first gets the lister of <uuid> after it."""
    from gpudoctor.cmdline import SetEnv

    r = Remediation(
        "Use one instance.",
        (Cmd(("nvidia-smi", "mig", "-lgi")), SetEnv("CUDA_VISIBLE_DEVICES", f"MIG-{Placeholder('uuid')}")),
        component="gpu",
    )
    out = decided(r, {})
    assert [c.words for c in out.commands] == [("nvidia-smi", "mig", "-lgi"), ("nvidia-smi", "-L")]


def test_the_mig_step_of_a_recorded_report_lists_the_instances_once() -> None:
    """The whole recorded report of tests/blind/plans8 case 808: its mig-enabled step runs nvidia-smi -L once."""
    import json
    from pathlib import Path

    from tests.hostile.test_corpus import run_cli

    case = "808-pt131650-two-a100-pcie-mig-enabled-conda-torch24-internal-assert-num-gpus"
    path = Path(__file__).resolve().parents[2] / "tests/blind/plans8/cases" / case / "input.txt"
    _, out, _ = run_cli("check", "--from", str(path), "--format", "json")
    doc = json.loads(out)
    (step,) = [s for s in doc["plan"]["steps"] if "mig-enabled" in s["codes"]]
    assert [c["argv"] for c in step["commands"]] == [["nvidia-smi", "-L"]]
    (f,) = [f for f in doc["findings"] if f["code"] == "mig-enabled"]
    assert "export CUDA_VISIBLE_DEVICES=MIG-<uuid>." in f["remediation"]["summary"]


_YUAN2 = "tests/real/yuan2-ngc-container-torch-cu121-driver-cuda110/snapshot.json"


def test_a_host_driver_fix_from_inside_a_recorded_container_reads_the_hosts_release() -> None:
    """tests/real (IEIT-Yuan/Yuan-2.0, NVIDIA's PyTorch image on a driver of CUDA 11.0): the driver to upgrade is the
    host's, whose distribution the container's snapshot cannot read: the step prints the host's /etc/os-release, the
    listing that decides the packages, and no other step gets it."""
    import json
    from pathlib import Path

    from tests.hostile.test_corpus import run_cli

    _, out, _ = run_cli("check", "--replay", str(Path(__file__).resolve().parents[2] / _YUAN2), "--format", "json")
    doc = json.loads(out)
    (step,) = [s for s in doc["plan"]["steps"] if "framework-driver-too-old" in s["codes"]]
    assert step["commands"] == [{"argv": ["cat", "/etc/os-release"], "note": "on the host", "root": False}]
    others = [c.get("argv") for s in doc["plan"]["steps"] if s is not step for c in s["commands"]]
    assert ["cat", "/etc/os-release"] not in others


def test_outside_a_container_a_host_release_is_never_added() -> None:
    """The twin: the same machine's findings judged as if it were not in a container are left as they are."""
    import json
    from pathlib import Path

    from gpudoctor.planner.deciders import with_host_release
    from tests.spec.machine import replace, report

    snap = json.loads((Path(__file__).resolve().parents[2] / _YUAN2).read_text(encoding="utf-8"))
    r = report(snap)
    assert with_host_release(r.findings, replace(r.facts, platform={"container": None})) == list(r.findings)
    (driver,) = [f for f in with_host_release(r.findings, r.facts) if f.code == "framework-driver-too-old"]
    assert [c.words for c in driver.remediation.commands] == [("cat", "/etc/os-release")]
