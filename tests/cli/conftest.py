"""The real CLI (typer's CliRunner on gpudoctor.cli.app) on the replayed machines of tests/cli/machines/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

MACHINES = Path(__file__).resolve().parent / "machines"


def machine(name: str) -> str:
    return str(MACHINES / f"{name}.json")


def machine_variant(tmp_path: Path, name: str, change) -> str:
    """A copy of a machine with `change(snapshot)` applied, written under tmp_path."""
    snap = json.loads((MACHINES / f"{name}.json").read_text(encoding="utf-8"))
    change(snap)
    path = tmp_path / f"{name}-variant.json"
    path.write_text(json.dumps(snap), encoding="utf-8")
    return str(path)


class Gpudoctor:
    def __init__(self) -> None:
        import gpudoctor.cli as cli

        cli._register()
        self.app = cli.app
        self.runner = CliRunner()

    def __call__(self, *args: str, env: dict[str, str | None] | None = None):
        # CI runners set GITHUB_STEP_SUMMARY; a test sees it only when it sets it itself.
        full_env = {"GITHUB_STEP_SUMMARY": None, **(env or {})}
        return self.runner.invoke(self.app, list(args), env=full_env, catch_exceptions=False)


@pytest.fixture(scope="session")
def gd() -> Gpudoctor:
    return Gpudoctor()
