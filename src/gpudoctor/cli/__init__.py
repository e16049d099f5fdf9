"""The command line: typer wiring only. Each command builds its host, calls one domain
function, renders, and exits with a documented code (docs/exit-codes.md).

`main()` is the one top-level handler: a GpudoctorError becomes one clean
message and its exit code (2 for a UsageError such as a missing input path, else 3); anything unexpected becomes a one-line message (the
traceback with --debug) and exit 3; Ctrl-C exits 130.
"""

from __future__ import annotations

import os
import sys

import typer

from gpudoctor import __version__

app = typer.Typer(
    name="gpudoctor",
    help=(
        "Find out why your NVIDIA GPU deep-learning environment does not work, and how to fix it.\n\n"
        "Start with `gpudoctor check`."
    ),
    no_args_is_help=True,
    add_completion=False,
    # Plain help and plain usage errors (no boxes): they end up in CI logs and get pasted.
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gpudoctor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """gpudoctor: a doctor for NVIDIA GPU deep-learning environments."""


_registered = False


def _plain_help_defaults() -> None:
    """Work around typer escaping "[default: ...]" for rich even when rich markup is off.

    Done only for --help, because importing typer.rich_utils imports rich.
    """
    try:
        from typer import rich_utils
    except ImportError:
        return
    rich_utils.escape_before_html_export = lambda input_text: input_text.strip()


def _register() -> None:
    """Attach every command to the app, once (command modules import on demand, not at package import)."""
    global _registered
    if _registered:
        return
    _registered = True
    from gpudoctor.cli import bench, check, completion, explain, install, matrix, memory, report, snapshot, switch_cuda

    check.register(app)
    snapshot.register(app)
    explain.register(app)
    matrix.register(app)
    switch_cuda.register(app)
    bench.register(app)
    report.register(app)
    install.register(app)
    memory.register(app)
    completion.register(app)


def main(argv: list[str] | None = None) -> None:
    from gpudoctor.errors import GpudoctorError
    from gpudoctor.model import ExitCode

    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    _register()
    if os.environ.get("_GPUDOCTOR_COMPLETE"):
        # A shell's completion script is asking for candidates (gpudoctor completion SHELL).
        from gpudoctor.cli.completion import enable_protocol

        enable_protocol()
    if "--help" in args:
        _plain_help_defaults()
    try:
        # Standalone mode: typer itself answers --help, usage errors (exit 2) and Ctrl-C.
        app(args=args, prog_name="gpudoctor")
    except GpudoctorError as exc:
        if debug:
            raise
        from gpudoctor.sanitize import clean

        # Messages name paths and values from the command line and from input files: cleaned.
        sys.stderr.write(f"gpudoctor: error: {clean(exc.message)}\n")
        if exc.hint:
            sys.stderr.write(f"hint: {clean(exc.hint)}\n")
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        # `gpudoctor check --format json | head`: the reader left; that is not our failure.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(ExitCode.OK)
    except Exception as exc:  # noqa: BLE001 - the documented last-resort handler
        if debug:
            raise
        from gpudoctor.sanitize import clean_line

        sys.stderr.write(
            f"gpudoctor: unexpected error: {type(exc).__name__}: {clean_line(exc)}\n(rerun with --debug for the traceback)\n"
        )
        sys.exit(ExitCode.ERROR)
