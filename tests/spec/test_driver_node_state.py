"""docs/findings/cuda-init-unknown.md, each documented rule as a test on a minimal pasted text (the paste's own
variants and quiet twins are in tests/pasted/test_driver_node_state.py)."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Placeholder
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.spec.registry import FIRES, QUIET, states

_TORCH = (
    "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. "
    "changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.\n"
)


def _found(text: str) -> list:
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    return [f for f in diagnose(ReplayHost(snap)).findings if f.code == "cuda-init-unknown"]


@pytest.mark.parametrize(
    "text",
    [
        _TORCH,
        "failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error\n",
        'msg="Unable to load cudart" library=/usr/lib/libcudart.so.12 error="cudart init failure: 999"\n',
    ],
)
@states("cuda-init-unknown", FIRES)
def test_each_documented_message_fires(text):
    """cuda-init-unknown.md: "one of the messages above (`cudart init failure: N` only with 999)"."""
    [f] = _found(text)
    assert [c.words for c in f.remediation.commands][1:] == [("rmmod", "nvidia_uvm"), ("modprobe", "nvidia_uvm")]


@states("cuda-init-unknown", FIRES)
def test_suspend_said_adds_how_to_keep_it():
    """cuda-init-unknown.md: "when the text says the machine suspended ... the plan adds how to keep it from recurring"."""
    [f] = _found("After the laptop resumed from suspend:\n" + _TORCH)
    assert f.remediation.alternative is not None and "suspend" in f.title


@pytest.mark.parametrize(
    "text",
    [
        'error="cudart init failure: 100"\n',
        "Windows 11, WSL2 Ubuntu\n" + _TORCH,
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n" + _TORCH,
    ],
)
@states("cuda-init-unknown", QUIET)
def test_not_said_on_wsl_or_with_the_driver_unreachable_or_another_number(text):
    """cuda-init-unknown.md: "Not said on WSL 2 or Windows ..., or where nvidia-smi failed too"."""
    assert not _found(text)


def _wsl_memory(text: str) -> list:
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    return [f for f in diagnose(ReplayHost(snap)).findings if f.code == "wsl-memory-limit"]


@pytest.mark.parametrize(
    "killed",
    [
        "Killed",
        "[1]+  Killed                  python train.py",
        "zsh: killed     python server.py --model big",
        "[ 812.55] Out of memory: Killed process 4242 (python) total-vm:41234567kB",
    ],
)
@states("wsl-memory-limit", FIRES)
def test_each_documented_kill_line_inside_wsl2_fires(killed):
    """wsl-memory-limit.md: "one of the lines above, and the report is WSL 2"."""
    [f] = _wsl_memory("Ubuntu 22.04 on WSL2\nLoading model ...\n" + killed + "\n")
    argvs = [c.words for c in f.remediation.commands]
    assert argvs[0] == ("free", "-g") and argvs[-1] == ("wsl.exe", "--shutdown")


@pytest.mark.parametrize(
    "text",
    [
        "Ubuntu 22.04\nLoading model ...\nKilled\n",  # native Linux
        "Ubuntu 22.04 on WSL2\nLoading model ...\nthe model killed my patience but loaded\n",  # no kill line
        "Ubuntu under WSL 1\nLoading model ...\nKilled\n",  # WSL 1
    ],
)
@states("wsl-memory-limit", QUIET)
def test_not_said_on_native_linux_wsl1_or_without_a_kill(text):
    """wsl-memory-limit.md: "Not said on native Linux ..., or on WSL 1"."""
    assert not _wsl_memory(text)


def _wslconfig_write(f) -> str:
    (write,) = [c for c in f.remediation.commands if c.words[0] == "powershell.exe"]
    assert not any(isinstance(a, Placeholder) for a in (*write.argv, *write.pipe)), "no placeholder in a file write"
    return write.words[-1]


@pytest.mark.parametrize(
    ("said", "memory", "swap"),
    [
        ("RTX 3090 24gb vram\n32.0 GB\ni5-12600K   3.70 GHz", 28, 32),  # Windows' "Installed RAM" value, unlabelled
        ("RTX 4090, 64GB RAM", 56, 64),
        ("RAM: 16 GB, GPU: RTX 3060 12 GB", 12, 16),
    ],
)
@states("wsl-memory-limit", FIRES)
def test_the_wslconfig_is_sized_from_the_ram_the_text_states(said, memory, swap):
    """wsl-memory-limit.md: "Where the report states the host's RAM ... the sizes are written out"."""
    [f] = _wsl_memory(f"Windows 10 WSL Ubuntu 22.04\n{said}\nLoading model ...\nKilled\n")
    assert _wslconfig_write(f).endswith(f'-Value "[wsl2]","memory={memory}GB","swap={swap}GB"')


@pytest.mark.parametrize("said", ["RTX 3090 with 24 GB VRAM", "GPU memory: 24 GB"])
@states("wsl-memory-limit", FIRES)
def test_gpu_memory_is_not_the_hosts_ram_so_powershell_reads_it(said):
    """wsl-memory-limit.md: "else PowerShell reads the RAM on the machine"."""
    [f] = _wsl_memory(f"Ubuntu 22.04 on WSL2\n{said}\nLoading model ...\nKilled\n")
    script = _wslconfig_write(f)
    assert script.startswith("$gb = [math]::Floor((Get-CimInstance Win32_ComputerSystem).TotalPhysicalMemory / 1GB);")
    assert "GB" in script and "memory=$(" in script
