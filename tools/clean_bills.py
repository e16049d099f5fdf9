"""Count the clean bills: failing pasted cases that `check --from` passes with no finding at warning or above.

    python tools/clean_bills.py          # the counts, per set
    python tools/clean_bills.py -v       # and the cases counted, by name

Over every case of tests/blind/plans3..plans13 (expect.toml's `evidence`: fine, ask or broken),
tests/blind/pasted (expect.toml's `category`) and tests/pasted/cases (case.toml's `fine`), the real CLI runs
in-process with `--format json` (tools/golden.py's Runner). It counts (a) the ask and broken cases whose report has
no finding at warning or above, a "No problems found" over a failure the text shows (issues 28 and 31), and (b) the
fine cases (the controls) that have one, a false alarm. tests/blind/plans14 is never read: it is a blind set still
being collected.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.golden import Runner  # noqa: E402 (the project's root on the path first)

BLOCKING = ("warning", "error", "critical")
SETS = tuple(f"plans{n}" for n in range(3, 14))  # never plans14 (a blind set being collected)


def cases() -> Iterator[tuple[str, str, str, Path]]:
    """(set, case, fine/ask/broken, the pasted text) of every case measured."""
    for name in SETS:
        for expect in sorted((ROOT / "tests/blind" / name / "cases").glob("*/expect.toml")):
            text = expect.parent / "input.txt"
            if text.is_file():
                yield name, expect.parent.name, tomllib.loads(expect.read_text(encoding="utf-8"))["evidence"], text
    for expect in sorted((ROOT / "tests/blind/pasted/cases").glob("*/expect.toml")):
        yield (
            "pasted",
            expect.parent.name,
            tomllib.loads(expect.read_text(encoding="utf-8"))["category"],
            expect.parent / "input.txt",
        )
    for case in sorted((ROOT / "tests/pasted/cases").glob("*/case.toml")):
        fine = tomllib.loads(case.read_text(encoding="utf-8"))["fine"]
        yield "cases", case.parent.name, "fine" if fine else "broken", case.parent / "report.txt"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="name the cases counted")
    args = ap.parse_args()
    runner = Runner()
    tally: dict[str, list[int]] = {}  # set -> [failing cases, clean bills, fine cases, false alarms]
    for name, case, kind, text in cases():
        _, out = runner.check(["--from", str(text.relative_to(ROOT)), "--format", "json"])
        blocking = [f["code"] for f in json.loads(out)["findings"] if f["severity"] in BLOCKING]
        row = tally.setdefault(name, [0, 0, 0, 0])
        if kind == "fine":
            row[2] += 1
            row[3] += bool(blocking)
            if blocking and args.verbose:
                print(f"false alarm  {name}/{case}: {' '.join(blocking)}")
        else:
            row[0] += 1
            row[1] += not blocking
            if not blocking and args.verbose:
                print(f"clean bill   {name}/{case} ({kind})")
    for name, (failing, clean, fine, alarms) in tally.items():
        print(f"{name:8} clean bills {clean:3} of {failing:3} failing   false alarms {alarms:3} of {fine:3} fine")
    total = [sum(r[i] for r in tally.values()) for i in range(4)]
    print(f"{'all':8} clean bills {total[1]:3} of {total[0]:3} failing   false alarms {total[3]:3} of {total[2]:3} fine")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
