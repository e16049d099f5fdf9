"""Count the clean bills: failing pasted cases that `check --from` passes with no finding at warning or above.

    python tools/clean_bills.py          # the counts, per set
    python tools/clean_bills.py -v       # and the cases counted, by name, each clean bill with its reasons

Over every case of the open blind sets (tools/blind_sets.OPEN; expect.toml's `evidence`: fine, ask or broken),
tests/blind/pasted (expect.toml's `category`) and tests/pasted/cases (case.toml's `fine`), the real CLI runs
in-process with `--format json` (tools/golden.py's Runner). It counts (a) the ask and broken cases whose report has
no finding at warning or above, a "No problems found" over a failure the text shows (issues 28 and 31), and (b) the
fine cases (the controls) that have one, a false alarm. tools/blind_sets.BLIND is never read: it is the blind set
being collected.

With -v, each clean bill is followed by its reasons: the lines of the paste that should have counted as a failure, by
shape (an exception's last line, an error word or an error told, "failed", "cannot", "not found", a non-zero exit, pip's
resolver, a CUDA/NCCL/cuDNN status, a hang, a CPU run, an undetected GPU or "does not work" told in prose), as file:line, and the clean bills are
counted by the shapes they show. The shapes are this tool's own measure, read by nothing in src.

With --tracebacks, the cases whose paste ends a Python traceback with an exception line ("Type: message" after the
last frame, the last traceback of the paste) that no catalogue entry or extractor reads (no error text but
gpudoctor.parsers.failure_lines' own "gpu-stack-failure" holds it): counted by evidence and by exception type, with
how many of them the report passes with no finding at warning or above, and the fine ones listed with their
expect.toml's diagnosis (what the reporter's thread says it was).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import blind_sets  # noqa: E402 (the project's root on the path first)
from tools.golden import Runner  # noqa: E402

BLOCKING = ("warning", "error", "critical")
SETS = blind_sets.OPEN  # never the blind set being collected (tools/blind_sets.py)

# The shapes of a failure a paste shows, each a pattern over one line: what a clean bill should have counted. (A
# reporter's words count: "it raises an error", "it never works" over a paste cut before the error.)
SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("exception", re.compile(r"^\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit)\b\s*:")),
    (
        "pip-resolver",
        re.compile(r"No matching distribution|Could not find a version|ResolutionImpossible|conflicting dependencies"),
    ),
    (
        "status",
        re.compile(
            r"\b(?:CUDA_ERROR_\w+|cudaError\w+|CUDNN_STATUS_\w+|CUBLAS_STATUS_\w+|ncclSystemError|ncclInternalError|ncclUnhandled\w+)"
        ),
    ),
    ("exit", re.compile(r"exit(?:ed)? (?:code|status|with code)[:= ]*[1-9]\d*|returned non-zero|exit status [1-9]", re.I)),
    ("error", re.compile(r"\berror\b\s*[:\]]|\bERROR\b|\bFATAL\b")),
    ("error-told", re.compile(r"\b(?:an?|the|this|that|with|some|same) (?:\w+ )?errors?\b", re.I)),
    ("failed", re.compile(r"\bfail(?:ed|s|ure)?\b", re.I)),
    ("cannot", re.compile(r"\bcan(?:not|'t|’t)\b|\bcould(?:n't| not)\b|\bunable to\b", re.I)),
    ("not-found", re.compile(r"\bnot found\b|\bno such file\b|\bnot recogni[sz]ed\b", re.I)),
    (
        "not-working",
        re.compile(r"\b(?:does|do|did|is|are)(?:n['’]t| not) work|\bnever works?\b|\bnothing work|\bnot working\b", re.I),
    ),
    ("hang", re.compile(r"\b(?:hangs?|hanging|stuck|freez(?:es|ing)|froze)\b", re.I)),
    ("cpu", re.compile(r"\b(?:runs?|running|falls? back|using|uses)\b.{0,30}\bCPU\b|device[_ ]type[= ]+['\"]?cpu", re.I)),
    (
        "not-detected",
        re.compile(r"\bnot (?:being )?(?:detected|available|recogni[sz]ed|used|visible)\b|\bno (?:GPU|CUDA|NVIDIA)\b", re.I),
    ),
)


def reasons(text: Path) -> list[tuple[str, int, str]]:
    """(shape, line number, line) of each shape's first line in the paste, in the order of SHAPES."""
    lines = text.read_text(encoding="utf-8", errors="replace").splitlines()
    found = []
    for shape, pattern in SHAPES:
        hit = next(((n, line.strip()) for n, line in enumerate(lines, 1) if pattern.search(line)), None)
        if hit is not None:
            found.append((shape, hit[0], hit[1][:140]))
    return found


