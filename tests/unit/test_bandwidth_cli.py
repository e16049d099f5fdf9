"""`gpudoctor bench bandwidth` through typer: no driver, usage errors, recorded results, JSON shape, plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gpudoctor.bandwidth import cuda_driver
from tests.conftest import real_app
from tests.unit.test_bandwidth_placement import machine

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bandwidth"


def cli() -> typer.Typer:
    # The real `gpudoctor` app (docs/testing.md, "Test rules"): `bench bandwidth` as people run it.
    return real_app()


def invoke(*args: str):
    return CliRunner().invoke(cli(), ["bench", "bandwidth", *args])


@pytest.fixture
def no_driver(monkeypatch):
    """This machine, or any CI runner, as one without libcuda.so.1."""
    monkeypatch.setattr(cuda_driver, "LIBRARY_CANDIDATES", ("/nonexistent/libcuda.so.1",))


@pytest.mark.typer_rich
def test_registered_as_bench_bandwidth():
    result = CliRunner().invoke(cli(), ["bench", "--help"])
    assert result.exit_code == 0 and "bandwidth" in result.stdout
    result = CliRunner().invoke(cli(), ["bench", "bandwidth", "--help"])
    assert result.exit_code == 0
    for option in ("--gpu", "--sizes", "--tests", "--verify", "--plot", "--format", "--results", "--replay", "--fail-on"):
        assert option in result.stdout


def test_without_a_driver_one_sentence_and_exit_3(no_driver):
    result = invoke()
    assert result.exit_code == 3
    first = result.stderr.splitlines()[0]
    assert first == (
        "gpudoctor: error: No NVIDIA driver: libcuda.so.1 could not be loaded; install the NVIDIA driver for this GPU, "
        "or in a container give it the GPU with the NVIDIA Container Toolkit (docker run --gpus all)."
    )
    assert "Traceback" not in result.output
    assert result.stdout == ""


def test_without_a_driver_json(no_driver):
    result = invoke("--format", "json")
    assert result.exit_code == 3
    doc = json.loads(result.stdout)
    assert doc["status"] == "doctor-error" and doc["exit_code"] == 3
    assert doc["error"]["reason"] == "library-missing"
    assert "libcuda.so.1" in doc["error"]["message"]
    assert doc["findings"] == [] and doc["gpus"] == []


@pytest.mark.typer_rich
@pytest.mark.parametrize(
    "args, words",
    [
        (("--sizes", "1X"), "not a transfer size"),
        (("--sizes", "4M-1M"), "runs backwards"),
        (("--tests", "h2d,foo"), "unknown test 'foo'"),
        (("--gpu", "first"), "--gpu takes 'all'"),
        (("--plot", "chart.jpg"), "must end in .png or .svg"),
    ],
)
def test_usage_errors_exit_2_before_touching_the_driver(no_driver, args, words):
    result = invoke(*args)
    assert result.exit_code == 2
    assert words in result.stderr
    assert "libcuda" not in result.stderr


@pytest.mark.typer_rich
def test_click_range_errors_exit_2():
    assert invoke("--repeats", "0").exit_code == 2
    assert invoke("--format", "github").exit_code == 2


@pytest.mark.parametrize(
    "name, code",
    [
        ("derived_dgx-a100-sxm4-80gb_gen4x16_bandwidthtest.json", 0),
        ("derived_gh200_nvlink-c2c_nvbandwidth.json", 0),
        ("derived_a100-pcie-80gb-dell_gen4x16_bandwidthtest.json", 1),
        ("derived_p100-pcie_remote-numa_gen3x16.json", 1),
        ("constructed_gen4x16_verify-failed.json", 1),
    ],
)
def test_recorded_results_exit_codes(no_driver, name, code):
    assert invoke("--results", str(FIXTURES / name)).exit_code == code


def test_fail_on_error_ignores_warnings(no_driver):
    path = str(FIXTURES / "derived_a100-pcie-80gb-dell_gen4x16_bandwidthtest.json")
    assert invoke("--results", path, "--fail-on", "error").exit_code == 0
    corrupt = str(FIXTURES / "constructed_gen4x16_verify-failed.json")
    assert invoke("--results", corrupt, "--fail-on", "error").exit_code == 1


def test_text_view_of_a_low_result(no_driver):
    result = invoke("--results", str(FIXTURES / "derived_p100-pcie_remote-numa_gen3x16.json"))
    out = result.stdout
    assert "gpudoctor bench bandwidth (recorded results)" in out
    # The GPU's line is prose, wrapped to the terminal's width (80 here): read it with the wrapping undone.
    assert "GPU 0 Tesla P100-PCIE-16GB [0000:82:00.0]: link Gen3 x16 (max Gen3 x16); judged against PCIe Gen3 x16" in " ".join(
        out.split()
    )
    assert "expected GB/s" in out and "11.5-13.2 (max 15.8)" in out and "LOW" in out
    assert "(bandwidth-low)" in out and "NUMA node 0, but the GPU hangs off node 1" in out
    assert "numactl --cpunodebind=1 --membind=1" in out
    assert "Details of any code: gpudoctor explain CODE" in out


@pytest.mark.typer_rich
def test_text_view_of_a_sweep_has_table_and_chart(no_driver):
    result = invoke("--results", str(FIXTURES / "constructed_gen4x16_two-gpus_sweep.json"), "-v")
    out = result.stdout
    assert result.exit_code == 0
    assert out.count("median GB/s") == 2  # one results table per GPU
    assert "GPU 0 NVIDIA A100 80GB PCIe: host<->GPU bandwidth by transfer size" in out
    assert "Device to device: bandwidth by transfer size" in out
    assert "Peer GPU 0 -> GPU 1:" in out
    assert "(transfer size, log scale)" in out
    assert "Host<->GPU bandwidth is what the link should give." in out
    assert "copies" in out and "timer" in out  # --verbose: every size


JSON_KEYS = {
    "schema",
    "tool_version",
    "status",
    "exit_code",
    "errors",
    "findings",
    "plan",
    "driver",
    "machine",
    "host_mode",
    "provenance",
    "gpus",
    "peers",
}
GPU_KEYS = {
    "ordinal",
    "name",
    "pci_bus_id",
    "nvml_index",
    "link",
    "placement",
    "other_processes",
    "results",
    "error",
    "expected",
    "expected_trained",
    "judged",
}
RESULT_KEYS = {
    "test",
    "size_bytes",
    "copies_per_sample",
    "timer",
    "samples_gb_per_s",
    "median_gb_per_s",
    "min_gb_per_s",
    "max_gb_per_s",
    "spread_share",
    "verified",
}


@pytest.mark.typer_rich
def test_json_document_shape(no_driver):
    result = invoke("--results", str(FIXTURES / "constructed_gen4x16_trained-x8.json"), "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert set(doc) == JSON_KEYS
    assert doc["schema"] == "gpudoctor.bandwidth/1" and doc["status"] == "warning" and doc["exit_code"] == 1
    (gpu,) = doc["gpus"]
    assert set(gpu) == GPU_KEYS
    assert all(set(r) == RESULT_KEYS for r in gpu["results"])
    assert gpu["expected"]["label"] == "PCIe Gen4 x16" and gpu["expected_trained"]["label"] == "PCIe Gen4 x8"
    assert gpu["judged"]["h2d"]["status"] == "low" and gpu["judged"]["h2d"]["size_bytes"] == 256 * 1024 * 1024
    (finding,) = doc["findings"]
    assert finding["code"] == "bandwidth-low" and finding["severity"] == "warning" and finding["area"] == "health"
    assert finding["remediation"]["commands"]
    assert result.stderr == ""


def test_json_round_trips_as_results(no_driver, tmp_path):
    first = invoke("--results", str(FIXTURES / "constructed_gen4x16_two-gpus_sweep.json"), "--format", "json")
    saved = tmp_path / "run.json"
    saved.write_text(first.stdout)
    second = invoke("--results", str(saved), "--format", "json")
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert a["gpus"] == b["gpus"] and a["findings"] == b["findings"]


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<svg")])
def test_plot_file(no_driver, tmp_path, suffix, magic):
    path = tmp_path / f"chart{suffix}"
    result = invoke("--results", str(FIXTURES / "constructed_gen4x16_two-gpus_sweep.json"), "--plot", str(path))
    assert result.exit_code == 0
    assert path.read_bytes().startswith(magic)
    assert f"Chart written to {path}" in result.stdout


def test_plot_in_a_missing_folder_is_a_usage_error_before_measuring(no_driver, tmp_path):
    # docs/exit-codes.md: an output file that cannot be written is exit 2, checked before anything runs.
    result = invoke(
        "--results", str(FIXTURES / "derived_b300_gen5x16_nvbandwidth.json"), "--plot", str(tmp_path / "no" / "such" / "c.png")
    )
    assert result.exit_code == 2
    assert f"--plot {tmp_path}/no/such/c.png: the folder {tmp_path}/no/such does not exist" in result.stderr


@pytest.mark.parametrize(
    "content, words",
    [
        ("{not json", "is not valid JSON"),
        ('{"gpus": 3}', "no `gpus` list"),
        ('{"schema": "x/9", "gpus": []}', "is not 'gpudoctor.bandwidth/1'"),
    ],
)
def test_bad_results_file_is_exit_3(no_driver, tmp_path, content, words):
    path = tmp_path / "r.json"
    path.write_text(content)
    result = invoke("--results", str(path))
    assert result.exit_code == 3
    assert words in result.stderr and "Traceback" not in result.output


def test_missing_results_file_is_a_usage_error(no_driver, tmp_path):
    # A path that does not exist is a wrong argument (exit 2, docs/exit-codes.md); an unusable file is 3.
    result = invoke("--results", str(tmp_path / "absent.json"))
    assert result.exit_code == 2
    assert "no such bandwidth results file" in result.stderr and "Traceback" not in result.output


def test_results_with_link_facts_from_a_snapshot(no_driver, tmp_path):
    snapshot = tmp_path / "machine.json"
    snapshot.write_text(json.dumps(machine()))
    result = invoke(
        "--results", str(FIXTURES / "constructed_gen4x16_switch-uplink-x8.json"), "--replay", str(snapshot), "--format", "json"
    )
    doc = json.loads(result.stdout)
    assert doc["host_mode"] == "replay"
    assert doc["gpus"][0]["link"]["source"] == "nvml" and doc["gpus"][0]["nvml_index"] == 0
    assert result.exit_code == 1
