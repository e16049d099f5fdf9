"""A driver/library mismatch whose evidence does not say which side changed: the package repair waits for the
diagnostic answers (its first line says under what condition), since finishing a package upgrade over a .run
install would mix two drivers. Where both versions are known, their own branch says what the repair is for and the
repair carries no such condition. Real reports and recorded cases; argv and notes, not prose."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
from gpudoctor.pasted import Source, read_pasted

ROOT = Path(__file__).resolve().parents[2]
# tests/blind/plans10/cases/1008-*: a runfile install, the mismatch after an out-of-memory error, versions unknown
CASE = next((ROOT / "tests" / "blind" / "plans10" / "cases").glob("1008-*")) / "input.txt"
WAITS = "only where modinfo prints nothing or an older version than the libraries, and no nvidia-uninstall"


def _mismatch(report):
    assert not report.internal_errors, report.internal_errors
    return next(f for f in report.findings if f.code == "driver-library-mismatch")


def _repair_note(finding) -> str:
    return next(c.note for c in finding.remediation.commands if c.words == ("apt-get", "update"))


def test_the_repair_waits_where_the_evidence_does_not_say_which_side_changed():
    pasted = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("r", CASE.read_text(encoding="utf-8"))]), "r")))
    recorded = diagnose(
        ReplayHost(load_snapshot(str(ROOT / "tests" / "real" / "nvml-mismatch-ubuntu-minor-update" / "snapshot.json")))
    )
    for report in (pasted, recorded):
        f = _mismatch(report)
        words = [c.words for c in f.remediation.commands]
        assert words.index(("ls", "-l", "/usr/bin/nvidia-uninstall")) < words.index(("apt-get", "update"))
        assert _repair_note(f) == WAITS


def test_known_versions_repair_without_the_condition():
    # the recorded machine: module and library versions both known (quiet twin)
    report = diagnose(
        ReplayHost(load_snapshot(str(ROOT / "tests" / "machines" / "driver-library-mismatch-after-upgrade" / "snapshot.json")))
    )
    f = _mismatch(report)
    assert ("apt-get", "update") in [c.words for c in f.remediation.commands]
    assert all(c.note != WAITS for c in f.remediation.commands)
