"""Parse `nvidia-smi -q -x` XML (nvsmi_device DTD v10 to v13, with or without the DOCTYPE line).

Handles clocks_throttle_reasons / clocks_event_reasons (535+), both ECC layouts, power_readings / gpu_power_readings.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import clean, float_with_unit, int_with_unit, yes_no
from gpudoctor.parsers.xmlsafe import parse_xml


@dataclass(frozen=True)
class SmiMigDevice:
    """One MIG device from <mig_devices>; memory is the device's own framebuffer slice."""

    index: int | None
    gpu_instance_id: int | None
    compute_instance_id: int | None
    multiprocessor_count: int | None
    memory_total_mib: int | None
    memory_used_mib: int | None
    memory_free_mib: int | None
    bar1_total_mib: int | None


@dataclass(frozen=True)
class SmiProcess:
    """One <process_info>; gpu/compute instance ids are None outside MIG."""

    pid: int | None
    type: str | None
    name: str | None
    used_memory_mib: int | None
    gpu_instance_id: int | None
    compute_instance_id: int | None


@dataclass(frozen=True)
class SmiGpu:
    """One <gpu> element.  Every field is None when the dump lacks it or says N/A."""

    index: int  # position in the file, 0-based (not the minor number)
    pci_bus_id: str | None  # the <gpu id="..."> attribute, else <pci><pci_bus_id>
    name: str | None
    brand: str | None
    uuid: str | None
    serial: str | None
    product_architecture: str | None
    minor_number: int | None
    vbios_version: str | None
    pci_device_id: str | None  # as printed, e.g. "20B010DE" (device 20B0, vendor 10DE)
    driver_model: str | None  # Windows: "WDDM"/"TCC"/"MCDM" (current); None elsewhere
    driver_model_pending: str | None
    virtualization_mode: str | None  # "None", "Pass-Through", "VGPU", "Host VGPU"...
    persistence_mode: bool | None
    compute_mode: str | None
    performance_state: str | None
    mig_mode_current: str | None  # "Enabled"/"Disabled"; None when not MIG-capable
    mig_mode_pending: str | None
    mig_devices: tuple[SmiMigDevice, ...]
    memory_total_mib: int | None
    memory_used_mib: int | None
    memory_free_mib: int | None
    memory_reserved_mib: int | None
    # max_link_gen is what GPU and slot can both do; the device_/host_ values (DTD v12+)
    # say which side limits it.
    pcie_gen_max: int | None
    pcie_gen_current: int | None
    pcie_gen_device_max: int | None
    pcie_gen_device_current: int | None
    pcie_gen_host_max: int | None
    pcie_width_max: int | None
    pcie_width_current: int | None
    ecc_mode_current: str | None
    ecc_mode_pending: str | None
    ecc_volatile_uncorrected: int | None
    ecc_aggregate_uncorrected: int | None
    retired_pages_pending: bool | None
    remapped_rows_correctable: int | None
    remapped_rows_uncorrectable: int | None
    remapped_rows_pending: bool | None
    remapped_rows_failure: bool | None
    throttle_reasons: tuple[str, ...]  # the Active ones only, short names: ("gpu_idle", "sw_power_cap")
    temperature_c: int | None
    power_draw_w: float | None
    power_limit_w: float | None
    gsp_firmware_version: str | None
    processes: tuple[SmiProcess, ...]
    gpu_util_percent: int | None = None  # utilization/gpu_util: what the GPU is doing, not what it holds


@dataclass(frozen=True)
class SmiReport:
    """The whole `nvidia-smi -q -x` dump."""

    driver_version: str | None
    cuda_version: str | None
    attached_gpus: int | None
    timestamp: str | None
    dtd: str | None  # DOCTYPE system id, e.g. "nvsmi_device_v12.dtd"; None without DOCTYPE
    gpus: tuple[SmiGpu, ...]


def _text(parent: ET.Element | None, path: str) -> str | None:
    """Cleaned text of the element at `path`, None if missing or a placeholder."""
    if parent is None:
        return None
    element = parent.find(path)
    if element is None:
        return None
    return clean(element.text)


def _first(parent: ET.Element | None, *paths: str) -> str | None:
    for path in paths:
        value = _text(parent, path)
        if value is not None:
            return value
    return None


def _sum_counts(parent: ET.Element | None, names: tuple[str, ...]) -> int | None:
    """Sum the integer children named in `names`; None when none of them has a number."""
    if parent is None:
        return None
    total = None
    for name in names:
        count = int_with_unit(_text(parent, name))
        if count is not None:
            total = count if total is None else total + count
    return total


