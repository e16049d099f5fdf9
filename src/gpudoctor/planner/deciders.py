"""A fix the recorded text cannot decide says so, as data: the commands whose output decides it.

A pasted report often does not show what a command needs (the platform, the installer, the framework's
version and CUDA build, the driver): the checks then name the cause and say in prose what the fix is, with
no command, for any command would be a guess (issue 27: "A plan that fails this is not printed as is: the
planner ... says what it cannot decide and what to run to decide it"). Such an error's remediation takes as
its commands the questions the partial diagnosis leaves open (gpudoctor.pasted.ask decides them; the pipeline
hands them here): commands that only read and print, which the consequence model counts as `undecided`,
never as an error the plan leaves. A whole machine has no such questions: nothing in it is unshown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gpudoctor.cmdline import Line
from gpudoctor.model import Finding, Severity

DEFERS = "What was shown does not decide the command: run these and diagnose their output with the report to decide it."


def with_deciders(findings: Sequence[Finding], deciding: Sequence[Line]) -> list[Finding]:
    """`findings`, each error whose remediation has no command given `deciding` (the report's asks) as its commands."""
    if not deciding:
        return list(findings)  # nothing left to ask: the step stays prose, and the consequence model says it changes nothing
    out = []
    for f in findings:
        r = f.remediation
        if r is not None and _undecided(f):
            f = replace(f, remediation=replace(r, summary=f"{r.summary} {DEFERS}", commands=tuple(deciding), requires_root=False))
        out.append(f)
    return out


def _undecided(f: Finding) -> bool:
    """An error whose fix names no command (a warning's or a note's prose is advice, not a step that must act). A fix
    of the "gpu" component is another GPU (or the CPU): no output asked for decides a command there."""
    r = f.remediation
    return f.severity >= Severity.ERROR and r is not None and not r.commands and r.component != "gpu"
