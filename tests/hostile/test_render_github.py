"""`--format github` with hostile machine data: no line a GitHub runner would take for a command
other than the annotations gpudoctor means, and a step summary whose tables and HTML stay gpudoctor's.

The runner's rules (actions/runner, src/Runner.Worker/ActionCommandManager.cs and
src/Runner.Common/ActionCommand.cs): a line is a command when, after leading blanks, it starts with
`::`, or (legacy form) when it holds `##[` anywhere; the data of a command is unescaped %0D -> CR,
%0A -> LF, %25 -> %.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpudoctor.checks.requirements import Outcome, Requirement
from gpudoctor.cmdline import Cmd
from gpudoctor.model import Evidence, ExitCode, Finding, Remediation, Report, Severity
from gpudoctor.render.github import _cell, _code, render_github, render_github_error, render_github_summary
from gpudoctor.sanitize import clean
from tests.hostile.strings import HOSTILE

_INTENDED = re.compile(r"::(error|warning|notice) title=([a-z0-9-]+)::([^\r\n]*)\Z")


def unescape_data(text: str) -> str:
    """As the runner's ActionCommand.UnescapeData does, in its order."""
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def facts(gpu_name: str, version: str = "550.54.14") -> SimpleNamespace:
    return SimpleNamespace(
        driver=SimpleNamespace(gpus=[SimpleNamespace(name=gpu_name)], version=version, cuda_version="12.4"),
        frameworks=SimpleNamespace(torch=None, tensorflow=None, jax=None),
    )


def hostile_report(h: str) -> tuple[Report, list[Outcome]]:
    fix = Remediation(f"reinstall {h}", (Cmd(("pip", "install", h)), Cmd(("nvidia-smi", "-i", "0"))), component="torch")
    findings = [
        Finding("torch-cuda-mismatch", Severity.ERROR, "frameworks", h, f"detail: {h}", (Evidence(h, h),), fix),
        Finding("gpu-memory-held", Severity.WARNING, "memory", f"held by {h}", h),
        Finding("driver-old", Severity.INFO, "driver", "note", h),
    ]
    unmet = Finding("requirement-unmet", Severity.ERROR, "driver", f"requirement not met: {h}", f"found: {h}")
    outcomes = [
        Outcome(Requirement(spec=h, name="gpu", kind="gpu"), True, h),
        Outcome(Requirement(spec=f"driver>={h}", name="driver", kind="driver"), False, h, unmet),
    ]
    return Report(facts(h, h), findings + [unmet], "replay"), outcomes


INTENDED_CODES = {"torch-cuda-mismatch", "gpu-memory-held", "driver-old", "requirement-unmet", "gpudoctor-failed"}


def assert_no_forged_command(out: str) -> list[str]:
    """Every line a runner could read: an intended annotation, or a plain `gpudoctor: ` log line."""
    messages = []
    # str.splitlines breaks at more characters than the runner's reader (CR, LF, CRLF): stricter.
    for line in out.splitlines():
        if line.lstrip().startswith("::"):
            m = _INTENDED.match(line)
            assert m is not None, f"not an intended command: {line!r}"
            assert m.group(2) in INTENDED_CODES, line
            messages.append(unescape_data(m.group(3)))
        else:
            assert line.startswith("gpudoctor: "), f"data started a line: {line!r}"
            assert "##[" not in line, f"legacy command in a log line: {line!r}"
    return messages


@pytest.mark.parametrize("h", HOSTILE)
def test_hostile_data_forges_no_workflow_command(h):
    report, outcomes = hostile_report(h)
    out = render_github(report, outcomes, ExitCode.FINDINGS)
    messages = assert_no_forged_command(out)
    assert len(messages) == 4  # the four findings, nothing more
    # Shown, not dropped: the annotation holds the title as the sanitizer shows it.
    assert messages[0].startswith(clean(h) + "\n"), messages[0]
    assert not any(c in out for c in "\x1b\x07\x00\x9b\u202e")


@pytest.mark.parametrize("h", HOSTILE)
def test_hostile_error_message_is_one_command(h):
    out = render_github_error(f"cannot read {h}", h)
    assert out.endswith("\n") and out.count("\n") == 1
    assert assert_no_forged_command(out) == [clean(f"cannot read {h}\nhint: {h}")]


