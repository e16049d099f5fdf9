"""One prescription: the findings' remediations merged into one ordered plan, a step per component.

Checks decide what is wrong; each finding's remediation names the component its fix acts on
(driver, container, toolkit, cudnn, torch, ...). Every check that touches a component takes its
target from the same decision function (for example gpudoctor.checks.toolkit.toolkit_target), so the
remediations of one component agree; here they become one step: its commands once each, in order,
with the finding codes it answers. `check` shows the plan after the findings, `--format json`
carries it as data, `gpudoctor fix` applies the steps it can, and `lint` finds steps that contradict
each other (a test runs it over every recorded machine).

A remediation may carry an `alternative` (a fix of the same finding by another route: a toolkit of
PyTorch's CUDA major, or a PyTorch build of nvcc's). The step shows it as "or instead", never as a
command to run after the others: its commands are linted on their own, not against the steps.
Where the first choice contradicts the rest of the plan and its alternative does not, the
alternative becomes the step (the plan must hold together) and the first choice is offered instead.

Pure: findings in, a Prescription out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import field, replace

from gpudoctor.cmdline import Cmd, EvalShell, Line, SetEnv, render_all, shell_for_place
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import COMPONENTS, Finding, Remediation, Severity
from gpudoctor.record import Record, record_class

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TITLES = {
    "driver": "NVIDIA driver",
    "container": "container runtime",
    "platform": "platform",
    "gpu": "GPU configuration",
    "toolkit": "CUDA toolkit",
    "cudnn": "cuDNN",
    "torch": "PyTorch",
    "tensorflow": "TensorFlow",
    "jax": "JAX",
    "environment": "environment variables",
    "health": "GPU health",
    "memory": "GPU memory",
    "doctor": "gpudoctor",
    "resume": "your own command",
}


@record_class(frozen=True, eq=False, repr=False)
class Alternative(Record):
    """Another way to answer one finding of a step: offered beside the step, not run after it."""

    code: str  # the finding it answers
    remediation: Remediation
    # The components of other steps it stands in for: steps planned for what it replaces (the NVIDIA wheels of the
    # CUDA major of a torch it moves to another major, whose own wheels its install brings), skipped when it is taken.
    replaces: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        return TITLES.get(self.remediation.component, self.remediation.component or "doctor")

    @property
    def heading(self) -> str:
        where = f" on {self.remediation.where}" if self.remediation.where else ""
        skip = ", ".join(TITLES.get(c, c) for c in self.replaces)
        also = f" Taking it, skip the {skip} step: it is planned for what this replaces." if self.replaces else ""
        return f"or instead ({self.title}{where}, for {self.code}): {self.remediation.summary}{also}"

    def lines(self, target: str = "posix") -> list[str]:
        return render_all(self.remediation.commands, shell_for_place(target, self.remediation.where))

    def to_json(self, target: str = "posix") -> dict[str, Any]:
        r = self.remediation
        return {
            "code": self.code,
            "component": r.component or None,
            "title": self.title,
            "summary": r.summary,
            "requires_root": r.requires_root,
            "where": r.where or "this machine",
            "commands": [c.to_json() for c in r.commands],
            "lines": self.lines(target),
        } | ({"replaces": list(self.replaces)} if self.replaces else {})


@record_class(frozen=True, eq=False, repr=False)
class Step(Record):
    """The fix of one component: its command lines, the findings it answers, whether it needs root, its alternatives."""

    component: str
    summaries: tuple[str, ...]
    commands: tuple[Line, ...]
    codes: tuple[str, ...]
    severity: Severity
    requires_root: bool = False
    where: str = ""  # "" is this machine
    alternatives: tuple[Alternative, ...] = ()  # "or instead": never run with the commands above

    @property
    def title(self) -> str:
        return TITLES.get(self.component, self.component)

    def lines(self, target: str = "posix") -> list[str]:
        return render_all(self.commands, shell_for_place(target, self.where))

    def printed(self, target: str = "posix") -> list[str]:
        """Every line the step prints: its summaries, its commands, then each alternative and its commands."""
        out = [*self.summaries, *self.lines(target)]
        for alt in self.alternatives:
            out += [alt.heading, *alt.lines(target)]
        return out

    def to_json(self, target: str = "posix") -> dict[str, Any]:
        return {
            "component": self.component,
            "title": self.title,
            "summaries": list(self.summaries),
            "codes": list(self.codes),
            "severity": self.severity.label,
            "requires_root": self.requires_root,
            "where": self.where or "this machine",
            "commands": [c.to_json() for c in self.commands],
            "lines": self.lines(target),
            "alternatives": [a.to_json(target) for a in self.alternatives],
        }

    def fix_kind(self, offered: dict[str, str]) -> str | None:
        """What `gpudoctor fix` does for this step (reinstall, switch-cuda, env) given what it offers per
        finding (gpudoctor.install.fix.offered), or None: the step is yours to run."""
        return next((offered[c] for c in self.codes if c in offered), None) if not self.where else None


@record_class(frozen=True, eq=False, repr=False)
class Prescription(Record):
    """The ordered steps that fix a report's findings, written for one shell, and the contradictions lint found."""

    steps: tuple[Step, ...] = ()
    target: str = "posix"  # the shell the lines are written for
    problems: tuple[str, ...] = field(default=())  # what lint found: shown, so a contradiction is never silent

    def step(self, component: str) -> Step | None:
        return next((s for s in self.steps if s.component == component), None)

    def to_json(self) -> dict[str, Any]:
        return {"shell": self.target, "steps": [s.to_json(self.target) for s in self.steps], "problems": list(self.problems)}


