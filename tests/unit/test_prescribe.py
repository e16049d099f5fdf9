"""gpudoctor.prescribe's invariants, stated from docs/report-schema.md on minimal findings.

- "every finding's fix merged into one ordered plan, a step per component (`driver`, `container`, `platform`,
  `gpu`, `toolkit`, `cudnn`, `torch`, `tensorflow`, `jax`, `environment`, `health`, `memory`, `doctor`)": the
  steps follow that order, whatever order the findings came in (never the names' alphabetical order);
- "`fix` (what `gpudoctor fix` does for the step ...), or null when the step is yours to run: a system package,
  a driver, the host": a step that runs elsewhere (`where` set) is never one `fix` applies.
"""

from __future__ import annotations

import itertools

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.model import COMPONENTS, Finding, Remediation, Severity
from gpudoctor.planner import prescribe


def finding(code: str, component: str, where: str = "") -> Finding:
    fix = Remediation(f"fix {code}", (Cmd(("true", code)),), component=component, where=where)
    return Finding(code, Severity.ERROR, component, code, code, remediation=fix)


def test_the_components_order_is_the_documented_one():
    assert COMPONENTS == (
        "driver", "container", "platform", "gpu", "toolkit", "cudnn", "torch", "tensorflow", "jax",
        "environment", "health", "memory", "doctor", "resume",
    )  # fmt: skip


@pytest.mark.parametrize("components", list(itertools.permutations(("toolkit", "cudnn", "driver", "torch", "environment"))))
def test_steps_follow_the_components_order_not_the_findings_or_the_names(components):
    plan = prescribe.build([finding(f"code-{c}", c) for c in components])
    assert [s.component for s in plan.steps] == ["driver", "toolkit", "cudnn", "torch", "environment"]


def test_one_step_per_component_and_place_where_the_host_comes_apart():
    plan = prescribe.build([finding("a", "container", "the host"), finding("b", "container"), finding("c", "container")])
    assert [(s.component, s.where, s.codes) for s in plan.steps] == [
        ("container", "", ("b", "c")),
        ("container", "the host", ("a",)),
    ]


@pytest.mark.parametrize("where", ["the host", "the image", "Windows"])
def test_fix_never_applies_a_step_that_runs_elsewhere(where):
    offered = {"x": "reinstall"}
    (here,) = prescribe.build([finding("x", "torch")]).steps
    (elsewhere,) = prescribe.build([finding("x", "torch", where)]).steps
    assert here.fix_kind(offered) == "reinstall"
    assert elsewhere.fix_kind(offered) is None
    assert elsewhere.to_json()["where"] == where
