"""Plain nvidia-smi table, --version and -L: every real capture, facts checked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.errors import ParseError
from gpudoctor.parsers.nvidia_smi_text import (
    parse_nvidia_smi_list,
    parse_nvidia_smi_table,
    parse_nvidia_smi_version,
)

FIXTURES = Path(__file__).parents[2] / "fixtures"
TEXT_DIR = FIXTURES / "nvidia-smi-text"

VERSION_FILES = {"nvidia-smi--version_590.48.01_cuda-13.1.txt"}
LIST_FILES = {"a30_nvidia-smi-L_mig-devices.txt"}

# Per table capture, read by hand: header versions, then per GPU (name as printed,
# bus id, memory used/total MiB, Persistence-M or Driver-Model, MIG M. cell, ECC cell),
# then the processes as (gpu, pid, type, MiB) and the MIG device count.
_A100 = ("NVIDIA A100-SXM4-80GB", 1, 81920, True, None, "Disabled", "0")
_H100 = ("NVIDIA H100 80GB HBM3", 1, 81559, True, None, "Disabled", "0")
TABLES: dict[str, dict] = {
    "a100-sxm4-80gb-x4_driver-555.42.02_cuda-12.5.txt": dict(
        driver="555.42.02",
        label="Driver Version",
        cuda="12.5",
        gpus=[
            (i, bus, *_A100)
            for i, bus in enumerate(["00000000:68:00.0", "00000000:9E:00.0", "00000000:C2:00.0", "00000000:D4:00.0"])
        ],
        processes=[],
        mig=0,
    ),
    "a30_driver-535.183.01_cuda-12.2_mig-enabled-no-mig-devices.txt": dict(
        driver="535.183.01",
        label="Driver Version",
        cuda="12.2",
        gpus=[(0, "00000000:0B:00.0", "NVIDIA A30", 0, 24576, False, None, "Enabled", "On")],
        processes=[],
        mig=0,
    ),
    "a30_driver-535.183.01_cuda-12.2_mig-pending-enabled-star.txt": dict(
        driver="535.183.01",
        label="Driver Version",
        cuda="12.2",
        gpus=[(0, "00000000:0B:00.0", "NVIDIA A30", 0, 24576, False, None, "Enabled*", "0")],
        processes=[],
        mig=0,
    ),
    "geforce-laptop_driver-470.63.01_cuda-11.4_xorg-firefox-processes.txt": dict(
        driver="470.63.01",
        label="Driver Version",
        cuda="11.4",
        gpus=[(0, "00000000:01:00.0", "NVIDIA GeForce ...", 393, 16116, False, None, None, None)],
        processes=[
            (0, 3279, "G", 35),
            (0, 8090, "G", 155),
            (0, 8219, "G", 41),
            (0, 10010, "G", 140),
            (0, 12963, "G", 3),
            (0, 13426, "G", 3),
        ],
        mig=0,
    ),
    "geforce-rtx-2070-laptop_driver-440.100_cuda-10.2_pre-mig-layout.txt": dict(
        driver="440.100",
        label="Driver Version",
        cuda="10.2",
        gpus=[(0, "00000000:01:00.0", "GeForce RTX 207...", 246, 7973, False, None, None, None)],
        processes=[(0, 1357, "G", 18), (0, 1417, "G", 49), (0, 1811, "G", 96), (0, 1968, "G", 77)],
        mig=0,
    ),
    "geforce-rtx-2080-super_driver-591.86_cuda-13.1_windows-wddm.txt": dict(
        driver="591.86",
        label="Driver Version",
        cuda="13.1",
        gpus=[(0, "00000000:0C:00.0", "NVIDIA GeForce RTX 2080 ...", 702, 8192, None, "WDDM", None, None)],
        processes=[(0, pid, "C+G", None) for pid in (2056, 4680, 12332, 12444, 14160, 14184, 15076, 16280, 20372, 24804)],
        mig=0,
    ),
    "geforce-rtx-2080-super_driver-595.71.05_cuda-13.2_linux-idle.txt": dict(
        driver="595.71.05",
        label="Driver Version",
        cuda="13.2",
        gpus=[(0, "00000000:0C:00.0", "NVIDIA GeForce RTX 2080 ...", 214, 8192, False, None, None, None)],
        processes=[(0, 1696, "G", 176), (0, 4584, "G", 3)],
        mig=0,
    ),
    "geforce-rtx-2080-super_driver-610.57.04_cuda-umd-13.3_linux-kmd-header.txt": dict(
        driver="610.57.04",
        label="KMD Version",
        cuda="13.3",
        gpus=[(0, "00000000:0C:00.0", "NVIDIA GeForce RTX 2080 ...", 211, 8192, False, None, None, None)],
        processes=[(0, 1720, "G", 173), (0, 4556, "G", 3)],
        mig=0,
    ),
    "geforce-rtx-4080-super_driver-595.71.05_cuda-13.2_linux-idle.txt": dict(
        driver="595.71.05",
        label="Driver Version",
        cuda="13.2",
        gpus=[(0, "00000000:01:00.0", "NVIDIA GeForce RTX 4080 ...", 596, 16376, False, None, None, None)],
        processes=[(0, 2165, "C+G", 25), (0, 2496, "G", 200), (0, 2620, "G", 4), (0, 2954, "G", 120), (0, 3527, "G", 3)],
        mig=0,
    ),
    "geforce-rtx-5070_driver-575.64.03_cuda-version-NA_freebsd_excerpt.txt": dict(
        driver="575.64.03",
        label="Driver Version",
        cuda=None,
        gpus=[(0, "00000000:02:00.0", "NVIDIA GeForce RTX 5070", 1731, 12227, False, None, None, None)],
        processes=[],
        mig=0,
    ),
    "h100-80gb-hbm3-x8_driver-565.57.01_cuda-12.7.txt": dict(
        driver="565.57.01",
        label="Driver Version",
        cuda="12.7",
        gpus=[
            (i, bus, *_H100)
            for i, bus in enumerate(
                [
                    "00000000:18:00.0",
                    "00000000:2A:00.0",
                    "00000000:3A:00.0",
                    "00000000:5D:00.0",
                    "00000000:9A:00.0",
                    "00000000:AB:00.0",
                    "00000000:BA:00.0",
                    "00000000:DB:00.0",
                ]
            )
        ],
        processes=[],
        mig=0,
    ),
    "h100-80gb-hbm3_driver-590.48.01_cuda-13.1_idle.txt": dict(
        driver="590.48.01",
        label="Driver Version",
        cuda="13.1",
        gpus=[(0, "00000000:00:09.0", "NVIDIA H100 80GB HBM3", 0, 81559, True, None, "Disabled", "0")],
        processes=[],
        mig=0,
    ),
    "h100-80gb-hbm3_driver-590.48.01_cuda-13.1_load-processes.txt": dict(
        driver="590.48.01",
        label="Driver Version",
        cuda="13.1",
        gpus=[(0, "00000000:00:09.0", "NVIDIA H100 80GB HBM3", 19818, 81559, True, None, "Disabled", "0")],
        processes=[(0, 11327, "C", 2566), (0, 11328, "C", 1542), (0, 11345, "C", 15690)],
        mig=0,
    ),
    "h100-80gb-hbm3_driver-590.48.01_cuda-13.1_mig-enabled.txt": dict(
        driver="590.48.01",
        label="Driver Version",
        cuda="13.1",
        gpus=[(0, "00000000:00:09.0", "NVIDIA H100 80GB HBM3", 59, 81559, True, None, "Enabled", "On")],
        processes=[],
        mig=4,
    ),
    "h100-nvl-x2_driver-550.54.14_cuda-12.4.txt": dict(
        driver="550.54.14",
        label="Driver Version",
        cuda="12.4",
        gpus=[
            (0, "00000000:AD:00.0", "NVIDIA H100 NVL", 0, 95830, True, None, "Disabled", "0"),
            (1, "00000000:AE:00.0", "NVIDIA H100 NVL", 0, 95830, True, None, "Disabled", "0"),
        ],
        processes=[],
        mig=0,
    ),
    "h200_driver-590.48.01_cuda-13.1_idle.txt": dict(
        driver="590.48.01",
        label="Driver Version",
        cuda="13.1",
        gpus=[(0, "00000000:83:00.0", "NVIDIA H200", 0, 143771, True, None, "Disabled", "0")],
        processes=[],
        mig=0,
    ),
    "l40s_driver-595.80_cuda-13.2.txt": dict(
        driver="595.80",
        label="Driver Version",
        cuda="13.2",
        gpus=[(0, "00000000:01:00.0", "NVIDIA L40S", 0, 46068, False, None, None, "0")],
        processes=[],
        mig=0,
    ),
    "rtx-2000-ada-laptop_driver-550.120_cuda-12.4_bogus-power.txt": dict(
        driver="550.120",
        label="Driver Version",
        cuda="12.4",
        gpus=[(0, "00000000:01:00.0", "NVIDIA RTX 2000 Ada Gene...", 9, 8188, False, None, None, None)],
        processes=[(0, 2358, "G", 4)],
        mig=0,
    ),
    "rtx-2000-ada-laptop_driver-580.95.05_cuda-13.0.txt": dict(
        driver="580.95.05",
        label="Driver Version",
        cuda="13.0",
        gpus=[(0, "00000000:01:00.0", "NVIDIA RTX 2000 Ada Gene...", 15, 8188, True, None, None, None)],
        processes=[(0, 3028, "G", 4)],
        mig=0,
    ),
    "rtx-a2000-8gb-laptop_driver-560.28.03_cuda-12.6.txt": dict(
        driver="560.28.03",
        label="Driver Version",
        cuda="12.6",
        gpus=[(0, "00000000:01:00.0", "NVIDIA RTX A2000 8GB Lap...", 14, 8192, False, None, None, None)],
        processes=[(0, 2426, "G", 4)],
        mig=0,
    ),
}

TEXT_FILES = sorted(p.name for p in TEXT_DIR.iterdir())
TABLE_FILES = [name for name in TEXT_FILES if name not in VERSION_FILES | LIST_FILES]


def _read(name: str) -> str:
    return (TEXT_DIR / name).read_text(encoding="utf-8")


def test_every_text_fixture_has_expectations() -> None:
    assert set(TEXT_FILES) == set(TABLES) | VERSION_FILES | LIST_FILES


@pytest.mark.parametrize("name", TABLE_FILES)
def test_table_fixture_facts(name: str) -> None:
    table = parse_nvidia_smi_table(_read(name))
    want = TABLES[name]
    assert table.driver_version == want["driver"]
    assert table.nvidia_smi_version == want["driver"]
    assert table.driver_version_label == want["label"]
    assert table.cuda_version == want["cuda"]
    got_gpus = [
        (g.index, g.bus_id, g.name, g.memory_used_mib, g.memory_total_mib, g.persistence_mode, g.driver_model, g.mig_mode, g.ecc)
        for g in table.gpus
    ]
    assert got_gpus == want["gpus"]
    assert [(p.gpu_index, p.pid, p.type, p.used_memory_mib) for p in table.processes] == want["processes"]
    assert len(table.mig_devices) == want["mig"]


def test_truncated_names_are_flagged() -> None:
    table = parse_nvidia_smi_table(_read("rtx-a2000-8gb-laptop_driver-560.28.03_cuda-12.6.txt"))
    assert table.gpus[0].name_truncated is True
    table = parse_nvidia_smi_table(_read("h200_driver-590.48.01_cuda-13.1_idle.txt"))
    assert table.gpus[0].name_truncated is False


def test_mig_pending_star() -> None:
    star = parse_nvidia_smi_table(_read("a30_driver-535.183.01_cuda-12.2_mig-pending-enabled-star.txt")).gpus[0]
    assert star.mig_mode == "Enabled*" and star.mig_mode_pending is True
    assert star.gpu_util_percent == 0
    after = parse_nvidia_smi_table(_read("a30_driver-535.183.01_cuda-12.2_mig-enabled-no-mig-devices.txt")).gpus[0]
    assert after.mig_mode == "Enabled" and after.mig_mode_pending is False
    assert after.gpu_util_percent is None  # GPU-Util shows N/A once MIG is on


def test_h100_mig_device_table() -> None:
    table = parse_nvidia_smi_table(_read("h100-80gb-hbm3_driver-590.48.01_cuda-13.1_mig-enabled.txt"))
    rows = [
        (
            d.gpu_index,
            d.gpu_instance_id,
            d.compute_instance_id,
            d.mig_device_index,
            d.memory_used_mib,
            d.memory_total_mib,
            d.bar1_total_mib,
            d.sm_count,
        )
        for d in table.mig_devices
    ]
    assert rows == [
        (0, 2, 0, 0, 26, 40448, 24739, 60),
        (0, 3, 0, 1, 17, 20096, 12369, 32),
        (0, 9, 0, 2, 9, 9984, 6184, 16),
        (0, 10, 0, 3, 9, 9984, 6184, 16),
    ]


def test_power_temperature_and_timestamp() -> None:
    bogus = parse_nvidia_smi_table(_read("rtx-2000-ada-laptop_driver-550.120_cuda-12.4_bogus-power.txt"))
    gpu = bogus.gpus[0]
    assert (gpu.power_draw_w, gpu.power_cap_w, gpu.temperature_c) == (588, 35, 35)  # as printed, implausible
    assert bogus.timestamp == "Sat Sep  6 12:38:38 2025"
    old = parse_nvidia_smi_table(_read("geforce-laptop_driver-470.63.01_cuda-11.4_xorg-firefox-processes.txt")).gpus[0]
    assert (old.power_draw_w, old.power_cap_w, old.fan_percent, old.display_active) == (21, None, None, True)
    windows = parse_nvidia_smi_table(_read("geforce-rtx-2080-super_driver-591.86_cuda-13.1_windows-wddm.txt"))
    assert windows.gpus[0].fan_percent == 37 and windows.gpus[0].persistence_mode is None
    assert windows.processes[0].name == "C:\\Windows\\System32\\dwm.exe"
    assert windows.processes[8].name == "...m Files\\NZXT CAM\\NZXT CAM.exe"
    # The x4/x8 replays from thamada/nvidia-smi start at the box, without a timestamp.
    assert parse_nvidia_smi_table(_read("h100-80gb-hbm3-x8_driver-565.57.01_cuda-12.7.txt")).timestamp is None


def test_version_output() -> None:
    version = parse_nvidia_smi_version(_read("nvidia-smi--version_590.48.01_cuda-13.1.txt"))
    assert version.nvidia_smi_version == "590.48.01"
    assert version.nvml_version == "590.48"
    assert version.driver_version == "590.48.01"
    assert version.cuda_version == "13.1"


def test_list_output_with_mig_devices() -> None:
    listing = parse_nvidia_smi_list(_read("a30_nvidia-smi-L_mig-devices.txt"))
    assert len(listing.gpus) == 1
    gpu = listing.gpus[0]
    assert (gpu.index, gpu.name, gpu.uuid) == (0, "NVIDIA A30", "GPU-1e44b340-5807-0dbe-62e6-343a6b8b8bcd")
    assert [(m.index, m.profile, m.uuid) for m in gpu.mig_devices] == [
        (0, "2g.12gb", "MIG-1b8509c0-e60d-502d-8263-d434867998aa"),
        (1, "1g.6gb", "MIG-41b9eab5-8d48-5c52-9f07-82bc59af3901"),
        (2, "1g.6gb", "MIG-55dcd9bd-e6b1-549a-bcb4-0b0496bfee9c"),
    ]


def test_list_variants() -> None:
    old_mig = (
        "GPU 0: A100-SXM4-40GB (UUID: GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f)\n"
        "  MIG 3g.20gb Device 0: (UUID: MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/1/0)\n"
    )
    gpu = parse_nvidia_smi_list(old_mig).gpus[0]
    assert gpu.mig_devices[0].uuid == "MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/1/0"
    assert parse_nvidia_smi_list("No devices found.\n").gpus == ()
    with pytest.raises(ParseError):
        parse_nvidia_smi_list("Failed to initialize NVML: Unknown Error\n")


@pytest.mark.parametrize("name", sorted(p.name for p in (FIXTURES / "errors").iterdir()))
def test_error_texts_are_not_tables(name: str) -> None:
    text = (FIXTURES / "errors" / name).read_text(encoding="utf-8")
    with pytest.raises(ParseError):
        parse_nvidia_smi_table(text)
    with pytest.raises(ParseError):
        parse_nvidia_smi_version(text)
    with pytest.raises(ParseError):
        parse_nvidia_smi_list(text)


def test_crlf_table_parses_the_same() -> None:
    text = _read("h100-nvl-x2_driver-550.54.14_cuda-12.4.txt")
    assert parse_nvidia_smi_table(text.replace("\n", "\r\n")) == parse_nvidia_smi_table(text)


def test_mig_processes_and_old_windows_header() -> None:
    # Synthetic rows in the real layouts: a MIG process carries GI/CI numbers, and
    # pre-525 Windows tables head the mode column "TCC/WDDM".
    text = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 451.48       Driver Version: 451.48       CUDA Version: 11.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla T4            TCC  | 00000000:3B:00.0 Off |                    0 |
| N/A   40C    P8     9W /  70W |      0MiB / 15205MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| Processes:                                                                  |
|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |
|        ID   ID                                                   Usage      |
|=============================================================================|
|    0    1    0      12345      C   python                          500MiB |
+-----------------------------------------------------------------------------+
"""
    table = parse_nvidia_smi_table(text)
    gpu = table.gpus[0]
    assert (gpu.name, gpu.driver_model, gpu.persistence_mode, gpu.memory_total_mib) == ("Tesla T4", "TCC", None, 15205)
    process = table.processes[0]
    assert (process.gpu_instance_id, process.compute_instance_id, process.pid, process.used_memory_mib) == (1, 0, 12345, 500)