def component_of(finding: Finding) -> str:
    r = finding.remediation
    if r is not None and r.component:
        return r.component
    return finding.area if finding.area in COMPONENTS else "doctor"


def build(findings: Sequence[Finding], target: str = "posix", resume: Step | None = None) -> Prescription:
    """Merge the findings' remediations into one step per component, in COMPONENTS order, and end with `resume`
    (gpudoctor.planner.resume: the reporter's own command again) where any step comes before it.

    A finding whose first choice contradicts the rest of the plan, where its alternative does not,
    is answered by the alternative (the first choice then offered instead)."""
    plan = _build(findings, target)
    if resume is not None and plan.steps:
        plan = Prescription((*plan.steps, resume), plan.target, plan.problems)
    if not plan.problems:
        return plan
    for i, f in enumerate(findings):
        r = f.remediation
        if r is None or r.alternative is None:
            continue
        swapped = list(findings)
        swapped[i] = replace(f, remediation=replace(r.alternative, alternative=replace(r, alternative=None)))
        other = _build(swapped, target)
        if len(other.problems) < len(plan.problems):
            return other
    return plan


def _build(findings: Sequence[Finding], target: str) -> Prescription:
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        if f.remediation is None:
            continue
        groups.setdefault((component_of(f), f.remediation.where), []).append(f)
    order = {c: i for i, c in enumerate(COMPONENTS)}
    steps = []
    for (component, where), members in sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], 99), kv[0][1])):
        members = sorted(members, key=lambda f: -f.severity)
        summaries: list[str] = []
        commands: list[Line] = []
        alternatives: list[Alternative] = []
        for f in members:
            r = f.remediation
            assert r is not None
            if r.summary and r.summary not in summaries:
                summaries.append(r.summary)
            for c in r.commands:
                if c not in commands:
                    commands.append(c)
            if r.alternative is not None and all(a.remediation != r.alternative for a in alternatives):
                alternatives.append(Alternative(f.code, r.alternative))
        steps.append(
            Step(
                component,
                tuple(summaries),
                tuple(commands),
                tuple(dict.fromkeys(f.code for f in members)),
                max(f.severity for f in members),
                any(f.remediation.requires_root for f in members if f.remediation),
                where,
                tuple(alternatives),
            )
        )
    plan = Prescription(_with_replaced(_alternatives_that_hold(steps)), target)
    return Prescription(plan.steps, target, tuple(lint(plan)))


