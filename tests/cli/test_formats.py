"""The output formats of `check` are one table (gpudoctor.render.formats), rendered from one result computed
once (gpudoctor.pipeline): a format added as one module and one row works end to end, and the planner's
choice is not made again for each rule that asks for it, nor for fix's offers, nor for each format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.planner import plan as planner_plan
from gpudoctor.planner import prescribe
from gpudoctor.render.formats import FORMATS, Format

MACHINES = Path(__file__).resolve().parent.parent / "machines"
# A CPU build of PyTorch on a laptop GPU: the framework fix is asked for by several rules and by fix's offers.
CPU_BUILD = str(MACHINES / "rtx3060-laptop-torch-cpu-build" / "snapshot.json")


def test_a_format_added_as_one_module_and_one_row_renders_the_check(gd, monkeypatch):
    monkeypatch.setitem(FORMATS, "codes", Format("codes", "tests.cli.codes_format"))
    shown = gd("check", "--replay", CPU_BUILD, "--format", "codes")
    doc = json.loads(gd("check", "--replay", CPU_BUILD, "--format", "json").stdout)
    assert shown.stdout.splitlines() == [f"{f['severity']} {f['code']}" for f in doc["findings"]] + [f"exit {doc['exit_code']}"]
    assert shown.exit_code == doc["exit_code"] == 1
    failed = gd("check", "--replay", "/nonexistent/snapshot.json", "--format", "codes")
    assert (failed.stdout, failed.exit_code) == ("failed 2\n", 2)  # no such snapshot: a usage error, in the format


@pytest.mark.typer_rich
def test_a_format_not_in_the_table_is_a_usage_error(gd):
    r = gd("check", "--replay", CPU_BUILD, "--format", "codes")
    assert r.exit_code == 2


def _counted(monkeypatch, module, name: str) -> list[tuple]:
    calls: list[tuple] = []
    original = getattr(module, name)

    def counting(*args, **kwargs):
        # The question: facts and ctx left out, and the environment (the probed one, named or not: fix names it).
        calls.append((args[2:], tuple(sorted((k, v) for k, v in kwargs.items() if k != "env"))))
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


@pytest.mark.parametrize("output_format", ["text", "json", "markdown"])
def test_each_plan_is_made_once_per_check(gd, monkeypatch, output_format):
    installs = _counted(monkeypatch, planner_plan, "plan_first_fit")
    singles = _counted(monkeypatch, planner_plan, "plan_install")
    builds: list[int] = []
    original_build = prescribe.build
    monkeypatch.setattr(prescribe, "build", lambda *a, **k: builds.append(1) or original_build(*a, **k))
    r = gd("check", "--replay", CPU_BUILD, "--format", output_format)
    assert r.exit_code == 1
    # The CPU build's fix is planned once, in one pass over the releases it tries (2.13.0, 2.13, the nearer
    # 2.14 and 2.15, then the newest: issue 26), and no plan besides it.
    assert [args[0] for args, _ in installs] == ["torch"], installs
    assert installs[0][0][1] == ("2.13.0", "2.13", "2.14", "2.15", None)
    assert singles == []
    assert len(builds) == 1  # the report's plan: once, whatever the format
