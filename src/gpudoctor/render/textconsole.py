"""Where `gpudoctor check` writes its text view: console markup, wrapping and colour, without rich.

The text view prints a few dozen lines of prose in five styles. Importing and starting rich for that cost a
fifth of a whole check (bench/README.md), so this module does the part the view needs: it reads rich's console
markup as the view writes it (`[bold]`, `[dim]`, `[red bold]`, `[/]`, and `escape`'s escapes, the same
escaping rules as rich.markup), wraps prose as rich's Text.wrap does (a word keeps its trailing spaces, a word
longer than the line is folded, wide characters take two cells), and writes SGR colour codes only to a
terminal that takes them (NO_COLOR, FORCE_COLOR and TERM=dumb as rich reads them). Emoji codes such as
`:fire:` are left as they are: machine data is shown, never transformed.

`tests/unit/test_textconsole.py` renders every recorded machine through this console and through rich and
requires the same text. The other views (memory --watch, bench progress, explain's Markdown) keep rich.
"""

from __future__ import annotations

import os
import sys
import unicodedata

from gpudoctor.lazypattern import LazyPattern
from gpudoctor.textfit import terminal_width

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

# rich.markup's patterns: a tag is [ then a lower-case letter, #, / or @, up to the next ]; backslashes before
# it escape it (an odd count), a pair of them is one literal backslash.
_TAG = LazyPattern(r"((\\*)\[([a-z#/@][^[]*?)])")
_ESCAPE = LazyPattern(r"(\\*)(\[[a-z#/@][^[]*?])")
_WORD = LazyPattern(r"\s*\S+\s*")
_TRAILING = LazyPattern(r"\s+$")
# SGR parameters of the styles the view uses (ECMA-48); anything else is shown unstyled.
_SGR = {"bold": "1", "dim": "2", "italic": "3", "underline": "4"}
_COLOURS = {"black": "30", "red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36", "white": "37"}

Segment = tuple[str, str]  # (text, style: the open tags' names joined by spaces; "" for none)


def escape(markup: str) -> str:
    """Text with every `[...]` that would read as a tag escaped (rich.markup.escape's rule, so either reads it)."""
    markup = _ESCAPE.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", markup)
    if markup.endswith("\\") and not markup.endswith("\\\\"):
        return markup + "\\"
    return markup


def parse(markup: str) -> list[Segment]:
    """Markup -> segments of text with their style. An unmatched closing tag closes nothing (rich would raise)."""
    out: list[Segment] = []
    stack: list[str] = []
    position = 0

    def add(text: str) -> None:
        if text:
            out.append((text, " ".join(stack)))

    for m in _TAG.finditer(markup):
        full, escapes, tag = m.groups()
        start, end = m.span()
        if start > position:
            add(markup[position:start].replace("\\[", "["))
        position = end
        if escapes:
            backslashes, escaped = divmod(len(escapes), 2)
            add("\\" * backslashes)
            if escaped:
                add(full[len(escapes) :])
                continue
        if tag.startswith("/"):
            name = " ".join(tag[1:].split())
            if not name:
                if stack:
                    stack.pop()
            elif name in stack:
                del stack[len(stack) - 1 - stack[::-1].index(name)]
        else:
            stack.append(" ".join(tag.split("=", 1)[0].split()))
    if position < len(markup):
        add(markup[position:].replace("\\[", "["))
    return out


def char_cells(c: str) -> int:
    """The terminal cells a character takes: 0 for controls and combining marks, 2 for wide ones, else 1."""
    n = ord(c)
    if (n and n < 32) or 0x7F <= n < 0xA0:
        return 0
    if n < 0x300:
        return 1
    if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def cells(text: str) -> int:
    return len(text) if text.isascii() else sum(char_cells(c) for c in text)


def _chop(word: str, width: int) -> list[str]:
    """A word longer than the line, cut into pieces of at most `width` cells."""
    pieces: list[str] = []
    start = used = 0
    for i, c in enumerate(word):
        size = char_cells(c)
        if used + size > width:
            pieces.append(word[start:i])
            start, used = i, 0
        used += size
    if used:
        pieces.append(word[start:])
    return pieces


def breaks(text: str, width: int) -> list[int]:
    """The offsets where a line of `text` breaks to fit `width` cells: rich's divide_line with folding."""
    out: list[int] = []
    offset = 0
    for m in _WORD.finditer(text):
        start, word = m.start(), m.group(0)
        length = cells(word.rstrip())
        if width - offset >= length:
            offset += cells(word)
        elif length > width:
            pieces = _chop(word, width)
            for i, piece in enumerate(pieces):
                if start:
                    out.append(start)
                if i == len(pieces) - 1:
                    offset = cells(piece)
                else:
                    start += len(piece)
        elif offset and start:
            out.append(start)
            offset = cells(word)
    return out


def _crop(text: str, width: int) -> str:
    """The first `width` cells of `text`; a wide character cut in half becomes a space (rich's set_cell_size)."""
    used = 0
    for i, c in enumerate(text):
        if used + char_cells(c) > width:
            return text[:i] + " " * (width - used)
        used += char_cells(c)
    return text


