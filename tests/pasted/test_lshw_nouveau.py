"""lshw -C display as pasted: an NVIDIA device whose configuration names driver=nouveau is held by nouveau, so the
report says driver-nouveau (its plan checks Secure Boot first); a device lshw lists without a driver, or another
vendor's held by its own driver, says nothing of nouveau. Real pastes; codes and argv, not prose."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.pasted.blocks import find_blocks

ROOT = Path(__file__).resolve().parents[2]
# tests/blind/plans10/cases/1004-*: a laptop's RTX 3050 under nouveau, pasted from `sudo lshw -C display` without
# its "*-display" line
CASE = next((ROOT / "tests" / "blind" / "plans10" / "cases").glob("1004-*")) / "input.txt"

# Ubuntu Forums, "Ubuntu 17.04 Nouveau driver HDMI second monitor not detected, kernel 4.12" (2017-09-18, as the
# code index stores the thread): the reporter's second `sudo lshw -C display`, after the proprietary driver's purge
FORUM_NOUVEAU = """> sudo lshw -C display  *-display
       description: VGA compatible controller
       product: GP107 [GeForce GTX 1050 Ti]
       vendor: NVIDIA Corporation
       physical id: 0
       bus info: pci@0000:01:00.0
       version: a1
       width: 64 bits
       clock: 33MHz
       capabilities: pm msi pciexpress vga_controller bus_master cap_list rom
       configuration: driver=nouveau latency=0
       resources: irq:44 memory:f6000000-f6ffffff memory:e0000000-efffffff memory:f0000000-f1ffffff ioport:e000(size=128) memory:c0000-dffff
"""

# The same thread's first paste: lshw lists the GPU UNCLAIMED, no driver bound at all (quiet twin: no nouveau)
FORUM_UNCLAIMED = """> sudo lshw -C display
  *-display UNCLAIMED
       description: VGA compatible controller
       product: GP107 [GeForce GTX 1050 Ti]
       vendor: NVIDIA Corporation
       physical id: 0
       bus info: pci@0000:01:00.0
       version: a1
       width: 64 bits
       clock: 33MHz
       capabilities: pm msi pciexpress vga_controller cap_list
       configuration: latency=0
       resources: memory:f6000000-f6ffffff memory:e0000000-efffffff memory:f0000000-f1ffffff ioport:e000(size=128) memory:c0000-dffff
"""


def _run(text: str):
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    report = diagnose(ReplayHost(snap))
    assert not report.internal_errors, report.internal_errors
    return report, {f.code: f for f in report.findings}


def test_lshw_is_a_block_of_its_own():
    assert [b.kind for b in find_blocks(FORUM_NOUVEAU)] == ["lshw"]
    assert [b.kind for b in find_blocks(FORUM_UNCLAIMED)] == ["lshw"]


def test_an_nvidia_device_lshw_shows_bound_to_nouveau_is_driver_nouveau():
    # Ubuntu named (the case's kernel release): the blacklist, then the driver install, then the reboot that loads it
    report, codes = _run(CASE.read_text(encoding="utf-8"))
    assert report.facts.kernel.nouveau_loaded is True
    argv = [tuple(map(str, c.argv)) for c in codes["driver-nouveau"].remediation.commands]
    assert argv[0] == ("mokutil", "--sb-state")  # Secure Boot decides how the driver's module will load
    assert ("printf", "%s\\n", "blacklist nouveau", "options nouveau modeset=0") in argv
    assert argv.index(("ubuntu-drivers", "install")) < argv.index(("reboot",)) == len(argv) - 1
    # no distribution shown: no blacklist and reboot without the install before it (that reboot would come up with no
    # driver at all); the asks decide the install first
    report, codes = _run(FORUM_NOUVEAU)
    assert report.facts.kernel.nouveau_loaded is True
    assert codes["driver-nouveau"].remediation.commands == ()
    assert [tuple(map(str, a.command.argv)) for a in ask_for(report.facts, report.findings)] == [("cat", "/etc/os-release")]


def test_a_device_lshw_lists_without_a_driver_says_nothing_of_nouveau():
    report, codes = _run(FORUM_UNCLAIMED)
    assert report.facts.kernel.nouveau_loaded is not True
    assert "driver-nouveau" not in codes


def test_another_vendors_device_under_its_own_driver_says_nothing_of_nouveau():
    # the Intel iGPU beside an NVIDIA one held by nvidia (a hybrid laptop's lshw): neither is nouveau
    text = FORUM_NOUVEAU.replace("NVIDIA Corporation", "Intel Corporation").replace("driver=nouveau", "driver=i915")
    report, codes = _run(text)
    assert report.facts.kernel.nouveau_loaded is not True
    assert "driver-nouveau" not in codes


def test_an_nvidia_device_held_by_the_nvidia_driver_says_nothing_of_nouveau():
    # the recorded case tests/pasted/cases/verba-72-*: lshw shows driver=nvidia beside the module's version
    text = (ROOT / "tests" / "pasted" / "cases" / "verba-72-driver470-found-11040-proc-version" / "report.txt").read_text(
        encoding="utf-8"
    )
    assert "lshw" in [b.kind for b in find_blocks(text)]
    report, codes = _run(text)
    assert report.facts.kernel.nouveau_loaded is not True
    assert "driver-nouveau" not in codes
