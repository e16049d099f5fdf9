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


_MAX_ARG = 100_000  # bytes of one `-c` argument, under Linux's MAX_ARG_STRLEN (32 pages of 4 KiB)


def _parts(lines: Sequence[str], limit: int) -> list[str]:
    """`lines` joined into texts of whole lines, each under `limit` bytes (a longer line alone)."""
    parts: list[str] = []
    part: list[str] = []
    size = 0
    for line in lines:
        n = len(line.encode("utf-8")) + 1
        if part and size + n > limit:
            parts.append("\n".join(part) + "\n")
            part, size = [], 0
        part.append(line)
        size += n
    parts.append("\n".join(part) + "\n")
    return parts


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
        # One argument holds at most MAX_ARG_STRLEN bytes (131,072 on Linux: execve(2), E2BIG): a longer paste is given
        # in runs of whole lines, one `zsh -c` each, as a person pasting a long plan in parts would.
        runs: list[subprocess.CompletedProcess] = []
        for part in _parts(lines, _MAX_ARG):
            runs.append(
                subprocess.run(
                    [exe, *argv[1:], part], cwd=cwd, env=env, capture_output=True, text=True, errors="replace", timeout=300
                )
            )
        return subprocess.CompletedProcess(
            runs[-1].args,
            max(r.returncode for r in runs),
            "".join(r.stdout for r in runs),
            "".join(r.stderr for r in runs),
        )
    return subprocess.run(
        [exe, *argv[1:]], cwd=cwd, env=env, input=text, capture_output=True, text=True, errors="replace", timeout=300
    )


_PS_QUOTES = "'\u2018\u2019\u201a\u201b"
_PS_TOKEN = re.compile(
    rf"[{_PS_QUOTES}](?:[^{_PS_QUOTES}]|[{_PS_QUOTES}]{{2}})*[{_PS_QUOTES}]"  # one single-quoted string
    r"|[A-Za-z0-9_./:\\=+,-]+"  # a bare word of plain characters
    r"|\$env:[A-Za-z_][A-Za-z0-9_]*"  # $env:NAME, assigned to
    r"|\$gd_dir|;"  # gpudoctor's own variable, holding a program's output once (cmdline.PrependPath.also); a statement's end
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
