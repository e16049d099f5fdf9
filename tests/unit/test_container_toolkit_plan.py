"""The host's plan where docker answers `--gpus` with 'could not select device driver "" with capabilities: [[gpu]]'
(issue 27, kinds 3 and 6): the NVIDIA Container Toolkit installed from NVIDIA's repository first unless the evidence
shows it there, then docker's runtime configured and restarted. Real reports, read as pasted (tests/blind/plans: the
frozen inputs; the reviewers' expected plans are in each case's expect.toml)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.cmdline import Cmd, shell_for_os
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner.consequences import consequences
from gpudoctor.planner.context import Context
from gpudoctor.planner.deciders import with_docker_root
from gpudoctor.planner.prescribe import build
from gpudoctor.planner.remedy import container_toolkit_install, docker_runtime_setup
from tests.spec.machine import facts_of, replace

CASES = Path(__file__).resolve().parent.parent / "blind" / "plans" / "cases"

INSTALL_APT = [
    ("curl", "-fsSL", "https://nvidia.github.io/libnvidia-container/gpgkey"),
    (
        "curl",
        "-fsSL",
        "-o",
        "/etc/apt/sources.list.d/nvidia-container-toolkit.list",
        "https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-toolkit.list",
    ),
    (
        "sed",
        "-i",
        "s#deb https://#deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] https://#g",
        "/etc/apt/sources.list.d/nvidia-container-toolkit.list",
    ),
    ("apt-get", "update"),
    ("apt-get", "install", "-y", "nvidia-container-toolkit"),
]
# A host whose distribution the text does not show: which route, and whether docker is the snap, are asked first.
ASK_ROUTE = [("cat", "/etc/os-release"), ("snap", "list", "docker")]
HOOK_READ = ("command", "-v", "nvidia-container-runtime-hook")
CONFIGURE = [
    ("nvidia-ctk", "runtime", "configure", "--runtime=docker"),
    ("systemctl", "restart", "docker"),
    ("docker", "run", "--gpus", "all", "<image>"),
]


def _report(case: str):
    (path,) = [*CASES.glob(f"{case}-*/input.txt"), *CASES.parent.parent.glob(f"plans2/cases/{case}-*/input.txt")]
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), case)))


def _plan(report):
    # as gpudoctor.pipeline.check plans: the paste's `sudo docker` puts every docker command of the plan under sudo
    findings = with_docker_root(report.findings, report.facts)
    return build(findings, shell_for_os(report.facts.platform.system))


# 127 quotes docker's message with the empty driver's "" left out.
@pytest.mark.parametrize("case", ["027", "037", "127"])
def test_no_toolkit_shown_installs_it_from_nvidias_repository_before_configuring_docker(case):
    report = _report(case)
    (step,) = [s for s in _plan(report).steps if "container-no-gpu" in s.codes]
    words = [c.words for c in step.commands if isinstance(c, Cmd)]
    # the reporter's own docker run ends it where the text shows it in plain words (127), else the placeholder
    # (first, read-only, whether the toolkit's hook is there: dockerd registers its GPU driver only from it)
    assert words[:-1] == [HOOK_READ] + ASK_ROUTE + INSTALL_APT + CONFIGURE[:-1]
    assert words[-1][:2] == ("docker", "run") and "--gpus" in words[-1]
    assert step.commands[3].pipe == ("sudo", "gpg", "--dearmor", "-o", "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg")
    assert all(c.root for c in step.commands[4:-1]) and not any(c.root for c in step.commands[:3])
    # The consequence model reads the repository before its package and finds every need met.
    got = consequences(_plan(report), report.facts, report.findings, lambda f: run_checks(f)[0])
    assert [v for v in got.violations if v.kind != "unmodelled"] == []


def test_the_toolkit_shown_by_nvidia_ctk_is_configured_not_installed():
    report = _report("028")
    (said,) = report.facts.pasted.reported("container-toolkit-version")
    assert said.get("version") == "1.13.5" and "NVIDIA Container Toolkit CLI version 1.13.5" in said.line
    (step,) = [s for s in _plan(report).steps if "container-no-gpu" in s.codes]
    assert [c.words for c in step.commands if isinstance(c, Cmd)] == CONFIGURE


def test_the_package_before_its_repository_is_an_unmet_precondition():
    report = _report("027")
    cmds = docker_runtime_setup(report.facts)
    at = next(i for i, c in enumerate(cmds) if c.words[:2] == ("apt-get", "install"))
    swapped = (cmds[at], *cmds[:at], *cmds[at + 1 :])  # apt-get install first
    finding = Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "t",
        "t",
        (),
        Remediation("t", swapped, requires_root=True, component="container", where="the host"),
    )
    (finding,) = with_docker_root([finding], report.facts)  # the reporter's `sudo docker`, as the pipeline plans
    plan = build([finding], "posix")
    got = consequences(plan, report.facts, [finding], lambda f: run_checks(f)[0])
    # the install moved first comes before its repository and before apt's index update (planner.needs, h225)
    assert [(v.kind, v.reason) for v in got.violations if v.kind == "unmet-precondition"] == [
        ("unmet-precondition", "apt-get install with no package-index update (apt-get update) before it"),
        (
            "unmet-precondition",
            "nvidia-container-toolkit comes from NVIDIA's nvidia-container-toolkit repository: no earlier step adds it",
        ),
    ]


def test_the_route_follows_the_hosts_family():
    """tests/machines/rtx4080super-idle-p8-notebook-holds-memory-gen1 runs a RHEL rebuild: NVIDIA's .repo, then dnf.
    Inside a container the distribution read is the image's, so the host's is asked first (and whether docker is the
    snap), then the apt route with a note naming the rest."""
    rhel = facts_of("rtx4080super-idle-p8-notebook-holds-memory-gen1")
    cmds = container_toolkit_install(rhel)
    assert [(c.words, c.pipe) for c in cmds] == [
        (
            ("curl", "-s", "-L", "https://nvidia.github.io/libnvidia-container/stable/rpm/nvidia-container-toolkit.repo"),
            ("sudo", "tee", "/etc/yum.repos.d/nvidia-container-toolkit.repo"),
        ),
        (("dnf", "install", "-y", "nvidia-container-toolkit"), ()),
    ]
    inside = container_toolkit_install(replace(rhel, platform={"container": "docker"}))
    assert [c.words for c in inside] == ASK_ROUTE + INSTALL_APT and "RHEL" in inside[0].note


def test_a_cpu_image_asked_for_a_gpu_drops_the_flag_not_installs_the_toolkit():
    """tests/blind/plans/cases/029: a CPU image (text-embeddings-inference:cpu-0.6) run with --gpus all on a machine
    without a GPU: the maintainer's fix is the same command without --gpus all."""
    report = _report("029")
    (cpu,) = report.facts.pasted.reported("docker-run-cpu-image")
    assert cpu.get("image") == "ghcr.io/huggingface/text-embeddings-inference:cpu-0.6" and "--gpus all" in cpu.line
    (step,) = _plan(report).steps
    assert step.codes == ("container-no-gpu",)
    assert [c.words for c in step.commands] == [("docker", "run", "ghcr.io/huggingface/text-embeddings-inference:cpu-0.6")]
    assert not any(c.root for c in step.commands)


