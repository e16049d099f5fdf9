"""Run gpudoctor ONCE on the cases of a blind set that have no first run yet: python tools/blind_run.py DIR

DIR is a blind set's folder (tests/blind/plans2). For each `cases/<slug>/` with `input.txt` and
`expect.toml` but no `first-run.txt`, it writes `first-run.txt` (`gpudoctor check --from input.txt`,
80 columns, no colour) and `first-run.json` (`--format json`). A case that has a first run is never run
again: the first run is the evidence, and re-running would overwrite it. `--after NAME` writes
`NAME.txt` / `NAME.json` instead (an after-fix run, kept beside the first one) for every case.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path


def run(case: Path, stem: str) -> None:
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
    base = [sys.executable, "-m", "gpudoctor", "check", "--from", str(case / "input.txt")]
    for argv, suffix in ((base, "txt"), ([*base, "--format", "json"], "json")):
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)
        (case / f"{stem}.{suffix}").write_text(done.stdout + (done.stderr if suffix == "txt" else ""), encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--after", metavar="NAME", help="write NAME.txt/NAME.json for every case (an after-fix run)")
    args = ap.parse_args()
    ran = 0
    for case in sorted(p.parent for p in (args.folder / "cases").glob("*/expect.toml")):
        if not (case / "input.txt").is_file():
            continue
        if args.after:
            run(case, args.after)
        elif not (case / "first-run.txt").exists():
            run(case, "first-run")
        else:
            continue
        ran += 1
    print(f"ran gpudoctor on {ran} case(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
