"""The command the reporter ran that failed, as the paste shows it: where a plan ends, the reporter resumes.

A plan that names the right cause but stops before the reporter is back at work leaves the last step unsaid (issue
27, kind 9 of the blind sets' verdicts: "no command to rerun the install, though it is known"). The paste often shows
that command: typed at a prompt, with the failure printed under it, or alone in a code block beside the error of the
program it runs. It is recorded here as a cue (facts.REPORTER_COMMAND), as typed; gpudoctor.planner.resume decides
whether it can be printed again (a plain command, split by the quoting layer) and where.

Two readings, the first that finds one wins:

- a prompt's command (gpudoctor.pasted.cues.prompt_command) whose output, up to the next prompt, holds a failure:
  the last such (the newest try). A command that only shows a file or a log (cat, tail, grep...) is not the program
  that failed, whatever its output holds.
- with no such prompt: the one `pip install` line of the paste beside pip's own error, or the one `python script.py`
  line beside a Python traceback. Two different lines of the same kind decide nothing: which one failed is unsaid.

Never raises on content; linear in the text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpudoctor.facts import REPORTER_COMMAND
from gpudoctor.pasted.cues import MAX_LINE, MAX_LINES, prompt_command

if TYPE_CHECKING:
    from gpudoctor.pasted.gathered import Gathered

# What a failed program prints: Python's traceback and exception lines, pip's and a compiler's `ERROR:`/`error:`,
# a tool's "failed", the shell's own "Segmentation fault" and "Killed"; pip's "Could not install packages due to an ..."
# as older pip printed it, with no "ERROR:" before it (tests/blind/plans13/cases/1303-*, January 2019). (A shell's
# "command not found" is not one: the program is missing, an aside on the way to the one that failed.)
_FAILED = re.compile(
    r"Traceback \(most recent call last\)|^\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception)\b|^\s*ERROR\b|\berror:"
    r"|^\s*Could not install packages due to an\b"
    r"|\b(?:[Ff]ailed|FAILED)\b|Segmentation fault|core dumped|^\s*Killed\s*$"
)
# A program's name as a shell reads it: a lower-case word or a path (never prose's capitalised first word, "Note:").
_PROGRAM = re.compile(r"^(?:[\w.~:-]*[\\/])*[a-z0-9_][\w.+-]*$")
# A `# ` line is a root prompt or a comment: only a program a report runs (or a path, a script) makes it a prompt.
_ROOT_PROGRAMS = re.compile(
    r"^(?:python[\d.]*|pip[\d.]*|nvidia-\S+|nvcc|docker|podman|conda|mamba|apt(?:-get)?|dnf|yum|modprobe|make|cmake"
    r"|\S*[\\/]\S*|\S+\.(?:py|sh|bat|exe))$"
)
# Interpreters alone start a session: their prompt's output is typed into, not one run to do again.
_SESSIONS = frozenset({"python", "python3", "py", "ipython", "bash", "sh", "powershell", "cmd"})
# Commands that show a file, a log or a listing (their output is what they read, not their own failure), and those that
# start or stop a service (a step on the way, not the program that failed).
_READERS = frozenset(
    {"cat", "type", "less", "more", "head", "tail", "grep", "egrep", "dmesg", "journalctl", "echo", "ls", "service", "systemctl"}
)
# A prompt's output is read this far: a failure further down belongs to something else the paste shows.
_OUTPUT_LINES = 200

_PIP_LINE = re.compile(
    r"^\s*(?:sudo\s+)?(?P<cmd>(?:pip[\d.]*|(?:[\w.~:-]*[\\/])*python[\d.]*(?:\.exe)?\s+-m\s+pip|py(?:\s+-[\d.]+)?\s+-m\s+pip)"
    r"\s+install\s+[^\n]*)$"  # (greedy to the end: the words are split again, trailing blanks and all)
)
# pip's own failure lines (pip src/pip/_internal/cli/base_command.py and exceptions.py: "ERROR: Could not install
# packages due to an OSError", "ERROR: No matching distribution found for", "ERROR: Could not find a version that
# satisfies the requirement"; a build's "error: subprocess-exited-with-error").
# (`[ \t]*`, not `\s*`: under re.M a `\s*` after `^` runs on across blank lines from every line start, which is
# quadratic in a flood of them: tests/hostile/test_pasted_linear.py.)
# (older pip printed the first without "ERROR:", as _FAILED's note says)
_PIP_ERROR = re.compile(
    r"^[ \t]*ERROR: (?:Could not|No matching distribution)|^[ \t]*error: subprocess-exited-with-error"
    r"|^[ \t]*(?:\*\*)?Could not install packages due to an\b",
    re.M,
)
_SCRIPT_LINE = re.compile(r"^\s*(?P<cmd>(?:[\w.~:-]*[\\/])*python[\d.]*(?:\.exe)?\s+(?:-u\s+)?[\w.~:\\/-]+\.py(?:\s+[^\n]*)?)$")


def read_failing_command(g: Gathered, text: str) -> None:
    """Record in `g` the command of `text` (one source) that failed, where it shows one (the module's two readings)."""
    lines = [line[:MAX_LINE] for line in text.splitlines()[:MAX_LINES]]
    found = _at_prompt(lines) or _in_block(lines, text)
    if found is None:
        return
    shell, cmd, line = found
    entry = {"cue": REPORTER_COMMAND, "means": cmd.strip()[:300], "line": line.strip()[:300], "shell": shell}
    g.cues = [c for c in g.cues if c.get("cue") != REPORTER_COMMAND]  # a later source's is the newer try
    if len(g.cues) < 64:
        g.cues.append(entry)


def _at_prompt(lines: list[str]) -> tuple[str, str, str] | None:
    """(shell, command, its line) of the last prompt whose output holds a failure."""
    last = None
    pending: tuple[str, str, str] | None = None
    since = 0
    for line in lines:
        if line.lstrip().startswith("```"):
            pending = None  # a code block ends: what follows is no longer that command's output
            continue
        typed = prompt_command(line)
        if typed is not None:
            shell, cmd = typed
            pending = (shell, cmd, line) if _a_program_run(cmd, root=line.lstrip().startswith("#")) else None
            since = 0
            continue
        since += 1
        if pending is not None and since <= _OUTPUT_LINES and _FAILED.search(line):
            last, pending = pending, None
    return last


def _a_program_run(cmd: str, root: bool) -> bool:
    """Whether a prompt's `cmd` runs a program that can fail on its own (not a reader of files or logs, not a bare
    interpreter's session, not a comment after `# `), in printable ASCII (prose run on after it is not its words)."""
    words = cmd.split()
    if words[:1] == ["sudo"]:
        words = words[1:]
    if not words or not cmd.isascii() or not cmd.isprintable() or not _PROGRAM.match(words[0]):
        return False
    program = re.split(r"[\\/]", words[0])[-1]
    if program in _READERS or (program in _SESSIONS and len(words) == 1):
        return False
    return not root or _ROOT_PROGRAMS.match(words[0]) is not None


def _in_block(lines: list[str], text: str) -> tuple[str, str, str] | None:
    """("", command, its line) of the one pip install line beside pip's error, or the one script line beside a
    traceback."""
    if _PIP_ERROR.search(text):
        shown = _the_one(_PIP_LINE, lines)
        if shown is not None:
            return shown
    if "Traceback (most recent call last)" in text:
        return _the_one(_SCRIPT_LINE, lines)
    return None


def _the_one(pattern: re.Pattern[str], lines: list[str]) -> tuple[str, str, str] | None:
    found: dict[str, str] = {}
    for line in lines:
        if (m := pattern.match(line)) and m.group("cmd").isascii():
            found.setdefault(" ".join(m.group("cmd").split()), line)
    if len(found) != 1:
        return None
    ((cmd, line),) = found.items()
    return "", cmd, line
