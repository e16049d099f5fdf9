"""`gpudoctor check`: probe the machine (or replay a snapshot), judge it, print findings."""

from __future__ import annotations

import enum
import os
import sys
from typing import TYPE_CHECKING

import typer

from gpudoctor.cli.common import (
    ROOT_HELP,
    FailOn,
    OutputFormat,
    check_matrix_path,
    check_python,
    finding_codes,
    make_host,
    positive_seconds,
    text_console,
)

if TYPE_CHECKING:  # imported where used, after the start: a check must begin fast
    from gpudoctor.model import ExitCode


def register(app: typer.Typer) -> None:
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
            OutputFormat.text.value,
            "--format",
            "-f",
            envvar="GPUDOCTOR_FORMAT",
            metavar=_choices(OutputFormat),
            callback=_one_of(OutputFormat),
            autocompletion=lambda: [f.value for f in OutputFormat],
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
            FailOn.warning.value,
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
            5.0,
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
        root: str = typer.Option("/", "--root", hidden=True, metavar="DIR", help=ROOT_HELP),
    ) -> None:
        import time

        started = time.monotonic()
        from gpudoctor.doctor import diagnose
        from gpudoctor.model import ExitCode, Severity, exit_code_for, sort_findings
        from gpudoctor.probes import ProbeOptions

        # Requirements are parsed before anything is probed: a typo is a usage error (exit 2), at once.
        # (gpudoctor.requirements loads `packaging`: only when there are requirements.)
        requirements: list = []
        if require:
            from gpudoctor.requirements import RequirementSyntaxError, parse_requirements

            from_env = _from_env(ctx, "require")
            if from_env:
                # click splits a multiple option's variable on whitespace; rejoined, the variable is
                # read as one --require value is, so `torch >= 2.3` in GPUDOCTOR_REQUIRE stays one spec.
                require = [" ".join(require)]
            try:
                requirements = parse_requirements(require)
            except RequirementSyntaxError as exc:
                raise typer.BadParameter(
                    str(exc), param_hint=_hint("--require", "GPUDOCTOR_REQUIRE" if from_env else None)
                ) from None

        output_format = OutputFormat(output_format)
        node_name = node if node is not None else (None if replay or from_files else _hostname())
        options = ProbeOptions(
            probe_timeout_s=probe_timeout, deadline_s=max(10.0, probe_timeout * 4), python=python, deep=deep, pid=pid
        )
        try:
            # Checked before anything is probed; under --format json the error is still one document.
            ignored = set(finding_codes("GPUDOCTOR_IGNORE" if _from_env(ctx, "ignore") else "--ignore", ignore))
            kept = set(finding_codes("--only", only))
            if textfile is not None:
                from gpudoctor.textfile import check_directory

                check_directory(textfile, output_format.value)
            if python and not replay:
                check_python(python)
            check_matrix_path(matrix)
            if from_files and (replay or deep or python):
                from gpudoctor.errors import UsageError

                if replay:
                    raise UsageError("--from and --replay both name what to diagnose: give one of them")
                raise UsageError(f"{'--deep' if deep else '--python'} probes this machine; --from reads pasted text")
            host = _pasted_host(from_files) if from_files else make_host(replay, root)
            report = diagnose(host, options, matrix)
            pasted, asks = _pasted_view(host, report)
            outcomes = []
            if requirements:
                from gpudoctor.requirements import evaluate

                outcomes = evaluate(requirements, report.facts, report.findings, matrix_path=matrix)
        except Exception as exc:
            if output_format is OutputFormat.text or debug:
                raise
            from gpudoctor.errors import GpudoctorError

            hint = exc.hint if isinstance(exc, GpudoctorError) else None
            message = exc.message if isinstance(exc, GpudoctorError) else f"{type(exc).__name__}: {exc}"
            exit_code = ExitCode(exc.exit_code) if isinstance(exc, GpudoctorError) else ExitCode.ERROR
            if output_format in _FLEET_FORMATS:
                import json

                from gpudoctor.render.json_report import error_document

                doc = json.loads(error_document(message, hint, exit_code))
                if exit_code == ExitCode.USAGE and output_format is not OutputFormat.npd:
                    textfile = None  # a wrong command line replaces no file a collector reads
                code = _fleet_output(output_format, doc, started, textfile)
                sys.stderr.write(f"gpudoctor: error: {_clean(message)}\n")
                raise typer.Exit(code) from None
            sys.stdout.write(_error_output(output_format, message, hint, exit_code))
            # The same one line on stderr as in text mode: a person reading CI logs sees why.
            from gpudoctor.sanitize import clean

            sys.stderr.write(f"gpudoctor: error: {clean(message)}\n")
            raise typer.Exit(exit_code) from None

        unmet = [o.finding for o in outcomes if o.finding is not None]
        if unmet:
            report.findings = sort_findings(report.findings + unmet)
        report.findings = [f for f in report.findings if f.code not in ignored and (not kept or f.code in kept)]
        threshold = Severity[fail_on.upper()]
        code = exit_code_for(report.findings, threshold)
        if output_format is OutputFormat.json:
            sys.stdout.write(_json(report, code, outcomes, requirements, node_name, pasted, asks))
        elif output_format is OutputFormat.markdown:
            from gpudoctor.render.markdown import render_markdown

            sys.stdout.write(render_markdown(report, code, pasted, asks))
        elif output_format in _FLEET_FORMATS:
            doc = _document(report, code, outcomes, requirements, node_name)
            raise typer.Exit(_fleet_output(output_format, doc, started, textfile))
        elif output_format is OutputFormat.github:
            from gpudoctor.render.github import render_github, render_github_summary

            sys.stdout.write(render_github(report, outcomes, code))
            summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
            if summary_path:
                try:
                    with open(summary_path, "a", encoding="utf-8") as fh:
                        fh.write(render_github_summary(report, outcomes, code, threshold, node_name))
                except OSError as exc:
                    sys.stderr.write(f"gpudoctor: cannot append to GITHUB_STEP_SUMMARY ({summary_path}): {exc.strerror or exc}\n")
        elif output_format is OutputFormat.junit:
            from gpudoctor.render.junit import render_junit

            sys.stdout.write(render_junit(report, outcomes, code, threshold, node_name))
        else:
            from gpudoctor.render.terminal import render_terminal

            console = text_console()
            render_terminal(report, console, verbose=verbose)
            if pasted is not None:
                from gpudoctor.pasted.view import print_pasted

                print_pasted(console, pasted, asks, verbose=verbose)
            if outcomes:
                _print_requirements(console, outcomes)
        raise typer.Exit(int(code))


