"""A line that is a Linux distribution's name and release alone (gpudoctor.pasted.read, _distribution_line): the host's
distribution, where a form's OS field said only "Linux"; it decides the distribution's own commands."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

BLIND = Path(__file__).resolve().parents[1] / "blind"


def _facts(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return report.facts


def _case(path: str) -> str:
    return (BLIND / path / "input.txt").read_text(encoding="utf-8")


def test_a_distribution_line_under_a_heading_names_the_hosts_release():
    for path, distro, version in (
        # tabbyAPI's form says "Linux", its "Operating System" block "Ubuntu 24.04 LTS"
        ("plans10/cases/1031-tabbyapi324-ubuntu2404-compose-image-requires-cuda128-driver-550", "ubuntu", "24.04"),
        # immich's form, "Ubuntu 24.04 LTS" alone on its line
        ("plans7/cases/639-immich17448-ubuntu2404-compose-nvidia-container-cli-libnvidia-ml-not-found-ask", "ubuntu", "24.04"),
        # llama.cpp's form, "Debian GNU/Linux 13 (trixie)" as /etc/os-release's PRETTY_NAME prints it
        ("plans10/cases/1033-llamacpp24418-debian13-docker-server-cuda-image-driver-550-error-804-gtx1080ti", "debian", "13"),
    ):
        facts = _facts(_case(path))
        assert (facts.platform.distro.id, facts.platform.distro.version_id) == (distro, version), path


def test_quiet_twins_wsl_windows_and_a_release_named_in_a_sentence():
    # a WSL report's distribution line (tests/blind/pasted/cases/018-wsl-11755-nvml-na-nvcc121): WSL stays what it is
    facts = _facts(_case("pasted/cases/018-wsl-11755-nvml-na-nvcc121"))
    assert facts.platform.wsl == 2
    # a Windows machine that names Ubuntu on a line of its own (a VM, a dual boot) stays Windows
    facts = _facts("OS: Windows 11\nUbuntu 22.04 LTS\nRuntimeError: CUDA error: no kernel image is available\n")
    assert facts.platform.system == "Windows"
    # a release inside a sentence is no statement of this host's
    facts = _facts("It worked on Ubuntu 22.04 LTS last year.\nRuntimeError: CUDA error: no kernel image is available\n")
    assert facts.platform.distro.id is None
