"""The fifth blind plan set is whole before anyone runs gpudoctor on it: every case in cases/ (both
collectors' ranges) has its paste and an expectation written from the thread (written_before_run), says
what kind of evidence the paste is (fine / ask / broken) and plans accordingly, comes from a thread no
other file under tests/ names, and every pin its plan claims a dry run for is in the set's pin-check
record. The thresholds are the whole set's (both collectors together); while only one collector's half
is merged, the counts that need the other half fail and say so. The checks are the sets' shared ones
(tests/blind/setcheck.py); this file holds the set's own thresholds."""

from __future__ import annotations

from pathlib import Path

from tests.blind import setcheck

HERE = Path(__file__).resolve().parent
# Each collector's range of case numbers and the least number of cases it committed to.
RANGES = {"A (h77, frameworks and NVIDIA)": (401, 429, 22), "B (h78, application projects)": (431, 459, 18)}
# The whole set, both collectors together.
LEAST_CASES = 40
LEAST_EVIDENCE = {"fine": 8, "ask": 8, "broken": 8}
LEAST_WINDOWS_OR_WSL = 8
LEAST_CONTAINER_OR_CLUSTER = 6


def test_every_case_has_its_paste_and_an_expectation_written_before_the_run() -> None:
    assert setcheck.cases(HERE)
    assert setcheck.incomplete_cases(HERE, evidence=True) == []


def test_the_plan_follows_the_kind_of_evidence() -> None:
    """fine: nothing to change (a control, its plan starts with 'none'); ask: the commands that collect
    what decides; broken: a fix. Only controls start their plan with 'none'."""
    assert setcheck.plans_not_following_evidence(setcheck.cases(HERE)) == []


def test_sources_are_distinct_and_named_nowhere_else_under_tests() -> None:
    assert setcheck.sources_named_elsewhere(HERE) == {}


def test_every_pin_a_plan_claims_a_dry_run_for_is_in_the_pin_record() -> None:
    claimed, missing = setcheck.pins_missing_from_record(HERE)
    assert claimed
    assert missing == []


def test_each_collector_filled_its_range() -> None:
    assert setcheck.short_ranges(setcheck.cases(HERE), RANGES) == {}


def test_the_set_has_enough_cases_of_each_kind_of_evidence() -> None:
    found = setcheck.cases(HERE)
    counts = setcheck.evidence_counts(found)
    assert len(found) >= LEAST_CASES, len(found)
    assert {kind: n for kind, n in counts.items() if n < LEAST_EVIDENCE[kind]} == {}, counts


def test_the_set_has_enough_windows_and_container_cases() -> None:
    counts = setcheck.platform_counts(setcheck.cases(HERE))
    assert counts["windows_or_wsl"] >= LEAST_WINDOWS_OR_WSL, counts
    assert counts["container_or_cluster"] >= LEAST_CONTAINER_OR_CLUSTER, counts
