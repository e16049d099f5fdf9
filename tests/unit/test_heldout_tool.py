"""tools/heldout.py, the held-out measure's own rules (docs/testing.md, "Held-out hand-made bugs"): which tests it runs
(every test under tests/ but tests/gpu, tests/packaging and tests/integration, computed from the tree) and what it
refuses to score (a bug whose changed file the reused trace never covered)."""

from __future__ import annotations

import json
from pathlib import Path

from tools import heldout

ROOT = Path(__file__).resolve().parents[2]


def test_the_suite_is_every_test_under_tests_but_the_three_left_out():
    suite = heldout.suite(ROOT)
    tests = ROOT / "tests"
    expected = {
        f"tests/{p.relative_to(tests).parts[0]}"
        for pattern in ("test_*.py", "*_test.py")
        for p in tests.rglob(pattern)
        if p.is_file()
    } - set(heldout.EXCLUDED)
    assert set(suite) == expected
    # The ones a hand-kept list left out are in it.
    for rel in ("tests/spec", "tests/blind", "tests/test_golden.py", "tests/test_architecture.py"):
        assert rel in suite, rel
    for rel in ("tests/test_machines_processes.py", "tests/test_index_table.py"):
        assert rel in suite, rel
    assert not set(suite) & {"tests/gpu", "tests/packaging", "tests/integration"}


def test_a_new_test_file_or_folder_is_in_the_suite_without_an_edit(tmp_path: Path):
    tests = tmp_path / "tests"
    for rel in (
        "unit/test_a.py",
        "brand_new/deep/test_b.py",
        "other/c_test.py",
        "gpu/test_gpu.py",
        "packaging/test_wheel.py",
        "integration/test_docker.py",
        "fixtures/data.py",  # a folder without a test file runs nothing
        "test_top.py",
        "conftest.py",
        "helpers.py",
    ):
        (tests / rel).parent.mkdir(parents=True, exist_ok=True)
        (tests / rel).write_text("", encoding="utf-8")
    assert heldout.suite(tmp_path) == ("tests/brand_new", "tests/other", "tests/test_top.py", "tests/unit")


def _bug(tmp_path: Path, rel: str) -> heldout.Bug:
    patch = tmp_path / "001-x.patch"
    patch.write_text(
        f"--- a/{rel}\n+++ b/{rel}\n@@ -3,3 +3,3 @@\n a\n-b\n+c\n d\n",
        encoding="utf-8",
    )
    return heldout.read_bug(patch)


def test_a_bug_in_a_file_the_trace_never_covered_is_untraced(tmp_path: Path):
    bug = _bug(tmp_path, "src/gpudoctor/b.py")
    assert bug.lines == {"src/gpudoctor/b.py": {4}}
    cov = {
        "order": ["t1"],
        "durations": {},
        "lines": {"src/gpudoctor/a.py": {4: ["t1"]}},
        "failed": [],
        "traced": ["src/gpudoctor/a.py"],
    }
    assert heldout.untraced(bug, cov) == ["src/gpudoctor/b.py"]
    # a traced file whose changed line no test runs: no test runs it, and that is a survivor
    cov["traced"].append("src/gpudoctor/b.py")
    assert heldout.untraced(bug, cov) == [] and heldout.select_tests(bug, cov) == []
    # a coverage file from before "traced" was recorded: the files it holds lines of
    del cov["traced"]
    assert heldout.untraced(bug, cov) == ["src/gpudoctor/b.py"]
    # named tests (--tests) select nothing from the trace
    assert heldout.untraced(bug, {"tests": ["tests/unit"], "lines": {}}) == []


def test_untraced_bugs_are_not_scored():
    results = [
        {"bug": "1", "outcome": "caught"},
        {"bug": "2", "outcome": "survived"},
        {"bug": "3", "outcome": "untraced"},
        {"bug": "4", "outcome": "timeout"},
        {"bug": "5", "outcome": "does-not-apply"},
    ]
    summary = heldout.summarise(results, 12.4)
    assert summary == {
        "bugs": 5,
        "caught": 1,
        "survived": 1,
        "timeout": 1,
        "does-not-apply": 1,
        "untraced": 1,
        "score": round(2 / 3, 4),
        "seconds": 12,
    }
    assert heldout.summarise([{"bug": "3", "outcome": "untraced"}], 0)["score"] is None


def test_reuse_coverage_reports_a_bug_outside_the_trace_as_untraced(tmp_path: Path, monkeypatch, capsys):
    """The whole tool on one bug, with a reused trace of another file: "untraced", never "survived (0 tests)"."""
    bugs = tmp_path / "bugs"
    bugs.mkdir()
    (bugs / "001-x.patch").write_text(
        "--- a/src/gpudoctor/versions.py\n+++ b/src/gpudoctor/versions.py\n@@ -1,1 +1,1 @@\n-x\n+y\n", encoding="utf-8"
    )
    out = tmp_path / "out"
    out.mkdir()
    cov = {"order": [], "durations": {}, "lines": {}, "failed": [], "traced": ["src/gpudoctor/cmdline.py"]}
    (out / "coverage.json").write_text(json.dumps(cov), encoding="utf-8")
    monkeypatch.setattr(heldout, "BUGS", bugs)
    monkeypatch.setattr(heldout.mutate, "make_copy", lambda base, i, pristine: pristine)
    monkeypatch.setattr(heldout.mutate, "_warm", lambda: None)
    monkeypatch.setattr(heldout.shutil, "copytree", lambda src, dst, **kw: Path(dst).mkdir(parents=True))
    assert heldout.main(["--reuse-coverage", "--out", str(out)]) == 0
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert [(b["bug"], b["outcome"], b["tests"]) for b in doc["bugs"]] == [("001-x", "untraced", 0)]
    assert (doc["summary"]["untraced"], doc["summary"]["survived"], doc["summary"]["score"]) == (1, 0, None)
    assert "untraced, not scored" in capsys.readouterr().out


def test_a_patch_that_applies_at_an_offset_selects_the_tests_of_the_lines_it_changes(tmp_path: Path):
    """A patch written before its file grew applies at an offset (`patch` finds its context lines further on): the
    trace knows the tree's lines, so the bug's lines are where its hunk stands, not the ones its header names (held-out
    set 4's 111 named line 659 and changed 1086, and ran the tests of another function)."""
    rel = "src/gpudoctor/b.py"
    (tmp_path / "src/gpudoctor").mkdir(parents=True)
    grown = [f"x{i}" for i in range(10)]
    (tmp_path / rel).write_text("\n".join([*grown, "a", "b", "d", "b", "z"]) + "\n", encoding="utf-8")
    bug = heldout.place(_bug(tmp_path, rel), tmp_path)
    assert bug.lines == {rel: {12}}  # "a b d" stands at 11-13 (stated 3-5): the "b" it replaces is line 12
    cov = {"order": ["t4", "t12"], "durations": {}, "lines": {rel: {4: ["t4"], 12: ["t12"]}}, "failed": [], "traced": [rel]}
    assert heldout.select_tests(bug, cov) == ["t12"]
    # at its stated place, or nowhere in the tree (the patch will not apply), the header's lines stand
    (tmp_path / rel).write_text("x\nx\na\nb\nd\n", encoding="utf-8")
    assert heldout.place(_bug(tmp_path, rel), tmp_path).lines == {rel: {4}}
    (tmp_path / rel).write_text("nothing alike\n", encoding="utf-8")
    assert heldout.place(_bug(tmp_path, rel), tmp_path).lines == {rel: {4}}
