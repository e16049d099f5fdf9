"""The shell a build runs nvcc from finds none on PATH (issue 27, toolkits; catalogue.toml shell-nvcc-not-found): the
toolkit's bin goes first on PATH in that shell and the build is rerun from there; a Jetson named beside a discrete GPU
is another machine, so the Jetson's own ask is left out.

Real reports, whole: https://github.com/flatironinstitute/cufinufft/issues/148 (sudo make, dash's message),
https://github.com/AlexeyAB/darknet/issues/8018 (a Jetson Xavier, nvcc working in the terminal) and
tests/blind/plans10/cases/1053-darknet702-ubuntu-gtx1070-cuda80-make-nvcc-not-found-and-cudnn-half-sm70 (a GTX 1070 PC
beside a Jetson TX2 that worked); the quiet twin: https://github.com/Microway/gpu-burn/issues/8 (the Makefile names
/bin/nvcc, a path that is not there: "No such file or directory", not a PATH search)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, PrependPath
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.planner.remedy import KEEP

_TESTS = Path(__file__).resolve().parents[1]
_EXAMPLES = _TESTS / "pasted" / "catalogue_examples"


def _run(path: Path):
    snapshot = validate_snapshot(read_pasted([Source("t", path.read_text("utf-8"))]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [" ".join(a.command.argv) for a in ask_for(report.facts, report.findings)]
    return {f.code: f for f in report.findings}, asks


def _path_steps(finding) -> tuple:
    cmds = finding.remediation.commands
    # the PATH line kept for new shells (no Python of its own shown: ~/.bashrc), as NVIDIA's post-installation actions do
    kept = ("python3", "-c", KEEP["bashrc"], 'export PATH=/usr/local/cuda/bin"${PATH:+:$PATH}"')
    assert [c.argv for c in cmds if isinstance(c, Cmd)] == [("ls", "-l", "/usr/local/cuda/bin/nvcc"), kept, ("nvcc", "--version")]
    return tuple((c.name, c.parts) for c in cmds if isinstance(c, PrependPath))


def test_sudo_make_without_nvcc_puts_the_toolkit_on_path():
    codes, _ = _run(_EXAMPLES / "cufinufft-148-sudo-make-sh-nvcc-not-found.txt")
    f = codes["toolkit-missing-for-build"]
    assert _path_steps(f) == (("PATH", ("/usr/local/cuda/bin",)),)
    assert "sudo" in f.remediation.summary
    assert "pasted-error-unexplained" not in codes


def test_a_jetson_keeps_its_own_ask():
    codes, asks = _run(_EXAMPLES / "darknet-8018-jetson-xavier-make-sh-nvcc-not-found.txt")
    assert _path_steps(codes["toolkit-missing-for-build"]) == (("PATH", ("/usr/local/cuda/bin",)),)
    assert "cat /etc/nv_tegra_release" in asks and "nvidia-smi" not in asks


def test_a_pc_beside_a_jetson_that_worked_is_asked_as_a_pc():
    case = _TESTS / "blind/plans10/cases/1053-darknet702-ubuntu-gtx1070-cuda80-make-nvcc-not-found-and-cudnn-half-sm70"
    codes, asks = _run(case / "input.txt")
    assert _path_steps(codes["toolkit-missing-for-build"]) == (("PATH", ("/usr/local/cuda/bin",)),)
    assert "cat /etc/nv_tegra_release" not in asks


def test_a_makefile_naming_a_missing_nvcc_path_is_not_a_path_search():
    codes, _ = _run(_EXAMPLES / "gpu-burn-8-make-bin-nvcc-no-such-file.txt")
    assert "toolkit-missing-for-build" not in codes
