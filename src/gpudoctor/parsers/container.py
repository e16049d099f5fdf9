"""Parse `docker info` (full text, a `| grep -i runtime` excerpt, or `--format '{{json .}}'`) and `nvidia-container-cli info`.

nvidia-container-cli prints "(null)" for what Tegra/Jetson lacks (NVRM version, brand, UUID, bus); those become None.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import clean, require_text


@dataclass(frozen=True)
class DockerInfo:
    """What `docker info` says about GPU-relevant daemon settings.  None where the text lacks it."""

    client_version: str | None
    server_version: str | None
    runtimes: tuple[str, ...]  # e.g. ("io.containerd.runc.v2", "nvidia", "runc")
    default_runtime: str | None
    cgroup_driver: str | None
    cgroup_version: str | None
    cdi_spec_dirs: tuple[str, ...]  # Docker 25+ "CDI spec directories:"
    operating_system: str | None
    kernel_version: str | None
    architecture: str | None
    warnings: tuple[str, ...]  # "WARNING: ..." lines (JSON: Warnings), text after the prefix
    errors: tuple[str, ...]  # "ERROR: ..." lines (e.g. cannot connect to the daemon)

    @property
    def has_nvidia_runtime(self) -> bool:
        return "nvidia" in self.runtimes


@dataclass(frozen=True)
class ContainerCliDevice:
    """One "Device Index:" block of `nvidia-container-cli info`."""

    index: int | None
    minor: int | None
    model: str | None
    brand: str | None
    uuid: str | None
    bus_location: str | None
    architecture: str | None  # compute capability as printed, e.g. "3.5", "7.2"


@dataclass(frozen=True)
class ContainerCliInfo:
    """`nvidia-container-cli info`: the driver the toolkit sees and its devices."""

    driver_version: str | None  # "NVRM version"; None on Jetson, where it prints "(null)"
    cuda_version: str | None
    devices: tuple[ContainerCliDevice, ...]


def _value(text: str) -> str | None:
    value = clean(text)
    return None if value is None or value == "(null)" else value


_DOCKER_KEYS = {
    "Server Version": "server_version",
    "Runtimes": "runtimes",
    "Default Runtime": "default_runtime",
    "Cgroup Driver": "cgroup_driver",
    "Cgroup Version": "cgroup_version",
    "Operating System": "operating_system",
    "Kernel Version": "kernel_version",
    "Architecture": "architecture",
}


def _strip_prefix(text: str, prefix: str) -> str:
    text = text.strip()
    return text[len(prefix) :].strip() if text.startswith(prefix) else text


def _docker_info_json(data: dict[str, object]) -> DockerInfo:
    runtimes = data.get("Runtimes")
    warnings = data.get("Warnings")
    cdi = data.get("CDISpecDirs")
    client = data.get("ClientInfo")

    def text(value: object) -> str | None:
        return _value(value) if isinstance(value, str) else None

    return DockerInfo(
        client_version=text(client.get("Version")) if isinstance(client, dict) else None,
        server_version=text(data.get("ServerVersion")),
        runtimes=tuple(str(k) for k in runtimes) if isinstance(runtimes, dict) else (),
        default_runtime=text(data.get("DefaultRuntime")),
        cgroup_driver=text(data.get("CgroupDriver")),
        cgroup_version=text(data.get("CgroupVersion")),
        cdi_spec_dirs=tuple(str(d) for d in cdi) if isinstance(cdi, list) else (),
        operating_system=text(data.get("OperatingSystem")),
        kernel_version=text(data.get("KernelVersion")),
        architecture=text(data.get("Architecture")),
        warnings=tuple(_strip_prefix(str(w), "WARNING:") for w in warnings) if isinstance(warnings, list) else (),
        errors=(),
    )


def parse_docker_info(text: str) -> DockerInfo:
    """Parse `docker info` output.  Raises ParseError when nothing docker-info-like is in it."""
    require_text(text, "docker info")
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except (ValueError, RecursionError) as exc:
            raise ParseError(f"docker info JSON is malformed: {exc}") from None
        if not isinstance(data, dict):
            raise ParseError("docker info JSON is not an object")
        return _docker_info_json(data)

    found: dict[str, str] = {}
    client_version = None
    section = None
    warnings: list[str] = []
    errors: list[str] = []
    cdi_dirs: list[str] = []
    in_cdi = False
    for line in text.splitlines():
        stripped_line = line.strip()
        if not stripped_line:
            continue
        if stripped_line.startswith("WARNING:"):
            warnings.append(_strip_prefix(stripped_line, "WARNING:"))
            continue
        if stripped_line.startswith("ERROR:"):
            errors.append(_strip_prefix(stripped_line, "ERROR:"))
            continue
        if not line[0].isspace():
            # Top-level "Client: Docker Engine - Community" / "Server:" lines open a section.
            section = line.split(":", 1)[0].strip().lower()
            in_cdi = False
            continue
        key, sep, value = stripped_line.partition(":")
        if in_cdi:
            if sep and value.strip():
                in_cdi = False
            elif stripped_line.startswith("/"):
                cdi_dirs.append(stripped_line)
                continue
            else:
                in_cdi = False
        if not sep:
            continue
        key = key.strip()
        if key == "CDI spec directories":
            in_cdi = True
            continue
        if key == "Version" and section == "client" and client_version is None:
            client_version = _value(value)
            continue
        field = _DOCKER_KEYS.get(key)
        if field is not None and field not in found:
            found[field] = value.strip()
    if not found and client_version is None and not errors:
        raise ParseError("not `docker info` output: no Server Version / Runtimes / Default Runtime lines")
    return DockerInfo(
        client_version=client_version,
        server_version=_value(found.get("server_version", "")),
        runtimes=tuple(found.get("runtimes", "").split()),
        default_runtime=_value(found.get("default_runtime", "")),
        cgroup_driver=_value(found.get("cgroup_driver", "")),
        cgroup_version=_value(found.get("cgroup_version", "")),
        cdi_spec_dirs=tuple(cdi_dirs),
        operating_system=_value(found.get("operating_system", "")),
        kernel_version=_value(found.get("kernel_version", "")),
        architecture=_value(found.get("architecture", "")),
        warnings=tuple(warnings),
        errors=tuple(errors),
    )


_CLI_KEYS = {
    "Device Index": "index",
    "Device Minor": "minor",
    "Model": "model",
    "Brand": "brand",
    "GPU UUID": "uuid",
    "Bus Location": "bus_location",
    "Architecture": "architecture",
}
# Debug lines of `nvidia-container-cli -k -d /dev/tty info` look like "I1228 10:00:00.1 123 nvc.c:...".
_DEBUG_LINE_RE = re.compile(r"^[IWE]\d{4} ")


def _int(value: str | None) -> int | None:
    if value is None or not (value.isascii() and value.isdigit()) or len(value) > 9:
        return None
    return int(value)


def parse_nvidia_container_cli_info(text: str) -> ContainerCliInfo:
    """Parse `nvidia-container-cli info`.  Raises ParseError without an NVRM/CUDA line or a device block.

    Error output ("nvidia-container-cli: initialization error: ...") is refused; classify
    it with error_texts.classify_error_text.
    """
    require_text(text, "nvidia-container-cli info")
    driver = cuda = None
    saw_header = False
    devices: list[dict[str, str | None]] = []
    for line in text.splitlines():
        if _DEBUG_LINE_RE.match(line):
            continue
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip()
        if key == "NVRM version":
            driver, saw_header = _value(value), True
        elif key == "CUDA version":
            cuda, saw_header = _value(value), True
        elif key in _CLI_KEYS:
            if key == "Device Index" or not devices:
                devices.append({})
            devices[-1].setdefault(_CLI_KEYS[key], _value(value))
    if not saw_header and not devices:
        raise ParseError("not `nvidia-container-cli info` output: no 'NVRM version:' / 'Device Index:' lines")
    return ContainerCliInfo(
        driver_version=driver,
        cuda_version=cuda,
        devices=tuple(
            ContainerCliDevice(
                index=_int(d.get("index")),
                minor=_int(d.get("minor")),
                model=d.get("model"),
                brand=d.get("brand"),
                uuid=d.get("uuid"),
                bus_location=d.get("bus_location"),
                architecture=d.get("architecture"),
            )
            for d in devices
        ),
    )
