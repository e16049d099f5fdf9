"""`check` against programs that flood their output: bounded memory, bounded time, a failed probe that says why.

The shims are real executables on PATH (nvidia-smi, lspci) and a real --python interpreter. gpudoctor
runs as a subprocess of a small wrapper that reports its peak RSS from getrusage(RUSAGE_CHILDREN):
the wrapper has no other children, so the figure is gpudoctor's alone (the issue's limit: 200 MB).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIMIT_KB = 200 * 1000  # ru_maxrss is in KiB on Linux; 200 MB

WRAPPER = r"""
import json, resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": proc.returncode, "peak_kb": peak, "stdout": proc.stdout.decode("utf-8", "replace"),
                  "stderr": proc.stderr.decode("utf-8", "replace")}))
"""


def _shim(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def flood(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _shim(bin_dir, "nvidia-smi", 'exec yes "<nvidia_smi_log> flood flood flood flood flood"')
    _shim(bin_dir, "lspci", "yes 1>&2")  # a flood on stderr counts as well
    python = _shim(bin_dir, "python3-flood", "exec cat /dev/zero")
    return bin_dir, python


def _check(bin_dir: Path, *args: str) -> dict:
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}", "PYTHONPATH": str(ROOT / "src")}
    env.pop("VIRTUAL_ENV", None)
    env.pop("CONDA_PREFIX", None)
    # 15 s is the limit for the whole run; the timeout is generous on purpose (a slow CI
    # machine must not fail this), a flood that is not stopped would run until memory runs out.
    wrapped = subprocess.run(
        [sys.executable, "-c", WRAPPER, sys.executable, "-m", "gpudoctor", "check", *args],
        capture_output=True,
        env=env,
        timeout=90,
        check=True,
    )
    return json.loads(wrapped.stdout)


def test_flooding_nvidia_smi_and_python_stay_bounded(flood):
    bin_dir, python = flood
    out = _check(bin_dir, "--python", str(python), "--format", "json", "--probe-timeout", "15")
    assert out["rc"] in (0, 1), out["stderr"]
    assert out["peak_kb"] < LIMIT_KB, f"peak RSS {out['peak_kb']} KiB"
    doc = json.loads(out["stdout"])
    text = json.dumps(doc)
    # The interpreter's flood is a failed probe that says why.
    assert "output exceeded 16 MiB" in text
    python_outcome = doc["facts"]["frameworks"]["python"]
    assert python_outcome["status"] != "found"
    assert "output exceeded 16 MiB" in json.dumps(python_outcome)
    # So is nvidia-smi's.
    driver = doc["facts"]["driver"]
    assert driver["smi_status"] == "failed" and "output exceeded 16 MiB" in driver["smi_error"]
    assert "unexpected error" not in out["stderr"] and "Traceback" not in out["stderr"]


def test_flooding_nvidia_smi_in_the_text_view(flood):
    bin_dir, python = flood
    out = _check(bin_dir, "--python", str(python), "-v")
    assert out["rc"] in (0, 1), out["stderr"]
    assert out["peak_kb"] < LIMIT_KB
    assert "output exceeded 16 MiB" in out["stdout"]
