"""The text view's own console (gpudoctor.render.textconsole) against rich, which it replaced in `check`.

rich stays installed (the memory, bench and explain views use it), so it is the reference here: the markup
rules, the escaping, the wrapping and the whole view of every recorded machine must come out the same as
through rich's Console and Text.wrap, which is what `check` printed before. One difference is on purpose:
rich turns `:fire:`-style codes into emoji, and machine data must be shown as it is, so the reference runs
with emoji off.
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from rich.markup import escape as rich_escape
from rich.text import Text

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.render import terminal
from gpudoctor.render.textconsole import TextConsole, escape, parse, rstrip, wrap
from gpudoctor.sanitize import clean

TESTS = Path(__file__).resolve().parents[1]
EVERY_MACHINE = sorted((TESTS / "machines").glob("*/snapshot.json")) + sorted((TESTS / "real").glob("*/snapshot.json"))


def _rich_say(console, markup: str, indent: str = "", hang: int = 0) -> None:
    """What `say` was with rich (before gpudoctor.render.textconsole), emoji codes left alone."""
    text = Text.from_markup(terminal.fit(console, clean(markup)), emoji=False)
    width = max(console.width - len(indent) - hang, terminal._MIN_TEXT)
    for i, line in enumerate(text.wrap(console, width, overflow="fold")):
        line.rstrip()
        console.print(Text(indent + (" " * hang if i else "")) + line, soft_wrap=True, highlight=False)


def _plain(text: str) -> str:
    return "".join(t for t, _ in parse(text))


def test_every_recorded_machine_reads_the_same_as_through_rich(monkeypatch):
    differ = []
    for path in EVERY_MACHINE:
        report = diagnose(ReplayHost(load_snapshot(str(path))))
        for width in (60, 80, 120):
            ours = io.StringIO()
            terminal.render_terminal(report, TextConsole(ours, width=width, styled=False), verbose=True)
            theirs = io.StringIO()
            with monkeypatch.context() as m:
                m.setattr(terminal, "say", _rich_say)
                console = Console(file=theirs, width=width, color_system=None, legacy_windows=False, emoji=False)
                terminal.render_terminal(report, console, verbose=True)
            if ours.getvalue() != theirs.getvalue():
                differ.append(f"{path.parent.name} at {width}")
    assert len(EVERY_MACHINE) > 60
    assert differ == []


# Text that exercises the markup and wrapping rules: brackets that are and are not tags, backslashes,
# long words, several spaces, tabs, wide characters, a lone backslash at the end.
_PIECES = [
    "word", "a", "[bold]", "[/]", "[dim]x[/dim]", "[not a tag", "[1]", "[x]", "\\", "\\\\", "\\[bold]", "  ", "\t",
    "supercalifragilisticexpialidocious", "/usr/local/cuda-12.4/targets/x86_64-linux/lib", "驱动程序", "版本",
    "GPU:", "×", "✓", "café", "e\u0301", "-", "x" * 45, "\n",
]  # fmt: skip


def _random_texts(n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    return [" ".join(rnd.choice(_PIECES) for _ in range(rnd.randint(0, 14))) for _ in range(n)]


def test_escape_reads_back_as_the_same_text_in_both_and_matches_richs_escape():
    for raw in _random_texts(600, 1):
        assert escape(raw) == rich_escape(raw)
        assert _plain(escape(raw)) == Text.from_markup(rich_escape(raw), emoji=False).plain
        if not raw.endswith("\\"):  # (a trailing backslash is doubled, so that a tag after it stays a tag)
            assert _plain(escape(raw)) == raw


def test_markup_gives_the_same_text_and_styles_as_rich():
    samples = ["[bold]A[/bold] b [dim](c)[/dim]", "[red bold]✗ x[/] [bold]T[/bold]: s", "[green]ok[/]", "a \\[bold] b"]
    for markup in samples:
        text = Text.from_markup(markup, emoji=False)
        ours = parse(markup)
        assert "".join(t for t, _ in ours) == text.plain
        # The style each character has: rich's spans against ours.
        theirs: list[set[str]] = [set() for _ in text.plain]
        for span in text.spans:
            for i in range(span.start, span.end):
                theirs[i] |= set(str(span.style).split())
        assert [set(s.split()) for t, s in ours for _ in t] == theirs, markup


@pytest.mark.parametrize("width", [1, 2, 5, 10, 17, 24, 40, 80])
def test_wrapping_breaks_where_rich_breaks(width):
    console = Console(width=200, color_system=None, legacy_windows=False)
    for raw in _random_texts(300, width):
        markup = escape(raw)
        theirs = [line.plain for line in Text.from_markup(markup, emoji=False).wrap(console, width, overflow="fold")]
        ours = ["".join(t for t, _ in line) for line in wrap(parse(markup), width)]
        assert ours == theirs, (raw, width)


def test_rstrip_drops_trailing_space_across_segments():
    assert rstrip([("ab", ""), (" c  ", "bold"), ("   ", "dim")]) == [("ab", ""), (" c", "bold")]


def test_styles_reach_a_terminal_and_nothing_else():
    def shown(environ: dict, tty: bool) -> str:
        class Stream(io.StringIO):
            def isatty(self) -> bool:
                return tty

        out = Stream()
        TextConsole(out, width=80, environ=environ).print("[red bold]✗ broken[/] [dim](code)[/dim]")
        return out.getvalue()

    assert shown({}, tty=True) == "\x1b[1;31m✗ broken\x1b[0m \x1b[2m(code)\x1b[0m\n"
    # NO_COLOR (no-color.org): no colours, the emphasis stays, as rich does.
    assert shown({"NO_COLOR": "1"}, tty=True) == "\x1b[1m✗ broken\x1b[0m \x1b[2m(code)\x1b[0m\n"
    assert shown({"TERM": "dumb"}, tty=True) == "✗ broken (code)\n"
    assert shown({}, tty=False) == "✗ broken (code)\n"  # a pipe or a file: plain text
    assert shown({"FORCE_COLOR": "1"}, tty=False).startswith("\x1b[1;31m")


def test_machine_data_cannot_open_a_tag_or_reach_the_terminal():
    out = io.StringIO()
    console = TextConsole(out, width=80, styled=True)
    name = "[red]x[/red] \x1b]52;c;Y3Vyb2wK\x07"  # a tag and an OSC 52 clipboard write, as a GPU name
    terminal.say(console, "GPU name: " + escape(name))
    assert out.getvalue() == "GPU name: [red]x[/red] \\x1b]52;c;Y3Vyb2wK\\x07\n"


def test_the_width_is_columns_then_the_terminal_then_80():
    assert TextConsole(io.StringIO(), environ={"COLUMNS": "132"}).width == 132
    assert TextConsole(io.StringIO(), environ={"COLUMNS": "zero"}).width >= 1


def test_a_check_in_text_loads_no_rich():
    # The reason this console exists (bench/README.md: rich was about a fifth of a check): keep it so.
    snapshot = str(TESTS / "machines" / "h100x8-driver565-torch221-cu121" / "snapshot.json")
    code = (
        "import sys\n"
        f"sys.argv = ['gpudoctor', 'check', '--replay', {snapshot!r}]\n"
        "from gpudoctor.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('RICH', sorted(m for m in sys.modules if m == 'rich' or m.startswith('rich.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "No problems found." in done.stdout
    assert done.stdout.rstrip().splitlines()[-1] == "RICH []", done.stdout[-500:]


def test_a_combining_mark_takes_no_cell_from_the_first_one_on():
    # U+0300 (combining grave) is the first combining mark: "è" written as e + U+0300 is one cell, as rich counts it.
    from rich.cells import cell_len

    from gpudoctor.render.textconsole import cells

    for text in ("e\u0300", "e\u0301", "\u02ff"):
        assert cells(text) == cell_len(text), text


def test_columns_of_zero_is_no_width():
    # COLUMNS=0 (an unset terminal in some CI runners) must not make every word its own line.
    assert TextConsole(io.StringIO(), environ={"COLUMNS": "0"}).width >= 1
    assert TextConsole(io.StringIO(), environ={"COLUMNS": "0"}).width != 0


def test_a_windows_console_without_escape_processing_gets_plain_text(monkeypatch):
    # A Windows console that cannot turn on escape processing (before Windows 10) would print the codes raw.
    from gpudoctor.render import textconsole

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(textconsole.sys, "platform", "win32")
    monkeypatch.setattr(textconsole, "_windows_vt", lambda file: False)
    out = Tty()
    TextConsole(out, width=80, environ={}).print("[bold]x[/bold]")
    assert out.getvalue() == "x\n"
    monkeypatch.setattr(textconsole, "_windows_vt", lambda file: True)
    out = Tty()
    TextConsole(out, width=80, environ={}).print("[bold]x[/bold]")
    assert out.getvalue() == "\x1b[1mx\x1b[0m\n"


def test_closing_an_outer_tag_keeps_the_inner_one_open_as_rich_does():
    markup = "[bold][dim]x[/bold]y[/dim] z"
    assert parse(markup) == [("x", "bold dim"), ("y", "dim"), (" z", "")]
    spans = Text.from_markup(markup).spans
    assert sorted((s.start, s.end, str(s.style)) for s in spans) == [(0, 1, "bold"), (0, 2, "dim")]


def test_a_terminal_that_reports_no_size_is_80_wide(monkeypatch):
    # A pty nobody sized (some CI runners, `script`) reports 0 columns: rich and this console take 80.
    from gpudoctor.render import textconsole

    monkeypatch.setattr(textconsole.os, "get_terminal_size", lambda fd: os.terminal_size((0, 0)))
    assert TextConsole(io.StringIO(), environ={}).width == 80


def test_text_printed_whole_keeps_its_own_line_breaks():
    # soft_wrap (a command to copy, a requirement line) is never wrapped, but a newline in it is still a new line.
    out = io.StringIO()
    TextConsole(out, width=10, styled=False).print("[dim]first line that is long\nsecond[/dim]", soft_wrap=True)
    assert out.getvalue() == "first line that is long\nsecond\n"
