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
    @app.command("explain", help="Explain a finding code: what it means, why it matters, how to fix it.")
    def explain(code: str = typer.Argument(..., help="A finding code, such as driver-library-mismatch.")) -> None:
        from gpudoctor.checks import all_codes

        page = finding_page(code)
        if page is None:
            known = ", ".join(sorted(all_codes()))
            sys.stderr.write(f"gpudoctor: unknown finding code {code!r}\nknown codes: {known}\n")
            raise typer.Exit(2)
        sys.stdout.write(page if page.endswith("\n") else page + "\n")
