"""A program's own words about its CUDA build, read from real reports (blind set 20's misses): PyTorch's CPU-only build
seen from torch.cuda.set_device (torch._C has no CUDA binding), DeepSpeed's op builder finding no CUDA_HOME with its
exception's line cut in the paste. Whole pastes, data asserted."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.spec.registry import FIRES, states

TESTS = Path(__file__).resolve().parents[1]
PLANS20 = TESTS / "blind" / "plans20" / "cases"
EXAMPLES = TESTS / "pasted" / "catalogue_examples"


def _case(number: str) -> str:
    return next(PLANS20.glob(f"{number}-*")).joinpath("input.txt").read_text(encoding="utf-8")


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    report = diagnose(ReplayHost(snapshot))
    return {f.code: f for f in report.findings}, snapshot


def _entries(snapshot) -> list[str]:
    return [dict(e.get("values") or {}).get("entry", "") for e in snapshot["pasted"]["errors"]]


@states("framework-cpu-build", FIRES)
def test_torch_c_without_its_cuda_binding_is_a_cpu_only_torch():
    # insilicomedicine/GENTRL#36 (the catalogue's example: torch.cuda.set_device in a Windows conda environment) and
    # tests/blind/plans20 case 2054 (explosion/spaCy#8697: thinc's require_gpu on the default index's CPU torch)
    for text in (
        EXAMPLES.joinpath("gentrl-36-windows-torch-cpu-build-no-cuda-setdevice.txt").read_text(encoding="utf-8"),
        _case("2054"),
    ):
        found, snapshot = _run(text)
        assert "torch-cpu-build-no-cuda-binding" in _entries(snapshot)
        f = found["framework-cpu-build"]
        assert f.remediation is not None and f.remediation.component == "torch"


@states("toolkit-missing-for-build", FIRES)
def test_deepspeeds_missing_cuda_exception_cut_in_the_paste_still_names_the_missing_toolkit():
    # tests/blind/plans20 case 2014 (deepspeedai/DeepSpeed#7616): "op_builder.builder.MissingCUDAException: CUDA_HOME does
    # not exist, un" (pip's box cut), torch 2.8.0+cu128 on native Windows: the CUDA 12.8 toolkit, CUDA_HOME at it
    found, snapshot = _run(_case("2014"))
    assert "cuda-home-unset" in [e["kind"] for e in snapshot["pasted"]["errors"]]
    f = found["toolkit-missing-for-build"]
    assert (f.remediation.component, f.remediation.where) == ("toolkit", "Windows")
    assert [tuple(map(str, c.argv)) for c in f.remediation.commands if isinstance(c, Cmd)] == [("where", "nvcc")]
    assert any("v12.8" in str(c) for c in f.remediation.commands)
