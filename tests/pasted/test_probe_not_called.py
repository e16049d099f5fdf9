"""The NVIDIA module's "probe routine was not called for N device(s)": another driver took the GPUs first, of its list
nouveau (NVIDIA/open-gpu-kernel-modules kernel-open/nvidia/nv.c): driver-nouveau, not an install of a driver that is
there (plans23 2368, mattshma/bigdata#133; tests/pasted/cases/ironhide-41-*). A GPU passed to a VM (vfio-pci) stops
the probe too: then nothing is read as nouveau."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

TESTS = Path(__file__).resolve().parent.parent
BIGDATA_133 = (
    "blind/plans23/cases/2368-mattshma133-centos-rhel-yum-cuda-drivers-38481-v100-nouveau-owns-gpus-nvidia-module-not-"
    "loaded/input.txt"
)
PROBE = (
    "[ 18.761437] NVRM: The NVIDIA probe routine was not called for 1 device(s).\n"
    "[ 18.761439] NVRM: This can occur when a driver such as: \n"
    "NVRM: nouveau, rivafb, nvidiafb or rivatv \n"
    "NVRM: was loaded and obtained ownership of the NVIDIA device(s).\n"
    "[ 18.761447] NVRM: No NVIDIA graphics adapter probed!\n"
)


def _codes(text: str) -> set[str]:
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    return {f.code for f in diagnose(ReplayHost(snap)).findings}


def test_the_probe_not_called_reads_as_nouveau_holding_the_gpus():
    codes = _codes((TESTS / BIGDATA_133).read_text(encoding="utf-8"))
    assert "driver-nouveau" in codes and "driver-missing" not in codes


def test_a_gpu_given_to_vfio_is_not_read_as_nouveau():
    assert "driver-nouveau" in _codes("```\n" + PROBE + "```\n")
    assert "driver-nouveau" not in _codes("the GPU is bound to vfio-pci for the VM\n```\n" + PROBE + "```\n")
