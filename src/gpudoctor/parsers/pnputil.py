"""Parse `pnputil /enum-drivers` (Windows 10 1607+) and `pnputil -e` (Windows 7/8, still accepted) output.

Both print one block per driver package in the driver store, separated by blank lines:

    Published Name:     oem42.inf              (new layout)      Published name :  oem1.inf   (old layout)
    Original Name:      nv_dispi.inf                             Driver package provider : NVIDIA
    Provider Name:      NVIDIA                                   Class : Display adapters
    Class Name:         Display adapters                         Driver date and version : 06/09/2010 8.17.12.5849
    Class GUID:         {4d36e968-e325-11ce-bfc1-08002be10318}   Signer name : Microsoft Windows ...
    Driver Version:     03/22/2024 31.0.15.5222
    Signer Name:        Microsoft Windows Hardware Compatibility Publisher

The labels are translated on localised Windows (发布名称, Veröffentlichter Name, ...), so fields are found
by what their values look like where that is unambiguous (oemNN.inf, a class GUID, a date and a four-part
version), and by label in English and the localisations seen in real output otherwise. Windows 11 24H2
prints `Driver Version` and `Driver Date` on separate lines in some builds; both forms are read.

Values come from the machine: `PUBLISHED_NAME` is the only pattern a published name may have before it
goes into a command (`pnputil /delete-driver oemNN.inf`); anything else is kept as text and never offered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.parsers._common import require_text

# The driver store names third-party packages oem<N>.inf; nothing else is ever deleted by name.
PUBLISHED_NAME = re.compile(r"oem\d{1,5}\.inf\Z", re.IGNORECASE)
DISPLAY_CLASS_GUID = "{4d36e968-e325-11ce-bfc1-08002be10318}"
_GUID = re.compile(r"\{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}\Z")
_DATE_VERSION = re.compile(r"(\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4})\s+(\d+\.\d+\.\d+\.\d+)\Z")
_VERSION = re.compile(r"\d+\.\d+\.\d+\.\d+\Z")
_DATE = re.compile(r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\Z")
_INF = re.compile(r"[\w.-]+\.inf\Z", re.IGNORECASE)

# Labels (lower-cased, without the colon) of the fields that cannot be told apart by value.
_PROVIDER_LABELS = (
    "provider name",
    "driver package provider",
    "驱动程序程序包提供程序",  # zh-CN, pnputil -e
    "提供程序名称",  # zh-CN, /enum-drivers
    "anbietername",
    "treiberpaketanbieter",
    "nom du fournisseur",
    "fournisseur du package de pilotes",
    "имя поставщика",
)
_CLASS_LABELS = ("class name", "class", "类", "类名", "klassenname", "klasse", "nom de la classe", "classe", "имя класса")
# Display adapter class names as pnputil prints them (English old and new, and localisations).
_DISPLAY_CLASSES = (
    "display adapters",
    "display",
    "显示适配器",
    "grafikkarte",
    "grafikkarten",
    "adaptateurs d'affichage",
    "видеоадаптеры",
)


@dataclass(frozen=True)
class DriverPackage:
    """One package in the driver store. `published_name` is None when the block had no valid oemNN.inf."""

    published_name: str | None
    original_name: str | None
    provider: str | None
    class_name: str | None
    class_guid: str | None
    version: str | None  # the Windows driver version, 31.0.15.5222
    date: str | None  # as printed, MM/DD/YYYY in English output

    @property
    def is_display(self) -> bool:
        if self.class_guid is not None:
            return self.class_guid.lower() == DISPLAY_CLASS_GUID
        return (self.class_name or "").strip().lower() in _DISPLAY_CLASSES

    @property
    def is_nvidia(self) -> bool:
        provider = (self.provider or "").lower()
        return provider.startswith("nvidia") or (self.original_name or "").lower().startswith("nv")

    @property
    def nvidia_version(self) -> str | None:
        """The NVIDIA driver version this display package installs (31.0.15.5222 -> 552.22), or None."""
        return nvidia_version(self.version) if self.is_nvidia and self.is_display else None


def nvidia_version(windows_version: str | None) -> str | None:
    """NVIDIA's driver number from a Windows display driver version: the last five digits of the last two
    fields (31.0.15.5222 -> 15 5222 -> 552.22; 8.17.12.5849 -> 258.49). NVIDIA has numbered its Windows
    packages this way since the 2xx drivers (the Chromium GPU code reads it the same way: crrev.com/1241aea5)."""
    if not windows_version or not _VERSION.match(windows_version):
        return None
    parts = windows_version.split(".")
    digits = parts[2] + parts[3].rjust(4, "0")
    if len(digits) < 5:
        return None
    tail = digits[-5:]
    return f"{int(tail[:3])}.{tail[3:]}"


def _field(line: str) -> tuple[str, str] | None:
    # Labels end at the first colon (ASCII or full-width); values may hold colons (never in these fields).
    match = re.match(r"\s*([^:：]+?)\s*[:：]\s*(.*?)\s*\Z", line)
    if not match:
        return None
    return match.group(1).strip().lower(), match.group(2)


def _package(fields: list[tuple[str, str]]) -> DriverPackage | None:
    published = original = provider = class_name = guid = version = date = None
    for label, value in fields:
        if not value:
            continue
        if PUBLISHED_NAME.match(value) and published is None:
            published = value.lower()
            continue
        if _GUID.match(value):
            guid = value
            continue
        both = _DATE_VERSION.match(value)
        if both:
            date, version = both.group(1), both.group(2)
            continue
        if _VERSION.match(value) and version is None:
            version = value
            continue
        if _DATE.match(value) and date is None:
            date = value
            continue
        if label in _PROVIDER_LABELS:
            provider = value
        elif label in _CLASS_LABELS:
            class_name = value
        elif _INF.match(value) and original is None:
            original = value
    if provider is None:
        # Labels decoded in another console code page come out garbled; vendor names are never translated.
        provider = next((v for _, v in fields if v.lower().startswith("nvidia")), None)
    if published is None and original is None and provider is None:
        return None  # the banner ("Microsoft PnP Utility") or a stray line
    return DriverPackage(published, original, provider, class_name, guid, version, date)


def parse_enum_drivers(text: str) -> list[DriverPackage]:
    """Every package block of `pnputil /enum-drivers` or `pnputil -e`, in printed order."""
    text = require_text(text, "pnputil output")
    packages: list[DriverPackage] = []
    block: list[tuple[str, str]] = []
    for line in [*text.replace("\r\n", "\n").split("\n"), ""]:
        if not line.strip():
            if block:
                pkg = _package(block)
                if pkg is not None:
                    packages.append(pkg)
            block = []
            continue
        field = _field(line)
        if field is not None:
            # A new published name inside a block that has one already starts the next block
            # (outputs pasted without their blank lines).
            if PUBLISHED_NAME.match(field[1]) and any(PUBLISHED_NAME.match(v) for _, v in block):
                pkg = _package(block)
                if pkg is not None:
                    packages.append(pkg)
                block = []
            block.append(field)
    return packages


def nvidia_display_packages(packages: list[DriverPackage]) -> list[DriverPackage]:
    return [p for p in packages if p.is_display and p.is_nvidia]