def _uncorrected(ecc_errors: ET.Element | None, scope: str) -> int | None:
    """Uncorrectable ECC errors for `scope` ("volatile"/"aggregate") in either layout."""
    if ecc_errors is None:
        return None
    block = ecc_errors.find(scope)
    if block is None:
        return None
    double_bit = block.find("double_bit")
    if double_bit is not None:
        # Pre-Ampere layout: <double_bit> holds per-unit counters and their <total>.
        total = int_with_unit(_text(double_bit, "total"))
        if total is not None:
            return total
        return _sum_counts(
            double_bit,
            ("device_memory", "register_file", "l1_cache", "l2_cache", "texture_memory", "texture_shm", "cbu", "sram", "dram"),
        )
    # Ampere+ layout; 570+ split sram_uncorrectable into parity and SEC-DED counters.
    return _sum_counts(
        block, ("dram_uncorrectable", "sram_uncorrectable", "sram_uncorrectable_parity", "sram_uncorrectable_secded")
    )


def _throttle_reasons(gpu: ET.Element) -> tuple[str, ...]:
    block = gpu.find("clocks_event_reasons")
    prefix = "clocks_event_reason_"
    if block is None:
        block = gpu.find("clocks_throttle_reasons")
        prefix = "clocks_throttle_reason_"
    if block is None:
        return ()
    active = []
    for child in block:
        value = clean(child.text)
        # Text can carry a line break ("Not Active\n   ") in real dumps; clean() strips it.
        if value is not None and value.lower() == "active":
            tag = child.tag
            active.append(tag[len(prefix) :] if tag.startswith(prefix) else tag)
    return tuple(active)


def _power(gpu: ET.Element, names: tuple[str, ...]) -> float | None:
    # 535+ renamed <power_readings> to <gpu_power_readings>; 550+ split power_draw into
    # average_power_draw / instant_power_draw and power_limit into current_power_limit.
    for block_name in ("gpu_power_readings", "power_readings"):
        block = gpu.find(block_name)
        if block is None:
            continue
        for name in names:
            value = float_with_unit(_text(block, name), "W")
            if value is not None:
                return value
    return None


def _mig_devices(gpu: ET.Element) -> tuple[SmiMigDevice, ...]:
    container = gpu.find("mig_devices")
    if container is None:
        return ()  # text "None" (no MIG devices) also lands here with no children
    devices = []
    for device in container.findall("mig_device"):
        devices.append(
            SmiMigDevice(
                index=int_with_unit(_text(device, "index")),
                gpu_instance_id=int_with_unit(_text(device, "gpu_instance_id")),
                compute_instance_id=int_with_unit(_text(device, "compute_instance_id")),
                multiprocessor_count=int_with_unit(_text(device, "device_attributes/shared/multiprocessor_count")),
                memory_total_mib=int_with_unit(_text(device, "fb_memory_usage/total"), "MiB"),
                memory_used_mib=int_with_unit(_text(device, "fb_memory_usage/used"), "MiB"),
                memory_free_mib=int_with_unit(_text(device, "fb_memory_usage/free"), "MiB"),
                bar1_total_mib=int_with_unit(_text(device, "bar1_memory_usage/total"), "MiB"),
            )
        )
    return tuple(devices)


def _processes(gpu: ET.Element) -> tuple[SmiProcess, ...]:
    container = gpu.find("processes")
    if container is None:
        return ()
    processes = []
    for info in container.findall("process_info"):
        processes.append(
            SmiProcess(
                pid=int_with_unit(_text(info, "pid")),
                type=_text(info, "type"),
                name=_text(info, "process_name"),
                used_memory_mib=int_with_unit(_text(info, "used_memory"), "MiB"),
                gpu_instance_id=int_with_unit(_text(info, "gpu_instance_id")),
                compute_instance_id=int_with_unit(_text(info, "compute_instance_id")),
            )
        )
    return tuple(processes)


