"""The house's plan, held against the code's own imports (docs/architecture.md): no import circle, and no
import from a lower layer to a higher one. Every `import` and `from ... import` of gpudoctor's modules
counts, the ones inside functions too (a lazy import is still a dependency); only the names imported
under `if TYPE_CHECKING:` are left out (they never run). Read with `ast`, nothing is imported.

A new module lands in the layer its path says (LAYERS: the longest prefix that names it); a new folder or
top-level module must be given its layer here, and in docs/architecture.md.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

# The layers, lowest first (docs/architecture.md draws them). A module may import its own layer or lower
# ones, never a higher one.
LAYERS: tuple[tuple[str, ...], ...] = (
    # what every layer shares: errors, output cleaning, commands as data, versions, the finding model,
    # bounded reads, atomic and user files, who may be trusted, ELF reading
    (
        "gpudoctor",
        "gpudoctor.errors",
        "gpudoctor.sanitize",
        "gpudoctor.cmdline",
        "gpudoctor.versions",
        "gpudoctor.record",
        "gpudoctor.probed",
        "gpudoctor.model",
        "gpudoctor.trust",
        "gpudoctor.elf",
        "gpudoctor.bounded",
        "gpudoctor.textfile",
        "gpudoctor.userfile",
        "gpudoctor.textfit",
        "gpudoctor.atomicfile",
        "gpudoctor.elfsyms",
        "gpudoctor.symbols",
        "gpudoctor.extension_facts",
        "gpudoctor.windows_facts",
        "gpudoctor.schemas",
    ),
    ("gpudoctor.parsers",),  # text machines print -> values
    ("gpudoctor.host",),  # the one seam to a machine: live, recorded, replayed
    ("gpudoctor.facts", "gpudoctor.loader"),  # what the probes saw; how ld.so would resolve a library
    ("gpudoctor.probes", "gpudoctor.matrix"),  # host -> facts; the compatibility matrix
    ("gpudoctor.memory",),  # who holds GPU memory (the memory command, and the memory rules' helpers)
    ("gpudoctor.planner",),  # what to do: choices and commands, no I/O
    ("gpudoctor.checks",),  # the rules: facts -> findings (fixes from the planner)
    ("gpudoctor.doctor", "gpudoctor.install", "gpudoctor.switch_cuda", "gpudoctor.switch_cuda_windows"),
    ("gpudoctor.pasted",),  # pasted text -> a partial snapshot, and what to ask for
    ("gpudoctor.pipeline",),  # a check's one result
    ("gpudoctor.render", "gpudoctor.report_merge"),  # results -> text, JSON, CI and fleet formats
    ("gpudoctor.bandwidth",),  # bench bandwidth: measure, judge, draw
    ("gpudoctor.cli", "gpudoctor.__main__"),  # the command line: parses options, selects, prints
)


def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _known(name: str) -> str | None:
    """The module of ours that `name` (a module, or a name in one) is, or None."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking_only(tree: ast.Module) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skipped


def imports_of(module: str) -> set[str]:
    """The modules of ours that `module` imports, anywhere in it."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {_known(a.name) for a in node.names} - {None}  # type: ignore[arg-type]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package
                for _ in range(node.level - 1):
                    up = up.rpartition(".")[0]
                base = f"{up}.{base}" if base else up
            for alias in node.names:
                target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else _known(base)
                if target:
                    found.add(target)
    found.discard(module)
    return {m for m in found if m.split(".")[0] == "gpudoctor"}


@functools.lru_cache(maxsize=1)
def graph() -> dict[str, set[str]]:
    return {m: imports_of(m) for m in MODULES if m.split(".")[0] == "gpudoctor"}


def layer_of(module: str) -> int:
    best, layer = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, layer = len(prefix), i
    return layer


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_import_graph_is_read():
    edges = graph()
    # A few arrows every reader of docs/architecture.md relies on: if these are not seen, the reading is broken.
    assert "gpudoctor.planner.plan" in edges["gpudoctor.checks.frameworks"]
    assert "gpudoctor.checks" in edges["gpudoctor.doctor"]  # (inside a function: counted)
    assert "gpudoctor.render.formats" in edges["gpudoctor.cli.check"]


def test_no_import_circle():
    # None anywhere, the command line's own modules included (cli/__init__ hands --version and explain to cli/fast,
    # which holds the version line: the arrow runs one way).
    assert circles(graph()) == []


def _drawn_layers() -> list[set[str]]:
    """docs/architecture.md's drawing of the layers, lowest first: the names of each row (`checks/` is
    gpudoctor.checks), the ground floor's two rows as one."""
    text = (SRC.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("```", 2)[1]
    rows: list[set[str]] = []
    for line in block.splitlines():
        if not line.strip() or set(line.strip()) == {"─"}:
            continue
        # The names, then three spaces or more, then what the row is.
        names = re.split(r" {3,}", line.strip())[0].split()
        rows.append({f"gpudoctor.{name.rstrip('/')}" for name in names})
    rows.reverse()
    # The ground floor is drawn on two rows (the last two of the block): one layer.
    return [rows[0] | rows[1], *rows[2:]]


def test_the_drawing_in_docs_architecture_is_the_layers_table():
    assert _drawn_layers() == [set(layer) - {"gpudoctor"} for layer in LAYERS]


def test_every_module_has_a_layer():
    assert [m for m in MODULES if m.split(".")[0] == "gpudoctor" and layer_of(m) < 0] == []


def test_no_import_runs_up_a_layer():
    upward = [
        f"{a} (layer {layer_of(a)}) imports {b} (layer {layer_of(b)})"
        for a, targets in sorted(graph().items())
        for b in sorted(targets)
        if layer_of(b) > layer_of(a)
    ]
    assert upward == []


def test_the_checks_find_a_circle_and_an_upward_import_when_there_is_one():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert layer_of("gpudoctor.checks.toolkit") > layer_of("gpudoctor.planner.plan") > layer_of("gpudoctor.matrix.queries")


def _body_lines(function: ast.FunctionDef) -> int:
    """A function's body in lines, its signature and docstring left out."""
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and len(body) > 1:
        body = body[1:]
    return (body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1


def test_the_check_command_decides_in_under_60_lines():
    # Issue 26: `check`'s command is wiring. typer's function (`check` inside `register`) holds the option
    # declarations in its signature and hands them to `run`, which decides: request, host, one pipeline result,
    # its format's output and exit status. Each body under 60 lines (today 21 and 37).
    tree = ast.parse((SRC / "gpudoctor" / "cli" / "check.py").read_text(encoding="utf-8"))
    top = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    command = next(f for f in ast.walk(top["register"]) if isinstance(f, ast.FunctionDef) and f.name == "check")
    bodies = {"check": _body_lines(command), "run": _body_lines(top["run"])}
    assert max(bodies.values()) < 60, bodies
