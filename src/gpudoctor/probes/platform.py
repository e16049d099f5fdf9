"""Operating system, distribution, container and WSL, and the allow-listed environment."""

from __future__ import annotations

from gpudoctor.facts import Distro, PlatformFacts
from gpudoctor.host import Host


def parse_os_release(text: str) -> Distro:
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip().strip('"').strip("'")
    return Distro(values.get("ID"), values.get("VERSION_ID"), values.get("PRETTY_NAME"), values.get("ID_LIKE"))


def detect_container(host: Host, env: dict[str, str]) -> tuple[str | None, str | None]:
    """Which container runtime this runs in, and the evidence; (None, None) on bare metal or a VM."""
    if env.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes", "KUBERNETES_SERVICE_HOST is set"
    if host.exists("/run/.containerenv"):
        return "podman", "/run/.containerenv exists"
    if host.exists("/.dockerenv"):
        return "docker", "/.dockerenv exists"
    if env.get("container"):
        return env["container"], f"container={env['container']} is set"
    cgroup = host.read_text_or_none("/proc/1/cgroup") or ""
    for marker, name in (("kubepods", "kubernetes"), ("docker", "docker"), ("libpod", "podman"), ("lxc", "lxc")):
        if marker in cgroup:
            return name, f"/proc/1/cgroup mentions {marker}"
    return None, None


def detect_wsl(release: str, proc_version: str, has_dxg: bool) -> int | None:
    """WSL2 kernels say `microsoft-standard` (and expose /dev/dxg); WSL1 reports `Microsoft`."""
    text = f"{release} {proc_version}"
    if "microsoft-standard" in text.lower() or "WSL2" in text or has_dxg:
        return 2
    if "Microsoft" in text:
        return 1
    return None


def probe_platform(host: Host) -> PlatformFacts:
    plat = host.platform()
    env = dict(host.env())
    os_release = host.read_text_or_none("/etc/os-release") or host.read_text_or_none("/usr/lib/os-release")
    distro = parse_os_release(os_release) if os_release else Distro()
    container, evidence = detect_container(host, env)
    proc_version = host.read_text_or_none("/proc/version") or ""
    wsl = None
    if plat.get("system", "Linux") == "Linux":
        wsl = detect_wsl(plat.get("release", ""), proc_version, host.exists("/dev/dxg"))
    return PlatformFacts(
        system=plat.get("system", "Linux"),
        release=plat.get("release", ""),
        machine=plat.get("machine", ""),
        distro=distro,
        container=container,
        container_evidence=evidence,
        wsl=wsl,
        env=env,
    )
