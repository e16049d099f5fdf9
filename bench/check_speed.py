#!/usr/bin/env python3
"""Time `gpudoctor check`, `--version` and `explain` as whole processes, next to `python -c pass`.

Every command runs once to warm the caches, then `--runs` rounds in which each command runs once (so
load from elsewhere hits all of them alike). Per command: the median and the worst wall time, the median
CPU time of the child (user + system: what load on other cores barely changes) and its peak resident
memory (getrusage max RSS). The machine's load average is recorded before and after: a figure from a busy
machine is not a figure for a quiet one.

    .venv/bin/python bench/check_speed.py [--runs 15]          # print the results block
    .venv/bin/python bench/check_speed.py --update bench/README.md   # and replace the block there
    .venv/bin/python bench/check_speed.py --compare /tmp/old   # also a bare check from another tree's src/, same rounds
    .venv/bin/python bench/check_speed.py --busy 2 --update bench/README.md   # under load: the second block

The block (between the `check_speed results` markers) is what bench/README.md shows, and
tests/test_docs_drift.py checks that the speed the docs claim for `gpudoctor check` is this block's.

`gpudoctor check` probes the user's Python: here the `python3` on PATH (which the block names: a pyenv
shim must be started), and, in the row with VIRTUAL_ENV, a scratch virtual environment built by this
script, which gpudoctor reads from its files without starting it (gpudoctor.host.venvfiles).

Targets (issue 19, a 2-core machine without a GPU, a quiet machine): `check` at most 0.15 s median,
`--version` and `explain CODE` at most 0.06 s; peak memory at most 60 MB (issue 2). And, whatever the load
(issue 31), `check` at most 8 times `python -c pass` measured side by side in the same rounds: the "x pass"
column, which load on the machine changes far less than the seconds; "x pass CPU" is the same ratio of CPU
times, which load changes less still (a check's own CPU time, its subprocesses' included, against the bare
interpreter's).

Two more pairs of rows say what the ratio depends on. The probed interpreter alone (`-c pass`, and `-S -c pass`
without its site-packages): where its .pth files run code (this project's machine: a sandbox's certifi hook) a bare
check starts it and waits for it. And `python -c pass` and a bare check in a venv without the editable install's
finder (src/ and this environment's site-packages on a .pth of plain paths, as a wheel's install imports them): this
environment's `python -c pass` runs that finder at every start, which a user's install from a wheel does not; the
check without it is divided by the `python -c pass` without it.

The gpudoctor package the console script imports is byte-compiled first, as pip compiles a wheel it installs and
`make run` compiles src/ (stale caches measure the compiler: the Bytecode line says how many were stale); `--as-is`
measures the caches as they are.

`--compare DIR` adds a bare check run from DIR/src (another checkout, byte-compiled: `python -m compileall DIR/src`)
with this environment's interpreter and dependencies, in the same rounds: a change's before and after, side by side.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BEGIN = "<!-- check_speed results: begin -->"
END = "<!-- check_speed results: end -->"
# The block recorded with --busy N (N spinning processes beside the rounds): issue 31's "under load" figure.
BUSY_BEGIN = "<!-- check_speed results under load: begin -->"
BUSY_END = "<!-- check_speed results under load: end -->"
TARGETS = {"check": 0.15, "version": 0.06, "explain": 0.06}
RATIO_TARGETS = {"check": 8.0}  # times `python -c pass`, the same rounds
BASELINE = "`python -c pass`"
PLAIN = "(no editable install's finder)"
PLAIN_BASELINE = f"`python -c pass` {PLAIN}"


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall s, CPU s of the child, peak RSS MB) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(rows: list[tuple[str, str, list[str], dict[str, str]]], runs: int) -> dict[str, dict[str, float]]:
    samples: dict[str, list[tuple[float, float, float]]] = {label: [] for label, _, _, _ in rows}
    for _, _, argv, env in rows:
        run_once(argv, env)  # warm-up: bytecode, page cache
    for _ in range(runs):
        for label, _, argv, env in rows:
            samples[label].append(run_once(argv, env))
    out = {}
    for label, values in samples.items():
        walls = [v[0] for v in values]
        out[label] = {
            "median": statistics.median(walls),
            "max": max(walls),
            "cpu": statistics.median(v[1] for v in values),
            "peak": max(v[2] for v in values),
        }
    return out


class Busy:
    """`count` processes that spin on the CPU while the rounds run, so that "under load" is a load anyone can make
    again (issue 31: at most 8x `python -c pass` under load) rather than whatever the machine was doing. Each is
    killed on exit, Ctrl-C included."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Busy:
        for _ in range(self.count):
            self.procs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        time.sleep(1.0 if self.count else 0.0)  # let the load average start to follow
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait(timeout=10)


