"""Windows and WSL reports of the fifth blind set's kinds (issues 27/28): minimal pastes, data asserted."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner import where
from gpudoctor.planner.prescribe import build


def _run(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    target = where.shell(report.facts)
    plan = build(report.findings, target)
    return report, [c for s in plan.steps for c in s.commands if isinstance(c, Cmd)]


def _codes(report) -> list[str]:
    return [f.code for f in report.findings if f.severity >= Severity.WARNING]


_NO_DRIVER = (
    'File "/home/me/miniconda3/envs/tg/lib/python3.10/site-packages/torch/cuda/__init__.py", line 229, in _lazy_init\n'
    "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver\n"
)


@pytest.mark.parametrize("said", ["I'm using wsl 1 on windows 10.", "Ubuntu under WSL1"])
def test_a_reporter_saying_wsl_1_gets_the_conversion_to_wsl_2_on_windows(said):
    report, steps = _run(said + "\n" + _NO_DRIVER)
    assert report.facts.platform.wsl == 1
    assert "wsl1-no-cuda" in _codes(report)
    assert [c.argv for c in steps] == [("wsl", "--update"), ("wsl", "--set-version", Placeholder("distro"), "2")]


@pytest.mark.parametrize(
    "said", ["I'm using WSL 2 on windows 10.", "wsl 1.2.5 installed, Ubuntu in WSL", "WSL 1 before, now WSL 2"]
)
def test_wsl_2_or_the_wsl_package_version_is_not_wsl_1(said):
    report, _ = _run(said + "\n" + _NO_DRIVER)
    assert report.facts.platform.wsl == 2
    assert "wsl1-no-cuda" not in {f.code for f in report.findings}