def _with_replaced(steps: Sequence[Step]) -> tuple[Step, ...]:
    """Each alternative that installs torch of another CUDA major with its dependencies names the other steps that
    only install NVIDIA wheels of a different major (planned for the torch it replaces: its install brings its own
    wheels, and theirs beside it would mix two majors in one nvidia/ directory). Taking it skips them."""
    out = []
    for i, step in enumerate(steps):
        alts = []
        for alt in step.alternatives:
            major = _torch_major(alt.remediation.commands)
            moot = tuple(
                o.component
                for o in (*steps[:i], *steps[i + 1 :])
                if major is not None and (wheels := _wheel_majors(o.commands)) and major not in wheels
            )
            alts.append(replace(alt, replaces=moot) if moot else alt)
        out.append(replace(step, alternatives=tuple(alts)) if alts != list(step.alternatives) else step)
    return tuple(out)


def _torch_major(commands: Sequence[Line]) -> str | None:
    """The CUDA major of the torch build a pip command installs with its dependencies: its index's cuXYZ, or its
    local tag; None where no command does."""
    for line in commands:
        parts = _pip_parts(line) if isinstance(line, Cmd) else None
        if not isinstance(line, Cmd) or parts is None or parts[0] != "install" or "torch" not in parts[1]:
            continue
        if "--no-deps" in line.words:
            continue
        w = line.words
        for j, word in enumerate(w):
            if word in ("--index-url", "-i") and j + 1 < len(w):
                m = re.search(r"/cu(\d+)\d/?\Z", w[j + 1])
            else:
                m = re.match(r"torch==[^+]*\+cu(\d+)\d\Z", word)
            if m:
                return m.group(1)
    return None


def _wheel_majors(commands: Sequence[Line]) -> set[str]:
    """The CUDA majors of the NVIDIA wheels (nvidia-<lib>-cu<major>) a step installs, where installing them with pip
    is all it does; else the empty set."""
    majors: set[str] = set()
    for line in commands:
        parts = _pip_parts(line) if isinstance(line, Cmd) else None
        if parts is None or parts[0] != "install" or not parts[1]:
            return set()
        for name in parts[1]:
            m = re.fullmatch(r"nvidia-[a-z-]+-cu(\d+)", name)
            if m is None:
                return set()
            majors.add(m.group(1))
    return majors


def _alternatives_that_hold(steps: Sequence[Step]) -> tuple[Step, ...]:
    """Each step without the alternatives that another step would undo: one that pins a package to another version
    than a later or earlier step does (torch 2.1.0+cu121 instead, then torch 2.0.1+cu118), or switches to another
    CUDA toolkit than a step does. Taking it would leave the plan contradicting itself, so it is not offered."""
    out = []
    for i, step in enumerate(steps):
        pins: dict[str, str] = {}
        switches: set[str] = set()
        for other in (*steps[:i], *steps[i + 1 :]):
            for line in other.commands:
                if isinstance(line, Cmd):
                    pins.update(_pins(line))
                if (t := _switch_target(line)) is not None:
                    switches.add(_major_minor(t))
        kept = tuple(a for a in step.alternatives if not _contradicts(a.remediation.commands, pins, switches))
        out.append(replace(step, alternatives=kept) if kept != step.alternatives else step)
    return tuple(out)


def _contradicts(commands: Sequence[Line], pins: dict[str, str], switches: set[str]) -> bool:
    for line in commands:
        if isinstance(line, Cmd) and any(name in pins and pins[name] != v for name, v in _pins(line).items()):
            return True
        target = _switch_target(line)
        if target is not None and switches and _major_minor(target) not in switches:
            return True
    return False


# --- lint: what no plan may say -----------------------------------------------------------------

