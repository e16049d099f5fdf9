"""A library's "no kernel image" on a GPU below its release's arch floor (issues 27/28; compat_matrix/libraries.toml
arch): the last release with kernels is pinned in the reporter's interpreter.

Real reports, whole: tests/pasted/cases/faster-whisper-806-gtx950-ct2-4x-maxwell-no-kernel-image (GTX 950, 5.2, under
ctranslate2 4.x) and tests/blind/plans11/cases/1104-xgb8493-... (Tesla K80, 3.7, xgboost 1.6.2). The quiet twins: the
same xgboost report on a GPU its release supports (a Tesla T4, 7.5), and with no GPU named (the GPU is asked for)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

_ROOT = Path(__file__).resolve().parents[1]
_CT2 = _ROOT / "pasted" / "cases" / "faster-whisper-806-gtx950-ct2-4x-maxwell-no-kernel-image" / "report.txt"
_XGB = (
    _ROOT
    / "blind"
    / "plans11"
    / "cases"
    / "1104-xgb8493-databricks-spark-cluster-tesla-k80-xgboost162-no-kernel-image-sm35-dropped"
    / "input.txt"
)


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [a.command.argv for a in ask_for(report.facts, report.findings)]
    return {f.code: f for f in report.findings}, asks


def _argvs(finding) -> list[tuple[str, ...]]:
    return [c.words for c in finding.remediation.commands if isinstance(c, Cmd)]


def test_a_k80_under_xgboost_after_1_5_gets_1_4_2_in_the_reporters_interpreter():
    codes, _ = _run(_XGB.read_text("utf-8"))
    f = codes["framework-arch-unsupported"]
    assert ("3.7" in f.title, "5.0" in f.title) == (True, True)
    assert _argvs(f) == [("/databricks/python/bin/python", "-m", "pip", "install", "xgboost==1.4.2")]


def test_a_gtx950_under_ctranslate2_4_gets_3_24_0():
    codes, _ = _run(_CT2.read_text("utf-8"))
    f = codes["framework-arch-unsupported"]
    assert "5.2" in f.title and "6.0" in f.title
    assert [a[-1] for a in _argvs(f)] == ["ctranslate2==3.24.0"]


def test_a_gpu_the_release_supports_is_quiet():
    codes, _ = _run(_XGB.read_text("utf-8").replace("NVIDIA Tesla K80", "NVIDIA Tesla T4"))
    assert "framework-arch-unsupported" not in codes


def test_no_gpu_shown_asks_for_its_compute_capability():
    codes, asks = _run(_XGB.read_text("utf-8").replace("NVIDIA Tesla K80", "NVIDIA").replace("Tesla K80", "NVIDIA"))
    assert "framework-arch-unsupported" not in codes
    assert ("nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv") in [tuple(a) for a in asks]


_VLLM = _ROOT / "pasted" / "cases" / "vllm-16307-p100x8-vllm073-no-kernel-image" / "report.txt"


def _all(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return [f for f in report.findings if f.code == "framework-arch-unsupported"]


def test_a_p100_under_vllm_gets_the_library_floor_not_a_torch_reinstall():
    # torch 2.5.1+cu124 still carries sm_60: vLLM's own kernels (7.0 and newer) are what fail, and no release has more
    found = _all(_VLLM.read_text("utf-8"))
    assert len(found) == 1
    f = found[0]
    assert f.title.startswith("vllm ") and "6.0" in f.title and "7.0" in f.title
    assert _argvs(f) == [] and f.remediation.component == "gpu"


def test_a_volta_under_vllm_is_not_given_the_floor():
    found = _all(_VLLM.read_text("utf-8").replace("Tesla P100-PCIE-16GB", "Tesla V100-PCIE-16GB"))
    assert not any(f.title.startswith("vllm ") for f in found)
