"""The driver store on the one public capture with two NVIDIA display packages, and the probe that reads it.

The capture (tests/fixtures/windows/pnputil-enum-drivers-class-display_en_win11_nvidia-596.59-and-591.86.txt) is
`pnputil /enum-drivers /class Display` from a ThinkPad P1 Gen 7 with an eGPU (github.com/David-Martel/PC-AI,
Reports/workstation-audit-20260606-124859/pnputil-drivers-display.txt): oem236.inf (nvltwi.inf, 596.59) drives the
internal RTX 2000 Ada, which fails with code 31, and oem395.inf (nv_dispig.inf, 591.86) the eGPU, the driver NVML
reports. The machine is tests/machines/windows-egpu-rtx5060ti-ada-laptop-two-nvidia-releases.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpudoctor.cmdline import render_all
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
from gpudoctor.parsers.pnputil import nvidia_display_packages, parse_enum_drivers
from gpudoctor.probed import Found, Unknown
from gpudoctor.probes.windows import probe_driver_store

TESTS = Path(__file__).resolve().parent.parent
CAPTURE = TESTS / "fixtures" / "windows" / "pnputil-enum-drivers-class-display_en_win11_nvidia-596.59-and-591.86.txt"
MACHINE = TESTS / "machines" / "windows-egpu-rtx5060ti-ada-laptop-two-nvidia-releases" / "snapshot.json"
CLASS_DISPLAY = "pnputil /enum-drivers /class Display"


def _store_finding(snap: dict):
    (f,) = [f for f in diagnose(ReplayHost(snap)).findings if f.code == "windows-driver-store-stale"]
    return f


def test_the_windows_11_class_display_listing_is_read():
    packages = parse_enum_drivers(CAPTURE.read_text(encoding="utf-8"))
    # DisplayLink, Intel, LuminonCore, then the two NVIDIA packages; "Attributes:" continuation lines
    # ("Attested") and the newer fields (Class Version, WHCP Version) belong to no field that is read.
    assert [p.published_name for p in packages] == ["oem275.inf", "oem16.inf", "oem251.inf", "oem236.inf", "oem395.inf"]
    assert all(p.is_display for p in packages)
    nvidia = nvidia_display_packages(packages)
    assert [(p.published_name, p.original_name, p.version, p.nvidia_version, p.date) for p in nvidia] == [
        ("oem236.inf", "nvltwi.inf", "32.0.15.9659", "596.59", "05/21/2026"),
        ("oem395.inf", "nv_dispig.inf", "32.0.15.9186", "591.86", "01/20/2026"),
    ]


def test_the_newer_package_of_the_gpu_nvml_cannot_see_is_never_offered_for_deletion():
    f = _store_finding(load_snapshot(str(MACHINE)))
    lines = render_all(f.remediation.commands, "powershell")
    assert lines == ["# as Administrator", "pnputil /enum-devices /class Display /drivers"]
    assert "KEEP oem395.inf" in f.remediation.summary and "the newer oem236.inf (596.59)" in f.remediation.summary
    assert "Not offered: oem236.inf (596.59): newer than the running driver" in f.detail


def _with_nvml(snap: dict, driver: str, gpus: int) -> dict:
    snap = json.loads(json.dumps(snap))
    snap["nvml"]["driver_version"] = driver
    snap["nvml"]["devices"] = [{"index": i, "name": "NVIDIA GeForce RTX 5060 Ti"} for i in range(gpus)]
    return validate_snapshot(snap)


def test_the_same_store_seen_from_the_other_release_and_with_two_gpus():
    # The same store on a machine running 596.59 (oem236.inf in use): oem395.inf (591.86) is older, and with
    # one GPU another INF family is a leftover: offered, and no newer package asks for a look at the devices.
    snap = json.loads(MACHINE.read_text(encoding="utf-8"))
    f = _store_finding(_with_nvml(snap, "596.59", 1))
    assert render_all(f.remediation.commands, "powershell") == [
        "# as Administrator, driver 591.86",
        "pnputil /delete-driver oem395.inf",
    ]
    assert "newer" not in f.detail
    # Two GPUs listed and 591.86 running: oem236.inf is both another family and newer; still never offered.
    f = _store_finding(_with_nvml(snap, "591.86", 2))
    assert not any("/delete-driver" in line for line in render_all(f.remediation.commands, "powershell"))


def test_beside_a_newer_package_held_back_the_older_ones_are_still_offered():
    # The capture with one more, older nv_dispig.inf (576.52) appended: still one GPU and 591.86 running.
    snap = json.loads(MACHINE.read_text(encoding="utf-8"))
    entry = snap["commands"][CLASS_DISPLAY]
    entry["stdout"] += (
        "Published Name:     oem12.inf\nOriginal Name:      nv_dispig.inf\nProvider Name:      NVIDIA\n"
        "Class Name:         Display\nClass GUID:         {4d36e968-e325-11ce-bfc1-08002be10318}\n"
        "Driver Version:     05/19/2025 32.0.15.7652\n\n"
    )
    f = _store_finding(validate_snapshot(snap))
    assert render_all(f.remediation.commands, "powershell") == [
        "# as Administrator",
        "pnputil /enum-devices /class Display /drivers",
        "# as Administrator, driver 576.52",
        "pnputil /delete-driver oem12.inf",
    ]
    assert "the older packages below are not in use" in f.remediation.summary


def _replay(commands: dict) -> ReplayHost:
    return ReplayHost(
        validate_snapshot({"format": "gpudoctor-snapshot/1", "platform": {"system": "Windows"}, "commands": commands})
    )


def test_the_probe_reads_the_display_class_listing_first():
    capture = CAPTURE.read_text(encoding="utf-8")
    found = probe_driver_store(_replay({CLASS_DISPLAY: {"rc": 0, "stdout": capture, "stderr": ""}}), 5.0)
    assert isinstance(found, Found) and found.source == "cmd:" + CLASS_DISPLAY
    assert [p.published_name for p in found.value] == ["oem236.inf", "oem395.inf"]


def test_the_probe_falls_back_to_the_whole_store_where_class_is_not_understood():
    capture = CAPTURE.read_text(encoding="utf-8")
    whole = {"pnputil /enum-drivers": {"rc": 0, "stdout": capture, "stderr": ""}}
    for answer in (
        {"rc": 87, "stdout": "", "stderr": "Invalid argument: /class"},  # an older pnputil refuses the flag
        {"rc": 0, "stdout": "Microsoft PnP Utility\n\n", "stderr": ""},  # or lists nothing
    ):
        found = probe_driver_store(_replay({CLASS_DISPLAY: answer, **whole}), 5.0)
        assert isinstance(found, Found) and found.source == "cmd:pnputil /enum-drivers"
        assert len(found.value) == 2


def test_a_timeout_of_the_first_listing_is_final():
    host = _replay(
        {
            CLASS_DISPLAY: {"timeout": True, "timeout_s": 5.0},
            "pnputil /enum-drivers": {"rc": 0, "stdout": CAPTURE.read_text(encoding="utf-8"), "stderr": ""},
        }
    )
    result = probe_driver_store(host, 5.0)
    assert isinstance(result, Unknown) and result.kind == "timeout"
