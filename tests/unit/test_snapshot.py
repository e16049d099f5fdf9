"""Snapshot loading names what is wrong; redaction removes identity but keeps the machine consistent."""

from __future__ import annotations

import json

import pytest

from gpudoctor.errors import MissingInput, SnapshotError
from gpudoctor.host.snapshot import dump_snapshot, load_snapshot, redact, validate_snapshot


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ("[]", "a snapshot is a JSON object"),
        ('{"format": "other/9"}', "unknown snapshot format"),
        ('{"format": "gpudoctor-snapshot/1", "files": {"relative/path": "x"}}', "is not an absolute path"),
        ('{"format": "gpudoctor-snapshot/1", "commands": {"nvcc --version": "text"}}', '"rc": N'),
        ('{"format": "gpudoctor-snapshot/1", "nvml": {"devices": []}}', '"status"'),
        ('{"format": "gpudoctor-snapshot/1", "bogus": 1}', "unknown top-level keys: 'bogus'"),
    ],
)
def test_invalid_snapshots_name_the_problem(tmp_path, content, message):
    path = tmp_path / "s.json"
    path.write_text(content)
    with pytest.raises(SnapshotError) as err:
        load_snapshot(str(path))
    assert message in err.value.message


def test_missing_and_binary_snapshot_files(tmp_path):
    # A path that does not exist is the user's argument (MissingInput, exit 2), not a bad snapshot.
    with pytest.raises(MissingInput, match="no such snapshot file"):
        load_snapshot(str(tmp_path / "absent.json"))
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SnapshotError):
        load_snapshot(str(binary))


def test_redaction_keeps_uuids_consistent_and_hides_identity():
    uuid = "GPU-5f3e1b2a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
    snap = {
        "format": "gpudoctor-snapshot/1",
        "env": {"CUDA_VISIBLE_DEVICES": uuid, "VIRTUAL_ENV": "/home/alice/venv"},
        "files": {"/home/alice/venv/x": "hello from gpunode17"},
        "commands": {"nvidia-smi -q -x": {"rc": 0, "stdout": f"<uuid>{uuid}</uuid><serial>1650123456789</serial>", "stderr": ""}},
    }
    text = dump_snapshot(snap, "gpunode17", ["alice"])
    assert "alice" not in text and "gpunode17" not in text and "1650123456789" not in text and uuid not in text
    data = validate_snapshot(json.loads(text))
    stand_in = data["env"]["CUDA_VISIBLE_DEVICES"]
    assert stand_in.startswith("GPU-") and stand_in in data["commands"]["nvidia-smi -q -x"]["stdout"]
    assert "/home/user/venv/x" in data["files"]


def test_redact_leaves_short_host_names_alone():
    assert redact("gpu node", "gp", []) == "gpu node"
