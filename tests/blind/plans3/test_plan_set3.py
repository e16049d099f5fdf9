"""The third blind plan set is whole before anyone runs gpudoctor on it: every case in cases/ (both
collectors' ranges) has its paste and an expectation written from the thread (written_before_run), says
what kind of evidence the paste is (fine / ask / broken) and plans accordingly, comes from a thread no
other file under tests/ names, and every pin its plan claims a dry run for is in the set's pin-check
record. First runs and verdicts come after the expectations are committed (tools/blind_run.py); they are
not required here."""

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
EVIDENCE = {"fine", "ask", "broken"}
# Each collector's range of case numbers and the least number of cases it committed to.
RANGES = {"A (h57, frameworks and NVIDIA)": (201, 229, 22), "B (h58, application projects)": (231, 259, 22)}


def _cases() -> dict[str, dict]:
    return {p.parent.name: tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted((HERE / "cases").glob("*/expect.toml"))}


def _steps(plan: dict) -> list[str]:
    out = list(plan["steps"])
    for alt in plan.get("alternatives", []):
        out.extend([alt] if isinstance(alt, str) else alt)
    return out


def test_every_case_has_its_paste_and_an_expectation_written_before_the_run() -> None:
    cases = _cases()
    assert cases
    assert {d.name for d in (HERE / "cases").iterdir() if d.is_dir()} == set(cases)
    for slug, e in cases.items():
        assert SLUG.match(slug), slug
        assert (HERE / "cases" / slug / "input.txt").read_text(encoding="utf-8").strip(), slug
        assert e["written_before_run"] is True, slug
        assert all(isinstance(e[f], str) and e[f].strip() for f in TEXT_FIELDS), slug
        assert e["url"].startswith("https://github.com/") and "/issues/" in e["url"], slug
        assert e["evidence"] in EVIDENCE, slug
        plan = e["plan"]
        assert plan["steps"] and all(isinstance(s, str) and s.strip() for s in plan["steps"]), slug
        assert all(isinstance(a, str) or (a and all(isinstance(s, str) for s in a)) for a in plan["alternatives"]), slug
        assert plan["wrong_if"] and plan["pins_checked"], slug


def test_each_collector_filled_its_range() -> None:
    numbers = [int(slug[:3]) for slug in _cases()]
    for name, (low, high, least) in RANGES.items():
        assert sum(low <= n <= high for n in numbers) >= least, name


def test_the_plan_follows_the_kind_of_evidence() -> None:
    """fine: nothing to change (a control, its plan starts with 'none'); ask: the commands that collect
    what decides; broken: a fix. Only controls start their plan with 'none'."""
    for slug, e in _cases().items():
        assert (e["evidence"] == "fine") == e["plan"]["steps"][0].startswith("none"), slug


def test_the_set_has_enough_of_each_kind_of_evidence() -> None:
    counts = {kind: 0 for kind in EVIDENCE}
    for e in _cases().values():
        counts[e["evidence"]] += 1
    assert counts["fine"] >= 8, counts
    assert counts["ask"] >= 4, counts
    assert counts["broken"] >= 8, counts


def test_sources_are_distinct_and_named_nowhere_else_under_tests() -> None:
    urls = {slug: e["url"] for slug, e in _cases().items()}
    assert len(set(urls.values())) == len(urls)
    elsewhere = "\n".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in TESTS.rglob("*")
        if p.is_file() and HERE not in p.parents and p.suffix in {".toml", ".txt", ".md", ".py", ".json", ".yaml", ".yml"}
    )
    # jax-ml/jax was google/jax: a thread may be named under either spelling
    spellings = {slug: {u, u.replace("github.com/jax-ml/jax/", "github.com/google/jax/")} for slug, u in urls.items()}
    assert {slug: sorted(s) for slug, s in spellings.items() if any(u in elsewhere for u in s)} == {}


def test_every_pin_a_plan_claims_a_dry_run_for_is_in_the_pin_record() -> None:
    record = "\n".join(p.read_text(encoding="utf-8") for p in sorted(HERE.glob("pins*.txt")))
    missing = []
    claimed = 0
    for slug, e in _cases().items():
        if not any("dry run" in line for line in e["plan"]["pins_checked"]):
            continue
        claimed += 1
        for step in _steps(e["plan"]):
            missing += [(slug, f"{name}=={ver}") for name, ver in PIN.findall(step) if f"{name}=={ver}" not in record]
    assert claimed
    assert missing == []
