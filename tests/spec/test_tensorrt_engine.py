"""tensorrt-engine-not-portable (docs/findings/tensorrt-engine-not-portable.md): a TensorRT engine refused where it was
not built, by its release or its GPU's compute capability, is built again where it runs. Whole pastes from the
catalogue's examples, data asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.spec.machine import argv_words, pasted_findings, planned_findings
from tests.spec.registry import FIRES, QUIET, states

EXAMPLES = Path(__file__).resolve().parents[1] / "pasted" / "catalogue_examples"
CODE = "tensorrt-engine-not-portable"
BUILD = ("--onnx=<model-onnx>", "--saveEngine=<engine-file>")


def _found(name: str) -> dict:
    return pasted_findings(EXAMPLES.joinpath(name).read_text(encoding="utf-8"))


@states(CODE, FIRES)
def test_an_engine_of_another_compute_capability_is_rebuilt_on_the_gpu_that_runs_it():
    # NVIDIA/TensorRT#564: "expecting compute 6.1 got compute 7.5" (a GTX 1060 given a Turing engine)
    f = _found("tensorrt-564-gtx1060-engine-built-on-compute-75.txt")[CODE]
    assert "7.5" in f.title and "6.1" in f.title
    assert argv_words(f.remediation) == [
        ("nvidia-smi", "--query-gpu=index,name,compute_cap", "--format=csv"),
        ("trtexec", *BUILD),
    ]


@states(CODE, FIRES)
def test_on_a_driver_without_the_compute_cap_field_the_gpus_are_listed_by_name():
    # tests/blind/plans17/cases/1706-*: a GTX 1050 Ti given an engine "expecting compute 8.6", the issue form's driver
    # 470.129.06; R470's nvidia-smi has no compute_cap field (gpudoctor.planner.tool_floors.SMI_FIELDS), so the plan's
    # first command queries the GPUs' names, whose capability the matrix knows (the twin above: no driver shown, the field
    # kept). The planner's filter does it (gpudoctor.planner.deciders.released), as for any check's step.
    case = next((Path(__file__).resolve().parents[1] / "blind" / "plans17" / "cases").glob("1706-*"))
    f = planned_findings((case / "input.txt").read_text(encoding="utf-8"))[CODE]
    # (trtexec's placeholders are the person's to fill: as printed, with_values leaves that line to the summary)
    assert argv_words(f.remediation) == [("nvidia-smi", "--query-gpu=index,name", "--format=csv")]


@states(CODE, FIRES)
@pytest.mark.parametrize(
    ("name", "trtexec"),
    [
        # TensorRT 10's version tag (237 running, 239 in the engine): yuvraj108c/ComfyUI-Dwpose-Tensorrt#5
        ("comfyui-dwpose-trt-5-engine-version-tag-237-239.txt", "trtexec"),
        # TensorRT 8.5's wording on Windows: RootKit-Org/AI-Aimbot#109 (8.5.3.1 engine, 8.5.1.7 loading)
        ("ai-aimbot-109-windows-trt-engine-8531-on-8517.txt", "trtexec.exe"),
    ],
)
def test_an_engine_of_another_release_is_rebuilt_by_the_release_the_program_loads(name, trtexec):
    f = _found(name)[CODE]
    words = argv_words(f.remediation)
    # first the TensorRT the program's interpreter loads, then trtexec of that release
    assert words[0][-2:] == ("-c", "import sys, tensorrt; print(sys.executable, tensorrt.__version__, tensorrt.__file__)")
    assert words[1] == (trtexec, *BUILD)


@states(CODE, QUIET)
@pytest.mark.parametrize(
    "name",
    [
        # TensorRT's CUDA check failing (the driver older than its CUDA): no engine was loaded
        "tensorrt-2879-cuda-initialization-failure-35.txt",
        # a file that is not an engine at all (lix19937/tensorrt-insight#65: the ONNX file read as the plan): its magic
        # tag, not its release or GPU, failed
        "tensorrt-insight-65-magic-tag-does-not-match.txt",
    ],
)
def test_tensorrts_other_refusals_are_not_an_engine_built_elsewhere(name):
    assert CODE not in _found(name)
