#!/usr/bin/env python3
"""Time `gpudoctor check` as a whole process, next to `python -c pass`.

Median of several runs (wall clock) and peak memory (max RSS of the child,
from getrusage) for each command. Run from the repository with the virtual
environment that `make run` creates:

    .venv/bin/python bench/check_speed.py [--runs 15] [--args "check --format json"]

Targets (issue 2, a 2-core machine without a GPU, no --deep): median at most
0.25 s and peak at most 60 MB.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time


def measure(argv: list[str], runs: int) -> tuple[float, float, float]:
    """(median seconds, max seconds, peak RSS in MB) over `runs` runs after one warm-up."""
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = []
    peak_kb = 0
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        times.append(time.perf_counter() - start)
        peak_kb = max(peak_kb, usage.ru_maxrss)
    return statistics.median(times), max(times), peak_kb / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--args", default="check --format json", help="gpudoctor arguments to time")
    opts = parser.parse_args()
    python = sys.executable
    gpudoctor = os.path.join(os.path.dirname(python), "gpudoctor")
    rows = [
        ("python -c pass", [python, "-c", "pass"]),
        (f"gpudoctor {opts.args}", [gpudoctor, *shlex.split(opts.args)]),
    ]
    print(f"{'command':40} {'median s':>9} {'max s':>7} {'peak MB':>8}  ({opts.runs} runs, {os.cpu_count()} CPUs)")
    for label, argv in rows:
        median, worst, peak = measure(argv, opts.runs)
        print(f"{label:40} {median:9.3f} {worst:7.3f} {peak:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
