"""The driver step on Windows, from a real Windows report (tests/machines/windows-forge-torch21-cu121-driver-cuda114):
no package manager installs NVIDIA's Windows driver, so the step names the Windows floor and where the driver comes
from; no restart command alone (issue 27, kind 7: a restart before the install would come back on the same driver;
NVIDIA's installer asks for the restart it needs), never a `reboot`."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import render_all
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot

MACHINE = Path(__file__).resolve().parents[1] / "machines" / "windows-forge-torch21-cu121-driver-cuda114"


def _driver_step():
    report = diagnose(ReplayHost(load_snapshot(str(MACHINE / "snapshot.json"))))
    (finding,) = [f for f in report.findings if f.code == "framework-driver-too-old"]
    remedy = finding.remediation
    assert remedy is not None
    # The reinstall of a build this driver runs comes first; the driver upgrade is its alternative.
    return remedy.alternative if remedy.component != "driver" else remedy


def test_windows_driver_step_has_no_restart_without_the_install():
    step = _driver_step()
    assert step is not None and step.component == "driver"
    assert step.requires_root  # as an Administrator
    assert [c.argv for c in step.commands] == []
    assert render_all(step.commands, "powershell") == []


def test_windows_driver_step_names_the_windows_floor_and_no_distribution():
    summary = _driver_step().summary
    assert ">= 527.41" in summary  # CUDA 12's Windows minor-version-compatibility floor, not Linux's 525.60.13
    assert "525.60.13" not in summary
    assert "distribution" not in summary
    assert "NVIDIA's Windows driver" in summary
