"""The user-space driver and its GPUs: NVML first, `nvidia-smi` as cross-check and fallback."""

from __future__ import annotations

from gpudoctor.errors import ParseError
from gpudoctor.facts import DriverFacts, Gpu, Process
from gpudoctor.host import CommandResult, Host
from gpudoctor.host.nvml import NAMED_IN_TEXT
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.versions import cuda_from_int

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# NVML's clock event (formerly throttle) reason bits, nvml.h; named as
# nvidia-smi names them, without its clocks_event_reason_ prefix.
EVENT_REASONS = (
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
)
_REASON_PREFIX = LazyPattern(r"^clocks?_(throttle|event)_reasons?_")


def reason_names(mask: int | None) -> tuple[str, ...]:
    if not mask:
        return ()
    return tuple(name for bit, name in EVENT_REASONS if mask & bit)


def nvml_processes(dev: dict[str, Any]) -> tuple[Process, ...]:
    """NVML's compute and graphics lists of one GPU as one list, a process once, typed as nvidia-smi types it.

    A process in both lists (a program that renders and computes) is "C+G", as nvidia-smi shows it, with one
    memory figure: NVML gives each list the process's use of the GPU, so adding the two would count it twice.
    A snapshot recorded before graphics processes were read has no `graphics_processes`: compute only.
    """
    merged: dict[int, Process] = {}
    for key, kind in (("processes", "C"), ("graphics_processes", "G")):
        for p in dev.get(key) or []:
            pid = int(p.get("pid", 0))
            seen = merged.get(pid)
            if seen is None:
                merged[pid] = Process(pid, p.get("name"), p.get("used_bytes"), kind)
                continue
            used = [u for u in (seen.used_bytes, p.get("used_bytes")) if isinstance(u, int)]
            merged[pid] = Process(
                pid,
                seen.name or p.get("name"),
                max(used) if used else None,
                seen.type if seen.type == kind else "C+G",
            )
    return tuple(merged.values())


def gpus_from_nvml(state: dict[str, Any]) -> tuple[Gpu, ...]:
    gpus: list[Gpu] = []
    for dev in state.get("devices") or []:
        memory = dev.get("memory") or {}
        mig = dev.get("mig_mode") or {}
        ecc = dev.get("ecc_mode") or {}
        remapped = dev.get("remapped_rows") or {}
        procs = nvml_processes(dev)
        gpus.append(
            Gpu(
                index=int(dev.get("index", len(gpus))),
                name=dev.get("name"),
                uuid=dev.get("uuid"),
                pci_bus_id=dev.get("pci_bus_id"),
                compute_capability=dev.get("compute_capability"),
                memory_total_bytes=memory.get("total_bytes"),
                memory_used_bytes=memory.get("used_bytes"),
                memory_free_bytes=memory.get("free_bytes"),
                pcie_gen_current=dev.get("pcie_gen_current"),
                # The link's maximum (what this GPU in this slot can train to), not the
                # GPU's own: a Gen4 card in a Gen3 slot is a slot limit, not a degraded link.
                pcie_gen_max=dev.get("pcie_gen_max"),
                pcie_width_current=dev.get("pcie_width_current"),
                pcie_width_max=dev.get("pcie_width_max"),
                persistence_mode=dev.get("persistence_mode"),
                mig_current=mig.get("current") if mig else None,
                mig_pending=mig.get("pending") if mig else None,
                mig_devices=len(dev["mig_devices"]) if isinstance(dev.get("mig_devices"), list) else None,
                ecc_enabled=ecc.get("current") if ecc else None,
                ecc_volatile_uncorrected=dev.get("ecc_volatile_uncorrected"),
                ecc_aggregate_uncorrected=dev.get("ecc_aggregate_uncorrected"),
                retired_pages_pending=dev.get("retired_pages_pending"),
                remapped_rows_pending=remapped.get("pending") if remapped else None,
                remapped_rows_failure=remapped.get("failure") if remapped else None,
                throttle_reasons=reason_names(dev.get("clock_event_reasons")),
                temperature_c=dev.get("temperature_c"),
                power_draw_w=dev.get("power_draw_w"),
                processes=procs,
                lost=bool(dev.get("lost")),
                lost_error=str(dev["lost"]) if dev.get("lost") else None,
                source="nvml",
                performance_state=dev.get("performance_state"),
                utilization_gpu_percent=dev.get("utilization_gpu"),
            )
        )
    return tuple(gpus)


