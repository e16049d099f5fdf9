"""CuPy's own words when its import fails (catalogue cupy-import-failed: "Failed to import CuPy." from v10, "CuPy is not
correctly installed." before): `import cupy` fails, so cupy.show_config() is not asked; the CuPy packages installed
(without importing CuPy) and the toolkit they load are. Real reports: tests/blind/plans4 case 324 (cupy-cuda12x
without libcudart.so.12), tests/blind/plans20 case 2054 (cupy-cuda112 on Windows, a DLL procedure not found)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

BLIND = Path(__file__).resolve().parents[1] / "blind"


@pytest.mark.parametrize(("folder", "number"), [("plans4", "324"), ("plans20", "2054")])
def test_a_failed_cupy_import_asks_for_the_packages_not_show_config(folder, number):
    text = next((BLIND / folder / "cases").glob(f"{number}-*")).joinpath("input.txt").read_text(encoding="utf-8")
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert "cupy-import-failed" in [e["kind"] for e in snapshot["pasted"]["errors"]]
    argvs = [tuple(map(str, a.command.words)) for a in ask_for(report.facts, report.findings)]
    steps = [
        tuple(map(str, c.words)) for f in report.findings if f.remediation for c in f.remediation.commands if hasattr(c, "words")
    ]
    asked = argvs + steps
    assert not any("cupy.show_config()" in " ".join(a) for a in asked)
    assert ("nvcc", "--version") in asked  # the toolkit whose libraries the CuPy wheel loads
