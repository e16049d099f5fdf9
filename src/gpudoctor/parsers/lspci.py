"""Parse lspci output: plain `lspci`, `-D` domain prefixes, `-nn` ids, `-nnk` driver lines, `-v` prog-if suffixes.

Device lines start at column 0; indented lines (Subsystem, Kernel driver in use, Kernel modules) belong to the device above.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import require_text

NVIDIA_VENDOR_ID = "10de"


@dataclass(frozen=True)
class PciDevice:
    """One PCI function as lspci printed it."""

    slot: str  # as printed: "07:00.0", or "0000:5a:00.0" with -D
    class_name: str  # "3D controller", "VGA compatible controller"
    class_code: str | None  # "0302" with -nn, else None
    vendor_id: str | None  # "10de" with -nn (lower case), else None
    device_id: str | None  # "20b0" with -nn (lower case); also from a plain "Device 1db6" name
    name: str  # "NVIDIA Corporation GA100 [A100 SXM4 40GB]" (ids and rev/prog-if removed)
    revision: str | None  # "a1"
    prog_if: str | None  # "00" from "(prog-if 00 [VGA controller])"
    subsystem: str | None  # -v/-k "Subsystem:" text
    kernel_driver: str | None  # -k "Kernel driver in use:"
    kernel_modules: tuple[str, ...]  # -k "Kernel modules:"


_SLOT_RE = re.compile(r"^(?P<slot>(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])[ \t]+(?P<rest>.*)$")
# Suffix patterns are anchored at the end and start with a literal, so searching them
# stays linear even on hostile input.
_CLASS_CODE_RE = re.compile(r"\[(?P<code>[0-9a-fA-F]{4})\]$")
_PROG_IF_RE = re.compile(r"\(prog-if[ \t]+(?P<prog>[0-9a-fA-F]{2})(?:[ \t]*\[[^\]]*\])?\)$")
_REV_RE = re.compile(r"\(rev[ \t]+(?P<rev>[0-9a-fA-F]{1,2})\)$")
_IDS_RE = re.compile(r"\[(?P<vendor>[0-9a-fA-F]{4}):(?P<device>[0-9a-fA-F]{4})\]$")
_NUMERIC_RE = re.compile(r"^(?P<vendor>[0-9a-fA-F]{4}):(?P<device>[0-9a-fA-F]{4})$")
_NUMERIC_CLASS_RE = re.compile(r"^[0-9a-fA-F]{4}$")
_UNNAMED_RE = re.compile(r"\bDevice (?P<device>[0-9a-fA-F]{4})$")
# Real lspci lines are well under 300 characters; longer ones are not lspci.
_MAX_LINE_CHARS = 4096


def _device_line(line: str) -> dict[str, object] | None:
    slot_match = _SLOT_RE.match(line)
    if slot_match is None:
        return None
    class_part, sep, description = slot_match.group("rest").partition(": ")
    if not sep:
        return None
    class_name = class_part.strip()
    class_code = None
    code = _CLASS_CODE_RE.search(class_name)
    if code is not None:
        class_code = code.group("code").lower()
        class_name = class_name[: code.start()].rstrip()
    description = description.rstrip()
    prog_if = revision = vendor = device = None
    prog = _PROG_IF_RE.search(description)
    if prog is not None:
        prog_if = prog.group("prog")
        description = description[: prog.start()].rstrip()
    rev = _REV_RE.search(description)
    if rev is not None:
        revision = rev.group("rev")
        description = description[: rev.start()].rstrip()
    ids = _IDS_RE.search(description)
    numeric = _NUMERIC_RE.match(description)
    if numeric is not None and _NUMERIC_CLASS_RE.match(class_name):
        # `lspci -n`: numbers only, "00:04.0 0302: 10de:1db1 (rev a1)".
        class_code, class_name = class_name.lower(), ""
        vendor, device = numeric.group("vendor").lower(), numeric.group("device").lower()
        description = ""
    elif ids is not None:
        vendor, device = ids.group("vendor").lower(), ids.group("device").lower()
        description = description[: ids.start()].rstrip()
    else:
        # Without -n, lspci names a device its pci.ids lacks as "Device 1db6": the id itself.
        unnamed = _UNNAMED_RE.search(description)
        if unnamed is not None:
            device = unnamed.group("device").lower()
    return {
        "slot": slot_match.group("slot"),
        "class_name": class_name,
        "class_code": class_code,
        "vendor_id": vendor,
        "device_id": device,
        "name": description.strip(),
        "revision": revision,
        "prog_if": prog_if,
        "subsystem": None,
        "kernel_driver": None,
        "kernel_modules": (),
    }


def parse_lspci(text: str) -> tuple[PciDevice, ...]:
    """Parse lspci output.  Empty output gives (); text with no device line at all is a ParseError."""
    require_text(text, "lspci")
    devices: list[dict[str, object]] = []
    saw_content = False
    for line in text.splitlines():
        if not line.strip():
            continue
        saw_content = True
        if len(line) > _MAX_LINE_CHARS:
            continue
        if line[0] in " \t":
            if not devices:
                continue
            key, sep, value = line.strip().partition(":")
            if not sep:
                continue
            key, value = key.strip(), value.strip()
            if key == "Subsystem":
                devices[-1]["subsystem"] = value or None
            elif key == "Kernel driver in use":
                devices[-1]["kernel_driver"] = value or None
            elif key == "Kernel modules":
                devices[-1]["kernel_modules"] = tuple(m.strip() for m in value.split(",") if m.strip())
            continue
        device = _device_line(line)
        if device is not None:
            devices.append(device)
    if saw_content and not devices:
        raise ParseError("not lspci output: no 'BB:DD.F class: description' line")
    return tuple(PciDevice(**d) for d in devices)  # type: ignore[arg-type]


def nvidia_devices(devices: Iterable[PciDevice]) -> tuple[PciDevice, ...]:
    """Devices from NVIDIA: vendor id 10de, or (plain lspci, no ids) a name that says NVIDIA."""
    return tuple(d for d in devices if d.vendor_id == NVIDIA_VENDOR_ID or (d.vendor_id is None and "nvidia" in d.name.lower()))


def nvidia_gpus(devices: Iterable[PciDevice]) -> tuple[PciDevice, ...]:
    """NVIDIA display-class devices (class 03xx: VGA, 3D, display), leaving out their audio/USB functions."""
    return tuple(
        d
        for d in nvidia_devices(devices)
        if (d.class_code or "").startswith("03")
        or (d.class_code is None and ("VGA" in d.class_name or "3D" in d.class_name or "Display" in d.class_name))
    )


_ADDRESS_RE = re.compile(
    r"^\s*(?:(?P<domain>[0-9a-fA-F]{1,8}):)?(?P<bus>[0-9a-fA-F]{1,2}):(?P<device>[0-9a-fA-F]{1,2})\.(?P<function>[0-7])\s*$"
)


def pci_address(text: str) -> tuple[int, int, int, int] | None:
    """(domain, bus, device, function) from "00000000:0B:00.0" (nvidia-smi), "0000:0b:00.0" or "0b:00.0" (lspci).

    Lets callers match an nvidia-smi bus id against an lspci slot; None if `text` is not an address.
    """
    if not isinstance(text, str):
        return None
    match = _ADDRESS_RE.match(text)
    if match is None:
        return None
    domain = match.group("domain")
    return (
        int(domain, 16) if domain else 0,
        int(match.group("bus"), 16),
        int(match.group("device"), 16),
        int(match.group("function")),
    )
