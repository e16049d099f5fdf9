"""The real CLI's JSON report of a paste, for tests that read a blind case or a paste as a user runs it (`check --from
FILE --format json`): one place for what test_symptom_families and test_failure_unshown both read."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.test_corpus import run_cli

ROOT = Path(__file__).resolve().parents[2]


def blind_case(rel: str) -> Path:
    """The input of the blind case whose folder starts with `rel` ("plans7/cases/620")."""
    (path,) = ROOT.glob(f"tests/blind/{rel}*/input.txt")
    return path


def check(path: Path) -> dict:
    """The JSON report of `check --from path`; its exit code must be the one the report states."""
    code, out, err = run_cli("check", "--from", str(path), "--format", "json")
    doc = json.loads(out)
    assert code == doc["exit_code"], err
    return doc


def paste(tmp_path: Path, text: str) -> dict:
    """The JSON report of `text` pasted into a file."""
    path = tmp_path / "issue.txt"
    path.write_text(text, encoding="utf-8")
    return check(path)


def asked(doc: dict) -> list[list[str]]:
    """The argv of each ask, in order."""
    return [a["argv"] for a in doc["pasted"]["ask_for"] or []]
