"""`gpudoctor matrix show|check`: what the doctor knows, and validating a candidate file."""

from __future__ import annotations

import sys

import typer

from gpudoctor.cli import HELP_OPTIONS

matrix_app = typer.Typer(
    help="The bundled compatibility matrix: show it, or validate a candidate file.",
    no_args_is_help=True,
    context_settings=HELP_OPTIONS,
)


@matrix_app.command("show", help="Print the compatibility facts the doctor judges by, with their sources.")
def show(
    section: str | None = typer.Argument(
        None, help="Only this section (cuda, gpu, cudnn, torch, tensorflow, jax, precision, link, memory)."
    ),
) -> None:
    from gpudoctor.matrix import load_matrix, render_matrix_text

    sys.stdout.write(render_matrix_text(load_matrix(), section))


@matrix_app.command(
    "check",
    help=(
        "Validate a candidate matrix file or directory; exit 0 when valid, 1 when not (a *.toml entry that is not a "
        "readable regular file is a problem: fail closed), 2 when the path does not exist."
    ),
)
def check(path: str = typer.Argument(..., metavar="FILE", help="A matrix .toml file or a directory of them.")) -> None:
    from gpudoctor.errors import MatrixError
    from gpudoctor.matrix import load_matrix
    from gpudoctor.sanitize import clean_line

    try:
        load_matrix(path)
    except MatrixError as exc:
        # A problem quotes the candidate file (keys, values): shown, never obeyed by the terminal.
        sys.stdout.write(f"{clean_line(path)}: invalid\n" + "\n".join(f"  {clean_line(p)}" for p in exc.problems) + "\n")
        raise typer.Exit(1) from None
    sys.stdout.write(f"{clean_line(path)}: valid\n")


def register(app: typer.Typer) -> None:
    app.add_typer(matrix_app, name="matrix")
