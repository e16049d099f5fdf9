"""Count the plans that stop short of the reporter's own work: stand-ins for what the paste shows, and no way back.

    python tools/plan_completeness.py          # the counts, per set
    python tools/plan_completeness.py -v       # and the plans counted, by name, with what was counted
    python tools/plan_completeness.py --codes  # and the findings printed with no command step, per finding code
    python tools/plan_completeness.py --shapes # the reviewers' kind-9 reasons, by the missing step's shape

Over every case of the open blind sets (tools/blind_sets.OPEN; expect.toml's `evidence`), tests/blind/pasted (`category`)
and tests/pasted/cases (case.toml's `fine`) (tools/clean_bills.cases' reading; tools/blind_sets.BLIND is never read:
it is the blind set being collected), the real CLI runs in-process
with `--format json` (tools/golden.py's Runner). Issue 27's kind 9 ("no command where one is possible") is counted
here in four columns, from the report's structure and a general reading of the paste, never a case's words:

  stand-in   a placeholder the plan prints (an angle-bracket token in a step's line or summary) or a prose stand-in
             ("the same Python", "the same install", "your program") whose value the paste states: the paste shows a
             command line run (after a prompt, or a program's line alone in a code block) for a command or a package
             list, an interpreter's path for a Python, an environment's path for an environment, a folder for a
             folder. A stand-in the paste does not decide is counted apart (`open`): it must stay, saying what to put.
             The reading is coarse on purpose (a kind of value, not the value): a folder shown counts for any
             folder placeholder, so a `<cuda12-toolkit-folder>` beside a CUDA 13.0 folder (plans11/1114) is counted
             though the paste does not decide it; read the `-v` list before acting on the count.
  no way back  a failing case (broken) whose report has a finding at warning or above and a plan, but whose last step
             neither runs again a command the paste shows run nor checks that the fix took (`python -c` importing a
             framework, `nvidia-smi`, `jax.devices()`).
  no command   a finding printed at warning or above (any case: a command is owed wherever a cause is named) with no
             command step: no plan step carries its code (the JSON plan's `codes`) with a command (a fix, or a
             read-only step of its own), and no targeted ask names it (an ask's `codes`, pasted.ask: the question
             whose answer decides that finding's command). Of these, those of a failing (broken) case where the
             report asks only general questions are shown apart ("failing, asks only"): the paste decided the cause
             and the plan only asks around it, the commonest kind-9 reason below. Per finding code with `--codes`.

The reviewers' kind-9 reasons (every `kinds` holding "9" in tests/blind/plans3..plans12/verdicts-*.toml, every run,
carried verdicts too: 545 reasons) sorted by the shape of the missing step (`--shapes`; a reason may show several, each
read by a coarse pattern of the reason's words, listed in _SHAPES), first figures of 2026-11-29:

  shape                                                          reasons
  a cause named (or a clean bill), no fix command at all             395
  the variable or PATH line (LD_LIBRARY_PATH, CUDA_HOME, setx)       141
  a deciding ask missing (the fact that decides is not asked)        100
  the env's own interpreter / the same Python not used                84
  the step that activates the change (restart, activate, ...)         77
  the rerun of the reporter's own command                             59
  the companion package (torchvision, the matched set)                51
  a placeholder the paste decides                                     39
  none of these                                                       38

First figures (2026-11-29, src at 19dc03d6, before any change of the planner for them), over plans3..12, pasted
and cases: 471 findings at warning or above. Counting a general ask as no command step (the first reading of this
tool), 60: pasted-error-unexplained 48, framework-arch-unsupported 4, extension-symbol-missing 3, toolkit-arch-unsupported
2, gpu-none, ranks-python-differs, companion-torch-mismatch 1 each. Counting an ask that names the finding (its `codes`)
as its command step, as the brief of h187 reads "a targeted ask": 14, 2 of them on a failing case with general asks
only: framework-arch-unsupported 7 (4 of them a GPU below every build's floor, plans4/313, plans5/423, pytorch-6515,
vllm-16307, where no install helps and no command is right: read `-v`), pasted-error-unexplained 4, gpu-none 1 (an
AMD-only control), ranks-python-differs 1, toolkit-arch-unsupported 1 (plans12/1231: the torch's CUDA build, which
decides, was not asked where the torch was stated without it).

After h187 (checks/reported's stated-CUDA rule, pasted/ask's link of an ask to the open finding it decides): 11, 1
on a failing case with general asks only (plans6/515, ranks-python-differs: its commands turn to prose from the
first `<other-node>`, planner.deciders.decided). Left: framework-arch-unsupported 5 (the 4 floors above, and
plans11/1135 where no framework is named to ask of), pasted-error-unexplained 4, gpu-none 1. tools/clean_bills.py
unchanged (25 of 416, 9 of 124).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import blind_sets, clean_bills  # noqa: E402 (the project's root on the path first)
from tools.golden import Runner  # noqa: E402

BLOCKING = clean_bills.BLOCKING

# --- what the paste states ------------------------------------------------------------------------------------------
# A command line after a shell's prompt: `$ `, `# `, `user@host:~$ `, `(env) $`, `PS C:\x> `, `C:\x> `.
_PROMPT = re.compile(
    r"^\s*(?:\([\w.-]{1,60}\)\s*)?(?:[\w.-]{1,40}@[\w.-]{1,64}:[^\s$#]{0,200}\s?[$#]|[$#]|PS [A-Za-z]:\\[^>]{0,300}>"
    r"|[A-Za-z]:\\[^<>|\"]{0,300}>)\s*(?P<cmd>\S.*)$"
)
# A program's command line alone on its line, as a code block holds what the reporter ran.
_RUN_LINE = re.compile(
    r"^\s*(?:sudo\s+)?(?P<cmd>(?:python[\d.]*|py|pip[\d.]*|conda|mamba|docker|podman|uv|poetry|\S+\.(?:bat|sh|py|exe))"
    r"\s+\S.*|\S+\.bat)$"
)
_INTERPRETER = re.compile(r"[\w.~-]*[\\/](?:[\w .~-]+[\\/]){0,20}(?:bin[\\/]python[\d.]*|python[w]?\.exe)\b", re.I)
_ENVIRONMENT = re.compile(r"envs[\\/][\w.-]+|[\\/][\w.-]*venv[\w.-]*(?:[\\/]|\b)|[\\/]Scripts[\\/]activate|bin/activate")
_FOLDER = re.compile(r"[A-Za-z]:\\[\w .-]+\\|(?<![\w.])/(?:usr|opt|home|root)/[\w.-]+")


def stated(text: str) -> set[str]:
    """What kinds of value the paste states: a command run, an interpreter, an environment, a folder."""
    out = set()
    for line in text.splitlines():
        if _PROMPT.match(line) or _RUN_LINE.match(line):
            out.add("command")
    if _INTERPRETER.search(text):
        out.add("interpreter")
    if _ENVIRONMENT.search(text):
        out.add("environment")
    if _FOLDER.search(text):
        out.add("folder")
    return out


def shown_commands(text: str) -> set[str]:
    """The command lines the paste shows run, their words joined by one space."""
    out = set()
    for line in text.splitlines():
        m = _PROMPT.match(line) or _RUN_LINE.match(line)
        if m:
            out.add(" ".join(m.group("cmd").replace('"', "").replace("'", "").split()))
    return out


# --- what the plan prints in their place ----------------------------------------------------------------------------
_ANGLE = re.compile(r"<([a-z][a-z0-9-]*)>")
# The prose stand-ins of the blind sets' verdicts, with the kind of value each stands for.
_PROSE = (
    (re.compile(r"\bthe same Python\b", re.I), "interpreter"),
    (re.compile(r"\b(?:the same install|your install command)\b", re.I), "command"),
    (re.compile(r"\b(?:rerun|run) your (?:program|script|command)\b|\bthe failing command\b", re.I), "command"),
)


def _kind(name: str) -> str:
    """The kind of value an angle-bracket placeholder stands for, by its name."""
    if name in ("packages", "program") or "command" in name or "script" in name:
        return "command"
    if "python" in name or name == "interpreter":
        return "interpreter"
    if "env" in name:
        return "environment"
    if any(w in name for w in ("folder", "dir", "path")):
        return "folder"
    return "other"


def stand_ins(doc: dict) -> list[tuple[str, str]]:
    """(stand-in, kind of value) of each placeholder or prose stand-in the plan prints."""
    out = []
    for step in doc.get("plan", {}).get("steps", []):
        texts = [*step["summaries"], *step["lines"]]
        for alt in step["alternatives"]:
            texts += [alt["summary"], *alt["lines"]]
        for t in texts:
            out += [(f"<{m}>", _kind(m)) for m in _ANGLE.findall(t)]
            out += [(m.group(0), kind) for pattern, kind in _PROSE for m in pattern.finditer(t)]
    return out


_VERIFY = re.compile(r"cuda\.is_available|jax\.devices|list_physical_devices|is_built_with_cuda|^nvidia-smi\b")


def way_back(doc: dict, commands: set[str]) -> bool:
    """Whether the plan's last step runs a command the paste shows run again, or checks that the fix took."""
    steps = doc.get("plan", {}).get("steps", [])
    if not steps:
        return False
    for line in steps[-1]["lines"]:
        words = " ".join(line.replace('"', "").replace("'", "").split())
        if words in commands or _VERIFY.search(words):
            return True
    return False


