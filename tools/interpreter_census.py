"""Census of the interpreter a plan's Python steps run in, over the open blind sets (issues 27/28, helper h266).

    python tools/interpreter_census.py               # the figures
    python tools/interpreter_census.py -v            # and each case counted, with its printed python/pip argv
    python tools/interpreter_census.py --json F      # the per-case rows, to compare two runs (--diff A B)

For every case of tools/blind_sets.OPEN (never tools/blind_sets.BLIND), the real CLI runs in-process with
`--format json` (tools/golden.py's Runner) and every printed command (the plan's steps and the asks) is read as
argv. A "python step" is one that runs an interpreter or its pip; it is "bare" when it runs the name on PATH
(python, python3, pip, pip3, py) rather than a path, a notebook's %pip, or a wrapper that names the environment
(conda run, uv, poetry run, pipenv run, docker/apptainer). The paste's side is read by this tool's own patterns
(read by nothing in src): an environment's site-packages or interpreter path (a venv's, a conda environment's,
pyenv's, a portable build's), and a launcher or console script named (torchrun, accelerate launch, a webui's .bat).
Reviewer reasons (verdicts*.toml) that name the interpreter, pip's or python's place, or a venv are listed with -v.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import blind_sets  # noqa: E402
from tools.golden import Runner  # noqa: E402

BARE = {"python", "python3", "pip", "pip3", "py", "python.exe", "pip.exe"} | {f"python3.{n}" for n in range(6, 15)}
# An environment's interpreter or packages by path: a venv's (venv, .venv, env, virtualenvs), a conda environment's
# or base's, pyenv's, a portable build's (python_embeded, system\python); not the distribution's /usr nor ~/.local.
ENV_PATH = re.compile(
    r"(?:[\\/](?:envs[\\/][\w.-]+|\.?venv[\w.-]*|\.virtualenvs[\\/][\w.-]+|virtualenvs[\\/][\w.-]+|anaconda3|miniconda3|"
    r"miniforge3|mambaforge|\.pyenv[\\/]versions[\\/][\w.-]+|python_embeded|system[\\/]python)[\\/])",
    re.IGNORECASE,
)
LAUNCHER = re.compile(
    r"\b(?:torchrun|accelerate launch|deepspeed|vllm serve|colabfold_batch|comfy(?:ui)? |jupyter(?:-lab| lab| notebook)?|"
    r"webui-user\.bat|webui\.bat|webui\.sh|run\.bat|run_nvidia_gpu\.bat|python_embeded|[\w-]+-cli\b|text-generation-launcher|"
    r"invokeai\b|streamlit run|gradio\b|uvicorn\b|ray start|lightning run)",
    re.IGNORECASE,
)
REASON = re.compile(
    r"interpreter|wrong python|bare `?pip|bare `?python|which python|python_embeded|\bvenv\b|first on PATH|shebang|"
    r"env's python|environment's python|conda env|sys\.executable|the (?:env|environment)'s pip",
    re.IGNORECASE,
)


def _commands(data: dict) -> list[list[str]]:
    out = []
    for step in (data.get("plan") or {}).get("steps", []):
        for c in step.get("commands", []):
            if "argv" in c:
                out.append([str(a) for a in c["argv"]])
    for a in (data.get("pasted") or {}).get("ask_for", []):
        if a.get("argv"):
            out.append([str(x) for x in a["argv"]])
    return out


def _is_python(argv: list[str]) -> bool:
    head = argv[0].replace("\\", "/").rsplit("/", 1)[-1].lower()
    return (
        head in BARE
        or head.startswith(("python", "pip"))
        or head == "%pip"
        or (
            head in ("conda", "uv", "poetry", "pipenv", "docker", "apptainer", "singularity")
            and any(a.rsplit("/", 1)[-1].startswith(("python", "pip")) or a == "pip" for a in argv[1:])
        )
    )


def _bare(argv: list[str]) -> bool:
    return argv[0].lower() in BARE


def _reasons(set_dir: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in sorted(set_dir.glob("verdicts*.toml")):
        for run, cases in tomllib.loads(f.read_text(encoding="utf-8")).items():
            for case, v in cases.items():
                reason = v.get("reason", "")
                if REASON.search(reason):
                    out.setdefault(case, []).append(f"{f.name}:{run}: [{v.get('verdict')}] {reason}")
    return out


def census() -> list[dict]:
    runner = Runner()
    rows = []
    for name in blind_sets.OPEN:
        set_dir = ROOT / "tests" / "blind" / name
        reasons = _reasons(set_dir)
        for case in sorted(p.parent for p in (set_dir / "cases").glob("*/expect.toml")):
            if not (case / "input.txt").is_file():
                continue
            text = (case / "input.txt").read_text(encoding="utf-8", errors="replace")
            expect = tomllib.loads((case / "expect.toml").read_text(encoding="utf-8"))
            _, out = runner.check(["--from", str((case / "input.txt").relative_to(ROOT)), "--format", "json"])
            try:
                data = json.loads(out)
            except json.JSONDecodeError:
                data = {}
            py = [a for a in _commands(data) if _is_python(a)]
            rows.append(
                {
                    "case": f"{name}/{case.name}",
                    "evidence": expect.get("evidence"),
                    "env_path": sorted({m.group(0) for m in ENV_PATH.finditer(text)})[:4],
                    "launcher": sorted({m.group(0) for m in LAUNCHER.finditer(text)})[:4],
                    "python_steps": py,
                    "bare": [a for a in py if _bare(a)],
                    # the first ask reads a console script's #! line (command -v NAME | xargs head -1, head -1 FILE)
                    "shebang": any(
                        a.get("argv", [])[:2] in (["command", "-v"], ["head", "-1"]) and "#!" in a.get("why", "")
                        for a in (data.get("pasted") or {}).get("ask_for", [])
                    ),
                    "expect_steps": (expect.get("plan") or {}).get("steps", []),
                    "reasons": reasons.get(case.name, []),
                }
            )
    return rows


def figures(rows: list[dict]) -> dict[str, int]:
    shown = [r for r in rows if r["env_path"]]
    return {
        "cases": len(rows),
        "with python/pip steps": sum(1 for r in rows if r["python_steps"]),
        "all python/pip steps in the program's interpreter": sum(1 for r in rows if r["python_steps"] and not r["bare"]),
        "paste shows an environment's path": len(shown),
        "  with an environment shown, a bare python/pip step": sum(1 for r in shown if r["bare"]),
        "paste names a launcher or console script": sum(1 for r in rows if r["launcher"]),
        "  with a launcher named, a bare python/pip step": sum(1 for r in rows if r["launcher"] and r["bare"]),
        "  with a launcher named, its #! line read first": sum(1 for r in rows if r.get("shebang")),
        "reviewer reasons naming the interpreter": sum(1 for r in rows if r["reasons"]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--diff", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.diff:
        before = {r["case"]: r for r in json.loads(args.diff[0].read_text())}
        for r in json.loads(args.diff[1].read_text()):
            b = before.get(r["case"])
            if b and b["python_steps"] != r["python_steps"]:
                print(r["case"], "\n  before:", b["python_steps"], "\n  after: ", r["python_steps"])
        return 0
    rows = census()
    for k, v in figures(rows).items():
        print(f"{k}: {v}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    if args.v:
        for r in rows:
            if r["reasons"] or (r["bare"] and (r["env_path"] or r["launcher"])):
                print(f"\n{r['case']} [{r['evidence']}] env={r['env_path']} launcher={r['launcher']}")
                for a in r["python_steps"]:
                    print("   printed:", " ".join(a)[:160])
                for s in r["expect_steps"][:4]:
                    print("   expect: ", str(s)[:160])
                for why in r["reasons"]:
                    print("   reason: ", why[:400])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
