"""Census of the asks' precision on the ask cases (issues 27/28, h264): how many asks each ask case prints, which
kinds of ask the reviewers struck as useless or inapplicable, and which deciding asks are missing.

    python tools/ask_precision.py                  # the current code's asks (check --format json, in-process)
    python tools/ask_precision.py --recorded after_session   # each case's recorded NAME.json (after-session.json too)
    python tools/ask_precision.py --save FILE      # and write each case's asks (keys) to FILE
    python tools/ask_precision.py -v               # and each case: its class, its asks' kinds, what is missing

Over every case of the open blind sets (tools/blind_sets.OPEN; never the set being collected) whose expect.toml says
`evidence = "ask"`:
- asks per case (mean, max), and by KIND of ask (collect_env, pip listing, conda listing, a framework's Python probe,
  nvidia-smi, the loader's cache, a variable's value, every copy of a file, ...), read from the ask's argv;
- the paste's failure CLASS, read from the expectation's kind and diagnosis (keywords, first match wins: Windows DLL,
  Linux shared library, CPU build, container, cluster, non-Python program, kernel module, other);
- struck: the sentences of the reviewers' reasons (every verdicts*.toml of the set, the case's tables) that call an
  ask of a kind useless or inapplicable (adds nothing, not needed, irrelevant, noise, cannot run, ...), counted per
  kind named in the same sentence. The reasons were written of the recorded outputs: this count is the census's
  "before", not a measure of the current code;
- decided: the ask cases whose printed asks and plan commands include an expected deciding command (the
  expectation's read-only steps beyond a bare nvidia-smi, by tools/ask_cases.keys), and those with none;
- not-python: a Python ask (an interpreter, pip, conda list, collect_env) printed for a paste whose program is none
  (tools/ask_strikes.NATIVE_APPS, nothing of Python shown), and framework probes for a framework the paste does not
  name (a TensorFlow probe where only torch is named, ...).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import ask_cases, ask_strikes  # noqa: E402

_FRAMEWORK_WORDS = {"torch": r"\btorch\b|pytorch", "tensorflow": r"tensorflow|\btf\.", "jax": r"\bjax", "paddle": r"paddle"}


def kind_of(argv: list[str], command: str) -> str:
    """The kind of one ask, by its program and what it asks."""
    words = [str(w) for w in argv]
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*|sudo", words[0]):
        words = words[1:]
    if not words:
        return "other"
    prog = ask_cases._program(words[0])
    if prog in ("docker", "podman", "kubectl", "srun", "singularity", "apptainer", "wsl"):
        inner = [w for w in words[1:] if not w.startswith("-")]
        return f"{prog} {inner[0] if inner else ''}".strip()
    if "torch.utils.collect_env" in words:
        return "collect_env"
    if prog.startswith("python") or prog in ("py", "uv"):
        if "-m" in words and words[words.index("-m") + 1 : words.index("-m") + 2] == ["pip"]:
            return "pip list" if "list" in words or "freeze" in words else "pip show/other"
        code = " ".join(words[words.index("-c") + 1 :]) if "-c" in words else ""
        for fw in ("torch", "tensorflow", "jax", "paddle", "onnxruntime", "tensorrt", "cupy", "numba"):
            if re.search(rf"\bimport (?:[\w.]+ as \w+, )*{fw}\b|\bfrom {fw}\b|\bimport {fw}\b", code):
                return f"probe {fw}"
        return "python probe"
    if prog.startswith("pip"):
        return "pip list" if "list" in words or "freeze" in words else "pip show/other"
    if prog in ("conda", "mamba", "micromamba"):
        return "conda list" if "list" in words else f"conda {words[1] if len(words) > 1 else ''}".strip()
    if prog == "nvidia-smi":
        return "nvidia-smi" if len(words) == 1 else "nvidia-smi query"
    if prog in ("printenv", "echo", "env", "set"):
        return "env value"
    if prog in ("ldconfig", "ldd"):
        return prog
    if prog in ("find", "where", "dir", "ls", "get-childitem"):
        return "file copies" if prog in ("find", "where") else "folder listing"
    return prog


_STRIKE = re.compile(
    r"adds? nothing|add(?:s)? little|useless|not useful|of no use|irrelevant|not relevant|does not apply|doesn't apply"
    r"|inapplicable|not needed|unneeded|unnecessary|needless|pointless|noise|noisy|padding|filler|generic|redundant"
    r"|cannot run|can't run|will (?:just )?fail|would (?:just )?fail|fails? (?:here|there)|decides? nothing"
    r"|does not exist|did not exist|no such|AttributeError|ModuleNotFoundError|wasted|waste|distract|clutter"
    r"|should not be asked|shouldn't be asked|beside the point|off[- ]target|not a Python|isn't Python|is not Python",
    re.I,
)
# what a reviewer's sentence calls an ask of each kind
_KIND_WORDS = {
    "collect_env": r"collect_env",
    "pip list": r"pip (?:list|freeze)|pip listing|package list",
    "conda list": r"conda list",
    "probe tensorflow": r"tensorflow probe|tf probe|\btf\.(?:config|test|sysconfig)|tensorflow (?:check|import)",
    "probe torch": r"torch probe|import torch|torch\.cuda",
    "python probe": r"python probe|python -c|interpreter",
    "nvidia-smi": r"nvidia-smi",
    "ldconfig": r"ldconfig",
    "env value": r"printenv|echo \$|LD_LIBRARY_PATH|CUDA_VISIBLE_DEVICES|PATH\b",
    "file copies": r"\bfind\b|where(?:\.exe)?\b",
    "nvcc": r"\bnvcc\b",
    "dmesg": r"dmesg",
}


def failure_class(expect: dict) -> str:
    text = " ".join(str(expect.get(k, "")) for k in ("kind", "diagnosis", "platform")).lower()
    for name, pattern in (
        ("Windows DLL", r"\.dll|winerror 12[67]|error 126|error 193"),
        (
            "non-Python program",
            r"jellyfin|emby|plex|ollama|llama\.cpp|gpt4all|lm studio|c\+\+ program|c# |node\.js|\bgo program|blender|ffmpeg|obs\b|davinci",
        ),
        ("container/Kubernetes", r"docker|container|kubernetes|\bpod\b|k8s|podman|gpu operator|device plugin"),
        ("cluster", r"slurm|sbatch|srun|cluster|\bhpc\b"),
        ("Linux shared library", r"\.so\b|\.so\.\d|cannot open shared object|undefined symbol|ld_library_path"),
        ("CPU build", r"cpu(?:-only)? build|cpu wheel|cpu-only|\+cpu|not compiled with cuda|built without cuda"),
        ("kernel module", r"kernel module|nvidia\.ko|dkms|secure boot|nouveau"),
    ):
        if re.search(pattern, text):
            return name
    return "other"


def _report(case: Path, recorded: str | None, runner) -> dict | None:
    if recorded:
        for name in (f"{recorded}.json", f"{recorded.replace('_', '-')}.json"):
            if (case / name).is_file():
                return json.loads((case / name).read_text(encoding="utf-8"))
        return None
    code, out = runner.check(["--from", str((case / "input.txt").relative_to(ROOT)), "--format", "json"])
    return json.loads(out)


def reasons(set_dir: Path) -> dict[str, list[str]]:
    """Each case folder's reviewers' reasons, over every verdicts file of its set and every table in it."""
    out: dict[str, list[str]] = {}
    for f in sorted(set_dir.glob("verdicts*.toml")):
        try:
            doc = tomllib.loads(f.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError:
            continue
        for table in doc.values():
            if not isinstance(table, dict):
                continue
            for case, v in table.items():
                if isinstance(v, dict) and v.get("reason"):
                    out.setdefault(case, []).append(str(v["reason"]))
    return out


def struck_kinds(texts: list[str]) -> Counter[str]:
    """The kinds of ask the reasons' sentences call useless or inapplicable (once per kind per case)."""
    found: Counter[str] = Counter()
    for text in texts:
        for sentence in re.split(r"(?<=[.;])\s+", text):
            if not _STRIKE.search(sentence):
                continue
            for kind, pattern in _KIND_WORDS.items():
                if re.search(pattern, sentence, re.I):
                    found[kind] = 1
    return found


