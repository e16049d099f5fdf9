"""nvidia-smi --query-gpu CSV: every real capture, facts checked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.errors import ParseError
from gpudoctor.parsers.nvidia_smi_csv import parse_nvidia_smi_csv, split_csv_header

FIXTURES = Path(__file__).parents[2] / "fixtures"
CSV_DIR = FIXTURES / "nvidia-smi-csv"

# Read by hand from each capture: number of header fields, then values by key.  Keys
# with a unit are checked both raw ("memory.total [MiB]" -> "7979 MiB") and bare.
EXPECTED: dict[str, dict] = {
    "a30_query-gpu_pci-bus-id_mig-mode-current.csv": dict(
        columns=2, values={"pci.bus_id": "00000000:0B:00.0", "mig.mode.current": "Enabled"}
    ),
    "geforce-rtx-2080-super_driver-465.27_ubuntu-20.04_query-gpu-with-units.csv": dict(
        columns=115,
        values={
            "driver_version": "465.27",
            "count": "1",
            "name": "NVIDIA GeForce RTX 2080 SUPER",
            "pci.bus_id": "00000000:0C:00.0",
            "pci.device_id": "0x1E8110DE",
            "pcie.link.gen.current": "1",
            "pcie.link.gen.max": "3",
            "pcie.link.width.max": "16",
            "persistence_mode": "Disabled",
            "driver_model.current": None,
            "memory.total [MiB]": "7979 MiB",
            "memory.total": "7979",
            "memory.used": "344",
            "fan.speed [%]": "38 %",
            "fan.speed": "38",
            "power.draw": "30.37",
            "clocks_throttle_reasons.gpu_idle": "Active",
            "ecc.mode.current": None,
            "temperature.memory": None,
            "mig.mode.current": None,
        },
    ),
    "geforce-rtx-2080-super_driver-471.11_windows_query-gpu-with-units.csv": dict(
        columns=115,
        values={
            "driver_version": "471.11",
            "name": "NVIDIA GeForce RTX 2080 SUPER",
            "pci.device_id": "0x1E81",
            "driver_model.current": "WDDM",
            "persistence_mode": None,
            "pcie.link.gen.current": "3",
            "pcie.link.gen.max": "3",
            "memory.total": "8192",
            "memory.used [MiB]": "876 MiB",
            "mig.mode.current": None,
        },
    ),
    "geforce-rtx-2080-super_driver-591.86_windows_query-gpu-all-fields.csv": dict(
        columns=210,
        values={
            "driver_version": "591.86",
            "name": "NVIDIA GeForce RTX 2080 SUPER",
            "driver_model.current": "WDDM",
            "compute_cap": "7.5",
            "memory.total": "8192",
            "pcie.link.gen.max": "3",
            "pcie.link.gen.hostmax": "4",
            "clocks_event_reasons.gpu_idle": "Active",
            "display_mode": None,  # "[Requested ... deprecated]"
            "platform.chassis_serial_number": None,
            "mig.mode.current": None,
        },
    ),
    "geforce-rtx-4080-super_driver-595.71.05_query-gpu-all-fields.csv": dict(
        columns=202,
        values={
            "driver_version": "595.71.05",
            "kmd_version": "595.71.05",
            "name": "NVIDIA GeForce RTX 4080 SUPER",
            "compute_cap": "8.9",
            "memory.total": "16376",
            "pcie.link.gen.current": "1",
            "pcie.link.gen.max": "4",
            "pcie.link.gen.hostmax": "5",
            "addressing_mode": "HMM",
            "ecc.mode.current": None,
            "mig.mode.current": None,
            "gsp.mode.current": "Enabled",
        },
    ),
    "h100-80gb-hbm3_driver-590.48.01_mig-enabled_query-gpu-all-fields.csv": dict(
        columns=212,
        values={
            "driver_version": "590.48.01",
            "name": "NVIDIA H100 80GB HBM3",
            "pci.bus_id": "00000000:00:09.0",
            "compute_cap": "9.0",
            "memory.total": "81559",
            "memory.used": "59",
            "pcie.link.gen.max": "5",
            "pcie.link.gen.hostmax": None,
            "persistence_mode": "Enabled",
            "ecc.mode.current": "Enabled",
            "ecc.errors.uncorrected.volatile.total": "0",
            "mig.mode.current": "Enabled",
            "mig.mode.pending": "Enabled",
        },
    ),
    "l40s_driver-595.80_query-gpu-all-fields.csv": dict(
        columns=202,
        values={
            "driver_version": "595.80",
            "name": "NVIDIA L40S",
            "compute_cap": "8.9",
            "memory.total": "46068",
            "pcie.link.gen.current": "4",
            "ecc.mode.current": "Enabled",
            "remapped_rows.pending": "No",
            "clocks_event_reasons.gpu_idle": "Not Active",
            "mig.mode.current": None,
        },
    ),
}

CSV_FILES = sorted(p.name for p in CSV_DIR.iterdir())


def test_every_csv_fixture_has_expectations() -> None:
    assert set(CSV_FILES) == set(EXPECTED)


@pytest.mark.parametrize("name", CSV_FILES)
def test_csv_fixture_facts(name: str) -> None:
    text = (CSV_DIR / name).read_text(encoding="utf-8")
    rows = parse_nvidia_smi_csv(text)
    assert len(rows) == 1
    row = rows[0]
    header = text.splitlines()[0].split(", ")
    assert len(header) == EXPECTED[name]["columns"]
    for raw in header:
        assert raw.strip() in row  # every raw header is a key
    for key, value in EXPECTED[name]["values"].items():
        assert row[key] == value, key


def test_noheader_with_field_list() -> None:
    rows = parse_nvidia_smi_csv("00000000:0B:00.0, Enabled\n", fields=["pci.bus_id", "mig.mode.current"])
    assert rows == ({"pci.bus_id": "00000000:0B:00.0", "mig.mode.current": "Enabled"},)


def test_nounits_values_keep_their_number() -> None:
    rows = parse_nvidia_smi_csv("memory.total [MiB], name\n81559, NVIDIA H100\n")
    assert rows[0]["memory.total"] == "81559" and rows[0]["memory.total [MiB]"] == "81559"


def test_placeholders_become_none() -> None:
    rows = parse_nvidia_smi_csv("a, b, c, d, e\n[N/A], [Not Supported], [Unknown Error], N/A, ok\n")
    assert rows[0] == {"a": None, "b": None, "c": None, "d": None, "e": "ok"}


def test_split_header() -> None:
    assert split_csv_header("memory.total [MiB]") == ("memory.total", "MiB")
    assert split_csv_header(" clocks_event_reasons_counters.sw_power_cap [us]") == (
        "clocks_event_reasons_counters.sw_power_cap",
        "us",
    )
    assert split_csv_header("name") == ("name", None)


@pytest.mark.parametrize("text", ["", "\n\n", "a, b\n1, 2, 3\n", "a, , b\n1, 2, 3\n", "a, a\n1, 2\n"])
def test_malformed_csv_is_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_nvidia_smi_csv(text)


def test_header_only_is_no_rows() -> None:
    assert parse_nvidia_smi_csv("name, uuid\n") == ()
