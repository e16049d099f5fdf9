"""The real `gpudoctor` app: every documented command and subcommand is registered and answers --help and -h.

The list below is written by hand from README.md and docs/ (one line per page that documents the command):
a command dropped from gpudoctor.cli._register, or a new one nobody documented here, fails this test. It runs
gpudoctor.cli.main, the console script's own entry point, so the help is what a user sees.
"""

from __future__ import annotations

import pytest
import typer

from gpudoctor import cli
from tests.conftest import real_app

# --help of every command is click's rendering: run under the oldest and newest typer and rich too
# (tests/packaging/test_dependency_range.py).
pytestmark = pytest.mark.typer_rich

DOCUMENTED = {
    ("check",): "README.md, docs/exit-codes.md",
    ("snapshot",): "docs/snapshot-format.md",
    ("explain",): "docs/findings/",
    ("matrix",): "docs/matrix.md",
    ("matrix", "show"): "docs/matrix.md",
    ("matrix", "check"): "docs/matrix.md",
    ("switch-cuda",): "docs/switch-cuda.md",
    ("install",): "docs/install.md",
    ("fix",): "docs/install.md",
    ("bench",): "docs/bandwidth.md",
    ("bench", "bandwidth"): "docs/bandwidth.md",
    ("report",): "docs/cluster.md",
    ("report", "merge"): "docs/cluster.md",
    ("memory",): "docs/memory.md",
    ("memory", "plan"): "docs/memory.md",
    ("completion",): "docs/completion.md",
}


def _commands(command, prefix=()):
    for name, sub in getattr(command, "commands", {}).items():
        yield (*prefix, name)
        yield from _commands(sub, (*prefix, name))


def test_the_real_app_registers_exactly_the_documented_commands():
    registered = set(_commands(typer.main.get_command(real_app())))
    assert registered == set(DOCUMENTED), (
        f"not registered: {sorted(set(DOCUMENTED) - registered)}; undocumented: {sorted(registered - set(DOCUMENTED))}"
    )


@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("path", sorted(DOCUMENTED), ids=" ".join)
def test_every_command_answers_help(path, flag, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main([*path, flag])
    out = capsys.readouterr().out
    assert exit_.value.code == 0, out
    assert out.startswith(f"Usage: gpudoctor {' '.join(path)} "), out[:200]
    group = typer.main.get_command(real_app())
    for name in path:
        group = group.commands[name]
    # A group's help lists each of its subcommands.
    for sub in getattr(group, "commands", {}):
        assert f"  {sub} " in out or f"  {sub}\n" in out, (sub, out)


def test_the_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    for (name,) in (p for p in DOCUMENTED if len(p) == 1):
        assert f"  {name} " in out or f"  {name}\n" in out, (name, out)
