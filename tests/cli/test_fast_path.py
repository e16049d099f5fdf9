"""`gpudoctor --version`, `gpudoctor explain CODE` and a bare `gpudoctor check` answered without typer
(gpudoctor.cli.fast), and `explain` as a terminal shows it.

The fast path must print what the full application prints, byte for byte, with the same exit status;
everything it does not answer (help, errors, other options) must reach the full application untouched.
On a terminal a page is rendered: prose wrapped to the width, no raw Markdown links, every command of
the page printed whole; piped, it is the page's Markdown exactly.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from gpudoctor.cli import fast
from gpudoctor.cli.explain import finding_page, render_page, terminal_markdown
from tests.conftest import real_app
from tests.hostile.test_corpus import run_cli

# The fast path must equal what typer's app prints, and explain's terminal view is rich's Markdown: run under the
# oldest and newest typer and rich too (tests/packaging/test_dependency_range.py).
pytestmark = pytest.mark.typer_rich

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def codes() -> list[str]:
    from gpudoctor.cli.common import all_codes

    return sorted(all_codes())


def full_app(args: list[str]) -> tuple[int, str]:
    r = CliRunner().invoke(real_app(), args)
    return r.exit_code, r.stdout


def fast_path(args: list[str], capsys) -> tuple[int | None, str]:
    capsys.readouterr()
    code = fast.answer(args)
    return code, capsys.readouterr().out


@pytest.mark.parametrize("code", codes())
def test_explain_fast_path_prints_what_the_full_app_prints(code, capsys):
    for asked in (code, code.upper()):
        rc, out = fast_path(["explain", asked], capsys)
        assert (rc, out) == full_app(["explain", asked])
        assert out == finding_page(code)  # piped: the page's Markdown, exactly


def test_version_fast_path_prints_what_the_full_app_prints(capsys):
    from gpudoctor import __version__

    rc, out = fast_path(["--version"], capsys)
    assert (rc, out) == full_app(["--version"]) == (0, f"gpudoctor {__version__}\n")


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["-h"],
        ["explain"],
        ["explain", "--list"],
        ["explain", "-h"],
        ["explain", "no-such-code"],  # the full app's "did you mean"
        ["explain", "gpu-none", "--list"],
        ["--version", "check"],
        ["check", "-v", "-v"],
        ["check", "-vf", "json"],
        ["check", "--format"],
        ["check", "--format", "nope"],  # the full app's usage error
        ["check", "--format", "json", "-f", "text"],
        ["check", "--format", "json", "--deep"],
        ["check", "--verbose", "--fail-on", "error"],
        ["check", "--", "-v"],
        ["check", "--help"],
    ],
)
def test_everything_else_goes_to_the_full_app(args, capsys):
    assert fast_path(args, capsys) == (None, "")


def test_bare_check_fast_path_prints_what_the_full_app_prints(capsys, monkeypatch):
    """Issue 31, item 10: a bare `gpudoctor check` runs without typer, with the command's own defaults."""
    from gpudoctor.cli import check

    for name in check.ENVVARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    rc, out = fast_path(["check"], capsys)
    assert rc is not None and (rc, out) == full_app(["check"])


# What changes between two runs of the same check: timings, a time stamp, an expiry time.
VOLATILE = re.compile(r'(?<=time=")[0-9.]+|(?<=_seconds )[0-9.e+]+|(?<=expiry-time=)\S+|\b[0-9]+ ?ms\b')


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--format", "json"],
        ["check", "-f", "markdown", "-v"],
        ["check", "--verbose", "--format=junit"],
        ["check", "-v"],
        *(["check", "--format", name] for name in ("text", "github", "prometheus", "nfd", "npd")),
    ],
)
def test_a_check_with_only_format_and_verbose_prints_what_the_full_app_prints(args, capsys, monkeypatch):
    """Issue 31, item 10: `check --format F` and `-v` (what CI jobs run) answered without typer, as the full app does."""
    from gpudoctor.cli import check

    for name in check.ENVVARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    rc, out = fast_path(args, capsys)
    full_rc, full_out = full_app(args)
    assert rc is not None and rc == full_rc
    if "json" in args:
        # The probes' timings are the one thing that changes between two runs.
        import json

        mine, theirs = json.loads(out), json.loads(full_out)
        for doc in (mine, theirs):
            doc.pop("timings_s")
            doc["facts"].pop("timings_s")
        assert mine == theirs
    elif "-v" in args or "--verbose" in args:
        # -v's probe timings (wrapped where their digits fall): compared with whitespace folded.
        assert " ".join(VOLATILE.sub("#", out).split()) == " ".join(VOLATILE.sub("#", full_out).split())
    else:
        assert VOLATILE.sub("#", out) == VOLATILE.sub("#", full_out)


