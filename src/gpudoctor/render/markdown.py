"""`--format markdown`: the diagnosis, the plan and the "ask for" list, ready to post as an issue reply.

Everything that comes from the machine or the pasted text (versions, GPU names, paths, error lines, and
the titles and details built from them) is data: it goes through gpudoctor.sanitize and is shown in a code
span (`code_span`) or a fenced code block (`fenced`) whose backtick fence is longer than any backtick run
inside (GFM 6.1, CommonMark 4.5). Inside code nothing is markup: GitHub makes no link (`www.x`, `x@y`, a
URL), no @mention and no #123 reference from it, and HTML is literal. Backslash escapes would not do:
GitHub still turns `\\@user` into a mention and `_www.x` into a link.
"""

from __future__ import annotations

import re
from typing import Any

from gpudoctor.model import ExitCode, Report, Severity
from gpudoctor.sanitize import clean_line


def code_span(value: object, in_table: bool = False) -> str:
    """Data as one inline code span: literal text, never markup, HTML, a link, a mention or a reference.

    The fence is a backtick run longer than any inside; a body that starts or ends with a backtick or a
    space is padded (GFM strips one space each side). In a table a `|` is escaped (GFM 4.10 splits cells
    before reading code spans). Empty data is shown as a pair of quotes in a span."""
    body = clean_line(value)
    if in_table:
        body = body.replace("|", "\\|")
    if not body.strip():
        body = f'"{body}"'  # "``" would be two literal backticks, and an all-space span shows nothing
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith(("`", " ")) or body.endswith(("`", " ")) else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def text(value: object) -> str:
    """Data as inline Markdown: a code span (code_span)."""
    return code_span(value)


def fenced(lines: list[str], info: str = "") -> str:
    """Lines as a fenced code block whose fence no line can close."""
    body = [clean_line(line) for line in lines]
    longest = max((len(run) for line in body for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([fence + info, *body, fence])


_LABEL = {Severity.ERROR: "Error", Severity.WARNING: "Warning", Severity.INFO: "Note"}


def render_markdown(
    report: Report,
    exit_code: ExitCode,
    pasted: dict[str, Any] | None = None,
    asks: list | None = None,
    plan: Any = None,
) -> str:
    from gpudoctor.planner.prescribe import build
    from gpudoctor.planner.where import shell

    out: list[str] = ["### gpudoctor", ""]
    findings = report.findings
    errors = sum(1 for f in findings if f.severity == Severity.ERROR)
    warnings = sum(1 for f in findings if f.severity == Severity.WARNING)
    if pasted is not None:
        out.append("Read from the pasted text; what it did not show is treated as unknown, not as missing.")
        out.append("")
    if not findings:
        out.append("No problem found in what was shown.")
    else:
        out.append(f"**{errors} error(s), {warnings} warning(s)**")
        out.append("")
        for f in findings:
            out.append(f"- **{_LABEL[f.severity]}** `{f.code}`: {text(f.title)}")
            if f.detail:
                out.append(f"  {text(f.detail)}")
            for e in f.evidence[:4]:
                out.append(f"  - {text(e.source)}: {text(e.value)}")
    target = shell(report.facts)
    if plan is None:  # (the check's plan, gpudoctor.pipeline, when given)
        plan = build(findings, target)
    if plan.steps:
        out += ["", "#### What to do", ""]
        for n, step in enumerate(plan.steps, 1):
            where = f" (on {text(step.where)})" if step.where else ""
            out.append(f"{n}. **{text(step.title)}**{where}")
            for summary in step.summaries:
                out.append(f"   {text(summary)}")
            lines = step.lines(target)
            if lines:
                out.append("")
                out += [
                    "   " + line
                    for line in fenced(
                        lines, {"powershell": "powershell", "cmd": "bat", "windows": "bat"}.get(target, "sh")
                    ).split("\n")
                ]
            for alt in step.alternatives:
                out.append(f"   {text(alt.heading[0].upper() + alt.heading[1:])}")
                alt_lines = alt.lines(target)
                if alt_lines:
                    out += ["   " + line for line in fenced(alt_lines, "sh").split("\n")]
    from gpudoctor.pasted.ask import not_in_plan

    asks = not_in_plan(asks or [], plan)  # each command once: a step that prints it carries it
    if asks:
        out += ["", "#### Please also post the output of", ""]
        for ask in asks:
            command = ask.to_json(target)["command"]
            out.append(f"- {code_span(command)}: {text(ask.why)}")
    if pasted is not None and pasted.get("blocks"):
        out += ["", "<details><summary>What gpudoctor read</summary>", ""]
        for b in pasted["blocks"]:
            lines = b.get("lines") or [0, 0]
            out.append(
                f"- {text(b.get('what', b.get('kind')))} ({text(b.get('source'))}, lines {lines[0]}-{lines[1]}): {text(b.get('gave', ''))}"
            )
        out += ["", "</details>"]
    out += ["", f"<sub>gpudoctor check --format markdown, exit status {int(exit_code)}</sub>", ""]
    return "\n".join(out)


def render_markdown_error(message: str, hint: str | None) -> str:
    """What --format markdown prints when the doctor itself failed."""
    said = f"**gpudoctor could not run**: {text(message)}"
    return said + (f"\n\n{text(hint)}" if hint else "") + "\n"


def render(result: Any) -> str:
    """--format markdown: an issue reply from the check's result."""
    pasted = dict(result.pasted) if result.pasted is not None else None
    return render_markdown(result.report, result.exit_code, pasted, list(result.asks), plan=result.plan)


def render_error(message: str, hint: str | None, exit_code: ExitCode, started: float = 0.0) -> str:
    return render_markdown_error(message, hint)
