"""`gpudoctor explain CODE`: print the page of one finding code.

On a terminal the page is rendered (rich Markdown: headings, lists, tables; links shown as their text,
a finding's as the command that explains it); piped or redirected it is the Markdown itself, for
grep, a pager or an issue. Command blocks are printed whole in both: a person copies them.

No typer at import: `gpudoctor explain CODE` is answered before the command-line framework loads
(gpudoctor.cli.fast), and `show_page` is what both ways print.
"""

from __future__ import annotations

import os
import re
import sys

# typing's constant without typing: `explain` imports only these modules, and typing is 11 M instructions of it
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import typer

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$\n?", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")


def finding_page(code: str) -> str | None:
    """The Markdown page of a finding code, read from the installed package; None if there is none."""
    if not code or not all(c.isalnum() or c == "-" for c in code):
        return None
    from importlib import import_module

    docs = import_module("gpudoctor._docs")  # docs/, mapped into the package (pyproject.toml)
    # The package's own directory (a wheel's install, or the editable install's mapping of docs/): read directly, as
    # importlib.resources reads a directory's file, without importing it (it brings tempfile, zipfile, shutil and
    # random: 21.6 M instructions, a third of what an `explain` adds to `python -c pass`, bench/README.md).
    folders = [f for f in docs.__path__ if os.path.isdir(f)]
    if not folders:  # a package inside an archive (zipimport): only importlib.resources reads it
        from importlib.resources import files

        # One name per joinpath: Python 3.10's Traversable takes one.
        try:
            return files(docs).joinpath("findings").joinpath(f"{code}.md").read_text(encoding="utf-8")
        except OSError:
            return None
    for folder in folders:
        try:
            with open(os.path.join(folder, "findings", f"{code}.md"), encoding="utf-8") as fh:
                return fh.read()
        except OSError:
            continue
    return None


def show_page(code: str, out: Any = None) -> bool:
    """Write the page of `code` (matched case-insensitively) to `out` (default stdout): rendered when it is a
    terminal, else as Markdown. False, with nothing written, when there is no such page."""
    page = finding_page(code.strip().lower())
    if page is None:
        return False
    out = sys.stdout if out is None else out
    isatty = getattr(out, "isatty", None)
    if isatty is not None and isatty():
        render_page(page, out)
    else:
        from gpudoctor.sanitize import for_output

        # A page holds "·" and "≥": written as ASCII where the output cannot carry them (LANG=C, a pipe).
        for_output(out).write(page if page.endswith("\n") else page + "\n")
    return True


def terminal_markdown(page: str) -> list[tuple[str, str]]:
    """The page as (kind, text) parts for a terminal: "prose" (Markdown whose links are plain text: a
    link to another finding reads `gpudoctor explain CODE`, another page names its file under docs/, a
    web address is kept) and "code" (a fenced block's lines, exactly)."""
    parts: list[tuple[str, str]] = []
    at = 0
    for m in _FENCE.finditer(page):
        if page[at : m.start()].strip():
            parts.append(("prose", _plain_links(page[at : m.start()])))
        parts.append(("code", m.group(1).rstrip("\n")))
        at = m.end()
    if page[at:].strip():
        parts.append(("prose", _plain_links(page[at:])))
    return parts


def _plain_links(text: str) -> str:
    def plain(m: re.Match) -> str:
        label, target = m.group(1), m.group(2)
        if "://" in target:
            return f"{label} ({target})"
        name = target.split("#", 1)[0]
        if "/" not in name and name.endswith(".md"):
            code = name[: -len(".md")]
            return f"{label} (`gpudoctor explain {code}`)" if label.strip("`") != code else f"`gpudoctor explain {code}`"
        # ../ci.md, ../../README.md: the page's place in the repository's docs/
        parts: list[str] = ["docs", "findings"]
        for piece in name.split("/"):
            if piece == "..":
                if parts:
                    parts.pop()
            elif piece not in ("", "."):
                parts.append(piece)
        return f"{label} ({'/'.join(parts) or name})"

    return _LINK.sub(plain, text)


