#!/usr/bin/env python3
"""Time loading the bundled compatibility matrix: the first `load_matrix()` in a fresh interpreter
(parse and build), and a repeated call (the cache).

Run from the repository with the virtual environment that `make run` creates:

    .venv/bin/python bench/matrix_load.py [--runs 15]

Target: the first load well under 30 ms on a 2-core machine; a repeated call effectively free. These
were asserts in tests/unit/test_matrix.py; a test's outcome must not depend on the speed of the
machine running it, so the figures live here (bench/README.md) and the tests check the caching itself.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIRST = "import time, gpudoctor.matrix as gm; t = time.perf_counter(); gm.load_matrix(); print(time.perf_counter() - t)"
REPEATED = (
    "import time, gpudoctor.matrix as gm; gm.load_matrix(); t = time.perf_counter()\n"
    "for _ in range(1000): gm.load_matrix()\n"
    "print((time.perf_counter() - t) / 1000)"
)


def seconds(code: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    first = [seconds(FIRST) for _ in range(runs)]
    repeated = [seconds(REPEATED) for _ in range(runs)]
    print(
        f"first load_matrix():    median {statistics.median(first) * 1000:.1f} ms, max {max(first) * 1000:.1f} ms ({runs} fresh interpreters)"
    )
    print(f"repeated load_matrix(): median {statistics.median(repeated) * 1e6:.2f} us per call")


if __name__ == "__main__":
    main()
