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

# Every refusal the docs promise, by the name tests state it under: (the page, words of it that say so).
# tests/spec/test_registry.py checks that each page still says them.
REFUSALS = {
    "switch-cuda: not root": ("docs/switch-cuda.md", "You are not root: the process cannot write where the switch writes"),
    "switch-cuda: no terminal to ask on and no --yes": ("docs/switch-cuda.md", "or no terminal to ask on and no `--yes`"),
    "switch-cuda: /usr/local/cuda is a real directory": ("docs/switch-cuda.md", "is a real directory, not a link"),
    "switch-cuda: target incomplete": ("docs/switch-cuda.md", "The target is incomplete"),
    "switch-cuda: version not installed": ("docs/switch-cuda.md", "The version is not installed."),
    "switch-cuda: target others can change (root)": ("docs/switch-cuda.md", "Run as root, the target can be changed"),
    "switch-cuda: not one of update-alternatives' choices": ("docs/switch-cuda.md", "not registered as one of the choices"),
    "switch-cuda: another switch holds the lock": ("docs/switch-cuda.md", "A second switch waits up to 10 seconds, then refuses"),
    "switch-cuda: the link changed since the plan": ("docs/switch-cuda.md", "changed the link in the meantime, nothing is done"),
    "switch-cuda: Windows machine scope without Administrator": ("docs/switch-cuda.md", "It needs an Administrator PowerShell"),
    "switch-cuda: Windows toolkit without nvcc.exe": ("docs/switch-cuda.md", "is refused as incomplete"),
    "fix: switch not root": ("docs/install.md", "/usr/local/cuda needs root`, then the `sudo` line"),
    "fix: no terminal to ask on and no --yes": ("docs/install.md", "without a terminal to ask on, the command refuses (exit 2)"),
    "install: an interpreter others can change (root)": ("docs/security.md", "stop before their first step"),
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
