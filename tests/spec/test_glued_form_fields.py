"""An environment list typed by hand, each name glued to its version ("CUDA9.2", "python3.6.2", "torch1.3.0"), is read
as the issue form's fields (gpudoctor.pasted.blocks.form_field), so the stated CUDA is judged beside the stated GPU
(docs/findings/toolkit-arch-unsupported.md, an issue form's CUDA beside a GPU it cannot build for). Real texts: two
recorded cases, each a whole report."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.blocks import form_field
from tests.spec.registry import FIRES, states

ROOT = Path(__file__).resolve().parents[2]


def _case(glob: str) -> str:
    return (next(ROOT.glob(glob)) / "input.txt").read_text(encoding="utf-8")


def _report(text: str):
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    return diagnose(ReplayHost(snap))


@states("toolkit-arch-unsupported", FIRES)
def test_cuda_9_2_glued_beside_an_rtx_2060_cannot_build_for_it():
    # detectron2's build on an RTX 2060 (7.5) with CUDA 9.2 (Turing arrived in CUDA 10.0)
    report = _report(_case("tests/blind/plans12/cases/1231-*"))
    [f] = [f for f in report.findings if f.code == "toolkit-arch-unsupported"]
    assert [e.value for e in f.evidence] == ["CUDA9.2", "RTX2060: 7.5"]
    assert report.facts.frameworks.torch.value.version == "1.3.0"


@states("toolkit-arch-unsupported", FIRES)
def test_cuda_9_0_glued_beside_a_v100_knows_its_architecture():
    # tests/blind/plans10/cases/1016-*: CentOS, V100 (7.0), "CUDA9.0": CUDA 9.0 compiles for 7.0, so the nvcc that
    # refused compute_70 is another one, which the text does not show: never "CUDA 9.0 cannot build for the V100"
    # (the stated GPU's judgement); since h241 the refusal's own finding says two toolkits and asks which nvcc ran
    text = _case("tests/blind/plans10/cases/1016-*")
    said = {(e["kind"], e["line"]): e["values"] for e in read_pasted([Source("report.txt", text)])["pasted"]["errors"]}
    assert said[("cuda-version-said", "CUDA9.0")] == {"cuda": "9.0"}
    assert said[("cudnn-version-said", "cudnn7.0")] == {"cudnn": "7.0"}
    [f] = [f for f in _report(text).findings if f.code == "toolkit-arch-unsupported"]
    assert [e.value for e in f.evidence] == [
        "what can I do when  nvcc fatal   : Unsupported gpu architecture 'compute_70'",
        "CUDA9.0",
    ]
    assert ("which", "-a", "nvcc") in [tuple(c.words) for c in f.remediation.commands]


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("CUDA9.2", ("CUDA", "9.2")),
        ("python3.6.2", ("python", "3.6.2")),
        ("torch1.3.0", ("torch", "1.3.0")),
        ("- Python3.7", ("Python", "3.7")),
        ("cudnn7.0", ("cudnn", "7.0")),
        # not a field: a command, prose, a package's name
        ("python3.10 -m pip install torch", None),
        ("CUDA11.8 is installed", None),
        ("torchvision0.14.1", None),
    ],
)
def test_a_glued_field_is_the_whole_line(line, field):
    assert form_field(line) == field
