"""Remediation commands written for the probed machine: apt or dnf, pip in the probed environment.

Pure: built from facts only. The doctor prints these; it never runs them.
"""

from __future__ import annotations

import shlex

from gpudoctor.facts import Facts
from gpudoctor.probed import Found


def family(facts: Facts) -> str:
    """debian, rhel, suse, arch or unknown, from /etc/os-release."""
    d = facts.platform.distro
    ids = f"{d.id or ''} {d.id_like or ''}".lower()
    if any(x in ids for x in ("debian", "ubuntu")):
        return "debian"
    if any(x in ids for x in ("rhel", "fedora", "centos", "rocky", "almalinux", "amzn")):
        return "rhel"
    if "suse" in ids:
        return "suse"
    if "arch" in ids:
        return "arch"
    return "unknown"


def python_exe(facts: Facts) -> str:
    env = facts.frameworks.python
    return shlex.quote(env.value.executable) if isinstance(env, Found) else "python3"


def pip(facts: Facts, *args: str) -> str:
    return f"{python_exe(facts)} -m pip " + " ".join(args)


def driver_install(facts: Facts, branch: str | None = None) -> tuple[str, ...]:
    fam = family(facts)
    if fam == "debian":
        if branch:
            return ("sudo apt-get update", f"sudo apt-get install -y nvidia-driver-{branch}")
        return ("sudo apt-get update", "sudo ubuntu-drivers install  # or: sudo apt-get install -y nvidia-driver-<branch>")
    if fam == "rhel":
        return (f"sudo dnf module install -y nvidia-driver:{branch or 'latest'}-dkms",)
    return ("Install the NVIDIA driver from your distribution's packages or NVIDIA's installer for your GPU.",)


def reboot() -> tuple[str, ...]:
    return ("sudo reboot",)
