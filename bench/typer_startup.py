"""Start-up time of gpudoctor under each typer release: the measurement behind typer's range in pyproject.toml.

For each typer version: a scratch virtual environment (python -m venv), gpudoctor's wheel (built once from
this checkout) and `typer==VERSION` installed from the package index pip is configured with. Then, per
environment, whole processes are timed (one warm-up run, then --runs runs, blocking wait):

  gpudoctor --help
  gpudoctor check --replay tests/machines/<machine>/snapshot.json --format json

and it is recorded which click and pydantic the environment holds, whether pydantic is imported by a
`check --replay` process, and whether `import typer` raises a DeprecationWarning (`-W error`).

    .venv/bin/python bench/typer_startup.py --runs 15 --workdir /tmp/typer-bench --markdown

Run it on a quiet machine; the figures are never asserted by a test (bench/README.md).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_VERSIONS = ["0.16.0", "0.19.2", "0.20.0", "0.23.1", "0.24.0", "0.25.1", "0.26.8", "0.27.3", "0.28.0", "0.29.2"]
DEFAULT_MACHINE = "h100x8-driver565-torch221-cu121"

PROBE = r"""
import sys
from gpudoctor.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stderr.write("\nPYDANTIC-IMPORTED=%s\n" % ("pydantic" in sys.modules))
"""


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def _once(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, of the child) of one whole process."""
    env = dict(os.environ, NO_COLOR="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, capture_output=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _stats(samples: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    walls = [w for w, _ in samples]
    cpus = [c for _, c in samples]
    return statistics.median(walls), min(walls), max(walls), statistics.median(cpus)


def _dist_version(python: Path, name: str) -> str:
    code = f"import importlib.metadata as m\ntry: print(m.version({name!r}))\nexcept m.PackageNotFoundError: print('-')"
    return _run([str(python), "-c", code]).stdout.strip() or "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--versions", nargs="+", default=DEFAULT_VERSIONS)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/typer-bench"))
    ap.add_argument("--machine", default=DEFAULT_MACHINE, help="a directory name under tests/machines/")
    ap.add_argument("--python", default=sys.executable, help="the interpreter the scratch environments are made with")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()

    snapshot = ROOT / "tests" / "machines" / args.machine / "snapshot.json"
    if not snapshot.is_file():
        ap.error(f"no such machine: {snapshot}")
    args.workdir.mkdir(parents=True, exist_ok=True)
    wheels = args.workdir / "wheel"
    for old in wheels.glob("*.whl"):
        old.unlink()
    built = _run([args.python, "-m", "pip", "wheel", "--quiet", "--no-deps", str(ROOT), "-w", str(wheels)])
    if built.returncode != 0:
        sys.stderr.write(built.stderr)
        return 1
    wheel = next(wheels.glob("*.whl"))

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    others = [d for d in pyproject["project"]["dependencies"] if Requirement(d).name != "typer"]

    rows = []
    for version in args.versions:
        venv = args.workdir / f"typer-{version}"
        if not (venv / "bin" / "python").exists():
            _run([args.python, "-m", "venv", str(venv)], check=True)
        py = venv / "bin" / "python"
        # The wheel without its requirements (its typer range would refuse the versions outside it), then
        # pyproject.toml's other requirements and typer at the version measured (pip moves click with it).
        inst = _run([str(py), "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps", str(wheel)])
        if inst.returncode == 0:
            inst = _run([str(py), "-m", "pip", "install", "--quiet", *others, f"typer=={version}"])
        if inst.returncode != 0:
            rows.append((version, "install failed: " + inst.stderr.strip().splitlines()[-1]))
            continue
        exe = str(venv / "bin" / "gpudoctor")
        replay = [exe, "check", "--replay", str(snapshot), "--format", "json"]
        probe = _run([str(py), "-c", PROBE, "check", "--replay", str(snapshot), "--format", "json"])
        pyd = "PYDANTIC-IMPORTED=True" in probe.stderr
        warns = _run([str(py), "-W", "error::DeprecationWarning", "-c", "import typer"]).returncode != 0
        rc = _run(replay).returncode
        rows.append(
            [
                version,
                _dist_version(py, "click"),
                _dist_version(py, "pydantic"),
                "yes" if pyd else "no",
                "yes" if warns else "no",
                rc,
                [exe, "--help"],
                replay,
                [],
                [],
            ]
        )

    # Round-robin: every version once per round, so a burst of load elsewhere hits all of them alike.
    measured = [row for row in rows if len(row) > 2]
    base_samples: list[tuple[float, float]] = []
    for row in measured:  # warm-up: page cache, .pyc files
        _once(row[6])
        _once(row[7])
    for _ in range(args.runs):
        base_samples.append(_once([args.python, "-c", "pass"]))
        for row in measured:
            row[8].append(_once(row[6]))
            row[9].append(_once(row[7]))

    base = _stats(base_samples)
    if args.markdown:
        print(f"`python -c pass`: median {base[0]:.3f} s wall, {base[3]:.3f} s CPU; {args.runs} rounds\n")
        print(
            "| typer | click | pydantic installed | pydantic imported by `check` | DeprecationWarning at `import typer` "
            "| `check` exit | `--help` median s wall (min-max) | `--help` median s CPU "
            "| `check --replay --format json` median s wall (min-max) | `check ...` median s CPU |"
        )
        print("|---|---|---|---|---|---:|---:|---:|---:|---:|")
    for row in rows:
        if len(row) == 2:
            print(f"| {row[0]} | {row[1]} |" if args.markdown else f"typer {row[0]}: {row[1]}")
            continue
        version, click, pydantic, pyd, warns, rc = row[:6]
        hlp, chk = _stats(row[8]), _stats(row[9])
        if args.markdown:
            print(
                f"| {version} | {click} | {pydantic} | {pyd} | {warns} | {rc} | "
                f"{hlp[0]:.3f} ({hlp[1]:.3f}-{hlp[2]:.3f}) | {hlp[3]:.3f} | {chk[0]:.3f} ({chk[1]:.3f}-{chk[2]:.3f}) | {chk[3]:.3f} |"
            )
        else:
            print(
                f"typer {version}: click {click}, pydantic {pydantic} (imported: {pyd}), warning: {warns}, exit {rc}; "
                f"--help {hlp[0]:.3f} s wall {hlp[3]:.3f} s CPU, check --replay {chk[0]:.3f} s wall {chk[3]:.3f} s CPU"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
