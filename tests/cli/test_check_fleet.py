"""`check --format prometheus|nfd|npd` and `--textfile DIR` (docs/cluster.md) on every recorded machine.

Each machine of tests/machines/ is checked once as JSON and once in each fleet format through the real
CLI; every output is read the way its reader reads it (tests/fleet_formats.py) and compared with the JSON
report of the same machine. Machines with hand-written expectations below say why.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.fleet_formats import nfd_labels, parse_exposition

MACHINES = Path(__file__).resolve().parents[1] / "machines"
SNAPSHOTS = sorted(p.parent.name for p in MACHINES.glob("*/snapshot.json"))


def snap(name: str) -> str:
    return str(MACHINES / name / "snapshot.json")


def _labels(samples, **match) -> list[dict]:
    return [s.labels for s in samples if all(s.labels.get(k) == v for k, v in match.items())]


@pytest.mark.parametrize("name", SNAPSHOTS)
def test_every_machine_in_every_fleet_format(gd, name):
    r = gd("check", "--replay", snap(name), "--format", "json", "--node", "n-1", "-r", "gpus>=1")
    doc = json.loads(r.stdout)
    prom = gd("check", "--replay", snap(name), "--format", "prometheus", "--node", "n-1", "-r", "gpus>=1")
    assert prom.exit_code == r.exit_code
    fams = parse_exposition(prom.stdout)
    assert fams["gpudoctor_check_success"][0].value == 1
    assert fams["gpudoctor_exit_code"][0].value == doc["exit_code"]
    assert fams["gpudoctor_healthy"][0].value == (1 if doc["exit_code"] == 0 else 0)
    # One series per distinct finding, the counts adding up to the report's findings, severity by severity.
    by_sev = {s.labels["severity"]: s.value for s in fams["gpudoctor_findings"]}
    for sev in ("error", "warning", "info"):
        assert by_sev[sev] == sum(1 for f in doc["findings"] if f["severity"] == sev)
    series = fams.get("gpudoctor_finding", [])
    assert sum(s.value for s in series) == len(doc["findings"])
    assert {s.labels["code"] for s in series} == {f["code"] for f in doc["findings"]}
    met = {s.labels["requirement"]: s.value for s in fams["gpudoctor_requirement_met"]}
    assert met == {"gpus>=1": 1 if doc["requirements"][0]["met"] else 0}
    gpus = doc["facts"]["driver"]["gpus"]
    assert len(fams.get("gpudoctor_gpu_info", [])) == len(gpus)

    nfd = gd("check", "--replay", snap(name), "--format", "nfd")
    labels = nfd_labels(nfd.stdout)
    assert labels["healthy"] == ("true" if nfd.exit_code == 0 else "false")
    assert labels["gpu-count"] == str(len(gpus))

    npd = gd("check", "--replay", snap(name), "--format", "npd", "-r", "gpus>=1")
    assert npd.exit_code == {0: 0, 1: 1}.get(doc["exit_code"], 2)
    assert npd.stdout.count("\n") == 1 and len(npd.stdout) <= 161
    if npd.exit_code == 1:
        worst = doc["findings"][0]
        assert npd.stdout.startswith(f"{worst['code']}: ")


def test_failing_gpu_in_prometheus(gd):
    """h100nvl-failing-gpu (tests/machines/h100nvl-failing-gpu/machine.toml): one H100 NVL with ECC errors,
    throttling, an x8 link and memory held, all of GPU 0, so every finding carries gpu="0"; the driver
    550.54.14 supports CUDA 12.4; the per-GPU numbers are the recording's (91 °C, x8 of x16, 2 ECC errors)."""
    r = gd("check", "--replay", snap("h100nvl-failing-gpu"), "--format", "prometheus")
    assert r.exit_code == 1
    fams = parse_exposition(r.stdout)
    assert sorted(
        (s.labels["code"], s.labels["severity"], s.labels["area"], s.labels["gpu"]) for s in fams["gpudoctor_finding"]
    ) == [
        ("gpu-ecc-errors", "error", "health", "0"),
        ("gpu-memory-held", "warning", "memory", "0"),
        ("gpu-throttled", "warning", "health", "0"),
        ("pcie-link-degraded", "warning", "health", "0"),
    ]
    assert _labels(fams["gpudoctor_driver_info"]) == [{"version": "550.54.14", "cuda_version": "12.4"}]
    gpu = {name: fams[name][0].value for name in fams if name.startswith("gpudoctor_gpu_") and name != "gpudoctor_gpu_info"}
    assert gpu["gpudoctor_gpu_temperature_celsius"] == 91
    assert (gpu["gpudoctor_gpu_pcie_link_width"], gpu["gpudoctor_gpu_pcie_link_width_max"]) == (8, 16)
    assert gpu["gpudoctor_gpu_ecc_uncorrected_volatile"] == 2
    assert fams["gpudoctor_gpu_info"][0].labels["name"] == "NVIDIA H100 NVL"
    assert fams["gpudoctor_check_duration_seconds"][0].value > 0


