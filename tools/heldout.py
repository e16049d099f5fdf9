"""The held-out measure with hand-made bugs: does the suite catch the mistakes a developer really makes?

    python tools/heldout.py                       # every bug in tools/heldout_bugs/, results in build/heldout/
    python tools/heldout.py --only 007-some-name  # just these bugs
    python tools/heldout.py --reuse-coverage      # take the line trace of the last run (build/heldout/coverage.json)
                                                  # a bug in a file it never traced is "untraced" and not scored
    python tools/heldout.py --bugs tools/heldout_bugs4 --out build/heldout4   # another author's set
    python tools/heldout.py --shards 1            # the traced pass in one process (default: two at once)

tools/mutate.py plants generated operator swaps; this plants the bugs of tools/heldout_bugs/ (one unified diff
each, written by someone who read the docs and the code but not the tests; INDEX.md says what each breaks and
which doc sentence it violates). It reuses mutate.py's machinery: the tree is copied to a temporary directory
(the working tree is never touched), one traced run of the tests records which tests execute which lines, and
each bug then runs, in a fork that imports the patched copy fresh, only the tests that execute the lines its
patch changes (all the tests that reach the file when an import-time line changes), quickest first, with -x and
a timeout. A bug is caught when a test fails (or the patched copy does not import), survived when they pass.

The tests: the whole suite but tests/gpu (needs a GPU), tests/packaging (builds wheels from the package index)
and tests/integration (docker and slurm daemons): the same suite a contributor runs without those.
Results: build/heldout/results.json; docs/testing.md quotes the figure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutate  # noqa: E402  (tools/ is not a package)

ROOT = mutate.ROOT
BUGS = ROOT / "tools" / "heldout_bugs"

#: The folders of tests/ the measure leaves out (see the docstring): every other test under tests/ is in it.
EXCLUDED = ("tests/gpu", "tests/packaging", "tests/integration")


def suite(root: Path = ROOT) -> tuple[str, ...]:
    """Every test under root/tests but EXCLUDED: each folder of tests/ holding a test file (pytest's test_*.py or
    *_test.py, at any depth) and each test file at its top. Computed from the tree, so a new test file or folder is
    in the measure without an edit here (a hand-kept list left tests/spec, tests/blind and eleven more out)."""
    out = []
    for entry in sorted((root / "tests").iterdir(), key=lambda p: p.name):
        rel = f"tests/{entry.name}"
        if rel not in EXCLUDED and (_holds_tests(entry) if entry.is_dir() else _is_test_file(entry.name)):
            out.append(rel)
    return tuple(out)


def _holds_tests(folder: Path) -> bool:
    return any(_is_test_file(f.name) for f in folder.rglob("*.py"))


def _is_test_file(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


@dataclass
class Bug:
    name: str
    patch: Path
    # file (relative to the tree) -> the original lines the patch changes or inserts beside
    lines: dict[str, set[int]] = field(default_factory=dict)
    # per hunk: (file, the line its header names, its old side's lines, the lines of `lines` it contributes)
    hunks: list[tuple[str, int, tuple[str, ...], set[int]]] = field(default_factory=list)


def read_bug(patch: Path) -> Bug:
    """The files and original line numbers a unified diff touches (a pure insertion counts its neighbours)."""
    bug = Bug(patch.stem, patch)
    current = ""
    old = 0
    replacing = False  # within a run of removed lines (what is added there replaces them)
    for line in patch.read_text(encoding="utf-8").splitlines():
        if line.startswith("--- "):
            continue
        if line.startswith("+++ "):
            current = line[4:].split("\t")[0].removeprefix("b/")
            bug.lines.setdefault(current, set())
            continue
        hunk = HUNK.match(line)
        if hunk:
            old, replacing = int(hunk.group(1)), False
            block: list[str] = []
            changed: set[int] = set()
            bug.hunks.append((current, old, (), changed))
            continue
        if not current or old == 0:
            continue
        if line.startswith("-"):
            changed.add(old)
            block.append(line[1:])
            old += 1
            replacing = True
        elif line.startswith("+"):
            if not replacing:  # a pure insertion: the lines around it are what it changes
                changed.update({old - 1, old})
        elif line.startswith(" "):
            block.append(line[1:])
            old += 1
            replacing = False
        else:
            continue
        bug.lines[current].update(changed)
        rel, start, _, _ = bug.hunks[-1]
        bug.hunks[-1] = (rel, start, tuple(block), changed)
    return bug


def place(bug: Bug, tree: Path) -> Bug:
    """The bug with each hunk's lines where its old side stands in `tree` (the nearest match to the line its header
    names), as `patch` applies it: a patch written before the file grew applies at an offset, and the trace knows the
    lines of the tree, so the stated lines would select the tests of other code. A hunk found nowhere keeps its lines
    (the patch then does not apply)."""
    placed = Bug(bug.name, bug.patch, {rel: set() for rel in bug.lines}, list(bug.hunks))
    texts: dict[str, list[str]] = {}
    for rel, start, block, changed in bug.hunks:
        if rel not in texts:
            path = tree / rel
            texts[rel] = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        lines, n = texts[rel], len(block)
        at = [i + 1 for i in range(len(lines) - n + 1) if tuple(lines[i : i + n]) == block] if n else []
        shift = min((a - start for a in at), key=abs, default=0)
        placed.lines[rel].update(line + shift for line in changed)
    return placed


def select_tests(bug: Bug, cov: dict) -> list[str] | None:
    """The tests that execute the bug's lines, quickest first (mutate.select_tests, over several files)."""
    tests: list[str] = []
    seen: set[str] = set()
    whole = False
    for rel, lines in bug.lines.items():
        m = mutate.Mutant("", rel, min(lines), max(lines), "", "", 0, 0, "")
        for line in sorted(lines):
            m.line = m.end_line = line
            chosen = mutate.select_tests(m, cov)
            if chosen is None:
                whole = True
                continue
            for t in chosen:
                if t not in seen:
                    seen.add(t)
                    tests.append(t)
    if whole:
        return None
    rank = {t: i for i, t in enumerate(cov["order"])}
    return sorted(tests, key=lambda t: (cov["durations"].get(t, 1.0), rank.get(t, 0)))


