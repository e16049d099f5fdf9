"""Pure check logic on its own, and the guarantees of the check runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.checks import Check, all_checks, run_checks
from gpudoctor.checks.base import PASTED, Context
from gpudoctor.checks.frameworks import runs_on
from gpudoctor.checks.platform import visible_devices
from gpudoctor.cli.common import all_codes
from gpudoctor.doctor import diagnose
from gpudoctor.model import Severity
from tests.conftest import replay_host


@pytest.mark.parametrize(
    "value, valid, invalid, why",
    [
        ("0,1", ["0", "1"], [], "both exist"),
        ("2,0", [], ["2", "0"], "CUDA stops at the first invalid entry, so 0 is ignored too"),
        ("1,5,0", ["1"], ["5", "0"], "valid until 5"),
        ("", [], [""], "empty hides everything"),
        ("-1", [], ["-1"], "the documented way to hide all"),
        ("GPU-abc", ["GPU-abc"], [], "a UUID prefix matches"),
        ("NoDevFiles", [], ["NoDevFiles"], "what some schedulers set for no GPU"),
    ],
)
def test_cuda_visible_devices_as_cuda_reads_it(value, valid, invalid, why):
    gpus = [(0, "GPU-abcdef"), (1, "GPU-123456")]
    assert visible_devices(value, gpus, 0) == (valid, invalid), why


@pytest.mark.parametrize(
    "archs, cc, expected, why",
    [
        (["sm_80"], "8.6", True, "a cubin runs on the same major with a higher minor"),
        (["sm_86"], "8.0", False, "not on a lower minor"),
        (["sm_80"], "9.0", False, "not across majors without PTX"),
        (["sm_70", "compute_70"], "9.0", True, "PTX is JIT-compiled for newer GPUs"),
        (["sm_90a"], "9.0", True, "arch-specific cubin on exactly its GPU"),
        (["sm_90a"], "10.0", False, "arch-specific cubins are not forward compatible"),
        (["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"], "12.0", False, "torch cu121 on Blackwell"),
        (["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"], "8.6", True, "TF 2.11 on Ampere consumer cards via PTX"),
        ([], "8.0", None, "an empty list says nothing"),
    ],
)
def test_kernels_run_on(archs, cc, expected, why):
    assert runs_on(archs, cc) is expected, why


def test_a_crashing_check_becomes_a_finding_and_others_still_run(monkeypatch):
    import gpudoctor.checks as checks

    def boom(facts, ctx):
        raise RuntimeError("bad day")
        yield  # pragma: no cover

    real = checks.all_checks()
    monkeypatch.setattr(checks, "all_checks", lambda pasted=True: (Check("boom", "doctor", (), boom),) + real)
    report = diagnose(replay_host({"format": "gpudoctor-snapshot/1"}))
    codes = [f.code for f in report.findings]
    assert "internal-check-error" in codes
    assert report.internal_errors == ["boom: RuntimeError: bad day"]
    assert "probe-failed" in codes  # the real checks ran after the broken one (an empty snapshot has no PCI bus)


def test_undeclared_code_is_an_internal_error(monkeypatch):
    import gpudoctor.checks as checks
    from gpudoctor.model import Finding

    def sneaky(facts, ctx):
        yield Finding("not-declared", Severity.INFO, "doctor", "t", "d")

    from gpudoctor.probes import run_probes

    facts = run_probes(replay_host({"format": "gpudoctor-snapshot/1"}))
    monkeypatch.setattr(checks, "all_checks", lambda pasted=True: (Check("sneaky", "doctor", ("other",), sneaky),))
    findings, internal = run_checks(facts)
    assert [f.code for f in findings] == ["internal-check-error"]
    assert "undeclared" in internal[0]


def test_check_names_and_codes_are_unique():
    names = [c.name for c in all_checks()]
    assert len(names) == len(set(names))
    codes = all_codes()
    assert len(codes) == len(set(codes))
    assert all(c == c.lower() and " " not in c for c in codes)


# --- the checks of pasted text: a whole machine's check leaves them out ------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def test_a_whole_machines_checks_are_every_check_but_those_of_pasted_text():
    # all_checks(pasted=False) does not import the modules of pasted text's checks (catalogued, installers, reported,
    # stated, workloads): a check there without the tag would go unrun on a whole machine, and this would fail.
    machine = all_checks(pasted=False)
    assert machine == tuple(c for c in all_checks() if PASTED not in c.tags)
    assert len(machine) < len(all_checks())


def _facts(snapshot: Path):
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot

    return diagnose(ReplayHost(validate_snapshot(json.loads(snapshot.read_text(encoding="utf-8"))))).facts


def test_on_every_whole_recorded_machine_the_checks_of_pasted_text_find_nothing():
    # Why leaving them out changes no report of a whole machine: each reads the facts' pasted section, which a whole
    # machine's facts leave empty. Every recorded machine and real case that is not a paste, each such check run on it.
    snapshots = sorted([*ROOT.glob("tests/machines/*/snapshot.json"), *ROOT.glob("tests/real/*/snapshot.json")])
    pasted = [c for c in all_checks() if PASTED in c.tags]
    fired, whole = [], 0
    for snapshot in snapshots:
        facts = _facts(snapshot)
        if facts.pasted.partial:
            continue
        whole += 1
        for check in pasted:
            found = check.run(facts, Context(None), ()) if check.after_others else check.run(facts, Context(None))  # type: ignore[call-arg]
            fired += [(snapshot.parent.name, check.name, f.code) for f in found]
    assert whole > 100 and len(pasted) > 100  # (115 machines and 124 checks when written)
    assert fired == []


def test_a_paste_is_judged_by_the_checks_of_pasted_text_too():
    # The quiet twin: TensorFlow's own words on a paste (cuDNN 7.4.1 loaded, 7.6.4 built against) are judged by
    # reported-cudnn, a check of pasted text, which a partial snapshot runs.
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted import load_sources, read_pasted

    paste = ROOT / "tests/pasted/cases/automl-33-tf-cudnn741-vs-764-wrapped/report.txt"
    report = diagnose(ReplayHost(validate_snapshot(read_pasted(load_sources([str(paste)])), "pasted text")))
    assert report.facts.pasted.partial
    assert [f.code for f in report.findings] == ["cudnn-too-old"]
    (check,) = [c for c in all_checks() if c.name == "reported-cudnn"]
    assert PASTED in check.tags
    assert [f.code for f in check.run(report.facts, Context(None))] == ["cudnn-too-old"]
    assert check not in all_checks(pasted=False)
