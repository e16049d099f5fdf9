"""The quality gates stay wired: `make test` runs `make lint` (ruff and mypy), with the settings in pyproject.toml."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # tomli, a dependency on Python 3.10 only
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def _recipe(target: str) -> tuple[list[str], list[str]]:
    """A Makefile target's prerequisites and its recipe lines."""
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        m = re.match(rf"{re.escape(target)}:(?!=)(.*)$", line)
        if m:
            recipe = []
            for body in lines[i + 1 :]:
                if not body.startswith("\t"):
                    break
                recipe.append(body.strip())
            return m.group(1).split(), recipe
    raise AssertionError(f"no {target} target in the Makefile")


def test_make_test_runs_the_gates_first():
    prerequisites, _ = _recipe("test")
    assert "lint" in prerequisites
    _, recipe = _recipe("lint")
    assert any("ruff check src tests" in r for r in recipe)
    assert any("ruff format --check" in r for r in recipe)
    assert any(r.endswith("/mypy") for r in recipe)  # files and settings from [tool.mypy]


def test_pyproject_holds_the_gates_settings_and_installs_the_tools():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    tool = config["tool"]
    assert tool["ruff"]["target-version"] == "py310"
    assert {"E4", "E7", "E9", "F", "I", "B", "UP", "SIM"} <= set(tool["ruff"]["lint"]["select"])
    mypy = tool["mypy"]
    assert mypy["python_version"] == "3.10" and mypy["files"] == ["src"]
    # Honest settings: no module's errors silenced wholesale.
    assert "ignore_errors" not in mypy and "ignore_missing_imports" not in mypy
    assert all("ignore_errors" not in o for o in mypy.get("overrides", []))
    extras = {re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0] for r in config["project"]["optional-dependencies"]["test"]}
    assert {"ruff", "mypy"} <= extras
