"""The head of the applications' side, closed by general means (tests/pasted/head/applications.toml): Ollama's GPU
discovery read by the CUDA number that decides it, 802 (an NVSwitch server's fabric manager) and 3 (the kernel module
could not bring the GPU up: its log says why), each from its real paste and asking what decides it, with the near
misses that must stay quiet (another number, Ollama's healthy discovery)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pasted.test_catalogue import _run

HEAD = Path(__file__).resolve().parent / "head" / "applications"


def _kinds(snapshot) -> set[str]:
    return {e["kind"] for e in snapshot["pasted"]["errors"]}


@pytest.mark.parametrize(
    ("name", "kind", "asked"),
    [
        # ollama/ollama#12173: 8x H100 (NVSwitch), Ollama in Docker: the host's fabric manager decides
        ("ollama-cuda-driver-init-802.txt", "cuda-system-not-ready", ["systemctl status nvidia-fabricmanager"]),
        # ollama/ollama#11593: an RTX PRO 6000 Blackwell on driver 570: the kernel log and the module's flavour decide
        (
            "ollama-cudart-init-failure-blackwell.txt",
            "cuda-init-driver-state",
            ["sudo dmesg | grep -E NVRM|Xid", "cat /proc/driver/nvidia/version"],
        ),
    ],
)
def test_ollama_discovery_number_asks_what_decides_it(name, kind, asked):
    snapshot, _report, codes, asks = _run((HEAD / name).read_text(encoding="utf-8"))
    kinds = _kinds(snapshot)
    assert kind in kinds and "cudart-init-failure" in kinds  # (the generic entry still reads the driver's answer)
    assert "pasted-error-unexplained" in codes
    for a in asked:
        assert a in asks


@pytest.mark.parametrize(
    "line",
    [
        # another number: 35 (the driver older than Ollama's runtime) and 999 (unknown) are the generic entry's
        'time=2024-03-30T15:05:41.304Z level=INFO source=gpu.go:340 msg="Unable to load cudart CUDA management library '
        '/tmp/ollama4102197452/runners/cuda_v11/libcudart.so.11.0: cudart init failure: 35"',
        'time=2025-01-28T16:57:57.000Z level=INFO source=gpu.go:630 msg="Unable to load cudart library '
        '/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14: cuda driver library init failure: 999"',
        # a number that only starts with 3 or 802
        "cudart init failure: 30",
        "cuda driver library init failure: 8020",
    ],
)
def test_other_numbers_are_not_these(line):
    snapshot, _report, _codes, asks = _run(line + "\n")
    kinds = _kinds(snapshot)
    assert "cudart-init-failure" in kinds
    assert "cuda-system-not-ready" not in kinds and "cuda-init-driver-state" not in kinds
    assert "systemctl status nvidia-fabricmanager" not in asks


def test_healthy_discovery_is_quiet():
    # Ollama's discovery that found the GPU (its INFO lines at start): no failure read, no ask about the driver's state
    log = (
        'time=2025-01-16T20:58:45.361+08:00 level=INFO source=gpu.go:226 msg="looking for compatible GPUs"\n'
        'time=2025-01-16T20:58:45.451+08:00 level=INFO source=types.go:131 msg="inference compute" '
        "id=GPU-1c625a84-5d45-2274-8fa9-69f73d8ce165 library=cuda variant=v12 compute=8.9 driver=12.4 "
        'name="NVIDIA GeForce RTX 4090" total="23.6 GiB" available="21.6 GiB"\n'
    )
    snapshot, _report, _codes, asks = _run(log)
    kinds = _kinds(snapshot)
    assert not kinds & {"cudart-init-failure", "cuda-system-not-ready", "cuda-init-driver-state"}
    assert not any("fabricmanager" in a or "dmesg" in a for a in asks)
