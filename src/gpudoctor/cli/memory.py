"""`gpudoctor memory` (who holds GPU memory) and `gpudoctor memory plan` (can these jobs share a GPU)."""

from __future__ import annotations

import enum
import json
import sys

import typer

from gpudoctor.cli import HELP_OPTIONS
from gpudoctor.cli.common import ROOT_HELP, make_host, positive_seconds, stdout_console


class OutputFormat(str, enum.Enum):
    text = "text"
    json = "json"


_VIEW_HELP = (
    "Who holds GPU memory: each GPU's and MIG instance's total, used and free memory, and every process "
    "holding some (PID, user, memory, framework, command line); with --pid, which copy of each CUDA library "
    "that process mapped and whether the loader model predicted it (as check --pid). `gpudoctor memory plan` "
    "checks that jobs fit on one GPU and prints the settings that hold each to its budget (docs/memory.md).\n\n"
    "Exit status: 0 read, 1 a GPU is at least 25% held by processes (as gpu-memory-held) or the --pid process "
    "mapped another copy than predicted, 2 usage error, 3 no GPU could be read. Only --format json is a stable "
    "contract."
)
_PLAN_HELP = (
    "Check that jobs with memory budgets fit together on one GPU, and print per job the environment file and "
    "code that hold it to its budget; with --isolate (or for a program no setting caps), the MIG profiles that "
    "would hold the jobs in hardware.\n\n"
    "Jobs are NAME=SIZE[:FRAMEWORK]: bert=5GiB:torch resnet=7GiB:tensorflow (GiB, MiB; GB, MB; framework "
    "torch, tensorflow, jax or other).\n\n"
    "Exit status: 0 the jobs fit, 1 they do not (the output says by how much and what would), 2 usage error, "
    "3 no GPU could be read."
)

memory_app = typer.Typer(help=_VIEW_HELP, rich_markup_mode=None, invoke_without_command=True, context_settings=HELP_OPTIONS)


def _fail(message: str, hint: str | None, code: int, output_format: OutputFormat, schema: str) -> None:
    from gpudoctor.memory.render import error_document

    if output_format is OutputFormat.json:
        sys.stdout.write(json.dumps(error_document(schema, message, hint, code), indent=2, sort_keys=True) + "\n")
    from gpudoctor.sanitize import clean_line

    # The message may quote the machine (a path, what NVML said): shown, never obeyed by the terminal.
    sys.stderr.write(f"gpudoctor: error: {clean_line(message)}\n")
    if hint:
        sys.stderr.write(f"hint: {clean_line(hint)}\n")
    raise typer.Exit(code)


def _read(
    replay: str | None, timeout_s: float, output_format: OutputFormat, schema: str, root: str = "/", keep_problem: bool = False
):
    """The host's memory view, or one clear sentence and exit 3 (with `keep_problem`, the view saying it: a
    process's libraries are read without a GPU)."""
    from gpudoctor.errors import GpudoctorError
    from gpudoctor.memory.gather import read_memory
    from gpudoctor.model import ExitCode

    try:
        host = make_host(replay, root)
        view = read_memory(host, timeout_s)
    except GpudoctorError as exc:
        _fail(exc.message, exc.hint, exc.exit_code, output_format, schema)
    if view.problem and not keep_problem:
        _fail(view.problem, "gpudoctor check says why", ExitCode.ERROR, output_format, schema)
    return host, view


