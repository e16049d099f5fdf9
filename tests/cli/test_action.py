"""action.yml: its `gpudoctor check` step, run by bash as the Actions runner would, on a replayed machine."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import machine

ROOT = Path(__file__).resolve().parents[2]
ACTION = (ROOT / "action.yml").read_text(encoding="utf-8")


def run_blocks(text: str) -> list[str]:
    """The literal `run: |` blocks of the composite steps, dedented (a YAML parser is not a test dependency)."""
    blocks = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)run: \|\s*$", line)
        if not m:
            continue
        body = []
        for nxt in lines[i + 1 :]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= len(m.group(1)):
                break
            body.append(nxt)
        indent = min(len(b) - len(b.lstrip()) for b in body if b.strip())
        blocks.append("\n".join(b[indent:] for b in body) + "\n")
    return blocks


def test_action_shape():
    assert "using: composite" in ACTION
    for name in ("requires:", "fail-on:", "ignore:", "python:"):
        assert f"\n  {name}" in ACTION
    install, check = run_blocks(ACTION)
    assert '-m pip install --quiet --disable-pip-version-check "$GITHUB_ACTION_PATH"' in install
    assert "--format github" in check
    assert "${{" not in check  # inputs only through env:


@pytest.fixture()
def runner(tmp_path):
    """RUNNER_TEMP with a gpudoctor that replays the healthy RTX 4090 machine, and the step's script."""
    venv_bin = tmp_path / "gpudoctor-venv" / "bin"
    venv_bin.mkdir(parents=True)
    shim = venv_bin / "gpudoctor"
    shim.write_text(
        f'#!/bin/sh\nexec {sys.executable} -m gpudoctor "$@" --replay {machine("rtx4090-torch-cu121")}\n', encoding="utf-8"
    )
    shim.chmod(0o755)
    script = tmp_path / "check.sh"
    script.write_text("set -eo pipefail\n" + run_blocks(ACTION)[1], encoding="utf-8")

    def run(requires: str = "", fail_on: str = "error", ignore: str = "", python: str = ""):
        output = tmp_path / "github_output"
        output.write_text("", encoding="utf-8")
        env = {
            **{k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"},
            "RUNNER_TEMP": str(tmp_path),
            "GITHUB_OUTPUT": str(output),
            "GPUDOCTOR_REQUIRE": requires,
            "GPUDOCTOR_FAIL_ON": fail_on,
            "GPUDOCTOR_IGNORE": ignore,
            "GPUDOCTOR_PYTHON": python,
        }
        proc = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=60)
        return proc, output.read_text(encoding="utf-8")

    return run


def test_action_step_passes_a_healthy_machine(runner):
    proc, output = runner(requires="gpu\ntorch:cuda\n  torch >= 2.2, <3\n")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert output == "exit-code=0\n"
    assert proc.stdout.splitlines() == [
        "gpudoctor: requirement met: gpu (1 GPU(s): NVIDIA GeForce RTX 4090)",
        "gpudoctor: requirement met: torch:cuda (torch 2.2.1+cu121 (CUDA 12.1))",
        "gpudoctor: requirement met: torch>=2.2,<3 (torch 2.2.1+cu121 in /opt/venv/bin/python)",
        "gpudoctor: 0 error(s), 0 warning(s), 0 note(s); 3 of 3 requirement(s) met; exit status 0",
    ]


def test_action_step_fails_on_an_unmet_requirement_and_sets_the_output(runner):
    proc, output = runner(requires="bf16 gpus>=2")
    assert proc.returncode == 1
    assert output == "exit-code=1\n"
    assert proc.stdout.startswith("::error title=requirement-unmet::requirement not met: gpus>=2%0A")


def test_action_step_ignore_and_usage_errors(runner):
    proc, output = runner(requires="gpus>=2", ignore="requirement-unmet probe-failed")
    assert (proc.returncode, output) == (0, "exit-code=0\n")
    proc, output = runner(requires="gpus>=two")
    assert (proc.returncode, output) == (2, "exit-code=2\n")
    assert "Invalid value for '--require'" in proc.stderr
    proc, output = runner(fail_on="fatal")
    assert (proc.returncode, output) == (2, "exit-code=2\n")
