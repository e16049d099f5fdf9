"""Answers that need no command-line framework: `gpudoctor --version`, `gpudoctor explain CODE`, a bare
`gpudoctor check` (what `make run` and most first runs type) and a check with only `--format FORMAT` and `-v`
(what CI jobs type).

typer and the click it carries take about as long to import as the rest of these answers; a person
typing `gpudoctor explain driver-missing` should not wait for them. Only the exact simple forms are
answered here; anything else (options, a code that has no page and wants "did you mean", --help)
goes to the full application, and tests/cli/test_fast_path.py checks that both print the same.
"""

from __future__ import annotations

import os
import sys


def version_line() -> str:
    """What `gpudoctor --version` prints (here, not in gpudoctor.cli, which imports this module: no circle)."""
    from gpudoctor import __version__

    return f"gpudoctor {__version__}"


def answer(args: list[str], ending: bool = False) -> int | None:
    """The exit status after answering `args`, or None when the full application must answer. `ending`: the process
    ends once this is answered (`main()` without arguments)."""
    if args == ["--version"]:
        sys.stdout.write(version_line() + "\n")
        sys.stdout.flush()
        return 0
    if len(args) == 2 and args[0] == "explain" and args[1] and not args[1].startswith("-"):
        from gpudoctor.cli.explain import show_page

        if show_page(args[1]):
            sys.stdout.flush()
            return 0
    options = _simple_check(args)
    if options is not None and not any(name in os.environ for name in _CHECK_ENVVARS):
        # No other option and no variable to read: the defaults, which the typer command has too
        # (cli.check.DEFAULTS), with the format and verbosity asked for.
        # Without the cyclic collector: the check imports some hundred modules, whose objects only accumulate, so
        # the collections their allocations start find nothing to free (a bare check leaves no cyclic garbage:
        # cli._before_exit) and walk ever more (3.8 M instructions before the user's interpreter is started, and 7.4 M
        # for the one that turning it back on starts: bench/README.md, h161). A caller that goes on gets it back as it
        # was; a process that ends next keeps it off to the end (its objects are frozen before the exit's own).
        import gc

        collecting = gc.isenabled()
        gc.disable()
        try:
            from gpudoctor.lazymodule import defer

            # dataclasses imports inspect, which a check never reads (35 M instructions before the user's
            # interpreter is started: gpudoctor.lazymodule); subprocess imports locale, for an encoding a check never
            # asks it (it reads bytes), and signal, which only stopping a program reads (6 M: bench/README.md, h226)
            for name in ("inspect", "locale", "signal"):
                defer(name)
            from gpudoctor.cli.check import DEFAULTS, run

            code = run(None, **{**DEFAULTS, **options})
        finally:
            if collecting and not ending:
                gc.enable()
        sys.stdout.flush()
        return code
    return None


def _simple_check(args: list[str]) -> dict | None:
    """{output_format, verbose} of `check` given at most one format (`--format F`, `--format=F`, `-f F`, F one of
    the formats) and at most one `-v`/`--verbose`, in any order; None for anything else (the full application
    answers it: another option, a format that is not one, a repeated option, `-vf json`, --help)."""
    if not args or args[0] != "check":
        return None
    options: dict = {}
    rest = args[1:]
    while rest:
        arg = rest.pop(0)
        if arg in ("-v", "--verbose") and "verbose" not in options:
            options["verbose"] = True
        elif arg in ("--format", "-f") and rest and "output_format" not in options:
            options["output_format"] = rest.pop(0)
        elif arg.startswith("--format=") and "output_format" not in options:
            options["output_format"] = arg.split("=", 1)[1]
        else:
            return None
    if "output_format" in options:
        from gpudoctor.lazymodule import defer

        defer("inspect")  # (before render.formats imports dataclasses: see answer())
        from gpudoctor.render.formats import FORMATS  # (a table of names: it imports no renderer)

        if options["output_format"] not in FORMATS:
            return None  # the full application's usage error
    return options


# gpudoctor.cli.check.ENVVARS, written here so that deciding costs no import (test_fast_path.py compares the two).
_CHECK_ENVVARS = ("GPUDOCTOR_FORMAT", "GPUDOCTOR_FAIL_ON", "GPUDOCTOR_IGNORE", "GPUDOCTOR_REQUIRE")
