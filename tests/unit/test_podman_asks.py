"""A program run with podman, and the asks placed there in podman's own form: the GPU is the CDI device
nvidia.com/gpu=all (not docker's --gpus), a container's GPU request is read from its creating command, and the host's
CDI spec is listed where the paste does not show it (gpudoctor.planner.where._podman_words, gpudoctor.pasted.ask,
gpudoctor.pasted.container_age). Threads: ollama/ollama#2716 (podman run --gpus=all, no GPU), ollama/ollama#10014 (run
with podman, the CDI list shown), NVIDIA/nvidia-container-toolkit#1940 (the CDI list shown). Asserted on cues and argv."""

from __future__ import annotations

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.facts import CDI_LISTED, CONTAINER_SAID
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.read import Source


def _report(text: str):
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("issue.txt", text)]), "pasted text")))


def _asks(report) -> list[tuple[str, ...]]:
    from gpudoctor.pasted.ask import ask_for

    return [tuple(str(w) for w in a.command.words) for a in ask_for(report.facts, report.findings) if isinstance(a.command, Cmd)]


RUN_WITH_PODMAN = "When I run with podman on ubuntu it cannot find my gpus.\nollama says: no compatible GPUs were discovered\n"
CDI_SHOWN = RUN_WITH_PODMAN + "$ nvidia-ctk cdi list\nINFO[0000] Found 3 CDI devices\nnvidia.com/gpu=0\nnvidia.com/gpu=all\n"


def test_run_with_podman_puts_the_program_in_a_podman_container():
    report = _report(RUN_WITH_PODMAN)
    means = [c.get("means", "") for c in report.facts.pasted.cues if c.get("cue") == CONTAINER_SAID]
    assert means and means[0].startswith("run inside a podman container")


def test_podman_asks_use_the_cdi_device_and_the_creating_command():
    asks = _asks(_report(RUN_WITH_PODMAN))
    runs = [a for a in asks if a[:2] == ("podman", "run")]
    assert runs and all("--gpus" not in a and "nvidia.com/gpu=all" in a for a in runs)
    assert not any(a[0] == "docker" for a in asks)
    cdi = asks.index(("nvidia-ctk", "cdi", "list"))
    assert cdi < asks.index(runs[0])


def test_docker_inspects_gpu_request_becomes_podmans_creating_command():
    from gpudoctor.planner.where import in_container

    facts = _report(RUN_WITH_PODMAN).facts
    argv = ("docker", "inspect", "{container}", "--format", "{{.HostConfig.Runtime}} {{json .HostConfig.DeviceRequests}}")
    assert in_container(facts, argv, "ollama") == ("podman", "inspect", "ollama", "--format", "{{json .Config.CreateCommand}}")


def test_a_cdi_list_shown_is_not_asked_again():
    report = _report(CDI_SHOWN)
    assert any(c.get("cue") == CDI_LISTED for c in report.facts.pasted.cues)
    assert ("nvidia-ctk", "cdi", "list") not in _asks(report)
