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


# (h245) A plan for cmd.exe or PowerShell (a Windows paste that shows neither prompt) tells a PATH line each shell
# writes its own way with both lines, each named: PowerShell's alone, unmarked, fails in cmd.exe (plans17/1708's
# reviewers). A command both shells run alike stays one line.
def test_a_path_line_for_either_windows_shell_names_each_shells_line():
    from gpudoctor.cmdline import PrependPath

    line = PrependPath("PATH", (Placeholder("cudnn-folder"), "\\bin"))
    assert shown(line, "windows") == (
        "$env:PATH = <cudnn-folder> + '\\bin' + ';' + $env:PATH (in PowerShell; in cmd.exe: set \"PATH=<cudnn-folder>\\bin;%PATH%\")"
    )
    assert shown(line, "powershell") == "$env:PATH = <cudnn-folder> + '\\bin' + ';' + $env:PATH"
    assert shown(Cmd(("where.exe", "cudnn64_8.dll")), "windows") == "where.exe cudnn64_8.dll"


@pytest.mark.parametrize(
    "case",
    [
        # (plans17's 1708, cuDNN's "Could not locate" of a sub-library, now reads first and edits no PATH:
        # gpudoctor.checks.cudnn_locate, h302)
        "plans7/cases/604-ort17510-windows-ort115-cudnn85-zlibwapi-dll-missing",
    ],
)
def test_a_windows_paste_without_a_prompt_gets_the_path_line_of_both_shells(case):
    import json
    from pathlib import Path

    from tests.hostile.test_corpus import run_cli

    paste = Path(__file__).resolve().parent.parent / "blind" / case / "input.txt"
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    doc = json.loads(out)
    (finding,) = [f for f in doc["findings"] if f["code"] == "windows-dll-missing"]
    summary = finding["remediation"]["summary"]
    assert "$env:PATH = <" in summary and 'in cmd.exe: set "PATH=<' in summary