def untraced(bug: Bug, cov: dict) -> list[str]:
    """The files the bug changes that the coverage pass did not trace: for those the trace cannot say which tests run
    the changed lines, so "no test runs them" would be a guess. A coverage file records what it traced ("traced"); an
    older one without that list counts the files it holds lines of. None with named tests (--tests): nothing is
    selected from the trace."""
    if cov.get("tests"):
        return []
    traced = set(cov["traced"]) if "traced" in cov else set(cov["lines"])
    return sorted(f for f in bug.lines if f not in traced)


def summarise(results: list[dict], seconds: float) -> dict:
    """The figure: caught (a timeout counts as caught, reported apart) of the bugs run. A patch that does not apply and
    a bug whose file the reused trace never covered ("untraced") are not run, so they are left out of the score and
    counted apart."""
    kinds = ("caught", "survived", "timeout", "does-not-apply", "untraced")
    counts = {k: sum(r["outcome"] == k for r in results) for k in kinds}
    run = len(results) - counts["does-not-apply"] - counts["untraced"]
    return {
        "bugs": len(results),
        **counts,
        "score": round((counts["caught"] + counts["timeout"]) / run, 4) if run else None,
        "seconds": round(seconds),
    }


def _apply(root: Path, bug: Bug) -> bool:
    done = subprocess.run(
        ["patch", "-p1", "--batch", "--silent", "--no-backup-if-mismatch", "-i", str(bug.patch)],
        cwd=root,
        capture_output=True,
        timeout=60,
    )
    return done.returncode == 0


def _restore(root: Path, pristine: Path, bug: Bug) -> None:
    for rel in bug.lines:
        shutil.copy2(pristine / rel, root / rel)


