"""`gpudoctor report merge`: one view over the JSON reports of many machines (docs/cluster.md)."""

from __future__ import annotations

import enum
import sys
from typing import NoReturn

import typer

from gpudoctor.cli import HELP_OPTIONS

report_app = typer.Typer(
    help="Work with JSON reports from `gpudoctor check --format json`.", no_args_is_help=True, context_settings=HELP_OPTIONS
)


class MergeFormat(str, enum.Enum):
    text = "text"
    json = "json"


@report_app.command(
    "merge",
    help=(
        "Merge the JSON reports of many nodes (files, or directories of *.json): a table of nodes by findings, "
        "and the facts that differ between nodes (driver, CUDA, toolkits, framework builds, GPU models, PCIe links). "
        "Reads one report at a time: 100,000 nodes merge in bounded memory; above 50 nodes, nodes are grouped by "
        "their findings and drift is counted (N nodes differ in X).\n\n"
        "Exit status: 0 every node below --fail-on, 1 a node at or above it (or an unreadable report, or with "
        "--fail-on-drift facts that differ, from the baseline's with --baseline), 2 usage error, 3 no report could be read."
    ),
)
def merge(
    paths: list[str] = typer.Argument(..., metavar="REPORT.json... | DIR", help="Report files or directories of them."),
    output_format: MergeFormat = typer.Option(
        MergeFormat.text, "--format", "-f", help="text, or json (schema gpudoctor.merge/1)."
    ),
    fail_on: str = typer.Option(
        "warning", "--fail-on", help="Lowest finding severity on any node that makes the exit status 1: error, warning or info."
    ),
    fail_on_drift: bool = typer.Option(False, "--fail-on-drift", help="Also exit 1 when the nodes' facts differ."),
    baseline: str | None = typer.Option(
        None,
        "--baseline",
        metavar="REPORT",
        help="A known-good node's report: every node's facts and findings compared with it (grouped: N nodes differ in X).",
    ),
    jobs: int = typer.Option(
        0,
        "--jobs",
        "-j",
        min=0,
        metavar="N",
        help="Processes that read reports: 0 (default) one per CPU, at most 4, from 2,000 files on; 1 reads in this process.",
    ),
) -> None:
    from gpudoctor.errors import UsageError
    from gpudoctor.report_merge import _SEVERITY_RANK, merge_exit_code, merge_paths, render_text, write_json

    rank = _SEVERITY_RANK.get(fail_on.lower())
    try:
        if rank is None:
            raise UsageError(f"--fail-on: {fail_on!r} is not one of 'error', 'warning', 'info'")
        merged = merge_paths(paths, baseline=baseline, spool=output_format is MergeFormat.json, jobs=jobs)
    except UsageError as exc:
        _usage_error(exc, output_format)
    code = merge_exit_code(merged, rank, fail_on_drift)
    if output_format is MergeFormat.json:
        write_json(merged, code, sys.stdout)
    else:
        from gpudoctor.textfit import plain_width

        sys.stdout.write(render_text(merged, plain_width()))
    raise typer.Exit(code)


def _usage_error(exc, output_format: MergeFormat) -> NoReturn:
    """A wrong argument (a missing path, a bad --fail-on): one line on stderr, exit 2, and under
    --format json an error document on stdout, so automation never parses free text."""
    import json

    from gpudoctor.model import ExitCode
    from gpudoctor.report_merge import SCHEMA
    from gpudoctor.sanitize import clean

    if output_format is MergeFormat.json:
        doc = {
            "schema": SCHEMA,
            "exit_code": int(ExitCode.USAGE),
            "error": {"message": exc.message, "hint": exc.hint},
            "nodes": [],
        }
        sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    sys.stderr.write(f"gpudoctor: error: {clean(exc.message)}\n")
    if exc.hint:
        sys.stderr.write(f"hint: {clean(exc.hint)}\n")
    raise typer.Exit(ExitCode.USAGE)


def register(app: typer.Typer) -> None:
    """Add `report` to the app once, however often the app's commands are registered."""
    if any(getattr(group, "name", None) == "report" for group in app.registered_groups):
        return
    app.add_typer(report_app, name="report")
