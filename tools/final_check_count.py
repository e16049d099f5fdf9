"""Count the plans whose last step checks something the paste never showed failing, and the notebook pastes whose plan
prints a line a notebook cell would not run (issue 27).

    python tools/final_check_count.py        # the counts, per set
    python tools/final_check_count.py -v     # and each case counted, by name, with the line it is counted for

Over the inputs of the open blind sets (tools/blind_sets.OPEN; never the blind set being collected), the real
CLI runs in-process with `--format json` (tools/golden.py's Runner) and this reads the JSON document's plan:

- the last step, where it is the plan's `resume` step (gpudoctor.planner.resume), is counted as one of: `rerun` (the
  reporter's own command again, as the paste shows it), `said` (prose: run again what failed, naming it), `fact` (a
  check of the fact the plan changes: nvidia-smi after a driver step, a framework's GPU check after a step on that
  framework's build or one whose commands install or import it), `failed` (a check whose program the paste shows failing, read here from the paste's own lines:
  FAILED_SHOWN), and `unfailed`: a check of something the paste never showed failing and the plan never changed, what
  reviewers strike ("it tests nothing that failed");
- a notebook paste (one that runs a cell's `!pip`, `%pip`, `!python`, `!nvidia-smi`, `!apt` or `!sudo` line, or names
  Colab, or shows Colab's /content: NOTEBOOK, this tool's own reading) is counted where any line of its plan or of its
  asks is a plain shell command: not a cell's `!command`, `%pip`, a comment, or a Python statement.

The patterns here are this tool's own measure, read by nothing in src.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import blind_sets  # noqa: E402 (the project's root on the path first)
from tools.golden import Runner  # noqa: E402

SETS = blind_sets.OPEN  # never the blind set being collected (tools/blind_sets.py)

# A check's program, by the words of its command: what the paste must show failing for the check to rerun it.
CHECKS = {"torch": "import torch", "tensorflow": "import tensorflow", "jax": "import jax", "driver": "nvidia-smi"}
# The paste's lines that show each of them failing: nvidia-smi's own failures (its "has failed" and NVML's messages,
# not found), a framework's traceback frame or its GPU check answering no, or the CUDA initialisation (cuInit) that
# TensorFlow's and JAX's runtime logs as failed, which their GPU checks run again.
FAILED_SHOWN = {
    "driver": re.compile(
        r"NVIDIA-SMI has failed|Failed to initialize NVML|nvidia-smi:? (?:command )?not found|No devices were found"
        r"|'nvidia-smi' is not recognized",
        re.I,
    ),
    "torch": re.compile(
        r"[\\/]torch[\\/]\S*\.py|is_available\(\)\W*\n?\s*False|not compiled with CUDA|No CUDA GPUs are available"
        r"|import torch\b.*\n.*Error",
        re.I,
    ),
    "tensorflow": re.compile(
        r"[\\/]tensorflow[\\/]\S*\.py|list_physical_devices\(.GPU.\)\W*\n?\s*\[\]|failed call to cuInit", re.I
    ),
    "jax": re.compile(r"[\\/]jax(?:lib)?[\\/]\S*\.py|No GPU/TPU found|falling back to cpu|failed call to cuInit", re.I),
}
NOTEBOOK = re.compile(
    r"^[ \t>]*[!%][ \t]*(?:pip3?|python3?|nvidia-smi|apt(?:-get)?|sudo)\s|\bcolab\b|(?<![\w.])/content/", re.I | re.M
)
# A line a notebook cell runs as it is: a cell's shell escape, a magic, a comment, a Python statement of the plan's.
_CELL_LINE = re.compile(r"^(?:!|%|#|import |from )")


def cases() -> Iterator[tuple[str, Path]]:
    for s in SETS:
        for p in sorted((ROOT / "tests" / "blind" / s / "cases").glob("*/input.txt")):
            yield s, p


def final_check(plan: dict, text: str) -> str | None:
    """How the plan's last step checks the fix (the module's kinds), or None where it ends with no resume step."""
    steps = plan.get("steps") or []
    if not steps or steps[-1].get("component") != "resume":
        return None
    last = steps[-1]
    argvs = [c.get("argv") or [] for c in last.get("commands") or []]
    if not argvs:
        return "said"
    if any("your own command" in (c.get("note") or "") for c in last["commands"]):
        return "rerun"
    words = " ".join(str(w) for a in argvs for w in a)
    shown = {c for c, w in CHECKS.items() if w in words}
    changed = {s.get("component") for s in steps[:-1]}
    before = [str(w) for s in steps[:-1] for c in s.get("commands") or [] for w in c.get("argv") or []]
    changed |= {c for c in ("torch", "tensorflow", "jax") if any(re.search(rf"(?<![\w-]){c}(?![\w-])", w) for w in before)}
    if shown & changed:
        return "fact"
    if any(FAILED_SHOWN[c].search(text) for c in shown):
        return "failed"
    return "unfailed"


def cell_misses(doc: dict) -> list[str]:
    """The printed lines of the plan and the asks that a notebook cell would not run as they are."""
    lines = [a.get("command") or "" for a in (doc.get("pasted") or {}).get("ask_for") or []]
    for step in doc["plan"].get("steps") or []:
        for alt in (step, *(step.get("alternatives") or [])):
            lines += alt.get("lines") or []
    return [ln for ln in lines if ln.strip() and not _CELL_LINE.match(ln.strip())]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    runner = Runner()
    kinds: dict[str, Counter[str]] = {}
    notebooks: dict[str, list[int]] = {}  # set -> [notebook pastes with a plan, of them printing a non-cell line]
    for name, path in cases():
        text = path.read_text(encoding="utf-8", errors="replace")
        _, out = runner.check(["--from", str(path.relative_to(ROOT)), "--format", "json"])
        doc = json.loads(out)
        plan = doc["plan"]
        kind = final_check(plan, text)
        kinds.setdefault(name, Counter())[kind or "none"] += 1
        if args.verbose and kind in ("unfailed", "failed", "fact", "said"):
            said = [*plan["steps"][-1]["lines"], *plan["steps"][-1]["summaries"]]
            print(f"{kind:9} {name}/{path.parent.name[:70]}: {said[0][:90]}")
        misses = cell_misses(doc)
        if NOTEBOOK.search(text) and (misses or plan.get("steps") or doc["pasted"].get("ask_for")):
            row = notebooks.setdefault(name, [0, 0])
            row[0] += 1
            row[1] += bool(misses)
            if misses and args.verbose:
                print(f"not-cell  {name}/{path.parent.name[:70]}: {misses[0][:90]}")
    order = ("rerun", "said", "fact", "failed", "unfailed")
    for name, c in kinds.items():
        nb = notebooks.get(name, [0, 0])
        print(f"{name:8} " + " ".join(f"{k} {c[k]:2}" for k in order) + f"   notebook pastes {nb[0]:2}, non-cell {nb[1]:2}")
    total: Counter[str] = sum(kinds.values(), Counter())
    nb_all = [sum(r[i] for r in notebooks.values()) for i in range(2)]
    print(
        f"{'all':8} " + " ".join(f"{k} {total[k]:2}" for k in order) + f"   notebook pastes {nb_all[0]:2}, non-cell {nb_all[1]:2}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
