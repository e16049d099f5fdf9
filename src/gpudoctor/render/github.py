"""`--format github`: GitHub Actions workflow commands, and a Markdown job summary.

Each finding becomes one annotation (`::error`, `::warning` or `::notice`,
with `title=` its code and no file), escaped as the Actions runner expects
(actions/toolkit, packages/core/src/command.ts): in the message `%`, CR and
LF become `%25`, `%0D`, `%0A`; in a property value `:` and `,` also become
`%3A` and `%2C`. The renderer only returns text; the CLI appends the summary
to the file named by $GITHUB_STEP_SUMMARY.
"""

from __future__ import annotations

import html
from typing import Sequence

from gpudoctor.model import ExitCode, Finding, Report, Severity
from gpudoctor.probed import Found

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str, **properties: str) -> str:
    props = ",".join(f"{k}={escape_property(v)}" for k, v in properties.items() if v is not None)
    return f"::{command}{' ' + props if props else ''}::{escape_data(message)}"


def finding_message(f: Finding) -> str:
    lines = [f.title, f.detail]
    if f.remediation is not None:
        lines.append(f"Fix: {f.remediation.summary}")
        lines += [f"  {c}" for c in f.remediation.commands]
    return "\n".join(line for line in lines if line)


def _counts(report: Report) -> dict[Severity, int]:
    return {s: sum(1 for f in report.findings if f.severity == s) for s in Severity}


def render_github(report: Report, outcomes: Sequence = (), exit_code: ExitCode = ExitCode.OK) -> str:
    """Workflow commands, one per finding, then plain log lines: met requirements and the verdict."""
    lines = [workflow_command(_COMMAND[f.severity], finding_message(f), title=f.code) for f in report.findings]
    for o in outcomes:
        if o.met:
            lines.append(f"gpudoctor: requirement met: {o.requirement.spec} ({o.found})")
    counts = _counts(report)
    met = sum(1 for o in outcomes if o.met)
    reqs = f"; {met} of {len(outcomes)} requirement(s) met" if outcomes else ""
    lines.append(
        f"gpudoctor: {counts[Severity.ERROR]} error(s), {counts[Severity.WARNING]} warning(s), "
        f"{counts[Severity.INFO]} note(s){reqs}; exit status {int(exit_code)}"
    )
    return "\n".join(lines) + "\n"


def render_github_error(message: str, hint: str | None) -> str:
    """What --format github prints when the doctor itself failed (exit 3)."""
    text = message + (f"\nhint: {hint}" if hint else "")
    return workflow_command("error", text, title="gpudoctor-failed") + "\n"


def _cell(text: str) -> str:
    return html.escape(text, quote=False).replace("|", "\\|").replace("\r", "").replace("\n", "<br>")


def _code(text: str) -> str:
    # Inside a code span only the backtick and the table pipe matter.
    return "`" + text.replace("`", "'").replace("|", "\\|") + "`"


def machine_line(report: Report) -> str:
    facts = report.facts
    bits = []
    gpus = facts.driver.gpus
    if gpus:
        names: dict[str, int] = {}
        for g in gpus:
            names[g.name or "unknown GPU"] = names.get(g.name or "unknown GPU", 0) + 1
        bits.append("GPU " + ", ".join(f"{n} × {name}" for name, n in names.items()))
    else:
        bits.append("no GPU seen")
    if facts.driver.version:
        bits.append(f"driver {facts.driver.version} (CUDA {facts.driver.cuda_version or '?'})")
    fw = facts.frameworks
    if isinstance(fw.torch, Found):
        t = fw.torch.value
        bits.append(f"torch {t.version}" + (f" (CUDA {t.cuda})" if t.cuda else " (CPU build)"))
    if isinstance(fw.tensorflow, Found):
        bits.append(f"{fw.tensorflow.value.distribution} {fw.tensorflow.value.version}")
    if isinstance(fw.jax, Found):
        bits.append(f"jax {fw.jax.value.jax or '?'}")
    return "; ".join(bits)


def render_github_summary(
    report: Report, outcomes: Sequence = (), exit_code: ExitCode = ExitCode.OK, fail_on: Severity = Severity.WARNING, node: str | None = None
) -> str:
    """The Markdown appended to $GITHUB_STEP_SUMMARY."""
    counts = _counts(report)
    if report.findings:
        verdict = (
            f"{'❌' if exit_code else '⚠️'} {counts[Severity.ERROR]} error(s), "
            f"{counts[Severity.WARNING]} warning(s), {counts[Severity.INFO]} note(s)"
        )
    else:
        verdict = "✅ healthy"
    out = [f"## gpudoctor check: {verdict}", ""]
    where = f"Node {_code(node)}: " if node else ""
    out += [where + _cell(machine_line(report)), ""]
    if outcomes:
        out += ["### Requirements", "", "| | Requirement | Found |", "|---|---|---|"]
        for o in outcomes:
            out.append(f"| {'✅' if o.met else '❌'} | {_code(o.requirement.spec)} | {_cell(o.found)} |")
        out.append("")
    if report.findings:
        out += ["### Findings", "", "| Severity | Code | Finding | Fix |", "|---|---|---|---|"]
        for f in report.findings:
            fix = _cell(f.remediation.summary) if f.remediation else ""
            if f.remediation and f.remediation.commands:
                fix += "<br>" + "<br>".join(_code(c) for c in f.remediation.commands)
            out.append(f"| {f.severity.label} | {_code(f.code)} | {_cell(f.title)} | {fix} |")
        out.append("")
    out.append(
        f"Exit status {int(exit_code)} (fails on {fail_on.label} and above). "
        "Details of any code: `gpudoctor explain CODE`."
    )
    return "\n".join(out) + "\n"
