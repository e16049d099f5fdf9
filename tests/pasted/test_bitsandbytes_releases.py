"""bitsandbytes loading its CPU library (issues 27/28): which release ships a library for torch's CUDA, and the pin that
fits the installed torch (compat_matrix/libraries.toml, bitsandbytes). Minimal pastes, data asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.matrix import load_matrix
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.planner import where
from gpudoctor.planner.prescribe import build

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
CPU_LIBRARY = (
    "UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit "
    "multiplication, and GPU quantization are unavailable.\n"
)


def _run(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    plan = build(report.findings, where.shell(report.facts))
    steps = [c.argv for s in plan.steps for c in s.commands if isinstance(c, Cmd)]
    asks = [a.command.argv for a in ask_for(report.facts, report.findings)]
    return {f.code: f for f in report.findings if f.severity >= Severity.WARNING}, steps, asks


@pytest.mark.parametrize(
    ("cuda", "torch", "python", "pin"),
    [
        ("12.6", "2.6.0+cu126", "3.12", "0.50.1"),  # the newest release; it requires torch>=2.4
        ("12.1", "2.1.2+cu121", "3.10", "0.45.5"),  # 0.46 requires torch>=2.2: the last release for torch 2.0-2.1
        ("12.4", "2.3.1+cu124", "3.9", "0.48.2"),  # 0.49 requires Python 3.10
        ("12.2", None, "3.10", "0.45.0"),  # torch not known: the newest release naming no torch version
        ("12.9", "2.8.0+cu129", "3.11", "0.50.1"),
    ],
)
def test_the_pin_ships_torchs_cuda_and_accepts_the_installed_torch(cuda, torch, python, pin):
    row = load_matrix().bnb_pin_for(cuda, torch, python)
    assert row is not None and row.pin == pin
    assert row.ships(cuda) and row.accepts(torch, python)


def test_the_first_release_with_a_library_for_each_cuda():
    m = load_matrix()
    assert {c: m.bnb_first_for(c).since for c in ("12.2", "12.5", "12.6", "12.8", "13.0")} == {
        "12.2": "0.43.0",
        "12.5": "0.43.2",
        "12.6": "0.45.0",
        "12.8": "0.45.3",
        "13.0": "0.48.0",
    }
    assert m.bnb_first_for("10.2") is None and m.bnb_pin_for("13.0", "2.2.2+cu130", "3.11") is None


def test_a_cuda_torch_on_windows_gets_a_release_that_ships_its_cuda_pinned_to_fit_that_torch():
    codes, steps, asks = _run("`Python 3.12.7`\n`torch-2.6.0+cu126-cp312-cp312-win_amd64`\n" + CPU_LIBRARY)
    f = codes["companion-torch-mismatch"]
    assert f.severity == Severity.ERROR and "12.6" in f.title
    assert steps == [("python", "-m", "pip", "install", "bitsandbytes==0.50.1")]
    assert ("python", "-m", "pip", "show", "bitsandbytes", "torch") in asks


def test_a_linux_venv_with_an_older_torch_keeps_that_torch():
    text = (
        "$ /home/me/venv/bin/python -c 'import torch; print(torch.__version__)'\n2.1.2+cu121\n"
        "/home/me/venv/lib/python3.10/site-packages/bitsandbytes/cextension.py:34: " + CPU_LIBRARY
    )
    codes, steps, _ = _run(text)
    assert "companion-torch-mismatch" in codes
    assert steps[-1][-2:] == ("install", "bitsandbytes==0.45.5")


def test_the_message_without_torch_is_a_warning_and_the_versions_are_asked():
    codes, steps, asks = _run((EXAMPLES / "basaran-3-docker-conda-bnb-compiled-without-gpu.txt").read_text())
    f = codes["companion-torch-mismatch"]
    assert f.severity == Severity.WARNING and f.remediation is None
    assert steps == []
    assert any(a[-4:] == ("pip", "show", "bitsandbytes", "torch") for a in asks)


def test_a_missing_cuda_binary_named_by_045_pins_a_release_for_torchs_cuda():
    codes, steps, _ = _run(
        "torch 2.4.1+cu126\n"
        "WARNING  bitsandbytes.cextension:cextension.py:94 Could not find the bitsandbytes CUDA binary at "
        "PosixPath('/usr/local/lib/python3.10/dist-packages/bitsandbytes/libbitsandbytes_cuda126.so')\n"
        "WARNING  bitsandbytes.cextension:cextension.py:101 " + CPU_LIBRARY
    )
    assert list(codes) == ["companion-torch-mismatch"]
    assert steps[-1][-2:] == ("install", "bitsandbytes==0.50.1")


def test_a_cpu_torch_is_not_blamed_on_bitsandbytes():
    codes, steps, _ = _run("torch 2.1.0+cpu\n" + CPU_LIBRARY)
    assert "companion-torch-mismatch" not in codes
    assert not any("bitsandbytes" in " ".join(map(str, s)) for s in steps)


def test_a_working_bitsandbytes_is_quiet():
    codes, steps, _ = _run(
        "torch 2.6.0+cu126\nbitsandbytes 0.45.0\n$ python -m bitsandbytes\nCUDA specs: CUDASpecs(highest_compute_"
        "capability=(8, 6), cuda_version_string='126', cuda_version_tuple=(12, 6))\nChecking that the library is "
        "importable and CUDA is callable...\nSUCCESS!\n"
    )
    assert "companion-torch-mismatch" not in codes and steps == []


def test_a_listed_release_too_old_for_torchs_cuda_is_named_by_the_matrix():
    codes, steps, _ = _run("torch 2.6.0+cu126\nbitsandbytes 0.44.1\n")
    f = codes["companion-torch-mismatch"]
    assert "0.44.1 ships no library for torch's CUDA 12.6" in f.detail
    assert steps[-1][-2:] == ("install", "bitsandbytes==0.50.1")
