"""Real public reports replayed through the doctor: would the printed plan have fixed them? (README.md here)"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import shell_for_os
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.planner.prescribe import build

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
CASES = sorted(p.parent.name for p in HERE.glob("*/case.toml"))
REQUIRED = ("url", "title", "pasted", "cause", "fixed_by")


def _load(slug: str) -> dict:
    return tomllib.loads((HERE / slug / "case.toml").read_text(encoding="utf-8"))


def judge(slug: str) -> list[str]:
    """What is wrong with the doctor's answer for this case (empty: the plan would have fixed it)."""
    case = _load(slug)
    report = diagnose(ReplayHost(load_snapshot(str(HERE / slug / "snapshot.json"))))
    plan = build(report.findings, shell_for_os(report.facts.platform.system))
    # What the plan prints: each step's summaries and commands, and any "or instead" alternative it offers.
    # What the terminal prints per step: its heading (what it is about, and where it runs), then its lines.
    text = "\n".join(
        line for s in plan.steps for line in (f"{s.title}" + (f" (on {s.where})" if s.where else ""), *s.printed(plan.target))
    )
    codes = {f.code for f in report.findings}
    expect = case.get("expect", {})
    wrong = [f"missing finding {c}" for c in expect.get("codes", []) if c not in codes]
    wrong += [f"plan lacks {s!r}" for s in expect.get("plan_includes", []) if s not in text]
    wrong += [f"plan says {s!r}" for s in expect.get("plan_excludes", []) if s in text]
    wrong += [f"plan contradicts itself: {p}" for p in plan.problems]
    return wrong


@pytest.mark.parametrize("slug", CASES)
def test_case_is_documented(slug):
    case = _load(slug)
    for key in REQUIRED:
        assert str(case.get(key, "")).strip(), f"{slug}: case.toml needs {key}"
    assert case["url"].startswith("https://"), slug
    expect = case.get("expect", {})
    assert expect.get("codes") and expect.get("plan_includes"), f"{slug}: say what the doctor must find and print"


@pytest.mark.parametrize("slug", CASES)
def test_case(slug):
    case = _load(slug)
    wrong = judge(slug)
    if case.get("expect", {}).get("miss"):
        assert wrong, f"{slug} is marked as a miss but the plan now fits: remove `miss`"
        pytest.xfail(f"known miss: {case['expect']['miss']}")
    assert not wrong, f"{slug} ({case['url']}): " + "; ".join(wrong)


def test_the_plan_fits_at_least_95_percent():
    if not CASES:
        pytest.skip("no real cases recorded yet")
    assert len(CASES) >= 30, f"only {len(CASES)} real cases; the issue asks for at least 30"
    misses = [s for s in CASES if judge(s)]
    assert (len(CASES) - len(misses)) / len(CASES) >= 0.95, f"misses: {misses}"
