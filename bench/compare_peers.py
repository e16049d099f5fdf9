#!/usr/bin/env python3
"""Time `gpudoctor check --format json` next to its peers, side by side in one run on one machine.

The peers: PyTorch's own `python -m torch.utils.collect_env`, and the PyPI package env-doctor's
`env-doctor check`. Each tool is installed by this script in its own scratch virtual environment
(gpudoctor from this repository, `torch==2.13.0`, `env-doctor`), then each command runs once to
warm the file cache and `--runs` more times; the table gives the median wall-clock time of each,
and how many times slower than gpudoctor each peer is. gpudoctor probes the torch environment
(`--python`), the same environment collect_env describes; without --deep it imports nothing.

    .venv/bin/python bench/compare_peers.py [--runs 9] [--workdir DIR] [--markdown]

--workdir keeps the scratch environments between runs (default: a temporary directory, removed at
the end). Target (issue 4): gpudoctor at least 10 times faster than the faster of the two peers.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TORCH = "torch==2.13.0"
ENV_DOCTOR = "env-doctor"
TARGET = 10.0


def sh(argv: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, check=True, text=True, capture_output=True, **kw)


def make_venv(where: Path, packages: list[str], refresh: list[str] = ()) -> Path:
    """A virtual environment at `where` with `packages` installed; reused when its stamp says so,
    with `refresh` (this repository) reinstalled every time so the timings are of the code as it is."""
    stamp = where / ".installed"
    wanted = "\n".join(packages)
    if stamp.exists() and stamp.read_text() == wanted:
        if refresh:
            py = str(where / "bin" / "python")
            sh([py, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", *refresh], timeout=600)
        return where
    if where.exists():
        shutil.rmtree(where)
    sh([sys.executable, "-m", "venv", str(where)])
    py = str(where / "bin" / "python")
    print(f"  installing {' '.join(packages)} into {where.name} ...", file=sys.stderr, flush=True)
    try:
        sh([py, "-m", "pip", "install", "--quiet", *packages], timeout=1800)
    except subprocess.CalledProcessError as exc:
        sys.exit(f"pip install {' '.join(packages)} failed:\n{exc.stdout}\n{exc.stderr}")
    stamp.write_text(wanted)
    return where


def version_of(venv: Path, dist: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({dist!r}))"
    try:
        return sh([str(venv / "bin" / "python"), "-c", code]).stdout.strip()
    except subprocess.CalledProcessError:
        return "?"


def clean_env(venv: Path) -> dict[str, str]:
    """The caller's environment as if `venv` were activated (nothing of ours leaks in)."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    env["VIRTUAL_ENV"] = str(venv)
    return env


def time_runs(argv: list[str], env: dict[str, str], runs: int, timeout: float) -> dict:
    warm = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    times = []
    for _ in range(runs):
        # A blocking wait: Popen.wait(timeout=...) polls with sleeps of up to 50 ms, which would
        # round every short run up. A timer kills a run that outlives `timeout` instead.
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        watchdog = threading.Timer(timeout, proc.kill)
        watchdog.start()
        os.waitpid(proc.pid, 0)
        times.append(time.perf_counter() - start)
        watchdog.cancel()
        proc.returncode = 0  # reaped above
    first = (warm.stdout.strip() or warm.stderr.strip()).splitlines()
    return {
        "median": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "rc": warm.returncode,
        "bytes": len(warm.stdout),
        "first_line": first[0][:70] if first else "",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="timed runs per command, after one warm-up (default 9)")
    parser.add_argument("--workdir", help="keep the scratch environments here, and reuse them on the next run")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds one run of one command may take")
    parser.add_argument("--markdown", action="store_true", help="also print the table as Markdown (bench/README.md)")
    opts = parser.parse_args()

    work = Path(opts.workdir).resolve() if opts.workdir else Path(tempfile.mkdtemp(prefix="gpudoctor-peers-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"scratch environments in {work}", file=sys.stderr)
        gd = make_venv(work / "gpudoctor", [str(ROOT)], refresh=[str(ROOT)])
        tv = make_venv(work / "torch", [TORCH])
        ed = make_venv(work / "env-doctor", [ENV_DOCTOR])
        # env-doctor judges the environment it is installed in: once more beside torch, so that it
        # has the same framework to look at as the other two (not counted in the target).
        edt = make_venv(work / "env-doctor+torch", [ENV_DOCTOR, TORCH])
        torch_py = str(tv / "bin" / "python")
        commands = [
            (
                "gpudoctor check --format json",
                [str(gd / "bin" / "gpudoctor"), "check", "--format", "json", "--python", torch_py],
                gd,
                f"gpudoctor {version_of(gd, 'gpudoctor')}",
            ),
            (
                "python -m torch.utils.collect_env",
                [torch_py, "-m", "torch.utils.collect_env"],
                tv,
                f"torch {version_of(tv, 'torch')}",
            ),
            ("env-doctor check", [str(ed / "bin" / "env-doctor"), "check"], ed, f"env-doctor {version_of(ed, 'env-doctor')}"),
            (
                "gpudoctor check --format json -r ...",
                [
                    str(gd / "bin" / "gpudoctor"),
                    "check",
                    "--format",
                    "json",
                    "--python",
                    torch_py,
                    "--require",
                    "gpu torch>=2.3 torch:cuda bf16 gpu-memory>=16GiB",
                ],
                gd,
                f"gpudoctor {version_of(gd, 'gpudoctor')}",
            ),
            (
                "env-doctor check (beside torch)",
                [str(edt / "bin" / "env-doctor"), "check"],
                edt,
                f"env-doctor {version_of(edt, 'env-doctor')}",
            ),
        ]
        results = []
        for label, argv, venv, version in commands:
            print(f"  timing {label} ({opts.runs} runs) ...", file=sys.stderr, flush=True)
            results.append((label, version, time_runs(argv, clean_env(venv), opts.runs, opts.timeout)))
    finally:
        if not opts.workdir:
            shutil.rmtree(work, ignore_errors=True)

    base = results[0][2]["median"]
    faster_peer = min(r["median"] for _, _, r in results[1:3])  # the two peers as the issue names them
    ratio = faster_peer / base
    cpu = platform.processor() or platform.machine()
    head = (
        f"{len(results)} commands, median of {opts.runs} runs after one warm-up; {os.cpu_count()} CPUs ({cpu}), "
        f"Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )
    print(head)
    print(f"{'command':36} {'version':22} {'median s':>9} {'min s':>7} {'max s':>7} {'exit':>4}  {'x gpudoctor':>11}")
    for label, version, r in results:
        print(
            f"{label:36} {version:22} {r['median']:9.3f} {r['min']:7.3f} {r['max']:7.3f} {r['rc']:>4}  {r['median'] / base:11.1f}"
        )
    verdict = "met" if ratio >= TARGET else "NOT met"
    print(f"gpudoctor is {ratio:.1f}x faster than the faster peer (target {TARGET:g}x: {verdict})")
    for label, _version, r in results:
        print(f"  {label}: exit {r['rc']}, {r['bytes']} bytes on stdout, first line: {r['first_line']!r}")
    if opts.markdown:
        print()
        print("| Command | Version | Median s | Min s | Max s | Exit | × gpudoctor |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for label, version, r in results:
            print(
                f"| `{label}` | {version} | {r['median']:.3f} | {r['min']:.3f} | {r['max']:.3f} | {r['rc']} | {r['median'] / base:.1f} |"
            )
    return 0 if ratio >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
