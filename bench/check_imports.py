"""What a bare `gpudoctor check` imports, and what each import costs: an importtime summary.

    .venv/bin/python bench/check_imports.py            # 9 rounds, the 25 dearest modules
    .venv/bin/python bench/check_imports.py --runs 15 --top 40

`python -X importtime -m gpudoctor check` is hard to read: the probes run in threads, which import as they
go, so a module's "self" time there includes other threads' work (negative figures appear). This script
first runs a bare `check` in a child process and lists the modules it imported, in order, with those that
came without a current bytecode cache (a .pyc whose stamp matches the source: under PYTHONDONTWRITEBYTECODE=1
nothing writes one for an editable install, and every run compiles them again); then it imports exactly
those modules, one after the other in one thread, under `-X importtime`, in fresh processes, and prints
each module's median self time. Times, never asserted (tests/ never time anything): run it on a quiet
machine, or compare two trees in the same minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

# Run in the child: a bare check, then the modules it added, each with whether its bytecode cache was current.
_LIST = r"""
import importlib.util, json, os, sys
before = set(sys.modules)
sys.argv = ["gpudoctor", "check"]
out, err = os.dup(1), os.dup(2)
null = os.open(os.devnull, os.O_WRONLY)
os.dup2(null, 1); os.dup2(null, 2)
try:
    from gpudoctor.cli import main
    main()
except SystemExit:
    pass
finally:
    sys.stdout.flush(); os.dup2(out, 1); os.dup2(err, 2)

def cached(module):
    source = getattr(module, "__file__", None)
    if not source or not source.endswith(".py"):
        return True  # built in, frozen or an extension: nothing to compile
    try:
        pyc = importlib.util.cache_from_source(source)
        with open(pyc, "rb") as fh:
            head = fh.read(16)
        st = os.stat(source)
    except (OSError, NotImplementedError, ValueError):
        return False
    flags = int.from_bytes(head[4:8], "little")
    if head[:4] != importlib.util.MAGIC_NUMBER:
        return False
    if flags & 1:
        return True  # hash-based pyc: taken as current
    return int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF

names = [n for n in sys.modules if n not in before and n != "__main__"]
print(json.dumps([[n, cached(sys.modules[n])] for n in names if sys.modules.get(n) is not None]))
"""


def imported_by_check(python: str) -> list[tuple[str, bool]]:
    """(module, bytecode cache current) for each module a bare check imports, in the order it imported them."""
    proc = subprocess.run([python, "-c", _LIST], capture_output=True, text=True, timeout=120, check=True)
    return [(name, bool(ok)) for name, ok in json.loads(proc.stdout.strip().splitlines()[-1])]


def importtimes(python: str, modules: list[str], runs: int) -> tuple[dict[str, float], list[float]]:
    """Median self time (ms) of each module imported in order in one thread; and the total of each run."""
    code = "\n".join(f"import {m}" for m in modules)
    samples: dict[str, list[int]] = defaultdict(list)
    totals = []
    for _ in range(runs):
        proc = subprocess.run([python, "-X", "importtime", "-c", code], capture_output=True, text=True, timeout=120)
        total = 0
        for line in proc.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, _, name = line[len("import time:") :].split("|")
            samples[name.strip()].append(int(self_us))
            total += int(self_us)
        totals.append(total / 1000)
    return {name: statistics.median(v) / 1000 for name, v in samples.items()}, totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--top", type=int, default=25)
    opts = parser.parse_args()
    python = sys.executable
    listed = imported_by_check(python)
    modules = [name for name, _ in listed]
    stale = [name for name, ok in listed if not ok]
    ours = [m for m in modules if m == "gpudoctor" or m.startswith("gpudoctor.")]
    print(f"A bare `gpudoctor check` imports {len(modules)} modules ({len(ours)} of gpudoctor's).")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("PYTHONDONTWRITEBYTECODE is set: Python writes no bytecode cache as it imports.")
    print(
        f"Without a current bytecode cache (compiled again by every run): {len(stale)}"
        + (f": {' '.join(stale)}" if stale else "")
    )
    self_ms, totals = importtimes(python, modules, opts.runs)
    mine = sum(v for k, v in self_ms.items() if k == "gpudoctor" or k.startswith("gpudoctor."))
    print(
        f"Imported one after the other, {opts.runs} runs: total {statistics.median(totals):.1f} ms median "
        f"({min(totals):.1f}-{max(totals):.1f}), gpudoctor's own modules {mine:.1f} ms; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}."
    )
    print("\n| self ms (median) | module |\n| ---: | --- |")
    for name, ms in sorted(self_ms.items(), key=lambda kv: -kv[1])[: opts.top]:
        print(f"| {ms:.1f} | {name} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
