"""Which test states which documented rule: `@states("cuda-link-dangling", FIRES)` on a test in tests/spec.

The subjects are the finding codes (each docs/findings page: when it fires, when it does not) and the
refusals of switch-cuda and fix (docs/switch-cuda.md, "Refuses rather than destroys"; docs/security.md,
"Root"). tests/spec/test_registry.py fails when a subject has no test of a kind it needs, and keeps the map in
docs/testing.md ("Specification tests") equal to what the tests declare: `python -m tests.spec.registry`
prints the map, `--write` puts it into docs/testing.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

FIRES = "fires"
QUIET = "does not fire"
REFUSES = "refuses"
PROCEEDS = "proceeds"
KINDS = (FIRES, QUIET, REFUSES, PROCEEDS)

SPEC = Path(__file__).resolve().parent
ROOT = SPEC.parents[1]
DOC = ROOT / "docs" / "testing.md"
BEGIN, END = "<!-- spec-map: begin (python -m tests.spec.registry) -->", "<!-- spec-map: end -->"

# Every refusal the docs promise, by the name tests state it under, with where the docs say it.
REFUSALS = {
    "switch-cuda: not root": "docs/switch-cuda.md: You are not root",
    "switch-cuda: no terminal to ask on and no --yes": "docs/switch-cuda.md: Exit status 2",
    "switch-cuda: /usr/local/cuda is a real directory": "docs/switch-cuda.md: a real directory, not a link",
    "switch-cuda: target incomplete": "docs/switch-cuda.md: The target is incomplete",
    "switch-cuda: version not installed": "docs/switch-cuda.md: The version is not installed",
    "switch-cuda: target others can change (root)": "docs/switch-cuda.md: Run as root, the target can be changed",
    "switch-cuda: not one of update-alternatives' choices": "docs/switch-cuda.md: update-alternatives",
    "switch-cuda: Windows machine scope without Administrator": "docs/switch-cuda.md: needs an Administrator PowerShell",
    "fix: switch not root": "docs/install.md: a switch that needs root",
    "fix: no terminal to ask on and no --yes": "docs/install.md: without a terminal to ask on, the command refuses",
    "install: an interpreter others can change (root)": "docs/security.md: install and fix stop before their first step",
}

STATED: dict[str, dict[str, list[str]]] = {}

F = TypeVar("F", bound=Callable[..., object])


def states(subject: str, *kinds: str) -> Callable[[F], F]:
    """Record that the decorated test states `subject`'s documented behaviour of each kind."""
    assert kinds and all(k in KINDS for k in kinds), kinds

    def mark(test: F) -> F:
        name = f"{test.__module__.rsplit('.', 1)[-1]}.py::{test.__name__}"
        for kind in kinds:
            names = STATED.setdefault(subject, {}).setdefault(kind, [])
            if name not in names:
                names.append(name)
        return test

    return mark


def load_all() -> dict[str, dict[str, list[str]]]:
    """Import every spec test module, so that STATED holds every declaration."""
    for path in sorted(SPEC.glob("test_*.py")):
        importlib.import_module(f"tests.spec.{path.stem}")
    return STATED


def finding_codes() -> list[str]:
    return sorted(p.stem for p in (ROOT / "docs" / "findings").glob("*.md"))


def render_map() -> str:
    """The map docs/testing.md holds between BEGIN and END."""
    stated = load_all()
    lines = [BEGIN, "", "| Finding code | Fires | Does not fire |", "| --- | --- | --- |"]
    for code in finding_codes():
        kinds = stated.get(code, {})
        lines.append(f"| `{code}` | {_tests(kinds.get(FIRES))} | {_tests(kinds.get(QUIET))} |")
    lines += ["", "| Refusal | Refuses | Proceeds otherwise |", "| --- | --- | --- |"]
    for name in REFUSALS:
        kinds = stated.get(name, {})
        lines.append(f"| {name} | {_tests(kinds.get(REFUSES))} | {_tests(kinds.get(PROCEEDS))} |")
    return "\n".join([*lines, "", END])


def _tests(names: list[str] | None) -> str:
    return "<br>".join(f"`{n}`" for n in sorted(names or ())) or "none"


def documented_map() -> str:
    text = DOC.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    return text[start : end + len(END)] if start >= 0 and end > start else ""


def write_map() -> None:
    """Put the map into docs/testing.md, between BEGIN and END."""
    text = DOC.read_text(encoding="utf-8")
    old = documented_map()
    assert old, f"docs/testing.md has no {BEGIN} ... {END} block"
    DOC.write_text(text.replace(old, render_map()), encoding="utf-8")


if __name__ == "__main__":
    import sys

    # Through the imported module: the test modules record into its STATED, not into this __main__'s.
    from tests.spec import registry

    if "--write" in sys.argv[1:]:
        registry.write_map()
    else:
        print(registry.render_map())