def _mib(value: Any) -> int | None:
    return int(value) * 1024 * 1024 if isinstance(value, (int, float)) else None


def _on(value: Any) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("enabled", "enable", "on", "yes", "true", "1"):
        return True
    if text in ("disabled", "disable", "off", "no", "false", "0"):
        return False
    return None


def gpus_from_smi_xml(report: Any) -> tuple[Gpu, ...]:
    gpus = []
    for i, g in enumerate(report.gpus):
        procs = tuple(Process(p.pid, p.name, _mib(p.used_memory_mib), p.type) for p in g.processes)
        gpus.append(
            Gpu(
                index=i,
                name=g.name,
                uuid=g.uuid,
                pci_bus_id=g.pci_bus_id,
                memory_total_bytes=_mib(g.memory_total_mib),
                memory_used_bytes=_mib(g.memory_used_mib),
                memory_free_bytes=_mib(g.memory_free_mib),
                pcie_gen_current=g.pcie_gen_current,
                pcie_gen_max=g.pcie_gen_max,
                pcie_width_current=g.pcie_width_current,
                pcie_width_max=g.pcie_width_max,
                persistence_mode=g.persistence_mode,
                mig_current=_on(g.mig_mode_current),
                mig_pending=_on(g.mig_mode_pending),
                mig_devices=len(g.mig_devices) if g.mig_devices else (0 if _on(g.mig_mode_current) else None),
                ecc_enabled=_on(g.ecc_mode_current),
                ecc_volatile_uncorrected=g.ecc_volatile_uncorrected,
                ecc_aggregate_uncorrected=g.ecc_aggregate_uncorrected,
                retired_pages_pending=g.retired_pages_pending,
                remapped_rows_pending=g.remapped_rows_pending,
                remapped_rows_failure=g.remapped_rows_failure,
                throttle_reasons=tuple(_REASON_PREFIX.sub("", r) for r in g.throttle_reasons),
                temperature_c=g.temperature_c,
                power_draw_w=g.power_draw_w,
                processes=procs,
                source="nvidia-smi",
                performance_state=g.performance_state,
                utilization_gpu_percent=g.gpu_util_percent,
            )
        )
    return tuple(gpus)


def gpus_from_smi_table(table: Any) -> tuple[Gpu, ...]:
    gpus = []
    for g in table.gpus:
        procs = tuple(Process(p.pid, p.name, _mib(p.used_memory_mib), p.type) for p in table.processes if p.gpu_index == g.index)
        gpus.append(
            Gpu(
                index=g.index,
                name=g.name,
                pci_bus_id=g.bus_id,
                memory_total_bytes=_mib(g.memory_total_mib),
                memory_used_bytes=_mib(g.memory_used_mib),
                memory_free_bytes=(
                    _mib(g.memory_total_mib - g.memory_used_mib)
                    if g.memory_total_mib is not None and g.memory_used_mib is not None
                    else None
                ),
                mig_current=_on((g.mig_mode or "").rstrip("*")) if not g.mig_mode_pending else False,
                mig_pending=True if g.mig_mode_pending else None,
                mig_devices=sum(1 for m in table.mig_devices if m.gpu_index == g.index) if table.mig_shown else None,
                processes=procs,
                source="nvidia-smi",
                performance_state=g.performance_state,
                utilization_gpu_percent=g.gpu_util_percent,
            )
        )
    return tuple(gpus)


