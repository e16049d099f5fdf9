"""planner.deciders.shown: a command told in prose (after a placeholder the evidence cannot fill) is written by the one
quoting layer, so what a person copies runs as printed; a word no shell can hold stays prose (no traceback)."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd, Placeholder, render
from gpudoctor.planner.deciders import shown


@pytest.mark.parametrize("hostile", ["$(touch /tmp/x)", "\\';touch x;#", "a|b", "`id`"])
def test_a_hostile_word_is_quoted_as_the_plan_quotes_it(hostile):
    line = Cmd(("grep", "-E", hostile), pipe=("wc", "-l"))
    assert shown(line) == render(line, "posix")


def test_a_placeholder_keeps_its_name_unquoted():
    assert shown(Cmd(("kubectl", "rollout", "status", Placeholder("deployment")))) == "kubectl rollout status <deployment>"


@pytest.mark.parametrize("word", ["a\nb", "e\x1b[31m"])
def test_a_word_no_shell_can_hold_is_prose_with_its_pipe(word):
    assert shown(Cmd(("grep", "-E", word), pipe=("wc", "-l"), note="n")) == f"grep -E {word} | wc -l (n)"
