"""The command line: typer wiring only. Each command builds its host, calls one domain
function, renders, and exits with a documented code (docs/exit-codes.md).

`main()` is the one top-level handler: a GpudoctorError becomes one clean
message and its exit code (2 for a UsageError such as a missing input path, else 3); anything unexpected becomes a one-line message (the
traceback with --debug) and exit 3; Ctrl-C exits 130.
"""

from __future__ import annotations

import contextlib
import os
import sys

from gpudoctor.cli.fast import version_line

# typing's constant without typing: `explain` imports only these modules, and typing is 11 M instructions of it
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import typer

# -h as well as --help, on every command (click passes it from a command to its subcommands).
HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}

# typer (and the click it carries) is imported when the app is first needed, not at `import gpudoctor.cli`:
# `gpudoctor --version` and `gpudoctor explain CODE` answer without it (gpudoctor.cli.fast).
_APP: typer.Typer | None = None


def _app() -> typer.Typer:
    """The typer application (built once; commands are attached by _register)."""
    global _APP
    if _APP is None:
        import typer

        _APP = typer.Typer(
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
            context_settings=HELP_OPTIONS,
        )

        @_APP.callback()
        def _root(
            version: bool = typer.Option(
                False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
            ),
        ) -> None:
            """gpudoctor: a doctor for NVIDIA GPU deep-learning environments."""

    return _APP


def __getattr__(name: str) -> Any:
    # `from gpudoctor.cli import app` (tests, typer's CliRunner) still gets the application.
    if name == "app":
        return _app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _version(value: bool) -> None:
    if value:
        import typer

        typer.echo(version_line())
        raise typer.Exit(0)


_registered: set[str] = set()

# Which module attaches each top-level command (in the order `gpudoctor --help` lists them).
COMMAND_MODULES = {
    "check": "check",
    "snapshot": "snapshot",
    "explain": "explain",
    "matrix": "matrix",
    "switch-cuda": "switch_cuda",
    "bench": "bench",
    "report": "report",
    "install": "install",
    "fix": "install",
    "memory": "memory",
    "completion": "completion",
}


def _plain_help_defaults() -> None:
    """Work around typer escaping "[default: ...]" for rich even when rich markup is off.

    Done only for --help, because importing typer.rich_utils imports rich.
    """
    try:
        from typer import rich_utils
    except ImportError:
        return
    rich_utils.escape_before_html_export = lambda input_text: input_text.strip()


def _register(only: str | None = None) -> None:
    """Attach the commands to the app, once each (command modules import on demand, not at package import).

    `only`: attach just the module of that command (a run of `gpudoctor check` builds no other command:
    their imports and typer's building of their options cost a tenth of the start); the help and every
    error of that command are the same, since click builds them from that command alone.
    """
    import importlib

    app = _app()
    modules = dict.fromkeys(COMMAND_MODULES.values())
    if only is not None:
        modules = {COMMAND_MODULES[only]: None}
    for module in modules:
        if module not in _registered:
            _registered.add(module)
            importlib.import_module(f"gpudoctor.cli.{module}").register(app)


