"""The blind plan set is whole: every case has its paste, its expectation, its first run and a verdict,
comes from a thread no other real-case set holds, and RESULTS.md is the tabulation of the verdicts."""

from __future__ import annotations

from pathlib import Path

from tests.blind.plans.results import HERE, KIND_NAMES, cases, load_expect, load_verdicts

REPO = HERE.parents[2]
VERDICTS = {"right", "partly", "wrong"}


def _urls_under(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*.toml"))


def test_at_least_forty_cases_each_complete() -> None:
    slugs = cases()
    assert len(slugs) >= 40
    for slug in slugs:
        d = HERE / "cases" / slug
        assert (d / "input.txt").read_text(encoding="utf-8").strip(), slug
        assert (d / "first-run.txt").is_file() and (d / "first-run.json").is_file(), slug
        e = load_expect(slug)
        assert e["written_before_run"] is True
        assert e["url"].startswith("https://github.com/"), slug
        assert e["plan"]["steps"] and e["plan"]["wrong_if"] and e["plan"]["pins_checked"], slug


def test_sources_are_new_and_distinct() -> None:
    urls = [load_expect(s)["url"] for s in cases()]
    assert len(urls) == len(set(urls))
    elsewhere = _urls_under(REPO / "tests" / "real") + _urls_under(REPO / "tests" / "pasted" / "cases")
    assert [u for u in urls if u in elsewhere] == []


def test_every_case_has_a_known_verdict() -> None:
    verdicts = load_verdicts()
    assert set(verdicts) == set(cases())
    for slug, v in verdicts.items():
        assert v["verdict"] in VERDICTS, slug
        assert v["diagnosis"] in {"right", "partly", "wrong", "missed"}, slug
        assert v["reason"].strip(), slug
        assert set(v["kinds"]) <= set(KIND_NAMES), slug
        assert v["verdict"] == "right" or v["kinds"], slug


def test_results_file_matches_the_verdicts() -> None:
    text = (HERE / "RESULTS.md").read_text(encoding="utf-8")
    verdicts = load_verdicts()
    right = sum(v["verdict"] == "right" for v in verdicts.values())
    assert f"First run: {right} of {len(verdicts)} plans right" in text
    for slug in cases():
        assert f"`{slug}`" in text


def test_the_after_fix_run_is_judged_for_every_case() -> None:
    after = load_verdicts(table="after")
    assert set(after) == set(cases())
    for slug in cases():
        assert (HERE / "cases" / slug / "after-27.txt").is_file(), slug
        assert after[slug]["verdict"] in VERDICTS and set(after[slug].get("kinds", [])) <= set(KIND_NAMES), slug
    right = sum(v["verdict"] == "right" for v in after.values())
    assert f"After fixes: {right} of {len(after)} plans right" in (HERE / "RESULTS-AFTER.md").read_text(encoding="utf-8")


def test_results_tool_refuses_a_folder_that_is_no_set(tmp_path):
    """`--help` prints usage and a folder without cases/ is a usage error, not a traceback nor a RESULTS.md
    written into a folder named after the option (the tool once read `--help` as the set's folder)."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[3]
    run = [sys.executable, "-m", "tests.blind.plans.results"]
    helped = subprocess.run([*run, "--help"], cwd=repo, capture_output=True, text=True, timeout=60, check=False)
    assert (helped.returncode, helped.stdout.startswith("usage:")) == (0, True)
    refused = subprocess.run([*run, str(tmp_path)], cwd=repo, capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode == 2
    assert "Traceback" not in refused.stderr
    assert list(tmp_path.iterdir()) == []