def _gpu(index: int, gpu: ET.Element) -> SmiGpu:
    link = gpu.find("pci/pci_gpu_link_info")
    remapped = gpu.find("remapped_rows")
    retired = gpu.find("retired_pages")
    ecc_errors = gpu.find("ecc_errors")
    return SmiGpu(
        index=index,
        pci_bus_id=clean(gpu.get("id")) or _text(gpu, "pci/pci_bus_id"),
        name=_text(gpu, "product_name"),
        brand=_text(gpu, "product_brand"),
        uuid=_text(gpu, "uuid"),
        serial=_text(gpu, "serial"),
        product_architecture=_text(gpu, "product_architecture"),
        minor_number=int_with_unit(_text(gpu, "minor_number")),
        vbios_version=_text(gpu, "vbios_version"),
        pci_device_id=_text(gpu, "pci/pci_device_id"),
        driver_model=_text(gpu, "driver_model/current_dm"),
        driver_model_pending=_text(gpu, "driver_model/pending_dm"),
        virtualization_mode=_text(gpu, "gpu_virtualization_mode/virtualization_mode"),
        persistence_mode=yes_no(_text(gpu, "persistence_mode")),
        compute_mode=_text(gpu, "compute_mode"),
        performance_state=_text(gpu, "performance_state"),
        mig_mode_current=_text(gpu, "mig_mode/current_mig"),
        mig_mode_pending=_text(gpu, "mig_mode/pending_mig"),
        mig_devices=_mig_devices(gpu),
        memory_total_mib=int_with_unit(_text(gpu, "fb_memory_usage/total"), "MiB"),
        memory_used_mib=int_with_unit(_text(gpu, "fb_memory_usage/used"), "MiB"),
        memory_free_mib=int_with_unit(_text(gpu, "fb_memory_usage/free"), "MiB"),
        memory_reserved_mib=int_with_unit(_text(gpu, "fb_memory_usage/reserved"), "MiB"),
        pcie_gen_max=int_with_unit(_text(link, "pcie_gen/max_link_gen")),
        pcie_gen_current=int_with_unit(_text(link, "pcie_gen/current_link_gen")),
        pcie_gen_device_max=int_with_unit(_text(link, "pcie_gen/max_device_link_gen")),
        pcie_gen_device_current=int_with_unit(_text(link, "pcie_gen/device_current_link_gen")),
        pcie_gen_host_max=int_with_unit(_text(link, "pcie_gen/max_host_link_gen")),
        pcie_width_max=int_with_unit(_text(link, "link_widths/max_link_width"), "x"),
        pcie_width_current=int_with_unit(_text(link, "link_widths/current_link_width"), "x"),
        ecc_mode_current=_text(gpu, "ecc_mode/current_ecc"),
        ecc_mode_pending=_text(gpu, "ecc_mode/pending_ecc"),
        ecc_volatile_uncorrected=_uncorrected(ecc_errors, "volatile"),
        ecc_aggregate_uncorrected=_uncorrected(ecc_errors, "aggregate"),
        # pending_blacklist is the pre-R450 name of pending_retirement.
        retired_pages_pending=yes_no(_first(retired, "pending_retirement", "pending_blacklist")),
        remapped_rows_correctable=int_with_unit(_text(remapped, "remapped_row_corr")),
        remapped_rows_uncorrectable=int_with_unit(_text(remapped, "remapped_row_unc")),
        remapped_rows_pending=yes_no(_text(remapped, "remapped_row_pending")),
        remapped_rows_failure=yes_no(_text(remapped, "remapped_row_failure")),
        throttle_reasons=_throttle_reasons(gpu),
        temperature_c=int_with_unit(_text(gpu, "temperature/gpu_temp"), "C"),
        power_draw_w=_power(gpu, ("power_draw", "instant_power_draw", "average_power_draw")),
        power_limit_w=_power(gpu, ("power_limit", "current_power_limit", "enforced_power_limit")),
        gsp_firmware_version=_text(gpu, "gsp_firmware_version"),
        processes=_processes(gpu),
        gpu_util_percent=int_with_unit(_text(gpu, "utilization/gpu_util"), "%"),
    )


def parse_nvidia_smi_xml(text: str) -> SmiReport:
    """Parse `nvidia-smi -q -x` output.  Raises ParseError unless it is an <nvidia_smi_log>."""
    document = parse_xml(text)
    root = document.root
    if root.tag != "nvidia_smi_log":
        raise ParseError(f"not nvidia-smi XML: root element is <{root.tag}>, expected <nvidia_smi_log>")
    return SmiReport(
        driver_version=_text(root, "driver_version"),
        cuda_version=_text(root, "cuda_version"),
        attached_gpus=int_with_unit(_text(root, "attached_gpus")),
        timestamp=_text(root, "timestamp"),
        dtd=document.doctype_system_id,
        gpus=tuple(_gpu(i, gpu) for i, gpu in enumerate(root.findall("gpu"))),
    )
