"""A plan checked by its consequences: each step applied to the recorded machine, the machine diagnosed again.

Every command of a printed plan is read back into an action (gpudoctor.planner.actions) by its program
and arguments. Each action kind declares what it needs first (gpudoctor.planner.needs: the tool exists on
this machine; the person can do it: inside a container or on the host, root or a cluster job; the package
source is configured, or added and refreshed by an earlier step; the release is served for this Python, as
the matrix says) and what it does to the machine's facts (gpudoctor.planner.effects: a framework's version
and CUDA build, a companion, an NVIDIA wheel, an environment variable, the /usr/local/cuda link, a new
toolkit), on the state of gpudoctor.planner.plan_state. `consequences` applies the whole
plan step by step, diagnoses the machine again after each step that changed a fact (with the caller's
`rediagnose`: the checks live a layer above the planner) and reports, as plain data:

  left-error          an error the plan addresses is still there at the end
  breaks              a finding of warning or error that was not there before appears after a step
  undone              a later step sets again what an earlier step set (a package, a variable, the link)
  unmet-precondition  a command's need is not met at that point
  unmodelled          a command whose effect this model does not follow, with the reason: never a guess

A step that only inspects (nvidia-smi, dmesg, gpudoctor memory) leaves its finding by design: it is the
plan saying what to run to decide; it is counted as `undecided`, not as a violation. A step that is other hardware
(component "gpu", no command) for an error whose premise the machine still shows after the plan (no NVIDIA device on
the bus) is counted in `no_environment_fix`: no command fixes it on this machine.

`alternatives` checks each printed "or instead" as the plan of a person who takes it. `revise` is the hook
the plan's builder can call: a step that fails is swapped for its alternative where that one holds, or
turned into "cannot decide: run X to decide it".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gpudoctor.cmdline import Line, render
from gpudoctor.model import Finding, Severity
from gpudoctor.planner.actions import classify
from gpudoctor.planner.effects import apply, enrich, left_behind
from gpudoctor.planner.needs import needs
from gpudoctor.planner.plan_state import KINDS, State, Violation
from gpudoctor.probed import Found

__all__ = ["KINDS", "Consequences", "Violation", "alternatives", "consequences", "enrich", "hardware_step", "revise"]


@dataclass(frozen=True)
class Consequences:
    """What applying a plan to the machine did: the codes before and after, the violations, the codes left by
    steps that only inspect (`undecided`: the plan says what to run to decide), and the warnings it answers
    that are still there (`left_warnings`: not failures; the issue asks errors gone)."""

    before: tuple[str, ...]
    after: tuple[str, ...]
    violations: tuple[Violation, ...] = ()
    undecided: tuple[str, ...] = ()
    left_warnings: tuple[str, ...] = ()
    deciders: tuple[
        tuple[int, Any], ...
    ] = ()  # (step, a command whose output decides a need the step did not meet)  # warnings the plan answers that are still there (errors it turned into warnings)
    # Errors whose step is other hardware and whose premise the machine after the plan still shows (no NVIDIA device on
    # the bus): no command of any plan changes that; counted apart, not failed (`hardware_step`).
    no_environment_fix: tuple[str, ...] = ()

    @property
    def holds(self) -> bool:
        return not self.violations

    def of_kind(self, kind: str) -> tuple[Violation, ...]:
        return tuple(v for v in self.violations if v.kind == kind)

    def counts(self) -> dict[str, int]:
        return {k: len(self.of_kind(k)) for k in KINDS}

    def to_json(self) -> dict[str, Any]:
        return {
            "before": list(self.before),
            "after": list(self.after),
            "holds": self.holds,
            "counts": self.counts(),
            "violations": [v.to_json() for v in self.violations],
            "undecided": list(self.undecided),
            "left_warnings": list(self.left_warnings),
            "deciders": [{"step": n, "command": line_text(c)} for n, c in self.deciders],
            "no_environment_fix": list(self.no_environment_fix),
        }


Rediagnose = Callable[[Any], Sequence[Finding]]  # Facts -> findings (gpudoctor.checks.run_checks)


# --- the whole plan ------------------------------------------------------------------------------


def _codes(findings: Sequence[Finding], at_least: Severity = Severity.WARNING) -> dict[str, Finding]:
    """code -> its most severe finding, for the findings at or above `at_least`."""
    out: dict[str, Finding] = {}
    for f in findings:
        if f.severity >= at_least and (f.code not in out or f.severity > out[f.code].severity):
            out[f.code] = f
    return out


def consequences(plan: Any, facts: Any, findings: Sequence[Finding], rediagnose: Rediagnose, matrix: Any = None) -> Consequences:
    """Apply `plan` (gpudoctor.planner.prescribe.Prescription) to `facts` step by step and diagnose again.

    `findings` are the ones the plan was built from; `rediagnose` judges facts (the pipeline passes the
    checks); `matrix` defaults to the bundled one."""
    if matrix is None:
        from gpudoctor.matrix import load_matrix

        matrix = load_matrix()
    start = enrich(facts)
    # The machine is judged again before the first step that changes a fact (the same checks as after it, whatever
    # --ignore left out of `findings`); a plan that changes no fact leaves the findings given as they are.
    baseline: dict[str, Finding] | None = None
    last: dict[str, Finding] | None = None  # the judgement after the last step that changed a fact
    s = State(start, matrix)
    seen: dict[str, Finding] = {}
    # step -> (the kind of each command whose need or effect the model does not follow, why), in order: what an error
    # left at the end is left to.
    unmodelled_steps: dict[int, list[tuple[str, str]]] = {}
    for i, step in enumerate(plan.steps, 1):
        s.step, s.component, s.where, s.codes = i, step.component, step.where, step.codes
        before = s.facts
        for line in step.commands:
            a = classify(line)
            n = len(s.out)
            needs(s, a)
            apply(s, a)
            for v in s.out[n:]:
                if v.kind == "unmodelled" and v.step == i:
                    unmodelled_steps.setdefault(i, []).append((a.kind, v.reason))
        if s.facts is not before:
            if baseline is None:
                baseline = _codes(rediagnose(start))
                seen = dict(baseline)
            now = last = _codes(rediagnose(s.facts))
            for code, f in now.items():
                if code in seen:
                    continue
                if f.evidence and all(e.source == "pasted" for e in f.evidence):
                    # The report's text was printed by the machine before the change: it says nothing of after.
                    s.flag("unmodelled", None, f"{code} is judged on the pasted text alone, which predates the change", (code,))
                else:
                    s.flag("breaks", None, f"{code} appears: {f.title}", (code,))
            seen.update(now)
    left_behind(s)
    if baseline is None:
        baseline = _codes(findings)
    final = last if last is not None else baseline
    undecided: list[str] = []
    left_warnings: list[str] = []
    no_fix: list[str] = []
    for i, step in enumerate(plan.steps, 1):
        for code in step.codes:
            addressed = next((x for x in findings if x.code == code), None)
            if addressed is None or code not in final:
                continue
            if addressed.severity < Severity.ERROR or final[code].severity < Severity.ERROR:
                left_warnings.append(code)  # a warning the step answers, or an error it turns into one: shown, not failed
                continue
            kinds = [classify(c).kind for c in step.commands]
            s.step, s.component = i, step.component
            if kinds and all(k == "inspect" for k in kinds):
                undecided.append(code)
            elif not kinds and hardware_step(step, code, s.facts):
                no_fix.append(code)
            elif not kinds:
                s.flag("left-error", None, "the step prints no command: nothing it runs changes the machine", (code,))
            elif final[code].evidence and all(e.source == "pasted" for e in final[code].evidence):
                # Whatever the steps did, the checks judge this from the text the machine printed before them.
                s.flag(
                    "unmodelled",
                    None,
                    "judged on the pasted error text alone, which a changed machine would not print again",
                    (code,),
                )
            elif leaving := next((u for j in sorted(unmodelled_steps) if j <= i for u in unmodelled_steps[j]), None):
                # Left to the first command (of this step or an earlier one) the model does not follow: named, so the
                # count says which effect is missing.
                s.flag("unmodelled", None, f"left by the model, which does not follow a {leaving[0]} step: {leaving[1]}", (code,))
            else:
                s.flag("left-error", None, f"still there after the plan: {final[code].title}", (code,))
    return Consequences(
        tuple(sorted(baseline)),
        tuple(sorted(final)),
        tuple(s.out),
        tuple(undecided),
        tuple(left_warnings),
        tuple(s.deciders),
        tuple(no_fix),
    )


def _no_nvidia_device(facts: Any) -> bool:
    """The PCI bus was read and holds no NVIDIA device, and no driver lists a GPU (the gpu-none rule's premise)."""
    pci = facts.kernel.pci
    return isinstance(pci, Found) and not pci.value and not facts.driver.gpus and facts.platform.wsl != 2


# Findings whose premise is the hardware itself, each with the test of that premise on the facts the plan leaves.
# (A GPU below every build of a framework is not here: its capability is the check's reading of the text and the
# matrix, which this layer does not make again; and where the prose names a build from source, an environment fix
# exists without a command. Those stay `left-error`, in the test's KNOWN list.)
_HARDWARE_PREMISE: dict[str, Callable[[Any], bool]] = {"gpu-none": _no_nvidia_device}


def hardware_step(step: Any, code: str, facts: Any) -> bool:
    """Whether `step` (printing no command) answers `code` with other hardware, and the machine the plan leaves still
    shows the premise of `code`: then no environment fix exists on this machine (what the step says is the one)."""
    premise = _HARDWARE_PREMISE.get(code)
    return step.component == "gpu" and premise is not None and premise(facts)


def alternatives(
    plan: Any, facts: Any, findings: Sequence[Finding], rediagnose: Rediagnose, matrix: Any = None
) -> tuple[tuple[int, str, Consequences], ...]:
    """Each printed alternative ("or instead") checked as the plan a person who takes it runs: its step's
    commands replaced by the alternative's. (step, the code it answers, the consequences of that plan)."""
    out = []
    for i, step in enumerate(plan.steps, 1):
        for alt in step.alternatives:
            out.append((i, alt.code, consequences(_swapped(plan, i, alt), facts, findings, rediagnose, matrix)))
    return tuple(out)


def _swapped(plan: Any, i: int, alt: Any) -> Any:
    """The plan with step `i` (1-based) doing `alt` (a prescribe.Alternative) instead, without the steps it replaces."""
    trial, skipped = _trial(plan, i, alt)
    steps = (*plan.steps[: i - 1], trial, *plan.steps[i:])
    return replace(plan, steps=tuple(s for s in steps if s is trial or s not in skipped))


def _trial(plan: Any, i: int, alt: Any) -> tuple[Any, tuple[Any, ...]]:
    """Step `i` doing `alt` instead, and the other steps it replaces (prescribe.Alternative.replaces): what they
    answered is then its to answer."""
    r = alt.remediation
    step = plan.steps[i - 1]
    skipped = tuple(s for j, s in enumerate(plan.steps, 1) if j != i and s.component in alt.replaces)
    codes = tuple(dict.fromkeys((*step.codes, *(c for s in skipped for c in s.codes))))
    trial = replace(step, summaries=(r.summary,), commands=tuple(r.commands), alternatives=(), requires_root=r.requires_root,
                    where=r.where, codes=codes)  # fmt: skip
    return trial, skipped


# --- the hook: what the plan's builder does with a step that fails --------------------------------

_FAILS = ("unmet-precondition", "undone", "breaks", "left-error")


def revise(
    plan: Any, facts: Any, findings: Sequence[Finding], rediagnose: Rediagnose, matrix: Any = None
) -> tuple[Any, Consequences]:
    """The plan with each failing step replaced: by its alternative where the plan then holds better, else by
    "cannot decide" and the step's own inspections (what to run to decide it), or dropped where it has none.
    Returns the revised plan and its consequences. Unmodelled effects are not failures: they stay as printed."""
    from gpudoctor.planner.prescribe import Prescription, Step

    result = consequences(plan, facts, findings, rediagnose, matrix)
    failing = sorted({v.step for v in result.violations if v.kind in _FAILS and v.step > 0})
    if not failing:
        return plan, result
    steps = list(plan.steps)
    skipped: list[Step] = []  # steps an alternative taken replaces
    for i in failing:
        step: Step = steps[i - 1]
        swapped = None
        for alt in step.alternatives:
            base = replace(plan, steps=tuple(steps))
            trial, moot = _trial(base, i, alt)
            trial_plan = _swapped(base, i, alt)
            got = consequences(trial_plan, facts, findings, rediagnose, matrix)
            at = trial_plan.steps.index(trial) + 1  # the steps it replaces are gone: it may stand earlier
            if sum(1 for v in got.violations if v.kind in _FAILS and v.step == at) == 0:
                swapped = trial
                skipped += moot
                break
        if swapped is not None:
            steps[i - 1] = swapped
            continue
        looks = tuple(c for c in step.commands if classify(c).kind == "inspect")
        looks += tuple(dict.fromkeys(c for n, c in result.deciders if n == i and c not in looks))
        why = next(v.reason for v in result.violations if v.step == i and v.kind in _FAILS)
        steps[i - 1] = replace(
            step,
            summaries=(
                f"Cannot decide this step from what was recorded ({why})" + (": run these to decide it." if looks else "."),
            ),
            commands=looks,
        )
    revised = Prescription(tuple(s for s in steps if s not in skipped), plan.target, plan.problems)
    return revised, consequences(revised, facts, findings, rediagnose, matrix)


def line_text(line: Line) -> str:
    """A command as the plan prints it on POSIX (for reports and the known-violation list)."""
    return render(line, "posix")
