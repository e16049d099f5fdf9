"""/proc/driver/nvidia/version and /sys/module/nvidia/version."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.errors import ParseError
from gpudoctor.parsers.proc_driver_version import parse_proc_driver_version, parse_sys_module_version

FIXTURES = Path(__file__).parents[2] / "fixtures"
PROC_DIR = FIXTURES / "proc-driver-version"

# (version, flavor, arch, build_date, compiler_version, builder), read by hand.
EXPECTED = {
    "jetson-orin-nx_aarch64_l4t-35.3.1.txt": (
        "35.3.1",
        "jetson",
        "aarch64",
        "Sun Mar 19 08:09:33 PDT 2023",
        "9.3.0",
        "buildbrain@mobile-u64-6289-d7000",
    ),
    "open-kernel-module_525.60.11_arch_no-build-date.txt": (
        "525.60.11",
        "open",
        "x86_64",
        None,
        "12.2.0",
        "archlinux-builder@localhost",
    ),
    "open-kernel-module_565.57.01_x86_64_ubuntu-24.04.txt": (
        "565.57.01",
        "open",
        "x86_64",
        "Thu Oct 10 12:15:00 UTC 2024",
        "13.3.0",
        "dvs-builder@U16-A24-9-2",
    ),
    "proprietary_384.98_ubuntu-gcc-7.2.txt": ("384.98", "proprietary", "x86_64", "Thu Oct 26 15:16:01 PDT 2017", "7.2.0", None),
}

PROC_FILES = sorted(p.name for p in PROC_DIR.iterdir())


def test_every_proc_fixture_has_expectations() -> None:
    assert set(PROC_FILES) == set(EXPECTED)


@pytest.mark.parametrize("name", PROC_FILES)
def test_proc_fixture_facts(name: str) -> None:
    driver = parse_proc_driver_version((PROC_DIR / name).read_text(encoding="utf-8"))
    assert (driver.version, driver.flavor, driver.arch, driver.build_date, driver.compiler_version, driver.builder) == EXPECTED[
        name
    ]
    assert driver.compiler is not None and driver.compiler.startswith("gcc version ")
    assert driver.compiler == driver.compiler.strip()  # the pasted trailing space is not kept


def test_open_module_build_type() -> None:
    driver = parse_proc_driver_version((PROC_DIR / "open-kernel-module_565.57.01_x86_64_ubuntu-24.04.txt").read_text())
    assert driver.build_type == "Release Build"
    assert driver.compiler == "gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)"


def test_aarch64_desktop_driver_is_not_jetson() -> None:
    text = (
        "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  550.54.14  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Thu Feb 22 01:33:23 UTC 2024\nGCC version:  gcc version 12.3.0\n"
    )
    driver = parse_proc_driver_version(text)
    assert (driver.version, driver.flavor, driver.arch) == ("550.54.14", "open", "aarch64")
    proprietary = parse_proc_driver_version(
        "NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  Sat Aug 19 01:13:13 UTC 2023\n"
    )
    assert (proprietary.version, proprietary.flavor, proprietary.compiler) == ("535.104.05", "proprietary", None)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "GCC version:  gcc version 9\n",
        "NVRM version: something else\n",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    ],
)
def test_not_proc_version(text: str) -> None:
    with pytest.raises(ParseError):
        parse_proc_driver_version(text)


def test_sys_module_version() -> None:
    assert parse_sys_module_version("565.57.01\n") == "565.57.01"
    assert parse_sys_module_version("535.104.05") == "535.104.05"
    for bad in ("", "\n", "565.57.01\n565.57.01\n", "unknown\n"):
        with pytest.raises(ParseError):
            parse_sys_module_version(bad)