def uncommanded(doc: dict) -> list[str]:
    """The codes of the findings printed at warning or above that come with no command: no plan step carries the code
    with a command (a fix, or a read-only step of its own), and no ask names it (an ask's `codes`: the question whose
    answer decides that finding's command)."""
    carried = set()
    for step in doc.get("plan", {}).get("steps", []):
        if step.get("commands"):
            carried.update(step.get("codes") or ())
    for ask in (doc.get("pasted") or {}).get("ask_for") or ():
        carried.update(ask.get("codes") or ())
    return [f["code"] for f in doc["findings"] if f["severity"] in BLOCKING and f["code"] not in carried]


def asks(doc: dict) -> bool:
    """Whether the report asks the reporter for anything (its "Ask the reporter for" list)."""
    return bool((doc.get("pasted") or {}).get("ask_for"))


# The shapes of the missing step in the reviewers' kind-9 reasons, each a coarse pattern of the reason's words.
_SHAPES = (
    (
        "a cause named (or a clean bill), no fix command at all",
        r"no fix|prints no|no command|gives no|(?:stays|in) prose|never concludes|no step|No problems found|"
        r"unexplained|only asks|asks only|generic asks|no plan|nothing to (?:do|run)",
    ),
    (
        "a deciding ask missing (the fact that decides is not asked)",
        r"should (?:also )?ask|ask for|deciding|would decide|decides? (?:between|which|whether)|does not decide",
    ),
    (
        "the env's own interpreter / the same Python not used",
        r"interpreter|python\.exe|same Python|that Python|bin/python|in that env|in the env|activated env",
    ),
    (
        "the variable or PATH line (LD_LIBRARY_PATH, CUDA_HOME, setx)",
        r"LD_LIBRARY_PATH|\bPATH\b|CUDA_HOME|CUDA_PATH|setx|export ",
    ),
    ("the companion package (torchvision, the matched set)", r"torchvision|torchaudio|companion|together|matched set|alongside"),
    (
        "the step that activates the change (restart, activate, ...)",
        r"restart|reboot|reload|activate|new shell|log out|newgrp|systemctl|\bsource |Native Tools|modprobe",
    ),
    (
        "a variable set from a value the plan prints (XLA_FLAGS=... from a folder)",
        r"XLA_FLAGS|xla_gpu_cuda_data_dir|\$\(|(?:folder|path|directory) (?:it|the \w+ line|step \d) prints",
    ),
    (
        "a found library's folder not put on the path (find, then export)",
        r"(?:find|locate|ldconfig -p|ls )[^.;]{0,80}(?:export|LD_LIBRARY_PATH|on the (?:loader )?path)|export its (?:folder|dir)",
    ),
    (
        "a way to keep the setting (activate.d, ~/.bashrc, Dockerfile ENV, setx)",
        r"activate\.d|bashrc|\.profile\b|Dockerfile|(?-i:\bENV\b)|setx|persist|permanent|keep (?:it|the setting)|"
        r"user variable|/etc/environment|ld\.so\.conf",
    ),
    ("the rerun of the reporter's own command", r"\brerun|re-run|run\b.{0,40}\bagain|\bthen run\b"),
    ("a placeholder the paste decides", r"placeholder|<[a-z0-9-]+>|made-up"),
)


