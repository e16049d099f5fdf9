"""`gpudoctor check`: probe the machine (or replay a snapshot), judge it, print findings."""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Mapping
from functools import partial

from gpudoctor.cli.common import (
    ROOT_HELP,
    check_matrix_path,
    check_python,
    complete_codes,
    finding_codes,
    make_host,
    positive_seconds,
)

# typing's constant without typing: a live check imports this module before it starts the user's interpreter
# (bench/README.md, h151)
TYPE_CHECKING = False
if TYPE_CHECKING:  # imported where used, after the start: a check must begin fast
    import typer

    from gpudoctor.render.formats import Format


# What each option of `check` is when not given: the typer command's defaults, and what a bare `gpudoctor check`
# runs with when it is answered without building the command-line framework (gpudoctor.cli.fast: typer and the
# building of its options are half of a check's start; tests/cli/test_fast_path.py compares the two).
DEFAULTS: dict = {
    "output_format": "text",
    "verbose": False,
    "replay": None,
    "from_files": [],
    "deep": False,
    "python": None,
    "fail_on": "warning",
    "ignore": [],
    "require": [],
    "node": None,
    "probe_timeout": 5.0,
    "matrix": None,
    "only": [],
    "textfile": None,
    "debug": False,
    "root": "/",
    "pid": None,
}
# The variables a bare `check` would read (each option's envvar): set, the full command answers.
ENVVARS = ("GPUDOCTOR_FORMAT", "GPUDOCTOR_FAIL_ON", "GPUDOCTOR_IGNORE", "GPUDOCTOR_REQUIRE")


