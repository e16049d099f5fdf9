"""The shells people paste gpudoctor's printed lines into, run for real, and PowerShell's quoting checked.

Each shell runs the lines as a person would paste them: bash, dash and zsh non-interactively (`zsh -c`),
bash and zsh interactively (`-i`, reading the lines from standard input; zsh with `-f` and an empty
ZDOTDIR, so `interactivecomments` is off, its default: `#` starts no comment there), and fish.
PowerShell is not packaged for the Debian images the tests run on: `powershell_problem` checks each
PowerShell line statically against its quoting rules instead (every word bare and plain, or one
single-quoted string whose quote characters, all five kinds PowerShell reads, are doubled).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

# name -> (argv, how the lines are given: "file" as an argument, "stdin", or "-c" as one string)
SHELLS: dict[str, tuple[list[str], str]] = {
    "bash": (["bash", "--norc", "--noprofile"], "file"),
    "bash-i": (["bash", "--norc", "--noprofile", "-i", "-s"], "stdin"),
    "dash": (["dash"], "file"),
    "zsh": (["zsh", "-f", "-c"], "-c"),
    "zsh-i": (["zsh", "-f", "-i", "-s"], "stdin"),
    "fish": (["fish", "--no-config"], "file"),
}


def shell_exe(shell: str) -> str:
    """The shell's program, or a skip that says why it is missing."""
    exe = shutil.which(SHELLS[shell][0][0])
    if exe is None:
        pytest.skip(f"{shell} is not installed (make test-deps installs zsh and fish with apt-get when run as root)")
    return exe


def run_script(shell: str, lines: Sequence[str], *, cwd: Path, env: dict[str, str], home: Path) -> subprocess.CompletedProcess:
    """Run `lines` in `shell` in `cwd` with exactly `env` (its own empty ZDOTDIR for zsh).

    The output is decoded with errors replaced: an interactive shell's line editor echoes a long pasted line
    scrolled, and may cut a multi-byte character in two; the tests judge what the shell did, not its echo."""
    argv, how = SHELLS[shell]
    exe = shell_exe(shell)
    text = "\n".join(lines) + "\n"
    env = dict(env)
    if shell.startswith("zsh"):
        zdot = home / "zdotdir"
        zdot.mkdir(exist_ok=True)
        env["ZDOTDIR"] = str(zdot)
    if how == "file":
        script = home / f"pasted-{shell}"
        script.write_text(text, encoding="utf-8")
        return subprocess.run(
            [exe, *argv[1:], str(script)], cwd=cwd, env=env, capture_output=True, text=True, errors="replace", timeout=300
        )
    if how == "-c":
        return subprocess.run(
            [exe, *argv[1:], text], cwd=cwd, env=env, capture_output=True, text=True, errors="replace", timeout=300
        )
    return subprocess.run(
        [exe, *argv[1:]], cwd=cwd, env=env, input=text, capture_output=True, text=True, errors="replace", timeout=300
    )


_PS_QUOTES = "'\u2018\u2019\u201a\u201b"
_PS_TOKEN = re.compile(
    rf"[{_PS_QUOTES}](?:[^{_PS_QUOTES}]|[{_PS_QUOTES}]{{2}})*[{_PS_QUOTES}]"  # one single-quoted string
    r"|[A-Za-z0-9_./:\\=+,-]+"  # a bare word of plain characters
    r"|\$env:[A-Za-z_][A-Za-z0-9_]*"  # $env:NAME, assigned to
    r"|[&|=]"  # the call operator, a pipe to Invoke-Expression, an assignment
    r"|\$\(|\)"  # a subexpression around a program's words: its output is a value, never re-read as code
)


def powershell_problem(line: str) -> str | None:
    """None when `line` is a comment or made only of plain words and properly quoted strings; else why not."""
    if line.startswith("#"):
        return None if "\n" not in line else "a comment that spans lines"
    for word in line.split(" "):
        m = _PS_TOKEN.fullmatch(word)
        if m is None:
            # A quoted string may hold spaces: re-tokenize the whole line instead of word by word.
            break
    else:
        return None
    pos = 0
    while pos < len(line):
        if line[pos] == " ":
            pos += 1
            continue
        m = _PS_TOKEN.match(line, pos)
        if m is None or (m.end() < len(line) and line[m.end()] != " "):
            return f"not a plain word or a single-quoted string at {line[pos : pos + 30]!r}"
        pos = m.end()
    return None
