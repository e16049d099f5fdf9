"""Count the causes a paste already states in a program's own line, and whether `check --from` names and meets them.

    python tools/stated_causes.py          # the counts, per set
    python tools/stated_causes.py -v       # and each stated line, with what the report did with it

Over every case of tests/blind/plans3..plans12 (expect.toml's `evidence`), tests/blind/pasted (`category`) and
tests/pasted/cases (case.toml's `fine`) (tests/blind/plans13 is never read: it is a blind set still being collected),
the real CLI runs in-process with `--format json` (tools/golden.py's Runner) on each case whose paste holds a stated
cause. Programs across the stack print the same shapes of sentence about their environment (issues 27 and 28), and
each is read here by its shape, never a case's words:

  requirement  what is installed against what a program needs: pip's resolver ("X 1.0 requires Y==2.0, but you have
               Y 1.0"), "X requires Y>=A", "requires Y A or newer", "Please upgrade to Y A or newer", "the minimum
               required Y is A", "GLIBC_2.28' not found"
  pair         a loaded-vs-compiled pair (or built-for-vs-have, a GPU's capability against a build's): "Loaded runtime CuDNN library: A but source was compiled with: B", "compiled
               against A but found runtime version B", "module compiled against API version 0xA but this version of
               numpy is 0xB", "compiled using NumPy 1.x cannot be run in NumPy 2", "Installed CUDA version A does not match
               the version torch was compiled with B", "Detected CUDA version A mismatches the version ... PyTorch (B)",
               xFormers' "PyTorch A with CUDA ... (you have B)", "GPU with CUDA capability sm_A is not compatible with
               the current PyTorch installation"
  advice       the program's own "Please install/upgrade/reinstall X" or "try reinstalling X"

For each stated line: `named` when a finding at warning or above carries that line, or a line of the same message
(four lines either side), as its evidence (pasted-error-unexplained names no cause and is not counted), `met` when the
plan step of such a finding prints a command (and, where the line names a Python package, a command line names it or
the package that requires it). A line whose two versions are the same states a requirement met and is not read. The
reading is coarse on purpose (a shape, not a meaning): a fine case's stated line
is a quiet twin (a requirement the versions shown meet, an accepted mismatch) and is counted apart, as `fired` when a
finding at warning or above carries it. Read the `-v` list before acting on the counts.
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

from tools.golden import Runner  # noqa: E402 (the project's root on the path first)

BLOCKING = ("warning", "error", "critical")
# The finding that says a failure is shown but not explained: it names no cause (the complaint measured here).
UNEXPLAINED = frozenset({"pasted-error-unexplained"})
SETS = tuple(f"plans{n}" for n in range(3, 13))  # never plans13

_PKG = r"[A-Za-z][\w.-]{0,60}"
_VER = r"\d[\w.+!-]{0,40}"
# (kind, shape): `subject` is what is required (a Python package where `package` is set), `need` and `have` versions.
SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "requirement",
        re.compile(
            rf"(?P<requirer>{_PKG})(?: version:)? {_VER} requires (?P<package>{_PKG})\s?(?P<need>[<>=!~]=?\s?[^,;\s]{{1,60}})"
            rf"(?:.{{0,80}}?but you have (?:{_PKG} )?(?P<have>{_VER}))?"
        ),
    ),
    (
        "requirement",
        re.compile(
            rf"\brequires? (?:a |an |the )?(?P<subject>[A-Za-z][\w .-]{{0,40}}?) (?:version )?(?P<need>{_VER}) or "
            r"(?:newer|later|higher|above|greater)",
            re.I,
        ),
    ),
    ("requirement", re.compile(rf"\bupgrade to (?P<subject>[A-Za-z][\w .-]{{0,40}}?) (?P<need>{_VER}) or (?:newer|later)", re.I)),
    (
        "requirement",
        re.compile(rf"\bminimum required (?P<subject>[A-Za-z][\w .-]{{0,60}}?) (?:is |version (?:is )?)?(?P<need>{_VER})", re.I),
    ),
    (
        "requirement",
        re.compile(
            rf"(?P<subject>{_PKG}) version (?P<have>{_VER}) is older than the minimum (?:required )?(?P<need>{_VER})", re.I
        ),
    ),
    ("requirement", re.compile(r"version [`'\u2018](?P<subject>GLIBC(?:XX)?|CXXABI)_(?P<need>[\d.]+)['\u2019] not found")),
    (
        "pair",
        re.compile(
            rf"Loaded runtime (?P<subject>\w+) library: (?P<have>{_VER}) but source was compiled with: (?P<need>{_VER})", re.I
        ),
    ),
    (
        "pair",
        re.compile(
            r"compiled (?:against|with):? (?:API version )?(?P<need>[\w.(), ]{1,30}?),? but (?:found runtime version|linked "
            r"against|the runtime is|this version of (?P<subject>\w+) is) (?P<have>[\w.(), ]{1,30})",
            re.I,
        ),
    ),
    ("pair", re.compile(rf"(?P<subject>PyTorch|Python)\s+(?P<need>{_VER}) .{{0,40}}\(you have (?P<have>{_VER})\)")),
    ("pair", re.compile(r"with CUDA capability (?P<have>sm_\d+) is not compatible with the current (?P<subject>PyTorch)")),
    ("requirement", re.compile(rf"minimum (?P<subject>cuda capability) supported by this library is (?P<need>{_VER})", re.I)),
    ("pair", re.compile(r"compiled using (?P<subject>NumPy) (?P<need>1\.x) cannot be run in")),
    (
        "pair",
        re.compile(
            rf"Installed (?P<subject>CUDA) version (?P<have>{_VER}) does not match the version \w+ was compiled with (?P<need>{_VER})"
        ),
    ),
    (
        "pair",
        re.compile(rf"Detected (?P<subject>CUDA) version (?P<have>{_VER}) mismatches the version that was used to compile", re.I),
    ),
    (
        "advice",
        re.compile(
            rf"\b(?:[Pp]lease|[Tt]ry) (?:re-?install(?:ing)?|install(?:ing)?|upgrad(?:e|ing)) (?:the )?(?P<subject>{_PKG})"
        ),
    ),
)
# The reporter's own sentence ("I am about to try reinstalling CUDA"), not a program's line.
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I am|we|my)\b", re.I)
# A pronoun where the advice's object would be ("try installing this package via ..."): the line names nothing.
_NO_OBJECT = frozenset({"this", "that", "it", "them", "a", "an"})


# A command that changes something (an install, a variable set, a link moved), not one that only shows (the asks a
# step prints where what was shown does not decide its command: nvidia-smi, pip list).
_ACTS = re.compile(
    r"\b(?:install|upgrade|uninstall|export|setx?|ln|update-alternatives|switch-cuda|run|reboot)\b|\$env:|^\w+=", re.I
)
# A program's message runs over a few lines ("xFormers can't load C++/CUDA extensions. xFormers was built for: /
# PyTorch A (you have B) / Please reinstall xformers"): a finding that carries any of them names the cause.
_MESSAGE_LINES = 4


def stated(text: str) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(kind, line, package or "", the message's lines around it) of each line of `text` that states a requirement or
    mismatch by one of SHAPES."""
    out = []
    all_lines = text.splitlines()
    for i, raw in enumerate(all_lines):
        line = raw.strip()
        if not line or len(line) > 2000:
            continue
        for kind, shape in SHAPES:
            m = shape.search(line)
            if m is None:
                continue
            groups = m.groupdict()
            if groups.get("need") and groups.get("have") and groups["need"].strip() == groups["have"].strip():
                continue  # the requirement the line states is met: "Python 3.10.11 (you have 3.10.11)"
            if kind == "advice" and (_FIRST_PERSON.search(line) or groups["subject"].lower() in _NO_OBJECT):
                continue
            package = groups.get("package") or ""
            around = tuple(x.strip() for x in all_lines[max(0, i - _MESSAGE_LINES) : i + _MESSAGE_LINES + 1] if x.strip())
            out.append((kind, line, package and f"{package}|{groups.get('requirer') or ''}", around))
            break
    return out


