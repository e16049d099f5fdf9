"""docs/findings/driver-unreachable: where modprobe already says the kernel refused the nvidia module for its signature
("could not insert 'nvidia': Key was rejected by service"), the plan enrolls the module's signing key first (the module
is built and found), instead of running the diagnosis again; elsewhere the plan stays the diagnosis.

Real data: blind set 15's Ubuntu report
(tests/blind/plans15/cases/1550-ubuntu-nvidia-graphics-drivers-62-secure-boot-dkms-535-module-key-rejected-by-service-nvidia-smi-fails/input.txt)
and https://github.com/acidanthera/bugtracker/issues/2237 (a comment, verbatim: nvidia-smi cut off, the journal's
modprobe lines; no distribution named). Quiet twins: blind set 14's CachyOS case 1444 (DKMS built no module for the
kernel: nothing refused) and https://github.com/linux-surface/linux-surface/issues/906 (the same refusal of another
module, vboxdrv, with no NVIDIA failure)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.facts import MODULE_KEY_REFUSED
from tests.spec.machine import argv_of, pasted_findings, pasted_report
from tests.spec.registry import FIRES, QUIET, states

ACIDANTHERA_2237 = (
    "You can double-check if the driver is working by issuing:\n"
    "\n"
    "```\n"
    "$ nvidia-smi\n"
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
    "driver is installed and running.\n"
    "```\n"
    "\n"
    "I'm also attatching a journalctl log (Cleaned all contents of the log and rebooted to grab a fresh journal):\n"
    "\n"
    "```\n"
    "mar 06 15:10:43 CS3003NS gdm3[7055]: modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n"
    "mar 06 15:10:53 CS3003NS gdm3[7066]: modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n"
    "mar 06 15:12:17 CS3003NS nvidia-settings-autostart.desktop[2777]: ERROR: NVIDIA driver is not loaded\n"
    "```\n"
)

LINUX_SURFACE_906 = (
    "Yesterday I upgrade to Ubuntu 22.04 from Ubuntu 20.04. Now all DKMS kernel modules like vboxdrv or nvidia give\n"
    "\n"
    "`modprobe: ERROR: could not insert 'vboxdrv': Key was rejected by service`\n"
)


def _text(path: str) -> str:
    (p,) = Path(".").glob(path)
    return p.read_text(encoding="utf-8")


@states("driver-unreachable", FIRES)
def test_a_refused_signature_enrolls_the_key_before_anything_else():
    ubuntu = argv_of(pasted_findings(_text("tests/blind/plans15/cases/1550-*/input.txt"))["driver-unreachable"])
    # Ubuntu's DKMS key (its update-secureboot-policy), the reboot into the MOK manager, then the module loads
    assert ubuntu == [
        ("mokutil", "--sb-state"),
        ("update-secureboot-policy", "--enroll-key"),
        ("reboot",),
        ("modprobe", "nvidia"),
    ]
    # no distribution named: the read that decides whose key signs the module, in the same place
    unnamed = argv_of(pasted_findings(ACIDANTHERA_2237)["driver-unreachable"])
    assert unnamed == [("mokutil", "--sb-state"), ("cat", "/etc/os-release"), ("modprobe", "nvidia")]


@states("driver-unreachable", QUIET)
def test_no_enrollment_first_where_nothing_says_the_kernel_refused_the_module():
    words = argv_of(pasted_findings(_text("tests/blind/plans14/cases/1444-*/input.txt"))["driver-unreachable"])
    assert words[0] == ("lsmod",) and ("dkms", "autoinstall") in words
    assert not any("--enroll-key" in w or "--import" in w for w in words)
    # another module refused, nothing about NVIDIA failing: no cue for the nvidia module, no driver finding
    r = pasted_report(LINUX_SURFACE_906)
    assert not [c for c in r.facts.pasted.cues if c.get("cue") == MODULE_KEY_REFUSED]
    assert "driver-unreachable" not in {f.code for f in r.findings}
