"""The footer of a partial snapshot's text view says where the evidence came from."""

from __future__ import annotations

from pathlib import Path

from tests.hostile.test_corpus import run_cli

ROOT = Path(__file__).resolve().parents[2]
# Written by hand from real captures (its machine.toml), marked partial, no pasted blocks.
HAND_WRITTEN = ROOT / "tests/machines/windows-egpu-rtx5060ti-ada-laptop-two-nvidia-releases/snapshot.json"
A30_LIST = ROOT / "tests/fixtures/nvidia-smi-text/a30_nvidia-smi-L_mig-devices.txt"


def test_a_paste_names_its_blocks():
    code, out, _ = run_cli("check", "--from", str(A30_LIST))
    assert code == 0
    assert "Read from pasted text: 1 block(s); what it did not show is unknown, not missing" in out


def test_a_partial_snapshot_nobody_pasted_is_not_called_pasted_text():
    _, out, _ = run_cli("check", "--replay", str(HAND_WRITTEN))
    assert "A partial snapshot: what it did not record is unknown, not missing" in out
    assert "Read from pasted text" not in out
