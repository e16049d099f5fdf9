"""Under an output encoding that is not UTF-8 (LANG=C, a latin-1 pipe) every text view still prints, with
ASCII stand-ins for what the encoding cannot carry, and never ends in UnicodeEncodeError."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# rich's consoles under a narrow output encoding: run under the oldest and newest typer and rich too
# (tests/packaging/test_dependency_range.py).
pytestmark = pytest.mark.typer_rich

TESTS = Path(__file__).resolve().parents[1]
GT1030 = str(TESTS / "machines" / "gt1030-desktop-memory-held" / "snapshot.json")
H100X8 = str(TESTS / "machines" / "h100x8-driver565-torch221-cu121" / "snapshot.json")
COMMANDS = [
    ("check", "--replay", H100X8),
    ("check", "--replay", GT1030, "-v"),
    ("memory", "--replay", GT1030),
    ("memory", "plan", "--replay", GT1030, "--gpu", "0", "job=1GiB:torch"),
    ("explain", "driver-missing"),
    ("install", "torch", "--replay", str(TESTS / "machines" / "p100-driver510-torch-cu121" / "snapshot.json")),
    ("fix", "--replay", str(TESTS / "machines" / "p100-driver510-torch-cu121" / "snapshot.json")),
    ("bench", "bandwidth", "--results", str(TESTS / "fixtures" / "bandwidth" / "constructed_gen4x16_trained-x8.json")),
    ("matrix", "show"),
    ("check", "--replay", "/nonexistent-gpudoctor-\u00fc.json"),
]


def gpudoctor(argv: tuple[str, ...], encoding: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "gpudoctor", *argv], capture_output=True, env=env, timeout=120)


@pytest.fixture(scope="module")
def utf8_runs() -> dict[tuple[str, ...], subprocess.CompletedProcess]:
    """Each command's UTF-8 run, made once and compared with both narrow encodings."""
    return {}


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a[:2]) for a in COMMANDS])
def test_text_views_under_a_narrow_encoding(argv, encoding, utf8_runs):
    proc = gpudoctor(argv, encoding)
    err = proc.stderr.decode(encoding)
    # The encoding changes characters, never the verdict: the exit code and the lines are those of a UTF-8 run.
    if argv not in utf8_runs:
        utf8_runs[argv] = gpudoctor(argv, "utf-8")
    utf8 = utf8_runs[argv]
    assert proc.returncode == utf8.returncode, err
    assert len(proc.stdout.splitlines()) == len(utf8.stdout.splitlines())
    assert "Traceback" not in err and "unexpected error" not in err and "UnicodeEncodeError" not in err, err
    out = proc.stdout.decode(encoding)  # decodes: nothing the encoding cannot carry was written
    assert out.strip() or err.strip()
