"""--deep: a framework import in a subprocess can hang or crash without taking the doctor down."""

from __future__ import annotations

import sys

import pytest

from gpudoctor.host.live import LiveHost
from gpudoctor.probes.deep import introspect


@pytest.fixture
def fake_site(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    return tmp_path


def write_package(site, name, body):
    (site / name).mkdir()
    (site / name / "__init__.py").write_text(body)


def test_hanging_import_times_out(fake_site):
    write_package(fake_site, "torch", "import time\ntime.sleep(60)\n")
    reply = introspect(LiveHost(), sys.executable, "torch", timeout_s=1.0)
    assert reply["timeout"] is True and "did not finish within 1 s" in reply["error"]


def test_crashing_import_is_reported_with_its_exit_status(fake_site):
    write_package(fake_site, "torch", "import os\nos.abort()\n")
    reply = introspect(LiveHost(), sys.executable, "torch", timeout_s=20.0)
    assert reply["crashed"] is True and reply["error"].startswith("exit status -6")


def test_import_error_text_is_kept_exactly(fake_site):
    write_package(
        fake_site,
        "tensorflow",
        'raise ImportError("libcudart.so.11.0: cannot open shared object file: No such file or directory")\n',
    )
    reply = introspect(LiveHost(), sys.executable, "tensorflow", timeout_s=20.0)
    assert reply["error"] == "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"


def test_missing_interpreter():
    reply = introspect(LiveHost(), "/nonexistent/python3", "jax", timeout_s=5.0)
    assert reply["error"] == "no interpreter at /nonexistent/python3"


def test_a_recorded_deep_reply_replays_and_is_judged_on():
    """A snapshot can hold the --deep reply under "gpudoctor-deep torch"; the arch check then uses
    PyTorch's own arch list instead of the matrix's."""
    import json
    from pathlib import Path

    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot
    from gpudoctor.probes import ProbeOptions

    machine = Path(__file__).resolve().parents[1] / "machines" / "rtx5070-torch-cu121-no-sm120" / "snapshot.json"
    snapshot = load_snapshot(str(machine))
    reply = {
        "framework": "torch",
        "version": "2.2.1+cu121",
        "cuda": "12.1",
        "available": True,
        "device_count": 1,
        "arch_list": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
    }
    snapshot["commands"]["gpudoctor-deep torch"] = {"rc": 0, "stdout": "GPUDOCTOR-JSON " + json.dumps(reply), "stderr": ""}
    report = diagnose(ReplayHost(snapshot), ProbeOptions(deep=True))
    assert report.facts.frameworks.deep["torch"]["arch_list"][-1] == "sm_90"
    arch = [f for f in report.findings if f.code == "framework-arch-unsupported"]
    assert len(arch) == 1 and arch[0].evidence[0].source == "deep:torch.cuda.get_arch_list()"
