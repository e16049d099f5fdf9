"""The driver's state on a Linux node as a paste shows it: an nvidia-smi header whose own version is another driver
release than its `Driver Version` is WSL only where that driver is a Windows one (numbered <branch>.<two digits>,
beside a three-number nvidia-smi or one of an older branch); on Linux it is an nvidia-smi (and libcuda) of another release than the kernel module, a
finding when nvidia-smi finds no CUDA driver (`CUDA Version: N/A`). Short pastes written for these tests; codes,
cues and argv, not prose."""

from __future__ import annotations

from pathlib import Path

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
        ("560.35.02", "560.94", True),  # the same branch: WSL's three-number nvidia-smi beside the Windows driver
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


# --- cuda-init-unknown: CUDA's first call answers 999 on Linux ------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _unknown(report):
    return [f for f in report.findings if f.code == "cuda-init-unknown"]


def _argvs(finding) -> list[tuple[str, ...]]:
    return [c.words for c in finding.remediation.commands if isinstance(c, Cmd)]


_RELOAD = [("lsmod",), ("rmmod", "nvidia_uvm"), ("modprobe", "nvidia_uvm")]


@pytest.mark.parametrize(
    "example", ["pytorch-88639-cuda-unknown-error-after-suspend.txt", "jaxsim-50-cuinit-unknown-after-suspend.txt"]
)
def test_real_reports_after_suspend_reload_nvidia_uvm_and_say_how_to_keep_it(example):
    report, _ = _run((EXAMPLES / example).read_text(encoding="utf-8"))
    [f] = _unknown(report)
    assert _argvs(f) == _RELOAD
    assert [c.root for c in f.remediation.commands] == [False, True, True]
    alt = f.remediation.alternative
    assert alt is not None
    assert any("NVreg_PreserveVideoMemoryAllocations=1" in " ".join(a) for a in _argvs_of(alt))
    assert ("systemctl", "enable", "nvidia-suspend.service", "nvidia-hibernate.service", "nvidia-resume.service") in _argvs_of(
        alt
    )


def _argvs_of(r) -> list[tuple[str, ...]]:
    return [c.words for c in r.commands if isinstance(c, Cmd)]


def test_ollamas_cudart_999_without_suspend_said_is_the_reload_alone():
    text = (
        'time=2024-10-01T10:00:00.000Z level=DEBUG source=gpu.go:533 msg="Unable to load cudart" '
        'library=/usr/lib/ollama/libcudart.so.12.4.127 error="cudart init failure: 999"\n'
    )
    report, steps = _run(text)
    [f] = _unknown(report)
    assert _argvs(f) == _RELOAD and f.remediation.alternative is None
    assert ("rmmod", "nvidia_uvm") in [c.words for c in steps]


def test_in_a_container_the_reload_is_the_hosts():
    text = (
        "I run it inside a docker container; after the host woke up from suspend:\n"
        "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env "
        "variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.\n"
    )
    report, _ = _run(text)
    [f] = _unknown(report)
    assert f.remediation.where == "the host" and _argvs(f) == _RELOAD


@pytest.mark.parametrize(
    "text",
    [
        # another cudart error number (100: no device) is not this
        (EXAMPLES / "ollama-9496-cudart-init-failure-100.txt").read_text(encoding="utf-8"),
        # WSL 2: the driver is Windows'; nvidia_uvm is no module there
        "Ubuntu 22.04 on WSL2\nUserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly "
        "set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start.\n",
        # nvidia-smi fails as well: the driver itself is unreachable, another finding's
        "after suspend\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
        "latest NVIDIA driver is installed and running.\nfailed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error\n",
        # the machine suspended, nothing failed
        "$ systemctl suspend\nafter waking up everything works, torch.cuda.is_available() is True\n",
        # cuInit's other errors are not this
        "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n",
    ],
)
def test_cuda_init_unknown_quiet_twins(text):
    report, _ = _run(text)
    assert not _unknown(report)
