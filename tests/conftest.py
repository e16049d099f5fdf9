"""Shared test helpers: where the real captures are, and hosts built on them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

# `make test` and `make test-fast` set GPUDOCTOR_TEST_BYTECODE=1 (the Makefile): under PYTHONDONTWRITEBYTECODE pytest
# would rewrite and compile every test module again in each worker of each run. Only this process (and each xdist
# worker, which loads this file before it collects) writes bytecode; os.environ, which the programs the tests start
# inherit, is left as it is. Not by default: tools/mutate.py runs pytest on copies whose sources it changes in place.
if os.environ.get("GPUDOCTOR_TEST_BYTECODE") == "1":
    sys.dont_write_bytecode = False

ROOT = Path(__file__).resolve().parents[1]

# The property tests (hypothesis) draw the same examples on every run: a red CI then names a change, never a lucky
# draw (stop 54's red run was a fresh draw of a file name, 'Traceback', that no change had brought). Set
# GPUDOCTOR_HYPOTHESIS=explore to draw new examples when hunting (docs/testing.md). A test's own
# @settings (max_examples, deadline) still apply; derandomize comes from the profile.
try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # the test tools are not installed: the tests that need hypothesis skip or fail on their own
    _hypothesis_settings = None
if _hypothesis_settings is not None:
    _hypothesis_settings.register_profile("repeatable", derandomize=True, print_blob=True)
    _hypothesis_settings.register_profile("explore", derandomize=False, print_blob=True)
    _hypothesis_settings.load_profile(os.environ.get("GPUDOCTOR_HYPOTHESIS", "repeatable"))
FIXTURES = ROOT / "tests" / "fixtures"
MACHINES = ROOT / "tests" / "machines"


def fixture_text(relative: str) -> str:
    return (FIXTURES / relative).read_text(encoding="utf-8")


def replay_host(snapshot: dict):
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot

    return ReplayHost(validate_snapshot(json.loads(json.dumps(snapshot))))


def real_app():
    """The real `gpudoctor` app with every command registered: CLI tests invoke this, never an app of their own,
    so a command dropped from gpudoctor.cli._register fails them (tests/cli/test_registered.py says which)."""
    from gpudoctor import cli

    cli._register()
    return cli.app


def has_nvidia_gpu() -> bool:
    try:
        import pynvml

        pynvml.nvmlInit()
        count = pynvml.nvmlDeviceGetCount()
        pynvml.nvmlShutdown()
        return count > 0
    except Exception:  # noqa: BLE001 - any failure means: no GPU to test on
        return False


# --- the edit loop: `make test-fast` runs every test not marked slow (docs/testing.md) -----------------------
# Marked here, by where a test lives, so that no test file changes for it: the tests that drive programs,
# shells, compilers, containers or whole machines through the CLI, and the ones that sweep every recorded
# case. SLOW_TESTS names single tests of an otherwise fast file (a node id, or its start).
SLOW_PATHS = (
    "tests/integration/",
    "tests/sim/",
    "tests/packaging/",
    "tests/gpu/",
    "tests/hostile/",
    "tests/real/",
    "tests/pasted/",
    "tests/cli/",
    "tests/test_machines.py",
    "tests/test_plans.py",
    "tests/test_index_table.py",
    "tests/test_documents_schemas.py",
    "tests/test_findings_pages.py",
    "tests/test_docs_drift.py",
    # unit tests that generate thousands of inputs, compile C, start programs or pytest itself
    "tests/unit/parsers/test_parsers_fuzz.py",
    "tests/unit/test_errors_snapshot_fuzz.py",
    "tests/unit/test_textconsole.py",
    "tests/unit/test_bandwidth_driver.py",
    "tests/unit/test_bandwidth_cli.py",
    "tests/unit/test_loader_ldso.py",
    "tests/unit/test_windows_posix_imports.py",
    "tests/unit/test_rule_edges_skips.py",
    "tests/unit/test_rule_edges_libs_r4.py",
    "tests/unit/test_render_terminal.py",
    "tests/unit/test_venvfiles.py",
    "tests/unit/test_packaging.py",
    "tests/unit/test_schemas.py",
    "tests/unit/test_matrix_validation.py",
    "tests/unit/test_deploy.py",
    "tests/unit/test_deep.py",
    "tests/unit/test_loader_probe.py",
    "tests/unit/test_elf.py",
    "tests/unit/test_cmdline.py",
)
SLOW_TESTS: tuple[str, ...] = (
    # the golden record of the real and pasted cases (the recorded machines' stay in the loop)
    "tests/test_golden.py::test_case_prints_its_golden_record[real/",
    "tests/test_golden.py::test_case_prints_its_golden_record[pasted/",
    # every recorded case's plan, checked by its consequences (tools/precondition_count.py)
    "tests/spec/test_tool_floors.py::test_no_recorded_case_prints_a_command_whose_precondition_is_unmet",
    # compiles four C programs, runs one and `python -m gpudoctor check --pid` on it
    "tests/unit/test_extensions_elf.py::test_pid_reports_what_a_live_process_mapped",
)


# --- `make test` runs on two workers (pytest-xdist, `-n 2 --dist loadgroup`: the Makefile, docs/testing.md) -----
# A worker is a process of its own, so a module- or session-scoped fixture would be made once per worker that
# runs a test needing it. Where that matters it does not happen: a test that uses a module- (or class-) scoped
# fixture runs on the same worker as the rest of its file, so the fixture is still made once (a Docker daemon
# and its cache lock, a scratch environment, a compiled library); the packaging tests share one fresh clone and
# one wheel (session fixtures of tests/packaging/conftest.py), so they run on one worker. Every other test goes
# to whichever worker is free. Without xdist the marker means nothing.
SHARED_SESSION_PATHS = ("tests/packaging/",)


def _xdist_group(item) -> str | None:
    path = item.nodeid.split("::", 1)[0]
    if path.startswith(SHARED_SESSION_PATHS):
        return next(p for p in SHARED_SESSION_PATHS if path.startswith(p))
    info = getattr(item, "_fixtureinfo", None)
    for name in info.names_closure if info else ():
        defs = info.name2fixturedefs.get(name)
        if defs and defs[-1].scope in ("module", "class", "package"):
            return path
    return None


# tryfirst: before xdist reads the group markers (it appends the group to the node id), and before `-m` selects.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(SLOW_PATHS + SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
        group = _xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    if any(item.get_closest_marker("gpu") for item in items) and not has_nvidia_gpu():
        skip = pytest.mark.skip(reason="needs an NVIDIA GPU with a working driver (NVML found none)")
        for item in items:
            if item.get_closest_marker("gpu"):
                item.add_marker(skip)


# --- skips: only for the reasons docs/testing.md ("Test rules") lists -----------------------------------
# A test may skip only because this machine lacks something the test cannot build for itself. Any other
# skip (a "not yet registered", an empty parameter list, a fixture the machine happens not to have) hides a
# test that should run: it fails the run, with the reason, here. Keep this list and docs/testing.md equal.
SKIP_ALLOWLIST: dict[str, str] = {
    "no GPU": r"NVIDIA GPU|\bNVML\b|CUDA driver|CUDA device|nvcc not found",
    "root or not root": r"\broot\b|\bchown\b",
    "a package that could not be installed": (
        r"is not installed|not on PATH|could not be installed|package index could not be reached|is a test dependency"
        r"|needs (Debian's )?update-alternatives|cannot create a virtual environment|could not build an environment"
        r"|Slurm scheduler could not start"
    ),
    "no C compiler": r"no C compiler",
    "not Linux": r"needs Linux|needs a POSIX|glibc's ld.so is the reference",
}


def skip_allowed(reason: str) -> bool:
    import re

    return any(re.search(pattern, reason) for pattern in SKIP_ALLOWLIST.values())


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


def _refuse_unlisted_skip(report) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = _skip_reason(report)
        if not skip_allowed(reason):
            report.outcome = "failed"
            report.longrepr = f"skipped for a reason that is not in the allowlist (tests/conftest.py, docs/testing.md): {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _refuse_unlisted_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _refuse_unlisted_skip(outcome.get_result())


# `gpudoctor check` reads these as option defaults (docs/ci.md); one set in the shell that runs the
# suite (a CI job that exports GPUDOCTOR_FORMAT=github, say) would change what every CLI test sees.
# Removed for the whole session, before any test starts a gpudoctor process that inherits them.
CHECK_OPTION_VARIABLES = ("GPUDOCTOR_FORMAT", "GPUDOCTOR_FAIL_ON", "GPUDOCTOR_REQUIRE", "GPUDOCTOR_IGNORE", "_GPUDOCTOR_COMPLETE")


def pytest_configure(config):
    import os

    for name in CHECK_OPTION_VARIABLES:
        os.environ.pop(name, None)
    # An xdist worker starts with COLUMNS=80 in its environment where the run that started it had none: the plain
    # views (install, report merge) then wrap at 80 instead of printing whole lines as they do when piped, and the
    # tests that read them see another output under `make test` than under a plain pytest. A worker gets the
    # terminal variables of the run that started it (pytest_configure_node below).
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        for name, value in workerinput.get("gpudoctor_terminal", {}).items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


TERMINAL_VARIABLES = ("COLUMNS", "LINES")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist, in the run that starts the workers: each worker's terminal variables are this run's."""
    import os

    node.workerinput["gpudoctor_terminal"] = {name: os.environ.get(name) for name in TERMINAL_VARIABLES}
