"""`gpudoctor check`: probe the machine (or replay a snapshot), judge it, print findings."""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from gpudoctor.cli.common import FailOn, OutputFormat, make_host, stdout_console


def register(app: typer.Typer) -> None:
    @app.command(
        "check",
        help=(
            "Diagnose the GPU, driver, CUDA toolkits, cuDNN and frameworks; print findings with fixes.\n\n"
            "Exit status: 0 healthy (nothing at or above --fail-on), 1 findings, 2 usage error, "
            "3 the doctor itself failed. Only --format json is a stable contract; the text view may change."
        ),
    )
    def check(
        output_format: OutputFormat = typer.Option(OutputFormat.text, "--format", "-f", help="text, or json (docs/report-schema.md)."),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="Show the evidence of each finding and probe timings."),
        replay: Optional[str] = typer.Option(None, "--replay", metavar="FILE", help="Diagnose a recorded snapshot instead of this machine."),
        deep: bool = typer.Option(False, "--deep", help="Also import each framework in a subprocess (slower; shows what only an import can)."),
        python: Optional[str] = typer.Option(None, "--python", metavar="PATH", help="The Python interpreter whose environment to probe."),
        fail_on: FailOn = typer.Option(FailOn.warning, "--fail-on", help="Lowest severity that makes the exit status 1."),
        ignore: List[str] = typer.Option([], "--ignore", metavar="CODE", help="Drop findings with this code (repeatable)."),
        probe_timeout: float = typer.Option(5.0, "--probe-timeout", metavar="SECONDS", help="Time limit of each probe (nvidia-smi, NVML, nvcc, ...)."),
        matrix: Optional[str] = typer.Option(None, "--matrix", metavar="DIR", help="Use this compatibility matrix instead of the bundled one."),
        debug: bool = typer.Option(False, "--debug", help="Show tracebacks of internal errors."),
    ) -> None:
        from gpudoctor.doctor import diagnose
        from gpudoctor.model import ExitCode, Severity, exit_code_for
        from gpudoctor.probes import ProbeOptions

        options = ProbeOptions(probe_timeout_s=probe_timeout, deadline_s=max(10.0, probe_timeout * 4), python=python, deep=deep)
        if output_format is OutputFormat.json:
            try:
                report = diagnose(make_host(replay), options, matrix)
            except Exception as exc:
                from gpudoctor.errors import GpudoctorError
                from gpudoctor.render.json_report import error_document

                if debug:
                    raise
                hint = exc.hint if isinstance(exc, GpudoctorError) else None
                message = exc.message if isinstance(exc, GpudoctorError) else f"{type(exc).__name__}: {exc}"
                sys.stdout.write(error_document(message, hint, ExitCode.ERROR))
                raise typer.Exit(ExitCode.ERROR)
        else:
            # Import the renderer while the probes wait on subprocesses: it
            # overlaps instead of adding its ~30 ms after them.
            import threading

            threading.Thread(target=_warm_renderer, daemon=True).start()
            report = diagnose(make_host(replay), options, matrix)
        report.findings = [f for f in report.findings if f.code not in set(ignore)]
        code = exit_code_for(report.findings, Severity[fail_on.value.upper()])
        if output_format is OutputFormat.json:
            from gpudoctor.render.json_report import render_json

            sys.stdout.write(render_json(report, code))
        else:
            from gpudoctor.render.terminal import render_terminal

            render_terminal(report, stdout_console(), verbose=verbose)
        raise typer.Exit(int(code))


def _warm_renderer() -> None:
    import rich.console  # noqa: F401
    import rich.markup  # noqa: F401
