"""`gpudoctor explain CODE`: print the page of one finding code."""

from __future__ import annotations

import sys

import typer


def finding_page(code: str) -> str | None:
    """The Markdown page of a finding code, read from the installed package; None if there is none."""
    from importlib.resources import files

    if not code or not all(c.isalnum() or c == "-" for c in code):
        return None
    # One name per joinpath: Python 3.10's Traversable takes one.
    page = files("gpudoctor._docs").joinpath("findings").joinpath(f"{code}.md")
    try:
        return page.read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None


def register(app: typer.Typer) -> None:
    @app.command(
        "explain",
        help=(
            "Explain a finding code: what it means, why it matters, how to fix it. Codes are matched "
            "case-insensitively; --list prints every code."
        ),
    )
    def explain(
        code: str | None = typer.Argument(None, metavar="CODE", help="A finding code, such as driver-library-mismatch."),
        list_codes: bool = typer.Option(False, "--list", help="List every finding code, one a line."),
    ) -> None:
        from gpudoctor.checks import all_codes
        from gpudoctor.cli.common import did_you_mean
        from gpudoctor.errors import UsageError

        if list_codes:
            if code is not None:
                raise UsageError("explain: give a CODE or --list, not both")
            sys.stdout.write("".join(f"{c}\n" for c in sorted(all_codes())))
            return
        if code is None:
            raise UsageError("explain: missing the finding CODE", "gpudoctor explain --list lists every code")
        page = finding_page(code.strip().lower())
        if page is None:
            close = did_you_mean(code, all_codes())
            raise UsageError(
                f"unknown finding code {code!r}", f"{close + ' ' if close else ''}gpudoctor explain --list lists every code"
            )
        from gpudoctor.sanitize import for_output

        # A page holds "·" and "≥": written as ASCII where the output cannot carry them (LANG=C, a pipe).
        for_output(sys.stdout).write(page if page.endswith("\n") else page + "\n")
