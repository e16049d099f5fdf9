"""Shared helpers for the parsers: placeholder values, unit-suffixed numbers, input checks.

Accepts nvidia-smi placeholders with and without brackets ("N/A", "[N/A]", "[Not Supported]").
"""

from __future__ import annotations

from gpudoctor.errors import ParseError
from gpudoctor.lazypattern import LazyPattern

# nvidia-smi prints these instead of a value, bare in XML and the table and in
# brackets in CSV.  They mean "no value", so callers get None.
_UNAVAILABLE = frozenset(
    {
        "n/a",
        "not supported",
        "unknown error",
        "requested functionality has been deprecated",
        "insufficient permissions",
        "not available",
    }
)

# Hard cap on what a parser will look at: the largest real capture is ~90 KB, a
# 32-GPU XML dump is a few MB.  Anything far larger is not a capture.
MAX_TEXT_CHARS = 64 * 1024 * 1024

_INT_RE = LazyPattern(r"[+-]?\d+")
_NUMBER_RE = LazyPattern(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
_VERSION_RE = LazyPattern(r"\d+(?:\.\d+)*")


def require_text(text: object, what: str) -> str:
    """Return `text` if it is a str of sane size, else raise ParseError (never TypeError)."""
    if not isinstance(text, str):
        raise ParseError(f"{what}: expected text, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise ParseError(f"{what}: input is {len(text)} characters, more than any real capture")
    return text


def clean(value: str | None) -> str | None:
    """Strip a value; None for empty text and nvidia-smi's "no value" placeholders."""
    if value is None:
        return None
    stripped = value.strip()
    if not stripped:
        return None
    inner = stripped
    if inner.startswith("[") and inner.endswith("]"):
        inner = inner[1:-1].strip()
    if inner.lower() in _UNAVAILABLE:
        return None
    return stripped


def is_unavailable(value: str | None) -> bool:
    """True when `value` is empty or one of nvidia-smi's placeholders ("N/A", "[Not Supported]"...)."""
    return clean(value) is None


def int_with_unit(value: str | None, unit: str | None = None) -> int | None:
    """ "40960 MiB" -> 40960, "16x" -> 16 (unit "x"); None when absent, a placeholder or not a number.

    When `unit` is given the value must carry exactly that unit (or none at all):
    a number in some other unit is not silently taken as if it were ours.
    """
    text = clean(value)
    if text is None:
        return None
    if unit is not None and text.endswith(unit):
        text = text[: -len(unit)].strip()
    if not _INT_RE.fullmatch(text):
        return None
    try:
        return int(text)
    except ValueError:  # absurdly long digit strings (int max-str-digits)
        return None


def float_with_unit(value: str | None, unit: str | None = None) -> float | None:
    """ "66.92 W" -> 66.92; None when absent, a placeholder or not a number."""
    text = clean(value)
    if text is None:
        return None
    if unit is not None and text.endswith(unit):
        text = text[: -len(unit)].strip()
    if not _NUMBER_RE.fullmatch(text):
        return None
    try:
        return float(text)
    except (ValueError, OverflowError):
        return None


def yes_no(value: str | None) -> bool | None:
    """nvidia-smi booleans: Enabled/Disabled, Yes/No, On/Off -> True/False; anything else None."""
    text = clean(value)
    if text is None:
        return None
    lowered = text.lower()
    if lowered in ("enabled", "yes", "on", "true", "active"):
        return True
    if lowered in ("disabled", "no", "off", "false", "not active"):
        return False
    return None


def looks_like_version(value: str | None) -> bool:
    """True for dotted numeric versions such as "535.104.05", "12.4" or "35.3.1"."""
    return value is not None and _VERSION_RE.fullmatch(value) is not None
