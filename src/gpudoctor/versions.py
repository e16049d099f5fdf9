"""Version strings as machines print them, compared as numbers.

Driver versions have two or three parts ("595.80", "535.104.05"), CUDA
versions two or three ("12.4", "12.4.131"); leading zeros are not
significant when comparing ("05" == 5) but are kept for display.
"""

from __future__ import annotations

import re

_NUMS = re.compile(r"\d+")


def vkey(version: str | None) -> tuple[int, ...]:
    """Numeric sort key: "535.104.05" -> (535, 104, 5); "" or None -> ()."""
    if not version:
        return ()
    head = re.match(r"[\d.]+", version.strip())
    if not head:
        return ()
    return tuple(int(n) for n in _NUMS.findall(head.group(0)))


def major(version: str | None) -> int | None:
    key = vkey(version)
    return key[0] if key else None


def major_minor(version: str | None) -> str | None:
    key = vkey(version)
    if len(key) < 2:
        return str(key[0]) if key else None
    return f"{key[0]}.{key[1]}"


def cuda_from_int(value: int) -> str:
    """NVML and cuda.h encode CUDA as 1000*major + 10*minor: 12040 -> "12.4"."""
    return f"{value // 1000}.{(value % 1000) // 10}"


def at_least(version: str | None, floor: str) -> bool | None:
    """Whether `version` >= `floor`; None when `version` is unknown."""
    key = vkey(version)
    if not key:
        return None
    floor_key = vkey(floor)
    width = max(len(key), len(floor_key))
    return key + (0,) * (width - len(key)) >= floor_key + (0,) * (width - len(floor_key))
