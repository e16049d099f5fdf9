"""docs/findings pages show what the tool prints.

Each page's "What gpudoctor prints" section is exactly what gpudoctor prints for that finding on the
example the page names (tests/findings_pages.py; `python -m tests.findings_pages` rewrites them), and
every finding code that prints commands on any recorded machine has such an example.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from tests.findings_pages import EXAMPLES, PAGES, page_section, section

TESTS = Path(__file__).resolve().parent
PAGE_CODES = sorted(p.stem for p in PAGES.glob("*.md"))


def _codes_with_commands() -> set[str]:
    out = set()
    for path in sorted(
        [
            *TESTS.glob("machines/*/snapshot.json"),
            *TESTS.glob("machines/*/snapshot.json.gz"),
            *TESTS.glob("real/*/snapshot.json"),
            *TESTS.glob("cli/machines/*.json"),
        ]
    ):
        for f in diagnose(ReplayHost(load_snapshot(str(path)))).findings:
            if f.remediation and f.remediation.commands:
                out.add(f.code)
    return out


def test_every_code_that_prints_commands_has_a_page_example():
    missing = sorted(_codes_with_commands() - set(EXAMPLES))
    assert not missing, f"add an example to tests/findings_pages.py EXAMPLES for {missing}"
    assert set(EXAMPLES) <= set(PAGE_CODES), sorted(set(EXAMPLES) - set(PAGE_CODES))


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_page_shows_what_the_tool_prints(code):
    text = (PAGES / f"{code}.md").read_text(encoding="utf-8")
    assert page_section(text) == section(code), f"docs/findings/{code}.md is stale: python -m tests.findings_pages"


@pytest.mark.parametrize("code", sorted(set(PAGE_CODES) - set(EXAMPLES)))
def test_pages_without_an_example_show_no_commands(code):
    text = (PAGES / f"{code}.md").read_text(encoding="utf-8")
    assert page_section(text) is None, (
        f"docs/findings/{code}.md shows printed commands but has no example in tests/findings_pages.py"
    )


@pytest.mark.parametrize("code", PAGE_CODES)
def test_pages_cite_no_path_of_the_repository_a_user_lacks(code):
    """Issue 31, item 9: the pages ship in the package (`gpudoctor explain`); a pipx user has no tests/ to open."""
    text = (PAGES / f"{code}.md").read_text(encoding="utf-8")
    assert "tests/" not in text
