"""docs/findings/driver-unreachable: where the text says DKMS builds the nvidia module, the plan reads `dkms status` and
builds the missing module for the running kernel (`dkms autoinstall`) before modprobe; elsewhere it does not.

Real data: the CachyOS report of blind set 14
(tests/blind/plans14/cases/1444-cachyos-118-arch-linux-cachyos-kernel-nvidia-dkms-module-not-built-nvidia-smi-cannot-communicate/input.txt)
and https://github.com/M-Bab/linux-kernel-amdgpu-binaries/issues/101 (the description, verbatim: a kernel upgraded,
nvidia-smi cut off, the module built again with dkms). Quiet twins: the recorded nvidia-docker-365 case (a .run install,
`dkms` itself not installed) and blind set 10's Fedora case 1044 (akmods, Secure Boot)."""

from __future__ import annotations

from pathlib import Path

from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

AMDGPU_KERNEL_101 = (
    "When i upgrade the kernel 5.13.18 and i can not use nvidia-smi ,it shows\n"
    "```\n"
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
    "driver is installed and running.\n"
    "```\n"
    'i use "sudo dkms install -m nvidia -v 470.86" and it shows\n'
)


def _text(path: str) -> str:
    (p,) = Path(".").glob(path)
    return p.read_text(encoding="utf-8")


@states("driver-unreachable", FIRES)
def test_a_dkms_built_module_is_built_for_the_running_kernel_before_modprobe():
    for text in (_text("tests/blind/plans14/cases/1444-*/input.txt"), AMDGPU_KERNEL_101):
        words = argv_of(pasted_findings(text)["driver-unreachable"])
        at = words.index(("dkms", "autoinstall"))
        assert words[at - 1] == ("dkms", "status")
        assert words[at + 1] == ("modprobe", "nvidia")


@states("driver-unreachable", QUIET)
def test_no_dkms_build_where_the_text_does_not_say_dkms_builds_the_module():
    for path in (
        "tests/pasted/cases/nvidia-docker-365-kernel-upgrade-module-missing/report.txt",
        "tests/blind/plans10/cases/1044-*/input.txt",
    ):
        for f in pasted_findings(_text(path)).values():
            assert ("dkms", "autoinstall") not in argv_of(f), path
