"""Count the printed commands whose tool precondition is unmet, over every recorded case (issue 27, kinds 3 and 8).

    python tools/precondition_count.py [--list]

Every case gpudoctor has a recording of is checked as `check` checks it: the recorded machines (tests/machines,
tests/real), the pasted cases (tests/pasted), the blind pasted set and the inputs of blind plan sets 3 to 13
(tests/blind/plansN of tools/blind_sets.OPEN; never tools/blind_sets.BLIND, being collected). The plan is applied by the consequence model
(gpudoctor.planner.consequences) and each `unmet-precondition` it reports is counted: a printed command that cannot
succeed at its point of the plan (the tool absent or too old for the option used, another system's program, another
interpreter, a package source not added, a module whose import the paste shows failing, a call newer than the release
shown: gpudoctor.planner.tool_floors.CALLS). The asks printed apart from the plan are checked by the same needs, on the
machine as the paste shows it, and counted as step 0. `--list` prints each one with its case, step and reason.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
sys.path.insert(0, str(ROOT))

from tools import blind_sets  # noqa: E402 (the project's root on the path first)

SETS = blind_sets.OPEN  # never the blind set being collected (tools/blind_sets.py)


def cases() -> Iterator[tuple[str, Path]]:
    """(name, the file check reads): a snapshot.json or a pasted text."""
    for p in sorted((TESTS / "machines").glob("*/snapshot.json")):
        yield f"machine:{p.parent.name}", p
    for p in sorted((TESTS / "real").glob("*/snapshot.json")):
        yield f"real:{p.parent.name}", p
    for p in sorted((TESTS / "pasted" / "cases").glob("*/report.txt")):
        yield f"pasted:{p.parent.name}", p
    for p in sorted((TESTS / "blind" / "pasted" / "cases").glob("*/input.txt")):
        yield f"blind:{p.parent.name}", p
    for s in SETS:
        for p in sorted((TESTS / "blind" / s / "cases").glob("*/input.txt")):
            yield f"{s}:{p.parent.name}", p


def unmet(path: Path) -> list[object]:
    """The unmet-precondition violations of the plan `check` prints for the recording at `path`."""
    from gpudoctor.checks import run_checks
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
    from gpudoctor.pasted import Source, read_pasted
    from gpudoctor.pipeline import CheckRequest, check
    from gpudoctor.planner.consequences import consequences

    if path.suffix == ".json":
        snap = load_snapshot(str(path))
    else:
        text = path.read_bytes().decode("utf-8-sig", errors="replace")
        snap = validate_snapshot(read_pasted([Source(path.name, text)]), path.parent.name)
    done = check(ReplayHost(snap), CheckRequest())
    got = consequences(done.plan, done.report.facts, done.report.findings, lambda f: run_checks(f)[0])
    return [v for v in got.violations if v.kind == "unmet-precondition"] + asks_unmet(done)


def asks_unmet(done: object) -> list[object]:
    """The asks printed apart from the plan (step 0) that cannot run on the machine the paste shows: a module whose
    import it shows failing, a call newer than the release it shows (gpudoctor.planner.tool_floors.unrunnable, the
    consequence model's own need). The other needs of a plan step (the tool's release asked first, the shell a step
    is typed in) are a plan's order, which the asks, each its own question, do not have."""
    from gpudoctor.pasted.ask import not_in_plan
    from gpudoctor.planner.consequences import Violation, line_text
    from gpudoctor.planner.tool_floors import unrunnable

    facts = done.report.facts  # type: ignore[attr-defined]
    return [
        Violation(0, "asks", "unmet-precondition", (), line_text(a.command), why)
        for a in not_in_plan(done.asks, done.plan)  # type: ignore[attr-defined]
        if (why := unrunnable(a.command, facts))
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="print each unmet precondition")
    ap.add_argument("--only", default="", help="only the cases whose name contains this")
    args = ap.parse_args()
    total, per_set, failed = 0, Counter[str](), 0
    for name, path in cases():
        if args.only not in name:
            continue
        try:
            found = unmet(path)
        except Exception as e:  # a recording the reader refuses is reported, not counted
            failed += 1
            print(f"{name}: not checked: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        total += len(found)
        per_set[name.split(":", 1)[0]] += len(found)
        if args.list:
            for v in found:
                print(f"{name} step {v.step}: {v.command!r}: {v.reason}")  # type: ignore[attr-defined]
    print(f"unmet preconditions: {total} ({', '.join(f'{k} {n}' for k, n in sorted(per_set.items()))}); not checked: {failed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
