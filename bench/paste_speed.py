"""How long `gpudoctor check --from FILE --format json` takes on a large paste (issue 28: bounded time).

People paste whole training logs, dmesg, `docker logs`, journalctl. The pastes here are made up from the real
reports in the tests between runs of log noise (tests/pasted/bigpaste.py: the same seed and size give the same
text everywhere), at 100 kB, 1 MB and 2 MB. Each size is checked in rounds, one whole process each, this tree's
src/ and (with --compare DIR) another tree's side by side in the same rounds, so that load from elsewhere hits
both alike; the reports (timings left out) must be the same, or the script says so.

    .venv/bin/python bench/paste_speed.py                        # this tree, 3 rounds
    .venv/bin/python bench/paste_speed.py --compare /tmp/old --runs 3 --sizes 100000,2000000
    .venv/bin/python bench/paste_speed.py --profile 2000000      # where the time goes: cProfile, top 25

Timed by hand, never as a test. Run it with byte-compiled sources (bench/README.md: PYTHONDONTWRITEBYTECODE makes
every run compile gpudoctor again) and say the load average it prints.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.pasted.bigpaste import big_paste  # noqa: E402  (the tests' builder: one definition of the pastes)

# Runs one check as a child and prints its wall time, CPU time and peak memory (getrusage of its only child).
WRAPPER = r"""
import json, resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], "wb"), stderr=subprocess.DEVNULL, timeout=600)
wall = time.perf_counter() - started
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": done.returncode, "wall": wall, "cpu": r.ru_utime + r.ru_stime, "peak_mb": r.ru_maxrss / 1024}))
"""


def _run(src: Path, paste: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    argv = [
        sys.executable,
        "-c",
        WRAPPER,
        str(out),
        sys.executable,
        "-m",
        "gpudoctor",
        "check",
        "--from",
        str(paste),
        "--format",
        "json",
    ]
    return json.loads(subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout)


def _report(path: Path) -> object:
    """The JSON report without its timings (they differ run to run); the bare output where it is no report."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return path.read_text(encoding="utf-8", errors="replace")
    data.pop("timings_s", None)
    if isinstance(data.get("facts"), dict):
        data["facts"].pop("timings_s", None)
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000,1000000,2000000", help="paste sizes in characters, comma-separated")
    ap.add_argument("--runs", type=int, default=3, help="rounds per size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compare", type=Path, help="another checkout whose src/ runs in the same rounds")
    ap.add_argument("--profile", type=int, metavar="SIZE", help="profile one check of a paste of SIZE characters instead")
    args = ap.parse_args()
    trees = {"this tree": ROOT / "src"}
    if args.compare:
        trees[f"{args.compare}"] = args.compare.resolve() / "src"
    with tempfile.TemporaryDirectory() as tmp:
        if args.profile:
            paste = Path(tmp, "paste.txt")
            paste.write_text(big_paste(args.profile, args.seed), encoding="utf-8")
            env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
            code = (
                "import cProfile, pstats, sys; from gpudoctor.cli import main; sys.argv = ['gpudoctor', 'check', '--from', "
                f"{str(paste)!r}, '--format', 'json']; cProfile.run('main()', {str(Path(tmp, 'prof'))!r})"
            )
            subprocess.run([sys.executable, "-c", f"{code}\n"], env=env, stdout=subprocess.DEVNULL, check=False)
            import pstats

            pstats.Stats(str(Path(tmp, "prof"))).sort_stats("cumulative").print_stats(25)
            return
        print(
            f"Load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}"
        )
        print("| paste | tree | median wall s | median CPU s | peak MB | exit status |")
        print("| ---: | --- | ---: | ---: | ---: | --- |")
        for size in (int(s) for s in args.sizes.split(",")):
            paste = Path(tmp, f"paste-{size}.txt")
            paste.write_text(big_paste(size, args.seed), encoding="utf-8")
            results: dict[str, list[dict]] = {name: [] for name in trees}
            reports: dict[str, object] = {}
            for _ in range(args.runs):
                for name, src in trees.items():
                    out = Path(tmp, "out.json")
                    results[name].append(_run(src, paste, out))
                    reports[name] = _report(out)
            for name, rows in results.items():
                print(
                    f"| {size:,} | {name} | {statistics.median(r['wall'] for r in rows):.2f} | "
                    f"{statistics.median(r['cpu'] for r in rows):.2f} | {max(r['peak_mb'] for r in rows):.0f} | "
                    f"{' '.join(sorted({str(r['rc']) for r in rows}))} |"
                )
            if len({json.dumps(r, sort_keys=True) for r in reports.values()}) > 1:
                print(f"  the reports of the {size:,}-character paste differ between the trees")
        print(f"Load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
