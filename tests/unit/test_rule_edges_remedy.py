"""The shared fix commands, per distribution family, exactly: which run as root and in what order.

Package managers' own commands: apt-get(8) and dpkg(1) (--configure -a finishes an interrupted upgrade),
dnf(8) (`check`, `distro-sync`), zypper(8) (`verify`), pacman(8) (`-Syu`).
"""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import render_all
from gpudoctor.facts import Distro
from gpudoctor.planner.remedy import family, installed_driver_packages, package_repair
from tests.unit.test_checks_prescriptions import facts_of, with_platform

BASE = "rtx3080-no-driver"


@pytest.mark.parametrize(
    ("distro", "fam", "repair", "listing"),
    [
        (
            Distro(id="ubuntu", id_like="debian"),
            "debian",
            ["sudo apt-get update", "sudo dpkg --configure -a", "sudo apt-get install --fix-broken -y"],
            ["dpkg -l | grep -i nvidia"],
        ),
        (
            Distro(id="rocky", id_like="rhel centos fedora"),
            "rhel",
            ["sudo dnf check", "sudo dnf distro-sync -y"],
            ["rpm -qa | grep -i nvidia"],
        ),
        (Distro(id="amzn"), "rhel", ["sudo dnf check", "sudo dnf distro-sync -y"], ["rpm -qa | grep -i nvidia"]),
        (Distro(id="opensuse-leap", id_like="suse opensuse"), "suse", ["sudo zypper verify"], ["rpm -qa | grep -i nvidia"]),
        (Distro(id="arch"), "arch", ["sudo pacman -Syu"], ["pacman -Q | grep -i nvidia"]),
        (Distro(id="gentoo"), "unknown", [], []),
    ],
)
def test_package_repair_and_listing_per_family(distro, fam, repair, listing):
    facts = with_platform(facts_of(BASE), distro=distro)
    assert family(facts) == fam
    assert render_all(package_repair(facts), "posix") == repair
    assert render_all(installed_driver_packages(facts), "posix") == listing
