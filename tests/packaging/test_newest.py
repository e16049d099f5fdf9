"""Issue 31, item 7: gpudoctor's wheel installs beside the newest typer and rich without downgrading them.

A user who already has the newest typer and rich (another tool needs them) installs gpudoctor into the same
environment: pip must keep both (no upper bound in pyproject.toml forces an older one), and gpudoctor must
run on them: --version, --help and check --replay of a recorded machine in text and JSON. Skipped, with the
reason, when the package index cannot be reached.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from packaging.version import Version

from tests.packaging.scratch import make_venv, need_index, pip_install, run

pytestmark = pytest.mark.packaging

MACHINE = Path("tests") / "machines" / "h100x8-driver565-torch221-cu121" / "snapshot.json"


def _newest(name: str) -> Version:
    proc = need_index(run([sys.executable, "-m", "pip", "index", "versions", name], timeout=120), f"asking the index for {name}")
    found = re.search(r"Available versions: (.*)", proc.stdout)
    assert found, proc.stdout
    return max(Version(v.strip()) for v in found.group(1).split(",") if not Version(v.strip()).is_prerelease)


def _version(python: Path, name: str) -> Version:
    code = f"import importlib.metadata as m; print(m.version({name!r}))"
    return Version(run([str(python), "-c", code], timeout=60).stdout.strip())


def test_the_wheel_keeps_the_newest_typer_and_rich(wheel: Path, clone: Path, tmp_path: Path):
    typer, rich = _newest("typer"), _newest("rich")
    python = make_venv(tmp_path / "venv")
    pip_install(python, f"typer=={typer}", f"rich=={rich}", what="installing the newest typer and rich")
    assert (_version(python, "typer"), _version(python, "rich")) == (typer, rich)

    pip_install(python, str(wheel), what="installing gpudoctor's wheel beside them")
    assert (_version(python, "typer"), _version(python, "rich")) == (typer, rich), "the wheel downgraded typer or rich"

    exe = str(python.parent / "gpudoctor")
    assert run([exe, "--version"], timeout=60).returncode == 0
    helped = run([exe, "--help"], timeout=60)
    assert helped.returncode == 0 and "check" in helped.stdout, helped.stderr[-2000:]
    snapshot = str(clone / MACHINE)
    text = run([exe, "check", "--replay", snapshot], timeout=60, env={"GITHUB_STEP_SUMMARY": None})
    assert text.returncode in (0, 1) and text.stdout.strip(), text.stderr[-2000:]
    doc = run([exe, "check", "--replay", snapshot, "--format", "json"], timeout=60, env={"GITHUB_STEP_SUMMARY": None})
    assert doc.returncode in (0, 1), doc.stderr[-2000:]
    assert json.loads(doc.stdout)["exit_code"] == doc.returncode