@memory_app.callback(invoke_without_command=True, help=_VIEW_HELP)
def memory(
    ctx: typer.Context,
    watch: bool = typer.Option(False, "--watch", "-w", help="Redraw the view until Ctrl-C."),
    interval: float = typer.Option(2.0, "--interval", min=0.0, metavar="SECONDS", help="Seconds between redraws with --watch."),
    count: int | None = typer.Option(None, "--count", min=1, metavar="N", help="With --watch: stop after N redraws."),
    replay: str | None = typer.Option(None, "--replay", metavar="FILE", help="Read a recorded snapshot instead of this machine."),
    output_format: OutputFormat = typer.Option(
        OutputFormat.text, "--format", "-f", help="text, or json (schema gpudoctor.memory/1)."
    ),
    probe_timeout: float = typer.Option(
        5.0, "--probe-timeout", metavar="SECONDS", callback=positive_seconds, help="Time limit of NVML and nvidia-smi."
    ),
    pid: int | None = typer.Option(
        None,
        "--pid",
        min=1,
        metavar="PID",
        help=(
            "Also show which copy of each CUDA library this process mapped (/proc/PID/maps; as its owner or root) "
            "and whether the loader model predicts that copy for the probed Python (--python)."
        ),
    ),
    python: str | None = typer.Option(
        None, "--python", metavar="PATH", help="With --pid: the interpreter whose frameworks the loader model reads."
    ),
    root: str = typer.Option("/", "--root", hidden=True, metavar="DIR", help=ROOT_HELP),
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    from gpudoctor.memory import render
    from gpudoctor.model import ExitCode

    if watch and output_format is OutputFormat.json:
        _fail(
            "--watch draws the terminal view; for JSON run without --watch",
            None,
            ExitCode.USAGE,
            output_format,
            render.VIEW_SCHEMA,
        )
    if watch and pid is not None:
        _fail("--pid reads the process once; run it without --watch", None, ExitCode.USAGE, output_format, render.VIEW_SCHEMA)
    if python and pid is None:
        _fail(
            "--python says whose loader model --pid compares with: give --pid too",
            None,
            ExitCode.USAGE,
            output_format,
            render.VIEW_SCHEMA,
        )
    if python and replay is None:
        from gpudoctor.cli.common import check_python

        check_python(python)
    host, view = _read(replay, probe_timeout, output_format, render.VIEW_SCHEMA, root, keep_problem=pid is not None)
    proc = _mapped(host, pid, python, probe_timeout) if pid is not None else None
    from gpudoctor.memory.mapped import differs, mapped_document, mapped_lines

    code = ExitCode.FINDINGS if render.heavily_held(view) or (proc is not None and differs(proc)) else ExitCode.OK
    if view.problem:
        code = ExitCode.ERROR
    if output_format is OutputFormat.json:
        doc = render.view_document(view, int(code))
        if proc is not None:
            doc["process"] = mapped_document(proc)
        sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        raise typer.Exit(int(code))
    console = stdout_console()
    if not watch:
        # Wrapped to the terminal's width (80 columns where the output is no terminal), as `check` is.
        lines = render.view_lines(view, width=console.width)
        if proc is not None:
            lines += ["", *mapped_lines(proc)]  # paths unwrapped, one to a line
        for line in lines:
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(int(code))
    from gpudoctor.memory.gather import read_memory

    first = [view]

    def refresh():
        # The view read above is the first frame: no second probe before anything is drawn.
        return first.pop() if first else read_memory(host, probe_timeout)

    render.watch(refresh, console, interval, iterations=count)
    raise typer.Exit(int(ExitCode.OK))


def _mapped(host, pid: int, python: str | None, timeout_s: float):  # -> gpudoctor.extension_facts.ProcessFacts
    """The process's mapped libraries beside the loader model: the probes `check --pid` runs, on the same host."""
    from gpudoctor.probes import ProbeOptions, run_probes

    options = ProbeOptions(probe_timeout_s=timeout_s, deadline_s=max(10.0, timeout_s * 4), python=python, pid=pid)
    return run_probes(host, options).process


@memory_app.command("plan", help=_PLAN_HELP)
def plan(
    jobs: list[str] = typer.Argument(..., metavar="NAME=SIZE[:FRAMEWORK]...", help="The jobs and their budgets."),
    gpu: int = typer.Option(0, "--gpu", min=0, metavar="N", help="The GPU they share (nvidia-smi's index)."),
    isolate: bool = typer.Option(False, "--isolate", help="Budgets must hold in hardware: plan MIG instances."),
    replay: str | None = typer.Option(
        None, "--replay", metavar="FILE", help="Plan on a recorded snapshot instead of this machine."
    ),
    output_format: OutputFormat = typer.Option(
        OutputFormat.text, "--format", "-f", help="text, or json (schema gpudoctor.memory-plan/1)."
    ),
    probe_timeout: float = typer.Option(
        5.0, "--probe-timeout", metavar="SECONDS", callback=positive_seconds, help="Time limit of NVML and nvidia-smi."
    ),
    matrix: str | None = typer.Option(
        None, "--matrix", metavar="DIR", help="Use this compatibility matrix instead of the bundled one."
    ),
    gpu_memory: str | None = typer.Option(
        None,
        "--gpu-memory",
        metavar="SIZE",
        help="Plan for a GPU of this much memory (such as 24GiB, all free) instead of reading one: no GPU needed.",
    ),
) -> None:
    from gpudoctor.errors import GpudoctorError, UsageError
    from gpudoctor.memory import render
    from gpudoctor.memory.plan import make_plan, parse_jobs, stated_gpu
    from gpudoctor.model import ExitCode

    stated = None
    try:
        parsed = parse_jobs(jobs)
        from gpudoctor.cli.common import check_matrix_path

        check_matrix_path(matrix)
        if gpu_memory is not None:
            if replay is not None:
                raise UsageError("--gpu-memory and --replay both say which GPU to plan for: give one of them")
            stated = stated_gpu(gpu_memory)
    except UsageError as exc:
        _fail(exc.message, exc.hint, ExitCode.USAGE, output_format, render.PLAN_SCHEMA)
    view = stated if stated is not None else _read(replay, probe_timeout, output_format, render.PLAN_SCHEMA)[1]
    try:
        from gpudoctor.matrix import load_matrix

        the_plan = make_plan(view, gpu, parsed, isolate, load_matrix(matrix))
    except UsageError as exc:
        _fail(exc.message, exc.hint, ExitCode.USAGE, output_format, render.PLAN_SCHEMA)
    except GpudoctorError as exc:
        _fail(exc.message, exc.hint, ExitCode.ERROR, output_format, render.PLAN_SCHEMA)
    code = ExitCode.OK if the_plan.ok else ExitCode.FINDINGS
    if output_format is OutputFormat.json:
        sys.stdout.write(json.dumps(render.plan_document(the_plan, int(code)), indent=2, sort_keys=True) + "\n")
    else:
        console = stdout_console()
        for line in render.plan_lines(the_plan):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(int(code))


def register(app: typer.Typer) -> None:
    app.add_typer(memory_app, name="memory")