def test_h100x8_versions_as_info_and_labels(gd):
    """h100x8-driver565-torch221-cu121: eight H100s, driver 565.57.01 (CUDA 12.7), torch 2.2.1+cu121 with
    the cuDNN 8.9.2.26 wheel, Python 3.10.12: the info metrics and NFD labels carry exactly these."""
    r = gd("check", "--replay", snap("h100x8-driver565-torch221-cu121"), "--format", "prometheus")
    fams = parse_exposition(r.stdout)
    assert _labels(fams["gpudoctor_framework_info"]) == [
        {"framework": "torch", "version": "2.2.1+cu121", "cuda": "12.1", "rocm": ""}
    ]
    assert _labels(fams["gpudoctor_python_info"])[0]["version"] == "3.10.12"
    assert [s["version"] for s in _labels(fams["gpudoctor_cudnn_info"])] == ["8.9.2.26"]
    assert sorted(s.labels["gpu"] for s in fams["gpudoctor_gpu_info"]) == [str(i) for i in range(8)]
    labels = nfd_labels(gd("check", "--replay", snap("h100x8-driver565-torch221-cu121"), "--format", "nfd").stdout)
    assert {k: labels[k] for k in ("driver-major", "driver", "cuda", "cuda-major", "gpu-count", "gpu-model")} == {
        "driver-major": "565",
        "driver": "565.57.01",
        "cuda": "12.7",
        "cuda-major": "12",
        "gpu-count": "8",
        "gpu-model": "NVIDIA-H100-80GB-HBM3",  # spaces are not allowed in a label value
    }
    assert (labels["torch-cuda"], labels["torch-cuda-version"], labels["torch"]) == ("true", "12.1", "2.2.1-cu121")


def test_cpu_torch_is_labelled_so(gd):
    """rtx3060-laptop-torch-cpu-build: torch 2.13.0+cpu on a working GPU: torch-cuda=false, unhealthy."""
    r = gd("check", "--replay", snap("rtx3060-laptop-torch-cpu-build"), "--format", "nfd")
    labels = nfd_labels(r.stdout)
    assert (labels["torch-cuda"], labels["healthy"], labels["status"]) == ("false", "false", "error")
    assert "torch-cuda-version" not in labels


def test_npd_conditions_by_code(gd):
    """The NPD config runs one plugin per condition with --only (deploy/kubernetes/npd-gpudoctor.json):
    the failing H100 has a hardware problem (ECC) and no driver problem."""
    m = snap("h100nvl-failing-gpu")
    hw = gd(
        "check",
        "--replay",
        m,
        "--format",
        "npd",
        "--fail-on",
        "error",
        "--only",
        "gpu-ecc-errors",
        "--only",
        "pcie-link-degraded",
    )
    assert (hw.exit_code, hw.stdout.split(":")[0]) == (1, "gpu-ecc-errors")
    assert hw.stdout.endswith(" (+1 more)\n")  # pcie-link-degraded, kept by --only: counted, though below --fail-on
    drv = gd("check", "--replay", m, "--format", "npd", "--only", "driver-missing", "--only", "driver-library-mismatch")
    assert (drv.exit_code, drv.stdout) == (0, "gpudoctor: healthy\n")
    bad = gd("check", "--replay", m, "--format", "npd", "--only", "no-such-code")
    assert bad.exit_code == 2 and bad.stdout.startswith("gpudoctor could not check the node: --only no-such-code")


def test_npd_unknown_when_the_doctor_fails(gd, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    r = gd("check", "--replay", str(broken), "--format", "npd")
    assert r.exit_code == 2 and r.stdout.count("\n") == 1 and r.stdout.startswith("gpudoctor could not check the node: ")
    p = gd("check", "--replay", str(broken), "--format", "prometheus")
    fams = parse_exposition(p.stdout)
    assert p.exit_code == 3 and fams["gpudoctor_check_success"][0].value == 0
    assert fams["gpudoctor_exit_code"][0].value == 3


def test_textfile_writes_atomically(gd, tmp_path):
    d = tmp_path / "textfile_collector"
    d.mkdir()
    # A link where the file goes: replaced, never followed (the collector's directory may be writable by others).
    victim = tmp_path / "victim"
    victim.write_text("keep\n", encoding="utf-8")
    (d / "gpudoctor.prom").symlink_to(victim)
    r = gd("check", "--replay", snap("h100nvl-failing-gpu"), "--format", "prometheus", "--textfile", str(d))
    assert r.exit_code == 1 and r.stdout == ""
    out = d / "gpudoctor.prom"
    assert not out.is_symlink() and victim.read_text(encoding="utf-8") == "keep\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o644  # node_exporter may run as another user
    assert sorted(os.listdir(d)) == ["gpudoctor.prom"]  # no temporary file left
    parse_exposition(out.read_text(encoding="utf-8"))
    n = gd("check", "--replay", snap("h100nvl-failing-gpu"), "--format", "nfd", "--textfile", str(d))
    assert n.exit_code == 1 and sorted(os.listdir(d)) == ["gpudoctor", "gpudoctor.prom"]
    assert nfd_labels((d / "gpudoctor").read_text(encoding="utf-8"))["healthy"] == "false"


@pytest.mark.typer_rich
def test_textfile_usage_errors(gd, tmp_path):
    r = gd("check", "--replay", snap("wsl1"), "--format", "json", "--textfile", str(tmp_path))
    assert r.exit_code == 2 and "--textfile is for --format prometheus or nfd" in r.stderr
    missing = tmp_path / "nope"
    r = gd("check", "--replay", snap("wsl1"), "--format", "prometheus", "--textfile", str(missing))
    assert r.exit_code == 2 and f"--textfile {missing}: not a directory" in r.stderr
    assert not missing.exists()


def test_textfile_write_failure_leaves_old_file(gd, tmp_path, monkeypatch):
    d = tmp_path / "tf"
    d.mkdir()
    (d / "gpudoctor.prom").write_text("old\n", encoding="utf-8")

    def fail(src, dst, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    r = gd("check", "--replay", snap("wsl1"), "--format", "prometheus", "--textfile", str(d))
    assert r.exit_code == 3 and "No space left on device" in r.stderr
    assert sorted(os.listdir(d)) == ["gpudoctor.prom"] and (d / "gpudoctor.prom").read_text(encoding="utf-8") == "old\n"