def _choices(kind: type[enum.Enum]) -> str:
    return "[" + "|".join(member.value for member in kind) + "]"


def _from_env(ctx: typer.Context, name: str) -> bool:
    """Whether the option's value came from its environment variable (not the command line or the default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "ENVIRONMENT"


def _hint(option: str, envvar: str | None) -> str:
    # Written here, not left to click: click names the variable only from 8.2 on, and a CI log that
    # blames --fail-on when no --fail-on was typed sends the reader to the wrong line.
    return f"'{option}' (env var: {envvar})" if envvar else f"'{option}'"


def _one_of(kind: type[enum.Enum]):
    """A choice option's check, done here rather than by an Enum type so that a bad value from the
    environment variable names the variable (`_hint`); the value stays a plain string."""

    def check(ctx: typer.Context, param: typer.CallbackParam, value: str) -> str:
        allowed = [member.value for member in kind]
        if value in allowed:
            return value
        envvar = param.envvar if _from_env(ctx, param.name or "") and isinstance(param.envvar, str) else None
        raise typer.BadParameter(
            f"{value!r} is not one of {', '.join(repr(a) for a in allowed)}.", param_hint=_hint(param.opts[0], envvar)
        )

    return check


def _hostname() -> str | None:
    import socket

    try:
        return socket.gethostname() or None
    except OSError:
        return None


def _document(report, code, outcomes, requirements, node_name, pasted=None, asks=()) -> dict:
    """The JSON report document (docs/report-schema.md): what --format json prints, and what the fleet formats read."""
    from gpudoctor.render.json_report import report_document

    doc = report_document(report, code)
    if requirements:
        doc["requirements"] = [o.to_json() for o in outcomes]
    if node_name:
        doc["node"] = node_name
    if pasted is not None:
        from gpudoctor.cmdline import shell_for_os

        target = shell_for_os(report.facts.platform.system)
        doc["pasted"] = {"blocks": list(pasted.get("blocks") or []), "ask_for": [a.to_json(target) for a in asks]}
    return doc


def _json(report, code, outcomes, requirements, node_name, pasted=None, asks=()) -> str:
    import json

    doc = _document(report, code, outcomes, requirements, node_name, pasted, asks)
    return json.dumps(doc, indent=2, sort_keys=True, default=str) + "\n"


def _pasted_host(paths: list[str]):
    """A replay host of the partial snapshot that the pasted texts describe (docs/pasted.md)."""
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted import load_sources, read_pasted

    return ReplayHost(validate_snapshot(read_pasted(load_sources(paths)), "pasted text"))


def _pasted_view(host, report) -> tuple[dict | None, list]:
    """A partial snapshot's `pasted` section and the questions left open (None and [] for a whole machine)."""
    section = host.pasted()
    if not section.get("partial"):
        return None, []
    from gpudoctor.pasted.ask import ask_for

    return section, ask_for(report.facts, report.findings)