def test_bare_check_runs_the_commands_defaults_and_leaves_variables_to_it(capsys, monkeypatch):
    import typer

    from gpudoctor.cli import check

    command = typer.main.get_command(real_app()).commands["check"]
    defaults = {p.name: p.default for p in command.params if p.name != "ctx"}
    assert defaults == check.DEFAULTS
    envvars = sorted(p.envvar for p in command.params if getattr(p, "envvar", None))
    assert envvars == sorted(check.ENVVARS) == sorted(fast._CHECK_ENVVARS)
    for name in check.ENVVARS:
        monkeypatch.setenv(name, "json" if name == "GPUDOCTOR_FORMAT" else "")
        assert fast_path(["check"], capsys) == (None, "")  # a variable set: the full app reads it
        monkeypatch.delenv(name)


def test_the_fast_path_does_not_import_typer():
    script = (
        "import sys\nfrom gpudoctor.cli import main\n"
        "for args in (['--version'], ['explain', 'gpu-none']):\n"
        "    try:\n        main(args)\n    except SystemExit as exc:\n        assert exc.code == 0, exc.code\n"
        "print('typer' in sys.modules, 'click' in sys.modules, 'rich' in sys.modules, file=sys.stderr)\n"
        # (importlib.resources brings tempfile, zipfile, shutil and random: an explain reads its page's file directly;
        # typing: these answers' modules import it for type checkers only)
        "print('importlib.resources' in sys.modules, 'zipfile' in sys.modules, 'typing' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-2:] == ["False False False", "False False False"]


def test_explain_reads_a_page_of_a_package_inside_an_archive(tmp_path):
    """gpudoctor imported from a zip (zipimport: no directory to open): the page comes through importlib.resources,
    the same text as from the directory, and a code without a page is still None."""
    import zipfile

    src = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
    docs = os.path.join(os.path.dirname(src), "docs")
    archive = tmp_path / "gpudoctor.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name in (
            "__init__.py",
            "errors.py",
            "lazypattern.py",
            "sanitize.py",
            "cli/__init__.py",
            "cli/fast.py",
            "cli/explain.py",
        ):
            zf.write(os.path.join(src, "gpudoctor", name), f"gpudoctor/{name}")
        zf.write(os.path.join(docs, "__init__.py"), "gpudoctor/_docs/__init__.py")
        zf.write(os.path.join(docs, "findings", "gpu-none.md"), "gpudoctor/_docs/findings/gpu-none.md")
    script = (
        f"import sys\nsys.path.insert(0, {str(archive)!r})\n"
        "import gpudoctor._docs\nfrom gpudoctor.cli.explain import finding_page\n"
        "assert gpudoctor._docs.__file__.startswith(sys.path[0]), gpudoctor._docs.__file__\n"
        "sys.stdout.write(finding_page('gpu-none'))\nprint(finding_page('driver-missing'), file=sys.stderr)\n"
    )
    # -S: no site-packages, so no editable install's finder maps gpudoctor elsewhere
    done = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == finding_page("gpu-none")
    assert done.stderr.strip() == "None"  # not in the archive


@pytest.mark.parametrize(("entry", "frozen"), [("main()", True), ("main(['--version'])", False)])
def test_only_the_process_entry_freezes_the_collector_before_it_ends(entry, frozen):
    """`main()` without arguments (the console script, python -m gpudoctor) is the process's last act: its objects
    are frozen so the interpreter's shutdown collections skip them (cli._before_exit); a caller that passes its
    arguments (tests, a program) keeps its collector as it was."""
    script = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print(gc.get_freeze_count() > 0, file=sys.stderr))\n"
        f"sys.argv = ['gpudoctor', '--version']\nfrom gpudoctor.cli import main\n{entry}\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("gpudoctor ")
    assert done.stderr.strip().splitlines()[-1] == str(frozen)


