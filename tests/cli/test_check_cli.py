"""The real CLI, as a user runs it: exit codes, JSON contract, bad input never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

BASE = {"format": "gpudoctor-snapshot/1", "env": {"PATH": "/usr/bin"}}


def gpudoctor(*args, env=None, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "gpudoctor", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def write(tmp_path, snapshot, name="machine.json"):
    path = tmp_path / name
    path.write_text(json.dumps({**BASE, **snapshot}))
    return str(path)


def test_hanging_nvidia_smi_is_reported_within_the_time_limit(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    script = fake / "nvidia-smi"
    script.write_text("#!/bin/sh\nsleep 300\n")
    script.chmod(0o755)
    # No bound on how long the check took (that is the machine's speed): it must end long before the
    # hanging nvidia-smi would (subprocess.run raises TimeoutExpired otherwise), and say it timed out.
    result = gpudoctor(
        "check", "--format", "json", "--probe-timeout", "1", env={"PATH": f"{fake}:{os.environ['PATH']}"}, timeout=240
    )
    doc = json.loads(result.stdout)
    timeouts = [f for f in doc["findings"] if f["code"] == "probe-timeout"]
    assert len(timeouts) == 1 and "nvidia-smi" in timeouts[0]["title"]
    assert doc["facts"]["driver"]["smi_status"] == "timeout"
    assert result.returncode == 1
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "stdout",
    [
        "<?xml version='1.0'?><nvidia_smi_log><driver_version>550.1",  # truncated
        "\x00\x01garbage\xff not xml at all",
        "",
    ],
)
def test_bad_nvidia_smi_output_is_a_finding_not_a_crash(tmp_path, stdout):
    path = write(tmp_path, {"commands": {"nvidia-smi -q -x": {"rc": 0, "stdout": stdout, "stderr": ""}}})
    result = gpudoctor("check", "--replay", path, "--format", "json")
    assert "Traceback" not in result.stderr
    doc = json.loads(result.stdout)
    assert doc["facts"]["driver"]["smi_status"] == "failed"
    assert result.returncode in (0, 1)


def test_binary_proc_file_dangling_link_and_unreadable_dir(tmp_path):
    path = write(
        tmp_path,
        {
            "files": {
                "/proc/driver/nvidia/version": {"type": "file", "binary": True},
                "/usr/local/cuda": {"link": "/usr/local/cuda-10.2"},
            },
            "dirs": {"/usr/local": {"error": "EACCES"}, "/opt": {"error": "EACCES"}},
        },
    )
    result = gpudoctor("check", "--replay", path, "--format", "json")
    assert "Traceback" not in result.stderr
    codes = {f["code"] for f in json.loads(result.stdout)["findings"]}
    assert "cuda-link-dangling" in codes
    assert "probe-failed" in codes  # the kernel driver file could not be parsed


def test_invalid_snapshot_is_a_clean_error_with_exit_3(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    result = gpudoctor("check", "--replay", str(bad))
    assert result.returncode == 3
    assert "not valid JSON" in result.stderr and "Traceback" not in result.stderr
    result = gpudoctor("check", "--replay", str(bad), "--format", "json")
    assert result.returncode == 3
    assert json.loads(result.stdout)["status"] == "doctor-error"


def test_usage_error_exit_2():
    result = gpudoctor("check", "--fail-on", "sometimes")
    assert result.returncode == 2


def test_a_pip_assembled_toolkit_is_reported_with_its_version(tmp_path):
    """The project's build machine has CUDA 13.0 assembled from pip wheels at /usr/local/cuda-13.0 (no
    version.json, a dist-info names it): the same tree is built here in a temporary root, so the test runs,
    and means the same, on any machine."""
    from gpudoctor.doctor import diagnose
    from gpudoctor.facts import to_json
    from tests.unit.test_switch_cuda import host_for, make_machine

    root = make_machine(tmp_path, trees=("cuda-13.0",), link_to="cuda-13.0")
    facts = to_json(diagnose(host_for(root)).facts)
    toolkits = facts["toolkits"]["toolkits"]
    assert [(t["root"], t["version"], t["version_source"]) for t in toolkits] == [
        ("/usr/local/cuda-13.0", "13.0.88", "dist-info")
    ]
    assert facts["toolkits"]["link"]["resolved"] == "/usr/local/cuda-13.0"
