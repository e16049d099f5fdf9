"""The cupy package without its own subpackages (issue 27, two packages of one library; catalogue.toml
cupy-module-incomplete): every CuPy distribution installs site-packages/cupy, so all of them are listed and uninstalled
before the one for the CUDA in use goes back, with the listing in the person's shell.

Real reports, whole: https://github.com/cupy/cupy/issues/7017 (cupy-cuda117, no 'cuda') and
tests/blind/plans10/cases/1020-cupy3541-windows10-py37-gohlke-cupy-and-cupy-cuda101-both-installed-no-random (Windows,
no 'random'); the quiet twin: an attribute a CuPy release removed (cupy.util, xw-hu/FSDNet#1), which is the program's."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

_TESTS = Path(__file__).resolve().parents[1]


def _codes(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return {f.code: f for f in report.findings}


def _cmds(finding) -> list[Cmd]:
    return [c for c in finding.remediation.commands if isinstance(c, Cmd)]


def test_cupy_cuda117_without_its_cuda_subpackage_lists_and_uninstalls_every_cupy():
    codes = _codes((_TESTS / "pasted/catalogue_examples/cupy-7017-cupy-cuda117-no-attribute-cuda.txt").read_text("utf-8"))
    f = codes["nvidia-wheels-conflict"]
    listing, nvcc, uninstall = _cmds(f)
    assert listing.words == ("python3", "-m", "pip", "list") and listing.pipe == ("grep", "-i", "cupy")
    assert nvcc.words == ("nvcc", "--version")
    assert uninstall.words == ("python3", "-m", "pip", "uninstall", "-y", "<every-cupy-package-listed>")
    assert "pasted-error-unexplained" not in codes


def test_windows_lists_with_findstr():
    case = _TESTS / "blind/plans10/cases/1020-cupy3541-windows10-py37-gohlke-cupy-and-cupy-cuda101-both-installed-no-random"
    listing = _cmds(_codes((case / "input.txt").read_text("utf-8"))["nvidia-wheels-conflict"])[0]
    assert listing.words == ("python", "-m", "pip", "list") and listing.pipe == ("findstr", "/i", "cupy")


def test_an_attribute_cupy_removed_is_quiet():
    codes = _codes("  File \"train.py\", line 12, in <module>\nAttributeError: module 'cupy' has no attribute 'util'\n")
    assert "nvidia-wheels-conflict" not in codes