def register(app: typer.Typer) -> None:
    # Imported here, not at the top, so that a bare check never loads typer (gpudoctor.cli.fast); a module global,
    # since typer reads the command's annotations (typer.Context) from this module's namespace.
    global typer
    import typer

    from gpudoctor.cli.choices import FailOn, OutputFormat
    from gpudoctor.render.formats import FORMATS

    @app.command(
        "check",
        help=(
            "Diagnose the GPU, driver, CUDA toolkits, cuDNN and frameworks; print findings with fixes.\n\n"
            "Exit status: 0 healthy (nothing at or above --fail-on), 1 findings, 2 usage error, "
            "3 the doctor itself failed. Only --format json is a stable contract; the text view may change. "
            "--format github and junit are for CI (docs/ci.md); prometheus, nfd and npd for fleets (docs/cluster.md)."
        ),
    )
    def check(
        ctx: typer.Context,
        output_format: str = typer.Option(
            DEFAULTS["output_format"],
            "--format",
            "-f",
            envvar="GPUDOCTOR_FORMAT",
            metavar=_choices(OutputFormat),
            callback=_one_of(FORMATS),
            autocompletion=lambda: list(FORMATS),
            help=(
                "text, json (docs/report-schema.md), github (Actions annotations), junit (XML), prometheus "
                "(text exposition), nfd (Node Feature Discovery labels), npd (Node Problem Detector plugin: "
                "exit 0 ok, 1 problem, 2 unknown; one line) or markdown (an issue reply: findings, plan, what to ask for)."
            ),
        ),
        verbose: bool = typer.Option(
            False,
            "--verbose",
            "-v",
            help="Show the evidence of each finding, where each framework's CUDA libraries load from, and probe timings.",
        ),
        replay: str | None = typer.Option(
            None, "--replay", metavar="FILE", help="Diagnose a recorded snapshot instead of this machine."
        ),
        from_files: list[str] = typer.Option(
            [],
            "--from",
            metavar="FILE",
            help=(
                "Diagnose pasted text instead of this machine (repeatable; '-' for standard input): collect_env, "
                "nvidia-smi, nvcc --version, pip/conda lists, logs and tracebacks in any mix (docs/pasted.md)."
            ),
        ),
        deep: bool = typer.Option(
            False, "--deep", help="Also import each framework in a subprocess (slower; shows what only an import can)."
        ),
        python: str | None = typer.Option(
            None, "--python", metavar="PATH", help="The Python interpreter whose environment to probe."
        ),
        fail_on: str = typer.Option(
            DEFAULTS["fail_on"],
            "--fail-on",
            envvar="GPUDOCTOR_FAIL_ON",
            metavar=_choices(FailOn),
            callback=_one_of(FailOn),
            autocompletion=lambda: [f.value for f in FailOn],
            help="Lowest severity that makes the exit status 1.",
        ),
        ignore: list[str] = typer.Option(
            [],
            "--ignore",
            envvar="GPUDOCTOR_IGNORE",
            metavar="CODE",
            autocompletion=complete_codes,
            help="Drop findings with this code (repeatable; in the variable, codes separated by whitespace; an unknown code is a usage error).",
        ),
        require: list[str] = typer.Option(
            [],
            "--require",
            "-r",
            envvar="GPUDOCTOR_REQUIRE",
            metavar="SPEC",
            help=(
                "A requirement of the job (repeatable; one value, or the variable, may hold several, "
                "separated by whitespace): gpu, gpus>=2, "
                "driver>=535, cuda>=12.1, compute-capability>=8.0, gpu-memory>=40GiB, gpu-memory-free>=20GiB, "
                "torch>=2.3, torch:cuda, tensorflow:gpu, jax:cuda, bf16. An unmet one is a requirement-unmet error."
            ),
        ),
        node: str | None = typer.Option(
            None,
            "--node",
            metavar="NAME",
            help="The node name written into JSON/JUnit reports (default: this host's name; none with --replay).",
        ),
        probe_timeout: float = typer.Option(
            DEFAULTS["probe_timeout"],
            "--probe-timeout",
            metavar="SECONDS",
            callback=positive_seconds,
            help="Time limit of each probe (nvidia-smi, NVML, nvcc, ...).",
        ),
        matrix: str | None = typer.Option(
            None, "--matrix", metavar="DIR", help="Use this compatibility matrix instead of the bundled one."
        ),
        only: list[str] = typer.Option(
            [],
            "--only",
            metavar="CODE",
            autocompletion=complete_codes,
            help="Keep only findings with this code (repeatable): one Node Problem Detector condition per set of codes.",
        ),
        textfile: str | None = typer.Option(
            None,
            "--textfile",
            metavar="DIR",
            help=(
                "With --format prometheus or nfd: write DIR/gpudoctor.prom or DIR/gpudoctor atomically "
                "(node_exporter's textfile collector, NFD's features.d) instead of printing."
            ),
        ),
        pid: int | None = typer.Option(
            None,
            "--pid",
            min=1,
            metavar="PID",
            help=(
                "Also read which CUDA libraries this running process mapped (/proc/PID/maps; as its owner or root) "
                "and compare them with the loader model's prediction."
            ),
        ),
        debug: bool = typer.Option(False, "--debug", help="Show tracebacks of internal errors."),
        root: str = typer.Option(DEFAULTS["root"], "--root", hidden=True, metavar="DIR", help=ROOT_HELP),
    ) -> None:
        code = run(
            ctx,
            output_format=output_format,
            verbose=verbose,
            replay=replay,
            from_files=from_files,
            deep=deep,
            python=python,
            fail_on=fail_on,
            ignore=ignore,
            require=require,
            node=node,
            probe_timeout=probe_timeout,
            matrix=matrix,
            only=only,
            textfile=textfile,
            debug=debug,
            root=root,
            pid=pid,
        )
        raise typer.Exit(code)


def run(
    ctx: typer.Context | None,
    *,
    output_format: str,
    verbose: bool,
    replay: str | None,
    from_files: list[str],
    deep: bool,
    python: str | None,
    fail_on: str,
    ignore: list[str],
    require: list[str],
    node: str | None,
    probe_timeout: float,
    matrix: str | None,
    only: list[str],
    textfile: str | None,
    debug: bool,
    root: str,
    pid: int | None = None,
) -> int:
    """`gpudoctor check` itself; the exit status. `ctx` is None where no command line was parsed (a bare check)."""
    import time

    started = time.monotonic()
    # Requirements are parsed before anything is probed: a typo is a usage error (exit 2), at once.
    requirements = _requirements(ctx, require) if require else []
    try:
        # Checked before anything is probed; under --format json the error is still one document.
        ignored, kept = _checked(
            ctx,
            output_format=output_format,
            ignore=ignore,
            only=only,
            textfile=textfile,
            python=python,
            replay=replay,
            matrix=matrix,
        )
        host = _host(replay, from_files, deep, python, root)
        if host.mode == "live":
            # The user's interpreter is the other leg of a check: started now, before the request's records, the
            # probes and the checks' model are imported (what came before its start: bench/README.md, h151); the
            # Python probe takes it from the host (LiveHost.start_python_env_early).
            from gpudoctor.host.interpreter import choose_interpreter

            host.start_python_env_early(choose_interpreter(host, python)[0], probe_timeout)
        request = _request(
            requirements,
            started,
            ignored=ignored,
            kept=kept,
            python=python,
            replay=replay,
            from_files=from_files,
            matrix=matrix,
            deep=deep,
            probe_timeout=probe_timeout,
            fail_on=fail_on,
            node=node,
            verbose=verbose,
            pasted_text=bool(from_files),
            pid=pid,
        )
        from gpudoctor.pipeline import check as run_check

        result = run_check(host, request, ahead=partial(_import_renderer, output_format))
    except Exception as exc:
        fmt = _format(output_format)
        if fmt.raises or debug:
            raise
        return _failed(fmt, exc, started, textfile)
    return _emit(_format(output_format), result, textfile)