_PIP_NAME = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pip_parts(cmd: Cmd) -> tuple[str, list[str]] | None:
    """('install' | 'uninstall', the package names) for a pip or uv pip command."""
    w = cmd.words
    for i in range(len(w) - 1):
        if w[i] == "pip" and w[i + 1] in ("install", "uninstall"):
            names = []
            skip = False
            for a in w[i + 2 :]:
                if skip:
                    skip = False
                    continue
                if a.startswith("-"):
                    skip = a in ("--index-url", "--extra-index-url", "--find-links", "-f", "-i", "--python", "-r", "-c")
                    continue
                m = _PIP_NAME.match(a)
                if m:
                    names.append(_canon(m.group(0)))
            return w[i + 1], names
    return None


def _switch_target(line: Line) -> str | None:
    if isinstance(line, EvalShell):
        w = line.argv
    elif isinstance(line, Cmd):
        w = line.words
    else:
        return None
    if len(w) >= 3 and w[0] == "gpudoctor" and w[1] == "switch-cuda" and not w[2].startswith("-"):
        return w[2]
    return None


def _pins(cmd: Cmd) -> dict[str, str]:
    """package -> the exact version pinned with == in a pip command."""
    out = {}
    parts = _pip_parts(cmd)
    if parts and parts[0] == "install":
        for a in cmd.words:
            m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^,;\s]+)\Z", a)
            if m:
                out[_canon(m.group(1))] = m.group(2)
    return out


def lint(plan: Prescription) -> list[str]:
    """Contradictions and incomplete steps: each a sentence. An empty list is a plan that holds together.

    An alternative is never run with the steps, so it is linted alone (as a plan of one step): its
    switch-cuda target or pins do not contradict the steps it stands beside."""
    problems = _lint_steps(plan.steps)
    for step in plan.steps:
        for alt in step.alternatives:
            r = alt.remediation
            own = Step(
                r.component or step.component, (r.summary,), r.commands, (alt.code,), step.severity, r.requires_root, r.where
            )
            problems += [f"the alternative for {alt.code}: {p}" for p in _lint_steps((own,))]
    return problems


def _lint_steps(steps: Sequence[Step]) -> list[str]:
    problems: list[str] = []
    switch: dict[str, str] = {}
    pinned: dict[str, tuple[str, str]] = {}
    for step in steps:
        installed: set[str] = set()
        removed: list[str] = []
        for line in step.commands:
            target = _switch_target(line)
            if target:
                switch.setdefault(target, step.component)
            if isinstance(line, Cmd):
                parts = _pip_parts(line)
                if parts:
                    verb, names = parts
                    (installed.update(names) if verb == "install" else removed.extend(names))
                for name, version in _pins(line).items():
                    if name in pinned and pinned[name][0] != version:
                        problems.append(
                            f"{name} is pinned to {pinned[name][0]} ({pinned[name][1]}) and to {version} ({step.component})"
                        )
                    pinned.setdefault(name, (version, step.component))
            if isinstance(line, SetEnv) and line.value is not None and "\n" in line.value:
                problems.append(f"{line.name} would be set to a value with a newline")
        lost = [n for n in removed if n not in installed and _needed_after_removal(n)]
        if lost and not installed:
            problems.append(f"the {step.title} step removes {', '.join(lost)} and installs nothing in its place")
    toolkits = {_major_minor(t) for t in switch}
    if len(toolkits) > 1:
        problems.append("the plan switches to different CUDA toolkits: " + ", ".join(sorted(switch)))
    return problems


def _major_minor(v: str) -> str:
    return ".".join(v.split(".")[:2])


# Packages whose removal takes files that frameworks load (cuDNN, cuBLAS, the runtime): a step that
# removes one must install what replaces it.
def _needed_after_removal(name: str) -> bool:
    return name.startswith("nvidia-") or name in ("torch", "tensorflow", "tensorflow-gpu", "jax", "jaxlib", "tf-keras")


def applies(findings: Iterable[Finding]) -> bool:
    return any(f.remediation and f.remediation.commands for f in findings)