def test_no_nvidia_gpu_in_the_facts_drops_the_flag_for_any_image():
    """The pasted reader's cue that the machine has no NVIDIA GPU (gpudoctor.pasted.cues), on 037's GPU image."""
    from dataclasses import replace as dc_replace

    from gpudoctor.checks.catalogued import check_docker_gpu_driver

    facts = _report("037").facts
    cue = {"cue": "t", "means": "no NVIDIA GPU on this machine (its only GPU named is another vendor's)", "line": "Intel Iris"}
    facts = dc_replace(facts, pasted=dc_replace(facts.pasted, cues=(*facts.pasted.cues, cue)))
    (f,) = check_docker_gpu_driver(facts, cast(Context, None))  # this check reads no context
    assert [c.words for c in f.remediation.commands] == [("docker", "run", "<image>")]
    assert "Intel Iris" in [e.value for e in f.evidence]


def _said_report(text: str):
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "t")))


def test_the_reporters_named_run_is_preceded_by_removing_what_its_failed_start_left():
    # docker creates the container before starting it and keeps it after a failed start unless --rm (moby/moby
    # daemon/start.go @ce27df7b): tests/blind/plans11/cases/1141-localai4511-ubuntu2204-docker-gpus-all-toolkit-
    # installed-runtime-not-configured, and https://github.com/psalias2006/gpu-hot/issues/18 (the catalogue example)
    plans11 = CASES.parent.parent / "plans11" / "cases"
    examples = Path(__file__).resolve().parent.parent / "pasted" / "catalogue_examples"
    for text, name in (
        (next(plans11.glob("1141-*")).joinpath("input.txt").read_text(encoding="utf-8"), "local-ai"),
        ((examples / "gpu-hot-18-docker-run-name-could-not-select-device-driver.txt").read_text(encoding="utf-8"), "gpu-hot"),
    ):
        (step,) = [s for s in _plan(_said_report(text)).steps if "container-no-gpu" in s.codes]
        words = [c.words for c in step.commands if isinstance(c, Cmd)]
        assert words[-2] == ("docker", "rm", name)
        assert words[-1][:2] == ("docker", "run") and ("--name", name) in zip(words[-1], words[-1][1:], strict=False)
        assert words.index(("systemctl", "restart", "docker")) < len(words) - 2
    # quiet twins: a run with --rm removes its own container on the failed start (AutoRemove, the same start.go), and
    # one without --name leaves no name to collide with
    for text in (
        "docker run --rm --gpus all --name smi nvidia/cuda:11.0-base nvidia-smi\n"
        "docker: Error response from daemon: could not select device driver with capabilities: [[gpu]].\n",
        "docker run --gpus all nvidia/cuda:11.0-base nvidia-smi\n"
        "docker: Error response from daemon: could not select device driver with capabilities: [[gpu]].\n",
    ):
        (step,) = [s for s in _plan(_said_report(text)).steps if "container-no-gpu" in s.codes]
        words = [c.words for c in step.commands if isinstance(c, Cmd)]
        assert words[-1][:2] == ("docker", "run") and words[-1][-1] == "nvidia-smi"  # the reporter's own, rerun
        assert not any(w[:2] == ("docker", "rm") for w in words)
