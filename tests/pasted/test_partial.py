"""Partial evidence is not absence: the issue's own example, judged on a hand-written snapshot with and
without `"partial": true`, and what a partial snapshot still finds from what it shows."""

from __future__ import annotations

import copy

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted.ask import ask_for

SMI = (
    "+-----------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    "|-----------------------------------------+----------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
    "|=========================================+======================+======================|\n"
    "|   0  NVIDIA GeForce RTX 3090        Off | 00000000:01:00.0 Off |                  N/A |\n"
    "|  0%   35C    P8              20W / 350W |      1MiB / 24576MiB |      0%      Default |\n"
    "+-----------------------------------------+----------------------+----------------------+\n"
)

# What a `pip list` and an nvidia-smi table say of a working PyTorch, written down as a snapshot: the
# wheels are listed, their files are not.
PIP_LIST_SNAPSHOT = {
    "format": "gpudoctor-snapshot/1",
    "commands": {"nvidia-smi": {"rc": 0, "stdout": SMI, "stderr": ""}},
    "python": {
        "version": "3.10.12",
        "executable": "/usr/bin/python3",
        "site_packages": ["/usr/local/lib/python3.10/dist-packages"],
        "distributions": {
            "torch": "2.1.0+cu121",
            "nvidia-cudnn-cu12": "8.9.2.26",
            "nvidia-cublas-cu12": "12.1.3.1",
            "nvidia-cuda-runtime-cu12": "12.1.105",
        },
    },
}


def _codes(snapshot: dict) -> set[str]:
    return {f.code for f in diagnose(ReplayHost(validate_snapshot(copy.deepcopy(snapshot)))).findings}


def test_a_whole_machine_without_the_files_is_missing_them():
    # Without "partial", a snapshot holds everything there is: no files means no libraries.
    codes = _codes(PIP_LIST_SNAPSHOT)
    assert {"cudnn-missing", "framework-cuda-libs-missing"} & codes, codes


def test_partial_evidence_is_not_absence():
    codes = _codes({**PIP_LIST_SNAPSHOT, "partial": True})
    assert not {"cudnn-missing", "framework-cuda-libs-missing", "probe-failed", "device-nodes-missing"} & codes, codes


def test_what_the_text_shows_missing_is_missing():
    snap = {
        **PIP_LIST_SNAPSHOT,
        "partial": True,
        "pasted": {"missing": ["libcudnn.so.8"], "errors": []},
    }
    snap["python"] = {**snap["python"], "distributions": {"torch": "1.13.1+cu117", "nvidia-cudnn-cu11": "8.5.0.96"}}
    # torch 1.13's wheel loads cuDNN 8 from nvidia-cudnn-cu11; the text said libcudnn.so.8 could not be opened,
    # which overrides what the installed wheel implies.
    assert "cudnn-missing" in _codes(snap)


def test_an_installed_wheel_implies_its_files():
    # A pip list with PyTorch's CUDA 12 build beside the CUDA 11 cuDNN wheel: the wheel's libcudnn.so.8 is
    # implied, and it is the wrong CUDA major for this PyTorch.
    snap = {**PIP_LIST_SNAPSHOT, "partial": True}
    snap["python"] = {**snap["python"], "distributions": {"torch": "2.1.0+cu121", "nvidia-cudnn-cu11": "8.9.2.26"}}
    assert "cudnn-cuda-mismatch" in _codes(snap)
    snap["python"]["distributions"]["nvidia-cudnn-cu11"] = "8.9.2.26"
    snap["files"] = {"/usr/local/lib/python3.10/dist-packages/nvidia/cudnn/lib/libcudnn_ops.so.8": {"type": "file"}}
    # The text listed that directory: what it shows stands, nothing is implied beside it.
    assert "cudnn-cuda-mismatch" not in _codes(snap)


def test_partial_snapshot_asks_for_what_was_not_shown():
    snap = {
        "format": "gpudoctor-snapshot/1",
        "partial": True,
        "pasted": {"errors": [{"kind": "driver-too-old-found", "line": "found version 11040", "values": {"cuda": "11.4"}}]},
        "nvml": {"status": "ok", "cuda_driver_version": 11040, "devices": []},
    }
    report = diagnose(ReplayHost(validate_snapshot(snap)))
    asked = [" ".join(a.command.words) for a in ask_for(report.facts, report.findings)]
    assert "nvidia-smi" in asked and "python3 -m torch.utils.collect_env" in asked
    assert "framework-driver-too-old" in {f.code for f in report.findings}


def test_a_whole_machine_asks_nothing():
    report = diagnose(ReplayHost(validate_snapshot(copy.deepcopy(PIP_LIST_SNAPSHOT))))
    assert ask_for(report.facts, report.findings) == []


def test_a_pip_freeze_of_ten_lines_is_the_whole_environment_and_nine_are_not():
    """docs/pasted.md: "a `pip freeze` of ten lines and more, is the whole environment"."""
    from gpudoctor.pasted import Source, read_pasted

    pins = [f"package-{i}=={i}.0.1" for i in range(11)]
    whole = {n: read_pasted([Source("issue.txt", "\n".join(pins[:n]) + "\n")])["pasted"]["whole"] for n in (9, 10, 11)}
    assert whole == {9: [], 10: ["distributions"], 11: ["distributions"]}


def test_an_nvml_failure_replaces_the_table_only_when_printed_after_it():
    """docs/pasted.md: "an NVML failure printed after an `nvidia-smi` table replaces the table"; printed before
    it (broken, then fixed), the table is the state the report is about."""
    from gpudoctor.pasted import Source, read_pasted

    failure = (
        "$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n"
    )
    before = read_pasted([Source("issue.txt", failure + "\nafter a reboot:\n" + SMI)])["commands"]["nvidia-smi"]
    after = read_pasted([Source("issue.txt", SMI + "\nafter the upgrade:\n" + failure)])["commands"]["nvidia-smi"]
    assert (before["rc"], before["stdout"]) == (0, SMI)
    assert (after["rc"], after["stdout"]) == (9, failure.splitlines()[1] + "\n")