def test_a_bare_check_process_starts_no_collection_of_its_own():
    """A bare check imports a hundred modules, whose allocations start collections of a heap that only grows (3.8 M
    instructions before the user's interpreter is started, bench/README.md, h161): the process entry runs it with the
    collector off to the end (cli.fast.answer), where the interpreter's exit collects as before."""
    script = (
        "import atexit, gc, sys\nstarted = []\nsys.argv = ['gpudoctor', 'check']\nfrom gpudoctor.cli import main\n"
        # what main() imports before it turns the collector off (compiled from source where no .pyc was written, as in
        # a wheel's scratch venv under PYTHONDONTWRITEBYTECODE: that compiling may start a collection of its own)
        "import gpudoctor.errors, gpudoctor.cli.fast\n"
        "gc.callbacks.append(lambda phase, info: started.append(phase == 'start'))\n"
        "atexit.register(lambda: print('collections', sum(started), file=sys.stderr))\nmain()\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode in (0, 1), done.stderr
    assert done.stderr.strip().splitlines()[-1] == "collections 0"


@pytest.mark.parametrize("enabled", [True, False])
def test_a_bare_check_called_with_its_arguments_leaves_the_collector_as_it_was(enabled):
    script = (
        f"import gc, sys\n{'' if enabled else 'gc.disable()'}\nfrom gpudoctor.cli import main\n"
        "try:\n    main(['check'])\nexcept SystemExit as exc:\n    assert exc.code in (0, 1), exc.code\n"
        "print(gc.isenabled(), file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == str(enabled)


@pytest.mark.parametrize("args", [["check"], ["check", "--format", "json", "-v"]])
def test_a_bare_check_does_not_import_typer(args):
    script = (
        "import sys\nfrom gpudoctor.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit as exc:\n    assert exc.code in (0, 1), exc.code\n"
        "print('typer' in sys.modules, 'click' in sys.modules, 'rich' in sys.modules, 'pydantic' in sys.modules, file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDOCTOR_")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "False False False False"


def test_the_console_script_answers_the_same_both_ways():
    """The installed entry point (python -m gpudoctor = gpudoctor.cli:main): an unknown code still gets the
    full app's usage error, a known one the page."""
    run = [sys.executable, "-m", "gpudoctor"]
    done = subprocess.run([*run, "explain", "driver-missng"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[0] == "gpudoctor: error: unknown finding code 'driver-missng'"
    assert "did you mean 'driver-missing'?" in done.stderr
    done = subprocess.run([*run, "explain", "DRIVER-MISSING"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == finding_page("driver-missing")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("code", codes())
@pytest.mark.parametrize("width", [80, 120])
def test_explain_on_a_terminal_is_rendered(code, width, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.delenv("NO_COLOR", raising=False)
    page = finding_page(code)
    assert page is not None
    out = Terminal()
    render_page(page, out)
    lines = [ANSI.sub("", line).rstrip() for line in out.getvalue().splitlines()]
    text = "\n".join(lines)
    assert "](" not in text and "```" not in text  # no raw Markdown links or fences
    commands = [line for kind, block in terminal_markdown(page) if kind == "code" for line in block.splitlines()]
    for command in commands:
        assert command.rstrip() in lines  # a command is printed whole, on a line of its own
    for line in lines:
        assert len(line) <= width or line in (c.rstrip() for c in commands), line
    # Links read as what to run or where to look.
    for target in re.findall(r"\]\(([a-z0-9-]+)\.md\)", page):
        assert f"gpudoctor explain {target}" in " ".join(text.split())


def test_links_become_plain_text():
    parts = terminal_markdown(
        "See [driver-missing](driver-missing.md), [the CI page](../ci.md) and [NVIDIA](https://docs.nvidia.com/x).\n"
        "```\nnvidia-smi -q | head  # [not](a-link.md)\n```\n"
    )
    assert parts == [
        ("prose", "See `gpudoctor explain driver-missing`, the CI page (docs/ci.md) and NVIDIA (https://docs.nvidia.com/x).\n"),
        ("code", "nvidia-smi -q | head  # [not](a-link.md)"),
    ]


def test_the_terminal_view_shows_the_machines_text_as_text():
    """A page is the package's own, but rendered text still passes the sanitizer: no escape reaches the terminal."""
    out = Terminal()
    render_page("# title\n\nbad \x1b]52;c;AAAA\x07 text\n\n```\necho \x1b[2J\n```\n", out)
    text = ANSI.sub("", out.getvalue())
    assert "\x1b]" not in text and "\x07" not in text and "\\x1b" in text


def test_explain_piped_is_the_page_itself():
    done = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", "gpu-none"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == finding_page("gpu-none")


@pytest.mark.parametrize(
    "args",
    [
        ["check", "-h"],
        ["check", "--no-such-option"],
        ["check", "--format", "yaml"],
        ["memory", "plan", "-h"],
        ["memory", "--count"],
        ["fix", "-h"],
        ["install", "--help"],
        ["report", "merge", "-h"],
        ["bench", "bandwidth", "--nope"],
        ["explain"],
        ["matrix"],
    ],
)
def test_a_run_that_builds_one_command_prints_what_the_whole_app_prints(args, monkeypatch):
    """`gpudoctor check ...` attaches only check's module to the app (gpudoctor.cli._register(only=...)); its
    help, usage errors and exit status are those of the app with every command attached. Each run gets an app of
    its own, built as in a fresh process: only what gpudoctor.cli.main attaches (one), or every command (every)."""
    from gpudoctor import cli

    runs = []
    for every in (False, True):
        monkeypatch.setattr(cli, "_APP", None)
        monkeypatch.setattr(cli, "_registered", set())
        if every:
            cli._register()
        runs.append(run_cli(*args))
        assert sorted(cli._registered) == (sorted(set(cli.COMMAND_MODULES.values())) if every else [cli.COMMAND_MODULES[args[0]]])
    assert runs[0] == runs[1]
    assert runs[0][0] in (0, 2)
