"""The one terminal sanitizer: machine data is shown, never obeyed by the terminal.

GPU names, process command lines, node names, paths and report fields are written by whoever controls
the machine or the file. Written raw they can set the window title, write the clipboard (OSC 52),
clear lines, or reorder text (bidirectional overrides). `clean` makes every such character visible as
an escape (`\\x1b`, `\\u202e`) instead. Every text renderer passes untrusted text through here; the
console built by `safe_console` does it for everything printed through rich.
"""

from __future__ import annotations

import re

from gpudoctor.lazypattern import LazyPattern

# typing's constant without typing: `explain` imports only these modules, and typing is 11 M instructions of it
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

# Characters a terminal acts on or a reader cannot see: C0 controls, DEL, C1 controls; line and
# paragraph separators; and every Unicode default-ignorable code point (Unicode's
# DerivedCoreProperties.txt, Default_Ignorable_Code_Point, Unicode 15.1): the soft hyphen, combining
# grapheme joiner, Arabic letter mark, Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), Khmer vowel
# inherents, Mongolian variation selectors, zero-width characters and joiners, bidirectional marks,
# embeddings, overrides and isolates, invisible operators, variation selectors, the BOM, tag
# characters (U+E0000-U+E0FFF) and the other reserved ignorables. Shown escaped, never passed on.
# cmdline.py refuses the same set in a command (what is shown must be what runs).
INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_UNSAFE = LazyPattern(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{INVISIBLE}]")
_UNSAFE_NO_NL = LazyPattern(f"[\x00-\x1f\x7f-\x9f{INVISIBLE}]")


def _escape(m: re.Match) -> str:
    c = m.group(0)
    n = ord(c)
    if n < 0x100:
        return f"\\x{n:02x}"
    return f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def clean(text: Any, *, newlines: bool = True) -> str:
    """`text` with every character a terminal would act on shown as an escape.

    newlines=True keeps `\\n` and `\\t` (multi-line prose); False escapes them too (one-line fields).
    """
    s = text if isinstance(text, str) else str(text)
    if _nothing_to_escape(s, newlines):
        return s
    return (_UNSAFE if newlines else _UNSAFE_NO_NL).sub(_escape, s)


def _nothing_to_escape(s: str, newlines: bool) -> bool:
    """True only where the pattern would find nothing in `s`, told without compiling it (its character class is 3 M
    instructions, twice, of a bare check's text view: bench/README.md h226). Every control character (C0, DEL, C1) and
    every invisible one Python does not count printable makes `isprintable()` false; the invisible ones it does count
    printable (a variation selector, a Hangul filler) are looked for by code point in INVISIBLE's spans: every other
    character of `s` is printable by then. False sends `s` to the pattern."""
    if not s.isprintable() and not (newlines and s.replace("\n", "").replace("\t", "").isprintable()):
        return False
    if s.isascii():
        return True
    spans = _invisible_spans()
    # The spans, not a set of their characters: the tags' span alone is 4096 of them, and building that set was
    # 5 M instructions of every text view that shows a glyph (half of its rendering: bench/README.md, h242).
    return not any(a <= n <= b for n in {ord(c) for c in s if c > "\x7f"} for a, b in spans)


_INVISIBLE_SPANS: list[tuple[tuple[int, int], ...]] = []


def _invisible_spans() -> tuple[tuple[int, int], ...]:
    """INVISIBLE as (first, last) code points: single characters and ranges "a-b", as the pattern's class reads them.
    Made whole, then kept (another thread never sees a part of it)."""
    if not _INVISIBLE_SPANS:
        spans, i = [], 0
        while i < len(INVISIBLE):
            step = 3 if INVISIBLE[i + 1 : i + 2] == "-" else 1
            spans.append((ord(INVISIBLE[i]), ord(INVISIBLE[i + step - 1])))
            i += step
        _INVISIBLE_SPANS.append(tuple(spans))
    return _INVISIBLE_SPANS[0]


def clean_line(text: Any) -> str:
    return clean(text, newlines=False)


def has_unsafe(text: str) -> bool:
    return bool(_UNSAFE.search(text))


class SafeWriter:
    """A text stream that cleans everything written to it: for renderers that write plain text."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(self._filter(text))
        return len(text)

    def _filter(self, text: str) -> str:
        return clean(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return bool(getattr(self._stream, "isatty", lambda: False)())

    @property
    def encoding(self) -> str | None:
        return getattr(self._stream, "encoding", None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def safe_console(**kwargs: Any) -> Any:
    """A rich Console whose print() cleans every string before rich reads its markup.

    Rich's own Text strips only a few controls (BEL, BS, VT, FF, CR) and passes ESC through; the
    colours rich adds itself are written after this point, so they survive.
    """
    from rich.console import Console

    class _SafeConsole(Console):
        def print(self, *objects: Any, **kw: Any) -> None:  # noqa: A003 - rich's name
            super().print(*(clean(o) if isinstance(o, str) else o for o in objects), **kw)

        def log(self, *objects: Any, **kw: Any) -> None:
            super().log(*(clean(o) if isinstance(o, str) else o for o in objects), **kw)

    return _SafeConsole(**kwargs)


# What a stream that cannot carry a character gets instead (anything else: "?").
_ASCII = {
    "×": "x",
    "…": "...",
    "°": " deg",
    "—": "-",
    "–": "-",
    "→": "->",
    "←": "<-",
    "≥": ">=",
    "≤": "<=",
    "’": "'",
    "‘": "'",
    "“": '"',
    "”": '"',
    "·": ".",
    "✓": "+",
    "✗": "x",
}


def fit_encoding(text: str, encoding: str | None) -> str:
    """`text` with every character `encoding` cannot carry replaced by ASCII (an unknown encoding: ASCII)."""
    enc = (encoding or "ascii").lower()
    if enc.startswith("utf"):
        return text
    try:
        text.encode(enc)
        return text
    except LookupError:
        enc = "ascii"
    except UnicodeEncodeError:
        pass

    def one(ch: str) -> str:
        try:
            ch.encode(enc)
            return ch
        except UnicodeEncodeError:
            return _ASCII.get(ch, "?")

    return "".join(one(ch) for ch in text)


class EncodingWriter(SafeWriter):
    """A text stream for an output that is not UTF-8 (LANG=C, a latin-1 pipe): what its encoding cannot
    carry is written as ASCII instead of raising UnicodeEncodeError halfway through a report. (It does not
    clean: the consoles writing to it already do.)"""

    def _filter(self, text: str) -> str:
        return fit_encoding(text, self.encoding)


def for_output(stream: Any) -> Any:
    """`stream` itself when it carries every character (UTF-8), else wrapped in an EncodingWriter."""
    enc = (getattr(stream, "encoding", None) or "utf-8").lower().replace("_", "-")
    return stream if enc.startswith("utf") else EncodingWriter(stream)