def test_a_table_cut_before_the_mig_devices_does_not_say_whether_any_exist():
    text = (TEXT_DIR / "a30_driver-535.183.01_cuda-12.2_mig-enabled-no-mig-devices.txt").read_text(encoding="utf-8")
    whole = parse_nvidia_smi_table(text)
    cut = parse_nvidia_smi_table(text.split("MIG devices:")[0])
    assert whole.mig_shown and whole.mig_devices == ()
    assert not cut.mig_shown and cut.gpus == whole.gpus
    # the Processes section follows the MIG devices' place: a table that reaches it has shown them (none, here)
    assert parse_nvidia_smi_table(text.replace("MIG devices:", "other:")).mig_shown


def test_a_header_pasted_as_inline_code_keeps_its_backtick_out_of_the_versions():
    # the header as one line of inline code: tests/blind/plans11/cases/1137-localai840-docker-v1220-cublas-cuda11-
    # image-driver-525-cuda-error-35-ask/input.txt ("`NVIDIA-SMI 525.125.06   Driver Version: 525.125.06   CUDA
    # Version: 12.0`"); the backtick closes the markup, it is not a version's character
    case = next((Path(__file__).parents[2] / "blind" / "plans11" / "cases").glob("1137-*")) / "input.txt"
    header = next(x for x in case.read_text(encoding="utf-8").splitlines() if "NVIDIA-SMI" in x)
    table = parse_nvidia_smi_table(header)
    assert (table.driver_version, table.cuda_version) == ("525.125.06", "12.0")
    # quiet twin: the same header as the table's own row (pynvml pull request 48's paste,
    # https://github.com/gpuopenanalytics/pynvml/pull/48) reads the same, its bar still ending the value
    row = "| NVIDIA-SMI 525.125.06   Driver Version: 525.125.06   CUDA Version: 12.0     |"
    table = parse_nvidia_smi_table(row)
    assert (table.driver_version, table.cuda_version) == ("525.125.06", "12.0")
