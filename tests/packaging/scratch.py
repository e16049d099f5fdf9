"""Shared by the packaging tests: a copy of the checkout as a fresh clone has it, gpudoctor's wheel built from
that copy, and scratch virtual environments filled from the package index pip is configured with.

Nothing here names an index: pip (and uv, pipx) use their own configuration. When the index cannot be
reached, the test that needed it skips and says so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "tests" / "machines" / "h100x8-driver565-torch221-cu121" / "snapshot.json"

# What pip, uv and pipx print when the index cannot be reached (or answers nothing for a name it should know).
_OFFLINE = re.compile(
    r"No matching distribution|Could not find a version|Failed to establish|Temporary failure in name resolution|"
    r"Name or service not known|Network is unreachable|Max retries exceeded|ConnectionError|ReadTimeout|"
    r"timed out|Failed to fetch|error sending request|dns error|Could not fetch|unable to get local issuer",
    re.IGNORECASE,
)


def run(cmd: list[str], *, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    """A command with pip's prompts and version check off; `env` adds variables (a None value removes one)."""
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", **kw.pop("env", {})}
    env.pop("PIP_REQUIRE_VIRTUALENV", None)
    env = {k: v for k, v in env.items() if v is not None}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, **kw)


def need_index(proc: subprocess.CompletedProcess, what: str) -> subprocess.CompletedProcess:
    """Skip when `proc` failed for want of the package index; fail on any other failure."""
    if proc.returncode == 0:
        return proc
    output = proc.stdout + proc.stderr
    tail = " | ".join(output.strip().splitlines()[-3:])
    if _OFFLINE.search(output):
        pytest.skip(f"{what}: the package index could not be reached or lacks a package ({tail[-300:]})")
    pytest.fail(f"{what} failed (exit {proc.returncode}):\n{output[-4000:]}")


def clone_files() -> list[str]:
    """The files a clone of this checkout would hold, with the uncommitted work in it (tracked, and untracked
    but not ignored), as paths relative to ROOT."""
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        timeout=60,
    )
    if proc.returncode != 0:
        # Not a git checkout (an unpacked source archive): everything but what .gitignore leaves out.
        ignored = {".git", ".venv", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis", ".whl"}
        return [
            p.relative_to(ROOT).as_posix()
            for p in ROOT.rglob("*")
            if p.is_file() and not ignored & set(p.relative_to(ROOT).parts) and not any(x.endswith(".egg-info") for x in p.parts)
        ]
    return [p for p in proc.stdout.decode().split("\0") if p and (ROOT / p).is_file()]


def fresh_clone(dest: Path) -> Path:
    for rel in clone_files():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    return dest


def make_venv(path: Path) -> Path:
    """A virtual environment without pip (the outer pip fills it with --python): quicker than ensurepip."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    return path / "bin" / "python"


def pip_install(python: Path, *args: str, what: str) -> subprocess.CompletedProcess:
    proc = run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", *args])
    return need_index(proc, what)
