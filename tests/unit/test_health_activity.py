"""Load, not presence: link health is judged on what the GPU is doing (performance state, utilisation,
NVML's gpu_idle reason), never on whether some process holds memory on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks.health import _busy
from gpudoctor.facts import Gpu, Process

HELD = (Process(4242, "python3", 9 * 1024**3, "C"),)
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.mark.parametrize(
    ("gpu", "busy"),
    [
        (Gpu(0, "g", processes=HELD, performance_state="P8", utilization_gpu_percent=0), False),  # holds memory, parked
        (Gpu(0, "g", processes=HELD, performance_state="P8"), False),  # P8 alone: clocks parked
        (Gpu(0, "g", processes=HELD, throttle_reasons=("gpu_idle",)), False),
        (Gpu(0, "g", performance_state="P0", utilization_gpu_percent=97), True),  # load from another container
        (Gpu(0, "g", processes=HELD, performance_state="P2", utilization_gpu_percent=0), True),  # a context at P2
        (Gpu(0, "g", processes=HELD), True),  # nothing else known: the process is all there is
        (Gpu(0, "g"), False),
    ],
)
def test_busy_is_activity(gpu, busy):
    assert _busy(gpu) is busy


def test_nvidia_smi_xml_gives_utilisation():
    from gpudoctor.parsers.nvidia_smi_xml import parse_nvidia_smi_xml
    from gpudoctor.probes.driver import gpus_from_smi_xml

    text = (FIXTURES / "nvidia-smi-xml/rtx-4000-sff-ada_driver-595.84_cuda-13.2_processes.xml").read_text(encoding="utf-8")
    gpu = gpus_from_smi_xml(parse_nvidia_smi_xml(text))[0]
    assert (gpu.performance_state, gpu.utilization_gpu_percent, gpu.pcie_gen_current) == ("P8", 0, 1)
    assert gpu.processes and not _busy(gpu)
