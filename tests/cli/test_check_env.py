"""`gpudoctor check` options that CI sets read environment variables (docs/ci.md): each works, the
command line overrides it, and a bad value is a usage error (exit 2) whose one error line names the
variable. Run through the console script's own entry point (gpudoctor.cli.main) with the variables set in the
environment, on a replayed machine; the first test runs it as a user does, in a subprocess of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gpudoctor.cli.choices import OutputFormat
from tests.cli.conftest import machine
from tests.conftest import CHECK_OPTION_VARIABLES
from tests.hostile.test_corpus import run_cli

# Options read from variables are typer's (0.26.0 and 0.26.1 got them wrong: pyproject.toml): run under the oldest and
# newest typer and rich too (tests/packaging/test_dependency_range.py).
pytestmark = pytest.mark.typer_rich

HEALTHY = machine("rtx4090-torch-cu121")  # one RTX 4090, torch 2.2.1+cu121: no findings


def check(*args: str, replay: str = HEALTHY, real: bool = False, **variables: str) -> subprocess.CompletedProcess:
    """`gpudoctor check --replay REPLAY ARGS` with `variables` in its environment (and no other of the check's
    variables: tests/conftest.py removes them for the session). `real`: in a subprocess; else in this process
    (gpudoctor.cli.main, as the console script calls it: the same option parsing, from the same os.environ)."""
    argv = ["check", "--replay", replay, *args]
    if real:
        env = {k: v for k, v in os.environ.items() if k not in CHECK_OPTION_VARIABLES}
        return subprocess.run(
            [sys.executable, "-m", "gpudoctor", *argv], capture_output=True, text=True, timeout=120, env={**env, **variables}
        )
    code, out, err = run_cli(*argv, env=variables)
    return subprocess.CompletedProcess(argv, code, out, err)


def error_lines(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("gpudoctor: error:")]


def test_format_from_the_variable_and_the_option_overrides_it():
    proc = check(GPUDOCTOR_FORMAT="json", real=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["exit_code"] == 0
    proc = check("--format", "github", GPUDOCTOR_FORMAT="json", real=True)
    assert proc.stdout.splitlines()[-1] == "gpudoctor: 0 error(s), 0 warning(s), 0 note(s); exit status 0"
    # Empty is unset (an Action input left empty arrives as an empty variable): the default, text.
    proc = check(GPUDOCTOR_FORMAT="")
    assert proc.returncode == 0 and proc.stdout.startswith("gpudoctor check (replayed snapshot)")


def test_require_from_the_variable_is_one_require_value():
    # Newlines and spaces separate specs; `torch >= 2.2, <3` with spaces stays one spec, as in one --require value.
    proc = check("--format", "github", GPUDOCTOR_REQUIRE="gpu\n  torch >= 2.2, <3\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == [
        "gpudoctor: requirement met: gpu (1 GPU(s): NVIDIA GeForce RTX 4090)",
        "gpudoctor: requirement met: torch>=2.2,<3 (torch 2.2.1+cu121 in /opt/venv/bin/python)",
    ]
    # Whitespace only: no requirement (not an empty, malformed one).
    proc = check("--format", "json", GPUDOCTOR_REQUIRE=" \n ")
    assert proc.returncode == 0 and "requirements" not in json.loads(proc.stdout)


def test_require_option_overrides_the_variable():
    proc = check("--format", "json", "--require", "gpu", GPUDOCTOR_REQUIRE="gpus>=2")
    assert proc.returncode == 0, proc.stderr
    assert [r["spec"] for r in json.loads(proc.stdout)["requirements"]] == ["gpu"]


def test_fail_on_and_ignore_from_the_variables():
    # gpus>=2 is unmet on a one-GPU machine: an error finding, exit 1 ...
    proc = check("--format", "json", "--require", "gpus>=2")
    assert proc.returncode == 1
    # ... dropped by GPUDOCTOR_IGNORE (codes separated by whitespace) ...
    proc = check("--format", "json", "--require", "gpus>=2", GPUDOCTOR_IGNORE="probe-failed\trequirement-unmet")
    assert proc.returncode == 0
    assert [f["code"] for f in json.loads(proc.stdout)["findings"]] == []
    # ... and the command line's --ignore replaces the variable's list, not adds to it.
    proc = check("--format", "json", "--require", "gpus>=2", "--ignore", "probe-failed", GPUDOCTOR_IGNORE="requirement-unmet")
    assert proc.returncode == 1


def test_fail_on_variable_and_override():
    # t4-tf-jax: two warnings (tf-preallocates, jax-preallocates) and a note, no error.
    base = ["--format", "json"]
    default = check(*base, replay=machine("t4-tf-jax"))
    assert sorted({f["severity"] for f in json.loads(default.stdout)["findings"]}) == ["info", "warning"]
    assert default.returncode == 1  # --fail-on's default is warning
    assert check(*base, replay=machine("t4-tf-jax"), GPUDOCTOR_FAIL_ON="error").returncode == 0
    assert check(*base, "--fail-on", "warning", replay=machine("t4-tf-jax"), GPUDOCTOR_FAIL_ON="error").returncode == 1


@pytest.mark.parametrize(
    ("variable", "value", "option", "says"),
    [
        # Every format, in the order --help lists them (gpudoctor.cli.choices.OutputFormat).
        ("GPUDOCTOR_FORMAT", "yaml", "--format", "'yaml' is not one of " + ", ".join(repr(f.value) for f in OutputFormat) + "."),
        ("GPUDOCTOR_FAIL_ON", "fatal", "--fail-on", "'fatal' is not one of 'error', 'warning', 'info'."),
        ("GPUDOCTOR_REQUIRE", "gpus>=two", "--require", "malformed version condition '>=two' in 'gpus>=two'"),
    ],
)
def test_a_bad_value_in_a_variable_is_a_usage_error_naming_it(variable, value, option, says):
    proc = check(**{variable: value})
    assert proc.returncode == 2
    assert proc.stdout == ""
    [line] = error_lines(proc)
    assert line.startswith(f"gpudoctor: error: Invalid value for '{option}' (env var: {variable}): {says}")
    # The same value on the command line: the same error, naming the option only.
    proc = check(option, value)
    assert proc.returncode == 2
    [line] = error_lines(proc)
    assert line.startswith(f"gpudoctor: error: Invalid value for '{option}': {says}")


def test_help_names_each_variable():
    code, out, _ = run_cli("check", "--help")
    assert code == 0
    text = " ".join(out.split())  # help is wrapped to the terminal's width
    for option, variable in (
        ("--format", "GPUDOCTOR_FORMAT"),
        ("--fail-on", "GPUDOCTOR_FAIL_ON"),
        ("--ignore", "GPUDOCTOR_IGNORE"),
        ("--require", "GPUDOCTOR_REQUIRE"),
    ):
        assert f"[env var: {variable}" in text, variable
        # Nothing escaped for rich (typer writes "\[" when its rich help is not in use).
        assert "\\[" not in text
        assert option in text