def _framework_named(paste: str) -> set[str]:
    return {fw for fw, p in _FRAMEWORK_WORDS.items() if re.search(p, paste, re.I)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recorded", metavar="NAME")
    ap.add_argument("--save", type=Path)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    runner = None
    if not args.recorded:
        from tools.golden import Runner

        runner = Runner()
    sizes: list[int] = []
    kinds, kinds_cases, struck, by_class, class_sizes = Counter(), Counter(), Counter(), Counter(), {}
    decided = undecided = 0
    undecided_by_class: Counter[str] = Counter()
    foreign: Counter[str] = Counter()
    saved: dict[str, list] = {}
    why_cache: dict[Path, dict[str, list[str]]] = {}
    for name, case in ask_cases.cases():
        report = _report(case, args.recorded, runner)
        if report is None:
            continue
        expect = tomllib.loads((case / "expect.toml").read_text(encoding="utf-8"))
        cls = failure_class(expect)
        asks = (report.get("pasted") or {}).get("ask_for") or []
        sizes.append(len(asks))
        class_sizes.setdefault(cls, []).append(len(asks))
        these = [kind_of(a["argv"], a["command"]) for a in asks]
        kinds.update(these)
        kinds_cases.update(set(these))
        saved[f"{name}/{case.name}"] = [[a["command"], a.get("note")] for a in asks]
        why = why_cache.setdefault(case.parent.parent, reasons(case.parent.parent)).get(case.name, [])
        hit = struck_kinds(why)
        struck.update(hit)
        by_class.update({cls: sum(hit.values())})
        want = {k for k in ask_cases.expected(case) if k != "nvidia-smi"}
        got = ask_cases.printed(report)
        if want and want & got:
            decided += 1
        elif want:
            undecided += 1
            undecided_by_class[cls] += 1
        paste = (case / "input.txt").read_text(encoding="utf-8", errors="replace")
        named = _framework_named(paste)
        native = any(re.search(p, paste.lower()) for p in ask_strikes.NATIVE_APPS) and not ask_strikes._PYTHON_SEEN.search(paste)
        for k, a in zip(these, asks, strict=True):
            if native and ask_strikes._runs_python([str(w) for w in a["argv"]]):
                foreign["python ask, no Python program"] += 1
            fw = k.split()[-1] if k.startswith("probe ") else None
            if fw in _FRAMEWORK_WORDS and fw not in named:
                foreign[f"{fw} probe, {fw} not named"] += 1
        if args.v:
            print(f"{name}/{case.name[:70]} [{cls}] {len(asks)}: {', '.join(these)}; missing {sorted(want - got)}")
    if args.save:
        args.save.write_text(json.dumps(saved, indent=0), encoding="utf-8")
    print(f"ask cases: {len(sizes)}; asks {sum(sizes)}, mean {statistics.mean(sizes):.2f}, max {max(sizes)}")
    print("by class (cases, mean asks, reviewer strikes):")
    for cls, s in sorted(class_sizes.items(), key=lambda kv: -len(kv[1])):
        print(f"  {cls}: {len(s)} cases, {statistics.mean(s):.2f} asks, {by_class[cls]} struck kinds")
    print("by kind (asks, cases; reviewer strikes in cases):")
    for k, n in kinds.most_common():
        print(f"  {k}: {n} asks in {kinds_cases[k]} cases; struck in {struck.get(k, 0)}")
    for k in struck:
        if k not in kinds:
            print(f"  {k}: not printed now; struck in {struck[k]}")
    print(f"deciding ask printed: {decided}; none printed: {undecided} ({dict(undecided_by_class.most_common())})")
    print("foreign asks: " + (", ".join(f"{k} {v}" for k, v in foreign.most_common()) or "none"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
