"""A torch.distributed process group started on native Windows (c10d's Winsock 10049 warning, catalogue.toml's block of
branch h191): read as no failure in itself, asked for the GPUs and backends torch has and, where accelerate launched
it, for accelerate's saved configuration (which starts NCCL on a one-GPU machine). Quiet twins: the same c10d line on
Linux, and accelerate named with nothing distributed shown."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.test_windows_loader_codes import _run  # one paste run for the three Windows-loader files

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = TESTS / "pasted" / "catalogue_examples"
_ENV = ("-m", "accelerate.commands.accelerate_cli", "env")


def _kinds(snapshot) -> set[str]:
    return {e["kind"] for e in snapshot["pasted"]["errors"]}


def _backends(asks) -> list[tuple[str, ...]]:
    return [a for a in asks if a[1:2] == ("-c",) and "is_nccl_available()" in a[2] and "is_gloo_available()" in a[2]]


def test_accelerate_launching_a_process_group_on_windows_asks_its_saved_configuration():
    # tests/blind/plans13/cases/1356-* (`accelerate launch` on a one-GPU Windows 11 machine, the paste ending at the
    # c10d warnings) and LarryJane491/Lora-Training-in-Comfy#41
    # (https://github.com/LarryJane491/Lora-Training-in-Comfy/issues/41: accelerate in a venv's traceback, the warning
    # wrapped after "10049")
    case = next((TESTS / "blind" / "plans13" / "cases").glob("1356-*")) / "input.txt"
    for text, python in (
        (case.read_text(encoding="utf-8"), "python"),
        (
            (EXAMPLES / "lora-training-in-comfy-41-accelerate-c10d-windows.txt").read_text(encoding="utf-8"),
            "F:\\ComfyUi_Python\\.venv\\Scripts\\python.exe",
        ),
    ):
        snapshot, codes, asks = _run(text)
        assert snapshot["platform"]["system"] == "Windows"
        assert "windows-distributed-rendezvous" in _kinds(snapshot)
        assert (python, *_ENV) in asks
        assert [a[0] for a in _backends(asks)] == [python]
        # (the warning is no failure: it alone raises nothing)
        assert not [f for f in codes.values() if any("10049" in e.value for e in f.evidence)]


def test_the_warning_without_accelerate_asks_only_the_backends():
    # bmaltais/kohya_ss#1347 (https://github.com/bmaltais/kohya_ss/issues/1347): the warnings after "preparing
    # accelerator", accelerate itself not named
    snapshot, _, asks = _run((EXAMPLES / "kohya-ss-1347-c10d-windows-socket-10049.txt").read_text(encoding="utf-8"))
    assert "windows-distributed-rendezvous" in _kinds(snapshot)
    assert _backends(asks) and not [a for a in asks if a[1:] == _ENV]


def test_the_same_c10d_line_on_linux_and_accelerate_alone_stay_quiet():
    # the quiet twins: fairseq's c10d warning on Linux (errno 99, no Winsock code), and accelerate named with no process
    # group shown (tests/pasted/catalogue_examples/kohya-ss-719-accelerate-fp16-requires-gpu.txt: its fp16 error)
    linux = (
        "2023-06-13 17:29:37 | INFO | fairseq.distributed_utils | distributed init (rank 3): tcp://localhost:18630\n"
        "[W socket.cpp:558] [c10d] The client socket has failed to connect to [localhost]:18630 (errno: 99 - Cannot "
        "assign requested address).\n"
    )
    snapshot, _, asks = _run(linux)
    assert "windows-distributed-rendezvous" not in _kinds(snapshot) and not _backends(asks)
    _, _, asks = _run((EXAMPLES / "kohya-ss-719-accelerate-fp16-requires-gpu.txt").read_text(encoding="utf-8"))
    assert not [a for a in asks if a[1:] == _ENV]
