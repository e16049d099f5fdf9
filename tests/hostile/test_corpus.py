"""Hostile machines through the real CLI (gpudoctor.cli.main, its top-level handler included).

For every case of corpus.py and every output format: no traceback, no "unexpected error", a documented
exit status, nothing a terminal would obey in the output, JSON that parses, JUnit that is XML, no
forged GitHub workflow command. Every command any plan printed is collected and run by real shells
in test_shells.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpudoctor.sanitize import has_unsafe
from tests.hostile.corpus import Case, cases, type_fuzz_cases

CASES = cases()
FUZZ = type_fuzz_cases()
DOCUMENTED_EXIT = {0, 1, 2, 3}
# Printed command lines of every plan seen here, for test_shells.py (filled as the tests run).
PRINTED: dict[str, list[str]] = {}
_FORGED = re.compile(r"^::(add-mask|stop-commands|set-output|set-env|add-path|save-state|echo)", re.M)


def run_cli(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """gpudoctor's own entry point in this process: (exit status, stdout, stderr)."""
    import os

    from gpudoctor.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.pop("GITHUB_STEP_SUMMARY", None)
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(argv))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue(), err.getvalue()


# What an uncaught exception prints, and gpudoctor's own last-resort message (cli.main), each at the start of a line.
# The bare words would also match a value the run echoes back in a refusal: hypothesis draws string literals from the
# code under test, so a fuzzed snapshot's file named 'Traceback' came back in "files: 'Traceback' is not an absolute
# path" (a CI run of 2026-12-01) - a clean refusal, not a crash.
_CRASH = re.compile(r"^(?:Traceback \(most recent call last\)|gpudoctor: unexpected error:)", re.MULTILINE)


def assert_clean_run(code: int, out: str, err: str, what: str) -> None:
    assert code in DOCUMENTED_EXIT, f"{what}: exit {code}\n{err[-2000:]}"
    assert not _CRASH.search(err) and not _CRASH.search(out), f"{what}: traceback\n{err[-3000:]}"
    assert not has_unsafe(out), f"{what}: raw control characters on stdout: {_first_unsafe(out)!r}"
    assert not has_unsafe(err), f"{what}: raw control characters on stderr: {_first_unsafe(err)!r}"


def _first_unsafe(text: str) -> str:
    from gpudoctor.sanitize import _UNSAFE

    m = _UNSAFE.search(text)
    return text[max(0, m.start() - 40) : m.end() + 40] if m else ""


def _write(tmp_path: Path, case: Case) -> str:
    path = tmp_path / "snapshot.json"
    path.write_text(case.text(), encoding="utf-8", errors="surrogatepass")
    return str(path)


def _collect(case: Case, doc: dict) -> None:
    lines = [line for step in (doc.get("plan") or {}).get("steps", []) for line in step.get("lines", [])]
    for f in doc.get("findings", []):
        lines += (f.get("remediation") or {}).get("commands", [])
    PRINTED[case.name] = lines


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_check_on_hostile_machine(case, tmp_path):
    path = _write(tmp_path, case)
    code, out, err = run_cli("check", "--replay", path)
    assert_clean_run(code, out, err, f"{case.name} text")
    code, out, err = run_cli("check", "--replay", path, "--format", "json")
    assert_clean_run(code, out, err, f"{case.name} json")
    doc = json.loads(out)
    _collect(case, doc)
    assert doc["schema"] == "gpudoctor.report/1"


@pytest.mark.parametrize("case", CASES[::5], ids=[c.name for c in CASES[::5]])
def test_ci_formats_on_hostile_machine(case, tmp_path):
    path = _write(tmp_path, case)
    summary = tmp_path / "summary.md"
    code, out, err = run_cli("check", "--replay", path, "--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert_clean_run(code, out, err, f"{case.name} github")
    assert not _FORGED.search(out), f"{case.name}: a forged workflow command"
    for line in out.splitlines():
        assert not line.startswith("::") or re.match(r"::(error|warning|notice|group|endgroup|debug)\b", line), line
    if summary.exists():
        text = summary.read_text(encoding="utf-8")
        assert not _FORGED.search(text) and "<script" not in text.lower()
    code, out, err = run_cli("check", "--replay", path, "--format", "junit")
    assert_clean_run(code, out, err, f"{case.name} junit")
    if code in (0, 1):
        ET.fromstring(out)


@pytest.mark.parametrize("case", FUZZ, ids=[c.name for c in FUZZ])
def test_malformed_snapshot(case, tmp_path):
    path = _write(tmp_path, case)
    for fmt in ("text", "json"):
        code, out, err = run_cli("check", "--replay", path, "--format", fmt)
        assert_clean_run(code, out, err, f"{case.name} {fmt}")
        if fmt == "json":
            doc = json.loads(out)  # a report, or the error document: never nothing
            assert doc["schema"] == "gpudoctor.report/1"
            if code == 3:
                assert doc["status"] == "doctor-error" and doc["error"]["message"]


@pytest.mark.parametrize("case", CASES[::7], ids=[c.name for c in CASES[::7]])
def test_install_and_fix_plans_on_hostile_machine(case, tmp_path):
    path = _write(tmp_path, case)
    for argv in (
        ("install", "torch", "--replay", path, "--dry-run"),
        ("fix", "--replay", path, "--dry-run"),
        ("install", "jax", "--replay", path, "--dry-run", "--format", "json"),
    ):
        code, out, err = run_cli(*argv)
        assert_clean_run(code, out, err, f"{case.name} {' '.join(argv[:2])}")
        if "json" in argv and code != 2:
            json.loads(out)