def wrap(segments: list[Segment], width: int) -> list[list[Segment]]:
    """Styled text -> lines of at most `width` cells, as rich's Text.wrap(console, width, overflow="fold")."""
    plain = "".join(t for t, _ in segments)
    styles: list[str] = [s for t, s in segments for _ in t]
    lines: list[list[Segment]] = []
    pos = 0
    for paragraph in plain.split("\n"):
        par_styles = styles[pos : pos + len(paragraph)]
        pos += len(paragraph) + 1
        if "\t" in paragraph:
            # Tabs to the next multiple of 8 cells (each tab stays one style: its own).
            expanded, exp_styles = "", []
            for c, s in zip(paragraph, par_styles, strict=True):
                piece = " " * (8 - cells(expanded) % 8) if c == "\t" else c
                expanded += piece
                exp_styles += [s] * len(piece)
            paragraph, par_styles = expanded, exp_styles
        cuts = [0, *breaks(paragraph, width), len(paragraph)]
        for a, b in zip(cuts, cuts[1:], strict=False):
            text = paragraph[a:b]
            if len(text) > width:  # whitespace past the width goes (rich's rstrip_end)
                trailing = _TRAILING.search(text)
                if trailing:
                    text = text[: len(text) - min(len(trailing.group(0)), len(text) - width)]
            if cells(text) > width:
                text = _crop(text, width)
            lines.append(_restyle(text, par_styles[a : a + len(text)]))
    return lines


def _restyle(text: str, styles: list[str]) -> list[Segment]:
    out: list[Segment] = []
    for c, s in zip(text, styles, strict=True):
        if out and out[-1][1] == s:
            out[-1] = (out[-1][0] + c, s)
        else:
            out.append((c, s))
    return out


def rstrip(line: list[Segment]) -> list[Segment]:
    out = list(line)
    while out:
        text, style = out[-1]
        stripped = text.rstrip()
        if stripped:
            out[-1] = (stripped, style)
            break
        out.pop()
    return out


def sgr(style: str, colour: bool) -> str:
    """The SGR parameters of a style ("red bold" -> "1;31"); colours only where `colour` (NO_COLOR keeps bold)."""
    codes = [_SGR[w] for w in style.split() if w in _SGR]
    if colour:
        codes += [_COLOURS[w] for w in style.split() if w in _COLOURS]
    return ";".join(codes)


def _styles_wanted(file: Any, environ: Any) -> tuple[bool, bool]:
    """(write SGR codes at all, include colours): a terminal that is not dumb, or FORCE_COLOR; NO_COLOR drops colours."""
    env = os.environ if environ is None else environ
    try:
        tty = bool(file.isatty())
    except (AttributeError, ValueError, OSError):
        tty = False
    if env.get("TERM", "").lower() in ("dumb", "unknown") and not env.get("FORCE_COLOR"):
        return False, False
    styled = bool(env.get("FORCE_COLOR")) or tty
    if styled and sys.platform == "win32":
        styled = _windows_vt(file)
    return styled, styled and not env.get("NO_COLOR")


def _windows_vt(file: Any) -> bool:
    """Turn on escape-sequence processing of a Windows console (Windows 10 and later); False where it cannot."""
    try:
        import ctypes
        import msvcrt

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = msvcrt.get_osfhandle(file.fileno())  # type: ignore[attr-defined]
        mode = ctypes.c_uint32()
        if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
            return False
        return bool(kernel32.SetConsoleMode(handle, mode.value | 0x0004))  # ENABLE_VIRTUAL_TERMINAL_PROCESSING
    except Exception:  # noqa: BLE001 - no console, no ctypes: plain text
        return False


class TextConsole:
    """The few things the text view asks of a console: `width`, `encoding`, and `print` of markup.

    Strings are cleaned (gpudoctor.sanitize.clean) before their markup is read, as the rich console of
    gpudoctor.sanitize.safe_console does: machine data is shown, never obeyed by the terminal.
    """

    def __init__(
        self, file: IO[str] | None = None, width: int | None = None, styled: bool | None = None, environ: Any = None
    ) -> None:
        self.file: Any = file if file is not None else sys.stdout
        self.width = width if width is not None else terminal_width(environ)
        wanted, colour = _styles_wanted(self.file, environ)
        self.styled = wanted if styled is None else styled
        self.colour = colour if styled is None else styled

    @property
    def encoding(self) -> str:
        return (getattr(self.file, "encoding", None) or "utf-8").lower()

    def print(self, markup: Any = "", *, soft_wrap: bool = False, highlight: bool = False) -> None:  # noqa: A003
        """Markup on its own line(s): wrapped to the width unless `soft_wrap` (a command to copy stays whole)."""
        from gpudoctor.sanitize import clean

        segments = parse(clean(markup if isinstance(markup, str) else str(markup)))
        lines = _split_lines(segments) if soft_wrap else wrap(segments, self.width)
        self.write_lines(lines)

    def write_lines(self, lines: list[list[Segment]]) -> None:
        self.file.write("".join(self.render(line) + "\n" for line in lines))

    def render(self, line: list[Segment]) -> str:
        if not self.styled:
            return "".join(t for t, _ in line)
        out = []
        for text, style in line:
            codes = sgr(style, self.colour)
            out.append(f"\x1b[{codes}m{text}\x1b[0m" if codes else text)
        return "".join(out)


def emit(console: Any, lines: list[list[Segment]]) -> None:
    """Write wrapped lines to a TextConsole, or to a rich console (views that also print rich tables: bench)."""
    if isinstance(console, TextConsole):
        console.write_lines(lines)
        return
    from rich.text import Text

    for line in lines:
        console.print(Text.assemble(*line), soft_wrap=True, highlight=False)


def _split_lines(segments: list[Segment]) -> list[list[Segment]]:
    lines: list[list[Segment]] = [[]]
    for text, style in segments:
        for i, part in enumerate(text.split("\n")):
            if i:
                lines.append([])
            if part:
                lines[-1].append((part, style))
    return lines
