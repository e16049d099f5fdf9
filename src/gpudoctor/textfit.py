"""Plain text fitted to a terminal's width: the width to use, and the wrapping rule of the plain views (install,
report merge) where a command or a table row stays whole. Shared by every layer that prints plain text (the
planner renders install plans, the renderers the rest); gpudoctor.render.textconsole is the console built on it."""

from __future__ import annotations

import os

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Whole", "fit_lines", "plain_width", "terminal_width"]


def terminal_width(environ: Any = None) -> int:
    """rich's choice: COLUMNS, else the terminal size of stdin, stdout or stderr, else 80."""
    env = os.environ if environ is None else environ
    columns = env.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    for fd in (0, 1, 2):
        try:
            return os.get_terminal_size(fd).columns or 80
        except (AttributeError, ValueError, OSError):
            continue
    return 80


class Whole(str):
    """A line of a plain-text view printed whole at any width: a command to paste, a table row."""


def fit_lines(lines: list[str], width: int | None) -> list[str]:
    """The plain views (install, report merge): prose lines wrapped at spaces to `width`, continuation lines under
    the text (a list item's under its words), Whole lines untouched; None keeps every line as it is (piped)."""
    if width is None:
        return list(lines)
    import textwrap

    out: list[str] = []
    for line in lines:
        if isinstance(line, Whole) or len(line) <= width:
            out.append(line)
            continue
        indent = len(line) - len(line.lstrip(" "))
        hang = " " * (indent + 2)
        out += textwrap.wrap(line, width=width, subsequent_indent=hang, break_long_words=False, break_on_hyphens=False)
    return out


def plain_width(stream: Any = None) -> int | None:
    """The width a plain view wraps to: COLUMNS, else the terminal's when `stream` (stdout) is one; None when
    piped, so that tools reading the output get whole lines."""
    import sys

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return terminal_width() if isatty is not None and isatty() else None
