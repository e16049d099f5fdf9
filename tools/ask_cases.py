"""Measure the ask cases: reports whose paste cannot decide the cause (issues 27 and 28).

    python tools/ask_cases.py          # the counts, per set
    python tools/ask_cases.py -v       # and each case: printed "No problems found", deciding asks carried

Over the cases of tests/blind/plans3..plans11 whose expect.toml says `evidence = "ask"`, the real CLI runs in-process
(tools/golden.py's Runner) and these are counted: (a) the reports that print "No problems found", and (b) the
reports that carry at least one of the expectation's deciding asks, among the report's asks and its plan's commands.
A command is compared by its key (see `keys`): the program and what it is asked for (`docker run`, `pip list`, a
Python `-c` by the modules it imports), never by its exact words, since the expectation is written by hand. (b) is
counted twice: with any deciding ask, and without a bare `nvidia-smi` (asked almost everywhere, so a weak sign).

Then the four ways the reviewers of sets 3-11 found asks wrong (issues 27/28), each counted in asks and in reports:
- place: an ask that reads the program's own environment (an interpreter, pip, its variables, its loader) typed on
  the host's shell where the expectation asks in the container, the pod or the job (a step's note says "inside the
  container", "in the job", "on the compute node", or the step itself runs through docker/kubectl exec or srun);
- interpreter: an ask in a bare `python`/`python3`/`py`/`pip` where the paste shows the environment's own interpreter
  or root (an env's bin/python, a site-packages path, a python.exe path, a venv's activate script);
- unrelated: an ask whose subject (its program, the modules it imports, the paths and variables it reads, the
  libraries it greps) is named nowhere in the paste nor in the expectation (its kind, diagnosis, steps and
  alternatives), i.e. it bears on none of the causes the case leaves open. An ask whose only subject is generic
  (nvidia-smi, pip list) is never counted;
- copied: an ask whose description (its "why") is word for word another ask's in the same report.
tests/blind/plans12 is never read: it is a blind set still being collected.
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

SETS = tuple(f"plans{n}" for n in range(3, 12))  # never plans12
_NOTE = re.compile(r"\s{2,}\(.*$|\s+\((?:cmd|bash|in |on |inside|the |is |does |driver|expect|what|which|and ).*$")
_IMPORT = re.compile(r"\bimport\s+([\w.]+(?:\s*,\s*[\w.]+)*)|\bfrom\s+([\w.]+)\s+import\b")


def cases() -> Iterator[tuple[str, Path]]:
    """(set, case folder) of every ask case of sets 3-11."""
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


# Where an expectation asks in the program's container, pod or job: a step's note, or the step's own wrapper.
_INSIDE = re.compile(
    r"\b(?:inside|in) the (?:container|pod|job|image)\b|\bon the compute node\b|\bin the job's environment\b"
    r"|^\s*(?:docker|podman) (?:exec|compose exec)\b|^\s*kubectl exec\b|^\s*srun\b",
    re.IGNORECASE,
)
# Programs that read the program's own environment: asked on the host's shell they read another one.
_PROGRAM_SIDE = frozenset({"python", "python3", "py", "pip", "pip3", "printenv", "env", "ldconfig", "ldd", "conda"})
# An environment's own interpreter or root shown in the paste (a line break may cut a long path).
_ENV_SHOWN = re.compile(
    r"[\w~./-]*/(?:envs|venv|\.venv|virtualenvs)/[\w.-]+/(?:\s*)(?:bin/python|lib/python\d)"
    r"|[\w~.-]*/[\w.-]+/bin/python\d?(?:\.\d+)?\b(?!-config)"
    r"|[A-Za-z]:\\[^\s\"'<>|]*\\python(?:w)?\.exe"
    r"|[\w~./-]+/bin/activate\b|[A-Za-z]:\\[^\s\"'<>|]*\\Scripts\\activate",
    re.IGNORECASE,
)
_BARE = frozenset({"python", "python3", "py", "pip", "pip3"})
# Subjects too common to say anything about relatedness (asked on every machine) and words that are syntax.
_GENERIC = frozenset(
    [
        "nvidia-smi",
        "python",
        "python3",
        "py",
        "pip",
        "pip3",
        "sys",
        "os",
        "print",
        "list",
        "show",
        "grep",
        "sudo",
        "env",
        "printenv",
        "cat",
        "ls",
        "test",
        "docker",
        "run",
        "exec",
        "kubectl",
        "conda",
        "bash",
        "sh",
        "cmd",
        "powershell",
        "importlib",
        "platform",
        "subprocess",
        "uname",
        "which",
        "where",
        "where.exe",
    ]
)
# Path parts that name no subject (a folder every system has).
_DIRS = frozenset(["usr", "lib", "lib64", "bin", "sbin", "etc", "dev", "proc", "sys", "opt", "local", "share", "include", "var"])


def subjects(ask: dict) -> set[str]:
    """What an ask is about (lower case): its program, the modules it imports or runs (-m), the last part of each
    path it reads, the variables and the library stems it names, in its command and its filter; the generic ones
    (nvidia-smi, pip list, cat) left out."""
    argv = [w for w in ask.get("argv") or [] if isinstance(w, str)]
    while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*|sudo|env", argv[0]):
        argv = argv[1:]
    out = {_program(argv[0])} if argv else set()
    if "-m" in argv[1:-1]:
        out.add(argv[argv.index("-m") + 1].split(".")[0].lower())
    for word in (*argv[1:], *str(ask.get("command") or "").split("|")[1:]):
        for g in _IMPORT.findall(word):
            out |= {m.strip().split(".")[0].lower() for part in g for m in part.split(",") if m.strip()}
        for path in re.findall(r"(?:/[\w.@+-]+)+", word):  # its last part that is not a common folder
            out |= {next((d for d in reversed(path.lower().split("/")) if d and d not in _DIRS), "")}
        out |= {v.lower() for v in re.findall(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b", word)}
        out |= {m.lower() for m in re.findall(r"\blib([a-zA-Z][\w-]*?)(?:\.so|\b)", word)}
    return {w for w in out if len(w) > 2 and w not in _GENERIC}


def _expect_text(case: Path) -> str:
    expect = tomllib.loads((case / "expect.toml").read_text(encoding="utf-8"))
    plan = expect.get("plan", {})
    parts = [expect.get("kind", ""), expect.get("diagnosis", ""), expect.get("platform", "")]
    parts += [str(x) for x in (*plan.get("steps", []), *plan.get("alternatives", []), *plan.get("wrong_if", []))]
    return "\n".join(parts)


def _asks_inside(case: Path) -> bool:
    plan = tomllib.loads((case / "expect.toml").read_text(encoding="utf-8")).get("plan", {})
    return any(_INSIDE.search(step) or _INSIDE.search(step.split("   (", 1)[-1]) for step in plan.get("steps", []))


def faults(case: Path, report: dict) -> dict[str, int]:
    """The asks of one report in each of the four wrong shapes (see the module's doc)."""
    asks = (report.get("pasted") or {}).get("ask_for") or []
    paste = (case / "input.txt").read_text(encoding="utf-8", errors="replace")
    known = (paste + "\n" + _expect_text(case)).lower()
    inside = _asks_inside(case)
    env_shown = any(not re.match(r"/(?:usr/(?:local/)?)?bin/", m.group()) for m in _ENV_SHOWN.finditer(paste))
    out = {"place": 0, "interpreter": 0, "unrelated": 0, "copied": 0}
    whys = [a.get("why", "") for a in asks]
    for ask in asks:
        words = [w for w in ask.get("argv") or [] if isinstance(w, str) and not re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*|sudo|env", w)]
        prog = _program(words[0]) if words else ""
        out["place"] += inside and prog in _PROGRAM_SIDE and not _INSIDE.search(ask.get("note") or "")
        out["interpreter"] += env_shown and (words[0] if words else "") in _BARE
        subj = subjects(ask)
        out["unrelated"] += bool(subj) and not any(s in known for s in subj)
    out["copied"] = sum(whys.count(w) > 1 for w in whys if w)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="each case: clean bill, keys matched, wrong asks")
    args = ap.parse_args()
    runner = Runner()
    # set -> [ask cases, "No problems found", a deciding ask, one beyond nvidia-smi, then per shape: asks, reports]
    tally: dict[str, list[int]] = {}
    shapes = ("place", "interpreter", "unrelated", "copied")
    for name, case in cases():
        rel = str((case / "input.txt").relative_to(ROOT))
        _, text = runner.check(["--from", rel])
        _, out = runner.check(["--from", rel, "--format", "json"])
        report = json.loads(out)
        want, got = expected(case), printed(report)
        hit = want & got
        wrong = faults(case, report)
        row = tally.setdefault(name, [0] * (4 + 2 * len(shapes)))
        row[0] += 1
        row[1] += "No problems found" in text
        row[2] += bool(hit)
        row[3] += bool(hit - {"nvidia-smi"})
        for i, shape in enumerate(shapes):
            row[4 + 2 * i] += wrong[shape]
            row[5 + 2 * i] += bool(wrong[shape])
        if args.verbose:
            clean = "CLEAN " if "No problems found" in text else "      "
            bad = " ".join(f"{k}={v}" for k, v in wrong.items() if v)
            print(f"{clean}{name}/{case.name[:60]:60} hit={sorted(hit)} missed={sorted(want - got)[:4]} {bad}")
    head = "   ".join(f"{s} asks/reports" for s in shapes)
    print(f"{'set':8} ask cases   no-problems   deciding ask   beyond nvidia-smi   {head}")
    rows = [*tally.items(), ("all", [sum(r[i] for r in tally.values()) for i in range(4 + 2 * len(shapes))])]
    for name, r in rows:
        per = "   ".join(f"{f'{r[4 + 2 * i]}/{r[5 + 2 * i]}':>{len(s) + 14}}" for i, s in enumerate(shapes))
        print(f"{name:8} {r[0]:9}   {r[1]:11}   {r[2]:12}   {r[3]:17}   {per}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
