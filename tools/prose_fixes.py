"""Count the fixes left in prose: findings at warning or above whose plan holds no command that acts on them.

    python tools/prose_fixes.py          # the counts, per finding code
    python tools/prose_fixes.py -v       # and the cases, by name, under each code

Over every recorded case (tests/machines and tests/real replayed, tests/pasted/cases, tests/blind/pasted and the
inputs of tests/blind/plans3..plans13, clean_bills.SETS; tests/blind/plans14 is never read: it is a blind set still
being collected),
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

    python tools/prose_fixes.py --shapes     # issue 27's shapes a report's structure shows, per finding

Three shapes of the reviewers' kind-9 reasons (tools/plan_completeness.py --shapes reads their words) show in the
report's structure, each counted per finding at warning or above:

  printed, not used  a step made for it acts, then ends in a read that prints a value (an `inspect`), and no command
                     of the plan sets a variable or puts a folder on a path: the printed value's use (XLA_FLAGS from
                     the folder it prints) is left to the summary
  set, not kept      its commands set a variable or put a folder on a path, and none keeps it for the next shell
                     (setx on Windows; a conda environment's etc/conda/activate.d; a Dockerfile's ENV)
  found, not put     no step is made for it, and an ask about it reads the loader's cache or searches for a
                     library (`ldconfig -p`, `find`): the folder it finds is not put on the path by any step

The reading is coarse: a step that installs and then proves the install with a read (`python -c 'import torch;
print(...)'`) is counted `printed, not used` too; read `-v` before acting on the count. First figures (2026-11-30, src
at 79e67433, sets 3..13 open), before the planner change of h198: printed, not used 22; set, not kept 54; found, not
put 16. The reviewers' words (plan_completeness.py --shapes, 616 kind-9 reasons of plans3..plans13): a variable set
from a value the plan prints 16 (3 of them on plans13), a found library's folder not put on the path 12, a way to keep
the setting 17; the variable or PATH line at large 156, the rerun 74, no fix command at all 439.

After h198 (cmdline.SetFrom: XLA_FLAGS set from the folder the nvcc wheel's interpreter prints; planner.remedy.kept: a
line that keeps a path or variable setting in a conda environment's activate.d, a venv's bin/activate or ~/.bashrc),
the same cases, `_keeps` reading those places: printed, not used 21 (plans13/1309 left it); set, not kept 38 (54 before,
read the same way at 79e67433): what stays is Windows (a user variable: not built), notebooks, containers, clusters
(said in prose, by design), a variable that is no loader path (CUDA_VISIBLE_DEVICES, TORCH_CUDA_ARCH_LIST, CMAKE_ARGS:
one run's or one build's, not kept on purpose) and a container the paste names but the reader did not detect; found,
not put 16 (not built: the finding is an unexplained error whose asks are h199's). The acted/listing/asked columns and
tools/clean_bills.py are unchanged (341/120/177; 47 of 532 clean bills, 14 of 156 false alarms, sets 3..13).
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


def _sets(c: dict) -> bool:
    """Whether a command (the JSON's line) sets a variable or puts a folder on a path."""
    return "set" in c or "prepend" in c


def _keeps(c: dict) -> bool:
    """Whether a command keeps a setting for the next shell: setx, or a write into a conda environment's activate.d, a
    venv's bin/activate, ~/.bashrc or a Dockerfile (planner.remedy.kept's places, and a Dockerfile's)."""
    words = [str(w) for w in (*c.get("argv", ()), *c.get("pipe", ()))]
    places = ("activate.d", '"activate"', ".bashrc")
    return bool(words) and (
        words[0].lower().removesuffix(".exe") == "setx"
        or any(p in w for w in words for p in places)
        or any(w.endswith("Dockerfile") for w in words)
    )


def shapes(doc: dict) -> list[tuple[str, str]]:
    """(code, shape) of each finding at warning or above that shows one of the structural shapes above."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.planner.actions import classify

    def reads(c: dict) -> bool:
        return "argv" in c and classify(Cmd(tuple(c["argv"]), pipe=tuple(c.get("pipe", ())))).kind == "inspect"

    steps = doc.get("plan", {}).get("steps", [])
    every = [c for s in steps for c in s["commands"]]
    asks = (doc.get("pasted") or {}).get("ask_for", [])
    out = []
    for code in sorted({f["code"] for f in doc["findings"] if f["severity"] in BLOCKING}):
        mine = [s["commands"] for s in steps if code in s["codes"]]
        commands = [c for cs in mine for c in cs]
        if any(len(cs) > 1 and reads(cs[-1]) and not reads(cs[0]) for cs in mine) and not any(map(_sets, every)):
            out.append((code, "printed, not used"))
        if any(map(_sets, commands)) and not any(map(_keeps, commands)):
            out.append((code, "set, not kept"))
        finds = [a for a in asks if code in a.get("codes", ()) and a.get("argv", [""])[0] in ("ldconfig", "find")]
        if not commands and finds and not any("prepend" in c for c in every):
            out.append((code, "found, not put"))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="name the cases under each code")
    ap.add_argument("--shapes", action="store_true", help="issue 27's shapes the report's structure shows")
    args = ap.parse_args()
    runner = golden.Runner()
    if args.shapes:
        count = Counter[str]()
        for name, argv in runs():
            _, out = runner.check([*argv, "--format", "json"])
            for code, shape in shapes(json.loads(out)):
                count[shape] += 1
                if args.verbose:
                    print(f"    {shape:18} {name}: {code}")
        for shape in ("printed, not used", "set, not kept", "found, not put"):
            print(f"{count[shape]:5}  {shape}")
        return 0
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
