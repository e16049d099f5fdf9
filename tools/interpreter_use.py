"""Count the printed commands that run in another interpreter, shell or privilege than the paste shows (kind 8, issue 27).

    python tools/interpreter_use.py            # the counts, per set
    python tools/interpreter_use.py -v         # and each command counted, by case
    python tools/interpreter_use.py --verdicts # the reviewers' kind-8 reasons, each with what this tool counts there

Over every case of the open blind sets (tools/blind_sets.OPEN; input.txt) and tests/blind/pasted, the real CLI runs in-process with
`--format json` (tools/golden.py's Runner). What the reporter used is read by gpudoctor's own readers, never a second
one: the interpreter the paste shows (the report's python.executable where read_from says it was read, not assumed),
the environment a prompt shows active (gpudoctor.pasted.cues.prompt_env), the shells and the sudo of the lines typed at
a prompt (gpudoctor.pasted.cues.prompt_command). Every printed command (the plan's steps, the asks) is then counted:

- other interpreter: a bare python/pip, or another interpreter, where the paste shows the program's own interpreter (a
  deliberate move counts too: `py -3.7-64` for a 32-bit Python);
- prompt env only: a bare python/pip where the paste shows an environment only by its prompt's name, `(tf_daily)
  C:\\x>`: right in that prompt, wrong in any other, and the plan must say which (a note naming it says so);
- sudo dropped: a command the reporter typed under sudo (the same program and verb: `sudo docker run`) printed without
  it; pip and python are left out: a `sudo pip` is not a need of root to copy (and its twin, below, counts the copy);
- sudo copied: a root command that runs the environment's own interpreter or pip (a user's environment, made root's);
- after restart: a bare python/pip after a step that restarts the machine or the shell, where the paste shows an
  environment (a new shell has none active);
- shell: a plan written for another shell than the prompts show (cmd.exe for PowerShell's prompts, or the reverse),
  or a printed line in another shell's syntax than the plan's (`$env:` in cmd.exe, `%VAR%`/`set X=` in PowerShell,
  `export`/`2>/dev/null` on Windows, `$env:`/`%VAR%` in a POSIX shell).

tools/blind_sets.BLIND is never read: it is the blind set being collected.

Figures (579 cases, sets 3-13 and pasted), first, before h197 changed src: 11 cases with a command counted; other
interpreter 4 (all plans11/1125's deliberate move to a 64-bit `py -3.7-64`), prompt env only 18 (8 cases: `(pia) PS`,
`(textgen)`, `(venv)`, `(tf_daily)`...), sudo dropped 2 (plans8/817: `sudo docker run` typed, its image asked of with
`docker run`), sudo copied 0, after restart 1 (plans13/1303: `pip install` rerun after `shutdown /r` with `(tf_daily)`
not entered again), shell 0. Of the 70 cases whose latest verdict gives kind 8, 1 is counted here (1303): the rest name
a platform assumed (Linux for a Windows paste), a host asked for a container's state, or an interpreter since read.
After h197 (image runs keep the reporter's sudo; a rerun after a restart enters the prompt's conda environment first;
a sudo before a bare pip/python is not copied onto the environment's own interpreter): 9 cases counted; other
interpreter 4 (1125, deliberate), prompt env only 17 (1303's rerun now follows its `conda activate`), sudo dropped 0,
sudo copied 0, after restart 0, shell 0.
clean_bills.py unchanged (false alarms 11 of 145 fine cases).
Over sets 3-17 and pasted (776 cases), before h252: 13 cases counted; other interpreter 4 (1125), prompt env only 28
(11 cases). After h252 (a bare python/pip where a prompt shows the environment by its name says which prompt, noted;
a venv activated at a POSIX prompt or by a launcher named by its path): 1 case (1125), prompt env only 0; clean_bills.py
unchanged (false alarms 22 of 200 fine cases).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import blind_sets  # noqa: E402 (the project's root on the path first)
from tools.golden import Runner  # noqa: E402

SETS = blind_sets.OPEN  # never the blind set being collected (tools/blind_sets.py)
KINDS = ("other interpreter", "prompt env only", "sudo dropped", "sudo copied", "after restart", "shell")

_BARE = ("python", "python3", "py", "pip", "pip3")
_USUAL = ("python", "python3")
# What runs the next words as the command: a privilege, a variable, a runner of another environment.
_PREFIX = re.compile(r"[A-Z_][A-Z0-9_]*=.*|sudo|env|-E")
# What restarts the machine or the shell: after it no environment is active.
_RESTARTS = (("reboot",), ("shutdown", "-r"), ("shutdown", "/r"), ("Restart-Computer",), ("wsl", "--shutdown"))
# A line in one shell's syntax that another shell does not run (each target's foreign forms).
_FOREIGN = {
    "cmd": re.compile(r"\$env:|^export\s|2>/dev/null|\$\(|^sudo\s"),
    "powershell": re.compile(r"^set\s+\w+=|%\w+%|^export\s|2>/dev/null|^sudo\s"),
    "windows": re.compile(r"\$env:|^set\s+\w+=|%\w+%|^export\s|2>/dev/null|^sudo\s"),
    "posix": re.compile(r"\$env:|%\w+%|^set\s+\w+=|\\Scripts\\"),
}


def cases() -> Iterator[tuple[str, str, Path]]:
    """(set, case, the pasted text) of every case measured."""
    for name in SETS:
        for text in sorted((ROOT / "tests/blind" / name / "cases").glob("*/input.txt")):
            yield name, text.parent.name, text
    for text in sorted((ROOT / "tests/blind/pasted/cases").glob("*/input.txt")):
        yield "pasted", text.parent.name, text


def program(argv: list[str]) -> tuple[str, list[str]]:
    """The program a command runs and its arguments, past sudo, env and VAR=value (a command run in a container, by
    docker/kubectl exec or a runner such as `uv run`, runs that program: its interpreter is the container's own)."""
    words = list(argv)
    while len(words) > 1 and _PREFIX.fullmatch(words[0]):
        words = words[1:]
    return (words[0], words[1:]) if words else ("", [])


def _name(word: str) -> str:
    return re.split(r"[\\/]", word)[-1].lower().removesuffix(".exe")


def python_like(word: str) -> bool:
    return _name(word) in _BARE or re.fullmatch(r"python3?(\.\d+)?w?", _name(word)) is not None


def used(text: str) -> dict[str, Any]:
    """What the paste shows the reporter used, by gpudoctor's readers: active environments, shells, sudo'd commands."""
    from gpudoctor.pasted.cues import prompt_command, prompt_env

    envs: set[str] = set()
    shells: set[str] = set()
    sudo: set[tuple[str, str]] = set()
    plain: set[tuple[str, str]] = set()  # typed without sudo too: which of the two the plan needs is its own question
    for line in text.splitlines()[:200_000]:
        line = line[:2_000]
        typed = prompt_command(line)
        if typed is None:
            # a command quoted in prose ("- YOLO: `docker run ...`") is one the reporter ran as well
            if m := re.search(r"`([\w.-]+) ([\w.-]+)", line):
                plain.add((_name(m.group(1)), m.group(2)))
            continue
        if (env := prompt_env(line)) and env.lower() != "base":
            envs.add(env)
        if typed[0] in ("powershell", "cmd"):
            shells.add(typed[0])
        words = typed[1].split()
        if words:
            prog, args = program(words)
            verb = next((a for a in args if not a.startswith("-")), "")
            if words[0] != "sudo":
                plain.add((_name(prog), verb))
            elif not python_like(prog):
                sudo.add((_name(prog), verb))
    return {"envs": envs, "shells": shells, "sudo": sudo - plain}


def printed(doc: dict[str, Any]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(where, step number, command) of each printed command: the plan's steps in order, then the asks."""
    for n, step in enumerate(doc["plan"].get("steps", [])):
        for c in step.get("commands", []):
            if isinstance(c, dict) and c.get("argv"):
                yield "step", n, c
    for a in doc.get("pasted", {}).get("ask_for", []):
        if a.get("argv"):
            # (an ask's argv leaves its root out: its printed line says it)
            yield "ask", -1, {"argv": a["argv"], "root": a.get("command", "").startswith("sudo "), "note": a.get("note", "")}


def lines(doc: dict[str, Any]) -> Iterator[str]:
    """The printed lines, less those a comment before them gives a shell of their own ("# in PowerShell, ...") and a
    shell started by name (`powershell -Command '...'`: its words are that shell's)."""
    for step in doc["plan"].get("steps", []):
        own = False
        for x in step.get("lines", []):
            if x.startswith("#"):
                own = re.search(r"\b(?:PowerShell|cmd\.exe)\b", x) is not None
            elif not own and not re.match(r"powershell(?:\.exe)?\s", x):
                yield x
    for a in doc.get("pasted", {}).get("ask_for", []):
        if not re.match(r"powershell(?:\.exe)?\s", a.get("command", "")):
            yield a.get("command", "")


def shown_interpreter(doc: dict[str, Any]) -> str | None:
    """The interpreter the report says it read from the paste (not assumed), where it is no usual name."""
    for r in doc.get("pasted", {}).get("read_from", []):
        if r.get("fact") == "python.executable" and not r.get("assumed") and r.get("value") not in _USUAL:
            return str(r["value"])
    return None


def _says_env(note: str, envs: set[str]) -> bool:
    """Whether a command's note names the environment a prompt showed active (it says which prompt it is typed at)."""
    return any(re.search(rf"(?<![\w.-]){re.escape(e)}(?![\w.-])", note) for e in envs)


def count(doc: dict[str, Any], seen: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, the command) of each printed command that runs elsewhere than the paste shows."""
    out: list[tuple[str, str]] = []
    interp = shown_interpreter(doc)
    env = interp is not None or bool(seen["envs"])
    restarted = entered = False
    for _where, _n, c in printed(doc):
        argv = [str(w) for w in c["argv"]]
        prog, args = program(argv)
        shown = " ".join(argv)
        if any(tuple(argv[: len(r)]) == r or tuple(argv[1 : 1 + len(r)]) == r for r in _RESTARTS):
            restarted = True
            continue
        if "activate" in argv[:2]:  # (conda activate NAME, activate NAME: the environment entered again)
            restarted, entered = False, True
            continue
        pyish = python_like(prog)
        bare = pyish and _name(prog) == prog.lower().removesuffix(".exe") and "/" not in prog and "\\" not in prog
        if pyish and interp is not None and prog != interp:
            out.append(("other interpreter", shown))
        elif pyish and bare and seen["envs"] and not entered and not _says_env(c.get("note", ""), seen["envs"]):
            out.append(("prompt env only", shown))
        if restarted and bare and env:
            out.append(("after restart", shown))
        if pyish and c.get("root") and interp is not None and (prog == interp or _name(prog) in ("pip", "pip3")):
            out.append(("sudo copied", shown))
        verb = next((a for a in args if not a.startswith("-")), "")
        if not c.get("root") and argv[0] != "sudo" and (_name(prog), verb) in seen["sudo"]:
            out.append(("sudo dropped", shown))
    target = doc["plan"].get("shell", "")
    if seen["shells"] == {"powershell"} and target == "cmd" or seen["shells"] == {"cmd"} and target == "powershell":
        out.append(("shell", f"a plan for {target} where the prompts are {next(iter(seen['shells']))}'s"))
    foreign = _FOREIGN.get(target)
    for line in lines(doc):
        if foreign is not None and foreign.search(line.strip()):
            out.append(("shell", line))
    return out


def verdicts() -> dict[tuple[str, str], str]:
    """The latest kind-8 reason per case of each set (the after-session verdicts where a set has them)."""
    out: dict[tuple[str, str], str] = {}
    for name in SETS:
        files = sorted((ROOT / "tests/blind" / name).glob("verdicts-*.toml"), key=lambda p: ("after" in p.name, p.name))
        for f in files:  # later files (after-session, higher rounds) replace earlier ones
            for cases_ in tomllib.loads(f.read_text(encoding="utf-8")).values():
                for case, v in cases_.items():
                    if "8" in [str(k) for k in v.get("kinds", [])]:
                        out[(name, case)] = v.get("reason", "")
                    else:
                        out.pop((name, case), None)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="name each command counted")
    ap.add_argument("--verdicts", action="store_true", help="list the reviewers' kind-8 reasons beside the counts")
    args = ap.parse_args()
    runner = Runner()
    tally: dict[str, dict[str, int]] = {}
    flagged: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for name, case, text in cases():
        _, out = runner.check(["--from", str(text.relative_to(ROOT)), "--format", "json"])
        found = count(json.loads(out), used(text.read_text(encoding="utf-8", errors="replace")))
        row = tally.setdefault(name, {k: 0 for k in ("cases", "flagged", *KINDS)})
        row["cases"] += 1
        row["flagged"] += bool(found)
        for kind, _ in found:
            row[kind] += 1
        flagged[(name, case)] = found
        if found and args.verbose:
            for kind, cmd in found:
                print(f"{kind:17} {name}/{case[:60]}: {cmd[:140]}")
    head = f"{'set':8} {'cases':>5} {'flagged':>7} " + " ".join(KINDS)
    print(head)
    total = {k: sum(r[k] for r in tally.values()) for k in ("cases", "flagged", *KINDS)}
    for name, row in [*tally.items(), ("all", total)]:
        print(f"{name:8} {row['cases']:5} {row['flagged']:7} " + " ".join(f"{row[k]:>{len(k)}}" for k in KINDS))
    if args.verdicts:
        reasons = verdicts()
        print(f"\nkind-8 verdicts (latest per case): {len(reasons)}; counted here: {sum(bool(flagged.get(k)) for k in reasons)}")
        for (name, case), reason in sorted(reasons.items()):
            kinds = sorted({k for k, _ in flagged.get((name, case), [])})
            print(f"{name}/{case[:70]}  counted: {', '.join(kinds) or '-'}\n    {reason[:300]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
