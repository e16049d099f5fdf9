"""Transfer sizes: parsing `--sizes` and printing sizes. Pure; every unit is a power of 1024."""

from __future__ import annotations

import re

from gpudoctor.errors import UsageError

KIB = 1024
MIB = 1024 * 1024
GIB = 1024 * 1024 * 1024

# 64 KiB to 256 MiB in powers of two: 13 sizes, the range bandwidthTest's shmoo mode covers
# where copies go from launch-bound to link-bound.
DEFAULT_SIZES: tuple[int, ...] = tuple(64 * KIB << i for i in range(13))
MAX_SIZE = 16 * GIB

_UNITS = {"": 1, "k": KIB, "m": MIB, "g": GIB}
_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]?)(?:i?b)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """'64K', '64KiB', '1M', '256MiB', '1G', '4096' -> bytes (K, M, G are 1024-based)."""
    match = _SIZE.match(text)
    if not match:
        raise UsageError(f"not a transfer size: {text!r}", "write sizes as 64K, 1M, 256M or 1G (powers of 1024) or in bytes")
    value = int(match.group(1)) * _UNITS[match.group(2).lower()]
    if value <= 0:
        raise UsageError(f"a transfer size must be positive: {text!r}")
    if value > MAX_SIZE:
        raise UsageError(f"transfer size {text!r} is larger than {format_size(MAX_SIZE)}")
    return value


def parse_sizes(text: str) -> tuple[int, ...]:
    """`--sizes`: a list ('1M,16M,256M'), a range of powers of two ('64K-256M'), or both mixed.

    The result is sorted and without duplicates. A range doubles from its start up to its end.
    """
    sizes: set[int] = set()
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise UsageError("--sizes is empty", "for example --sizes 64K-256M or --sizes 1M,32M,256M")
    for part in parts:
        if "-" in part:
            low_text, _, high_text = part.partition("-")
            low, high = parse_size(low_text), parse_size(high_text)
            if low > high:
                raise UsageError(f"size range {part!r} runs backwards")
            size = low
            while size <= high:
                sizes.add(size)
                size *= 2
        else:
            sizes.add(parse_size(part))
    if len(sizes) > 64:
        raise UsageError(f"--sizes names {len(sizes)} sizes; at most 64")
    return tuple(sorted(sizes))


def format_size(nbytes: int) -> str:
    """Bytes as the shortest exact binary unit: 65536 -> '64 KiB', 268435456 -> '256 MiB', 1000 -> '1000 B'."""
    for unit, factor in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if nbytes >= factor and nbytes % factor == 0:
            return f"{nbytes // factor} {unit}"
    return f"{nbytes} B"


def short_size(nbytes: int) -> str:
    """Compact axis label: '64K', '1M', '256M', '1G'."""
    return format_size(nbytes).replace(" KiB", "K").replace(" MiB", "M").replace(" GiB", "G").replace(" B", "")
