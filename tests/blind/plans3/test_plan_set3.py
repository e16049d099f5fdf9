"""The third blind plan set is whole before anyone runs gpudoctor on it: every case in cases/ (both
collectors' ranges) has its paste and an expectation written from the thread (written_before_run), says
what kind of evidence the paste is (fine / ask / broken) and plans accordingly, comes from a thread no
other file under tests/ names, and every pin its plan claims a dry run for is in the set's pin-check
record. First runs and verdicts come after the expectations are committed (tools/blind_run.py); they are
not required here. The checks are the sets' shared ones (tests/blind/setcheck.py); this file holds the
set's own thresholds."""

from __future__ import annotations

from pathlib import Path

from tests.blind import setcheck

HERE = Path(__file__).resolve().parent
# Each collector's range of case numbers and the least number of cases it committed to.
RANGES = {"A (h57, frameworks and NVIDIA)": (201, 229, 22), "B (h58, application projects)": (231, 259, 22)}


def test_every_case_has_its_paste_and_an_expectation_written_before_the_run() -> None:
    assert setcheck.cases(HERE)
    assert setcheck.incomplete_cases(HERE, evidence=True) == []


def test_each_collector_filled_its_range() -> None:
    assert setcheck.short_ranges(setcheck.cases(HERE), RANGES) == {}


def test_the_plan_follows_the_kind_of_evidence() -> None:
    """fine: nothing to change (a control, its plan starts with 'none'); ask: the commands that collect
    what decides; broken: a fix. Only controls start their plan with 'none'."""
    assert setcheck.plans_not_following_evidence(setcheck.cases(HERE)) == []


def test_the_set_has_enough_of_each_kind_of_evidence() -> None:
    counts = setcheck.evidence_counts(setcheck.cases(HERE))
    assert counts["fine"] >= 8, counts
    assert counts["ask"] >= 4, counts
    assert counts["broken"] >= 8, counts


def test_sources_are_distinct_and_named_nowhere_else_under_tests() -> None:
    assert setcheck.sources_named_elsewhere(HERE) == {}


def test_every_pin_a_plan_claims_a_dry_run_for_is_in_the_pin_record() -> None:
    claimed, missing = setcheck.pins_missing_from_record(HERE)
    assert claimed
    assert missing == []
