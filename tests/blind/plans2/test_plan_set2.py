"""The second blind plan set is whole before anyone runs gpudoctor on it: every case has its paste and an
expectation written from the thread (written_before_run), comes from a thread no other file under tests/
names, and every pin its plan claims a dry run for is in the set's pin-check record. First runs and
verdicts are not required here: they come after the expectations are committed (tools/blind_run.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the tomli backport (a dependency with a marker)
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent.parent
SLUG = re.compile(r"^\d{3}-[a-z0-9][a-z0-9-]*$")
# name==version in a command; a local version (+cu118) lives on the PyTorch or JAX index, which the dry
# runs cannot reach, so those are checked against shared/reference and said so in pins_checked.
PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*)(?:\[[^\]]*\])?==([0-9][0-9A-Za-z.*]*)(?![0-9A-Za-z.+])")
TEXT_FIELDS = ("url", "title", "kind", "platform", "diagnosis", "fixed_by")


def _cases() -> dict[str, dict]:
    return {p.parent.name: tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted((HERE / "cases").glob("*/expect.toml"))}


def _steps(plan: dict) -> list[str]:
    out = list(plan["steps"])
    for alt in plan.get("alternatives", []):
        out.extend([alt] if isinstance(alt, str) else alt)
    return out


def test_every_case_has_its_paste_and_an_expectation_written_before_the_run() -> None:
    cases = _cases()
    assert len(cases) >= 22
    for slug, e in cases.items():
        assert SLUG.match(slug), slug
        assert (HERE / "cases" / slug / "input.txt").read_text(encoding="utf-8").strip(), slug
        assert e["written_before_run"] is True, slug
        assert all(isinstance(e[f], str) and e[f].strip() for f in TEXT_FIELDS), slug
        assert e["url"].startswith("https://github.com/") and "/issues/" in e["url"], slug
        plan = e["plan"]
        assert plan["steps"] and all(isinstance(s, str) and s.strip() for s in plan["steps"]), slug
        assert all(isinstance(a, str) or (a and all(isinstance(s, str) for s in a)) for a in plan["alternatives"]), slug
        assert plan["wrong_if"] and plan["pins_checked"], slug


def test_sources_are_distinct_and_named_nowhere_else_under_tests() -> None:
    urls = {slug: e["url"] for slug, e in _cases().items()}
    assert len(set(urls.values())) == len(urls)
    elsewhere = "\n".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in TESTS.rglob("*")
        if p.is_file() and HERE not in p.parents and p.suffix in {".toml", ".txt", ".md", ".py", ".json", ".yaml", ".yml"}
    )
    assert {slug: u for slug, u in urls.items() if u in elsewhere} == {}


def test_false_alarm_controls_expect_no_plan() -> None:
    controls = {slug: e for slug, e in _cases().items() if e["kind"].startswith("none")}
    assert len(controls) >= 3
    for slug, e in controls.items():
        assert e["plan"]["steps"][0].startswith("none"), slug


def test_every_pin_a_plan_claims_a_dry_run_for_is_in_the_pin_record() -> None:
    record = "\n".join(p.read_text(encoding="utf-8") for p in sorted(HERE.glob("pins*.txt")))
    missing = []
    for slug, e in _cases().items():
        if not any("dry run" in line for line in e["plan"]["pins_checked"]):
            continue
        for step in _steps(e["plan"]):
            missing += [(slug, f"{name}=={ver}") for name, ver in PIN.findall(step) if f"{name}=={ver}" not in record]
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