def judge(doc: dict, around: tuple[str, ...], package: str) -> tuple[str, str]:
    """(the code of the finding that carries a line of the stated line's message, or "", "met" or "unmet" or "")."""
    carried = [
        f
        for f in doc["findings"]
        if f["severity"] in BLOCKING
        and f["code"] not in UNEXPLAINED
        and any(
            x in e["value"] or e["value"] in x for e in f.get("evidence", []) if len(e.get("value") or "") > 8 for x in around
        )
    ]
    if not carried:
        return "", ""
    codes = {f["code"] for f in carried}
    names = [p.lower() for p in package.split("|") if p]
    for step in doc.get("plan", {}).get("steps", []):
        if not codes & set(step["codes"]):
            continue
        lines = [x for x in step["lines"] if not x.lstrip().startswith("#")]
        lines += [x for alt in step["alternatives"] for x in alt["lines"] if not x.lstrip().startswith("#")]
        lines = [x for x in lines if _ACTS.search(x)]
        if lines and (not names or any(n in x.lower() for n in names for x in lines)):
            return carried[0]["code"], "met"
    return carried[0]["code"], "unmet"


def cases() -> Iterator[tuple[str, str, str, Path]]:
    """(set, case, fine/ask/broken, the pasted text) of every case measured."""
    for name in SETS:
        for expect in sorted((ROOT / "tests/blind" / name / "cases").glob("*/expect.toml")):
            text = expect.parent / "input.txt"
            if text.is_file():
                yield name, expect.parent.name, tomllib.loads(expect.read_text(encoding="utf-8"))["evidence"], text
    for expect in sorted((ROOT / "tests/blind/pasted/cases").glob("*/expect.toml")):
        kind = tomllib.loads(expect.read_text(encoding="utf-8"))["category"]
        yield "pasted", expect.parent.name, kind, expect.parent / "input.txt"
    for case in sorted((ROOT / "tests/pasted/cases").glob("*/case.toml")):
        fine = tomllib.loads(case.read_text(encoding="utf-8"))["fine"]
        yield "cases", case.parent.name, "fine" if fine else "broken", case.parent / "report.txt"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="name each stated line and what was done with it")
    args = ap.parse_args()
    runner = Runner()
    tally: dict[str, Counter[str]] = {}
    for name, case, kind, text in cases():
        lines = stated(text.read_text(encoding="utf-8", errors="replace"))
        row = tally.setdefault(name, Counter())
        if not lines:
            continue
        _, out = runner.check(["--from", str(text.relative_to(ROOT)), "--format", "json"])
        doc = json.loads(out)
        for shape, line, package, around in lines:
            code, met = judge(doc, around, package)
            if kind == "fine":
                row["twins"] += 1
                row["fired"] += bool(code)
                verdict = f"FIRED {code}" if code else "quiet"
            else:
                row["stated"] += 1
                row["named"] += bool(code)
                row["met"] += met == "met"
                verdict = f"{code} {met}" if code else "NOT NAMED"
            if args.verbose:
                print(f"{name}/{case[:60]} [{kind}] {shape}: {verdict}\n    {line[:160]}")
    for name, row in tally.items():
        print(_row(name, row))
    total = Counter[str]()
    for row in tally.values():
        total.update(row)
    print(_row("all", total))
    return 0


def _row(name: str, row: Counter[str]) -> str:
    return (
        f"{name:8} stated {row['stated']:3}   named {row['named']:3}   met {row['met']:3}   "
        f"quiet twins {row['twins']:3}, fired {row['fired']:3}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
