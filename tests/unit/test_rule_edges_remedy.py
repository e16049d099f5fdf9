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


@pytest.mark.parametrize(
    ("distro", "argvs"),
    [
        # Ubuntu's derivatives install from its archive: Linux Mint (its ID, as a paste naming it records it, or its
        # live os-release's ID_LIKE) and Pop!_OS (ID_LIKE "ubuntu debian") take ubuntu-drivers, never Debian's package
        (Distro(id="linuxmint", id_like="debian"), [("apt-get", "update"), ("ubuntu-drivers", "install")]),
        (Distro(id="linuxmint", id_like="ubuntu debian"), [("apt-get", "update"), ("ubuntu-drivers", "install")]),
        (Distro(id="pop", id_like="ubuntu debian"), [("apt-get", "update"), ("ubuntu-drivers", "install")]),
        (Distro(id="debian"), [("apt-get", "update"), ("apt-get", "install", "-y", "nvidia-driver")]),
    ],
)
def test_ubuntus_derivatives_take_ubuntus_driver_route(distro, argvs):
    from gpudoctor.planner.remedy import driver_install, ubuntu_archive

    facts = with_platform(facts_of(BASE), distro=distro)
    assert ubuntu_archive(facts) == (argvs[1][0] == "ubuntu-drivers")
    assert [c.argv for c in driver_install(facts)] == argvs


def test_the_driver_floor_of_an_images_cuda_is_the_matrix_toolkit_driver():
    # nvidia-docker's threads (#536, #543): an image's cuda>=9.0 against an older host driver; 384.81 is CUDA 9.0's
    # toolkit driver (compat_matrix/cuda_driver.toml), 418.39 CUDA 10.1's (pytorch/pytorch#4546)
    from gpudoctor.checks.reported import cuda_floor
    from tests.unit.test_checks_prescriptions import CTX

    facts = facts_of(BASE)
    assert [cuda_floor(facts, CTX, c) for c in ("9.0", "10.1", "")] == ["384.81", "418.39", None]
