"""`--format github`: GitHub Actions workflow commands, and a Markdown job summary.

Each finding becomes one annotation (`::error`, `::warning` or `::notice`, with `title=` its code and
no file). Everything else on stdout is a plain log line that starts with `gpudoctor: `.

Why every piece of data is escaped, and how. The runner reads the step's output line by line and
treats a line as a workflow command when, after leading blanks, it starts with `::` (`::add-mask::`,
`::stop-commands::`, `::error::`), or, in the legacy form, when it holds `##[` anywhere
(actions/runner, src/Runner.Worker/ActionCommandManager.cs tries ActionCommand.TryParseV2, then
ActionCommand.TryParse; src/Runner.Common/ActionCommand.cs). So data (GPU names, requirement specs,
what was found, finding text, paths) must never start a line or carry `##[`:
- inside a command, the message is escaped as the runner unescapes it: `%` -> `%25`, CR -> `%0D`,
  LF -> `%0A`; a property value also `:` -> `%3A` and `,` -> `%2C` (actions/toolkit,
  packages/core/src/command.ts escapeData / escapeProperty; the runner's _escapeDataMappings and
  _escapePropertyMappings). A message holds no line break after that, so nothing in it can start a line.
- a plain log line gets each datum as one line (gpudoctor.sanitize.clean_line shows CR, LF and other
  controls as `\\x0d`-style escapes) with `##[` broken up as `#\\#[`, so the legacy parser finds no command.
Both go through gpudoctor.sanitize first, as every text renderer does: an escape sequence in a GPU
name is shown, not obeyed by the log viewer.

The step summary is GitHub-flavoured Markdown: every datum is a code span fenced with more backticks
than it holds (gpudoctor.render.markdown.code_span), its `|` escaped as `\\|` in a table cell, a line
break a `<br>` between spans: data can neither end a row nor add HTML, and GitHub makes no link,
mention or issue reference from it. The renderer
only returns text; the CLI appends the summary to the file named by $GITHUB_STEP_SUMMARY.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpudoctor.model import ExitCode, Finding, Report, Severity
from gpudoctor.probed import Found
from gpudoctor.render.markdown import code_span
from gpudoctor.sanitize import clean, clean_line

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str, **properties: str) -> str:
    """One workflow command line; `command` and property names are code's, message and values any text."""
    props = ",".join(f"{k}={escape_property(clean_line(v))}" for k, v in properties.items() if v is not None)
    return f"::{command}{' ' + props if props else ''}::{escape_data(clean(message))}"


def log_text(text: object) -> str:
    """A datum for a plain log line: one line, no terminal controls, no legacy `##[` command."""
    return clean_line(text).replace("##[", "#\\#[")


def finding_message(f: Finding) -> str:
    lines = [f.title, f.detail]
    if f.remediation is not None:
        lines.append(f"Fix: {f.remediation.summary}")
        lines += [f"  {c}" for c in f.remediation.lines()]
    return "\n".join(line for line in lines if line)


def _counts(report: Report) -> dict[Severity, int]:
    return {s: sum(1 for f in report.findings if f.severity == s) for s in Severity}


def render_github(report: Report, outcomes: Sequence = (), exit_code: ExitCode = ExitCode.OK) -> str:
    """Workflow commands, one per finding, then plain log lines: met requirements and the verdict."""
    lines = [workflow_command(_COMMAND[f.severity], finding_message(f), title=f.code) for f in report.findings]
    for o in outcomes:
        if o.met:
            lines.append(f"gpudoctor: requirement met: {log_text(o.requirement.spec)} ({log_text(o.found)})")
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


# Inline Markdown a table cell could carry: emphasis, code, links and images, strikethrough, math,
# the cell separator, and the backslash itself (GFM lets any ASCII punctuation be backslash-escaped).
# `&`, `<` and `>` become HTML entities first, so no tag or entity of the data survives.
def _cell(text: object) -> str:
    """Data as the text of one table cell: each line a code span (gpudoctor.render.markdown.code_span),
    lines joined by <br>; never a row break, markup, HTML, a link, a mention or a reference."""
    lines = clean(text).split("\n")  # clean keeps LF (and tab), shows CR and every other control
    return "<br>".join(code_span(line, in_table=True) for line in lines if line.strip()) or ""


def _code(text: object, in_table: bool = True) -> str:
    """Data as a code span (a table's `|` escaped when `in_table`); nothing for empty data."""
    return code_span(text, in_table=in_table) if clean_line(text) else ""


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
    report: Report,
    outcomes: Sequence = (),
    exit_code: ExitCode = ExitCode.OK,
    fail_on: Severity = Severity.WARNING,
    node: str | None = None,
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
    where = f"Node {_code(node, in_table=False)}: " if node else ""
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
                fix += "<br>" + "<br>".join(_code(c) for c in f.remediation.lines())
            out.append(f"| {f.severity.label} | {_code(f.code)} | {_cell(f.title)} | {fix} |")
        out.append("")
    out.append(
        f"Exit status {int(exit_code)} (fails on {fail_on.label} and above). Details of any code: `gpudoctor explain CODE`."
    )
    return "\n".join(out) + "\n"


def render(result: Any) -> str:
    """--format github: workflow commands from the check's result."""
    return render_github(result.report, result.outcomes, result.exit_code)


def render_error(message: str, hint: str | None, exit_code: ExitCode, started: float = 0.0) -> str:
    return render_github_error(message, hint)


def write_beside(result: Any) -> None:
    """The step summary, appended to $GITHUB_STEP_SUMMARY where the runner names one."""
    import os
    import sys

    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not summary_path:
        return
    request = result.request
    try:
        with open(summary_path, "a", encoding="utf-8") as fh:
            fh.write(render_github_summary(result.report, result.outcomes, result.exit_code, request.threshold, request.node))
    except OSError as exc:
        sys.stderr.write(f"gpudoctor: cannot append to GITHUB_STEP_SUMMARY ({summary_path}): {exc.strerror or exc}\n")
