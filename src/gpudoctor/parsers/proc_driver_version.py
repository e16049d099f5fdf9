"""Parse /proc/driver/nvidia/version (proprietary "x86_64 Kernel Module", "Open Kernel Module for <arch>", Jetson/L4T) and /sys/module/nvidia/version.

The open module line adds "Release Build (builder@host) date"; distro builds may leave the date out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import looks_like_version, require_text


@dataclass(frozen=True)
class KernelDriver:
    """The loaded kernel module as /proc/driver/nvidia/version describes it."""

    version: str  # as printed: "565.57.01", "384.98"; on Jetson the L4T release, e.g. "35.3.1"
    flavor: str | None  # "open", "proprietary", "jetson"; None if the line names neither
    arch: str | None  # "x86_64", "aarch64", "ppc64le"...
    build_type: str | None  # "Release Build" / "Debug Build" (open module only)
    builder: str | None  # "dvs-builder@U16-A24-9-2" (open module only)
    build_date: str | None  # as printed, e.g. "Thu Oct 10 12:15:00 UTC 2024"
    compiler: str | None  # the "GCC version:" line's text, e.g. "gcc version 13.3.0 (Ubuntu ...)"
    compiler_version: str | None  # "13.3.0"
    nvrm_line: str  # the whole NVRM line, stripped, for messages


# "NVIDIA UNIX x86_64 Kernel Module  384.98  Thu Oct 26 15:16:01 PDT 2017"
_PROPRIETARY_RE = re.compile(r"NVIDIA UNIX\s+(?P<arch>\S+)\s+Kernel Module\s+(?P<version>\d+(?:\.\d+)+)(?:\s+(?P<rest>.*))?$")
# "NVIDIA UNIX Open Kernel Module for x86_64  565.57.01  Release Build  (dvs-builder@U16-A24-9-2)  Thu Oct 10 ..."
_OPEN_RE = re.compile(r"NVIDIA UNIX Open Kernel Module for\s+(?P<arch>\S+)\s+(?P<version>\d+(?:\.\d+)+)(?:\s+(?P<rest>.*))?$")
_BUILD_RE = re.compile(r"^(?P<type>\w+ Build)\s*(?:\((?P<builder>[^)]*)\))?\s*(?P<date>.*)$")
_GCC_VERSION_RE = re.compile(r"\bversion\s+(\d+(?:\.\d+)+)")


def _is_jetson(arch: str, version: str) -> bool:
    # On Jetson (Tegra) the module reports the L4T release (R32.x, R35.3.1, R36.x) as its
    # version.  Desktop/datacenter drivers, aarch64 SBSA builds included, have been
    # numbered 100 and up since 2007, so a small major on aarch64 means L4T.
    if arch != "aarch64":
        return False
    # Imported here: only an aarch64 module needs it, and packaging.version (with its pattern) is a fair part of
    # a check's start on a machine that needs packaging for nothing else.
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version).major < 100
    except (InvalidVersion, ValueError):  # ValueError: absurdly long digit runs
        return False


def parse_proc_driver_version(text: str) -> KernelDriver:
    """Parse /proc/driver/nvidia/version.  Raises ParseError without a recognisable NVRM line."""
    require_text(text, "/proc/driver/nvidia/version")
    nvrm = None
    compiler = None
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip()
        if key == "NVRM version" and nvrm is None:
            nvrm = value.strip()
        elif key == "GCC version" and compiler is None:
            compiler = value.strip() or None
    if nvrm is None:
        raise ParseError("not /proc/driver/nvidia/version: no 'NVRM version:' line")
    flavor: str | None
    match = _OPEN_RE.search(nvrm)
    if match is not None:
        flavor = "open"
    else:
        match = _PROPRIETARY_RE.search(nvrm)
        flavor = "proprietary"
    if match is None:
        raise ParseError(f"unrecognised NVRM version line: {nvrm[:200]!r}")
    arch, version = match.group("arch"), match.group("version")
    if _is_jetson(arch, version):
        flavor = "jetson"
    rest = (match.group("rest") or "").strip()
    build_type = builder = None
    build_date: str | None = rest or None
    if flavor != "proprietary":
        build = _BUILD_RE.match(rest)
        if build is not None:
            build_type = build.group("type")
            builder = (build.group("builder") or "").strip() or None
            build_date = build.group("date").strip() or None
    gcc = _GCC_VERSION_RE.search(compiler) if compiler else None
    return KernelDriver(
        version=version,
        flavor=flavor,
        arch=arch,
        build_type=build_type,
        builder=builder,
        build_date=build_date,
        compiler=compiler,
        compiler_version=gcc.group(1) if gcc else None,
        nvrm_line=nvrm,
    )


def parse_sys_module_version(text: str) -> str:
    """Parse /sys/module/nvidia/version: one line such as "565.57.01", returned as printed."""
    require_text(text, "/sys/module/nvidia/version")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != 1 or not looks_like_version(lines[0]):
        raise ParseError("not /sys/module/nvidia/version: expected a single dotted version line")
    return lines[0]
