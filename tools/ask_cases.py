"""Measure the ask cases: reports whose paste cannot decide the cause (issues 27 and 28).

    python tools/ask_cases.py          # the counts, per set
    python tools/ask_cases.py -v       # and each case: printed "No problems found", deciding asks carried
    python tools/ask_cases.py --evidence [-v]   # issue 28's figures over the ask and broken cases

Over the cases of the open blind sets (tools/blind_sets.OPEN) whose expect.toml says `evidence = "ask"`, the real CLI runs in-process
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

Then, per printed ask over the ask and broken cases of sets 3-13 (issue 28, "asks driven by the evidence"), the
four ways an ask fails to follow the error (`--evidence`):
- unrunnable: the failure the ask would diagnose breaks it: it imports (or runs `-m` from) a package whose import the
  paste shows failing (collect_env imports torch); `nvidia-smi` inside a container the paste shows without the GPU
  (no --gpus/--runtime=nvidia on its docker run, or nvidia-smi not found in it); `conda` where the paste shows none;
- answered: the paste already holds its answer (an nvidia-smi table with GPU rows for `nvidia-smi` or `-L`, collect_env's
  report, nvcc's release line, os-release's fields, a pip or conda listing, the loader cache's lines of the library
  grepped, the kernel module's NVRM line, a variable's value printed);
- elsewhere: asked in the wrong place (above), the wrong interpreter (above), a POSIX program or pipe for a native
  Windows case (its platform says Windows, not WSL), or `pip list` in a conda environment where the expectation asks
  conda's own listing;
- undecided: a case whose printed asks and commands hold none of the read-only commands its expectation's steps
  ask (beyond a bare nvidia-smi): for an ask case its steps, for a broken case the reads before its first change.
The default view also counts, per set (issues 27/28, h199): (c) answered: the asks the paste already answers (the
`answered` test below, the same as --evidence's, read from the paste's own text and not from the asks machinery, so
the measure does not grade itself); (d) repeated: an ask for a package listing (pip's, conda's) whose listing another
ask of the same report already prints, whole or filtered; and (e) the deciding asks the expectations hold (their
read-only steps beyond a bare nvidia-smi) that no printed ask or command matches, grouped by symptom: the evidence
kind of the first failure the pasted reader found (gpudoctor.checks.reported.recognised_failure), or "(none read)".
tools/blind_sets.BLIND is never read: it is the blind set being collected.
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

from tools import blind_sets  # noqa: E402 (the project's root on the path first)
from tools.golden import Runner  # noqa: E402

SETS = blind_sets.OPEN  # never the blind set being collected (tools/blind_sets.py)
_NOTE = re.compile(r"\s{2,}\(.*$|\s+\((?:cmd|bash|in |on |inside|the |is |does |driver|expect|what|which|and ).*$")
_IMPORT = re.compile(r"\bimport\s+([\w.]+(?:\s*,\s*[\w.]+)*)|\bfrom\s+([\w.]+)\s+import\b")


def cases(evidence: tuple[str, ...] = ("ask",)) -> Iterator[tuple[str, Path]]:
    """(set, case folder) of every case of sets 3-13 whose expectation's evidence is one of these."""
    for name in SETS:
        for expect in sorted((ROOT / "tests/blind" / name / "cases").glob("*/expect.toml")):
            if tomllib.loads(expect.read_text(encoding="utf-8"))["evidence"] in evidence:
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


# --- issue 28: asks driven by the evidence -------------------------------------------------------------------------

