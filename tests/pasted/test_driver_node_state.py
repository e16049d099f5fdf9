"""The driver's state on a Linux node as a paste shows it: an nvidia-smi header whose own version is another driver
release than its `Driver Version` is WSL only where that driver is a Windows one (a later branch, numbered
<branch>.<two digits>); on Linux it is an nvidia-smi (and libcuda) of another release than the kernel module, a
finding when nvidia-smi finds no CUDA driver (`CUDA Version: N/A`). Short pastes written for these tests; codes,
cues and argv, not prose."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.facts import SMI_OTHER_RELEASE
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner import where
from gpudoctor.planner.prescribe import build


def _run(text: str):
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    report = diagnose(ReplayHost(snap))
    plan = build(report.findings, where.shell(report.facts))
    steps = [c for s in plan.steps for c in s.commands if isinstance(c, Cmd)]
    return report, steps


def _smi(smi: str, driver: str, cuda: str, gpu: str = "NVIDIA A100 80GB PCIe") -> str:
    return (
        "+-----------------------------------------------------------------------------+\n"
        f"| NVIDIA-SMI {smi:<14} Driver Version: {driver:<12} CUDA Version: {cuda:<8}|\n"
        "|-------------------------------+----------------------+----------------------+\n"
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
        "|===============================+======================+======================|\n"
        f"|   0  {gpu[:18]:<18}  Off  | 00000000:01:00.0 Off |                    0 |\n"
        "| N/A   40C    P0    60W / 300W |      0MiB / 81920MiB |      0%      Default |\n"
        "+-------------------------------+----------------------+----------------------+\n"
    )


@pytest.mark.parametrize(
    ("smi", "driver", "wsl"),
    [
        ("545.29.04", "546.17", True),  # WSL 2: the Windows driver of the same release
        ("570.86.16", "572.16", True),
        ("470.57.02", "510.06", True),  # the WSL preview's Windows driver beside its older nvidia-smi
        ("440.59", "550.100", False),  # a Linux module: three-digit minor
        ("390.48", "390.59", False),  # a copied nvidia-smi of the same branch
        ("535.104.05", "550.54.15", False),  # a Linux driver's three numbers
    ],
)
def test_a_differing_driver_version_is_wsl_only_where_it_is_a_windows_driver(smi, driver, wsl):
    report, _ = _run("$ nvidia-smi\n" + _smi(smi, driver, "12.2"))
    assert bool(report.facts.platform.wsl) is wsl
    other = [c for c in report.facts.pasted.cues if c.get("cue") == SMI_OTHER_RELEASE]
    assert bool(other) is not wsl


def _mismatch(report):
    return [f for f in report.findings if f.code == "driver-library-mismatch"]


def test_an_old_nvidia_smi_that_finds_no_cuda_driver_on_a_cluster_job_asks_in_the_job():
    text = (
        "I submit the job with SGE:\nqsub -l gpu=1 -l h_vmem=64G check.sh\n\n# check.sh\nnvidia-smi\n\n"
        + _smi("418.87.01", "535.129.03", "N/A")
        + "RuntimeError: No CUDA GPUs are available\n"
    )
    report, steps = _run(text)
    assert report.facts.platform.wsl is None or not report.facts.platform.wsl
    [finding] = _mismatch(report)
    argvs = [c.words for c in steps]
    assert ("which", "-a", "nvidia-smi") in argvs
    assert ("cat", "/proc/driver/nvidia/version") in argvs
    assert ("module", "list") in argvs  # a cluster: an environment module may put the old tree first
    assert not any(c.root for c in steps)  # the user's own checks, nothing of the administrators'


def test_the_same_on_a_workstation_has_no_module_list():
    report, steps = _run("$ nvidia-smi\n" + _smi("470.82.00", "550.54.15", "N/A"))
    assert len(_mismatch(report)) == 1
    argvs = [c.words for c in steps]
    assert ("which", "-a", "nvidia-smi") in argvs and ("module", "list") not in argvs


@pytest.mark.parametrize(
    "text",
    [
        # a copied nvidia-smi one release off still reads the driver: no CUDA field in that era, nothing failed
        "root@c0ffee:~# ./nvidia-smi\n"
        + _smi("390.48", "390.59", "").replace("CUDA Version:         ", "                      "),
        # the same release pair with CUDA shown: the library answers
        "$ nvidia-smi\n" + _smi("535.104.05", "550.54.15", "12.4"),
        # WSL 2 with its CUDA shown and nothing failing
        "$ nvidia-smi\n" + _smi("550.54.10", "551.61", "12.4", "NVIDIA GeForce RTX 4090"),
    ],
)
def test_quiet_twins(text):
    report, _ = _run(text)
    assert not _mismatch(report)
    assert not [f for f in report.findings if f.severity.name == "ERROR"]
