"""Issue 27 (h245): the native-Windows TensorFlow 2.10 route's pip line is written for cmd.exe and PowerShell alike.

checks.frameworks' framework-windows-native-gpu tells, beside the WSL 2 route, how to stay on native Windows with
TensorFlow 2.10; that line runs on the Windows host, where a single-quoted 'tensorflow==2.10.*' is no one argument in
cmd.exe (plans17/1716's reviewers). It is now written by the quoting layer for both shells (double quotes). The WSL
lines (run in Ubuntu's bash) keep bash's quoting: the quiet twin.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.test_corpus import run_cli

BLIND = Path(__file__).resolve().parent.parent / "blind"


@pytest.mark.parametrize(
    "case",
    [
        "plans17/cases/1716-tf60830-windows10-py31010-tf2120-cuda121-two-gtx1070ti-no-gpu-native-windows-after-tf210",
        "plans14/cases/1414-tf58729-windows11-py39-tf2110-rtx3050ti-laptop-cuda112-cudnn81-no-native-windows-gpu-after-210",
    ],
)
def test_the_native_windows_pip_line_runs_in_cmd_and_powershell(case):
    code, out, err = run_cli("check", "--from", str(BLIND / case / "input.txt"), "--format", "json")
    doc = json.loads(out)
    (finding,) = [f for f in doc["findings"] if f["code"] == "framework-windows-native-gpu"]
    summary = finding["remediation"]["summary"]
    assert 'python -m pip install "tensorflow==2.10.*"' in summary
    assert "pip install 'tensorflow==2.10.*'" not in summary
    assert "~/tf/bin/python -m pip install 'tensorflow[and-cuda]'" in summary  # bash's, inside WSL's Ubuntu
