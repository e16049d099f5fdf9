"""Issue 31, item 6: views fit the terminal. Every recorded machine's install plan (each framework, --cpu too)
at 80 and 120 columns: no prose line over the width, every command printed whole on a line of its own, and no
word lost to the wrapping. `check` (-v included) and `memory` have their own width tests (tests/unit/
test_textconsole.py, test_render_terminal.py, test_memory_width.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.test_corpus import run_cli

ROOT = Path(__file__).resolve().parents[2]
MACHINES = sorted(
    p.parent.name
    for p in [
        *(ROOT / "tests" / "machines").glob("*/snapshot.json"),
        *(ROOT / "tests" / "install_machines").glob("*/snapshot.json"),
    ]
)
FRAMEWORKS = ("torch", "tensorflow", "jax")


def _snapshot(slug: str) -> str:
    path = ROOT / "tests" / "machines" / slug / "snapshot.json"
    return str(path if path.exists() else ROOT / "tests" / "install_machines" / slug / "snapshot.json")


@pytest.mark.slow
@pytest.mark.parametrize("slug", MACHINES)
def test_every_install_plan_fits_80_and_120_columns(slug):
    for framework in FRAMEWORKS:
        for extra in ((), ("--cpu",)):
            argv = ("install", framework, "--replay", _snapshot(slug), "--offline", *extra)
            code, doc_out, _ = run_cli(*argv, "--format", "json")
            if code == 2:
                continue  # no target on this machine (no GPU, no driver): a usage error, no plan to print
            assert json.loads(doc_out)["exit_code"] == code
            code, whole, _ = run_cli(*argv)  # piped: whole lines
            for width in (80, 120):
                code_w, out, _ = run_cli(*argv, env={"COLUMNS": str(width)})
                assert code_w == code, (slug, framework, extra)
                lines = out.splitlines()
                shown = {line.strip() for line in lines}
                long = [line for line in lines if len(line) > width and line.strip() not in _commands(whole)]
                assert not long, (slug, framework, extra, width, long)
                for command in _commands(whole):
                    assert command in shown, (slug, framework, width, command)  # whole, on its own line
                assert out.split() == whole.split(), (slug, framework, width)  # wrapping moved words, lost none


def _commands(text: str) -> set[str]:
    """The plan's command lines as the piped (unwrapped) view prints them: the lines indented by two under a heading
    that introduces commands ("the plan (pip; ...):", "the same with uv:", "to go back to what is installed now:")."""
    out, under = set(), False
    for line in text.splitlines():
        if not line.startswith(" "):
            under = line.endswith(":") and line.startswith(("the plan", "the same with", "to go back"))
        elif under and line.startswith("  ") and not line.startswith("   "):
            out.add(line.strip())
    return out