def _import_renderer(name: str) -> None:
    """What _emit and _output import once the result is made: the format's renderer and the writer of a --textfile
    (gpudoctor.pipeline.check imports them while the probes wait, off the check's critical path)."""
    _format(name).renderer()
    from gpudoctor import textfile  # noqa: F401


def _format(name: str) -> Format:
    """The --format row (read once the user's interpreter is started: its record class was on that leg before)."""
    from gpudoctor.render.formats import FORMATS

    return FORMATS[name]


def _requirements(ctx: typer.Context | None, require: list[str]) -> list:
    """--require's specs (gpudoctor.checks.requirements loads `packaging`: only when there are requirements)."""
    import typer

    from gpudoctor.checks.requirements import RequirementSyntaxError, parse_requirements

    from_env = _from_env(ctx, "require")
    if from_env:
        # click splits a multiple option's variable on whitespace; rejoined, the variable is
        # read as one --require value is, so `torch >= 2.3` in GPUDOCTOR_REQUIRE stays one spec.
        require = [" ".join(require)]
    try:
        return parse_requirements(require)
    except RequirementSyntaxError as exc:
        raise typer.BadParameter(str(exc), param_hint=_hint("--require", "GPUDOCTOR_REQUIRE" if from_env else None)) from None


def _checked(ctx: typer.Context | None, **given) -> tuple[list[str], list[str]]:
    """The codes of --ignore and --only, once every usage error of the options has been raised (before anything
    is probed, and before a live check starts the user's interpreter)."""
    ignored = finding_codes("GPUDOCTOR_IGNORE" if _from_env(ctx, "ignore") else "--ignore", given["ignore"])
    kept = finding_codes("--only", given["only"])
    if given["textfile"] is not None:
        from gpudoctor.textfile import check_directory

        check_directory(given["textfile"], given["output_format"])
    if given["python"] and not given["replay"]:
        check_python(given["python"])
    check_matrix_path(given["matrix"])
    return ignored, kept


def _request(requirements: list, started: float, **given):
    """What the options ask of the check (gpudoctor.pipeline.CheckRequest), their usage errors raised (`_checked`)."""
    from gpudoctor.model import Severity
    from gpudoctor.pipeline import CheckRequest
    from gpudoctor.probes import ProbeOptions

    replay, from_files, python, timeout = given["replay"], given["from_files"], given["python"], given["probe_timeout"]
    ignored, kept, node = given["ignored"], given["kept"], given["node"]
    return CheckRequest(
        options=ProbeOptions(
            probe_timeout_s=timeout, deadline_s=max(10.0, timeout * 4), python=python, deep=given["deep"], pid=given["pid"]
        ),
        matrix_path=given["matrix"],
        requirements=tuple(requirements),
        ignored=frozenset(ignored),
        kept=frozenset(kept),
        threshold=Severity[given["fail_on"].upper()],
        node=node if node is not None else (None if replay or from_files else _hostname()),
        verbose=given["verbose"],
        started=started,
        pasted_text=given["pasted_text"],
    )


def _host(replay: str | None, from_files: list[str], deep: bool, python: str | None, root: str):
    """What to diagnose: pasted text, a recorded snapshot or this machine (one of them)."""
    if from_files and (replay or deep or python):
        from gpudoctor.errors import UsageError

        if replay:
            raise UsageError("--from and --replay both name what to diagnose: give one of them")
        raise UsageError(f"{'--deep' if deep else '--python'} probes this machine; --from reads pasted text")
    return _pasted_host(from_files) if from_files else make_host(replay, root)