def _never_unencodable() -> None:
    """Under an output encoding that is not UTF-8 (LANG=C, a latin-1 pipe), a character it cannot carry is
    written as "?" rather than ending the run with UnicodeEncodeError; the consoles write ASCII stand-ins
    first (gpudoctor.sanitize.for_output), so this catches only the plain writes."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower()
        reconfigure = getattr(stream, "reconfigure", None)
        if encoding and not encoding.startswith("utf") and reconfigure is not None:
            reconfigure(errors="replace")


def main(argv: list[str] | None = None) -> None:
    from gpudoctor.errors import GpudoctorError  # (gpudoctor.model, with its dataclasses, only where needed)

    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    _never_unencodable()
    completing = bool(os.environ.get("_GPUDOCTOR_COMPLETE"))
    live = sys.modules.get("gpudoctor.host.live")
    if live is not None:
        live.allow_running()  # an earlier run in this process (tests) was interrupted
    interrupted = False
    try:
        if not completing:
            from gpudoctor.cli.fast import answer

            fast = answer(args, ending=argv is None)
            if fast is not None:
                sys.exit(fast)
        # A run of one command builds only that command (its help and errors are the same); --help at
        # the top, an unknown command and shell completion need them all.
        _register(args[0] if args and args[0] in COMMAND_MODULES and not completing else None)
        if completing:
            # A shell's completion script is asking for candidates (gpudoctor completion SHELL).
            from gpudoctor.cli.completion import enable_protocol

            enable_protocol()
        if "--help" in args or "-h" in args:
            _plain_help_defaults()
        import typer

        # typer carries its own click (typer>=0.26: pyproject.toml); its exceptions are these.
        from typer._click import exceptions as click_errors

        no_args_help = getattr(click_errors, "NoArgsIsHelpError", ())
        # Not standalone: click's usage errors come here and are printed in the house form below
        # (typer still answers --help, and Ctrl-C as exit 130).
        try:
            code = _app()(args=args, prog_name="gpudoctor", standalone_mode=False)
        except no_args_help as exc:
            exc.show()  # `gpudoctor memory` with no arguments where that shows help: click's help, exit 2
            sys.exit(exc.exit_code)
        except click_errors.UsageError as exc:
            _usage_error(exc, args)
        except click_errors.ClickException as exc:
            from gpudoctor.sanitize import clean_line

            sys.stderr.write(f"gpudoctor: error: {clean_line(exc.format_message())}\n")
            sys.exit(exc.exit_code)
        except typer.Abort:
            sys.stderr.write("Aborted!\n")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)
    except GpudoctorError as exc:
        if debug:
            raise
        from gpudoctor.sanitize import clean

        # Messages name paths and values from the command line and from input files: cleaned.
        sys.stderr.write(f"gpudoctor: error: {clean(exc.message)}\n")
        if exc.hint:
            sys.stderr.write(f"hint: {clean(exc.hint)}\n")
        sys.exit(exc.exit_code)
    except SystemExit as exc:
        interrupted = exc.code == 130  # typer turns Ctrl-C into exit 130
        raise
    except KeyboardInterrupt:
        # Ctrl-C where typer did not see it (a bare check runs without it: cli.fast): exit 130, silently, as typer does.
        interrupted = True
        sys.exit(130)  # ExitCode.INTERRUPTED
    except BrokenPipeError:
        # `gpudoctor check --format json | head`: the reader left; that is not our failure.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)  # ExitCode.OK
    except Exception as exc:  # noqa: BLE001 - the documented last-resort handler
        if debug:
            raise
        from gpudoctor.sanitize import clean_line

        sys.stderr.write(
            f"gpudoctor: unexpected error: {type(exc).__name__}: {clean_line(exc)}\n(rerun with --debug for the traceback)\n"
        )
        from gpudoctor.model import ExitCode

        sys.exit(ExitCode.ERROR)
    finally:
        # Ctrl-C, an error or the end: no program gpudoctor started outlives it. They run in sessions of their own
        # (host.live.run_bounded), out of the terminal's reach; only a run that started one imported that module.
        live = sys.modules.get("gpudoctor.host.live")
        if live is not None:
            live.kill_running(stop=interrupted)
        if argv is None:
            _before_exit()
        if interrupted:
            # Ctrl-C: end now, once the programs are killed. The interpreter's own shutdown would wait on nothing
            # gpudoctor needs (its probe threads are daemons) but may on a thread left inside a blocking call
            # (tests/cli/test_interrupt.py: exit 130 within its limit, every time).
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(130)  # ExitCode.INTERRUPTED


def _before_exit() -> None:
    """The process ends next (the console script and `python -m gpudoctor` call `main()` without arguments; tests call
    it with theirs): its objects go to the collector's permanent generation, which no collection walks. The
    interpreter's shutdown collects three times over everything still alive (modules, classes, functions), and frees
    them by reference counting all the same: those walks were 23 M instructions of a bare check's 348 M, and a bare
    check leaves no cyclic garbage for them to find (gc.DEBUG_SAVEALL: none). Objects that still become unreachable
    are freed as before, only cycles among them are left to the exit, which Python never promised to finalize
    ("It is not guaranteed that __del__() methods are called for objects that still exist when the interpreter
    exits", the data model's `object.__del__`)."""
    import gc

    gc.freeze()


def _usage_error(exc, args: list[str]) -> None:
    """click's usage error (an unknown option, a bad value, a missing argument) in the house form of
    every other usage error: `gpudoctor: error: ...` and a hint line, exit 2; under --format json (or
    github, junit for check) also the command's error document on stdout."""
    from gpudoctor.model import ExitCode
    from gpudoctor.sanitize import clean_line

    # typer 0.29 checks values through pydantic, whose messages begin "Value error, ": the same house line on every typer.
    message = exc.format_message().replace(": Value error, ", ": ")
    command = exc.ctx.command_path if exc.ctx is not None else _command_path(args)
    hint = f"{command} --help lists the options"
    document = _error_document(command, _format_asked(command, args), message, hint)
    if document:
        sys.stdout.write(document)
    sys.stderr.write(f"gpudoctor: error: {clean_line(message)}\nhint: {clean_line(hint)}\n")
    sys.exit(ExitCode.USAGE)


def _command_path(args: list[str]) -> str:
    """`gpudoctor memory plan` for `memory --replay x plan ...`: the (sub)commands named in `args`
    (for an error click raised before the command's context existed, as a missing option value)."""
    import typer.main

    command = typer.main.get_command(_app())
    path = ["gpudoctor"]
    for arg in args:
        sub = (getattr(command, "commands", None) or {}).get(arg)
        if sub is not None:
            command = sub
            path.append(arg)
    return " ".join(path)


def _format_asked(command: str, args: list[str]) -> str | None:
    """The --format/-f value on the command line (the last one), else GPUDOCTOR_FORMAT for check."""
    found = None
    for i, arg in enumerate(args):
        if arg in ("--format", "-f") and i + 1 < len(args):
            found = args[i + 1]
        elif arg.startswith("--format="):
            found = arg.split("=", 1)[1]
        elif arg.startswith("-f") and len(arg) > 2 and not arg.startswith("--"):
            found = arg[2:]
    if found is None and command == "gpudoctor check":
        found = os.environ.get("GPUDOCTOR_FORMAT") or None
    return found


def _error_document(command: str, output_format: str | None, message: str, hint: str) -> str | None:
    """The error document `command` prints under `output_format` (None: text, or no such format)."""
    import json

    from gpudoctor.model import ExitCode

    code = ExitCode.USAGE
    if command == "gpudoctor check":
        if output_format == "json":
            from gpudoctor.render.json_report import error_document

            return error_document(message, hint, code)
        if output_format == "github":
            from gpudoctor.render.github import render_github_error

            return render_github_error(message, hint)
        if output_format == "junit":
            from gpudoctor.render.junit import render_junit_error

            return render_junit_error(message, hint)
        return None
    if output_format != "json":
        return None
    error = {"message": message, "hint": hint}
    if command in ("gpudoctor memory", "gpudoctor memory plan"):
        from gpudoctor.memory.render import PLAN_SCHEMA, VIEW_SCHEMA

        schema = PLAN_SCHEMA if command.endswith("plan") else VIEW_SCHEMA
        doc: dict = {"schema": schema, "exit_code": int(code), "error": error}
    elif command == "gpudoctor bench bandwidth":
        from gpudoctor.bandwidth.render import error_document as bandwidth_error

        return bandwidth_error(message, hint, code, "usage")
    elif command == "gpudoctor report merge":
        from gpudoctor.report_merge import SCHEMA

        doc = {"schema": SCHEMA, "exit_code": int(code), "error": error, "nodes": []}
    elif command == "gpudoctor install":
        from gpudoctor.planner.render import SCHEMA as INSTALL_SCHEMA

        doc = {"schema": INSTALL_SCHEMA, "exit_code": int(code), "status": "doctor-error", "error": error, "plan": None}
    else:
        return None
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"
