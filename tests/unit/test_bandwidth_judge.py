"""Judging recorded results: bandwidth-low and its likely causes, on the fixtures in tests/fixtures/bandwidth/.

Fixtures named derived_* carry figures published for real machines (their `provenance` field names
the source); constructed_* are written by hand. See tests/fixtures/bandwidth/README.md.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from gpudoctor.bandwidth.expected import load_link_table
from gpudoctor.bandwidth.judge import CODE, CORRUPT_CODE, gpu_expectation, judge_run, likely_causes, link_figure
from gpudoctor.bandwidth.results import BenchRun, GpuRun, LinkState, Measurement, Placement
from gpudoctor.bandwidth.sizes import MIB
from gpudoctor.model import Remediation, Severity

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bandwidth"


def load(name: str) -> BenchRun:
    return BenchRun.from_json(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def table():
    return load_link_table()


def test_every_fixture_states_its_provenance():
    names = sorted(p.name for p in FIXTURES.glob("*.json"))
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    assert names
    for name in names:
        run = load(name)
        assert run.provenance, name
        kind = name.split("_")[0]
        assert kind in ("derived", "constructed"), name
        assert run.provenance.startswith("DERIVED" if kind == "derived" else "CONSTRUCTED"), name
        assert f"`{name}`" in readme, f"{name} is not described in README.md"


@pytest.mark.parametrize(
    "name",
    [
        "derived_dgx-a100-sxm4-80gb_gen4x16_bandwidthtest.json",
        "derived_p100-pcie_local-numa_gen3x16.json",
        "derived_b300_gen5x16_nvbandwidth.json",
        "derived_gh200_nvlink-c2c_nvbandwidth.json",
        "constructed_gen4x16_two-gpus_sweep.json",
    ],
)
def test_healthy_machines_give_no_finding(table, name):
    judgement = judge_run(load(name), table)
    assert judgement.findings == []
    statuses = {t: j.status for figures in judgement.judged.values() for t, j in figures.items() if t in ("h2d", "d2h")}
    assert statuses and set(statuses.values()) == {"ok"}


def test_gh200_is_judged_against_nvlink_c2c(table):
    judgement = judge_run(load("derived_gh200_nvlink-c2c_nvbandwidth.json"), table)
    assert judgement.expectations[0].best.label == "NVLink-C2C (GH200)"
    assert judgement.judged[0]["h2d"].low_bound_gb_per_s == 295.0


def test_dell_a100_host_to_device_is_low_and_pageable_noted(table):
    judgement = judge_run(load("derived_a100-pcie-80gb-dell_gen4x16_bandwidthtest.json"), table)
    (finding,) = judgement.findings
    assert (finding.code, finding.severity, finding.area) == (CODE, Severity.WARNING, "health")
    assert "17.3 GB/s host to device" in finding.title
    assert "device to host" not in finding.title  # 24.6 GB/s is healthy
    assert judgement.judged[0]["d2h"].status == "ok"
    assert judgement.judged[0]["h2d-pageable"].status == "low"  # 3.3 of 17.3 pinned: 19%, under a fifth
    assert judgement.judged[0]["d2h-pageable"].status == "ok"  # 8.5 of 24.6: 35%
    assert "Pageable host to device: 3.3 GB/s, 19% of pinned" in finding.detail
    assert "No cause is visible from here" in finding.detail
    assert "pcie-spec-rates" in finding.sources


def test_p100_on_the_far_numa_node(table):
    (finding,) = judge_run(load("derived_p100-pcie_remote-numa_gen3x16.json"), table).findings
    assert "3.8 GB/s host to device and 2.5 GB/s device to host" in finding.title
    assert "Below half the theoretical figure" in finding.detail
    assert "ran on CPU 3 of NUMA node 0, but the GPU hangs off node 1" in finding.detail
    assert any(
        c.startswith("numactl --cpunodebind=1 --membind=1 gpudoctor bench bandwidth --gpu 0") for c in finding.remediation.lines()
    )
    assert finding.remediation.component == "health"
    assert any(e.source == "file:/sys/bus/pci/devices/0000:82:00.0/numa_node" and e.value == "1" for e in finding.evidence)


def test_cloud_t4_points_at_the_virtual_machine(table):
    (finding,) = judge_run(load("derived_t4_cloud-vm_gen3x16_bandwidthtest.json"), table).findings
    assert "virtual machine" in finding.detail
    assert "No cause is visible" not in finding.detail


def test_link_trained_to_x8_explains_the_figure(table):
    run = load("constructed_gen4x16_trained-x8.json")
    judgement = judge_run(run, table)
    (finding,) = judgement.findings
    assert judgement.expectations[0].trained.label == "PCIe Gen4 x8"
    assert "The link trained to PCIe Gen4 x8 (under load), below its maximum PCIe Gen4 x16" in finding.detail
    assert "the link alone explains it" in finding.detail
    assert "sudo lspci -vv -s 0000:3b:00.0 | grep -E 'LnkCap|LnkSta'" in finding.remediation.lines()
    assert finding.remediation.requires_root
    assert "reseat the card" in finding.remediation.summary


def test_switch_uplink_and_busy_neighbour(table):
    (finding,) = judge_run(load("constructed_gen4x16_switch-uplink-x8.json"), table).findings
    assert "An upstream port (0000:3a:00.0) links at PCIe Gen4 x8" in finding.detail
    assert "shares a PCIe switch uplink with 0000:3e:00.0 (2 processes)" in finding.detail
    assert finding.detail.index("upstream port") < finding.detail.index("shares a PCIe switch")
    assert "nvidia-smi topo -m" in finding.remediation.lines()


def test_failed_verification_is_its_own_finding(table):
    judgement = judge_run(load("constructed_gen4x16_verify-failed.json"), table)
    (finding,) = judgement.findings
    assert (finding.code, finding.severity) == (CORRUPT_CODE, Severity.ERROR)
    assert "device to host, pinned at 32 MiB" in finding.detail
    assert finding.remediation.lines() == [
        "sudo dmesg | grep -Ei 'xid|aer|nvrm'",
        "nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER",
    ]
    assert (finding.remediation.component, finding.remediation.requires_root) == ("health", True)


def test_a_hostile_bus_id_stays_one_argument(table):
    """A bus id from a results file is data: the printed lspci line passes it as one quoted argument."""
    bus = "0000:3b:00.0;touch /tmp/x"
    gpu = GpuRun(0, "GPU", bus, link=LinkState(3, 4, 16, 16, gen_under_load=3, width_under_load=16))
    causes = likely_causes(table, gpu, gpu_expectation(table, gpu), 12.0)
    lines = [line for c in causes for line in Remediation("", c.commands).lines()]
    assert "sudo lspci -vv -s '0000:3b:00.0;touch /tmp/x' | grep -E 'LnkCap|LnkSta'" in lines


def test_an_unknown_bus_id_is_a_placeholder(table):
    gpu = GpuRun(0, "GPU", None, link=LinkState(3, 4, 16, 16, gen_under_load=3, width_under_load=16))
    causes = likely_causes(table, gpu, gpu_expectation(table, gpu), 12.0)
    assert "sudo lspci -vv -s '<pci-bus-id>' | grep -E 'LnkCap|LnkSta'" in Remediation("", causes[0].commands).lines()


def test_idle_generation_alone_is_not_blamed(table):
    """At rest a GPU reports Gen1 to save power; without a reading under load only the width counts."""
    gpu = GpuRun(
        0, "NVIDIA A100 80GB PCIe", "0000:3b:00.0", link=LinkState(gen_current=1, gen_max=4, width_current=16, width_max=16)
    )
    exp = gpu_expectation(table, gpu)
    assert exp.best.label == "PCIe Gen4 x16" and exp.trained is None
    loaded = dataclasses.replace(gpu, link=dataclasses.replace(gpu.link, gen_under_load=3, width_under_load=16))
    exp = gpu_expectation(table, loaded)
    assert exp.trained.label == "PCIe Gen3 x16"
    causes = likely_causes(table, loaded, exp, 12.5)
    assert [c.key for c in causes] == ["link-trained-down"]
    assert "link alone explains it" in causes[0].text


def test_numa_unpinned_process(table):
    gpu = GpuRun(
        1,
        "GPU",
        "0000:82:00.0",
        link=LinkState(4, 4, 16, 16),
        placement=Placement(numa_node=1, numa_nodes=2, node_cpus="16-31", process_cpus="0-31", ran_on_cpu=None),
    )
    causes = likely_causes(table, gpu, gpu_expectation(table, gpu), 15.0)
    assert [c.key for c in causes] == ["numa-unpinned"]


def test_busy_gpu(table):
    gpu = GpuRun(0, "GPU", None, link=LinkState(4, 4, 16, 16), other_processes=2)
    assert [c.key for c in likely_causes(table, gpu, gpu_expectation(table, gpu), 15.0)] == ["gpu-busy"]


def _run_with(measurements, link=LinkState(4, 4, 16, 16)):
    return BenchRun(plan=None, gpus=(GpuRun(0, "GPU", None, link=link, measurements=tuple(measurements)),))  # type: ignore[arg-type]


def test_small_sizes_alone_are_not_judged(table):
    run = _run_with([Measurement("h2d", MIB, (3.0,)), Measurement("d2h", 2 * MIB, (3.0,))])
    judgement = judge_run(run, table)
    assert judgement.findings == [] and judgement.judged[0] == {}


def test_the_best_link_bound_size_is_judged():
    rows = [Measurement("h2d", 8 * MIB, (30.0,)), Measurement("h2d", 32 * MIB, (24.0,)), Measurement("h2d", 256 * MIB, (25.0,))]
    assert link_figure(rows, "h2d").size_bytes == 256 * MIB  # 8 MiB is faster but not link-bound
    assert link_figure([Measurement("h2d", 8 * MIB, (20.0,)), Measurement("h2d", 4 * MIB, (21.0,))], "h2d").size_bytes == 8 * MIB
    assert link_figure([Measurement("h2d", MIB, (20.0,))], "h2d") is None


def test_link_without_a_measured_figure_uses_half_the_theoretical(table):
    # Gen2 x16: 8 GB/s theoretical, no published practical figure: low below 4 GB/s.
    run = _run_with([Measurement("h2d", 64 * MIB, (3.9,)), Measurement("d2h", 64 * MIB, (4.1,))], LinkState(2, 2, 16, 16))
    judgement = judge_run(run, table)
    assert judgement.judged[0]["h2d"].low_bound_gb_per_s == pytest.approx(4.0)
    assert [j.status for j in judgement.judged[0].values()] == ["low", "ok"]


def test_no_link_facts_means_unjudged(table):
    run = _run_with([Measurement("h2d", 64 * MIB, (1.0,))], LinkState())
    judgement = judge_run(run, table)
    assert judgement.findings == [] and judgement.judged[0]["h2d"].status == "unjudged"


def test_a_gpu_that_failed_is_not_judged(table):
    run = BenchRun(plan=None, gpus=(GpuRun(0, None, None, error="cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2)"),))  # type: ignore[arg-type]
    judgement = judge_run(run, table)
    assert judgement.findings == [] and 0 not in judgement.judged


def test_results_round_trip_through_json():
    run = load("constructed_gen4x16_two-gpus_sweep.json")
    again = BenchRun.from_json(json.loads(json.dumps(run.to_json())))
    assert again.gpus[0].measurements == run.gpus[0].measurements
    assert again.peers == run.peers
    assert again.gpus[1].placement == run.gpus[1].placement
