"""docs/findings pages show what the tool prints: every line of a page's "What gpudoctor prints" block
is printed by `gpudoctor check` on some recorded machine that has that finding, and every code that
prints commands on a recorded machine has such a block."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

from gpudoctor.cmdline import shell_for_os
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "findings"
TESTS = Path(__file__).resolve().parent
HEADING = "## What gpudoctor prints"
_FENCE = re.compile(r"```[a-z]*\n(.*?)```", re.S)


@lru_cache(maxsize=1)
def printed_by_code() -> dict[str, set[str]]:
    """code -> every command line its remediation renders on any recorded machine, for that machine's shell."""
    out: dict[str, set[str]] = {}
    for path in sorted([*TESTS.glob("machines/*/snapshot.json"), *TESTS.glob("real/*/snapshot.json"), *TESTS.glob("cli/machines/*.json")]):
        report = diagnose(ReplayHost(load_snapshot(str(path))))
        target = shell_for_os(report.facts.platform.system)
        for f in report.findings:
            lines = out.setdefault(f.code, set())
            if f.remediation:
                lines.update(line.strip() for line in f.remediation.lines(target))
    return out


def _block(page: Path) -> list[str] | None:
    text = page.read_text(encoding="utf-8")
    if HEADING not in text:
        return None
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    blocks = _FENCE.findall(section)
    return [line.strip() for b in blocks for line in b.splitlines() if line.strip()]


PAGE_CODES = sorted(p.stem for p in PAGES.glob("*.md"))


@pytest.mark.parametrize("code", PAGE_CODES)
def test_page_shows_what_the_tool_prints(code):
    lines = _block(PAGES / f"{code}.md")
    printed = printed_by_code().get(code, set())
    if lines is None:
        assert not printed, f"docs/findings/{code}.md needs a '{HEADING}' section: the tool prints commands for it"
        return
    assert lines, f"docs/findings/{code}.md: the '{HEADING}' section has no fenced block"
    missing = [line for line in lines if line not in printed]
    assert not missing, (
        f"docs/findings/{code}.md shows lines no recorded machine prints for {code}: {missing}\n"
        f"printed: {sorted(printed)[:12]}"
    )
