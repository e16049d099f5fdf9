"""`gpudoctor report merge`: JSON reports of several replayed nodes -> nodes by findings, and drifted facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import machine, machine_variant

A = machine("rtx4090-torch-cu121")


def _drift(snap: dict) -> None:
    """The same node after a driver update to 535.104.05 (kernel module, sysfs and nvidia-smi agree)."""
    for path in ("/proc/driver/nvidia/version", "/sys/module/nvidia/version"):
        snap["files"][path] = snap["files"][path].replace("535.86.05", "535.104.05")
    smi = snap["commands"]["nvidia-smi -q -x"]
    smi["stdout"] = smi["stdout"].replace("535.86.05", "535.104.05")


@pytest.fixture()
def reports(gd, tmp_path) -> Path:
    out = tmp_path / "reports"
    out.mkdir()
    drifted = machine_variant(tmp_path, "rtx4090-torch-cu121", _drift)
    runs = {
        "gpu-01.json": ("--replay", A, "--node", "gpu-01"),
        "gpu-02.json": ("--replay", A, "--node", "gpu-02", "-r", "gpus>=2"),
        "gpu-03.json": ("--replay", drifted),  # no --node under replay: named after its file
        "gpu-04.json": ("--replay", A, "--node", "gpu-04", "-r", "gpus>=2 driver>=550"),
    }
    for name, args in runs.items():
        r = gd("check", "--format", "json", *args)
        assert r.exit_code in (0, 1), r.output
        (out / name).write_text(r.stdout, encoding="utf-8")
    (out / "notes.txt").write_text("not a report, and not *.json: skipped\n", encoding="utf-8")
    return out


SAME = (
    "Same on every node:\n"
    "  GPU models             1 × NVIDIA GeForce RTX 4090\n"
    "  GPU count              1\n"
    "  CUDA (driver)          12.2\n"
    "  PCIe link width        x16\n"
    "  PCIe generation (max)  Gen3\n"
    "  CUDA toolkits          none\n"
    "  cuDNN                  8.9.2.26\n"
    "  Python                 3.11.2\n"
    "  PyTorch build          2.2.1+cu121 (CUDA 12.1)\n"
    "  TensorFlow build       absent\n"
    "  JAX build              absent\n"
    "  NVIDIA wheels          nvidia-cublas-cu12 12.1.3.1, nvidia-cuda-cupti-cu12 12.1.105, nvidia-cuda-nvrtc-cu12 12.1.105, "
    "nvidia-cuda-runtime-cu12 12.1.105, nvidia-cudnn-cu12 8.9.2.26, nvidia-cufft-cu12 11.0.2.54, nvidia-curand-cu12 10.3.2.106, "
    "nvidia-cusolver-cu12 11.4.5.107, nvidia-cusparse-cu12 12.1.0.106, nvidia-nccl-cu12 2.19.3, nvidia-nvjitlink-cu12 12.4.99, "
    "nvidia-nvtx-cu12 12.1.105\n"
    "  kernel                 6.1.0-18-amd64\n"
    "  OS                     Debian GNU/Linux 12 (bookworm)\n"
    "  container              none\n"
)


@pytest.mark.typer_rich
def test_merge_directory_text(gd, reports):
    r = gd("report", "merge", str(reports))
    assert r.exit_code == 1  # two nodes have errors
    assert r.stdout == (
        "4 node(s): 2 healthy, 2 error\n"
        "\n"
        "NODE    STATUS   EXIT  requirement-unmet\n"
        "gpu-01  healthy  0     .\n"
        "gpu-02  error    1     E\n"
        "gpu-03  healthy  0     .\n"
        "gpu-04  error    1     E\n"
        "\n"
        "Findings (E error, W warning, i note):\n"
        "  requirement-unmet (error) on 2 of 4: gpu-02, gpu-04\n"
        "    requirement not met: gpus>=2  [gpu-02, gpu-04]\n"
        "    requirement not met: driver>=550  [gpu-04]\n"
        "\n"
        "Facts that differ between nodes:\n"
        "  driver version:\n"
        "    535.86.05   gpu-01, gpu-02, gpu-04\n"
        "    535.104.05  gpu-03\n"
        "\n" + SAME
    )


def test_merge_json(gd, reports):
    r = gd("report", "merge", "--format", "json", *sorted(str(p) for p in reports.glob("*.json")))
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["schema"] == "gpudoctor.merge/1" and doc["exit_code"] == 1
    assert [(n["node"], n["status"], n["exit_code"]) for n in doc["nodes"]] == [
        ("gpu-01", "healthy", 0),
        ("gpu-02", "error", 1),
        ("gpu-03", "healthy", 0),
        ("gpu-04", "error", 1),
    ]
    assert doc["differences"] == {
        "driver": [{"value": "535.86.05", "nodes": ["gpu-01", "gpu-02", "gpu-04"]}, {"value": "535.104.05", "nodes": ["gpu-03"]}]
    }
    assert doc["codes"]["requirement-unmet"]["nodes"] == ["gpu-02", "gpu-04"]
    assert doc["same"]["gpu_models"] == "1 × NVIDIA GeForce RTX 4090"
    assert doc["nodes"][3]["requirements"] == [
        {"spec": "gpus>=2", "kind": "gpus", "area": "gpu", "met": False, "found": "1 GPU(s)"},
        {"spec": "driver>=550", "kind": "driver", "area": "driver", "met": False, "found": "driver 535.86.05"},
    ]
    assert doc["unreadable"] == []


def test_healthy_nodes_exit_0_and_drift_fails_only_when_asked(gd, reports):
    healthy = [str(reports / "gpu-01.json"), str(reports / "gpu-03.json")]
    r = gd("report", "merge", *healthy)
    assert r.exit_code == 0
    assert r.stdout.startswith("2 node(s): 2 healthy\n\nNODE    STATUS   EXIT\ngpu-01  healthy  0\ngpu-03  healthy  0\n\n")
    assert gd("report", "merge", "--fail-on-drift", *healthy).exit_code == 1
    same = [str(reports / "gpu-01.json")]
    assert gd("report", "merge", "--fail-on-drift", *same).exit_code == 0
    assert gd("report", "merge", "--fail-on", "warning", str(reports / "gpu-02.json")).exit_code == 1


def test_concatenated_reports_from_plain_srun_and_duplicate_names(gd, reports, tmp_path):
    both = tmp_path / "srun-output.json"
    both.write_text((reports / "gpu-03.json").read_text() + (reports / "gpu-03.json").read_text(), encoding="utf-8")
    r = gd("report", "merge", "--format", "json", str(both), str(reports / "gpu-01.json"), str(reports / "gpu-01.json"))
    assert r.exit_code == 0
    assert [n["node"] for n in json.loads(r.stdout)["nodes"]] == [
        "srun-output#1",
        "srun-output#2",
        "gpu-01",
        "gpu-01 (gpu-01.json)",
    ]


def test_unreadable_reports_are_listed_and_fail(gd, reports, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("srun: error: gpu-05: task 0: Exited with exit code 1\n", encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something/else"}', encoding="utf-8")
    r = gd("report", "merge", str(reports / "gpu-01.json"), str(bad), str(other))
    assert r.exit_code == 1
    assert r.stdout.startswith("1 node(s): 1 healthy; 2 report(s) unreadable\n")
    assert r.stdout.endswith(
        "Unreadable reports:\n"
        f"  {bad}: is not valid JSON (line 1, column 1: Expecting value)\n"
        f"  {other}: not a gpudoctor report (schema 'something/else', expected 'gpudoctor.report/1')\n"
    )
    assert gd("report", "merge", str(bad)).exit_code == 3


def test_a_node_where_the_doctor_failed(gd, reports, tmp_path):
    failed = tmp_path / "gpu-09.json"
    (tmp_path / "snap.json").mkdir()  # an unusable snapshot: exit 3, an error document
    r = gd("check", "--format", "json", "--replay", str(tmp_path / "snap.json"), "--node", "gpu-09")
    assert r.exit_code == 3
    failed.write_text(r.stdout, encoding="utf-8")
    m = gd("report", "merge", str(reports / "gpu-01.json"), str(failed))
    assert m.exit_code == 1
    assert "gpu-09  doctor-error  3" in m.stdout
    assert (
        f"Nodes where the doctor itself failed:\n  gpu-09: {tmp_path / 'snap.json'} is a directory, not a snapshot file\n"
        in m.stdout
    )


@pytest.mark.typer_rich
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("/no/such/report.json",), "no such report file or directory: /no/such/report.json"),
        ((), "Missing argument"),
        (("--fail-on", "fatal", "x.json"), "'fatal' is not one of 'error', 'warning', 'info'"),
    ],
)
def test_usage_errors_exit_2(gd, args, message):
    r = gd("report", "merge", *args)
    assert r.exit_code == 2
    assert message in r.stderr


def test_empty_directory_is_a_usage_error(gd, tmp_path):
    r = gd("report", "merge", str(tmp_path))
    assert r.exit_code == 2
    assert f"no *.json reports in directory {tmp_path}" in r.stderr


def test_node_defaults_to_the_host_name_on_a_live_machine(gd):
    import socket

    r = gd("check", "--format", "json", "--probe-timeout", "3")  # this machine, whatever it holds
    assert r.exit_code in (0, 1), r.output
    assert json.loads(r.stdout)["node"] == socket.gethostname()


@pytest.mark.typer_rich
@pytest.mark.parametrize("width", [80, 120])
def test_merge_text_fits_the_terminal(gd, reports, width):
    """Issue 31, item 6: at a terminal's width the prose wraps (the NVIDIA wheels line was 400 columns), the table's
    rows stay whole, and no word is lost; piped (no COLUMNS) every line stays whole (the test above)."""
    whole = gd("report", "merge", str(reports)).stdout
    r = gd("report", "merge", str(reports), env={"COLUMNS": str(width)})
    assert r.exit_code == 1
    table = whole.split("\n\n")[1].splitlines()
    assert table[0].startswith("NODE")
    lines = r.stdout.splitlines()
    assert all(row in lines for row in table)  # whole
    assert [line for line in lines if len(line) > width and line not in table] == []
    assert r.stdout.split() == whole.split()
