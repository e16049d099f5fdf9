"""CUDA error 802 beside a driver that answers is the fabric manager (checks.catalogued.devices.check_fabric_manager,
branch h297), and the reporter's words that the GPU is not used beside it are that same failure, not an unused GPU's
generic causes (checks.reported._decided_cuda_error)."""

from __future__ import annotations

import pytest

from tests.pasted.test_windows_loader_codes import _case, _run

pytestmark = pytest.mark.slow


def test_error_802_with_nvidia_smi_answering_installs_the_fabric_manager_of_the_drivers_version():
    # tests/blind/plans21/cases/2118-* (pytorch/pytorch#35710): driver 440.64's nvidia-smi table, torch's error 802
    _, codes, _ = _run(_case("plans21", "2118-"))
    assert set(codes) == {"fabric-manager-not-running"}  # (no conditional torch reinstall, no unused-GPU causes)
    f = codes["fabric-manager-not-running"]
    assert "440.64" in f.remediation.summary
    assert [c.words for c in f.remediation.commands][-1] == ("systemctl", "enable", "--now", "nvidia-fabricmanager")


def test_error_802_without_the_driver_shown_stays_asked():
    # tests/blind/plans15/cases/1509-* (CuPy's 802, no nvidia-smi) and plans7/624-* (the GPU Operator's validator in a
    # pod): the asks (systemctl status nvidia-fabricmanager, the fabric state) decide
    for blind_set, prefix in (("plans15", "1509-"), ("plans7", "624-")):
        _, codes, asks = _run(_case(blind_set, prefix))
        assert "fabric-manager-not-running" not in codes
        assert any(a[:3] == ("systemctl", "status", "nvidia-fabricmanager") for a in asks)
