"""A companion's `undefined symbol` with its own version unknown and torch's known: the release of it built for the
installed torch, from compat_matrix/torch.toml's companion rows (issue 27, kind 9). Real pasted reports from
tests/blind/plans (read only)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.read import Source

CASES = Path(__file__).resolve().parents[1] / "blind/plans/cases"


def _symbol_fix(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("issue.txt", text)]), "pasted text")))
    (finding,) = [f for f in report.findings if f.code == "extension-symbol-missing"]
    return finding.remediation


def _case(prefix: str) -> str:
    return next(CASES.glob(f"{prefix}-*/input.txt")).read_text()


def test_flash_attn_of_unknown_version_beside_torch_230_gets_the_first_release_built_for_23():
    # Dao-AILab/flash-attention#931 (case 001): torch 2.3.0, `flash_attn_2_cuda...so: undefined symbol:
    # _ZN3c104cuda9SetDeviceEi`. flash-attn 2.5.8 is the first release whose wheels are built for torch 2.3
    # (2.5.7's torch-2.3 wheel was built against a 2.3.0 nightly: the matrix row's note and sources).
    fix = _symbol_fix(_case("001"))
    assert [list(c.argv[1:]) for c in fix.commands] == [
        ["-m", "pip", "install", "--no-build-isolation", "--force-reinstall", "--no-deps", "flash-attn==2.5.8"]
    ]


def test_flash_attn_c10_error_beside_torch_230_from_a_pip_pin_line():
    # Dao-AILab/flash-attention#940 (case 003): "torch==2.3.0" and the c10::Error undefined symbol.
    fix = _symbol_fix(_case("003"))
    assert [c.argv[-1] for c in fix.commands] == ["flash-attn==2.5.8"]


def test_torchaudio_of_unknown_version_beside_torch_1131_gets_0131():
    # RangiLyu/nanodet#547 (case 033): libtorchaudio.so's undefined c10::SymBool::guard_bool; the reporter wrote
    # "My torch version is 1.13.1" in prose, which the pasted reader does not take, so the same fact is given as
    # the pip pin line it reads.
    fix = _symbol_fix(_case("033") + "\ntorch==1.13.1\n")
    assert [list(c.argv[1:]) for c in fix.commands] == [
        ["-m", "pip", "install", "--force-reinstall", "--no-deps", "torchaudio==0.13.1"]
    ]


def test_without_torch_s_version_no_companion_is_pinned():
    fix = _symbol_fix(_case("033"))
    assert fix is None or fix.commands == ()
