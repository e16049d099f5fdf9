"""A GPU the text only names (in words, in a framework's arch warning) is a stated fact, not a probe (issue 28):
NVML's status says `named_in_text`, the GPU keeps its name and compute capability for the arch rules, and no
driver or health fact is invented from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.nvml import NAMED_IN_TEXT
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.render.terminal import _NOTHING, area_summaries

CASES = Path(__file__).parent / "cases"


def _case(prefix: str) -> str:
    (found,) = [p for p in CASES.iterdir() if p.name.startswith(prefix)]
    return (found / "report.txt").read_text(encoding="utf-8")


def _judge(text: str):
    snapshot = validate_snapshot(read_pasted([Source("report.txt", text)]), "pasted")
    return snapshot, diagnose(ReplayHost(snapshot))


def test_a_gpu_named_in_prose_is_stated_not_probed():
    snapshot, report = _judge("My graphics card is a Tesla K40m and torch fails to start.\n")
    assert snapshot["nvml"]["status"] == NAMED_IN_TEXT
    assert [(d["name"], d["compute_capability"]) for d in snapshot["nvml"]["devices"]] == [("Tesla K40m", "3.5")]
    assert "driver_version" not in snapshot["nvml"] and "cuda_driver_version" not in snapshot["nvml"]
    d = report.facts.driver
    assert d.nvml_status == NAMED_IN_TEXT and not d.reachable and d.version is None
    assert [(g.name, g.compute_capability) for g in d.gpus] == [("Tesla K40m", "3.5")]
    # The driver and health sections summarise nothing seen: their status is "none" (no check mark).
    summaries = area_summaries(report.facts)
    assert summaries["driver"].startswith(_NOTHING) and summaries["health"].startswith(_NOTHING)
    assert not [f.code for f in report.findings if f.area in ("driver", "health")]


def test_a_gpu_listed_by_a_tool_is_still_nvml_answering():
    text = "$ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-0d5c2a7e-1111-2222-3333-444455556666)\n"
    snapshot, report = _judge(text)
    assert snapshot["nvml"]["status"] == "ok"
    assert report.facts.driver.reachable
    assert not area_summaries(report.facts)["health"].startswith(_NOTHING)


@pytest.mark.parametrize(
    ("prefix", "codes"),
    [
        # The arch warning's GPU still serves the arch rule, as a stated fact.
        ("direct3d-s2-32", {"framework-arch-unsupported"}),
        ("cryodrgn-91", {"framework-arch-unsupported"}),
        ("mobilestereonet-5", set()),
        ("nvidia-docker-543", set()),
        ("tensorflow-42199", set()),
        ("wsl-9166", set()),
        # PyTorch's "found version 11040" showed the driver's CUDA, not the GPU: the GPU (lshw's words) is stated.
        ("verba-72", {"framework-driver-too-old"}),
    ],
)
def test_pasted_cases_naming_a_gpu_only_in_words(prefix, codes):
    snapshot, report = _judge(_case(prefix))
    assert snapshot["nvml"]["status"] == NAMED_IN_TEXT
    assert report.facts.driver.gpus
    found = {f.code for f in report.findings}
    assert codes <= found
    # Nothing about the GPUs' health or the driver's reachability is judged from a name.
    assert not found & {"driver-unreachable", "driver-library-mismatch", "gpu-lost"}
    summaries = area_summaries(report.facts)
    assert summaries["health"].startswith(_NOTHING)
    assert "reporting" not in summaries["health"]


_BLIND = Path(__file__).resolve().parents[1] / "blind"


@pytest.mark.parametrize(
    ("path", "named"),
    [
        # an Ollama report's template line "GPU: NVIDIA RTX A5000 24GB"
        ("plans6/cases/545-ollama9753-a5000-70b-q4-spills-to-cpu-by-size-control", [("NVIDIA RTX A5000", "8.6")]),
        # "I have 2 Nvidia RTX A5000 GPUs." in a llama-cpp-python build report
        ("plans4/cases/333-llamacpppy1315-windows-conda-set-cmake-args-blas0", [("Nvidia RTX A5000", "8.6")] * 2),
        # "GPU： NVIDIA RTX A6000" (a full-width colon) on Windows Server 2022
        ("plans10/cases/1045-ollama3074-windows-server-2022-rtx-a6000-illegal-memory-access-ask", [("NVIDIA RTX A6000", "8.6")]),
    ],
)
def test_a_workstation_rtx_a_part_named_in_words_is_stated(path, named):
    """NVIDIA's workstation Ampere parts are named "RTX A" and a number (compat_matrix/gpu_arch.toml's RTX A2000 to
    A6000, from NVIDIA's CUDA GPUs page): named in words, each is a stated GPU with its compute capability."""
    snapshot, _ = _judge((_BLIND / path / "input.txt").read_text(encoding="utf-8"))
    assert snapshot["nvml"]["status"] == NAMED_IN_TEXT
    assert [(d["name"], d["compute_capability"]) for d in snapshot["nvml"]["devices"]] == named


@pytest.mark.parametrize("text", ["RTX A100 is no product; the A100 is a data-centre part\n", "our RTX AI PC demo\n"])
def test_rtx_a_words_that_name_no_workstation_part_name_none(text):
    # The quiet twin: "RTX A" and a number the matrix has no row for, or "RTX AI", name no GPU of that line.
    snapshot, _ = _judge(text)
    names = [d["name"] for d in (snapshot.get("nvml") or {}).get("devices", [])]
    assert not any(n.startswith("RTX A") for n in names), names
