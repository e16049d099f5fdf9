"""docs/findings/fabric-manager-not-running.md, each documented rule as a test on a minimal pasted text (the real
threads, plans21/2118 and wilicc/gpu-burn#92, are in tests/pasted/test_fabric_manager.py)."""

from __future__ import annotations

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.spec.registry import FIRES, QUIET, states

_SMI = "| NVIDIA-SMI 535.183.01   Driver Version: 535.183.01   CUDA Version: 12.2     |\n"


def _found(text: str) -> list:
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    return [f for f in diagnose(ReplayHost(snap)).findings if f.code == "fabric-manager-not-running"]


@pytest.mark.parametrize(
    "error",
    [
        "RuntimeError: CUDA error: system not yet initialized\n",
        'CUDA error at bandwidthTest.cu:256 code=802(cudaErrorSystemNotReady) "cudaSetDevice(currentDevice)"\n',
    ],
)
@states("fabric-manager-not-running", FIRES)
def test_error_802_beside_the_drivers_version_fires(error):
    """fabric-manager-not-running.md: "the 802 message ... beside the driver's version"."""
    [f] = _found("Ubuntu 22.04\n" + _SMI + error)
    argvs = [c.words for c in f.remediation.commands]
    assert argvs[-1] == ("systemctl", "enable", "--now", "nvidia-fabricmanager")
    assert "535.183.01" in f.remediation.summary  # (the fabric manager's version is the driver's)


@pytest.mark.parametrize(
    "text",
    [
        "Ubuntu 22.04\nRuntimeError: CUDA error: system not yet initialized\n",  # no driver shown: the asks decide
        "Windows 11, WSL2 Ubuntu\n" + _SMI + "RuntimeError: CUDA error: system not yet initialized\n",
        "$ kubectl exec -it trainer-0 -n ml -- python3 train.py\n"
        + _SMI
        + "RuntimeError: CUDA error: system not yet initialized\n",
    ],
)
@states("fabric-manager-not-running", QUIET)
def test_not_said_without_the_driver_or_in_wsl_or_a_pod(text):
    """fabric-manager-not-running.md: "Not said where no driver is shown ..., in a container or a Kubernetes pod ...,
    or on Windows or WSL"."""
    assert not _found(text)