# A package's __init__ running at module level in a traceback: that package was being imported when it failed.
_IMPORTING = re.compile(r"""[\\/]([A-Za-z_]\w*)[\\/]__init__\.py"?,\s*line\s*\d+,\s*in\s*<module>""")
_NO_MODULE = re.compile(r"""No module named '?([A-Za-z_]\w*)""")
_CONDA_SHOWN = re.compile(r"conda|mamba|miniforge|\(base\)|[\\/]envs[\\/]", re.IGNORECASE)
_GPU_FLAGS = re.compile(r"--gpus\b|--runtime[= ]nvidia|nvidia-docker|--device[= ]nvidia\.com|runtime:\s*nvidia|driver:\s*nvidia")
_SMI_ABSENT = re.compile(
    r"nvidia-smi\S*:? (?:command )?not found|\"nvidia-smi\": executable file not found|nvidia-smi.*No such file"
)
_SMI_TABLE = re.compile(r"NVIDIA-SMI \d+\.\d+.*Driver Version", re.IGNORECASE)
_BUS_ID = re.compile(r"\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d\b")
_WSL = re.compile(r"\bWSL", re.IGNORECASE)
# A listing's own header: what `pip list` and `conda list` print before their rows.
_PIP_TABLE = re.compile(r"^Package\s+Version\s*\n[- ]{10,}$", re.MULTILINE)
_CONDA_TABLE = re.compile(r"^# packages in environment at", re.MULTILINE)
# Programs a native Windows shell (cmd, PowerShell) does not have.
_POSIX_ONLY = frozenset({"python3", "pip3", "grep", "printenv", "ls", "cat", "which", "ldconfig", "ldd", "env", "head"})
# Programs and keys that only read: an expectation's step with one of these is an ask, not a fix.
_READS = re.compile(
    r"^(?:nvidia-smi.*|python -m pip (?:list|show|freeze|debug)|python -m torch\.utils\.collect_env|python -c \w+"
    r"|conda (?:list|info|env)|docker (?:exec|inspect|logs|info|version|ps|images)|kubectl (?:describe|logs|get|exec)"
    r"|ldconfig|ldd|printenv|nvcc|cat|ls|journalctl|dmesg|lspci|where\.exe|where|which|uname|find|readelf|objdump"
    r"|nm|modinfo|lsmod|strings|srun|scontrol|sinfo|nvidia-container-cli|dpkg|rpm|systemctl|jtop|nvidia-bug-report\.sh)$"
)


def unimportable(paste: str) -> set[str]:
    """The top-level packages whose import the paste shows failing: a traceback through their __init__ at module
    level, or Python saying there is no module of that name."""
    return {m.lower() for m in _IMPORTING.findall(paste)} | {m.lower() for m in _NO_MODULE.findall(paste)}


def _imports(ask: dict) -> set[str]:
    argv = [w for w in ask.get("argv") or [] if isinstance(w, str)]
    out: set[str] = set()
    if "-m" in argv[1:-1]:
        out.add(argv[argv.index("-m") + 1].split(".")[0].lower())
    for word in argv[1:]:
        for g in _IMPORT.findall(word):
            out |= {m.strip().split(" ")[0].split(".")[0].lower() for part in g for m in part.split(",") if m.strip()}
    return out


def _argv(ask: dict) -> list[str]:
    words = [w for w in ask.get("argv") or [] if isinstance(w, str)]
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*|sudo|env", words[0]):
        words = words[1:]
    return words


def _inner(words: list[str]) -> list[str]:
    """The command an exec wrapper runs (docker exec NAME cmd..., kubectl exec POD -- cmd...), else the words."""
    if words[:2] in (["docker", "exec"], ["podman", "exec"]):
        rest = [w for w in words[2:] if not w.startswith("-")]
        return rest[1:]
    if words[:2] == ["kubectl", "exec"] and "--" in words:
        return words[words.index("--") + 1 :]
    return words


def unrunnable(ask: dict, paste: str) -> bool:
    """Whether the failure the ask would diagnose breaks the ask itself (see the module's doc)."""
    words = _argv(ask)
    if not words:
        return False
    if _imports(ask) & unimportable(paste):
        return True
    inner = _inner(words)
    in_container = inner is not words or bool(_INSIDE.search(ask.get("note") or ""))
    if inner and _program(inner[0]) == "nvidia-smi" and in_container:
        runs = re.findall(r"^.*\bdocker run\b.*$", paste, re.MULTILINE)
        if _SMI_ABSENT.search(paste) or (runs and not any(_GPU_FLAGS.search(r) for r in runs)):
            return True
    return _program(words[0]) in ("conda", "mamba") and not _CONDA_SHOWN.search(paste)


