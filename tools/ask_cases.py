"""Measure the ask cases: reports whose paste cannot decide the cause (issues 27 and 28).

    python tools/ask_cases.py          # the counts, per set
    python tools/ask_cases.py -v       # and each case: printed "No problems found", deciding asks carried

Over the cases of tests/blind/plans3..plans9 whose expect.toml says `evidence = "ask"`, the real CLI runs in-process
(tools/golden.py's Runner) and two things are counted: (a) the reports that print "No problems found", and (b) the
reports that carry at least one of the expectation's deciding asks, among the report's asks and its plan's commands.
A command is compared by its key (see `keys`): the program and what it is asked for (`docker run`, `pip list`, a
Python `-c` by the modules it imports), never by its exact words, since the expectation is written by hand. (b) is
counted twice: with any deciding ask, and without a bare `nvidia-smi` (asked almost everywhere, so a weak sign).
tests/blind/plans10 is never read: it is a blind set still being collected.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.golden import Runner  # noqa: E402 (the project's root on the path first)

SETS = tuple(f"plans{n}" for n in range(3, 10))  # never plans10
_NOTE = re.compile(r"\s{2,}\(.*$|\s+\((?:cmd|bash|in |on |inside|the |is |does |driver|expect|what|which|and ).*$")
_IMPORT = re.compile(r"\bimport\s+([\w.]+(?:\s*,\s*[\w.]+)*)|\bfrom\s+([\w.]+)\s+import\b")


def cases() -> Iterator[tuple[str, Path]]:
    """(set, case folder) of every ask case of sets 3-9."""
    for name in SETS:
        for expect in sorted((ROOT / "tests/blind" / name / "cases").glob("*/expect.toml")):
            if tomllib.loads(expect.read_text(encoding="utf-8"))["evidence"] == "ask":
                yield name, expect.parent


def _program(word: str) -> str:
    base = re.split(r"[\\/]", word.strip("\"'"))[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def _python_key(words: list[str]) -> str | None:
    if "-m" in words[1:]:
        at = words.index("-m")
        module = words[at + 1] if at + 1 < len(words) else ""
        sub = words[at + 2] if module == "pip" and at + 2 < len(words) else ""
        return f"python -m {module} {sub}".strip()
    if "-c" in words[1:]:
        code = " ".join(words[words.index("-c") + 1 :])
        mods = sorted({m.strip().split(".")[0] for g in _IMPORT.findall(code) for part in g for m in part.split(",") if m})
        return "python -c " + ",".join(mods[:1]) if mods else None
    return None


def _commands(line: str) -> list[list[str]]:
    """The simple commands of a shell line, split at ; & | (quotes kept together; a Windows path keeps its
    backslashes, which POSIX quoting would eat)."""
    lex = shlex.shlex(line, posix="\\" not in line, punctuation_chars=";&|")
    lex.whitespace_split = True
    out: list[list[str]] = [[]]
    try:
        for token in lex:
            if token and set(token) <= set(";&|"):
                out.append([])
            else:
                out[-1].append(token.strip("\"'"))
    except ValueError:  # an unclosed quote: the words as written
        return [line.split()]
    return [w for w in out if w]


def keys(command: str | list[str]) -> set[str]:
    """The keys of one command line (or argv): each simple command's program and what it asks for."""
    simple = [[str(w) for w in command]] if isinstance(command, list) else _commands(_NOTE.sub("", command.split("   (")[0]))
    out: set[str] = set()
    for words in simple:
        while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*|sudo|env|then:?|on|each", words[0]):
            words = words[1:]  # VAR=value, sudo, env: the command is what follows
        if not words:
            continue
        prog = _program(words[0])
        if prog.startswith("python") or prog in ("py", "pythonw"):
            if key := _python_key(words):
                out.add(key)
            continue
        args = [w for w in words[1:] if not w.startswith("-")]
        if prog in ("pip", "pip3"):
            out.add(f"python -m pip {args[0]}" if args else "python -m pip")
        elif prog in ("conda", "mamba", "docker", "kubectl", "podman", "wsl", "systemctl", "dpkg"):
            out.add(f"{prog} {args[0] if args else ''}".strip())
        elif prog in ("grep", "findstr", "head", "tail", "echo", "cd"):
            continue  # a filter or a move: not what is asked
        elif prog == "nvidia-smi":
            out.add("nvidia-smi" if len(words) == 1 else "nvidia-smi " + words[1].split("=")[0])
        else:
            out.add(prog)
    return out


def expected(case: Path) -> set[str]:
    plan = tomllib.loads((case / "expect.toml").read_text(encoding="utf-8")).get("plan", {})
    out: set[str] = set()
    for step in plan.get("steps", []):
        if not step.lower().startswith(("then", "if ", "none", "the full")):
            out |= keys(step)
    return out


def printed(report: dict) -> set[str]:
    out: set[str] = set()
    for ask in (report.get("pasted") or {}).get("ask_for") or []:
        out |= keys(ask["argv"])
    for step in (report.get("plan") or {}).get("steps") or []:
        for cmd in step.get("commands") or []:
            out |= keys(cmd.get("argv") or cmd.get("command") or "")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="each case: clean bill, keys matched")
    args = ap.parse_args()
    runner = Runner()
    tally: dict[str, list[int]] = {}  # set -> [ask cases, "No problems found", a deciding ask, one beyond nvidia-smi]
    for name, case in cases():
        rel = str((case / "input.txt").relative_to(ROOT))
        _, text = runner.check(["--from", rel])
        _, out = runner.check(["--from", rel, "--format", "json"])
        want, got = expected(case), printed(json.loads(out))
        hit = want & got
        row = tally.setdefault(name, [0, 0, 0, 0])
        row[0] += 1
        row[1] += "No problems found" in text
        row[2] += bool(hit)
        row[3] += bool(hit - {"nvidia-smi"})
        if args.verbose:
            clean = "CLEAN " if "No problems found" in text else "      "
            print(f"{clean}{name}/{case.name[:60]:60} hit={sorted(hit)} missed={sorted(want - got)[:4]}")
    for name, (n, clean, hit, strong) in tally.items():
        print(f"{name:8} ask cases {n:3}   no-problems {clean:3}   deciding ask {hit:3}   beyond nvidia-smi {strong:3}")
    total = [sum(r[i] for r in tally.values()) for i in range(4)]
    print(
        f"{'all':8} ask cases {total[0]:3}   no-problems {total[1]:3}   deciding ask {total[2]:3}   beyond nvidia-smi {total[3]:3}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
