"""MIG in a pasted nvidia-smi table: what the table shows of the MIG devices decides whether instances are created."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

# A real A30 capture with MIG on and no instances (tests/fixtures/PROVENANCE.md).
A30 = (
    Path(__file__).parents[1] / "fixtures" / "nvidia-smi-text" / "a30_driver-535.183.01_cuda-12.2_mig-enabled-no-mig-devices.txt"
)


def _mig(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return [f for f in report.findings if f.code == "mig-enabled"]


def _argvs(f) -> list[tuple[str, ...]]:
    return [c.words for c in f.remediation.commands if isinstance(c, Cmd)]


def test_a_table_cut_before_its_mig_devices_asks_for_them_and_creates_nothing():
    text = A30.read_text(encoding="utf-8")
    (f,) = _mig("RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED\n" + text.split("MIG devices:")[0])
    assert ("nvidia-smi", "-L") in _argvs(f)
    assert [c.name for c in f.remediation.commands if isinstance(c, SetEnv)] == ["CUDA_VISIBLE_DEVICES"]
    assert not any("-cgi" in a or "-mig" in a for a in _argvs(f))
    assert not f.remediation.requires_root


def test_a_whole_table_showing_no_mig_devices_still_creates_instances():
    (f,) = _mig(A30.read_text(encoding="utf-8"))
    assert any("-cgi" in a for a in _argvs(f))
    assert f.remediation.requires_root


def test_a_table_without_mig_mode_says_nothing_of_mig():
    text = A30.read_text(encoding="utf-8").split("MIG devices:")[0].replace("Enabled", "Disabled")
    assert _mig(text) == []
