"""Count the fixes left in prose: findings at warning or above whose plan holds no command that acts on them.

    python tools/prose_fixes.py          # the counts, per finding code
    python tools/prose_fixes.py -v       # and the cases, by name, under each code

Over every recorded case (tests/machines and tests/real replayed, tests/pasted/cases, tests/blind/pasted and the
inputs of tests/blind/plans3..plans10; tests/blind/plans11 is never read: it is a blind set still being collected),
the real CLI runs in-process with `--format json` (tools/golden.py's Runner). Each finding at warning or above is
read against the report's structure, never its prose:

  acted     a plan step (or a step's alternative) made for its code holds a command that changes something
  listing   the steps made for it hold only commands that read and print (planner.actions' kind `inspect`): the
            cause may be named, the decisive command is not
  asked     no step is made for it, and an ask of the report names its code among those it decides (the JSON's
            pasted.ask_for[].codes)
  hardware  no step is made for it, and its fix is another GPU or the CPU (the remediation's component `gpu`): no
            command of this machine's changes it, and no answer decides one (planner.deciders asks nothing there)
  unnamed   no step is made for it, and the report asks the reporter for something, but no ask names the code: it
            may decide this finding too (nothing says so), or only another's
  prose     no step is made for it and nothing is asked: the fix, if any, is said in the finding's text alone

Issue 27 (kind 9 of the blind sets' verdicts: no command where one is possible) is the `prose`, `unnamed` and
`listing` columns; a finding whose fix truly depends on a fact the paste lacks belongs in `asked`. A `listing` is
not always a gap: planner.deciders turns an unknown into the listing that decides it, and a finding about who holds
GPU memory is answered by the reading alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import clean_bills, golden  # noqa: E402 (the project's root on the path first)

BLOCKING = clean_bills.BLOCKING
COLUMNS = ("acted", "listing", "asked", "hardware", "unnamed", "prose")


def runs() -> list[tuple[str, list[str]]]:
    """(set/case, check's arguments) of every recorded case, each once."""
    out = [(f"{kind}/{case}", args) for kind, case, args in golden.cases()]
    for name, case, _, text in clean_bills.cases():
        if name != "cases":  # tests/pasted/cases: golden.cases() ran them
            out.append((f"{name}/{case}", ["--from", str(text.relative_to(ROOT))]))
    return out


def _acts(commands: list[dict]) -> bool:
    """Whether one of these commands (the JSON's lines) changes something: a variable set, a directory put on a path,
    gpudoctor's own shell output, or a program planner.actions reads back as other than `inspect`."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.planner.actions import classify

    return any(
        "argv" not in c or classify(Cmd(tuple(c["argv"]), pipe=tuple(c.get("pipe", ())))).kind != "inspect" for c in commands
    )


def judge(doc: dict) -> list[tuple[str, str]]:
    """(code, column) of each finding at warning or above of one report document."""
    steps = doc.get("plan", {}).get("steps", [])
    asks = (doc.get("pasted") or {}).get("ask_for", [])
    out = []
    blocking = [f for f in doc["findings"] if f["severity"] in BLOCKING]
    hardware = {f["code"] for f in blocking if (f.get("remediation") or {}).get("component") == "gpu"}
    for code in sorted({f["code"] for f in blocking}):
        commands = [c for s in steps if code in s["codes"] for c in s["commands"]]
        commands += [c for s in steps for a in s["alternatives"] if a["code"] == code for c in a["commands"]]
        if _acts(commands):
            column = "acted"
        elif commands:
            column = "listing"
        elif any(code in a.get("codes", ()) for a in asks):
            column = "asked"
        elif code in hardware:
            column = "hardware"
        elif asks:
            column = "unnamed"
        else:
            column = "prose"
        out.append((code, column))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="name the cases under each code")
    args = ap.parse_args()
    runner = golden.Runner()
    tally: dict[str, Counter[str]] = defaultdict(Counter)
    where: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, argv in runs():
        _, out = runner.check([*argv, "--format", "json"])
        for code, column in judge(json.loads(out)):
            tally[code][column] += 1
            where[code, column].append(name)
    gaps = sorted(tally, key=lambda c: (-sum(tally[c][k] for k in ("prose", "unnamed", "listing")), c))
    print(f"{'code':44} " + " ".join(f"{c:>8}" for c in COLUMNS))
    for code in gaps:
        print(f"{code:44} " + " ".join(f"{tally[code][c]:8}" for c in COLUMNS))
        if args.verbose:
            for column in ("prose", "unnamed", "listing"):
                for name in where[code, column]:
                    print(f"    {column:7} {name}")
    total = Counter[str]()
    for row in tally.values():
        total.update(row)
    print(f"{'all':44} " + " ".join(f"{total[c]:8}" for c in COLUMNS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
