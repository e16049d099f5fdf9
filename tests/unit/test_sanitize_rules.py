"""sanitize.py's documented set, one member of each range its comment names, and the escape forms."""

from __future__ import annotations

from gpudoctor.sanitize import clean, clean_line


def test_every_named_invisible_is_shown_escaped():
    """sanitize.INVISIBLE: "the soft hyphen, ... Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), ... line and paragraph
    separators ... tag characters (U+E0000-U+E0FFF)"; code points above U+FFFF escape as \\UXXXXXXXX."""
    cases = {
        "a\u00adb": "a\\xadb",
        "a\u2028b": "a\\u2028b",
        "a\u2029b": "a\\u2029b",
        "a\u3164b": "a\\u3164b",
        "a\uffa0b": "a\\uffa0b",
        "a\U000e0041b": "a\\U000e0041b",
        "a\U000e0100b": "a\\U000e0100b",
        "a\x1b]0;t\x07b": "a\\x1b]0;t\\x07b",
        "a\x85b": "a\\x85b",
    }
    assert {text: clean(text) for text in cases} == cases
    assert (clean("a\nb\tc"), clean_line("a\nb\tc")) == ("a\nb\tc", "a\\x0ab\\x09c")
