"""Pure check logic on its own, and the guarantees of the check runner."""

from __future__ import annotations

import pytest

from gpudoctor.checks import Check, all_checks, run_checks
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
    monkeypatch.setattr(checks, "all_checks", lambda: (Check("boom", "doctor", (), boom),) + real)
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
    monkeypatch.setattr(checks, "all_checks", lambda: (Check("sneaky", "doctor", ("other",), sneaky),))
    findings, internal = run_checks(facts)
    assert [f.code for f in findings] == ["internal-check-error"]
    assert "undeclared" in internal[0]


def test_check_names_and_codes_are_unique():
    names = [c.name for c in all_checks()]
    assert len(names) == len(set(names))
    codes = all_codes()
    assert len(codes) == len(set(codes))
    assert all(c == c.lower() and " " not in c for c in codes)