def run_bug(root: Path, pristine: Path, bug: Bug, tests: list[str] | None, timeout: float) -> tuple[str, float]:
    if not _apply(root, bug):
        _restore(root, pristine, bug)
        return "does-not-apply", 0.0
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            os.setpgid(0, 0)
            mutate._enter_copy(root)
            mutate._quiet(root / ".heldout.log")
            import pytest

            args = tests if tests is not None else list(suite(root))
            code = int(pytest.main([*args, "-x", "-q", "-p", "no:cacheprovider"]))
        finally:
            os._exit(code)
    outcome = ""
    while not outcome:
        finished, status = os.waitpid(pid, os.WNOHANG)
        if finished:
            code = os.waitstatus_to_exitcode(status)
            # pytest: 0 passed, 1 a test failed, 2 a collection error (the patched copy does not import);
            # 4 (usage) and 5 (nothing collected) say the selection was wrong, not that the bug was seen.
            outcome = {0: "survived", 1: "caught", 2: "caught"}.get(code, f"error-{code}")
        elif time.monotonic() - t0 > timeout:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            outcome = "timeout"
        else:
            time.sleep(0.05)
    _restore(root, pristine, bug)
    return outcome, time.monotonic() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=None, help="run just these bugs (file names without .patch)")
    parser.add_argument("--timeout", type=float, default=600.0, help="the most seconds one bug may run")
    parser.add_argument(
        "--reuse-coverage",
        action="store_true",
        help="take the last run's OUT/coverage.json (a bug in a file it did not trace is untraced, not scored)",
    )
    parser.add_argument("--tests", nargs="*", default=None, help="run these tests on each bug instead of the selected ones")
    parser.add_argument("--coverage-only", action="store_true", help="run the traced pass, write OUT/coverage.json, stop")
    parser.add_argument(
        "--shards", type=int, default=2, help="processes the traced pass runs at once, each on whole test files (default 2)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "heldout")
    # Each author's set has its own folder from the fourth on (tools/heldout_bugs4: an author who never lists the
    # earlier sets' folder cannot read their names).
    parser.add_argument("--bugs", type=Path, default=BUGS, help="the folder of *.patch bugs (default tools/heldout_bugs)")
    args = parser.parse_args(argv)
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    bugs = [place(read_bug(p), ROOT) for p in sorted(args.bugs.resolve().glob("*.patch"))]
    if args.only:
        bugs = [b for b in bugs if b.name in set(args.only)]
    mutate.TESTS = suite(ROOT)  # the coverage pass runs this suite
    base = Path(tempfile.mkdtemp(prefix="gpudoctor-heldout-"))
    try:
        pristine = base / "pristine"
        shutil.copytree(ROOT, pristine, ignore=mutate.COPY_IGNORE, symlinks=True)
        root = mutate.make_copy(base, 0, pristine)
        mutate._warm()
        t0 = time.monotonic()
        cached = args.out / "coverage.json"
        if args.tests:
            cov = {"order": [], "durations": {}, "lines": {}, "failed": [], "tests": list(args.tests)}
        elif args.reuse_coverage and cached.exists():
            cov = json.loads(cached.read_text(encoding="utf-8"))
            cov["lines"] = {f: {int(k): v for k, v in lines.items()} for f, lines in cov["lines"].items()}
        else:
            # Trace the files the bugs change (tracing all of src/ doubles the pass); coverage_pass wants objects with .file.
            files = sorted({f for b in bugs for f in b.lines})
            cov = mutate.coverage_pass(
                root, [mutate.Mutant("", f, 0, 0, "", "", 0, 0, "") for f in files], args.out, shards=args.shards
            )
            cov["traced"] = files
            cached.write_text(json.dumps(cov), encoding="utf-8")
            print(f"coverage pass: {len(cov['order'])} tests, {time.monotonic() - t0:.0f}s", flush=True)
        if args.coverage_only:
            return 0
        if cov["failed"]:
            print(f"left out, failing without a bug: {cov['failed']}", flush=True)
        results = []
        for i, bug in enumerate(bugs, 1):
            missing = untraced(bug, cov)
            tests = select_tests(bug, cov) if not missing else []
            if missing:
                # Not scored: the reused trace never covered these files (run again without --reuse-coverage).
                outcome, seconds, ntests = "untraced", 0.0, 0
            elif tests == []:
                outcome, seconds, ntests = "survived", 0.0, 0
            else:
                ntests = len(tests) if tests is not None else -1
                budget = args.timeout
                if tests is not None:
                    budget = min(args.timeout, 60 + 4 * sum(cov["durations"].get(t, 1.0) for t in tests))
                outcome, seconds = run_bug(root, pristine, bug, tests, budget)
            results.append(
                {
                    "bug": bug.name,
                    "files": sorted(bug.lines),
                    "outcome": outcome,
                    "tests": ntests,
                    "seconds": round(seconds, 1),
                }
            )
            print(f"[{i}/{len(bugs)}] {outcome:9} {bug.name} ({ntests} tests, {seconds:.1f}s)", flush=True)
        summary = summarise(results, time.monotonic() - t0)
        if summary["untraced"]:
            names = ", ".join(r["bug"] for r in results if r["outcome"] == "untraced")
            print(f"untraced, not scored (the reused trace never covered their files; run without --reuse-coverage): {names}")
        (args.out / "results.json").write_text(json.dumps({"summary": summary, "bugs": results}, indent=1), encoding="utf-8")
        rows = ["| bug | files | outcome | tests run | seconds |", "|---|---|---|---|---|"]
        rows += [
            f"| `{r['bug']}` | {', '.join(f.removeprefix('src/gpudoctor/') for f in r['files'])} | {r['outcome']} "
            f"| {r['tests'] if r['tests'] >= 0 else 'all'} | {r['seconds']} |"
            for r in results
        ]
        (args.out / "table.md").write_text("\n".join(rows) + "\n", encoding="utf-8")
        print(json.dumps(summary))
        return 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
