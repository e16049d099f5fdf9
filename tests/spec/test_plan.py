"""The plan's invariants (README: "one plan: a step per component ... where each runs"; docs/report-schema.md,
`plan`; src/gpudoctor/prescribe.py), over every recorded machine (tests/machines, tests/real) and the findings
gpudoctor gives there.

- Order: the steps follow COMPONENTS (driver, container, platform, gpu, toolkit, cudnn, torch, tensorflow, jax,
  environment, health, memory, doctor).
- One step per component and place: no two steps share both.
- Where each step runs: the place of every fix it merges (`where`: "" is this machine; JSON "this machine").
- Every finding with a fix is answered by exactly one step: the step of its component and place names its code; a
  step names only codes of findings it answers; its commands are its findings' commands, each once.
- Alternatives are labelled and never planned: "or instead (TITLE, for CODE): summary", CODE one of the step's
  findings, and none of an alternative's commands is among the step's commands (unless the first choice has it too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import shell_for_os
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.model import COMPONENTS
from gpudoctor.planner.prescribe import build, component_of

TESTS = Path(__file__).resolve().parents[1]
SNAPSHOTS = sorted([*TESTS.glob("machines/*/snapshot.json"), *TESTS.glob("real/*/snapshot.json")])
IDS = [f"{p.parent.parent.name}/{p.parent.name}" for p in SNAPSHOTS]


def _plan(path: Path):
    report = diagnose(ReplayHost(load_snapshot(str(path))))
    return report.findings, build(report.findings, shell_for_os(report.facts.platform.system))


def test_the_population_is_every_recorded_machine():
    """The invariants hold "over every recorded machine": the recorded and the real ones are all here."""
    assert len(SNAPSHOTS) >= 50 and any(p.parent.parent.name == "real" for p in SNAPSHOTS)


@pytest.mark.parametrize("path", SNAPSHOTS, ids=IDS)
def test_plan_invariants_on_a_recorded_machine(path):
    """README: "one plan: a step per component ... with the commands for this machine's shell, where each runs";
    docs/report-schema.md: "every finding's fix merged into one ordered plan, a step per component (driver, container,
    ...)", alternatives "are offered, not planned: their commands are not in the step's" (the module docstring lists
    each invariant)."""
    findings, plan = _plan(path)
    steps = plan.steps
    # Order of components, then of places.
    keys = [(COMPONENTS.index(s.component) if s.component in COMPONENTS else 99, s.where) for s in steps]
    assert keys == sorted(keys), [(s.component, s.where) for s in steps]
    # One step per component and place.
    assert len({(s.component, s.where) for s in steps}) == len(steps)
    fixed = [f for f in findings if f.remediation is not None]
    for f in fixed:
        assert f.remediation is not None
        # Exactly one step answers it: the step of its component, at the place its fix runs.
        answering = [s for s in steps if f.code in s.codes and s.component == component_of(f) and s.where == f.remediation.where]
        assert len(answering) == 1, (f.code, [(s.component, s.where, s.codes) for s in steps])
        (step,) = answering
        first_choice_kept = all(c in step.commands for c in f.remediation.commands)
        swapped = any(a.code == f.code for a in step.alternatives)
        assert first_choice_kept or swapped, (f.code, step.component)
        if f.remediation.requires_root:
            assert step.requires_root
    for step in steps:
        members = [f for f in fixed if f.code in step.codes and component_of(f) == step.component]
        assert members, step.component
        # Where the step runs is where each of its fixes runs; JSON says "this machine" for here.
        assert {f.remediation.where for f in members if f.remediation} == {step.where}
        assert step.to_json(plan.target)["where"] == (step.where or "this machine")
        assert step.requires_root == any(f.remediation.requires_root for f in members if f.remediation)
        # Each command once.
        assert len(set(step.commands)) == len(step.commands)
        # Alternatives: labelled with the finding they answer, offered, not planned.
        for alt in step.alternatives:
            assert alt.code in step.codes
            assert alt.heading.startswith(f"or instead ({alt.title}") and f"for {alt.code}): " in alt.heading
            owner = next(f for f in members if f.code == alt.code)
            assert owner.remediation is not None
            only_alternative = set(alt.remediation.commands) - set(owner.remediation.commands)
            assert not only_alternative & set(step.commands), (step.component, alt.code)
            assert alt.to_json(plan.target)["code"] == alt.code


def test_an_alternative_is_offered_on_a_recorded_machine():
    """The invariants above are not vacuous: a recorded machine has an alternative (toolkit-torch-major-mismatch:
    a toolkit of PyTorch's CUDA major, or a PyTorch build of nvcc's) and a step that runs elsewhere."""
    _, plan = _plan(TESTS / "machines" / "rtx4090-nvcc118-torch-cu121" / "snapshot.json")
    assert any(s.alternatives for s in plan.steps)
    _, plan = _plan(TESTS / "machines" / "docker-started-without-gpus" / "snapshot.json")
    assert [s.where for s in plan.steps if s.component == "container"] == ["the host"]