def run_smi(host: Host, timeout_s: float) -> dict[str, Any]:
    """Run nvidia-smi (`-q -x`, else the plain table) and say what came of it."""
    # Parsers are imported only when there is output to parse: on a machine
    # without nvidia-smi this probe then costs two failed exec calls and nothing more.
    xml = host.run(["nvidia-smi", "-q", "-x"], timeout_s)
    out: dict[str, Any] = {"status": "missing", "result": xml}
    if xml.timed_out:
        return {"status": "timeout", "result": xml, "timeout_s": timeout_s}
    if xml.ok:
        from gpudoctor.parsers.nvidia_smi_xml import parse_nvidia_smi_xml

        try:
            report = parse_nvidia_smi_xml(xml.stdout)
            return {
                "status": "ok",
                "result": xml,
                "driver": report.driver_version,
                "cuda": report.cuda_version,
                "gpus": gpus_from_smi_xml(report),
            }
        except ParseError as exc:
            out = {"status": "failed", "result": xml, "error": f"unparseable nvidia-smi -q -x output: {exc.message}"}
    elif not xml.missing:
        text = _failure_text(xml)
        out = {"status": "failed", "result": xml, "error": text, "kind": _classify(text)}
    # The plain table: what a user pastes, and what a snapshot written by hand often holds.
    table = host.run(["nvidia-smi"], timeout_s)
    if table.timed_out:
        return {"status": "timeout", "result": table, "timeout_s": timeout_s}
    if table.ok:
        from gpudoctor.parsers.nvidia_smi_text import parse_nvidia_smi_table

        try:
            parsed = parse_nvidia_smi_table(table.stdout)
            return {
                "status": "ok",
                "result": table,
                "driver": parsed.driver_version,
                "cuda": parsed.cuda_version,
                "gpus": gpus_from_smi_table(parsed),
            }
        except ParseError:
            pass
    elif not table.missing and out["status"] == "missing":
        text = _failure_text(table)
        out = {"status": "failed", "result": table, "error": text, "kind": _classify(text)}
    return out


def _classify(text: str) -> str | None:
    # Imported here: error_texts compiles dozens of patterns, and only a failure has a text to classify.
    from gpudoctor.parsers.error_texts import classify_error_text

    return classify_error_text(text)


def _failure_text(result: CommandResult) -> str:
    return (result.stdout.strip() + "\n" + result.stderr.strip()).strip() or f"exit status {result.rc}"


def merge_driver(nvml: dict[str, Any], smi: dict[str, Any]) -> DriverFacts:
    # A pasted text's GPUs named only in words (NAMED_IN_TEXT) are GPUs all the same: their names and compute
    # capabilities serve the arch rules, while the status keeps the driver unprobed.
    nvml_gpus = gpus_from_nvml(nvml) if nvml.get("status") in ("ok", NAMED_IN_TEXT) else ()
    smi_gpus = smi.get("gpus") or ()
    cuda_int = nvml.get("cuda_driver_version")
    nvml_error = nvml.get("error")
    return DriverFacts(
        nvml_status=str(nvml.get("status", "unknown")),
        nvml_error=nvml_error,
        nvml_driver_version=nvml.get("driver_version"),
        nvml_version=nvml.get("nvml_version"),
        nvml_cuda_version=cuda_from_int(cuda_int) if isinstance(cuda_int, int) and cuda_int > 0 else None,
        smi_status=smi["status"],
        smi_error=smi.get("error"),
        smi_error_kind=smi.get("kind") or (_classify(smi["error"]) if smi.get("error") else None),
        smi_driver_version=smi.get("driver"),
        smi_cuda_version=smi.get("cuda"),
        smi_timeout_s=smi.get("timeout_s"),
        gpus=nvml_gpus or smi_gpus,
        nvml_gpus=nvml_gpus,
        smi_gpus=smi_gpus,
    )
