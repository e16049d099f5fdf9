"""lspci variants: -nn, -nnk, -nn -v, plain with -D domain prefix."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.errors import ParseError
from gpudoctor.parsers.lspci import nvidia_devices, nvidia_gpus, parse_lspci, pci_address

FIXTURES = Path(__file__).parents[2] / "fixtures"
LSPCI_DIR = FIXTURES / "lspci"

# Per device, read by hand: (slot, class_name, class_code, vendor, device, name, revision, driver).
EXPECTED = {
    "a100-sxm4-40gb-and-80gb_lspci-nn.txt": [
        ("07:00.0", "3D controller", "0302", "10de", "20b0", "NVIDIA Corporation GA100 [A100 SXM4 40GB]", "a1", None),
        ("07:00.0", "3D controller", "0302", "10de", "20b2", "NVIDIA Corporation GA100 [A100 SXM4 80GB]", "a1", None),
    ],
    "geforce-gtx-1050-ti-mobile_lspci-nnk_3d-controller.txt": [
        (
            "01:00.0",
            "3D controller",
            "0302",
            "10de",
            "1c8c",
            "NVIDIA Corporation GP107M [GeForce GTX 1050 Ti Mobile]",
            "a1",
            "nvidia",
        ),
    ],
    "geforce-rtx-3080_lspci-nn-v_vga-prog-if.txt": [
        (
            "01:00.0",
            "VGA compatible controller",
            "0300",
            "10de",
            "2206",
            "NVIDIA Corporation GA102 [GeForce RTX 3080]",
            "a1",
            None,
        ),
    ],
    "unnamed-device-1db6_plain-lspci_domain-prefix.txt": [
        ("0000:5a:00.0", "3D controller", None, None, "1db6", "NVIDIA Corporation Device 1db6", "a1", None),
        ("0000:5e:00.0", "3D controller", None, None, "1db6", "NVIDIA Corporation Device 1db6", "a1", None),
    ],
}

LSPCI_FILES = sorted(p.name for p in LSPCI_DIR.iterdir())


def test_every_lspci_fixture_has_expectations() -> None:
    assert set(LSPCI_FILES) == set(EXPECTED)


@pytest.mark.parametrize("name", LSPCI_FILES)
def test_lspci_fixture_facts(name: str) -> None:
    devices = parse_lspci((LSPCI_DIR / name).read_text(encoding="utf-8"))
    got = [(d.slot, d.class_name, d.class_code, d.vendor_id, d.device_id, d.name, d.revision, d.kernel_driver) for d in devices]
    assert got == EXPECTED[name]
    assert nvidia_devices(devices) == devices
    assert nvidia_gpus(devices) == devices


def test_nnk_block_details() -> None:
    device = parse_lspci((LSPCI_DIR / "geforce-gtx-1050-ti-mobile_lspci-nnk_3d-controller.txt").read_text())[0]
    assert device.subsystem == "Dell GP107M [GeForce GTX 1050 Ti Mobile] [1028:087c]"
    assert device.kernel_modules == ("nvidiafb", "nouveau", "nvidia_drm", "nvidia")


def test_prog_if() -> None:
    device = parse_lspci((LSPCI_DIR / "geforce-rtx-3080_lspci-nn-v_vga-prog-if.txt").read_text())[0]
    assert device.prog_if == "00"


def test_filters_leave_out_other_vendors_and_audio() -> None:
    text = (
        "00:02.0 VGA compatible controller [0300]: Intel Corporation UHD Graphics 630 [8086:3e92]\n"
        "01:00.0 VGA compatible controller [0300]: NVIDIA Corporation TU104 [GeForce RTX 2080] [10de:1e87] (rev a1)\n"
        "01:00.1 Audio device [0403]: NVIDIA Corporation TU104 HD Audio Controller [10de:10f8] (rev a1)\n"
    )
    devices = parse_lspci(text)
    assert [d.slot for d in nvidia_devices(devices)] == ["01:00.0", "01:00.1"]
    assert [d.slot for d in nvidia_gpus(devices)] == ["01:00.0"]


def test_empty_and_garbage() -> None:
    assert parse_lspci("") == ()
    assert parse_lspci("\n\n") == ()
    with pytest.raises(ParseError):
        parse_lspci("lspci: command not found\n")


def test_pci_address_matches_across_tools() -> None:
    assert pci_address("00000000:0B:00.0") == pci_address("0b:00.0") == (0, 0x0B, 0, 0)
    assert pci_address("0000:5a:00.0") == (0, 0x5A, 0, 0)
    assert pci_address("not an address") is None