# Rendered from the JSON document (render/prometheus.py, render/nfd.py), the report or the error alike.
_FLEET_FORMATS = (OutputFormat.prometheus, OutputFormat.nfd, OutputFormat.npd)


def _clean(text: str) -> str:
    from gpudoctor.sanitize import clean

    return clean(text)


def _fleet_output(output_format: OutputFormat, doc: dict, started: float, textfile: str | None) -> int:
    """Print (or, with --textfile, write) a fleet format; the exit status. npd's is the plugin protocol's
    (0 ok, 1 problem, 2 unknown); the others keep the check's (0, 1, 3)."""
    import time

    from gpudoctor.model import ExitCode

    code = int(doc.get("exit_code", ExitCode.ERROR))
    if output_format is OutputFormat.npd:
        from gpudoctor.render.nfd import npd_status, render_npd

        sys.stdout.write(render_npd(doc))
        return npd_status(doc)
    if output_format is OutputFormat.nfd:
        from gpudoctor.render.nfd import render_nfd

        text = render_nfd(doc, timestamp=time.time())
    else:
        from gpudoctor.render.prometheus import render_prometheus

        text = render_prometheus(doc, timestamp=time.time(), duration_s=round(time.monotonic() - started, 4))
    if textfile is None:
        sys.stdout.write(text)
        return code
    from gpudoctor.errors import GpudoctorError
    from gpudoctor.textfile import FILE_NAMES, write_atomic

    try:
        write_atomic(textfile, FILE_NAMES[output_format.value], text)
    except GpudoctorError as exc:
        sys.stderr.write(f"gpudoctor: error: {_clean(exc.message)}\n")
        return int(ExitCode.ERROR)
    return code


def _error_output(output_format: OutputFormat, message: str, hint: str | None, exit_code: ExitCode) -> str:
    if output_format is OutputFormat.github:
        from gpudoctor.render.github import render_github_error

        return render_github_error(message, hint)
    if output_format is OutputFormat.junit:
        from gpudoctor.render.junit import render_junit_error

        return render_junit_error(message, hint)
    if output_format is OutputFormat.markdown:
        from gpudoctor.render.markdown import render_markdown_error

        return render_markdown_error(message, hint)
    from gpudoctor.render.json_report import error_document

    return error_document(message, hint, exit_code)


def _print_requirements(console, outcomes) -> None:
    from gpudoctor.render.textconsole import escape

    met = sum(1 for o in outcomes if o.met)
    console.print(f"[bold]Requirements[/bold]: {met} of {len(outcomes)} met")
    for o in outcomes:
        mark = "[green]met[/]    " if o.met else "[red bold]NOT MET[/]"
        console.print(f"  {mark} {escape(o.requirement.spec)}: {escape(o.found)}", soft_wrap=True)
