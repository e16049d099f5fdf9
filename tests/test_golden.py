"""The golden record (tools/golden.py, docs/testing.md): every recorded machine, real case and pasted case
prints, through the real CLI, exactly what tests/golden/ holds: the JSON report, the text view, the other
formats recorded there and the exit codes. A change of behaviour that is meant is recorded anew with
`python tools/golden.py --update` and reviewed as a diff."""

from __future__ import annotations

import json

import pytest

from tools import golden

CASES = list(golden.cases())


@pytest.fixture(scope="module")
def runner() -> golden.Runner:
    # One diagnosis per case, rendered in each recorded format (tools/golden.py: the record is written with a
    # diagnosis per format, so a renderer that changes what it is handed fails here).
    return golden.Runner(share_diagnosis=True)


@pytest.mark.parametrize(("kind", "case", "args"), CASES, ids=[f"{k}/{c}" for k, c, _ in CASES])
def test_case_prints_its_golden_record(runner, kind, case, args):
    files, exits = golden.record(runner, kind, args)
    folder = golden.GOLDEN / kind
    for suffix, got in files.items():
        assert got == (folder / f"{case}{suffix}").read_text(encoding="utf-8"), f"{kind}/{case}{suffix}"
    assert exits == json.loads((folder / "exit_codes.json").read_text(encoding="utf-8"))[case]


def test_every_case_has_a_record_and_every_record_a_case():
    recorded = {(p.parent.name, p.name.split(".", 1)[0]) for p in golden.GOLDEN.glob("*/*.*") if p.name != "exit_codes.json"}
    assert recorded == {(kind, case) for kind, case, _ in CASES}
    for kind in {kind for kind, _, _ in CASES}:
        codes = json.loads((golden.GOLDEN / kind / "exit_codes.json").read_text(encoding="utf-8"))
        assert set(codes) == {case for k, case, _ in CASES if k == kind}
