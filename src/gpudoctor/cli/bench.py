"""`gpudoctor bench bandwidth`: measure host<->GPU copy bandwidth and say whether the link gives what it should."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import sys
from collections.abc import Iterator
from typing import Any

import typer

from gpudoctor.cli import HELP_OPTIONS
from gpudoctor.cli.choices import FailOn
from gpudoctor.cli.common import ROOT_HELP, make_host, positive_seconds, stderr_console, stdout_console


class OutputFormat(str, enum.Enum):
    text = "text"
    json = "json"


bench_app = typer.Typer(
    help="Benchmarks that measure this machine and judge the result.",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings=HELP_OPTIONS,
)

_HELP = (
    "Measure copy bandwidth between host and GPU (pinned and pageable), on the GPU, both directions at once, "
    "and between GPUs; judge it against the PCIe or NVLink-C2C link (docs/bandwidth.md).\n\n"
    "Needs only the NVIDIA driver (libcuda.so.1): no CUDA toolkit, no framework.\n\n"
    "Exit status: 0 healthy (nothing at or above --fail-on), 1 findings (bandwidth-low, bandwidth-copy-corrupt), "
    "2 usage error, 3 nothing could be measured (no driver or GPU, a CUDA error, an unreadable --results file). "
    "Only --format json is a stable contract."
)


@contextlib.contextmanager
def _progress_bar(total: int, enabled: bool) -> Iterator[Any]:
    if not enabled:
        yield lambda _description: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description:<22}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr_console(),
        transient=True,
    ) as progress:
        task = progress.add_task("bandwidth", total=total)
        yield lambda description: progress.update(task, advance=1, description=description)


def _fail(message: str, hint: str | None, code: int, output_format: OutputFormat, reason: str | None = None) -> None:
    from gpudoctor.bandwidth.render import error_document
    from gpudoctor.model import ExitCode

    if output_format is OutputFormat.json:
        sys.stdout.write(error_document(message, hint, ExitCode(code), reason))
    from gpudoctor.sanitize import clean_line

    # The message may quote the machine (a path, what NVML said): shown, never obeyed by the terminal.
    sys.stderr.write(f"gpudoctor: error: {clean_line(message)}\n")
    if hint:
        sys.stderr.write(f"hint: {clean_line(hint)}\n")
    raise typer.Exit(code)


@bench_app.command("bandwidth", help=_HELP)
def bandwidth(
    gpu: str = typer.Option(
        "all", "--gpu", metavar="all|N[,N...]", help="GPUs to measure: all, or CUDA device numbers (as cuda:N) such as 0,1."
    ),
    sizes: str | None = typer.Option(
        None,
        "--sizes",
        metavar="SIZES",
        help="Transfer sizes: a range of powers of two (64K-256M, the default) or a list (1M,32M,256M).",
    ),
    tests: str = typer.Option(
        "all",
        "--tests",
        metavar="LIST",
        help="all, or some of: h2d, d2h, h2d-pageable, d2h-pageable (or: pageable), d2d, bidir, p2p.",
    ),
    repeats: int = typer.Option(10, "--repeats", min=1, max=1000, help="Timed samples per size (the median is reported)."),
    warmup: int = typer.Option(2, "--warmup", min=0, max=100, help="Untimed batches per size before the timed ones."),
    verify: bool = typer.Option(False, "--verify", help="Check that the data arrived intact (copy a pattern and read it back)."),
    plot: str | None = typer.Option(None, "--plot", metavar="FILE", help="Also draw bandwidth by size into FILE (.png or .svg)."),
    output_format: OutputFormat = typer.Option(
        OutputFormat.text, "--format", "-f", help="text, or json (schema gpudoctor.bandwidth/1)."
    ),
    fail_on: FailOn = typer.Option(FailOn.warning, "--fail-on", help="Lowest severity that makes the exit status 1."),
    results: str | None = typer.Option(
        None, "--results", metavar="FILE", help="Judge recorded results (a --format json output) instead of measuring."
    ),
    replay: str | None = typer.Option(
        None, "--replay", metavar="FILE", help="Take the link facts (NVML, sysfs) from a snapshot instead of this machine."
    ),
    matrix: str | None = typer.Option(
        None, "--matrix", metavar="DIR", help="Use this compatibility matrix instead of the bundled one."
    ),
    probe_timeout: float = typer.Option(
        5.0, "--probe-timeout", metavar="SECONDS", callback=positive_seconds, help="Time limit of the NVML and nvidia-smi probes."
    ),
    no_progress: bool = typer.Option(False, "--no-progress", help="No progress bar on stderr."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Every size in the table; the evidence of each finding."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks of internal errors."),
    root: str = typer.Option("/", "--root", hidden=True, metavar="DIR", help=ROOT_HELP),
) -> None:
    from gpudoctor.bandwidth.cuda_driver import DriverUnavailable
    from gpudoctor.bandwidth.judge import judge_run
    from gpudoctor.bandwidth.results import BenchPlan
    from gpudoctor.bandwidth.runner import parse_gpu_selection, parse_tests
    from gpudoctor.bandwidth.sizes import DEFAULT_SIZES, parse_sizes
    from gpudoctor.errors import GpudoctorError, UsageError
    from gpudoctor.model import ExitCode, Severity, exit_code_for

    try:
        plan = BenchPlan(
            sizes_bytes=parse_sizes(sizes) if sizes else DEFAULT_SIZES,
            tests=parse_tests(tests),
            warmup=warmup,
            repeats=repeats,
            verify=verify,
        )
        selection = parse_gpu_selection(gpu)
        if plot and not plot.lower().endswith((".png", ".svg")):
            raise UsageError(f"--plot {plot}: the file name must end in .png or .svg")
        if plot:
            from gpudoctor.cli.common import check_output_path

            check_output_path("--plot", plot)
        from gpudoctor.cli.common import check_matrix_path

        check_matrix_path(matrix)
    except UsageError as exc:
        _fail(exc.message, exc.hint, ExitCode.USAGE, output_format, "usage")

    try:
        run = _obtain_run(plan, selection, results, replay, probe_timeout, not no_progress, root)
        from gpudoctor.bandwidth.expected import load_link_table

        judgement = judge_run(run, load_link_table(matrix))
    except DriverUnavailable as exc:
        _fail(exc.message, exc.hint, ExitCode.ERROR, output_format, exc.reason)
    except UsageError as exc:
        _fail(exc.message, exc.hint, ExitCode.USAGE, output_format, "usage")
    except GpudoctorError as exc:
        if debug:
            raise
        _fail(exc.message, exc.hint, ExitCode.ERROR, output_format)

    failed = any(g.error for g in run.gpus) or any(p.error for p in run.peers)
    code = ExitCode.ERROR if failed else exit_code_for(judgement.findings, Severity[fail_on.value.upper()])
    if output_format is OutputFormat.json:
        from gpudoctor.bandwidth.render import render_json

        sys.stdout.write(render_json(run, judgement, code))
    else:
        from gpudoctor.bandwidth.render import render_text

        render_text(run, judgement, stdout_console(), verbose=verbose)
    if plot:
        from gpudoctor.bandwidth.chart import write_plot
        from gpudoctor.bandwidth.render import charts_for

        try:
            write_plot(plot, charts_for(run, judgement))
        except OSError as exc:
            _fail(f"could not write {plot}: {exc.strerror or exc}", None, ExitCode.ERROR, OutputFormat.text)
        if output_format is OutputFormat.text:
            stdout_console().print(f"Chart written to {plot}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(int(code))


def _obtain_run(
    plan: Any, selection: Any, results: str | None, replay: str | None, timeout_s: float, progress: bool, root: str = "/"
) -> Any:
    from gpudoctor.bandwidth.runner import measure_here, relink

    if results:
        run = _load_results(results)
        return relink(run, make_host(replay), timeout_s) if replay else run
    return measure_here(make_host(replay, root), plan, selection, timeout_s, lambda total: _progress_bar(total, progress))


def _load_results(path: str) -> Any:
    from gpudoctor.bandwidth.results import BenchRun, ResultsError
    from gpudoctor.bounded import load_json_file
    from gpudoctor.errors import InputError

    # Bounded (docs/security.md): a regular file of at most 32 MiB, strict JSON (no NaN), nested at most 64 deep.
    try:
        data = load_json_file(path, "bandwidth results file")
    except InputError as exc:
        raise ResultsError(exc.message, exc.hint) from None
    run = BenchRun.from_json(data)
    return dataclasses.replace(run, host_mode="recorded")


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app, name="bench")
