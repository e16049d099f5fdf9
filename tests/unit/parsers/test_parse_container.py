"""docker info and nvidia-container-cli info."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.errors import ParseError
from gpudoctor.parsers.container import parse_docker_info, parse_nvidia_container_cli_info

FIXTURES = Path(__file__).parents[2] / "fixtures"
DOCKER_DIR = FIXTURES / "docker-info"

DOCKER_EXPECTED = {
    "docker-24.0.1_debian-11_runtimes-nvidia-runc_default-runc_truncated.txt": dict(
        client_version="24.0.1",
        server_version="24.0.1",
        runtimes=("io.containerd.runc.v2", "nvidia", "runc"),
        default_runtime="runc",
        cgroup_driver="systemd",
        cgroup_version="2",
        operating_system="Debian GNU/Linux 11 (bullseye)",
        kernel_version="5.10.0-23-amd64",
        architecture="x86_64",
        warnings=(),
        has_nvidia_runtime=True,
    ),
    "docker-info-grep-runtime_no-nvidia-runtime_seccomp-warning.txt": dict(
        client_version=None,
        server_version=None,
        runtimes=("io.containerd.runc.v2", "runc"),
        default_runtime="runc",
        cgroup_driver=None,
        warnings=("daemon is not using the default seccomp profile",),
        has_nvidia_runtime=False,
    ),
}
CLI_EXPECTED = {
    "nvidia-container-cli-info_384.130_cuda-9.0_geforce-920m-kepler.txt": (
        "384.130",
        "9.0",
        [(0, 0, "GeForce 920M", "GeForce", "GPU-4712226b-88e6-a01e-efb0-a5950a64f8d9", "00000000:08:00.0", "3.5")],
    ),
    "nvidia-container-cli-info_jetson-xavier_nvrm-null.txt": (None, "10.2", [(0, 0, "Xavier", None, None, None, "7.2")]),
}

DOCKER_FILES = sorted(p.name for p in DOCKER_DIR.iterdir())


def test_every_docker_fixture_has_expectations() -> None:
    assert set(DOCKER_FILES) == set(DOCKER_EXPECTED) | set(CLI_EXPECTED)


@pytest.mark.parametrize("name", sorted(DOCKER_EXPECTED))
def test_docker_info_facts(name: str) -> None:
    info = parse_docker_info((DOCKER_DIR / name).read_text(encoding="utf-8"))
    for field, want in DOCKER_EXPECTED[name].items():
        assert getattr(info, field) == want, field


@pytest.mark.parametrize("name", sorted(CLI_EXPECTED))
def test_container_cli_facts(name: str) -> None:
    info = parse_nvidia_container_cli_info((DOCKER_DIR / name).read_text(encoding="utf-8"))
    driver, cuda, devices = CLI_EXPECTED[name]
    assert (info.driver_version, info.cuda_version) == (driver, cuda)
    assert [(d.index, d.minor, d.model, d.brand, d.uuid, d.bus_location, d.architecture) for d in info.devices] == devices


def test_docker_info_json_and_cdi() -> None:
    data = {
        "ServerVersion": "27.3.1",
        "Runtimes": {"nvidia": {}, "runc": {}},
        "DefaultRuntime": "nvidia",
        "CgroupVersion": "2",
        "Warnings": ["WARNING: No swap limit support"],
        "CDISpecDirs": ["/etc/cdi"],
    }
    info = parse_docker_info(json.dumps(data))
    assert info.runtimes == ("nvidia", "runc") and info.default_runtime == "nvidia"
    assert info.cdi_spec_dirs == ("/etc/cdi",) and info.warnings == ("No swap limit support",)
    text = (
        " Runtimes: nvidia runc\n Default Runtime: runc\n CDI spec directories:\n  /etc/cdi\n  /var/run/cdi\n Swarm: inactive\n"
    )
    assert parse_docker_info(text).cdi_spec_dirs == ("/etc/cdi", "/var/run/cdi")


def test_debug_lines_are_skipped() -> None:
    text = (
        "-- WARNING, the following logs are for debugging purposes only --\n\n"
        "I1228 09:00:00.000000 1234 nvc.c:281] initializing library context (version=1.0.0)\n"
        "NVRM version:   418.56\nCUDA version:   10.1\n\nDevice Index:   0\nModel:          Tesla T4\n"
        "Architecture:   7.5\n"
    )
    info = parse_nvidia_container_cli_info(text)
    assert info.driver_version == "418.56" and info.devices[0].model == "Tesla T4"


@pytest.mark.parametrize("name", sorted(p.name for p in (FIXTURES / "errors").iterdir()))
def test_error_outputs_are_refused(name: str) -> None:
    text = (FIXTURES / "errors" / name).read_text(encoding="utf-8")
    with pytest.raises(ParseError):
        parse_nvidia_container_cli_info(text)
    with pytest.raises(ParseError):
        parse_docker_info(text)
