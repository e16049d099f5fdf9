"""Docs stay true to the code: one page per finding code, and `explain` finds each."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.checks import all_codes
from gpudoctor.cli.explain import finding_page

ROOT = Path(__file__).resolve().parents[2]


def test_one_page_per_code_and_no_orphans():
    pages = {p.stem for p in (ROOT / "docs" / "findings").glob("*.md")}
    assert pages == set(all_codes())


def test_explain_reads_every_page_and_rejects_odd_names():
    for code in all_codes():
        page = finding_page(code)
        assert page is not None and page.startswith(f"# `{code}`"), code
    assert finding_page("../README") is None
    assert finding_page("no-such-code") is None


def test_readme_keeps_exactly_the_two_setup_commands():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("```", 2)[1]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make run", "make test"]
    makefile = (ROOT / "Makefile").read_text()
    assert "\nrun:" in makefile and "\ntest:" in makefile
