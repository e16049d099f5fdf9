"""The figure of each head message (tests/pasted/head/*.toml) that states its `expect`: right, partly or missed.

    python -m tests.pasted.head.figures          # one line per message, then the totals of each list
    python -m tests.pasted.head.figures --write  # and record the figures as `after` in the lists

Each input is read as a paste, alone. right: the message is read as `expect.read`, every `expect.codes` finding is
there and every `expect.asks` substring is in an ask or in a command line of the plan (the first step may be either), and a program's fault (`expect.program`) is said as one (the program-fault
finding) with nothing at warning or above, and a harmless message (`expect.fine`) with nothing at warning or above.
partly: read as a failure (some evidence), not all of that. missed: not
read at all. A message with several inputs has the figure of its worst.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import tomllib

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.planner.prescribe import build

HERE = Path(__file__).resolve().parent
FIGURES = ("right", "partly", "missed")
# The finding a program's own fault is said with (gpudoctor.checks.reported), never an environment finding.
PROGRAM = "program-fault"


@dataclass(frozen=True)
class Judged:
    id: str
    figure: str
    read: tuple[str, ...]  # the evidence kinds the paste was read as
    codes: tuple[str, ...]  # the findings, with their severity
    asks: tuple[str, ...]


def lists() -> list[Path]:
    return sorted(HERE.glob("*.toml"))


def entries(path: Path) -> list[dict]:
    """The messages of one list that state what they expect (a list may also hold messages judged by hand)."""
    return [m for m in tomllib.loads(path.read_text(encoding="utf-8"))["message"] if "expect" in m]


def judge(entry: dict) -> Judged:
    """The entry's figure: the worst of its inputs'."""
    judged = [_judge(entry, i["file"]) for i in entry["inputs"]]
    return max(judged, key=lambda j: FIGURES.index(j.figure))


def _judge(entry: dict, file: str) -> Judged:
    """Run the engine on one input and give its figure."""
    text = (HERE / file).read_text(encoding="utf-8")
    try:
        snapshot = validate_snapshot(read_pasted([Source(file, text)]), file)
        report = diagnose(ReplayHost(snapshot))
    except Exception as exc:  # the engine crashed on the paste (the CLI says "unexpected error"): nothing was read
        return Judged(entry["id"], "missed", (f"crash: {type(exc).__name__}",), (), ())
    kinds = tuple(e["kind"] for e in snapshot["pasted"]["errors"])
    findings = {f.code: f.severity for f in report.findings}
    asks = [
        " ".join(map(str, a.command.argv)) + (" | " + " ".join(map(str, a.command.pipe)) if a.command.pipe else "")
        for a in ask_for(report.facts, report.findings)
    ] + [line for step in build(report.findings).steps for line in step.lines()]
    expect = entry["expect"]
    whole = (
        expect["read"] in kinds
        and all(c in findings for c in expect["codes"])
        and all(any(s in a for a in asks) for s in expect["asks"])
    )
    env = [c for c, s in findings.items() if s >= Severity.WARNING]
    if expect["program"]:
        whole = whole and PROGRAM in findings and not env
    if expect.get("fine"):  # a message that is no failure (a warning the threads found harmless): nothing to fix
        whole = whole and not env
    figure = "right" if whole else "partly" if kinds else "missed"
    return Judged(entry["id"], figure, kinds, tuple(f"{c}:{s.label}" for c, s in findings.items()), tuple(asks))


def _record(path: Path, figures: dict[str, str]) -> None:
    """Write each entry's figure as its `after` (the lists are hand-written TOML: only that line changes)."""
    out, current = [], None
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        m = re.match(r'id = "([^"]+)"', line)
        if m:
            current = m.group(1)
        if line.startswith("after = ") and current in figures:
            line = f'after = "{figures[current]}"\n'
        out.append(line)
    path.write_text("".join(out), encoding="utf-8")


def main(argv: list[str]) -> int:
    for path in lists():
        judged = [judge(e) for e in entries(path)]
        for j in judged:
            print(f"{j.figure:7} {j.id:34} read={','.join(j.read) or '-'} codes={','.join(j.codes) or '-'}")
        counts = {f: sum(j.figure == f for j in judged) for f in FIGURES}
        print(f"{path.name}: " + ", ".join(f"{counts[f]} {f}" for f in FIGURES) + f" of {len(judged)}")
        if "--write" in argv:
            _record(path, {j.id: j.figure for j in judged})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
