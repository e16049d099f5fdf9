"""A driver too old for the framework's CUDA on a hosted notebook (Colab, Kaggle): the driver is the platform's, so the
fix is the build for the CUDA it serves or another runtime, never a driver upgrade and a machine restart (plans23 2361,
NVlabs/few-shot-vid2vid#50; tests/pasted/cases/colabtools-1773-*). A Jupyter on one's own machine keeps the upgrade."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

TESTS = Path(__file__).resolve().parent.parent
VID2VID_50 = (
    "blind/plans23/cases/2361-fewshotvid2vid50-colab-gpu-runtime-driver-41867-torch-14-build-newer-cuda-than-driver-"
    "insufficient-driver/input.txt"
)
COLABTOOLS_1773 = "pasted/cases/colabtools-1773-colab-torch-newer-than-driver-found-10010/report.txt"


def _finding(text: str):
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    (f,) = [f for f in diagnose(ReplayHost(snap)).findings if f.code == "framework-driver-too-old"]
    return f


@pytest.mark.parametrize("case", [VID2VID_50, COLABTOOLS_1773])
def test_a_hosted_notebook_gets_the_build_not_a_driver(case):
    f = _finding((TESTS / case).read_text(encoding="utf-8"))
    argv = [c.argv for c in f.remediation.commands]
    assert argv[0] == ("nvidia-smi",) and argv[1][:2] == ("python3", "-c")
    assert not f.remediation.requires_root and "CUDA <= 10.1" in f.remediation.summary


def test_a_local_jupyter_keeps_the_driver_upgrade():
    text = (TESTS / COLABTOOLS_1773).read_text(encoding="utf-8").replace("google colab", "jupyter on my PC")
    text = text.replace("google coolab", "jupyter")
    f = _finding(text)
    assert f.remediation.requires_root