def scratch_venv(workdir: str) -> str:
    """A virtual environment without pip (nothing from an index), with a distribution's metadata in it."""
    env = os.path.join(workdir, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", env], check=True)
    site = os.path.join(env, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}", "site-packages")
    dist = os.path.join(site, "example_package-1.0.dist-info")
    os.makedirs(dist)
    with open(os.path.join(dist, "METADATA"), "w", encoding="utf-8") as fh:
        fh.write("Metadata-Version: 2.1\nName: example-package\nVersion: 1.0\n")
    return env


def probed_python3(env: dict[str, str]) -> str | None:
    """The interpreter a bare check asks: the `python3` on PATH, a pyenv shim resolved as gpudoctor resolves it."""
    found = shutil.which("python3", path=env.get("PATH"))
    if not found:
        return None
    from gpudoctor.host.pyenvshim import logical_cwd, resolve

    real, _ = resolve(found, env, logical_cwd(env))
    return real or found


def plain_venv(workdir: str, python: str) -> str:
    """A venv that imports this checkout's gpudoctor as an installed one would: src/ and this environment's
    site-packages (the dependencies) named by a .pth of plain paths, so nothing runs at its start, unlike the
    editable install's finder, which this environment's `python -c pass` pays for (pipx's and pip's installs
    from a wheel have none). The console script is this environment's, with the new interpreter."""
    env = os.path.join(workdir, "plain")
    subprocess.run([python, "-m", "venv", "--without-pip", env], check=True)
    xy = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    here = os.path.join(sys.prefix, "lib", xy, "site-packages")
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    with open(os.path.join(env, "lib", xy, "site-packages", "gpudoctor-paths.pth"), "w", encoding="utf-8") as fh:
        fh.write(f"{src}\n{here}\n")
    with open(os.path.join(os.path.dirname(python), "gpudoctor"), encoding="utf-8") as fh:
        script = fh.read().split("\n", 1)[1]
    target = os.path.join(env, "bin", "gpudoctor")
    with open(target, "w", encoding="utf-8") as fh:
        fh.write(f"#!{os.path.join(env, 'bin', 'python')}\n{script}")
    os.chmod(target, 0o755)
    return env


def describe_python3(env: dict[str, str]) -> str:
    found = shutil.which("python3", path=env.get("PATH"))
    if not found:
        return "none (gpudoctor's own interpreter is read in-process)"
    try:
        with open(found, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        head = b""
    shim = head.startswith(b"#!") and b"pyenv" in head
    if not shim:
        return f"`{found}`"
    from gpudoctor.host.pyenvshim import logical_cwd, resolve

    real, why = resolve(found, env, logical_cwd(env))
    if real:
        return f"`{found}`, a pyenv shim that gpudoctor resolves from pyenv's files to `{real}` (started without bash and pyenv)"
    return f"`{found}` (a pyenv shim gpudoctor runs: bash, then pyenv, then Python; not resolved from files: {why})"


def describe_bytecode(python: str) -> str:
    """Whether the modules a bare check imports have current bytecode caches: without them (an editable install
    under PYTHONDONTWRITEBYTECODE=1, before `make run` compiled src/) every run compiles them again, which
    nearly doubled a check's CPU time (bench/README.md)."""
    from check_imports import imported_by_check  # bench/, beside this script

    listed = imported_by_check(python)
    stale = [name for name, ok in listed if not ok]
    unset = "" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "un"
    return (
        f"Bytecode (PYTHONDONTWRITEBYTECODE {unset}set): {len(stale)} of the {len(listed)} modules a bare check imports "
        f"ran without a current cache{': ' + ' '.join(stale[:8]) + (' ...' if len(stale) > 8 else '') if stale else ''}."
    )


def compile_package(python: str) -> None:
    """Byte-compile the gpudoctor package the measured console script imports, as pip does when it installs a
    wheel and `make run` does for this checkout. After a merge under PYTHONDONTWRITEBYTECODE=1 the caches are stale
    and every run compiles the changed modules again: the same code at the same hour measured 0.161 s stale and
    0.125 s compiled (2026-11-30), a figure of the compiler rather than of a check."""
    where = subprocess.run(
        [python, "-c", "import gpudoctor, os; print(os.path.dirname(gpudoctor.__file__))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    subprocess.run([python, "-m", "compileall", "-q", where], check=True, capture_output=True, timeout=300)


def block(
    results: dict[str, dict[str, float]],
    rows,
    runs: int,
    load_before,
    load_after,
    probed: str,
    machine: str,
    bytecode: str,
    busy: int = 0,
) -> str:
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        BUSY_BEGIN if busy else BEGIN,
        f"Recorded {when} by `bench/check_speed.py --runs {runs}{f' --busy {busy}' if busy else ''}` on {machine} "
        f"({os.cpu_count()} CPUs, {platform.system()} {platform.machine()}, Python {platform.python_version()}, "
        f"{'an NVIDIA GPU' if os.path.exists('/dev/nvidiactl') else 'no GPU'}).",
        f"Load average (1, 5, 15 min) {' '.join(f'{x:.2f}' for x in load_before)} before the run, "
        f"{' '.join(f'{x:.2f}' for x in load_after)} after it"
        f"{f', with {busy} processes spinning on the CPU beside every round' if busy else ''}. "
        f"The probed `python3` on PATH: {probed}.",
        bytecode,
        "",
        "| command | median s | max s | median CPU s | peak MB | x pass | x pass CPU | target |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for label, kind, _, _ in rows:
        r = results[label]
        # A row without the editable install's finder is divided by the `python -c pass` of its own venv.
        own = PLAIN_BASELINE if label.endswith(PLAIN) and label != PLAIN_BASELINE else BASELINE
        base, base_cpu = results[own]["median"], results[own]["cpu"]
        ratio = r["median"] / base
        verdicts = []
        if kind in TARGETS and not busy:  # the seconds are a quiet machine's target, not judged under load
            verdicts.append(f"<= {TARGETS[kind]} s: {'met' if r['median'] <= TARGETS[kind] else 'not met'}")
        if kind in RATIO_TARGETS:
            verdicts.append(f"<= {RATIO_TARGETS[kind]:g}x pass: {'met' if ratio <= RATIO_TARGETS[kind] else 'not met'}")
        lines.append(
            f"| {label} | {r['median']:.3f} | {r['max']:.3f} | {r['cpu']:.3f} | {r['peak']:.1f} | {ratio:.1f} | "
            f"{r['cpu'] / base_cpu:.1f} | {'; '.join(verdicts)} |"
        )
    lines.append(BUSY_END if busy else END)
    return "\n".join(lines) + "\n"


def update(path: str, text: str) -> None:
    with open(path, encoding="utf-8") as fh:
        old = fh.read()
    begin, end = (BUSY_BEGIN, BUSY_END) if text.startswith(BUSY_BEGIN) else (BEGIN, END)
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", re.DOTALL)
    if not pattern.search(old):
        raise SystemExit(f"{path}: no {begin} ... {end} block to replace")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(pattern.sub(lambda m: text, old, count=1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--update", metavar="README", help="replace the results block in this file (bench/README.md)")
    parser.add_argument("--machine", default="the project machine", help="how the block names this machine")
    parser.add_argument("--compare", metavar="DIR", help="also time a bare check from DIR/src (another checkout), same rounds")
    parser.add_argument(
        "--busy",
        type=int,
        default=0,
        metavar="N",
        help="keep N processes spinning on the CPU during the rounds (the under-load block: bench/README.md)",
    )
    parser.add_argument(
        "--as-is", action="store_true", help="measure the bytecode caches as they are (by default src/ is compiled first)"
    )
    opts = parser.parse_args()
    python = sys.executable
    if not opts.as_is:
        compile_package(python)
    gpudoctor = os.path.join(os.path.dirname(python), "gpudoctor")
    base = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "COLUMNS", "FORCE_COLOR")}
    with tempfile.TemporaryDirectory(prefix="gpudoctor-bench-") as workdir:
        venv = {**base, "VIRTUAL_ENV": scratch_venv(workdir)}
        rows = [
            (BASELINE, "", [python, "-c", "pass"], base),
            ("`gpudoctor --version`", "version", [gpudoctor, "--version"], base),
            ("`gpudoctor explain driver-missing`", "explain", [gpudoctor, "explain", "driver-missing"], base),
            ("`gpudoctor check` (probes `python3` on PATH)", "check", [gpudoctor, "check"], base),
            (
                "`gpudoctor check --format json` (probes `python3` on PATH)",
                "check",
                [gpudoctor, "check", "--format", "json"],
                base,
            ),
            ("`gpudoctor check` (VIRTUAL_ENV: a venv, read from its files)", "check", [gpudoctor, "check"], venv),
        ]
        probed = probed_python3(base)
        if probed:
            # The probed interpreter's own start, which a bare check waits for where it is started (its
            # site-packages' .pth files run code: host/venvfiles.py), and the same without those (-S).
            rows.append(("the probed `python3` alone: `-c pass`", "", [probed, "-c", "pass"], base))
            rows.append(("the probed `python3` alone: `-S -c pass` (no site-packages)", "", [probed, "-S", "-c", "pass"], base))
        plain = plain_venv(workdir, python)
        plain_bin = os.path.join(plain, "bin")
        rows.append(
            (
                PLAIN_BASELINE,
                "",
                [os.path.join(plain_bin, "python"), "-c", "pass"],
                base,
            )
        )
        rows.append(
            (
                f"`gpudoctor check` (probes `python3` on PATH) {PLAIN}",
                "check",
                [os.path.join(plain_bin, "gpudoctor"), "check"],
                base,
            )
        )
        # The same install in a user's activated virtual environment, which it reads from its files: what the
        # ratio is where no interpreter has to be started (the row above waits on the probed `python3`'s start).
        rows.append(
            (
                f"`gpudoctor check` (VIRTUAL_ENV: a venv, read from its files) {PLAIN}",
                "check",
                [os.path.join(plain_bin, "gpudoctor"), "check"],
                venv,
            )
        )
        if opts.compare:
            # The console script imports gpudoctor from PYTHONPATH ahead of this environment's own (editable) install.
            other = {**base, "PYTHONPATH": os.path.join(os.path.abspath(opts.compare), "src")}
            rows.append((f"compared: `gpudoctor check` from `{opts.compare}`", "check", [gpudoctor, "check"], other))
        with Busy(opts.busy):
            load_before = os.getloadavg()
            results = measure(rows, opts.runs)
            load_after = os.getloadavg()
    text = block(
        results,
        rows,
        opts.runs,
        load_before,
        load_after,
        describe_python3(base),
        opts.machine,
        describe_bytecode(python),
        busy=opts.busy,
    )
    sys.stdout.write(text)
    if opts.update:
        update(opts.update, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
