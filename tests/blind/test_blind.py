"""The blind pasted set is well formed and its scorer runs (tests/blind/README.md).

The figure itself is a measure, not a gate: nothing here asserts how many cases are right.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.blind import score

CODES = {p.stem for p in (Path(__file__).resolve().parents[2] / "docs" / "findings").glob("*.md")}
REQUIRED = ("url", "title", "category", "platform", "setting", "diagnosis", "note")
LISTS = ("codes", "codes_any", "absent", "ask_for", "ask_any")


@pytest.mark.parametrize("slug", score.cases())
def test_case_is_well_formed(slug):
    case = score.load(slug)
    for key in REQUIRED:
        assert str(case.get(key, "")).strip(), f"{slug}: expect.toml needs {key}"
    assert case["url"].startswith("https://"), slug
    assert case["written_before_run"] is True, slug
    assert case["category"] in score.CATEGORIES, slug
    assert case["platform"] in score.PLATFORMS, slug
    assert case["setting"] in score.SETTINGS, slug
    assert (score.CASES_DIR / slug / "input.txt").stat().st_size > 0, slug
    expect = case["expect"]
    assert set(expect) <= set(LISTS), f"{slug}: unknown keys {set(expect) - set(LISTS)}"
    named = [c for key in ("codes", "codes_any", "absent") for c in expect.get(key, [])]
    assert set(named) <= CODES, f"{slug}: unknown codes {set(named) - CODES}"
    wanted = set(expect.get("codes", [])) | set(expect.get("codes_any", []))
    assert not wanted & set(expect.get("absent", [])), f"{slug}: a code both wanted and forbidden"
    if case["category"] == "broken":
        assert wanted, f"{slug}: a broken case names the codes that must fire"
    else:
        assert not wanted, f"{slug}: a {case['category']} case expects no finding"
    if case["category"] == "ask":
        assert expect.get("ask_for") or expect.get("ask_any"), f"{slug}: an ask case names what to ask for"


def test_the_set_keeps_its_mix():
    cases = [score.load(s) for s in score.cases()]
    by = lambda key, value: sum(c[key] == value for c in cases)  # noqa: E731
    assert len(cases) >= 40
    assert by("category", "fine") >= 8 and by("category", "ask") >= 8
    assert sum(c["platform"] in ("windows", "wsl") for c in cases) >= 8
    assert sum(c["setting"] != "host" for c in cases) >= 6
    assert len({c["url"] for c in cases}) == len(cases), "each case is its own thread"


def test_scorer_runs_one_case_per_category():
    cases = score.cases()
    chosen = [next(s for s in cases if score.load(s)["category"] == cat) for cat in score.CATEGORIES]
    rows = score.score(chosen)
    assert [slug for slug, _, _ in rows] == chosen
    for _, expect, verdict in rows:
        assert verdict.category == expect["category"]
        assert verdict.outcome in ("right", "false alarm", "miss")
        assert verdict.exit_code in (0, 1)
    assert "This run" in score.render(rows, "First run, before any change to the reader: (test)")


def test_judge_reads_the_report_json():
    fine = {"category": "fine", "expect": {"absent": ["cudnn-missing"]}}
    assert score.judge(fine, {"exit_code": 0, "findings": []}).outcome == "right"
    alarm = score.judge(fine, {"exit_code": 1, "findings": [{"code": "gpu-lost", "severity": "error"}]})
    assert (alarm.outcome, alarm.codes) == ("false alarm", {"gpu-lost": "error"})
    ask = {"category": "ask", "expect": {"ask_for": ["collect_env"], "absent": []}}
    asked = {
        "exit_code": 0,
        "findings": [],
        "pasted": {"ask_for": [{"command": "x", "argv": ["python", "-m", "torch.utils.collect_env"]}]},
    }
    assert score.judge(ask, asked).outcome == "right"
    assert score.judge(ask, {"exit_code": 0, "findings": []}).missed == ["ask for 'collect_env'"]
    broken = {"category": "broken", "expect": {"codes": [], "codes_any": ["a", "b"]}}
    assert score.judge(broken, {"exit_code": 1, "findings": [{"code": "b", "severity": "error"}]}).outcome == "right"
    assert score.judge(broken, {"exit_code": 0, "findings": []}).outcome == "miss"


def test_a_thread_the_projects_documents_cite_is_seen_whatever_its_spelling(tmp_path):
    # plans10 1002's thread (its expect.toml's URL) cited as a source line writes it ("pytorch/pytorch issue 59904"):
    # the set's measure of reports never seen must know (tests/blind/plans10/README.md says which case, and why).
    from tests.blind.setcheck import sources_seen_by_the_project

    plans10 = Path(__file__).resolve().parent / "plans10"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("Sources: pytorch/pytorch issue 59904 (the paging file's size).\n")
    (tmp_path / "README.md").write_text("see pytorch/pytorch#599041 and pytorch/pytorch issue 5990\n")  # other threads
    seen = sources_seen_by_the_project(plans10, tmp_path)
    assert list(seen) == [s for s in seen if s.startswith("1002-")] and seen and seen[next(iter(seen))] == ["docs/page.md"]
