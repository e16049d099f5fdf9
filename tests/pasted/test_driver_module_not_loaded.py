"""nvidia-smi's "couldn't communicate with the NVIDIA driver" where nothing shows the nvidia module loaded: the plan
finds out why it is not (lsmod, Secure Boot, the kernel log, the running kernel, modprobe), not the Xid path of a
loaded driver that stopped answering. Real reports; argv, not prose."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
from gpudoctor.pasted import Source, read_pasted

ROOT = Path(__file__).resolve().parents[2]
# tests/blind/plans10/cases/1044-*: Fedora's packaged driver installed, nouveau still in use after the reboot
CASE = next((ROOT / "tests" / "blind" / "plans10" / "cases").glob("1044-*")) / "input.txt"

# https://github.com/pytorch/pytorch/issues/67991 (the description): a driver installed, nvidia-smi failing
PYTORCH_67991 = """I am not able to run my Background removal program in pytorch using CUDA
Also when I run nvidia-smi I get the following error

$ nvidia-smi
NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.

File "/home/ubuntu/.local/lib/python3.9/site-packages/torch/cuda/__init__.py", line 214, in _lazy_init
    torch._C._cuda_init()
RuntimeError: No CUDA GPUs are available
"""

WHY_NOT_LOADED = [
    ("lsmod",),
    ("mokutil", "--sb-state"),
    ("dmesg",),
    ("uname", "-r"),
    ("modprobe", "nvidia"),
]


def _unreachable(report):
    return next(f for f in report.findings if f.code == "driver-unreachable")


def _pasted(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    assert not report.internal_errors, report.internal_errors
    return report


def test_nothing_showing_the_module_loaded_asks_why_it_is_not():
    for text in (CASE.read_text(encoding="utf-8"), PYTORCH_67991):
        f = _unreachable(_pasted(text))
        assert [c.words for c in f.remediation.commands] == WHY_NOT_LOADED
        assert ("reboot",) not in [c.words for c in f.remediation.commands]


def test_a_module_shown_loaded_keeps_its_own_fix():
    # the module's version shown (/proc/driver/nvidia/version): it is loaded, so its own fix decides (quiet twin)
    text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n" + PYTORCH_67991
    words = [c.words for c in _unreachable(_pasted(text)).remediation.commands]
    assert words != WHY_NOT_LOADED and ("mokutil", "--sb-state") not in words
    # a recorded machine whose module is loaded and unreachable
    machine = diagnose(ReplayHost(load_snapshot(str(ROOT / "tests" / "machines" / "h100-driver-unreachable" / "snapshot.json"))))
    assert ("mokutil", "--sb-state") not in [c.words for c in _unreachable(machine).remediation.commands]
