"""docs/findings/nccl-memlock-too-low.md: NCCL's verbs call failing with ENOMEM beside the locked-memory limit shown as
a number of KiB is that limit (memlock unlimited is what memory registration needs); shown unlimited, or not shown, it
is not judged (the failure stays unexplained, its asks read the limit where the ranks run)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.parsers.catalogue import match
from gpudoctor.pasted import Source, read_pasted
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
CODE = "nccl-memlock-too-low"


def _report(text: str):
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))


def _limit(text: str) -> list[str]:
    return [dict(e.values).get("kb") or dict(e.values).get("said") or "" for e in match(text) if e.kind == "memlock-limit-said"]


@states(CODE, FIRES)
def test_nccls_verbs_enomem_beside_a_limit_of_kilobytes_raises_it_to_unlimited():
    # tests/blind/plans13/cases/1306-*: nccl-tests on one InfiniBand node with NCCL's shared memory off, NCCL's
    # "Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory", and the reporter's "the result of
    # `ulimit -l ` was only 8192"
    (path,) = ROOT.glob("tests/blind/plans13/cases/1306-*/input.txt")
    report = _report(path.read_text(encoding="utf-8"))
    (finding,) = (f for f in report.findings if f.code == CODE)
    assert "8192 KiB" in finding.title and finding.severity.name == "ERROR"
    assert "pasted-error-unexplained" not in {f.code for f in report.findings}
    r = finding.remediation
    assert r is not None and r.requires_root
    steps = [c for c in r.commands if isinstance(c, Cmd)]
    assert steps[0].argv == ("grep", "-r", "memlock", "/etc/security/limits.conf", "/etc/security/limits.d")
    assert steps[1].pipe == ("sudo", "tee", "/etc/security/limits.d/99-memlock.conf")
    assert "* hard memlock unlimited" in steps[1].argv[1]
    assert steps[2].argv == ("sh", "-c", "ulimit -l")  # read again in a new login, through the launcher


@states(CODE, QUIET)
def test_the_limit_shown_unlimited_or_not_shown_is_not_judged():
    enomem = "node1:1:2 [0] misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\n"
    for text in (enomem, enomem + "max locked memory       (kbytes, -l) unlimited\n"):
        codes = {f.code for f in _report(text).findings}
        assert CODE not in codes and "pasted-error-unexplained" in codes
    # a limit of kilobytes alone (no NCCL failure) is a machine's setting, not a finding
    assert CODE not in {f.code for f in _report("max locked memory       (kbytes, -l) 64\n").findings}


def test_the_limit_is_read_from_ulimit_a_and_from_the_reporters_words_never_from_a_command_that_sets_it():
    # openucx/ucx#8229 (https://github.com/openucx/ucx/issues/8229), a comment's `ulimit -a` (bash's table) beside
    # UCX's ibv_create_cq ENOMEM: its line of the locked-memory limit
    assert _limit("ulimit -a\nmax locked memory       (kbytes, -l) 64\nmax memory size         (kbytes, -m) unlimited\n") == [
        "64"
    ]
    assert _limit("before setting this,  the result of `ulimit -l ` was only 8192.\n") == ["8192"]
    assert _limit("ulimit -l: unlimited\n") == ["unlimited"]
    # quiet: a command that sets the limit shows no limit in force
    assert _limit("ulimit -l unlimited\n") == [] and _limit("ulimit -l 8192 && mpirun ./all_reduce_perf\n") == []
