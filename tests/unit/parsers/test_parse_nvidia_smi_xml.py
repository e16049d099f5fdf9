"""nvidia-smi -q -x: every real capture parses, with the facts each file states checked by hand."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest

from gpudoctor.errors import ParseError
from gpudoctor.parsers.nvidia_smi_xml import SmiGpu, parse_nvidia_smi_xml

FIXTURES = Path(__file__).parents[2] / "fixtures"
XML_DIR = FIXTURES / "nvidia-smi-xml"

# Hand-written from reading each capture.  Report-level facts, then one dict per <gpu>
# holding the fields checked for it (fields not listed are not asserted).
EXPECTED: dict[str, dict] = {
    "a100-sxm4-40gb_driver-510.47.03_cuda-11.6_mig.xml": {
        "driver_version": "510.47.03",
        "cuda_version": "11.6",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v11.dtd",
        "gpus": [
            dict(
                name="NVIDIA A100-SXM4-40GB",
                pci_bus_id="00000000:00:04.0",
                product_architecture="Ampere",
                uuid="GPU-27b94a00-ed54-5c24-b1fd-1054085de32a",
                serial="1324321002473",
                persistence_mode=False,
                driver_model=None,
                virtualization_mode="Pass-Through",
                mig_mode_current="Enabled",
                mig_mode_pending="Enabled",
                mig_devices=2,
                memory_total_mib=40960,
                memory_used_mib=38,
                memory_free_mib=40315,
                pcie_gen_max=4,
                pcie_gen_current=4,
                pcie_gen_device_max=None,
                pcie_width_max=16,
                pcie_width_current=16,
                ecc_mode_current="Enabled",
                ecc_volatile_uncorrected=None,
                ecc_aggregate_uncorrected=0,
                retired_pages_pending=None,
                remapped_rows_uncorrectable=None,
                throttle_reasons=(),
                temperature_c=36,
                power_draw_w=66.92,
                processes=0,
            )
        ],
    },
    "geforce-gt-1030_driver-470.74_cuda-11.4_many-processes.xml": {
        "driver_version": "470.74",
        "cuda_version": "11.4",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v11.dtd",
        "gpus": [
            dict(
                name="NVIDIA GeForce GT 1030",
                pci_bus_id="00000000:2D:00.0",
                product_architecture=None,
                persistence_mode=False,
                virtualization_mode="None",
                mig_mode_current=None,
                mig_devices=0,
                memory_total_mib=1998,
                memory_used_mib=875,
                pcie_gen_max=3,
                pcie_gen_current=3,
                pcie_width_max=4,
                pcie_width_current=4,
                ecc_mode_current=None,
                ecc_volatile_uncorrected=None,
                ecc_aggregate_uncorrected=None,
                throttle_reasons=("gpu_idle",),
                temperature_c=36,
                power_draw_w=None,
                processes=10,
            )
        ],
    },
    "geforce-rtx-2070-x2_driver-590.44.01_cuda-13.1.xml": {
        "driver_version": "590.44.01",
        "cuda_version": "13.1",
        "attached_gpus": 2,
        "dtd": "nvsmi_device_v13.dtd",
        "gpus": [
            dict(
                name="NVIDIA GeForce RTX 2070",
                pci_bus_id="00000000:01:00.0",
                product_architecture="Turing",
                uuid="GPU-12345678-aaaa-bbbb-cccc-0123456789ab",
                minor_number=0,
                persistence_mode=True,
                mig_mode_current=None,
                memory_total_mib=8192,
                memory_used_mib=1,
                pcie_gen_max=3,
                pcie_gen_current=1,
                pcie_gen_device_max=3,
                pcie_gen_host_max=3,
                pcie_width_max=16,
                pcie_width_current=8,
                throttle_reasons=("gpu_idle",),
                temperature_c=14,
                power_draw_w=9.23,
                processes=0,
            ),
            dict(
                name="NVIDIA GeForce RTX 2070",
                pci_bus_id="00000000:02:00.0",
                product_architecture="Turing",
                uuid="GPU-12345678-aaaa-bbbb-cccc-0123456789cd",
                minor_number=1,
                persistence_mode=True,
                memory_total_mib=8192,
                pcie_gen_max=3,
                pcie_gen_current=1,
                pcie_width_max=16,
                pcie_width_current=8,
                temperature_c=13,
                power_draw_w=11.82,
                processes=0,
            ),
        ],
    },
    "geforce-rtx-2080_driver-516.59_cuda-11.7_windows-wddm.xml": {
        "driver_version": "516.59",
        "cuda_version": "11.7",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v11.dtd",
        "gpus": [
            dict(
                name="NVIDIA GeForce RTX 2080",
                pci_bus_id="00000000:0A:00.0",
                product_architecture="Turing",
                persistence_mode=None,
                driver_model="WDDM",
                driver_model_pending="WDDM",
                minor_number=None,
                memory_total_mib=8192,
                memory_used_mib=862,
                pcie_gen_max=3,
                pcie_gen_current=3,
                pcie_width_max=16,
                pcie_width_current=8,
                throttle_reasons=("gpu_idle",),
                temperature_c=29,
                power_draw_w=14.5,
                processes=26,
            )
        ],
    },
    "geforce-rtx-3060-laptop_driver-515.65.01_cuda-11.7.xml": {
        "driver_version": "515.65.01",
        "cuda_version": "11.7",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v11.dtd",
        "gpus": [
            dict(
                name="NVIDIA GeForce RTX 3060 Laptop GPU",
                pci_bus_id="00000000:01:00.0",
                product_architecture="Ampere",
                persistence_mode=False,
                memory_total_mib=6144,
                memory_used_mib=5,
                pcie_gen_max=4,
                pcie_gen_current=1,
                pcie_width_max=16,
                pcie_width_current=8,
                temperature_c=45,
                power_draw_w=8.7,
                processes=1,
            )
        ],
    },
    "geforce-rtx-3060_driver-570.124.04_cuda-12.8.xml": {
        "driver_version": "570.124.04",
        "cuda_version": "12.8",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v12.dtd",
        "gpus": [
            dict(
                name="NVIDIA GeForce RTX 3060",
                pci_bus_id="00000000:2D:00.0",
                product_architecture="Ampere",
                persistence_mode=True,
                memory_total_mib=12288,
                memory_used_mib=116,
                pcie_gen_max=4,
                pcie_gen_current=1,
                pcie_gen_device_max=4,
                pcie_gen_host_max=4,
                pcie_width_max=16,
                pcie_width_current=16,
                # gpu_power_readings has average (11.60 W) and instant (11.63 W) draw; instant is used.
                temperature_c=42,
                power_draw_w=11.63,
                processes=0,
            )
        ],
    },
    "geforce-rtx-3080_driver-536.40_cuda-12.2_windows-wddm.xml": {
        "driver_version": "536.40",
        "cuda_version": "12.2",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v12.dtd",
        "gpus": [
            dict(
                name="NVIDIA GeForce RTX 3080",
                pci_bus_id="00000000:04:00.0",
                product_architecture="Ampere",
                persistence_mode=None,
                driver_model="WDDM",
                virtualization_mode="Pass-Through",
                memory_total_mib=10240,
                memory_used_mib=1128,
                pcie_gen_max=4,
                pcie_gen_current=4,
                pcie_gen_device_max=4,
                pcie_gen_host_max=None,
                pcie_width_max=16,
                pcie_width_current=16,
                throttle_reasons=("gpu_idle",),
                temperature_c=31,
                power_draw_w=22.78,
                processes=5,
            )
        ],
    },
    "geforce-rtx-3090_driver-525.147.05_cuda-12.0_passthrough.xml": {
        "driver_version": "525.147.05",
        "cuda_version": "12.0",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v12.dtd",
        "gpus": [
            dict(
                name="NVIDIA GeForce RTX 3090",
                pci_bus_id="00000000:00:10.0",
                product_architecture="Ampere",
                persistence_mode=True,
                virtualization_mode="Pass-Through",
                memory_total_mib=24576,
                memory_used_mib=1,
                pcie_gen_max=4,
                pcie_gen_current=1,
                pcie_gen_device_max=4,
                pcie_width_max=16,
                pcie_width_current=16,
                throttle_reasons=("gpu_idle",),
                temperature_c=37,
                power_draw_w=27.23,
                processes=0,
            )
        ],
    },
    "geforce-rtx-4090_driver-535.86.05_cuda-12.2.xml": {
        "driver_version": "535.86.05",
        "cuda_version": "12.2",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v12.dtd",
        "gpus": [
            dict(
                name="NVIDIA GeForce RTX 4090",
                pci_bus_id="00000000:84:00.0",
                product_architecture="Ada Lovelace",
                persistence_mode=True,
                memory_total_mib=24564,
                memory_used_mib=2,
                # A PCIe 4 card in a PCIe 3 slot: link max 3, device max 4, host max 3.
                pcie_gen_max=3,
                pcie_gen_current=1,
                pcie_gen_device_max=4,
                pcie_gen_host_max=3,
                pcie_width_max=16,
                pcie_width_current=16,
                ecc_mode_current="Disabled",
                remapped_rows_correctable=0,
                remapped_rows_uncorrectable=0,
                remapped_rows_pending=False,
                remapped_rows_failure=False,
                throttle_reasons=("gpu_idle",),
                temperature_c=40,
                power_draw_w=26.84,
                processes=0,
            )
        ],
    },
    "gtx-1070-ti_trimmed-no-driver-version_dtd-v10.xml": {
        "driver_version": None,
        "cuda_version": None,
        "attached_gpus": None,
        "dtd": "nvsmi_device_v10.dtd",
        "gpus": [
            dict(
                name="GeForce GTX 1070 Ti",
                pci_bus_id="00000000:01:00.0",
                uuid="GPU-f9ba66fc-a7f5-94c5-da19-019ef2f9c665",
                product_architecture=None,
                memory_total_mib=4096,
                memory_used_mib=42,
                memory_free_mib=4054,
                pcie_gen_max=None,
                pcie_gen_current=1,
                pcie_width_max=None,
                pcie_width_current=16,
                throttle_reasons=(),
                temperature_c=39,
                power_draw_w=None,
                processes=0,
            )
        ],
    },
    "quadro-p2000_driver-525.125.06_cuda-12.0.xml": {
        "driver_version": "525.125.06",
        "cuda_version": "12.0",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v12.dtd",
        "gpus": [
            dict(
                name="Quadro P2000",
                pci_bus_id="00000000:17:00.0",
                product_architecture="Pascal",
                persistence_mode=True,
                memory_total_mib=5120,
                memory_used_mib=1,
                pcie_gen_max=3,
                pcie_gen_current=1,
                pcie_gen_device_max=3,
                pcie_width_max=16,
                pcie_width_current=8,
                ecc_mode_current=None,
                ecc_volatile_uncorrected=None,
                throttle_reasons=("gpu_idle",),
                temperature_c=34,
                power_draw_w=4.61,
                processes=0,
            )
        ],
    },
    "quadro-p400_driver-418.43_cuda-10.1_no-doctype.xml": {
        "driver_version": "418.43",
        "cuda_version": "10.1",
        "attached_gpus": 1,
        "dtd": None,
        "gpus": [
            dict(
                name="Quadro P400",
                pci_bus_id="00000000:43:00.0",
                product_architecture=None,
                persistence_mode=False,
                mig_mode_current=None,
                memory_total_mib=1998,
                memory_used_mib=0,
                pcie_gen_max=3,
                pcie_gen_current=1,
                pcie_width_max=16,
                pcie_width_current=16,
                throttle_reasons=("gpu_idle",),
                temperature_c=33,
                power_draw_w=None,
                processes=0,
            )
        ],
    },
    "rtx-4000-sff-ada_driver-595.84_cuda-13.2_processes.xml": {
        "driver_version": "595.84",
        "cuda_version": "13.2",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v13.dtd",
        "gpus": [
            dict(
                name="NVIDIA RTX 4000 SFF Ada Generation",
                pci_bus_id="00000000:06:00.0",
                product_architecture="Ada Lovelace",
                persistence_mode=True,
                memory_total_mib=20475,
                memory_used_mib=3534,
                pcie_gen_max=4,
                pcie_gen_current=1,
                pcie_gen_device_max=4,
                pcie_gen_host_max=4,
                pcie_width_max=16,
                pcie_width_current=16,
                ecc_mode_current="Disabled",
                remapped_rows_uncorrectable=0,
                remapped_rows_pending=False,
                throttle_reasons=("gpu_idle",),
                temperature_c=38,
                power_draw_w=8.44,
                processes=4,
            )
        ],
    },
    "tesla-p100-pcie-16gb_driver-510.47.03_cuda-11.6.xml": {
        "driver_version": "510.47.03",
        "cuda_version": "11.6",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v11.dtd",
        "gpus": [
            dict(
                name="Tesla P100-PCIE-16GB",
                pci_bus_id="00000000:00:04.0",
                product_architecture="Pascal",
                persistence_mode=False,
                virtualization_mode="Pass-Through",
                memory_total_mib=16384,
                memory_used_mib=0,
                pcie_gen_max=3,
                pcie_gen_current=3,
                pcie_width_max=16,
                pcie_width_current=16,
                # Old <single_bit>/<double_bit> layout: aggregate single-bit 3, double-bit totals 0.
                ecc_mode_current="Enabled",
                ecc_volatile_uncorrected=0,
                ecc_aggregate_uncorrected=0,
                retired_pages_pending=False,
                throttle_reasons=("gpu_idle",),
                temperature_c=38,
                power_draw_w=26.16,
                processes=0,
            )
        ],
    },
    "tesla-t4_driver-515.105.01_cuda-11.7_passthrough.xml": {
        "driver_version": "515.105.01",
        "cuda_version": "11.7",
        "attached_gpus": 1,
        "dtd": "nvsmi_device_v11.dtd",
        "gpus": [
            dict(
                name="Tesla T4",
                pci_bus_id="00000000:00:1E.0",
                product_architecture="Turing",
                persistence_mode=False,
                virtualization_mode="Pass-Through",
                memory_total_mib=15360,
                memory_used_mib=1032,
                pcie_gen_max=3,
                pcie_gen_current=3,
                pcie_width_max=16,
                pcie_width_current=8,
                ecc_mode_current="Enabled",
                ecc_volatile_uncorrected=0,
                ecc_aggregate_uncorrected=0,
                retired_pages_pending=False,
                throttle_reasons=(),
                temperature_c=40,
                power_draw_w=26.78,
                processes=2,
            )
        ],
    },
}

XML_FILES = sorted(p.name for p in XML_DIR.iterdir())


def _read(name: str) -> str:
    return (XML_DIR / name).read_text(encoding="utf-8")


def test_every_xml_fixture_has_expectations() -> None:
    assert set(XML_FILES) == set(EXPECTED)


def _check_gpu(gpu: SmiGpu, expected: dict) -> None:
    for field, want in expected.items():
        if field == "processes":
            assert len(gpu.processes) == want, field
        elif field == "mig_devices":
            assert len(gpu.mig_devices) == want, field
        else:
            assert getattr(gpu, field) == want, field


@pytest.mark.parametrize("name", XML_FILES)
def test_xml_fixture_facts(name: str) -> None:
    report = parse_nvidia_smi_xml(_read(name))
    expected = EXPECTED[name]
    assert report.driver_version == expected["driver_version"]
    assert report.cuda_version == expected["cuda_version"]
    assert report.attached_gpus == expected["attached_gpus"]
    assert report.dtd == expected["dtd"]
    assert len(report.gpus) == len(expected["gpus"])
    for index, (gpu, want) in enumerate(zip(report.gpus, expected["gpus"], strict=True)):
        assert gpu.index == index
        _check_gpu(gpu, want)


def test_mig_devices_of_a100() -> None:
    gpu = parse_nvidia_smi_xml(_read("a100-sxm4-40gb_driver-510.47.03_cuda-11.6_mig.xml")).gpus[0]
    assert [(d.index, d.gpu_instance_id, d.compute_instance_id) for d in gpu.mig_devices] == [(0, 1, 0), (1, 2, 0)]
    assert all(d.memory_total_mib == 19968 and d.multiprocessor_count == 42 for d in gpu.mig_devices)
    assert [d.memory_used_mib for d in gpu.mig_devices] == [19, 19]


def test_processes_of_t4_and_windows() -> None:
    t4 = parse_nvidia_smi_xml(_read("tesla-t4_driver-515.105.01_cuda-11.7_passthrough.xml")).gpus[0]
    assert [(p.pid, p.type, p.name, p.used_memory_mib) for p in t4.processes] == [
        (675, "G", "/usr/lib/xorg/Xorg", 22),
        (5762, "C", "python", 1005),
    ]
    assert all(p.gpu_instance_id is None and p.compute_instance_id is None for p in t4.processes)
    windows = parse_nvidia_smi_xml(_read("geforce-rtx-2080_driver-516.59_cuda-11.7_windows-wddm.xml")).gpus[0]
    first = windows.processes[0]
    assert first.pid == 7724 and first.type == "C+G" and first.used_memory_mib is None  # WDDM: N/A
    assert first.name.endswith("PhoneExperienceHost.exe")


def test_gt_1030_process_list() -> None:
    gpu = parse_nvidia_smi_xml(_read("geforce-gt-1030_driver-470.74_cuda-11.4_many-processes.xml")).gpus[0]
    assert gpu.processes[0].pid == 607 and gpu.processes[0].name == "/usr/lib/Xorg"
    assert gpu.processes[0].used_memory_mib == 547
    assert {p.type for p in gpu.processes} == {"G"}


def test_throttle_text_with_line_break_is_not_active() -> None:
    # The A100 dump has "Not Active\n            " for applications_clocks_setting.
    gpu = parse_nvidia_smi_xml(_read("a100-sxm4-40gb_driver-510.47.03_cuda-11.6_mig.xml")).gpus[0]
    assert gpu.throttle_reasons == ()


def test_versions_are_raw_strings() -> None:
    report = parse_nvidia_smi_xml(_read("rtx-4000-sff-ada_driver-595.84_cuda-13.2_processes.xml"))
    assert report.driver_version == "595.84"
    assert report.gpus[0].gsp_firmware_version == "595.84"


def test_unknown_error_and_not_supported_become_none() -> None:
    text = """<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log><driver_version>535.104.05</driver_version><cuda_version>N/A</cuda_version>
