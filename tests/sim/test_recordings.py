"""Recordings of real GPUs' NVML (tools/nvml_record.py, run by `make gpu-truth`; issue 29) against the fake.

Each tests/sim/recordings/<name>.json is a redacted recording of every NVML call gpudoctor made on a real GPU, with
the real library's answers; <name>-nvidia-smi-query.csv is nvidia-smi's `--query-gpu` reading taken right after it
(the UUID redacted the same way). The fake NVML, fed the state gpudoctor made of the recording, must answer every
call as the real library did, or the difference is explained in tests/sim/nvml_differences.toml; and every stable
field gpudoctor read must agree with nvidia-smi's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.sim.test_gpu_truth import _tool

RECORDINGS = sorted((Path(__file__).resolve().parent / "recordings").glob("*.json"))


@pytest.mark.parametrize("recording", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_the_fake_answers_as_the_real_library_did(recording, libraries):
    nvml_compare = _tool("nvml_compare")
    real = json.loads(recording.read_text(encoding="utf-8"))
    assert real["library"] and "libnvidia-ml" in real["library"]  # a real library answered, not the fake
    found = nvml_compare.compare(real, nvml_compare.load_explained(nvml_compare.EXPLAINED))
    unexplained = [d for d in found["differences"] if not d.get("why")]
    assert found["calls_real"] == found["calls_fake"] and not unexplained, unexplained


@pytest.mark.parametrize("recording", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_nvml_and_nvidia_smi_agree_on_every_stable_field(recording):
    nvml_compare = _tool("nvml_compare")
    real = json.loads(recording.read_text(encoding="utf-8"))
    csv = recording.with_name(f"{recording.stem}-nvidia-smi-query.csv").read_text(encoding="utf-8")
    rows = nvml_compare.smi_parity(real["state"], csv)
    stable = [r for r in rows if not r["volatile"] and r["agree"] is not None]
    assert len(stable) >= 15  # the identity, PCIe limits, modes and error counters were all compared
    assert all(r["agree"] for r in stable), [r for r in stable if not r["agree"]]
    # The memory gpudoctor calls used is nvidia-smi's (NVML's v2 call: the driver's reservation apart), to the MiB.
    (used,) = [r for r in rows if r["field"] == "memory.used_bytes"]
    assert abs(int(used["nvml"]) - int(used["smi"])) <= 1, used


def test_the_recording_read_memory_through_the_v2_call():
    """The first H200 recording: v2's used (6264 MiB while two processes held 6.1 GiB) and the driver's reservation."""
    (recording,) = [p for p in RECORDINGS if p.stem == "h200-driver580"]
    real = json.loads(recording.read_text(encoding="utf-8"))
    (call,) = [c for c in real["calls"] if c["call"] == "nvmlDeviceGetMemoryInfo"]
    assert call["kwargs"] == {"version": 33554472}  # nvmlMemory_v2 = NVML_STRUCT_VERSION(Memory, 2)
    assert [c["symbol"] for c in call["c"]] == ["nvmlDeviceGetMemoryInfo_v2"]
    memory = real["state"]["devices"][0]["memory"]
    assert memory["reserved_bytes"] > 0
    assert memory["used_bytes"] + memory["reserved_bytes"] + memory["free_bytes"] == memory["total_bytes"]
