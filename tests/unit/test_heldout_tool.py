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


def test_the_traced_pass_shards_whole_test_files_balanced_by_size(tmp_path: Path):
    # docs/testing.md: the traced pass runs in two processes at once, each on whole test files.
    from tools import mutate

    tests = tmp_path / "tests"
    sizes = {"unit/test_big.py": 900, "unit/test_mid.py": 500, "unit/helpers.py": 50, "spec/test_a.py": 400, "test_top.py": 100}
    for rel, size in sizes.items():
        (tests / rel).parent.mkdir(parents=True, exist_ok=True)
        (tests / rel).write_text("#" * size, encoding="utf-8")
    paths = ["tests/spec", "tests/test_top.py", "tests/unit"]
    # One shard: the paths as given (folders stay folders).
    assert mutate._shard(tmp_path, paths, 1) == [paths]
    groups = mutate._shard(tmp_path, paths, 2)
    # Every test file once, none but test files, each whole in one group; the largest first, each to the lighter
    # group: 900 | 500, then 400 to the 500 (900 | 900), then 100 to the first of the two equal ones.
    assert groups == [["tests/test_top.py", "tests/unit/test_big.py"], ["tests/spec/test_a.py", "tests/unit/test_mid.py"]]
    # More shards than files: no empty group.
    assert all(mutate._shard(tmp_path, paths, 9))
    assert sorted(f for g in mutate._shard(tmp_path, paths, 9) for f in g) == sorted(
        ["tests/unit/test_big.py", "tests/unit/test_mid.py", "tests/spec/test_a.py", "tests/test_top.py"]
    )


def test_a_sharded_traced_pass_records_what_one_process_records(tmp_path: Path):
    # Two test files tracing one module: the lines each test executes are the same whether the pass ran in one
    # process or in two (the import-time lines from both).
    from tools import mutate

    tree = tmp_path / "tree"
    (tree / "src" / "pkgx").mkdir(parents=True)
    (tree / "src" / "pkgx" / "__init__.py").write_text("", encoding="utf-8")
    (tree / "src" / "pkgx" / "m.py").write_text("def f(x):\n    if x:\n        return 1\n    return 2\n", encoding="utf-8")
    (tree / "tests").mkdir()
    (tree / "tests" / "test_one.py").write_text(
        "from pkgx.m import f\n\n\ndef test_true():\n    assert f(True) == 1\n", encoding="utf-8"
    )
    (tree / "tests" / "test_two.py").write_text(
        "from pkgx.m import f\n\n\ndef test_false():\n    assert f(False) == 2\n", encoding="utf-8"
    )
    target = [mutate.Mutant("", "src/pkgx/m.py", 0, 0, "", "", 0, 0, "")]
    saved = mutate.TESTS
    mutate.TESTS = ("tests",)
    try:
        results = []
        for shards in (1, 2):
            out = tmp_path / f"out{shards}"
            out.mkdir()
            results.append(mutate.coverage_pass(tree, target, out, shards=shards))
    finally:
        mutate.TESTS = saved
    one, two = results
    assert sorted(one["order"]) == sorted(two["order"]) == ["tests/test_one.py::test_true", "tests/test_two.py::test_false"]
    lines = {
        s: {line: sorted(t) for line, t in r["lines"]["src/pkgx/m.py"].items()} for s, r in zip((1, 2), results, strict=True)
    }
    assert lines[1] == lines[2]
    assert lines[2][3] == ["tests/test_one.py::test_true"] and lines[2][4] == ["tests/test_two.py::test_false"]


def test_a_copy_reads_its_own_matrix_and_docs_not_the_checkouts(tmp_path: Path):
    # The editable install maps gpudoctor.compat_matrix and gpudoctor._docs to the checkout it was made from; a copy
    # that read them from there broke when the checkout changed during a run (tools/mutate.py, _own_data_packages).
    import subprocess
    import sys

    from tools import mutate

    dest = tmp_path / "tree0"
    (dest / "src" / "gpudoctor").mkdir(parents=True)
    (dest / "src" / "gpudoctor" / "__init__.py").write_text("", encoding="utf-8")
    for folder in ("compat_matrix", "docs"):
        (dest / folder).mkdir()
        (dest / folder / "__init__.py").write_text(f"WHERE = {folder!r} + ' of the copy'\n", encoding="utf-8")
    mutate._own_data_packages(dest)
    mutate._own_data_packages(dest)  # twice: the links are made once
    done = subprocess.run(
        [sys.executable, "-c", "import gpudoctor.compat_matrix as m, gpudoctor._docs as d; print(m.WHERE); print(d.WHERE)"],
        env={"PYTHONPATH": str(dest / "src"), "PATH": "/usr/bin:/bin"},
        cwd=dest,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.splitlines() == ["compat_matrix of the copy", "docs of the copy"]
