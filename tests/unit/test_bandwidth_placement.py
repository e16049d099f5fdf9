"""Where a GPU sits (NUMA node, CPU affinity, PCIe switch), read through the Host seam from a replayed snapshot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudoctor.bandwidth.placement import (
    gen_from_speed,
    parse_cpulist,
    pci_chain,
    probe_placement,
    processor_from_stat,
    status_field,
    sysfs_address,
)
from gpudoctor.bandwidth.results import BenchRun
from gpudoctor.bandwidth.runner import read_link_now, relink
from tests.conftest import replay_host

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bandwidth"
ROOT_PORT = "/sys/devices/pci0000:3a/0000:3a:00.0"
SWITCH_UP = f"{ROOT_PORT}/0000:3b:00.0"
GPU0 = f"{SWITCH_UP}/0000:3c:08.0/0000:3d:00.0"
GPU1 = f"{SWITCH_UP}/0000:3c:10.0/0000:3e:00.0"
# /proc/self/stat with a command name holding spaces and parentheses; field 39 (processor) is 40.
STAT = "4242 (python3 (bench) x) R 1 4242 4242 0 -1 4194304 " + " ".join(["0"] * 29) + " 40 0 0 0 0 0"


def link_files(path: str, speed: str, width: int, max_speed: str, max_width: int) -> dict:
    return {
        f"{path}/current_link_speed": speed,
        f"{path}/current_link_width": str(width),
        f"{path}/max_link_speed": max_speed,
        f"{path}/max_link_width": str(max_width),
    }


def machine() -> dict:
    """Two GPUs behind one PCIe switch whose uplink trained to x8, on a two-node machine (constructed)."""
    files = {
        "/sys/bus/pci/devices/0000:3d:00.0": {
            "link": "../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/0000:3c:08.0/0000:3d:00.0"
        },
        "/sys/bus/pci/devices/0000:3e:00.0": {
            "link": "../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/0000:3c:10.0/0000:3e:00.0"
        },
        f"{GPU0}/numa_node": "0\n",
        f"{GPU1}/numa_node": "0\n",
        "/sys/devices/system/node/node0/cpulist": "0-31\n",
        "/sys/devices/system/node/node1/cpulist": "32-63\n",
        "/proc/self/status": "Name:\tpython3\nCpus_allowed:\tffffffff,ffffffff\nCpus_allowed_list:\t0-63\n",
        "/proc/self/stat": STAT,
        "/proc/cpuinfo": "processor\t: 0\nflags\t\t: fpu vme sse2 hypervisor avx2\n",
    }
    files.update(link_files(ROOT_PORT, "16.0 GT/s PCIe", 8, "16.0 GT/s PCIe", 16))
    files.update(link_files(SWITCH_UP, "16.0 GT/s PCIe", 8, "16.0 GT/s PCIe", 16))
    files.update(link_files(f"{SWITCH_UP}/0000:3c:08.0", "16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16))
    files.update(link_files(GPU0, "16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16))
    devices = [
        {
            "index": i,
            "name": "NVIDIA L40S",
            "pci_bus_id": bus,
            "pcie_gen_current": 1,
            "pcie_gen_max": 4,
            "pcie_width_current": 16,
            "pcie_width_max": 16,
            "processes": procs,
        }
        for i, (bus, procs) in enumerate(
            [("00000000:3D:00.0", []), ("00000000:3E:00.0", [{"pid": 7, "name": "train", "used_bytes": 1}])]
        )
    ]
    return {
        "format": "gpudoctor-snapshot/1",
        "platform": {"system": "Linux", "release": "6.8.0", "machine": "x86_64"},
        "files": files,
        "nvml": {"status": "ok", "driver_version": "570.124.06", "devices": devices},
    }


@pytest.mark.parametrize(
    "given, expected",
    [
        ("00000000:3B:00.0", "0000:3b:00.0"),  # NVML
        ("0000:3B:00.0", "0000:3b:00.0"),  # CUDA
        ("3b:00.0", "0000:3b:00.0"),  # lspci without -D
        ("00010000:01:00.0", "0000:01:00.0"),  # NVML's 8-digit domain keeps its low 16 bits
        ("0001:01:00.0", "0001:01:00.0"),
        ("garbage", None),
        ("", None),
        (None, None),
    ],
)
def test_sysfs_address(given, expected):
    assert sysfs_address(given) == expected


def test_parse_cpulist():
    assert parse_cpulist("0-3,8-9,16") == frozenset({0, 1, 2, 3, 8, 9, 16})
    assert parse_cpulist("") == frozenset()
    assert parse_cpulist(None) == frozenset()


@pytest.mark.parametrize(
    "speed, gen",
    [
        ("2.5 GT/s", 1),
        ("5 GT/s", 2),
        ("8 GT/s", 3),
        ("8.0 GT/s PCIe", 3),
        ("16.0 GT/s PCIe", 4),
        ("32.0 GT/s PCIe", 5),
        ("64.0 GT/s PCIe", 6),
        ("Unknown", None),
        (None, None),
    ],
)
def test_gen_from_speed(speed, gen):
    assert gen_from_speed(speed) == gen


def test_proc_parsers():
    assert processor_from_stat(STAT) == 40
    assert processor_from_stat("1 (x) R") is None
    assert status_field("Name:\tx\nCpus_allowed_list:\t0-3\n", "Cpus_allowed_list") == "0-3"
    assert status_field("Name:\tx\n", "Cpus_allowed_list") is None


def test_pci_chain():
    assert pci_chain(GPU0) == ("0000:3a:00.0", "0000:3b:00.0", "0000:3c:08.0", "0000:3d:00.0")
    assert pci_chain("/sys/devices/platform/foo") == ()


def test_placement_behind_a_switch():
    host = replay_host(machine())
    p = probe_placement(host, "0000:3d:00.0", [("0000:3d:00.0", "NVIDIA L40S", 0), ("0000:3e:00.0", "NVIDIA L40S", 1)])
    assert (p.numa_node, p.numa_nodes, p.node_cpus) == (0, 2, "0-31")
    assert (p.process_cpus, p.ran_on_cpu, p.ran_on_node) == ("0-63", 40, 1)
    assert [port.address for port in p.upstream] == ["0000:3a:00.0", "0000:3b:00.0", "0000:3c:08.0"]
    assert (p.upstream[0].gen_current, p.upstream[0].width_current, p.upstream[0].width_max) == (4, 8, 16)
    assert p.behind_switch
    assert [(n.pci_bus_id, n.processes) for n in p.switch_neighbours] == [("0000:3e:00.0", 1)]
    assert p.virtualized is True


def test_placement_on_a_machine_that_says_nothing():
    host = replay_host({"format": "gpudoctor-snapshot/1"})
    p = probe_placement(host, "0000:3d:00.0")
    assert (p.numa_node, p.numa_nodes, p.process_cpus, p.ran_on_cpu, p.upstream, p.virtualized) == (
        None,
        None,
        None,
        None,
        (),
        None,
    )


def test_numa_node_minus_one_means_unknown():
    snap = machine()
    snap["files"][f"{GPU0}/numa_node"] = "-1\n"
    assert probe_placement(replay_host(snap), "0000:3d:00.0").numa_node is None


def test_link_read_now_from_sysfs():
    assert read_link_now(replay_host(machine()), "0000:3d:00.0") == (4, 16)
    assert read_link_now(replay_host(machine()), "0000:99:00.0") == (None, None)
    assert read_link_now(replay_host(machine()), None) == (None, None)


def test_relink_recorded_results_with_a_snapshot():
    run = BenchRun.from_json(json.loads((FIXTURES / "constructed_gen4x16_switch-uplink-x8.json").read_text()))
    relinked = relink(run, replay_host(machine()), 1.0)
    gpu = relinked.gpus[0]
    assert relinked.host_mode == "replay"
    assert (gpu.link.gen_max, gpu.link.width_max, gpu.link.gen_current, gpu.link.source) == (4, 16, 1, "nvml")
    assert (gpu.link.gen_under_load, gpu.link.width_under_load) == (4, 16)  # only the recording knows these
    assert gpu.placement.ran_on_cpu == 5  # the recording's, not the snapshot's /proc/self
    assert [n.pci_bus_id for n in gpu.placement.switch_neighbours] == ["0000:3e:00.0"]
    assert gpu.nvml_index == 0