def test_the_examples_of_the_issue():
    report, outcomes = hostile_report("x\n::add-mask::secret")
    out = render_github(report, outcomes, ExitCode.FINDINGS)
    assert "\n::add-mask::" not in out
    assert "gpudoctor: requirement met: x\\x0a::add-mask::secret (x\\x0a::add-mask::secret)\n" in out
    report, outcomes = hostile_report("%0A::error::")
    out = render_github(report, outcomes, ExitCode.FINDINGS)
    assert out.startswith("::error title=torch-cuda-mismatch::%250A::error::%0A")
    report, outcomes = hostile_report("##[add-mask]secret")
    assert "gpudoctor: requirement met: #\\#[add-mask]secret" in render_github(report, outcomes, ExitCode.FINDINGS)


# --- the step summary -------------------------------------------------------------------------------


def outside_code(cell: str) -> str:
    """The text of a cell outside its code spans, backslash escapes removed (GFM 2.4 and 6.1)."""
    rest, i = "", 0
    while i < len(cell):
        c = cell[i]
        if c == "\\" and i + 1 < len(cell) and not cell[i + 1].isalnum() and cell[i + 1].isascii():
            i += 2
            continue
        if c == "`":
            run = len(cell[i:]) - len(cell[i:].lstrip("`"))
            m = re.compile(r"(?<!`)" + "`" * run + r"(?!`)").search(cell, i + run)
            if m is not None:
                i = m.end()
                continue
            rest += cell[i : i + run]
            i += run
            continue
        rest += c
        i += 1
    return rest


def cells(row: str) -> list[str]:
    """A GFM table row split at its pipes, as GitHub's cmark-gfm splits it: a pipe right after a backslash
    never splits (extensions/ext_scanners.re: escaped_char = [\\][|]), code spans included (GFM 4.10)."""
    return re.split(r"(?<!\\)\|", row)[1:-1]  # the row starts and ends with a pipe


def assert_plain_cell(cell: str) -> None:
    """Outside code spans: no HTML of the data (only gpudoctor's <br>), no stray backtick, no markup."""
    rest = outside_code(cell).replace("<br>", "")
    assert "<" not in rest and ">" not in rest, cell
    for c in "`*_[]!~$\\":
        assert c not in rest, (c, cell)


def check_summary(md: str, rows: dict[str, int]) -> None:
    lines = md.split("\n")
    for header, count in rows.items():
        start = lines.index(header)
        width = len(cells(lines[start]))
        body = lines[start + 2 : start + 2 + count]
        for row in body:
            assert row.startswith("| ") and row.endswith(" |"), row
            got = cells(row)
            assert len(got) == width, row
            for cell in got:
                assert_plain_cell(cell)
        assert lines[start + 2 + count] == "", "the table has more rows than gpudoctor wrote"


@pytest.mark.parametrize("h", HOSTILE)
def test_hostile_data_keeps_the_summary_tables_and_adds_no_html(h):
    report, outcomes = hostile_report(h)
    md = render_github_summary(report, outcomes, ExitCode.FINDINGS, Severity.WARNING, node=h)
    check_summary(md, {"| | Requirement | Found |": 2, "| Severity | Code | Finding | Fix |": 4})
    assert not any(c in md for c in "\x1b\x07\x00\r\u2028\u202e\x85")
    machine = md.split("\n")[2]
    assert machine.startswith("Node `") or machine.startswith("Node ``")
    assert_plain_cell(machine.split(": ", 1)[1])


def test_summary_cells_keep_the_text_readable():
    # Each line of data a code span: literal inside (no entity, no escape needed but the table's `|`).
    assert _cell("a|b") == "`a\\|b`"
    assert _cell("<script>") == "`<script>`"
    assert _cell("two\nlines") == "`two`<br>`lines`"
    assert _cell("**x**") == "`**x**`"
    assert _code("a|b") == "`a\\|b`"
    assert _code("x`y") == "``x`y``"
    assert _code("`") == "`` ` ``"
    assert _code("a\nb") == "`a\\x0ab`"
    assert _code("a|b", in_table=False) == "`a|b`"


_ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)


@settings(max_examples=300, deadline=None)
@given(_ANY_TEXT, _ANY_TEXT)
def test_any_text_forges_nothing(a, b):
    report, outcomes = hostile_report(a + b)
    assert len(assert_no_forged_command(render_github(report, outcomes, ExitCode.FINDINGS))) == 4
    md = render_github_summary(report, outcomes, ExitCode.FINDINGS, Severity.WARNING, node=b)
    check_summary(md, {"| | Requirement | Found |": 2, "| Severity | Code | Finding | Fix |": 4})
