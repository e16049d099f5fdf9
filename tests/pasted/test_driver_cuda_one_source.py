"""Issue 31, item 3: the newest CUDA a driver supports has one source (checks.driver.driver_cuda).

collect_env shows the driver's version, never its CUDA: the status line took the matrix's answer (11.4 for
R470) while framework-driver-too-old printed "supports CUDA up to ?". Both now read the same function.
"""

from __future__ import annotations

from gpudoctor.checks import Context
from gpudoctor.checks.driver import driver_cuda
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.read import Source
from gpudoctor.render.terminal import area_summaries

COLLECT_ENV = """Collecting environment information...
PyTorch version: 2.1.2+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Ubuntu 20.04.6 LTS (x86_64)
Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Is CUDA available: False
CUDA runtime version: No CUDA
GPU models and configuration: GPU 0: Tesla T4
Nvidia driver version: 470.199.02
cuDNN version: No CUDA
"""


def _report(text: str):
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("issue.txt", text)]), "pasted text")))


def test_the_finding_and_the_status_line_state_the_same_cuda():
    report = _report(COLLECT_ENV)
    facts = report.facts
    ctx = Context()
    assert (facts.driver.version, facts.driver.cuda_version) == ("470.199.02", None)  # collect_env shows no driver CUDA
    assert driver_cuda(facts, ctx.matrix) == ("11.4", True)  # R470's, by the matrix
    (finding,) = [f for f in report.findings if f.code == "framework-driver-too-old"]
    assert "up to 11.4" in finding.detail and "?" not in finding.detail
    assert "CUDA 11.4" in area_summaries(facts, ctx.matrix)["driver"]


def test_a_reported_cuda_wins_over_the_matrix():
    report = _report(COLLECT_ENV + "UserWarning: The NVIDIA driver on your system is too old (found version 11020).\n")
    assert driver_cuda(report.facts, Context().matrix) == ("11.2", False)
