"""The one terminal sanitizer: machine data shown, never obeyed."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from gpudoctor.sanitize import SafeWriter, clean, clean_line, has_unsafe, safe_console

ATTACKS = {
    "\x1b]0;owned\x07": "\\x1b]0;owned\\x07",  # window title
    "\x1b]52;c;ZWNobyBwd25lZA==\x07": "\\x1b]52;c;ZWNobyBwd25lZA==\\x07",  # clipboard write (OSC 52)
    "ok\x1b[2K\rfake": "ok\\x1b[2K\\x0dfake",  # clear the line and write over it
    "\x9b31m": "\\x9b31m",  # a C1 CSI
    "abc\u202edcba": "abc\\u202edcba",  # right-to-left override
    "a\x00b\x7f": "a\\x00b\\x7f",
}


def test_attacks_are_shown_escaped():
    for raw, shown in ATTACKS.items():
        assert clean(raw) == shown
        assert not has_unsafe(clean(raw))


def test_newlines_kept_in_prose_but_not_in_fields():
    assert clean("a\nb\tc") == "a\nb\tc"
    assert clean_line("a\nb\tc") == "a\\x0ab\\x09c"


@given(st.text())
def test_nothing_unsafe_survives(text):
    out = clean(text)
    assert not has_unsafe(out)
    assert "\x1b" not in out and "\x9b" not in out
    # plain text is left alone
    if not has_unsafe(text):
        assert out == text


def test_safe_writer_and_console():
    buf = io.StringIO()
    SafeWriter(buf).write("GPU \x1b]0;x\x07\n")
    assert buf.getvalue() == "GPU \\x1b]0;x\\x07\n"
    out = io.StringIO()
    console = safe_console(file=out, force_terminal=True, color_system="standard", highlight=False)
    console.print("[bold]name[/bold] \x1b]52;c;AAAA\x07")
    text = out.getvalue()
    assert "\x1b]52" not in text and "\\x1b]52" in text
    assert "\x1b[1m" in text  # rich's own styling still reaches the terminal


def test_every_c0_control_but_newline_and_tab_is_escaped_in_prose():
    # clean(): newlines=True keeps only `\n` and `\t`; every other C0 control is one a terminal acts on
    # (`\r` returns to the line's start to write over it, `\x0b` and `\x0c` move the cursor down).
    assert clean("a\tb\nc") == "a\tb\nc"
    for n in (0x08, 0x0B, 0x0C, 0x0D, 0x0E):
        assert clean(f"ok{chr(n)}fake") == f"ok\\x{n:02x}fake", hex(n)
        assert has_unsafe(chr(n)), hex(n)


def test_clean_escapes_what_its_pattern_finds_and_nothing_else_on_every_code_point():
    # sanitize._nothing_to_escape answers for text that holds nothing to escape without compiling the pattern: on every
    # code point, beside printable text, with and without newlines, clean gives what the pattern alone gives.
    from gpudoctor import sanitize

    for newlines, pattern in ((True, sanitize._UNSAFE), (False, sanitize._UNSAFE_NO_NL)):
        texts = [f"a{chr(n)}" for n in range(0x110000)] + ["a\nb\tc", "a\r\nb", "\t", "\n\u034f"]
        wrong = [t for t in texts if sanitize.clean(t, newlines=newlines) != pattern.sub(sanitize._escape, t)]
        assert wrong == []
    # The answer without the pattern is given where it can be: the text view's glyphs and lines, not a hidden character.
    assert sanitize._nothing_to_escape("[green]✓[/] [bold]CUDA toolkits[/bold]: 13.0.88\n\tat /usr/local/cuda", True)
    assert not sanitize._nothing_to_escape("a\u034fb", True) and not sanitize._nothing_to_escape("a\nb", False)
