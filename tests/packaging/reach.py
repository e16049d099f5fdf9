"""Which of gpudoctor's functions a pytest run reaches: the guard of the `typer_rich` subset.

tests/packaging/test_dependency_range.py runs only the tests marked `typer_rich` under the oldest and the newest
typer and rich pyproject.toml allows. That subset is chosen by a rule this module keeps honest: every module of
src/ that imports typer or rich (click comes inside typer) and every command of the app has a function of its own
run by the subset. A module that starts importing rich, or a new command, with no marked test reaching it, fails
the range test and names it, instead of leaving that code untested under the other typer or rich.

Loaded into the run as a plugin (`-p tests.packaging.reach`), it writes to the file named by GPUDOCTOR_REACH:
- `reached`: each function of the installed gpudoctor package that started in this process (path relative to
  the package, first line), recorded on the first call only (sys.monitoring where Python has it, 3.12 on;
  a global trace function that asks for no line events before);
- `commands`: each command callback of the real app (path, first line, command path).
Code run only in a `python -m gpudoctor` subprocess is not seen: such a module needs an in-process marked test.
"""

from __future__ import annotations

import ast
import json
import os
import sys
import threading
from pathlib import Path

# What the subset exists for: these distributions' APIs (typer carries its own click as typer._click).
SURFACE = ("typer", "rich", "click")

_reached: set[tuple[str, int]] = set()
_package = ""


def _record(code) -> None:
    if code.co_filename.startswith(_package) and code.co_name != "<module>":
        _reached.add((Path(code.co_filename).relative_to(_package).as_posix(), code.co_firstlineno))


def _start() -> None:
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        tool = next(i for i in range(5, 0, -1) if monitoring.get_tool(i) is None)
        monitoring.use_tool_id(tool, "gpudoctor-reach")

        def started(code, offset):
            _record(code)
            return monitoring.DISABLE  # one event per code object: the rest of the run is not slowed

        monitoring.register_callback(tool, monitoring.events.PY_START, started)
        monitoring.set_events(tool, monitoring.events.PY_START)
        return

    def trace(frame, event, arg):
        _record(frame.f_code)
        return None  # no line events

    sys.settrace(trace)
    threading.settrace(trace)


def pytest_configure(config) -> None:
    global _package
    if not os.environ.get("GPUDOCTOR_REACH"):
        return
    import gpudoctor

    _package = str(Path(gpudoctor.__file__).parent) + os.sep  # as code objects name their files
    _start()


def _commands() -> list[tuple[str, int, str]]:
    import inspect

    import typer.main

    from tests.conftest import real_app

    found = []

    def walk(command, path: str) -> None:
        if command.callback is not None:
            code = inspect.unwrap(command.callback).__code__
            found.append((Path(code.co_filename).relative_to(_package).as_posix(), code.co_firstlineno, path))
        for name, sub in (getattr(command, "commands", None) or {}).items():
            walk(sub, f"{path} {name}")

    walk(typer.main.get_command(real_app()), "gpudoctor")
    return found


def pytest_unconfigure(config) -> None:
    out = os.environ.get("GPUDOCTOR_REACH")
    if not out or not _package:
        return
    sys.settrace(None)
    report = {"reached": sorted(_reached), "commands": _commands()}
    Path(out).write_text(json.dumps(report), encoding="utf-8")


# --- the rule, applied to a report -----------------------------------------------------------------------------


def _imports_surface(node) -> bool:
    if isinstance(node, ast.Import):
        return any(a.name.split(".")[0] in SURFACE for a in node.names)
    return isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in SURFACE


def _type_checking(node) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def surface_code(src: Path) -> dict[str, list[int]]:
    """Where the package `src` (src/gpudoctor) calls into typer, rich or click: for each module, the first lines
    (as code objects count them: the first decorator's) of the functions whose own body imports one of them (most
    import on demand), or [] for a module that imports one at its top (any of its functions will do). Imports
    under `if TYPE_CHECKING:` are annotations only and do not count."""
    found: dict[str, set[int]] = {}  # 0: imported at the top of the module

    def visit(node, function, module: str) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                visit(child, first, module)
            elif isinstance(child, ast.ClassDef):
                visit(child, None, module)
            else:
                if _imports_surface(child):
                    found.setdefault(module, set()).add(0 if function is None else function)
                visit(child, function, module)

    for path in sorted(src.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if any(name in text for name in SURFACE):  # parsed only where an import of one can be
            visit(ast.parse(text), None, path.relative_to(src).as_posix())
    return {module: ([] if 0 in lines else sorted(lines)) for module, lines in found.items()}


def unreached(report: dict, surface: dict[str, list[int]]) -> list[str]:
    """What the run of `report` left unreached of `surface` (surface_code's answer): each function that imports
    typer, rich or click and did not run, each module importing one at its top none of whose functions ran, each
    command whose callback did not run. Empty when the subset covers the surface."""
    reached = {(path, line) for path, line in report["reached"]}
    files = {path for path, _ in reached}
    missing = []
    for module, lines in sorted(surface.items()):
        if not lines and module not in files:
            missing.append(f"{module}: no function of it ran")
        missing += [
            f"{module}:{line}: this function imports typer or rich and never ran"
            for line in lines
            if (module, line) not in reached
        ]
    missing += [
        f"command `{name}` ({path}:{line}) never ran" for path, line, name in report["commands"] if (path, line) not in reached
    ]
    return missing
