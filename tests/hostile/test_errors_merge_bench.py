"""Malformed documents of the right schema: a node report whose fields have the wrong types is listed
as unreadable while the others merge; report fields never reach the terminal raw; bandwidth results
of the wrong types are one clean error (exit 3), never "unexpected error"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpudoctor.cli import _register, app
from gpudoctor.report_merge import merge_paths

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "tests" / "cli" / "machines" / "rtx4090-torch-cu121.json"
RESULTS = ROOT / "tests" / "fixtures" / "bandwidth" / "constructed_gen4x16_two-gpus_sweep.json"


def invoke(*args: str):
    _register()
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def report() -> dict:
    return json.loads(invoke("check", "--replay", str(SNAPSHOT), "--format", "json", "--node", "good").stdout)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.__setitem__("facts", {"driver": "x"}),
        lambda d: d["facts"].__setitem__("frameworks", ["torch"]),
        lambda d: d["facts"]["driver"].__setitem__("gpus", "RTX"),
        lambda d: d["facts"].__setitem__("toolkits", {"toolkits": 5}),
        lambda d: d["findings"].append({"code": ["x"], "severity": {"a": 1}, "title": 3}),
        lambda d: d.__setitem__("findings", "none"),
        lambda d: d.__setitem__("exit_code", True),
    ],
)
def test_a_malformed_report_does_not_stop_the_merge(tmp_path, report, change):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(report))
    bad_doc = json.loads(json.dumps(report))
    bad_doc["node"] = "bad"
    change(bad_doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_doc))
    r = invoke("report", "merge", str(good), str(bad), "--format", "json")
    assert r.exit_code in (0, 1)
    doc = json.loads(r.stdout)
    names = [n["node"] for n in doc["nodes"]]
    unreadable = [u["source"] for u in doc["unreadable"]]
    assert "good" in names
    # Either merged (the field was tolerated) or listed unreadable with its reason: never lost silently.
    assert ("bad" in names) != (str(bad) in unreadable)
    r = invoke("report", "merge", str(good), str(bad))
    assert r.exit_code in (0, 1) and "unexpected error" not in r.output


def test_escape_sequences_in_report_fields_are_shown_not_obeyed(tmp_path, report):
    doc = json.loads(json.dumps(report))
    doc["node"] = "evil\x1b]0;owned\x07\x1b[2J"
    doc["findings"] = [{"code": "x\x1b[31m", "severity": "error", "title": "title\x1b]52;c;AAAA\x07\nforged line"}]
    (tmp_path / "evil.json").write_text(json.dumps(doc))
    r = invoke("report", "merge", str(tmp_path / "evil.json"))
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "evil\\x1b]0;owned\\x07\\x1b[2J" in r.stdout
    assert "\nforged line" not in r.stdout


def test_unreadable_directory_entries_are_listed(tmp_path, report):
    (tmp_path / "a.json").write_text(json.dumps(report))
    (tmp_path / "b.json").write_text("[" * 100 + "]" * 100)
    merged = merge_paths([str(tmp_path)])
    assert [n.name for n in merged.nodes] == ["good"]
    assert merged.unreadable[0].error == "nests JSON more than 64 levels deep"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("gpus", 0), 1.5),
        (("gpus", 0, "name"), {"a": 1}),
        (("gpus", 0, "placement", "upstream"), "x"),
        (("gpus", 0, "results", 0), None),
        (("gpus", 0, "results", 0, "samples_gb_per_s"), [0, -1]),
        (("gpus", 0, "results", 0, "samples_gb_per_s"), ["fast"]),
        (("gpus", 0, "results", 0, "size_bytes"), "1M"),
        (("driver",), True),
        (("plan", "sizes_bytes"), [0]),
        (("peers",), {"src": 0}),
    ],
)
def test_bench_results_of_the_wrong_type_are_one_clean_error(tmp_path, path, value):
    doc = json.loads(RESULTS.read_text())
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    bad = tmp_path / "r.json"
    bad.write_text(json.dumps(doc))
    r = invoke("bench", "bandwidth", "--results", str(bad), "--format", "json")
    assert r.exit_code == 3, r.output
    assert "unexpected error" not in r.output
    err = json.loads(r.stdout)["error"]
    assert err["message"].startswith(("malformed bandwidth results", "unknown test"))
