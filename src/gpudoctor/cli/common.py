"""What several commands share: the host to probe, the console, the severity option."""

from __future__ import annotations

import enum
import sys

from gpudoctor.host import Host


class OutputFormat(str, enum.Enum):
    text = "text"
    json = "json"
    github = "github"  # GitHub Actions workflow commands + $GITHUB_STEP_SUMMARY (docs/ci.md)
    junit = "junit"  # JUnit XML (docs/ci.md)


class FailOn(str, enum.Enum):
    error = "error"
    warning = "warning"
    info = "info"


def make_host(replay: str | None) -> Host:
    """A replayed snapshot when asked, else the live machine."""
    if replay:
        from gpudoctor.host.replay import ReplayHost
        from gpudoctor.host.snapshot import load_snapshot

        return ReplayHost(load_snapshot(replay))
    from gpudoctor.host.live import LiveHost

    return LiveHost()


def stdout_console():
    # Every console cleans what it prints (gpudoctor.sanitize): machine data is shown, never obeyed.
    from gpudoctor.sanitize import safe_console

    return safe_console(file=sys.stdout, highlight=False, soft_wrap=False)


def stderr_console():
    from gpudoctor.sanitize import safe_console

    return safe_console(file=sys.stderr, highlight=False)


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
