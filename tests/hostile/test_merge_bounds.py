"""`report merge` against reports that try to fill it: one report's share is capped and the cap is said;
a field of the wrong type is a clear error for that report; whole reports before garbage still merge
(issue 30, points 7 and 8)."""

from __future__ import annotations

import json

from gpudoctor.report_merge import MAX_FINDINGS_PER_REPORT
from tests.hostile.test_corpus import assert_clean_run, run_cli
from tests.hostile.test_corpus_commands import _report


def _finding(i: int) -> dict:
    return {"code": f"flood-{i}", "severity": "error", "area": "driver", "title": f"flood {i} " + "x" * 20, "detail": ""}


def test_one_report_of_many_findings_brings_at_most_its_share(tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    for i in range(20):
        (reports / f"n{i}.json").write_text(json.dumps(_report(f"node-{i}", "fine")), encoding="utf-8")
    flood = _report("flooder", "fine")
    flood["findings"] = [_finding(i) for i in range(100_000)]  # about 9 MB
    (reports / "flooder.json").write_text(json.dumps(flood), encoding="utf-8")
    code, out, err = run_cli("report", "merge", str(reports), "--format", "json")
    assert_clean_run(code, out, err, "merge flood")
    doc = json.loads(out)
    node = next(n for n in doc["nodes"] if n["node"] == "flooder")
    codes = [f["code"] for f in node["findings"]]
    assert len(codes) == MAX_FINDINGS_PER_REPORT + 1 and codes[-1] == "report-capped"
    assert node["findings"][-1]["title"].startswith(f"{100_000 - MAX_FINDINGS_PER_REPORT} more findings not merged")
    assert len(out) < 2_000_000, len(out)  # the flood is not copied out
    code, text, err = run_cli("report", "merge", str(reports))
    assert_clean_run(code, text, err, "merge flood text")
    assert "more findings not merged" in text and len(text) < 500_000


def test_a_field_of_the_wrong_type_makes_that_report_unreadable_with_the_field_named(tmp_path):
    good = _report("good", "fine")
    cases = {
        "findings-object": {**good, "node": "a", "findings": {"code": "x"}},
        "code-number": {**good, "node": "b", "findings": [{**good["findings"][0], "code": 7}]},
        "severity-unknown": {**good, "node": "c", "findings": [{**good["findings"][0], "severity": "fatal"}]},
        "status-list": {**good, "node": "d", "status": ["error"]},
        "exit-code-string": {**good, "node": "e", "exit_code": "1"},
        "facts-list": {**good, "node": "f", "facts": []},
    }
    for name, doc in cases.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "good.json").write_text(json.dumps(good), encoding="utf-8")
    code, out, err = run_cli("report", "merge", str(tmp_path), "--format", "json")
    assert_clean_run(code, out, err, "merge types")
    doc = json.loads(out)
    assert [n["node"] for n in doc["nodes"]] == ["good"]
    why = {u["source"].rsplit("/", 1)[-1]: u["error"] for u in doc["unreadable"]}
    assert why == {
        "code-number.json": "malformed report: findings[0].code is a number, not a string",
        "exit-code-string.json": "malformed report: field 'exit_code' is a string, not a number",
        "facts-list.json": "malformed report: field 'facts' is a list, not an object",
        "findings-object.json": "malformed report: field 'findings' is an object, not a list",
        "severity-unknown.json": "malformed report: findings[0].severity is 'fatal', not one of info, warning, error",
        "status-list.json": "malformed report: field 'status' is a list, not a string",
    }


def test_reports_before_garbage_in_one_file_still_merge(tmp_path):
    text = json.dumps(_report("n1", "fine")) + "\n" + json.dumps(_report("n2", "fine")) + "\n{ garbage"
    (tmp_path / "all.json").write_text(text, encoding="utf-8")
    code, out, err = run_cli("report", "merge", str(tmp_path / "all.json"), "--format", "json")
    assert_clean_run(code, out, err, "merge garbage")
    doc = json.loads(out)
    assert sorted(n["node"] for n in doc["nodes"]) == ["n1", "n2"]
    assert [u["source"].rsplit("/", 1)[-1] for u in doc["unreadable"]] == ["all.json#3"]
    assert code == 1  # the garbage is reported, not ignored
