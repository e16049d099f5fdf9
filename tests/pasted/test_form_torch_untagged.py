"""An issue form's "PyTorch Version: 2.1.1" is what the reporter typed, not the installed distribution: without its
local tag on Windows or macOS it is not read as PyPI's CPU-only wheel (issue 28, class "facts invented from a
template"). A tool's listing of the same torch (pip list) still is, read before or after the form."""

from __future__ import annotations

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

_FORM = (
    "## Environment\n\n**TensorRT Version**: 10.0.1\n**GPU Type**: NVIDIA GeForce RTX 3060\n"
    "**Nvidia Driver Version**: 551.86\n**Operating System + Version**: {os}\n"
    "**Python Version (if applicable)**: 3.10\n**PyTorch Version (if applicable)**: {torch}\n"
)
_PIP_LIST = "C:\\Users\\me> pip list\nPackage    Version\n---------- -------\ntorch      2.1.1\nnumpy      1.26.0\n"


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return snapshot, {f.code: f for f in report.findings}


@pytest.mark.parametrize("os_said", ["Windows 11", "Windows 10 22H2", "macOS 14.2"])
def test_an_untagged_torch_in_a_form_is_no_cpu_build(os_said):
    snapshot, codes = _run(_FORM.format(os=os_said, torch="2.1.1"))
    assert "framework-cpu-build" not in codes
    assert "torch" not in (snapshot.get("python") or {}).get("distributions", {})


def test_a_cpu_tag_in_the_form_is_still_the_cpu_build():
    snapshot, codes = _run(_FORM.format(os="Windows 11", torch="2.1.1+cpu"))
    assert snapshot["python"]["distributions"]["torch"] == "2.1.1+cpu"
    assert "framework-cpu-build" in codes


def test_on_linux_the_form_keeps_its_torch_as_stated():
    snapshot, codes = _run(_FORM.format(os="Ubuntu 22.04", torch="2.1.1"))
    assert snapshot["python"]["distributions"]["torch"] == "2.1.1"
    assert "framework-cpu-build" not in codes


@pytest.mark.parametrize("form_first", [True, False])
def test_pip_lists_untagged_windows_torch_is_still_the_cpu_build_beside_a_form(form_first):
    form = _FORM.format(os="Windows 11", torch="2.1.1")
    text = form + "\n" + _PIP_LIST if form_first else _PIP_LIST + "\n" + form
    snapshot, codes = _run(text)
    assert snapshot["python"]["distributions"]["torch"] == "2.1.1"
    assert "framework-cpu-build" in codes