def answered(ask: dict, paste: str) -> bool:
    """Whether the paste already holds what the ask would print (see the module's doc)."""
    outer = _argv(ask)
    words = _inner(outer)
    if not words:
        return False
    if words is not outer or _INSIDE.search(ask.get("note") or ""):
        return False  # (inside a container or a job the answer may differ from the host's the paste shows)
    prog, key = _program(words[0]), keys(words)
    grepped = [w for w in str(ask.get("command") or "").split("|")[1:]]
    target = (grepped[0].split()[-1].strip("'\"").lower() if grepped and grepped[0].split() else "") or ""
    if prog == "nvidia-smi" and (len(words) == 1 or words[1] == "-L"):
        # (a table cut after its header shows the driver and no GPU: the GPUs are still to be asked)
        return bool(_SMI_TABLE.search(paste)) and bool(_BUS_ID.search(paste) or re.search(r"^GPU \d+: .+\(UUID:", paste, re.M))
    if "python -m torch.utils.collect_env" in key:
        return "Collecting environment information" in paste or ("PyTorch version:" in paste and "CUDA used to build" in paste)
    if prog == "nvcc":
        return "Cuda compilation tools, release" in paste
    if prog == "docker" and words[1:2] in (["--version"], ["-v"]):
        return bool(re.search(r"\bDocker version \d+\.\d+", paste))
    if prog == "cat" and "/etc/os-release" in words:
        return bool(re.search(r"^\s*(?:PRETTY_NAME|VERSION_ID)=", paste, re.MULTILINE))
    if prog == "cat" and "/proc/driver/nvidia/version" in words:
        return "NVRM version:" in paste
    if key & {"python -m pip list", "python -m pip freeze"}:
        if not target:
            return bool(_PIP_TABLE.search(paste))
        return bool(_PIP_TABLE.search(paste)) and bool(re.search(rf"^{re.escape(target)}\S*\s+\d", paste, re.M | re.I))
    if key & {"conda list"}:
        return bool(_CONDA_TABLE.search(paste))
    if prog == "ldconfig" and target:
        return bool(re.search(rf"{re.escape(target)}\S*\s+\(libc6", paste))
    if prog == "printenv" and len(words) > 1:
        return bool(re.search(rf"^\s*{re.escape(words[1])}=\S", paste, re.MULTILINE))
    return False


def _windows(case: Path) -> bool:
    expect = tomllib.loads((case / "expect.toml").read_text(encoding="utf-8"))
    platform = expect.get("platform", "")
    return bool(re.search(r"\bWindows\b", platform)) and not _WSL.search(platform + expect.get("kind", ""))


def elsewhere(case: Path, ask: dict, paste: str, inside: bool, env_shown: bool, conda_listed: bool) -> bool:
    """Whether the ask is typed in the wrong place, interpreter or shell (see the module's doc)."""
    words = _argv(ask)
    if not words:
        return False
    prog = _program(words[0])
    if inside and prog in _PROGRAM_SIDE and not _INSIDE.search(ask.get("note") or ""):
        return True
    if env_shown and words[0] in _BARE:
        return True
    command = str(ask.get("command") or "")
    if _windows(case) and (prog in _POSIX_ONLY or re.search(r"\|\s*grep\b|\$[A-Z_{]", command)):
        return True
    return (
        conda_listed and bool(keys(words) & {"python -m pip list", "python -m pip freeze"}) and bool(_CONDA_SHOWN.search(paste))
    )


def reading_keys(case: Path) -> set[str]:
    """The keys of the expectation's steps that only read: an ask case's every such step; a broken case's steps
    before its first change (what is read after a fix checks it, and decides nothing)."""
    expect = tomllib.loads((case / "expect.toml").read_text(encoding="utf-8"))
    if expect["evidence"] == "ask":
        return {k for k in expected(case) if _READS.match(k)}
    out: set[str] = set()
    for step in expect.get("plan", {}).get("steps", []):
        if step.lower().startswith(("then", "if ", "none", "the full")):
            continue
        got = keys(step)
        if not got or not all(_READS.match(k) for k in got):
            break
        out |= got
    return out


def evidence_faults(case: Path, report: dict) -> dict[str, int]:
    """Per printed ask of one report, the issue-28 shapes (see the module's doc); `undecided` is per report."""
    asks = (report.get("pasted") or {}).get("ask_for") or []
    paste = (case / "input.txt").read_text(encoding="utf-8", errors="replace")
    inside = _asks_inside(case)
    env_shown = any(not re.match(r"/(?:usr/(?:local/)?)?bin/", m.group()) for m in _ENV_SHOWN.finditer(paste))
    want = reading_keys(case)
    conda_listed = "conda list" in want
    out = {"asks": len(asks), "unrunnable": 0, "answered": 0, "elsewhere": 0, "undecided": 0}
    for ask in asks:
        out["unrunnable"] += unrunnable(ask, paste)
        out["answered"] += answered(ask, paste)
        out["elsewhere"] += elsewhere(case, ask, paste, inside, env_shown, conda_listed)
    out["undecided"] = int(bool(want - {"nvidia-smi"}) and not ((want & printed(report)) - {"nvidia-smi"}))
    return out