<gpu id="00000000:01:00.0"><product_name>X</product_name>
<fb_memory_usage><total>[Unknown Error]</total><used>Not Supported</used><free>[N/A]</free></fb_memory_usage>
<temperature><gpu_temp>Unknown Error</gpu_temp></temperature>
<persistence_mode>[Not Supported]</persistence_mode></gpu></nvidia_smi_log>"""
    report = parse_nvidia_smi_xml(text)
    assert report.driver_version == "535.104.05"
    assert report.cuda_version is None
    gpu = report.gpus[0]
    assert (gpu.memory_total_mib, gpu.memory_used_mib, gpu.memory_free_mib) == (None, None, None)
    assert gpu.temperature_c is None and gpu.persistence_mode is None


def test_mig_process_ids_and_new_ecc_split() -> None:
    text = """<nvidia_smi_log><gpu id="0"><ecc_errors>
<volatile><sram_correctable>0</sram_correctable><sram_uncorrectable_parity>2</sram_uncorrectable_parity>
<sram_uncorrectable_secded>1</sram_uncorrectable_secded><dram_uncorrectable>4</dram_uncorrectable></volatile>
<aggregate><sram_uncorrectable>N/A</sram_uncorrectable><dram_uncorrectable>N/A</dram_uncorrectable></aggregate>
</ecc_errors><processes><process_info><gpu_instance_id>1</gpu_instance_id><compute_instance_id>0</compute_instance_id>
<pid>42</pid><type>C</type><process_name>python</process_name><used_memory>500 MiB</used_memory></process_info>
</processes></gpu></nvidia_smi_log>"""
    gpu = parse_nvidia_smi_xml(text).gpus[0]
    assert gpu.ecc_volatile_uncorrected == 7
    assert gpu.ecc_aggregate_uncorrected is None
    assert gpu.processes[0].gpu_instance_id == 1 and gpu.processes[0].compute_instance_id == 0


@pytest.mark.parametrize("text", ["", "   ", "<html/>", "not xml", "<nvidia_smi_log>", "\x00\x01"])
def test_non_smi_xml_is_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_nvidia_smi_xml(text)


@pytest.mark.parametrize("name", XML_FILES)
def test_truncations_of_real_xml(name: str) -> None:
    # Deterministic sample of cut points (the hypothesis suite adds random ones).
    text = _read(name)
    rng = random.Random(name)
    cuts = {0, 1, len(text) // 2, len(text) - 1} | {rng.randrange(len(text)) for _ in range(15)}
    for cut in sorted(cuts):
        with contextlib.suppress(ParseError):
            parse_nvidia_smi_xml(text[:cut])
