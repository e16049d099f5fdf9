"""Count the asks a reviewer strikes because they cannot run or do not apply (issues 27/28), from the JSON reports.

    python tools/ask_strikes.py                    # the current code's asks (check --format json, run in-process)
    python tools/ask_strikes.py --recorded after_session   # the asks of each case's recorded after_session.json
    python tools/ask_strikes.py --list [...]      # and each struck ask with its case and rule
    python tools/ask_strikes.py --compare after_session   # the cases whose asks changed, counted per evidence kind
    python tools/ask_strikes.py --save before.json; ... --compare before.json   # against a saved run instead

Over every case of the open blind sets (tools/blind_sets.OPEN; never the set being collected), each
ask of the report's `pasted.ask_for` is judged by the rules below, read from the paste's own text (input.txt) and the
ask's argv and note, never from the asks machinery, so the measure does not grade itself:

- no-gpu: the ask reads the NVIDIA driver (nvidia-smi, nvidia-smi.exe, /proc/driver/nvidia) where the paste says the
  machine has no NVIDIA GPU (an issue form's GPU field answered none, no, or CPU only; "CPU-only" said of the machine
  or VM; "I have no GPU", "I don't have a GPU") and shows none: no nvidia-smi banner, no NVIDIA GPU's name;
- crashed: the ask's Python program imports (or runs `-m` from) a package whose import the paste shows killing the
  interpreter: "Illegal instruction" or "Segmentation fault" said in the paste, and that package the only one the
  paste imports (`import X` typed or in a code block, `python -c "import X"`); collect_env counts as importing torch;
- not-python: the ask runs an interpreter or a Python packaging tool (python*, py, pip*, conda list, collect_env) where
  the paste names an application that is no Python program (NATIVE_APPS below, each with what it is written in) and
  shows nothing of Python (no python, .py, pip, conda, Traceback, site-packages, torch, tensorflow, jax, `import`);
- unplaced: the paste shows more than one place a command could run (the host and a container: docker or podman run,
  exec or compose, or Kubernetes; a login node and a Slurm job; Windows and WSL), and the ask neither has a note saying
  where nor runs itself through the program that reaches the place (docker, podman, kubectl, srun, singularity,
  apptainer, wsl, cmd.exe, powershell, a Windows .exe); beside Windows and WSL alone, only the programs both sides
  have (nvidia-smi, python, pip) count: a Linux path or tool runs in WSL alone;
- covered: a generic ask (nvidia-smi -L, a pip list filtered by grep) where the same report asks, in the same place
  (the same note), a command whose answer holds it whole (the bare nvidia-smi table lists every GPU; the whole pip
  list every line the filter keeps).

An ask struck by several rules counts once per rule. `--compare NAME` also counts the cases whose asks differ from
the recorded NAME.json, grouped by the case's expect.toml `evidence` (ask, broken, ...).
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

from gpudoctor.pasted.cues import _NO_GPU_SAID  # noqa: E402
from tools import blind_sets  # noqa: E402 (the project's root on the path first)

SETS = blind_sets.OPEN  # never the blind set being collected (tools/blind_sets.py)

# Applications that are no Python program, as a paste names them, with what each is written in (its repository).
NATIVE_APPS = {
    r"\bjellyfin\b": "Jellyfin: C# on .NET, its transcoder jellyfin-ffmpeg (jellyfin/jellyfin, Jellyfin.sln)",
    r"\bemby\b": "Emby Server: C# on .NET (MediaBrowser/Emby)",
    r"\bplex(?: media server)?\b": "Plex Media Server: a native binary with its own transcoder",
    r"\bollama\b": "Ollama: Go, with llama.cpp built in (ollama/ollama, go.mod)",
    r"\bllama\.cpp\b|\bllama-(?:server|cli)\b": "llama.cpp: C/C++ (ggml-org/llama.cpp)",
    r"\bgpt4all\b": "GPT4All's chat application: C++ and Qt (nomic-ai/gpt4all, gpt4all-chat)",
    r"\blm studio\b": "LM Studio: a desktop application with its own llama.cpp runtime",
}
_PYTHON_SEEN = re.compile(
    r"python|\.py\b|\bpip\d?\b|\bconda\b|Traceback|site-packages|torch|tensorflow|\bjax\b|^\s*(?:>>>\s*)?(?:import|from)\s+\w",
    re.I | re.M,
)
# the reporter saying the machine has no GPU: the reader's own pattern (one answer; gpudoctor.pasted.cues)
_NO_GPU = _NO_GPU_SAID
_GPU_SHOWN = re.compile(r"NVIDIA-SMI \d|\b(?:GeForce|Quadro|Tesla|TITAN|RTX ?\d{3,4}|GTX ?\d{3,4}|A100|H100|V100|T4)\b", re.I)
_CRASH = re.compile(r"illegal (?:hardware )?instruction|segmentation fault|SIGSEGV|SIGILL", re.I)
_IMPORTED = re.compile(r"^\s*(?:>>>\s*)?import\s+([A-Za-z_]\w*)|python[\d.]*\s+-c\s+['\"]\s*import\s+([A-Za-z_]\w*)", re.M)
_CONTAINER = re.compile(r"\bdocker (?:run|exec|compose)\b|\bdocker-compose\b|\bpodman (?:run|exec)\b|\bkubectl\b|\bpod\b", re.I)
_SLURM = re.compile(r"\bsrun\b|\bsbatch\b|#SBATCH|\bsalloc\b")
_WSL = re.compile(r"\bWSL ?2?\b")
_REACHES = {"docker", "podman", "kubectl", "srun", "singularity", "apptainer", "wsl", "cmd.exe", "powershell", "export"}
_DRIVER = ("nvidia-smi", "nvidia-smi.exe", "/proc/driver/nvidia/version")


def cases() -> Iterator[tuple[str, Path]]:
    for name in SETS:
        for expect in sorted((ROOT / "tests/blind" / name / "cases").glob("*/expect.toml")):
            if (expect.parent / "input.txt").is_file():
                yield name, expect.parent


def _prog(word: str) -> str:
    return re.split(r"[\\/]", word)[-1].lower()


def _python_modules(argv: list[str]) -> set[str]:
    """The packages a Python ask imports: its -c program's imports, its -m module's package."""
    out: set[str] = set()
    for i, w in enumerate(argv[:-1]):
        if w == "-c":
            out |= {m.group(1).split(".")[0] for m in re.finditer(r"\bimport\s+([\w.]+)", argv[i + 1])}
            out |= {m.group(1).split(".")[0] for m in re.finditer(r"\bfrom\s+([\w.]+)\s+import", argv[i + 1])}
        if w == "-m":
            out.add(argv[i + 1].split(".")[0])
    return out


def _runs_python(argv: list[str]) -> bool:
    progs = [_prog(w) for w in argv[:1]]
    if argv[:2] == ["conda", "list"] or any(p.startswith(("python", "pip")) or p in ("py", "py.exe", "uv") for p in progs):
        return True
    return "torch.utils.collect_env" in argv


def _places(text: str) -> int:
    """How many places beyond the reporter's own shell the paste shows: 2 a container or a Slurm job, 1 only the other
    side of WSL (Windows), 0 none."""
    return 2 * any(p.search(text) for p in (_CONTAINER, _SLURM)) or int(bool(_WSL.search(text) and "Windows" in text))


def strikes(text: str, asks: list[dict]) -> list[tuple[str, dict]]:
    """(rule, ask) for every ask a rule strikes."""
    out: list[tuple[str, dict]] = []
    no_gpu = bool(_NO_GPU.search(text)) and not _GPU_SHOWN.search(text)
    crashed: set[str] = set()
    if _CRASH.search(text):
        imported = {m.group(1) or m.group(2) for m in _IMPORTED.finditer(text)}
        crashed = imported if len(imported) == 1 else set()
    lowered = text.lower()
    native = any(re.search(p, lowered) for p in NATIVE_APPS) and not _PYTHON_SEEN.search(text)
    several = _places(text)
    for a in asks:
        argv = [str(w) for w in a["argv"]]
        words = argv + a["command"].split()
        if no_gpu and any(w in _DRIVER or w.startswith("/proc/driver/nvidia") for w in words):
            out.append(("no-gpu", a))
        modules = _python_modules(argv) | ({"torch"} if "torch.utils.collect_env" in argv else set())
        if modules & crashed:
            out.append(("crashed", a))
        if native and _runs_python(argv):
            out.append(("not-python", a))
        unsaid = not a.get("note") and _prog(argv[0]) not in _REACHES and not argv[0].lower().endswith(".exe")
        # (beside Windows, WSL's own paths and Linux tools run in WSL alone: only what both sides have is unplaced)
        both = _prog(argv[0]).startswith(("nvidia-smi", "python", "pip")) or argv[0] == "py"
        if unsaid and (several > 1 or (several == 1 and both)):
            out.append(("unplaced", a))
    for a in asks:
        argv, note, piped = a["argv"], a.get("note"), "|" in a["command"]
        same_place = [b for b in asks if b is not a and b.get("note") == note]
        if argv == ["nvidia-smi", "-L"] and any(b["argv"] == ["nvidia-smi"] and "|" not in b["command"] for b in same_place):
            out.append(("covered", a))
        whole = any(b["argv"] == argv and "|" not in b["command"] for b in same_place)
        if piped and "pip" in argv and "list" in argv and whole:
            out.append(("covered", a))
    return out


def _current(case: Path, runner) -> dict:
    code, out = runner.check(["--from", str((case / "input.txt").relative_to(ROOT)), "--format", "json"])
    return json.loads(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recorded", metavar="NAME", help="read each case's NAME.json instead of running check")
    ap.add_argument("--compare", metavar="NAME", help="count the cases whose asks differ from NAME.json (or a --save file)")
    ap.add_argument("--save", type=Path, help="write each case's asks (command and note) to this file")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    runner = None
    if not args.recorded:
        from tools.golden import Runner

        runner = Runner()
    total, per_rule, reports = 0, Counter(), Counter()
    changed: Counter[str] = Counter()
    saved: dict[str, list] = {}
    against = (
        json.loads(Path(args.compare).read_text(encoding="utf-8")) if args.compare and args.compare.endswith(".json") else None
    )
    for name, case in cases():
        path = case / f"{args.recorded}.json" if args.recorded else None
        if path is not None and not path.is_file():
            continue
        doc = json.loads(path.read_text(encoding="utf-8")) if path else _current(case, runner)
        asks = (doc.get("pasted") or {}).get("ask_for") or []
        total += len(asks)
        hits = strikes((case / "input.txt").read_text(encoding="utf-8", errors="replace"), asks)
        for rule in {r for r, _ in hits}:
            reports[rule] += 1
        for rule, a in hits:
            per_rule[rule] += 1
            if args.list:
                print(f"{name}/{case.name[:60]}: {rule}: {a['command'][:110]}" + (f"  [{a['note']}]" if a.get("note") else ""))
        key = f"{name}/{case.name}"
        saved[key] = [[a["command"], a.get("note")] for a in asks]
        if against is not None:
            before = against.get(key)
        elif args.compare and (old := case / f"{args.compare}.json").is_file():
            recorded = (json.loads(old.read_text(encoding="utf-8")).get("pasted") or {}).get("ask_for") or []
            before = [[a["command"], a.get("note")] for a in recorded]
        else:
            before = None
        if before is not None and before != saved[key]:
            kind = tomllib.loads((case / "expect.toml").read_text(encoding="utf-8")).get("evidence", "?")
            changed[kind] += 1
            if args.list:
                print(f"{name}/{case.name[:60]}: asks changed ({kind})")
    if args.save:
        args.save.write_text(json.dumps(saved, indent=0), encoding="utf-8")
    print(f"asks: {total}; struck: {sum(per_rule.values())}")
    for rule in ("no-gpu", "crashed", "not-python", "unplaced", "covered"):
        print(f"  {rule}: {per_rule[rule]} ask(s) in {reports[rule]} report(s)")
    if args.compare:
        print(f"reports whose asks changed from {args.compare}: " + ", ".join(f"{k} {v}" for k, v in sorted(changed.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