def evidence(verbose: bool) -> None:
    """The issue-28 figures, per set: printed asks and each shape, for the ask cases and the broken ones."""
    runner = Runner()
    shapes = ("unrunnable", "answered", "elsewhere")
    tally: dict[tuple[str, str], list[int]] = {}  # (set, evidence) -> [cases, asks, shapes..., deciding cases, undecided]
    for name, case in cases(("ask", "broken")):
        kind = tomllib.loads((case / "expect.toml").read_text(encoding="utf-8"))["evidence"]
        rel = str((case / "input.txt").relative_to(ROOT))
        _, out = runner.check(["--from", rel, "--format", "json"])
        got = evidence_faults(case, json.loads(out))
        row = tally.setdefault((name, kind), [0] * 7)
        row[0] += 1
        row[1] += got["asks"]
        for i, shape in enumerate(shapes):
            row[2 + i] += got[shape]
        row[5] += bool(reading_keys(case) - {"nvidia-smi"})
        row[6] += got["undecided"]
        if verbose and (got["undecided"] or any(got[s] for s in shapes)):
            bad = " ".join(f"{k}={v}" for k, v in got.items() if v and k != "asks")
            print(f"{kind:6} {name}/{case.name[:64]:64} asks={got['asks']} {bad}")
    print(f"{'set':8} {'kind':6} cases   asks   unrunnable   answered   elsewhere   undecided/with read-only steps")
    for kind in ("ask", "broken"):
        rows = [(n, r) for (n, k), r in tally.items() if k == kind]
        rows.append(("all", [sum(r[i] for _, r in rows) for i in range(7)]))
        for n, r in rows:
            print(f"{n:8} {kind:6} {r[0]:5}   {r[1]:4}   {r[2]:10}   {r[3]:8}   {r[4]:9}   {r[6]:>9}/{r[5]}")


_LISTINGS = frozenset({"python -m pip list", "python -m pip freeze", "conda list"})


def repeated(report: dict) -> int:
    """The asks of one report for a package listing another of its asks already prints (whole or filtered: `pip
    list` beside `pip list | grep jax` in the same place, the first printed is kept)."""
    seen: set[tuple[str, str]] = set()
    out = 0
    for ask in (report.get("pasted") or {}).get("ask_for") or []:
        words = _argv(ask)
        inner = _inner(words)
        where = " ".join(words[: len(words) - len(inner)]) + "|" + (ask.get("note") or "")
        for key in keys(inner) & _LISTINGS:
            out += (key, where) in seen
            seen.add((key, where))
    return out


def symptom(report: dict) -> str:
    """The evidence kind of the first failure the pasted reader found (descriptions and warnings are not failures)."""
    from types import SimpleNamespace

    from gpudoctor.checks.reported import recognised_failure

    for e in ((report.get("facts") or {}).get("pasted") or {}).get("errors") or []:
        if recognised_failure(SimpleNamespace(kind=e.get("kind", ""), line=e.get("line", ""))):
            return str(e.get("kind"))
    return "(none read)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="each case: clean bill, keys matched, wrong asks")
    ap.add_argument("--evidence", action="store_true", help="issue 28: asks that cannot run, answered, elsewhere, undecided")
    args = ap.parse_args()
    if args.evidence:
        evidence(args.verbose)
        return 0
    runner = Runner()
    # set -> [ask cases, "No problems found", a deciding ask, one beyond nvidia-smi, then per shape: asks, reports]
    tally: dict[str, list[int]] = {}
    shapes = ("place", "interpreter", "unrelated", "copied", "answered", "repeated")
    missed: dict[str, list[str]] = {}  # symptom -> the deciding keys no printed ask matched, one entry per case and key
    missed_cases: dict[str, int] = {}
    for name, case in cases():
        rel = str((case / "input.txt").relative_to(ROOT))
        _, text = runner.check(["--from", rel])
        _, out = runner.check(["--from", rel, "--format", "json"])
        report = json.loads(out)
        want, got = expected(case), printed(report)
        hit = want & got
        wrong = faults(case, report)
        paste = (case / "input.txt").read_text(encoding="utf-8", errors="replace")
        wrong["answered"] = sum(answered(a, paste) for a in (report.get("pasted") or {}).get("ask_for") or [])
        wrong["repeated"] = repeated(report)
        lost = sorted(reading_keys(case) - got - {"nvidia-smi"})
        if lost:
            sym = symptom(report)
            missed.setdefault(sym, []).extend(lost)
            missed_cases[sym] = missed_cases.get(sym, 0) + 1
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
    print("\ndeciding asks no printed ask matches (read-only expected steps beyond nvidia-smi), by symptom:")
    print(f"{'symptom':34} cases   keys")
    for sym, lost in sorted(missed.items(), key=lambda kv: (-missed_cases[kv[0]], kv[0])):
        counts = {k: lost.count(k) for k in dict.fromkeys(lost)}
        shown = ", ".join(f"{k} x{n}" if n > 1 else k for k, n in sorted(counts.items(), key=lambda kv: -kv[1]))
        print(f"{sym[:34]:34} {missed_cases[sym]:5}   {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
