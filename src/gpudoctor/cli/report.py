"""`gpudoctor report merge`: one view over the JSON reports of many machines (docs/cluster.md)."""

from __future__ import annotations

import enum
import sys
from typing import List

import typer

report_app = typer.Typer(help="Work with JSON reports from `gpudoctor check --format json`.", no_args_is_help=True)


class MergeFormat(str, enum.Enum):
    text = "text"
    json = "json"


@report_app.command(
    "merge",
    help=(
        "Merge the JSON reports of many nodes (files, or directories of *.json): a table of nodes by findings, "
        "and the facts that differ between nodes (driver, CUDA, toolkits, framework builds, GPU models, PCIe links).\n\n"
        "Exit status: 0 every node below --fail-on, 1 a node at or above it (or an unreadable report, or with "
        "--fail-on-drift facts that differ), 2 usage error, 3 no report could be read."
    ),
)
def merge(
    paths: List[str] = typer.Argument(..., metavar="REPORT.json... | DIR", help="Report files or directories of them."),
    output_format: MergeFormat = typer.Option(MergeFormat.text, "--format", "-f", help="text, or json (schema gpudoctor.merge/1)."),
    fail_on: str = typer.Option("warning", "--fail-on", help="Lowest finding severity on any node that makes the exit status 1: error, warning or info."),
    fail_on_drift: bool = typer.Option(False, "--fail-on-drift", help="Also exit 1 when the nodes' facts differ."),
) -> None:
    import click

    from gpudoctor.errors import UsageError
    from gpudoctor.report_merge import _SEVERITY_RANK, merge_exit_code, merge_paths, render_json, render_text

    rank = _SEVERITY_RANK.get(fail_on.lower())
    if rank is None:
        raise click.BadParameter(f"{fail_on!r} is not one of 'error', 'warning', 'info'", param_hint="'--fail-on'")
    try:
        merged = merge_paths(paths)
    except UsageError as exc:
        raise click.UsageError(exc.message + (f"\nhint: {exc.hint}" if exc.hint else "")) from None
    code = merge_exit_code(merged, rank, fail_on_drift)
    if output_format is MergeFormat.json:
        sys.stdout.write(render_json(merged, code))
    else:
        sys.stdout.write(render_text(merged))
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add `report` to the app once, however often the app's commands are registered."""
    if any(getattr(group, "name", None) == "report" for group in app.registered_groups):
        return
    app.add_typer(report_app, name="report")
