"""Issue 31, item 4: Ctrl-C kills the programs gpudoctor started.

They run in sessions of their own (host.live.run_bounded: a timeout kills the whole group), so the
terminal's SIGINT never reaches them: gpudoctor kills their groups itself when it stops. Each test runs
the real CLI in a subprocess, waits until a real child tree hangs (a program and a child of its own),
sends SIGINT to gpudoctor and checks that it exits 130 and that both processes are gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import fixture_text

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX")

# Writes its own pid and its child's, then waits on the child: a hung program with a tree below it.
HANG_SH = """#!/bin/sh
sleep 300 &
echo "$$ $!" > "{pids}.tmp" && mv "{pids}.tmp" "{pids}"
wait
"""
HANG_PY = """import os, subprocess, sys, time
child = subprocess.Popen(["sleep", "300"])
with open({pids!r} + ".tmp", "w") as fh:
    fh.write(f"{{os.getpid()}} {{child.pid}}")
os.replace({pids!r} + ".tmp", {pids!r})
time.sleep(300)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has stopped running
    except FileNotFoundError:
        return False


def _interrupt(argv: list[str], pids: Path, env: dict[str, str]) -> tuple[int, list[int]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpudoctor", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,  # this test's SIGINT goes to gpudoctor alone, as a terminal's goes to its group
        # SIGINT at its default, as under a terminal: a suite started in the background by a shell without job control
        # (`make test &`) inherits it ignored, and Python then installs no KeyboardInterrupt handler at all.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    started: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while not pids.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert pids.exists(), f"the hung program never started: {proc.stderr.read().decode() if proc.poll() is not None else ''}"
        started = [int(p) for p in pids.read_text().split()]
        assert all(_alive(p) for p in started)
        os.kill(proc.pid, signal.SIGINT)
        rc = proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.05)
        return rc, [p for p in started if _alive(p)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for p in started:  # never leave the test's own processes behind, whatever failed
            if _alive(p):
                os.kill(p, signal.SIGKILL)


def _env(**extra: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8", "PYTHONPATH": str(ROOT / "src"), **extra}


@pytest.mark.typer_rich
def test_ctrl_c_kills_a_hung_nvidia_smi_and_its_child(tmp_path):
    pids = tmp_path / "pids"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    smi = bindir / "nvidia-smi"
    smi.write_text(HANG_SH.format(pids=pids))
    smi.chmod(0o755)
    # A long probe limit: on a loaded machine the default 5 s could end the hung nvidia-smi before the test interrupts.
    rc, left = _interrupt(["check", "--probe-timeout", "120"], pids, _env(PATH=f"{bindir}:{os.environ['PATH']}"))
    assert rc == 130
    assert left == []


def test_ctrl_c_kills_a_hung_deep_import_and_its_child(tmp_path):
    pids = tmp_path / "pids"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()
    )
    (site / "torch").mkdir(parents=True)
    # A stand-in torch: PyTorch's real version.py, and an import that starts a child and hangs (a CUDA init stuck).
    (site / "torch" / "__init__.py").write_text(HANG_PY.format(pids=str(pids)))
    (site / "torch" / "version.py").write_text(fixture_text("torch-version/version.py_torch-2.2.1+cu121.py"))
    dist = site / "torch-2.2.1+cu121.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.2.1+cu121\n")
    (dist / "RECORD").write_text("")
    rc, left = _interrupt(["check", "--deep", "--python", str(python), "--probe-timeout", "120"], pids, _env())
    assert rc == 130
    assert left == []
