"""Compare the raw version strings the parsers return ("535.104.05", "12.4", "2.2.1+cu121") with packaging.

Parsers keep versions exactly as printed; these helpers give callers ordering without changing them.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version


def as_version(raw: str | None) -> Version | None:
    """packaging Version for `raw`, or None when it is absent or not a PEP 440 version ("64_112", "N/A").

    "535.104.05" compares as 535.104.5, which is the order NVIDIA means; the raw string is
    still what should be shown to users.
    """
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        return Version(raw.strip())
    except (InvalidVersion, ValueError):  # ValueError: absurdly long digit runs
        return None


def version_at_least(raw: str | None, minimum: str) -> bool | None:
    """True/False when both parse; None when `raw` is absent or unparseable (unknown, not "too old")."""
    have, need = as_version(raw), as_version(minimum)
    if have is None or need is None:
        return None
    return have >= need


def major_minor(raw: str | None) -> tuple[int, int] | None:
    """(12, 4) from "12.4", "12.4.131" or "V12.4"; None if there is no major.minor."""
    version = as_version(raw)
    if version is None or len(version.release) < 2:
        return None
    return version.release[0], version.release[1]
