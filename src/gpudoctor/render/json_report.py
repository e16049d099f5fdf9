"""The JSON report: one versioned document (docs/report-schema.md). A public contract."""

from __future__ import annotations

import json
from typing import Any

from gpudoctor import __version__
from gpudoctor.facts import to_json
from gpudoctor.model import ExitCode, Report

SCHEMA = "gpudoctor.report/1"


def report_document(report: Report, exit_code: ExitCode, plan: Any = None, offers: Any = None) -> dict[str, Any]:
    """The document of `report`; `plan` and `offers` are the check's (gpudoctor.pipeline), built here when not given."""
    from gpudoctor.planner.prescribe import build
    from gpudoctor.planner.where import shell

    worst = report.worst()
    if plan is None:
        plan = build(report.findings, shell(report.facts))
    return {
        "schema": SCHEMA,
        "tool_version": __version__,
        "host_mode": report.host_mode,
        "status": "healthy" if worst is None else worst.label,
        "exit_code": int(exit_code),
        "findings": [f.to_json() for f in report.findings],
        "plan": _plan_json(plan, report, offers),
        "facts": to_json(report.facts),
        "timings_s": report.timings_s,
        "internal_errors": list(report.internal_errors),
    }


def _plan_json(plan, report: Report, offers: Any = None) -> dict:
    doc = plan.to_json()
    if offers is None:
        from gpudoctor.install.fix import fix_offers

        offers = fix_offers(report)
    kinds = offers
    for step, out in zip(plan.steps, doc["steps"], strict=True):
        out["fix"] = step.fix_kind(kinds)
    return doc


def render_json(report: Report, exit_code: ExitCode) -> str:
    return json.dumps(report_document(report, exit_code), indent=2, sort_keys=True, default=str) + "\n"


def error_document(message: str, hint: str | None, exit_code: ExitCode) -> str:
    """What --format json prints when no report could be made at all."""
    doc = {
        "schema": SCHEMA,
        "tool_version": __version__,
        "status": "doctor-error",
        "exit_code": int(exit_code),
        "error": {"message": message, "hint": hint},
        "findings": [],
    }
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def check_document(result: Any) -> dict[str, Any]:
    """The document of a check's result (gpudoctor.pipeline.CheckResult): what --format json prints, and
    what the fleet formats read (prometheus, nfd, npd)."""
    doc = report_document(result.report, result.exit_code, result.plan, result.offers)
    if result.request.requirements:
        doc["requirements"] = [o.to_json() for o in result.outcomes]
    if result.node:
        doc["node"] = result.node
    if result.pasted is not None:
        from gpudoctor.planner.where import shell

        target = shell(result.report.facts)
        doc["pasted"] = {"blocks": list(result.pasted.get("blocks") or []), "ask_for": [a.to_json(target) for a in result.asks]}
        if "read_from" in result.pasted:
            # Text read by --from: each fact with the pasted lines that state it, or marked assumed
            # (gpudoctor.pasted.provenance). A partial snapshot written by hand has no lines to cite.
            doc["pasted"]["read_from"] = list(result.pasted["read_from"])
    return doc


def render(result: Any) -> str:
    """--format json."""
    return json.dumps(check_document(result), indent=2, sort_keys=True, default=str) + "\n"


def render_error(message: str, hint: str | None, exit_code: ExitCode, started: float = 0.0) -> str:
    return error_document(message, hint, exit_code)
