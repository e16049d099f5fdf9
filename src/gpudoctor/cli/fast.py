"""Answers that need no command-line framework: `gpudoctor --version`, `gpudoctor explain CODE` and a bare
`gpudoctor check` (what `make run` and most first runs type).

typer and the click it carries take about as long to import as the rest of these answers; a person
typing `gpudoctor explain driver-missing` should not wait for them. Only the exact simple forms are
answered here; anything else (options, a code that has no page and wants "did you mean", --help)
goes to the full application, and tests/cli/test_fast_path.py checks that both print the same.
"""

from __future__ import annotations

import os
import sys


def answer(args: list[str]) -> int | None:
    """The exit status after answering `args`, or None when the full application must answer."""
    if args == ["--version"]:
        from gpudoctor.cli import version_line

        sys.stdout.write(version_line() + "\n")
        sys.stdout.flush()
        return 0
    if len(args) == 2 and args[0] == "explain" and args[1] and not args[1].startswith("-"):
        from gpudoctor.cli.explain import show_page

        if show_page(args[1]):
            sys.stdout.flush()
            return 0
    if args == ["check"] and not any(name in os.environ for name in _CHECK_ENVVARS):
        # No option and no variable to read: the defaults, which the typer command has too (cli.check.DEFAULTS).
        from gpudoctor.cli.check import DEFAULTS, run

        code = run(None, **DEFAULTS)
        sys.stdout.flush()
        return code
    return None


# gpudoctor.cli.check.ENVVARS, written here so that deciding costs no import (test_fast_path.py compares the two).
_CHECK_ENVVARS = ("GPUDOCTOR_FORMAT", "GPUDOCTOR_FAIL_ON", "GPUDOCTOR_IGNORE", "GPUDOCTOR_REQUIRE")