def _emit(fmt, result, textfile: str | None) -> int:
    """Print (or, with --textfile, write) the result in its format; the exit status."""
    renderer = fmt.renderer()
    text = renderer.render(result)
    if hasattr(renderer, "write_beside"):
        renderer.write_beside(result)
    status = renderer.exit_status(result) if hasattr(renderer, "exit_status") else int(result.exit_code)
    return _output(fmt, text, status, textfile)


def _failed(fmt, exc: Exception, started: float, textfile: str | None) -> int:
    """The doctor's failure in the asked format (so a collector or a CI step still reads one document),
    and the one line on stderr a person reading the log needs; the exit status."""
    from gpudoctor.errors import GpudoctorError
    from gpudoctor.model import ExitCode

    hint = exc.hint if isinstance(exc, GpudoctorError) else None
    message = exc.message if isinstance(exc, GpudoctorError) else f"{type(exc).__name__}: {exc}"
    exit_code = ExitCode(exc.exit_code) if isinstance(exc, GpudoctorError) else ExitCode.ERROR
    if exit_code == ExitCode.USAGE:
        textfile = None  # a wrong command line replaces no file a collector reads
    renderer = fmt.renderer()
    text = renderer.render_error(message, hint, exit_code, started)
    status = renderer.error_status(message, hint, exit_code) if hasattr(renderer, "error_status") else int(exit_code)
    status = _output(fmt, text, status, textfile)
    sys.stderr.write(f"gpudoctor: error: {_clean(message)}\n")
    return status


def _choices(kind: type[enum.Enum]) -> str:
    return "[" + "|".join(member.value for member in kind) + "]"


def _from_env(ctx: typer.Context | None, name: str) -> bool:
    """Whether the option's value came from its environment variable (not the command line or the default)."""
    if ctx is None:
        return False  # a check without typer (gpudoctor.cli.fast) runs only where none of them is set
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "ENVIRONMENT"


def _hint(option: str, envvar: str | None) -> str:
    # Written here, not left to click: click names the variable only from 8.2 on, and a CI log that
    # blames --fail-on when no --fail-on was typed sends the reader to the wrong line.
    return f"'{option}' (env var: {envvar})" if envvar else f"'{option}'"


def _one_of(kind: type[enum.Enum] | Mapping[str, object]):
    """A choice option's check, done here rather than by an Enum type so that a bad value from the
    environment variable names the variable (`_hint`); the value stays a plain string. A mapping's keys
    are read at each check (--format: the table of formats, gpudoctor.render.formats)."""

    def check(ctx: typer.Context, param: typer.CallbackParam, value: str) -> str:
        import typer

        allowed = list(kind) if isinstance(kind, Mapping) else [member.value for member in kind]
        if value in allowed:
            return value
        envvar = param.envvar if _from_env(ctx, param.name or "") and isinstance(param.envvar, str) else None
        raise typer.BadParameter(
            f"{value!r} is not one of {', '.join(repr(a) for a in allowed)}.", param_hint=_hint(param.opts[0], envvar)
        )

    return check


def _hostname() -> str | None:
    # gethostname(2) is uname(2)'s node name on POSIX: os.uname() answers without importing socket.
    uname = getattr(os, "uname", None)
    if uname is not None:
        return uname().nodename or None
    import socket

    try:
        return socket.gethostname() or None
    except OSError:
        return None


def _pasted_host(paths: list[str]):
    """A replay host of the partial snapshot that the pasted texts describe (docs/pasted.md)."""
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted import load_sources, read_pasted

    return ReplayHost(validate_snapshot(read_pasted(load_sources(paths)), "pasted text"))


def _clean(text: str) -> str:
    from gpudoctor.sanitize import clean

    return clean(text)


def _output(fmt, text: str, status: int, textfile: str | None) -> int:
    """`text` on standard output, or with --textfile written atomically as the collector's file; the exit
    status (ERROR when that file cannot be written)."""
    from gpudoctor.textfile import FILE_NAMES

    if textfile is None or fmt.name not in FILE_NAMES:
        sys.stdout.write(text)
        return status
    from gpudoctor.errors import GpudoctorError
    from gpudoctor.model import ExitCode
    from gpudoctor.textfile import write_atomic

    try:
        write_atomic(textfile, FILE_NAMES[fmt.name], text)
    except GpudoctorError as exc:
        sys.stderr.write(f"gpudoctor: error: {_clean(exc.message)}\n")
        return int(ExitCode.ERROR)
    return status
