"""Mutation testing of the rules: plant one small bug at a time and see whether the fast tests notice.

    python tools/mutate.py                      # every mutant of the default modules (slow: see --sample)
    python tools/mutate.py --sample 400 --seed 1
    python tools/mutate.py --list               # print the mutants and exit
    make mutation                               # the same, with the settings docs/testing.md quotes

A small mutator of the project's own, on `ast` (no dependency): for every comparison, boolean operator,
condition, branch, return, integer/boolean constant and arithmetic operator in the target modules it makes
one mutant (flip `<` to `<=`, `==` to `!=`, `and` to `or`; negate a condition; drop an `if` body, an `else`,
a statement; return None; add one to a constant; swap `+` and `-`). Only the source text of that one node is
replaced, so the file keeps its comments and formatting and a test that reads the source sees one change.

The mutants run in a temporary COPY of the tree, never in the working tree (other people edit it). A first
pass runs the fast tests once with a line tracer, in this process and in every subprocess they start (a
sitecustomize on PYTHONPATH), and records which tests execute which lines; each mutant then runs only the
tests that execute its lines, the quickest first, with -x and a timeout. A mutant whose lines
no test executes runs nothing and survives ("no test reaches it"); one whose lines run only at import time
runs the whole fast set. The parent never imports gpudoctor: each mutant is a fork that imports the mutated
copy fresh, so a run costs pytest's test time, not its start-up.

Outcomes: killed (a test failed or the mutant would not import), survived (the selected tests passed),
timeout (the tests ran past the limit: counted as killed, reported apart). The score is killed+timeout over
the mutants run. Results go to build/mutation/results.json and survivors.txt (the diff of each survivor).
Not part of `make test` or CI: it takes tens of minutes.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import difflib
import hashlib
import inspect
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: The modules whose rules the issue asks to be guarded (issue 20): the checks, the matrix queries, the
#: loader, requirements, the installer's choice, switch-cuda and the renderers.
TARGETS = (
    "src/gpudoctor/checks/*.py",
    "src/gpudoctor/matrix/queries.py",
    "src/gpudoctor/matrix/terms.py",
    "src/gpudoctor/versions.py",
    "src/gpudoctor/loader.py",
    "src/gpudoctor/checks/requirements.py",
    "src/gpudoctor/install/pick_*.py",
    "src/gpudoctor/planner/plan.py",
    "src/gpudoctor/planner/judge.py",
    "src/gpudoctor/switch_cuda.py",
    "src/gpudoctor/render/*.py",
)

#: The fast tests a mutant may select from (the slow, GPU and packaging tests are left out).
TESTS = (
    "tests/unit",
    "tests/machines",
    "tests/real",
    "tests/pasted",
    "tests/test_plans.py",
    "tests/test_machines.py",
    "tests/cli",
    "tests/hostile",  # the escaping and bounds tests guard the renderers too
    "tests/spec",  # every documented rule stated once (docs/testing.md, "Specification tests")
)

COPY_IGNORE = shutil.ignore_patterns(".venv", ".git", "build", "__pycache__", "*.egg-info", ".mypy_cache", ".ruff_cache")

COMPARE_SWAP = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
BINOP_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult}


@dataclass
class Mutant:
    id: str
    file: str  # relative to the tree
    line: int
    end_line: int
    kind: str
    description: str
    start: int  # character offsets of the replaced text in the original source
    end: int
    replacement: str


def _offsets(source: str) -> list[int]:
    starts, pos = [0], 0
    for line in source.splitlines(keepends=True):
        pos += len(line.encode("utf-8"))
        starts.append(pos)
    return starts


class _Generator:
    """Walks one module and yields (node span, replacement text, kind, description) for each mutation."""

    def __init__(self, rel: str, source: str):
        self.rel = rel
        self.source = source
        self.raw = source.encode("utf-8")
        self.line_starts = _offsets(source)
        self.mutants: list[Mutant] = []
        self.skip: set[int] = set()  # ids of nodes not to mutate (annotations, docstrings, f-string parts)
        self.seen: dict[tuple[str, str, str], int] = {}
        self.scope: dict[int, str] = {}  # node id -> the qualified name of the function or class around it

    def _span(self, node: ast.AST) -> tuple[int, int]:
        start = self.line_starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end = self.line_starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return start, end

    def _add(self, node: ast.AST, replacement: str, kind: str, description: str, span_of: ast.AST | None = None, end_node=None):
        first = span_of or node
        last = end_node or first
        start, _ = self._span(first)
        _, end = self._span(last)
        original = self.raw[start:end].decode("utf-8")
        if original == replacement:
            return
        # An id that survives edits elsewhere (docs/testing.md names survivors by it): the file, then a hash of
        # the enclosing function's qualified name, the replaced text, its replacement and how many times that
        # pair came before in that function (in source order). An edit in another function changes no id.
        key = (self.scope.get(id(first), ""), original, replacement)
        self.seen[key] = self.seen.get(key, 0) + 1
        digest = hashlib.sha1(repr((*key, self.seen[key])).encode()).hexdigest()[:8]
        self.mutants.append(
            Mutant(
                id=f"{self.rel.removeprefix('src/gpudoctor/')}#{digest}",
                file=self.rel,
                line=first.lineno,  # type: ignore[attr-defined]
                end_line=getattr(last, "end_lineno", None) or first.lineno,  # type: ignore[attr-defined]
                kind=kind,
                description=description,
                start=start,
                end=end,
                replacement=replacement,
            )
        )

    def _mark_skipped(self, tree: ast.AST) -> None:
        for node in ast.walk(tree):
            targets: list[ast.AST] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                targets += [a.annotation for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs if a.annotation]
                if node.returns:
                    targets.append(node.returns)
            if isinstance(node, ast.AnnAssign):
                targets.append(node.annotation)
            if isinstance(node, ast.JoinedStr):
                targets.append(node)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                    targets.append(first)
            if isinstance(node, ast.If) and _is_guard(node.test):
                targets.append(node)
            for target in targets:
                for sub in ast.walk(target):
                    self.skip.add(id(sub))

    def _mark_scopes(self, node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = f"{scope}.{child.name}" if scope else child.name
            self.scope[id(child)] = inner
            self._mark_scopes(child, inner)

    def run(self) -> list[Mutant]:
        tree = ast.parse(self.source)
        self._mark_skipped(tree)
        self._mark_scopes(tree, "")
        nodes = [n for n in ast.walk(tree) if id(n) not in self.skip]
        # Source order, so that "the how-manieth in this function" does not depend on the tree's depth.
        nodes.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
        for node in nodes:
            self._visit(node)
        return self.mutants

    def _visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                swapped = COMPARE_SWAP.get(type(op))
                if swapped is None:
                    continue
                new = copy.deepcopy(node)
                new.ops[i] = swapped()
                self._add(node, f"({ast.unparse(new)})", "compare", f"{_op(op)} -> {_op(swapped())}")
        elif isinstance(node, ast.BoolOp):
            boolop = copy.deepcopy(node)
            boolop.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            self._add(node, f"({ast.unparse(boolop)})", "boolop", "and -> or" if isinstance(node.op, ast.And) else "or -> and")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self._add(node, f"({ast.unparse(node.operand)})", "not", "drop `not`")
        elif isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAP:
            binop = copy.deepcopy(node)
            binop.op = BINOP_SWAP[type(node.op)]()
            self._add(node, f"({ast.unparse(binop)})", "arith", f"{_op(node.op)} -> {_op(binop.op)}")
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            self._add(node, str(not node.value), "constant", f"{node.value} -> {not node.value}")
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            self._add(node, f"({node.value + 1})", "constant", f"{node.value} -> {node.value + 1}")
        elif isinstance(node, ast.Return) and node.value is not None and not _is_none(node.value):
            self._add(node, "return None", "return", "return None")
        if isinstance(node, (ast.If, ast.While, ast.IfExp)) and not isinstance(node.test, (ast.Compare, ast.UnaryOp)):
            self._add(node.test, f"(not {_paren(ast.unparse(node.test))})", "negate", "negate the condition")
        if isinstance(node, ast.If):
            self._add(node.body[0], "pass", "drop-branch", "drop the if body", end_node=node.body[-1])
            if node.orelse and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
                self._add(node.orelse[0], "pass", "drop-branch", "drop the else body", end_node=node.orelse[-1])
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list) or isinstance(node, ast.If):
                continue
            for stmt in stmts:
                if id(stmt) in self.skip:
                    continue
                if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                    self._add(stmt, "pass", "drop-statement", "drop the call")
                elif isinstance(stmt, (ast.Continue, ast.Break)):
                    self._add(stmt, "pass", "drop-statement", f"drop `{ast.unparse(stmt)}`")


def _is_guard(test: ast.AST) -> bool:
    """`if TYPE_CHECKING:` and `if __name__ == "__main__":` change nothing a test can see."""
    text = ast.unparse(test)
    return text in ("TYPE_CHECKING", "typing.TYPE_CHECKING") or text.startswith("__name__ ==")


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _paren(text: str) -> str:
    return f"({text})"


def _op(op: ast.AST) -> str:
    symbols = {
        ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
        ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-", ast.Mult: "*",
        ast.FloorDiv: "//", ast.Div: "/",
    }  # fmt: skip
    return symbols.get(type(op), type(op).__name__)


def generate(tree_root: Path, patterns=TARGETS) -> list[Mutant]:
    mutants: list[Mutant] = []
    for pattern in patterns:
        for path in sorted(tree_root.glob(pattern)):
            if path.name == "__init__.py" and path.stat().st_size < 200:
                continue
            rel = str(path.relative_to(tree_root))
            for m in _Generator(rel, path.read_text(encoding="utf-8")).run():
                mutated = apply(path.read_bytes(), m)
                try:
                    ast.parse(mutated)
                except SyntaxError:
                    continue
                mutants.append(m)
    return mutants


def apply(raw: bytes, m: Mutant) -> bytes:
    return raw[: m.start] + m.replacement.encode("utf-8") + raw[m.end :]


def diff(raw: bytes, m: Mutant) -> str:
    before = raw.decode("utf-8").splitlines(keepends=True)
    after = apply(raw, m).decode("utf-8").splitlines(keepends=True)
    return "".join(difflib.unified_diff(before, after, m.file, m.file, n=1))


# ---- the line tracer (coverage per test) -------------------------------------------------------

SITECUSTOMIZE = r"""
# Written by tools/mutate.py for its coverage pass: trace the target files in every Python subprocess.
import os, sys, atexit
_out = os.environ.get("MUTATE_TRACE_DIR")
_targets = set(filter(None, os.environ.get("MUTATE_TARGETS", "").split(os.pathsep)))
if _out and _targets:
    _hits = set()
    def _local(frame, event, arg):
        if event == "line":
            _hits.add((frame.f_code.co_filename, frame.f_lineno))
        return _local
    def _global(frame, event, arg):
        if frame.f_code.co_filename in _targets:
            _hits.add((frame.f_code.co_filename, frame.f_lineno))
            return _local
        return None
    sys.settrace(_global)
    import threading
    threading.settrace(_global)
    def _dump():
        test = os.environ.get("MUTATE_CURRENT_TEST", "")
        path = os.path.join(_out, "sub-%d.json" % os.getpid())
        import json
        with open(path + ".tmp", "w") as f:
            json.dump({"test": test, "hits": sorted(_hits)}, f)
        os.replace(path + ".tmp", path)
    atexit.register(_dump)
