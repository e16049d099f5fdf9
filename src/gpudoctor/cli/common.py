"""What several commands share: the host to probe, the console, the checks of options' values (the options' choices:
gpudoctor.cli.choices)."""

from __future__ import annotations

import sys

from gpudoctor.host import Host


def all_codes() -> tuple[str, ...]:
    """Every public finding code: the checks', --require's and the bandwidth benchmark's."""
    from gpudoctor.bandwidth import judge
    from gpudoctor.checks import check_codes, requirements

    # (a pasted Slurm job's GPU count is a check's requirement-unmet too: each code once)
    return tuple(dict.fromkeys(check_codes() + (requirements.CODE, judge.CODE, judge.CORRUPT_CODE)))


def make_host(replay: str | None, root: str = "/") -> Host:
    """A replayed snapshot when asked, else the live machine (under `root`: the hidden --root, tests/sim/)."""
    if replay:
        from gpudoctor.host.replay import ReplayHost
        from gpudoctor.host.snapshot import load_snapshot

        return ReplayHost(load_snapshot(replay))
    from gpudoctor.host.live import LiveHost

    host = LiveHost(root=root)
    say_trust_notes(host.trust_notes)
    return host


def say_trust_notes(notes: list[str]) -> None:
    """As root, what was left out of the programs' PATH and LD_LIBRARY_PATH: one line each on stderr."""
    # The sanitizer only where a note is printed: a live check gets here before it starts the user's interpreter.
    if not notes:
        return
    import sys

    from gpudoctor.sanitize import clean_line

    for note in notes:
        sys.stderr.write("gpudoctor: note: " + clean_line(note) + "\n")


# The hidden `--root DIR` of check, snapshot, memory and bench bandwidth (as switch-cuda has): DIR is read as /,
# so the simulated machines of tests/sim/ run the live code paths end to end. Not for people: not in --help.
ROOT_HELP = "Treat DIR as / (tests and chroots)."


def stdout_console():
    # Every console cleans what it prints (gpudoctor.sanitize): machine data is shown, never obeyed.
    from gpudoctor.sanitize import for_output, safe_console

    return safe_console(file=for_output(sys.stdout), highlight=False, soft_wrap=False)


def text_console():
    """The text view's console (gpudoctor.render.textconsole): check's prose without rich, cleaned like every console."""
    from gpudoctor.render.textconsole import TextConsole
    from gpudoctor.sanitize import for_output

    return TextConsole(for_output(sys.stdout))


def stderr_console():
    from gpudoctor.sanitize import for_output, safe_console

    return safe_console(file=for_output(sys.stderr), highlight=False)


def check_output_path(option: str, path: str) -> None:
    """A usage error now, before any probing, when `path` cannot be written: a directory there, no such
    folder, or a folder this user cannot write. (The write itself still reports what else goes wrong.)"""
    import os

    from gpudoctor.errors import UsageError

    parent = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UsageError(f"{option} {path}: is a directory", "name a file to write")
    if not os.path.isdir(parent):
        raise UsageError(
            f"{option} {path}: the folder {parent} does not exist", "create it first, or name a file in an existing folder"
        )
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{option} {path}: this user cannot write in {parent}", "name a file in a folder you can write")


def positive_seconds(value: float) -> float:
    """--probe-timeout: at least 0.1 s. 0, a negative number or NaN would time every probe out at once and
    print false "probe hung" findings (NaN passes a range check, so the comparison is written to fail it)."""
    import typer

    if not value >= 0.1:
        raise typer.BadParameter(f"{value} is not a time limit: give at least 0.1 seconds")
    return value


def did_you_mean(value: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """`did you mean 'x'?` for the closest valid value, or None when nothing is close."""
    import difflib

    close = difflib.get_close_matches(value.lower(), [c.lower() for c in choices], n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else None


def complete_codes(incomplete: str) -> list[str]:
    """Shell completion of a finding code (explain CODE, check --ignore/--only): every code that starts so."""
    return [c for c in sorted(all_codes()) if c.startswith(incomplete.lower())]


def toolkit_versions(host: Host, timeout_s: float = 2.0) -> list[str]:
    """The CUDA versions of the toolkits installed on `host` (major.minor, as switch-cuda takes them), oldest first."""
    from gpudoctor.probes.toolkits import probe_toolkits
    from gpudoctor.versions import major_minor, vkey

    found = {major_minor(tk.version) for tk in probe_toolkits(host, timeout_s).toolkits if tk.version}
    return sorted((v for v in found if v), key=vkey)


def complete_toolkit_versions(incomplete: str) -> list[str]:
    """Shell completion of switch-cuda's VERSION: the toolkits this machine has (read in a second or two)."""
    from gpudoctor.host.live import LiveHost

    return [v for v in toolkit_versions(LiveHost()) if v.startswith(incomplete)]


def finding_codes(option: str, values: list[str]) -> list[str]:
    """--ignore's codes, lower-cased; an unknown one is a usage error (exit 2) naming the closest code,
    so that a typo does not silently ignore nothing."""
    codes = [v.strip().lower() for v in values if v.strip()]
    if not codes:
        return []
    from gpudoctor.errors import UsageError

    known = all_codes()
    for code in codes:
        if code not in known:
            hint = did_you_mean(code, known)
            raise UsageError(
                f"{option} {code}: not a finding code",
                f"{hint + ' ' if hint else ''}gpudoctor explain --list lists every code",
            )
    return codes


# What an interpreter's file is called: python, python3.12, python3-dbg, pypy3, graalpy, python.exe.
_PYTHON_NAME = ("python", "pypy", "graalpy")


def check_python(path: str) -> None:
    """--python on this machine: a usage error (exit 2) now, before any probe, when the path is not an
    executable Python interpreter (no such file, a directory, not executable, a program not named like
    one: its name, or the name of the file it links to, starts with python, pypy or graalpy)."""
    import os

    from gpudoctor.errors import UsageError

    hint = "name an interpreter, such as .venv/bin/python or $(which python3)"
    if not os.path.lexists(path):
        raise UsageError(f"--python {path}: no such file", hint)
    if not os.path.exists(path):
        raise UsageError(f"--python {path}: a link to nothing ({os.path.realpath(path)})", hint)
    if os.path.isdir(path):
        raise UsageError(f"--python {path}: is a directory, not an interpreter", hint)
    if not os.access(path, os.X_OK):
        raise UsageError(f"--python {path}: not executable", hint)
    names = {os.path.basename(path).lower(), os.path.basename(os.path.realpath(path)).lower()}
    if not any(name.startswith(_PYTHON_NAME) for name in names):
        raise UsageError(f"--python {path}: not a Python interpreter", hint)


def check_matrix_path(matrix: str | None) -> None:
    """--matrix DIR: a usage error (exit 2) before any probing when nothing is there (what load_matrix
    says later, only sooner: before a report is half printed)."""
    import os

    if matrix is not None and not os.path.lexists(matrix):
        from gpudoctor.errors import MissingInput

        raise MissingInput(f"no such matrix file or directory: {matrix}")
