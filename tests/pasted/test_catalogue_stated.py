"""Messages that state their own fix (src/gpudoctor/parsers/catalogue.toml, the after-round block of h215;
gpudoctor.checks.catalogued.stated): the library's guard names the variable it wants and the plan sets it, as a
variable of a fixed name and value. Each on real reports (a catalogue example, a recorded blind case) with a quiet
twin where the same words are no such failure."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "pasted" / "catalogue_examples"
# blind set 15's recorded cases (their first run is evidence already): the report as its reporter pasted it
CASE_1542 = next((ROOT / "tests/blind/plans15/cases").glob("1542-*")) / "input.txt"
CASE_1526 = next((ROOT / "tests/blind/plans15/cases").glob("1526-*")) / "input.txt"


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    kinds = {e["kind"] for e in snapshot["pasted"]["errors"]}
    return kinds, {f.code: f for f in report.findings}


def _set(finding) -> list[tuple[str, str | None]]:
    return [(c.name, c.value) for c in finding.remediation.commands if isinstance(c, SetEnv)]


# --- accelerate's guard on GeForce RTX 40-series cards ------------------------------------------------------------


def test_accelerates_p2p_ib_guard_sets_both_variables_it_names():
    # https://github.com/cocktailpeanut/fluxgym/issues/283: the whole message, several RTX 4090s
    kinds, codes = _run((EXAMPLES / "fluxgym-283-accelerate-rtx4000-p2p-ib-guard.txt").read_text(encoding="utf-8"))
    assert "accelerate-p2p-ib-refused" in kinds
    f = codes["nccl-transport-disabled"]
    assert f.severity is Severity.WARNING
    assert _set(f) == [("NCCL_P2P_DISABLE", "1"), ("NCCL_IB_DISABLE", "1")]
    assert "pasted-error-unexplained" not in codes


def test_accelerates_guard_quoted_as_a_title_alone_is_read():
    # the guard's first sentence as an issue's title over an environment template (blind set 15's case 1542)
    kinds, codes = _run(CASE_1542.read_text(encoding="utf-8"))
    assert "accelerate-p2p-ib-refused" in kinds
    assert _set(codes["nccl-transport-disabled"]) == [("NCCL_P2P_DISABLE", "1"), ("NCCL_IB_DISABLE", "1")]


def test_the_variables_said_without_accelerates_guard_are_not_it():
    # quiet twin: the variables set by a reporter on a hang, without the guard, are NCCL's own matter
    text = (
        "Training hangs at the first all_reduce on two RTX 4090s.\n"
        "export NCCL_P2P_DISABLE=1\nexport NCCL_IB_DISABLE=1\n"
        "With these set it trains.\n"
    )
    kinds, codes = _run(text)
    assert "accelerate-p2p-ib-refused" not in kinds
    assert not any(("NCCL_IB_DISABLE", "1") in _set(f) for f in codes.values() if f.remediation)


# --- TCPStore without libuv ---------------------------------------------------------------------------------------


def test_tcpstore_without_libuv_on_windows_sets_use_libuv_0():
    # https://github.com/cocktailpeanut/fluxgym/issues/302: torch 2.5.1 on Windows, torchrun's static rendezvous
    text = (EXAMPLES / "fluxgym-302-windows-torch251-static-rendezvous-tcpstore-without-libuv.txt").read_text(encoding="utf-8")
    kinds, codes = _run(text)
    assert "tcpstore-libuv-missing" in kinds
    f = codes["framework-windows-native-gpu"]
    assert _set(f) == [("USE_LIBUV", "0")]
    assert "pasted-error-unexplained" not in codes


def test_tcpstore_without_libuv_on_a_github_runner():
    # blind set 15's case 1526: the rendezvous's traceback on a hosted Windows runner, nothing else
    _, codes = _run(CASE_1526.read_text(encoding="utf-8"))
    assert _set(codes["framework-windows-native-gpu"]) == [("USE_LIBUV", "0")]


def test_tcpstores_deprecation_of_the_argument_is_not_the_failure():
    # quiet twin: torch's warning that the use_libuv argument is ignored (torch/distributed/elastic/utils/
    # distributed.py) names libuv too, on a Linux run that goes on
    text = (
        "/usr/lib/python3.10/site-packages/torch/distributed/elastic/utils/distributed.py:40: UserWarning: argument "
        'use_libuv is deprecated and ignored. Set USE_LIBUV environment variable to "0" to disable libuv, or "1" to '
        "enable it. If the env var is not set, libuv will be used by default.\n"
    )
    kinds, codes = _run(text)
    assert "tcpstore-libuv-missing" not in kinds
    assert "framework-windows-native-gpu" not in codes


def test_tcpstore_without_libuv_off_windows_is_no_windows_finding():
    # quiet twin: the same words from a Linux build of one's own: not what every Windows wheel lacks
    text = (
        '  File "/home/u/pytorch/torch/distributed/rendezvous.py", line 189, in _create_c10d_store\n'
        "    return TCPStore(\n"
        "RuntimeError: use_libuv was requested but PyTorch was build without libuv support\n"
    )
    kinds, codes = _run(text)
    assert "tcpstore-libuv-missing" in kinds
    assert "framework-windows-native-gpu" not in codes
