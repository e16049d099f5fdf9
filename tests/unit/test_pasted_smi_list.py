"""`nvidia-smi -L` pasted into a report: its GPUs are read, and it yields to fuller evidence.

The list is what people paste when asked "which GPUs?"; before it had a recogniser its lines were taken for
issue-form fields ("GPU 0: ...") that give nothing, so the report said "GPU: not shown" next to a list of them.
"""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.blocks import find_blocks
from tests.hostile.test_corpus import run_cli
from tests.pasted.test_partial import SMI as SMI_TABLE

A30 = (Path(__file__).resolve().parents[1] / "fixtures" / "nvidia-smi-text" / "a30_nvidia-smi-L_mig-devices.txt").read_text(
    encoding="utf-8"
)


def _snapshot(text: str) -> dict:
    return validate_snapshot(read_pasted([Source("report.txt", text)]), "report.txt")


def test_the_real_a30_list_is_one_block_with_its_mig_lines():
    # Real capture (tests/fixtures/PROVENANCE.md): one GPU line and three indented MIG device lines.
    blocks = find_blocks("$ nvidia-smi -L\n" + A30 + "\nthen torch says no GPU\n")
    # The command line above it is a block of its own since prompts are read (issue 28: a prompt tells where it ran).
    assert [(b.kind, b.start, b.end) for b in blocks] == [("prompt", 0, 1), ("nvidia_smi_l", 1, 5)]


def test_the_listed_gpu_is_what_nvml_answered():
    nvml = _snapshot(A30)["nvml"]
    assert nvml["status"] == "ok"
    assert nvml["devices"] == [{"index": 0, "name": "NVIDIA A30", "uuid": "GPU-1e44b340-5807-0dbe-62e6-343a6b8b8bcd"}]
    # No driver version is claimed: the list does not show one.
    assert "driver_version" not in nvml


def test_a_list_a_forum_flattened_onto_one_line_gives_every_gpu():
    # As in open-gpu-kernel-modules#387's form answer: four `-L` lines joined by the forum into one.
    line = " ".join(f"GPU {i}: NVIDIA GeForce RTX 2080 Ti (UUID: GPU-{i}7a571b1-79ee-1016-8ea3-c1fff3f1c1d2)" for i in range(4))
    devices = _snapshot(line + "\n")["nvml"]["devices"]
    assert [(d["index"], d["name"]) for d in devices] == [(i, "NVIDIA GeForce RTX 2080 Ti") for i in range(4)]


def test_the_summary_names_the_listed_gpus_instead_of_not_shown(tmp_path):
    assert not diagnose(ReplayHost(_snapshot(A30))).internal_errors
    paste = tmp_path / "report.txt"
    paste.write_text("$ nvidia-smi -L\n" + A30, encoding="utf-8")
    code, out, _ = run_cli("check", "--from", str(paste))
    assert code == 0
    assert "GPU: 1 × NVIDIA A30" in out
    assert "nvidia-smi -L (" in out and "1 GPU(s) listed" in out


def test_a_table_in_the_same_paste_is_what_the_probes_read():
    # The table carries the driver, memory and processes: the list must not replace it with a thinner NVML.
    snap = _snapshot(A30 + "\n" + SMI_TABLE)
    assert snap.get("nvml") is None
    assert "nvidia-smi" in snap["commands"]


def test_a_failure_after_the_list_is_the_state_the_report_is_about():
    snap = _snapshot(A30 + "\n$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\n")
    assert (snap.get("nvml") or {}).get("status") != "ok"


def test_a_collect_env_gpu_line_is_not_taken_for_a_list():
    # collect_env writes "GPU 0: NVIDIA ..." without a UUID: that block reads it, not this one.
    kinds = {b.kind for b in find_blocks("GPU models and configuration: \nGPU 0: NVIDIA GeForce RTX 3090\n")}
    assert "nvidia_smi_l" not in kinds
