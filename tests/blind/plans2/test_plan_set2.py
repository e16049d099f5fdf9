"""The second blind plan set is whole before anyone runs gpudoctor on it: every case has its paste and an
expectation written from the thread (written_before_run), comes from a thread no other file under tests/
names, and every pin its plan claims a dry run for is in the set's pin-check record. First runs and
verdicts are checked below once they exist (tools/blind_run.py). The checks are the sets' shared ones
(tests/blind/setcheck.py); this file holds the set's own thresholds."""

from __future__ import annotations

from pathlib import Path

from tests.blind import setcheck

HERE = Path(__file__).resolve().parent


def _cases() -> dict[str, dict]:
    return setcheck.cases(HERE)


def test_every_case_has_its_paste_and_an_expectation_written_before_the_run() -> None:
    assert len(_cases()) >= 22
    assert setcheck.incomplete_cases(HERE, evidence=False) == []


def test_sources_are_distinct_and_named_nowhere_else_under_tests() -> None:
    assert setcheck.sources_named_elsewhere(HERE) == {}


def test_false_alarm_controls_expect_no_plan() -> None:
    controls = {slug: e for slug, e in _cases().items() if e["kind"].startswith("none")}
    assert len(controls) >= 3
    for slug, e in controls.items():
        assert e["plan"]["steps"][0].startswith("none"), slug


def test_every_pin_a_plan_claims_a_dry_run_for_is_in_the_pin_record() -> None:
    _, missing = setcheck.pins_missing_from_record(HERE)
    assert missing == []


def test_every_case_has_its_first_run_and_a_reviewers_verdict() -> None:
    from tests.blind.plans.results import KIND_NAMES, load_verdicts

    verdicts = load_verdicts(HERE)
    assert set(verdicts) == set(_cases())
    for slug, v in verdicts.items():
        assert (HERE / "cases" / slug / "first-run.txt").is_file() and (HERE / "cases" / slug / "first-run.json").is_file()
        assert v["verdict"] in {"right", "partly", "wrong"}, slug
        assert v["diagnosis"] in {"right", "partly", "wrong", "missed"}, slug
        assert v["reason"].strip() and set(v.get("kinds", [])) <= set(KIND_NAMES), slug
        assert v["verdict"] == "right" or v["kinds"], slug
    right = sum(v["verdict"] == "right" for v in verdicts.values())
    assert f"First run: {right} of {len(verdicts)} plans right" in (HERE / "RESULTS.md").read_text(encoding="utf-8")


def test_the_after_fix_run_is_judged_for_every_case() -> None:
    from tests.blind.plans.results import KIND_NAMES, load_verdicts

    after = load_verdicts(HERE, "after")
    assert set(after) == set(_cases())
    for slug, v in after.items():
        assert (HERE / "cases" / slug / "after-27.txt").is_file(), slug
        assert v["verdict"] in {"right", "partly", "wrong"} and set(v.get("kinds", [])) <= set(KIND_NAMES), slug
    right = sum(v["verdict"] == "right" for v in after.values())
    assert f"After fixes: {right} of {len(after)} plans right" in (HERE / "RESULTS-AFTER.md").read_text(encoding="utf-8")