def kind9_reasons() -> list[tuple[str, str, str]]:
    """(set, case, reason) of every kind-9 verdict of the open blind sets (every run, carried ones too)."""
    import tomllib

    out = []
    for n in (int(s.removeprefix("plans")) for s in blind_sets.OPEN):  # never the blind set (tools/blind_sets.py)
        for path in sorted((ROOT / f"tests/blind/plans{n}").glob("verdicts-*.toml")):
            for run in tomllib.loads(path.read_text(encoding="utf-8")).values():
                for case, verdict in run.items() if isinstance(run, dict) else ():
                    if isinstance(verdict, dict) and "9" in verdict.get("kinds", ()):
                        out.append((f"plans{n}", case, verdict.get("reason", "")))
    return out


def shapes() -> Counter[str]:
    """The kind-9 reasons counted by the shapes of _SHAPES they show (a reason may show several; `none of these`)."""
    reasons = kind9_reasons()
    count = Counter[str]()
    for _, _, reason in reasons:
        hit = [name for name, pattern in _SHAPES if re.search(pattern, reason, re.I)]
        count.update(hit or ["none of these"])
    return count


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="name the plans counted")
    ap.add_argument("--codes", action="store_true", help="the findings with no command step, per finding code")
    ap.add_argument("--shapes", action="store_true", help="the kind-9 reasons by the missing step's shape")
    args = ap.parse_args()
    if args.shapes:
        print(f"{len(kind9_reasons()):5}  kind-9 reasons")
        for name, n in shapes().most_common():
            print(f"{n:5}  {name}")
        return 0
    runner = Runner()
    tally: dict[str, Counter[str]] = {}
    by_code = Counter[str]()
    for name, case, kind, text in cases():
        _, out = runner.check(["--from", str(text.relative_to(ROOT)), "--format", "json"])
        doc = json.loads(out)
        paste = text.read_text(encoding="utf-8", errors="replace")
        have = stated(paste)
        row = tally.setdefault(name, Counter())
        for token, what in stand_ins(doc):
            column = "stand-in" if what in have else "open"
            row[column] += 1
            if args.verbose and column == "stand-in":
                print(f"stand-in     {name}/{case}: {token} ({what})")
        blocking = [f for f in doc["findings"] if f["severity"] in BLOCKING]
        if kind == "broken" and blocking and doc.get("plan", {}).get("steps"):
            row["plans"] += 1
            if not way_back(doc, shown_commands(paste)):
                row["no way back"] += 1
                if args.verbose:
                    print(f"no way back  {name}/{case}")
        row["findings"] += len(blocking)
        for code in uncommanded(doc):
            # beside general asks (none naming it) on a failing case: the paste decided, the plan only asks around it
            column = "general asks" if asks(doc) and kind == "broken" else "no command"
            row["no command"] += column == "general asks"
            row[column] += 1
            by_code[f"{column}: {code}"] += 1
            if args.verbose:
                print(f"{column:12} {name}/{case}: {code}")
    for name, row in tally.items():
        print(_row(name, row))
    total = Counter[str]()
    for row in tally.values():
        total.update(row)
    print(_row("all", total))
    if args.codes:
        for code, n in by_code.most_common():
            print(f"{n:5}  {code}")
    return 0


def _row(name: str, row: Counter[str]) -> str:
    return (
        f"{name:8} stand-ins stated {row['stand-in']:3}   open {row['open']:3}   "
        f"no way back {row['no way back']:3} of {row['plans']:3} broken plans   "
        f"no command {row['no command']:3} of {row['findings']:3} findings ({row['general asks']:2} failing, asks only)"
    )


def cases():
    """clean_bills' cases (tests/blind/plans3..plans13, pasted, tests/pasted/cases)."""
    yield from clean_bills.cases()


if __name__ == "__main__":
    raise SystemExit(main())