# A traceback's header: Python's traceback module prints "Traceback (most recent call last):", IPython puts the
# exception's type before the same words ("OSError    Traceback (most recent call last)"). Its frames are indented
# (or, in IPython 8, "File <path>:<n>" and "Cell In[<n>], line <n>"); the first line after the header that starts with
# an exception's class ends it.
_TB_START = re.compile(r"Traceback \(most recent call last\)")
# (an exception's class by Python's naming: BaseException's subclasses end Error, Exception, Exit, Interrupt, Warning)
_TB_EXC = re.compile(r"^(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure))(?::\s|:?$)")


def final_exception(text: Path) -> tuple[int, str, str] | None:
    """(line number, exception type, line) of the exception line that ends the paste's last traceback, or None."""
    lines = [
        line.lstrip(">").strip() if line.lstrip().startswith(">") else line
        for line in text.read_text(encoding="utf-8", errors="replace").splitlines()
    ]
    starts = [i for i, line in enumerate(lines) if _TB_START.search(line)]
    if not starts:
        return None
    for n in range(starts[-1] + 1, len(lines)):
        if (m := _TB_EXC.match(lines[n])) is not None:
            return n + 1, m.group("type").rsplit(".", 1)[-1], lines[n].strip()[:140]
    return None


def recognised(text: Path, line: str) -> bool:
    """Whether an error text other than failure_lines' own reads the line (gpudoctor.pasted.read)."""
    from gpudoctor.pasted.read import Source, read_sources

    g = read_sources([Source(text.name, text.read_text(encoding="utf-8", errors="replace"))])
    return any(
        e.line and (e.line.strip() in line or line in e.line)
        for e in g.errors
        if e.kind not in ("gpu-stack-failure", "traceback-cut")
    )


def tracebacks(runner: Runner) -> None:
    """The --tracebacks count (the module's docstring)."""
    by_kind: Counter[str] = Counter()
    bills: Counter[str] = Counter()
    types: Counter[tuple[str, str]] = Counter()
    for name, case, kind, text in cases():
        exc = final_exception(text)
        if exc is None or recognised(text, exc[2]):
            continue
        _, out = runner.check(["--from", str(text.relative_to(ROOT)), "--format", "json"])
        blocking = [f["code"] for f in json.loads(out)["findings"] if f["severity"] in BLOCKING]
        by_kind[kind] += 1
        bills[kind] += not blocking
        types[(exc[1], kind)] += 1
        mark = "clean bill" if not blocking else ",".join(blocking)[:60]
        print(f"{kind:6} {name}/{case[:60]}  {text.relative_to(ROOT)}:{exc[0]}: {exc[2][:90]}  [{mark}]")
        if kind == "fine":
            toml = next(p for p in (text.parent / "expect.toml", text.parent / "case.toml") if p.is_file())
            said = tomllib.loads(toml.read_text(encoding="utf-8"))
            diagnosis = said.get("diagnosis") or said.get("cause") or said.get("title", "")
            print(f"       thread: {diagnosis[:200]}")
    for kind in ("fine", "ask", "broken"):
        print(f"unread final exception line: {kind:6} {by_kind[kind]:3} cases, {bills[kind]:3} passed with no finding")
    print("by type: " + ", ".join(f"{t} ({k}) {n}" for (t, k), n in sorted(types.items(), key=lambda x: (-x[1], x[0]))))


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
    ap.add_argument("--tracebacks", action="store_true", help="count the unread final exception lines of tracebacks")
    args = ap.parse_args()
    runner = Runner()
    if args.tracebacks:
        tracebacks(runner)
        return 0
    tally: dict[str, list[int]] = {}  # set -> [failing cases, clean bills, fine cases, false alarms]
    shapes: Counter[str] = Counter()  # shape -> clean bills showing it
    unshaped = 0
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
                why = reasons(text)
                shapes.update(shape for shape, _, _ in why)
                unshaped += not why
                for shape, n, line in why:
                    print(f"    {shape:13} {text.relative_to(ROOT)}:{n}: {line}")
    for name, (failing, clean, fine, alarms) in tally.items():
        print(f"{name:8} clean bills {clean:3} of {failing:3} failing   false alarms {alarms:3} of {fine:3} fine")
    total = [sum(r[i] for r in tally.values()) for i in range(4)]
    print(f"{'all':8} clean bills {total[1]:3} of {total[0]:3} failing   false alarms {total[3]:3} of {total[2]:3} fine")
    if args.verbose:
        print("clean bills by shape: " + ", ".join(f"{shape} {shapes[shape]}" for shape, _ in SHAPES) + f", none {unshaped}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
