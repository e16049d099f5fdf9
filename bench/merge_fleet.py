"""`gpudoctor report merge` at fleet size: 100,000 node reports, merged in at most 60 s and 300 MB.

The reports are real `gpudoctor check --format json` output: each recorded machine of tests/machines/
is checked once (replayed), and the fleet is drawn from those reports. Like a real fleet it is mostly
one kind of node (the 8 x H100 server, 70%), the rest spread over every other recorded Linux machine,
and it drifts: on some nodes of the main kind the driver was left behind (3%), the kernel updated (2%)
or the image's torch moved on (1%); every node has its own name. Each node's report is its own file,
as `srun --output=reports/%N.json` writes them (docs/cluster.md).

Then `gpudoctor report merge` runs as a separate process, as a person runs it, and its wall time and
peak memory (the process's maximum resident set, from wait4) are measured: the text view, the JSON
document, and the text view with `--baseline` (the main kind's report as the known-good node).

    .venv/bin/python bench/merge_fleet.py                 # 100,000 nodes
    .venv/bin/python bench/merge_fleet.py --nodes 5000    # quicker
    .venv/bin/python bench/merge_fleet.py --keep /tmp/fleet   # keep the reports (reused on the next run)

Exit status 1 when a run takes longer than --max-seconds or more memory than --max-mb (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MACHINES = ROOT / "tests" / "machines"
MAIN = "h100x8-driver565-torch221-cu121"
PLACEHOLDER = "NODE-NAME-PLACEHOLDER"
# (share of the main kind's nodes, text replaced, by what): what drifts on a real fleet.
DRIFT = (
    (0.03, '"565.57.01"', '"560.35.03"'),  # a driver left behind by a rolling update
    (0.02, "6.8.0-45-generic", "6.8.0-49-generic"),  # a kernel updated on some nodes
    (0.01, "2.2.1+cu121", "2.3.0+cu121"),  # a newer torch in some nodes' image
)


def gpudoctor(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpudoctor", *args], capture_output=True, text=True, check=False, **kw)


def templates() -> dict[str, str]:
    """Each recorded Linux machine's report (as JSON text, the node name a placeholder)."""
    out = {}
    for snap in sorted(MACHINES.glob("*/snapshot.json")):
        r = gpudoctor("check", "--replay", str(snap), "--format", "json", "--node", PLACEHOLDER)
        if r.returncode not in (0, 1):
            continue
        doc = json.loads(r.stdout)
        if (doc["facts"].get("platform") or {}).get("system") != "Linux":
            continue
        out[snap.parent.name] = r.stdout
    return out


def generate(directory: Path, nodes: int, seed: int = 18) -> tuple[int, float]:
    """Write `nodes` reports into `directory`; (bytes written, seconds)."""
    started = time.monotonic()
    texts = templates()
    main = texts[MAIN]
    others = [t for name, t in texts.items() if name != MAIN]
    rng = random.Random(seed)
    total = 0
    for i in range(nodes):
        name = f"gpu-{i:06d}"
        if rng.random() < 0.7:
            text = main
            for share, old, new in DRIFT:
                if rng.random() < share:
                    text = text.replace(old, new)
        else:
            text = others[rng.randrange(len(others))]
        data = text.replace(PLACEHOLDER, name).encode("utf-8")
        (directory / f"{name}.json").write_bytes(data)
        total += len(data)
    (directory.parent / "baseline.json").write_text(main.replace(PLACEHOLDER, "known-good"), encoding="utf-8")
    return total, time.monotonic() - started


def _tree_rss_kib(root: int) -> int:
    """The resident memory of process `root` and all its descendants now (KiB), from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
        except OSError:
            continue
        pid, ppid = int(entry), int(fields.get("PPid", "0").strip() or 0)
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack += children.get(pid, [])
    return total


def measure(argv: list[str]) -> tuple[float, float, float, float, int]:
    """(seconds, CPU seconds, peak MB of the process, peak MB of it and its worker processes together,
    exit status) of `gpudoctor ARGV`, its output thrown away. The sum is sampled every 0.2 s from /proc;
    the CPU time is wait4's, which counts the worker processes the merge waited for."""
    started = time.monotonic()
    tree_peak = 0
    with open(os.devnull, "wb") as null, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "gpudoctor", *argv], stdout=null, stderr=err)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            tree_peak = max(tree_peak, _tree_rss_kib(proc.pid))
            time.sleep(0.2)
        seconds = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        if proc.returncode not in (0, 1):
            sys.exit(f"gpudoctor {' '.join(argv)} failed ({proc.returncode}): {err.read().decode().strip()}")
    own = usage.ru_maxrss / 1024  # KiB on Linux
    return seconds, usage.ru_utime + usage.ru_stime, own, max(tree_peak / 1024, own), proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--keep", metavar="DIR", help="write the reports here and keep them (reused when already there)")
    ap.add_argument("--max-seconds", type=float, default=60.0)
    ap.add_argument("--max-mb", type=float, default=300.0)
    args = ap.parse_args()

    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gd-fleet-"))
    reports = base / "reports"
    try:
        if reports.is_dir() and len(os.listdir(reports)) == args.nodes:
            print(f"reusing {args.nodes} reports in {reports}")
        else:
            shutil.rmtree(reports, ignore_errors=True)
            reports.mkdir(parents=True)
            size, seconds = generate(reports, args.nodes)
            print(f"generated {args.nodes} reports ({size / 1e6:.0f} MB) in {seconds:.1f} s")
        print(f"machine: {os.cpu_count()} CPU(s), load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        runs = {
            "text": ["report", "merge", str(reports)],
            "json": ["report", "merge", "--format", "json", str(reports)],
            "text --baseline": ["report", "merge", "--baseline", str(base / "baseline.json"), str(reports)],
        }
        worst = 0
        for label, argv in runs.items():
            seconds, cpu, own, tree, code = measure(argv)
            ok = seconds <= args.max_seconds and tree <= args.max_mb
            worst |= not ok
            print(
                f"{label:16s} {seconds:6.1f} s ({cpu:5.1f} s CPU)  {own:4.0f} MB peak ({tree:4.0f} MB with its workers)  exit {code}"
                f"  {'ok' if ok else 'OVER THE LIMIT'}  load {os.getloadavg()[0]:.1f}"
            )
        return 1 if worst else 0
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