def _markdown() -> Any:
    """rich's Markdown, whose tables fold a long cell onto more lines instead of cutting it with an ellipsis."""
    from rich.markdown import Markdown, TableElement

    class FoldingTable(TableElement):
        def __rich_console__(self, console: Any, options: Any) -> Any:
            rows = ([self.header.row] if self.header and self.header.row else []) + (self.body.rows if self.body else [])
            for row in rows:
                for cell in row.cells:
                    cell.content.overflow = "fold"
            yield from super().__rich_console__(console, options)

    class PageMarkdown(Markdown):
        elements = {**Markdown.elements, "table_open": FoldingTable}

    return PageMarkdown


def render_page(page: str, out: Any) -> None:
    """The page for a person at a terminal: prose rendered and wrapped to its width, commands whole,
    one blank line between the parts."""
    from rich.text import Text

    from gpudoctor.sanitize import clean, for_output, safe_console

    markdown = _markdown()
    console = safe_console(file=for_output(out), highlight=False)
    blank = re.compile(r"^(\s|\x1b\[[0-9;]*m)*$")
    for i, (kind, text) in enumerate(terminal_markdown(clean(page))):
        with console.capture() as captured:
            if kind == "code":
                # soft_wrap: a long command runs past the edge (the terminal folds it) and is never cut or
                # broken into lines, so that it copies whole.
                console.print(Text(text, style="cyan"), soft_wrap=True)
            else:
                console.print(markdown(text, hyperlinks=False))
        lines = captured.get().split("\n")
        while lines and blank.match(lines[0]):
            lines.pop(0)
        while lines and blank.match(lines[-1]):
            lines.pop()
        console.file.write(("\n" if i else "") + "\n".join(lines) + "\n")
    console.file.flush()


def page_title(code: str) -> str:
    """A code's page's first sentence (what the finding means), on one line; "" without a page."""
    import re

    page = finding_page(code) or ""
    # The first paragraph of prose: after the heading and the severity lines (which may wrap), past any "##".
    paragraphs = [re.sub(r"(?m)^#+ .*$", "", p).strip() for p in re.split(r"\n\s*\n", page)[1:]]
    prose = next((p for p in paragraphs if p and not p.startswith("**")), "")
    text = re.sub(r"[`*]", "", " ".join(prose.split()))
    return re.split(r"(?<=\.)\s", text, maxsplit=1)[0].rstrip(".")


def list_lines(codes: list[str], width: int | None = None) -> list[str]:
    """`explain --list`: each code and its page's first sentence, cut to the terminal's width with "..." at the end."""
    import shutil

    width = width or shutil.get_terminal_size((80, 24)).columns
    pad = max(len(c) for c in codes) + 2
    out = []
    for c in codes:
        line = f"{c:<{pad}}{page_title(c)}".rstrip()
        out.append(line if len(line) <= width else line[: max(pad, width - 3)].rstrip() + "...")
    return out


def register(app: typer.Typer) -> None:
    import typer

    from gpudoctor.cli.common import complete_codes

    @app.command(
        "explain",
        help=(
            "Explain a finding code: what it means, why it matters, how to fix it. Codes are matched "
            "case-insensitively; --list prints every code."
        ),
    )
    def explain(
        code: str | None = typer.Argument(
            None,
            metavar="CODE",
            autocompletion=complete_codes,
            help="A finding code, such as driver-library-mismatch.",
        ),
        list_codes: bool = typer.Option(False, "--list", help="List every finding code with what it means, one a line."),
    ) -> None:
        from gpudoctor.cli.common import all_codes, did_you_mean
        from gpudoctor.errors import UsageError

        if list_codes:
            if code is not None:
                raise UsageError("explain: give a CODE or --list, not both")
            sys.stdout.write("".join(f"{line}\n" for line in list_lines(sorted(all_codes()))))
            return
        if code is None:
            raise UsageError("explain: missing the finding CODE", "gpudoctor explain --list lists every code")
        if not show_page(code):
            close = did_you_mean(code, all_codes())
            raise UsageError(
                f"unknown finding code {code!r}", f"{close + ' ' if close else ''}gpudoctor explain --list lists every code"
            )