"""


class _TracePlugin:
    """Records, for each test, the target lines it executes; lines run before any test are import-time."""

    def __init__(self, targets: set[str]):
        self.targets = targets
        self.current = ""
        self.hits: dict[str, set[tuple[str, int]]] = {"": set()}
        self.order: list[str] = []
        self.durations: dict[str, float] = {}
        self.failed: set[str] = set()

    def _key(self, frame) -> str:
        # A module's or class body's own lines run once, at import, during whichever test imported it first:
        # they are import-time (""), and select_tests gives them every test that runs the module's code.
        return self.current if frame.f_code.co_flags & inspect.CO_OPTIMIZED else ""

    def _local(self, frame, event, arg):
        if event == "line":
            self.hits[self._key(frame)].add((frame.f_code.co_filename, frame.f_lineno))
        return self._local

    def _global(self, frame, event, arg):
        if frame.f_code.co_filename in self.targets:
            self.hits[self._key(frame)].add((frame.f_code.co_filename, frame.f_lineno))
            return self._local
        return None

    def start(self):
        import threading

        sys.settrace(self._global)
        threading.settrace(self._global)

    def pytest_collection_modifyitems(self, items):
        self.order = [item.nodeid for item in items]

    def pytest_runtest_protocol(self, item, nextitem):
        self.current = item.nodeid
        self.hits.setdefault(item.nodeid, set())
        os.environ["MUTATE_CURRENT_TEST"] = item.nodeid
        self._t0 = time.monotonic()

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.failed.add(report.nodeid)

    def pytest_runtest_logfinish(self, nodeid, location):
        self.durations[nodeid] = self.durations.get(nodeid, 0.0) + time.monotonic() - self._t0
        self.current = ""


def coverage_pass(copy_root: Path, mutants: list[Mutant], out: Path, shards: int = 1) -> dict:
    """Run the fast tests once with the tracer; return {"order", "durations", "lines": {file: {line: [tests]}}}.

    shards > 1 splits the test files among that many processes run at once (a whole file stays in one, so a
    module-scoped fixture is built once, as under `make test`'s workers): the tracer makes every call in the
    suite slower, and one traced process took over an hour on a busy two-core machine."""
    targets = {str(copy_root / f) for f in {m.file for m in mutants}}
    trace_dir = Path(tempfile.mkdtemp(prefix="mutate-trace-"))
    site = trace_dir / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    parts = _shard(copy_root, _test_paths(copy_root), shards)
    children = {}
    for index, paths in enumerate(parts):
        log = out / ("coverage-pass.log" if len(parts) == 1 else f"coverage-pass-{index}.log")
        pid = os.fork()
        if pid == 0:  # a child: trace, run, write
            code = 1
            try:
                _enter_copy(copy_root, extra_path=str(site))
                os.environ["MUTATE_TRACE_DIR"] = str(trace_dir)
                os.environ["MUTATE_TARGETS"] = os.pathsep.join(sorted(targets))
                plugin = _TracePlugin(targets)
                plugin.start()
                import pytest

                _quiet(log)
                pytest.main([*paths, "-q", "-p", "no:cacheprovider"], plugins=[plugin])
                sys.settrace(None)
                data = {
                    "order": plugin.order,
                    "durations": plugin.durations,
                    "failed": sorted(plugin.failed),
                    "hits": {t: sorted(h) for t, h in plugin.hits.items()},
                }
                (trace_dir / f"inproc-{index}.json").write_text(json.dumps(data), encoding="utf-8")
                code = 0
            finally:
                os._exit(code)
        children[pid] = log
    failed_logs = []
    for pid, log in children.items():
        _, status = os.waitpid(pid, 0)
        if status != 0:
            failed_logs.append(str(log))
    if failed_logs:
        raise SystemExit(f"the coverage pass failed: see {', '.join(failed_logs)}")
    order: list[str] = []
    durations: dict[str, float] = {}
    failed: set[str] = set()
    hits: dict[str, list[tuple]] = {}
    for index in range(len(parts)):
        data = json.loads((trace_dir / f"inproc-{index}.json").read_text(encoding="utf-8"))
        order += data["order"]
        durations.update(data["durations"])
        failed.update(data["failed"])
        for test, test_hits in data["hits"].items():  # "" (import time) comes from every shard
            hits.setdefault(test, []).extend(tuple(h) for h in test_hits)
    for sub in trace_dir.glob("sub-*.json"):
        try:
            record = json.loads(sub.read_text(encoding="utf-8"))
        except ValueError:  # a subprocess killed while writing (a test of a hang): its lines are lost
            continue
        hits.setdefault(record["test"], []).extend(tuple(h) for h in record["hits"])
    lines: dict[str, dict[int, list[str]]] = {}
    prefix = str(copy_root) + os.sep
    for test, test_hits in hits.items():
        for filename, line in set(test_hits):
            rel = filename.removeprefix(prefix)
            lines.setdefault(rel, {}).setdefault(line, []).append(test)
    shutil.rmtree(trace_dir, ignore_errors=True)
    # A test that fails without any mutant (someone's work in progress) would "kill" every mutant it runs on.
    return {"order": [t for t in order if t not in failed], "durations": durations, "lines": lines, "failed": sorted(failed)}


def _shard(root: Path, paths: list[str], shards: int) -> list[list[str]]:
    """The test paths in `shards` groups of whole test files, balanced by size (the largest file first, to the
    group with the fewest bytes so far); one group holding the paths as given when shards <= 1."""
    if shards <= 1:
        return [list(paths)]
    files: list[Path] = []
    for rel in paths:
        entry = root / rel
        if entry.is_dir():
            files += sorted(f for f in entry.rglob("*.py") if f.name.startswith("test_") or f.name.endswith("_test.py"))
        else:
            files.append(entry)
    groups: list[list[str]] = [[] for _ in range(shards)]
    sizes = [0] * shards
    for f in sorted(files, key=lambda f: (-f.stat().st_size, str(f))):
        smallest = sizes.index(min(sizes))
        groups[smallest].append(str(f.relative_to(root)))
        sizes[smallest] += f.stat().st_size
    return [sorted(g) for g in groups if g]


# ---- running mutants ---------------------------------------------------------------------------


def _enter_copy(copy_root: Path, extra_path: str = "") -> None:
    """Make this process (and its subprocesses) import gpudoctor and tests from the copy."""
    os.chdir(copy_root)
    path = [str(copy_root / "src"), str(copy_root)] + ([extra_path] if extra_path else [])
    os.environ["PYTHONPATH"] = os.pathsep.join(path + [os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    sys.dont_write_bytecode = True
    sys.path[:0] = path


def _test_paths(root: Path) -> list[str]:
    return [t for t in TESTS if (root / t).exists()]


def _quiet(log: Path) -> None:
    fd = os.open(str(log), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)


def select_tests(m: Mutant, cov: dict) -> list[str] | None:
    """The tests that execute the mutant's lines, quickest first; None: only import-time code runs them."""
    if cov.get("tests"):
        return list(cov["tests"])
    if m.file in cov.get("stale", ()):
        return None
    by_line = cov["lines"].get(m.file, {})
    tests: set[str] = set()
    for line in range(m.line, m.end_line + 1):
        tests.update(by_line.get(line, ()))
    if "" in tests:
        # Import-time code (a constant, a default, a table): it changes what every user of the module sees.
        tests.discard("")
        tests.update(t for hits in by_line.values() for t in hits if t)
        if not tests:
            return None
    # Quickest first: with -x, the first failing test ends the mutant's run.
    rank = {t: i for i, t in enumerate(cov["order"])}
    return sorted((t for t in tests if t in rank), key=lambda t: (cov["durations"].get(t, 1.0), rank[t]))


def run_mutants(copies: list[Path], mutants: list[Mutant], cov: dict, out: Path, timeout: float, log=print) -> list[dict]:
    results: list[dict] = []
    pending = list(mutants)
    running: dict[int, tuple[Mutant, Path, float, float, int]] = {}
    free = list(copies)
    done = 0
    while pending or running:
        while pending and free:
            m = pending.pop(0)
            tests = select_tests(m, cov)
            if tests == []:
                results.append({**asdict(m), "outcome": "survived", "tests": 0, "note": "no test reaches it"})
                with open(out / "results.jsonl", "a", encoding="utf-8") as f:
                    f.write(json.dumps(results[-1]) + "\n")
                done += 1
                log(f"[{done}/{len(mutants)}] survived {m.id} {m.kind}: {m.description} (no test reaches it)")
                continue
            root = free.pop()
            budget = timeout
            if tests is not None:
                budget = min(timeout, 30 + 4 * sum(cov["durations"].get(t, 1.0) for t in tests))
            pid = _fork_mutant(root, m, tests)
            running[pid] = (m, root, time.monotonic(), budget, len(tests) if tests else -1)
        if not running:
            continue
        time.sleep(0.05)
        for pid, (m, root, t0, budget, ntests) in list(running.items()):
            finished, status = os.waitpid(pid, os.WNOHANG)
            elapsed = time.monotonic() - t0
            if not finished and elapsed > budget:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                outcome = "timeout"
            elif not finished:
                continue
            else:
                code = os.waitstatus_to_exitcode(status)
                outcome = "survived" if code == 0 else "killed"
            _restore(root, m)
            del running[pid]
            free.append(root)
            done += 1
            results.append({**asdict(m), "outcome": outcome, "tests": ntests, "seconds": round(elapsed, 1)})
            with open(out / "results.jsonl", "a", encoding="utf-8") as f:  # kept as it goes: a stopped run keeps its part
                f.write(json.dumps(results[-1]) + "\n")
            log(f"[{done}/{len(mutants)}] {outcome:8} {m.id} {m.kind}: {m.description} ({ntests} tests, {elapsed:.1f}s)")
    return results


def _fork_mutant(root: Path, m: Mutant, tests: list[str] | None) -> int:
    target = root / m.file
    raw = target.read_bytes()
    target.write_bytes(apply(raw, m))
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            os.setpgid(0, 0)  # its own group, so a timeout kills the subprocesses its tests started
            _enter_copy(root)
            _quiet(root / ".mutant.log")
            import pytest

            args = tests if tests is not None else _test_paths(root)
            code = int(pytest.main([*args, "-x", "-q", "-p", "no:cacheprovider"]))
        finally:
            os._exit(code)
    return pid


def _restore(root: Path, m: Mutant) -> None:
    original = ROOT_COPIES[root]
    shutil.copy2(original / m.file, root / m.file)


ROOT_COPIES: dict[Path, Path] = {}


#: Imported once in the parent, so each mutant's fork starts with them loaded (pytest's plugins, hypothesis's
#: above all, cost a second or more per process). Never gpudoctor or tests: those must come from the copy.
WARM = (
    "pytest",
    "_pytest.python",
    "_pytest.fixtures",
    "hypothesis",
    "hypothesis.strategies",
    "typer",
    "typer.testing",
    "click",
    "rich.console",
    "packaging.version",
    "packaging.specifiers",
    "jsonschema",
    "elftools.elf.elffile",
    "tomllib",
    "xml.etree.ElementTree",
)


def _warm() -> None:
    import importlib

    for name in WARM:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


#: The packages pyproject.toml maps from outside src/ (package-dir): the copy's own folder for each.
DATA_PACKAGES = {"compat_matrix": "compat_matrix", "_docs": "docs"}


def _own_data_packages(dest: Path) -> None:
    """Make the copy import its own gpudoctor.compat_matrix and gpudoctor._docs.

    An editable install maps them to the checkout it was made from (its finder, appended to sys.meta_path, answers
    for any name the copy's src/gpudoctor does not hold): without this the copy read the checkout's matrix, so a
    merge there during a run broke every test that loads the matrix (set 5's first run: 19 bugs "error-4"). A link
    in the copy's src/gpudoctor to its own folder is found first, as a namespace package of the copy."""
    for package, folder in DATA_PACKAGES.items():
        link = dest / "src" / "gpudoctor" / package
        if (dest / folder).is_dir() and not link.exists():
            link.symlink_to(Path("..", "..", folder), target_is_directory=True)


def make_copy(base: Path, index: int, pristine: Path) -> Path:
    dest = base / f"tree{index}"
    shutil.copytree(pristine, dest, ignore=COPY_IGNORE, symlinks=True)
    ROOT_COPIES[dest] = pristine
    _own_data_packages(dest)
    import compileall

    # Compiled once here, so a mutant's fork compiles only its one changed file (it writes no bytecode).
    compileall.compile_dir(str(dest / "src"), quiet=1, workers=1)  # not tests/: fixture folders hold .py files
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=0, help="run this many mutants, drawn at random (0: all)")
    parser.add_argument("--all-of", default="checks/", help="with --sample: run every mutant whose file path has this part")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (each in its own copy)")
    parser.add_argument("--timeout", type=float, default=300.0, help="the most seconds one mutant may run")
    parser.add_argument("--only", nargs="*", default=None, help="run just these mutant ids")
    parser.add_argument(
        "--tests", nargs="*", default=None, help="run these tests on each mutant instead of those the coverage pass selects"
    )
    parser.add_argument("--list", action="store_true", help="print the mutants and exit")
    parser.add_argument("--shuffle", action="store_true", help="run the chosen mutants in a random (seeded) order")
    parser.add_argument("--skip-done", action="store_true", help="leave out the mutants OUT/results.jsonl already holds")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "mutation")
    parser.add_argument(
        "--reuse-coverage", action="store_true", help="take the coverage pass from the last run's OUT/coverage.json"
    )
    args = parser.parse_args(argv)

    # Absolute: each pass runs with the copy of the tree as its working directory.
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="gpudoctor-mutation-"))
    try:
        pristine = base / "pristine"
        shutil.copytree(ROOT, pristine, ignore=COPY_IGNORE, symlinks=True)
        mutants = generate(pristine)
        generated = len(mutants)
        if args.list:
            for m in mutants:
                print(f"{m.id}\t{m.kind}\t{m.description}")
            print(f"{generated} mutants", file=sys.stderr)
            return 0
        if args.only:
            wanted = set(args.only)
            mutants = [m for m in mutants if m.id in wanted]
        elif args.sample and args.sample < len(mutants):
            always = [m for m in mutants if args.all_of and args.all_of in m.file]
            rest = [m for m in mutants if m not in always]

            # The `sample` mutants whose seeded hash of the id is lowest: a uniform random sample that an edit
            # elsewhere does not redraw (a new mutant displaces at most one; the rest stay in).
            def rank(m: Mutant) -> str:
                return hashlib.sha1(f"{args.seed}:{m.id}".encode()).hexdigest()

            drawn = sorted(rest, key=rank)[: max(0, min(len(rest), args.sample - len(always)))]
            mutants = always + sorted(drawn, key=lambda m: (m.file, m.start))
        if args.shuffle:
            # Any prefix of a shuffled run is itself a random sample: a run stopped early still says something.
            random.Random(args.seed + 1).shuffle(mutants)
        if args.skip_done:
            done_ids = {json.loads(line)["id"] for line in (args.out / "results.jsonl").read_text(encoding="utf-8").splitlines()}
            mutants = [m for m in mutants if m.id not in done_ids]
        copies = [make_copy(base, i, pristine) for i in range(max(1, args.jobs))]
        _warm()
        t0 = time.monotonic()
        print(f"{generated} mutants generated, {len(mutants)} to run; coverage pass...", flush=True)
        cached = args.out / "coverage.json"
        digests = {m.file: hashlib.sha1((pristine / m.file).read_bytes()).hexdigest() for m in mutants}
        cov: dict[str, Any]
        if args.tests:  # the tests are named: no coverage pass (a survivor re-checked against its new tests)
            cov = {"order": [], "durations": {}, "lines": {}, "failed": [], "tests": list(args.tests)}
        elif args.reuse_coverage and cached.exists():
            cov = json.loads(cached.read_text(encoding="utf-8"))
            cov["lines"] = {f: {int(k): v for k, v in lines.items()} for f, lines in cov["lines"].items()}
            # A file changed since: its line numbers no longer match; its mutants run the whole fast set.
            cov["stale"] = sorted(f for f, d in digests.items() if cov.get("digests", {}).get(f) != d)
        else:
            cov = coverage_pass(copies[0], mutants, args.out)
            cached.write_text(json.dumps({**cov, "digests": digests}), encoding="utf-8")
        print(f"coverage pass: {len(cov['order'])} tests, {time.monotonic() - t0:.0f}s", flush=True)
        if cov["failed"]:
            print(f"left out, failing without a mutant: {cov['failed']}", flush=True)
        results = run_mutants(copies, mutants, cov, args.out, args.timeout, log=lambda s: print(s, flush=True))
        counts = {k: sum(r["outcome"] == k for r in results) for k in ("killed", "survived", "timeout")}
        run = len(results)
        score = (counts["killed"] + counts["timeout"]) / run if run else 1.0
        summary = {
            "generated": generated,
            "run": run,
            **counts,
            "score": round(score, 4),
            "seed": args.seed,
            "sample": args.sample,
            "seconds": round(time.monotonic() - t0),
        }
        (args.out / "results.json").write_text(json.dumps({"summary": summary, "mutants": results}, indent=1), encoding="utf-8")
        with open(args.out / "survivors.txt", "w", encoding="utf-8") as f:
            for r in results:
                if r["outcome"] == "survived":
                    m = Mutant(**{k: r[k] for k in Mutant.__dataclass_fields__})
                    f.write(f"## {m.id} {m.kind}: {m.description} {r.get('note', '')}\n")
                    f.write(diff((pristine / m.file).read_bytes(), m) + "\n")
        print(json.dumps(summary))
        return 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
