"""The top generic strikes of the reviewers' census (tools/mined/strikes-3-15.md, issue 27), held on the recorded
blind cases that showed them: the plan `check` prints for the case's own paste, read as argument vectors.

- apt-get install without apt-get update first (plans15 1517's reviewer; the same step kind in plans6 541): every
  apt-get install of a plan follows an update (gpudoctor.planner.needs holds every plan to it, and
  gpudoctor.planner.remedy.apt_install writes the pair).
- a path relative to the working directory (plans15 1514's reviewer: `rm -rf ./.triton/cache` does nothing from
  another directory; the same step kind in plans3 215): a removal names its folder from the home directory (~/).
- sudo dropped (plans13 1307's reviewer: the rerun printed as `docker run` though the reporter ran `sudo docker run`;
  the same in plans8 812): where the paste runs its image under sudo, every docker command of the plan does
  (gpudoctor.planner.deciders.with_docker_root; gpudoctor.planner.needs holds every plan to it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pipeline import CheckRequest, check

BLIND = Path(__file__).resolve().parent.parent / "blind"


def _done(case: str):
    path = BLIND / case / "input.txt"
    snap = validate_snapshot(read_pasted([Source(path.name, path.read_text(encoding="utf-8"))]), path.parent.name)
    return check(ReplayHost(snap), CheckRequest())


def _plan(case: str) -> list[Cmd]:
    """The commands of the plan printed for tests/blind/<case>/input.txt, in order."""
    return [line for step in _done(case).plan.steps for line in step.commands if isinstance(line, Cmd)]


def _plan_argv(case: str) -> list[tuple[str, ...]]:
    return [tuple(str(w) for w in c.argv) for c in _plan(case)]


@pytest.mark.parametrize(
    ("case", "install"),
    [
        # Debian's driver 525.60.13 listed without libnvcuvid1: the package at the driver's version, after an update
        (
            "plans6/cases/541-frigate4819-debian-docker-libnvcuvid-missing-on-host",
            ("apt-get", "install", "-y", "libnvcuvid1=525.60.13-1"),
        ),
    ],
)
def test_an_apt_get_install_comes_after_an_update(case, install):
    argv = _plan_argv(case)
    assert install in argv
    assert ("apt-get", "update") in argv[: argv.index(install)]


def test_a_plan_without_a_distribution_package_adds_no_update():
    # the quiet twin: 1514's plan (ptxas, TRITON_PTXAS_PATH) installs no distribution package, so no update either
    argv = _plan_argv(
        "plans15/cases/1514-triton2971-docker-cuda118-a10-host-driver-470-triton-nightly-bundled-ptxas-12-device-kernel-image-invalid"
    )
    assert not any(a[:2] in (("apt-get", "update"), ("apt-get", "install")) for a in argv)


@pytest.mark.parametrize(
    ("case", "removal"),
    [
        # Triton's cache of the kernels a 470 driver refused: its default TRITON_CACHE_DIR, from the home directory
        (
            "plans15/cases/1514-triton2971-docker-cuda118-a10-host-driver-470-triton-nightly-bundled-ptxas-12-device-kernel-image-invalid",
            ("rm", "-rf", "~/.triton/cache"),
        ),
        # torchaudio built in the checkout ~/repo/audio against another torch: its build directory, then the rebuild
        ("plans3/cases/215-audio99-torch-sox-undefined-symbol-stale-build", ("rm", "-rf", "~/repo/audio/build")),
    ],
)
def test_a_removal_names_its_folder_from_anywhere(case, removal):
    argv = _plan_argv(case)
    assert removal in argv
    assert not [a for a in argv if a[0] == "rm" and any(w.startswith("./") for w in a)]


_SUDO_1307 = "plans13/cases/1307-libnvct181-ubuntu1804-docker-gpus-all-nvidia-cuda-110-base-tag-removed-manifest-unknown"


@pytest.mark.parametrize(
    ("case", "run"),
    [
        # the reporter's `sudo docker run --rm --gpus all nvidia/cuda:11.0-base nvidia-smi`, on the tag that exists
        (_SUDO_1307, ("docker", "run", "--rm", "--gpus", "all", "nvidia/cuda:11.0.3-base-ubuntu18.04", "nvidia-smi")),
        # the reporter's `sudo docker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi` that works, as the check
        (
            "plans8/cases/812-ctk150-docker-script-unknown-runtime-nvidia-sudo-run-works-ask",
            ("docker", "run", "--rm", "--runtime=nvidia", "--gpus", "all", "ubuntu", "nvidia-smi"),
        ),
    ],
)
def test_docker_runs_under_sudo_where_the_reporters_does(case, run):
    cmds = {c.argv: c for c in _plan(case)}
    assert cmds[run].root
    # the client's own release needs no daemon: asked as it is
    assert all(c.root for c in cmds.values() if c.argv[:1] == ("docker",) and c.argv[1:] != ("--version",))


def test_docker_stays_without_sudo_where_the_reporters_runs_without():
    # the quiet twin: the reporter's compose and docker run are typed without sudo (a user in the docker group)
    cmds = _plan("plans6/cases/531-ollama3417-compose-gpus-in-env-file-no-device-reservation")
    docker = [c for c in cmds if c.argv[:1] == ("docker",)]
    assert [c.argv[:3] for c in docker] == [("docker", "compose", "up"), ("docker", "compose", "exec")]
    assert not any(c.root for c in docker)


def test_a_docker_command_without_sudo_is_an_unmet_need_where_the_paste_runs_docker_under_it():
    from gpudoctor.checks import run_checks
    from gpudoctor.model import Severity
    from gpudoctor.planner.consequences import consequences
    from gpudoctor.planner.prescribe import Prescription, Step

    done = _done(_SUDO_1307)
    run = Cmd(("docker", "run", "--rm", "--gpus", "all", "nvidia/cuda:11.0.3-base-ubuntu18.04", "nvidia-smi"))

    def unmet(cmd: Cmd) -> list[str]:
        # (docker --version first: --gpus needs Docker 19.03, a need of its own)
        lines = (Cmd(("docker", "--version")), cmd)
        step = Step("container", ("x",), lines, ("container-image-tag-missing",), Severity.ERROR, False, "the host")
        got = consequences(Prescription((step,)), done.report.facts, done.report.findings, lambda f: run_checks(f)[0])
        return [v.reason for v in got.of_kind("unmet-precondition")]

    assert any("runs docker under sudo" in r for r in unmet(run))
    assert unmet(Cmd(run.argv, root=True)) == []
