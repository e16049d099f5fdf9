"""The NVML adapter: one read of everything NVML knows, as plain data.

`read_nvml_state()` makes every pynvml call gpudoctor needs and returns a
JSON-ready dict (the `NvmlState`), which is exactly what a snapshot records
and a replay returns. Nothing here runs at import time.

Failure is data, kept as NVML said it:
- `status` says whether NVML could be used at all: `ok`, or the error of
  nvmlInit mapped by name (`library_not_found` when libnvidia-ml.so.1 cannot
  be loaded, `driver_not_loaded`, `lib_rm_version_mismatch` after a driver
  upgrade without reloading the module, `no_permission`, `unknown`), or
  `binding_missing` when the Python binding itself is absent or is the wrong
  `pynvml` package. One status no probe gives: `named_in_text` (NAMED_IN_TEXT), from `check --from` where the
  text names the GPU only in words or in a framework's warning: its devices are what the text said (a name, a
  compute capability), and nothing about the driver was seen (gpudoctor.pasted.build).
- per device, a lost GPU (`GPU_IS_LOST`) marks that device and the others go on;
- per field, `NOT_SUPPORTED` (older GPUs, GeForce ECC, MIG on non-A100-class
  GPUs) is recorded under `errors` as a plain fact, not a failure.

Processes: the compute processes (`nvmlDeviceGetComputeRunningProcesses`) under `processes`, and the
graphics processes (`nvmlDeviceGetGraphicsRunningProcesses`: Xorg, a compositor, a browser on a
desktop) under `graphics_processes`, each list as NVML gave it; the facts merge the two by pid
(gpudoctor.probes.driver). Each list is read to at most MAX_PROCESSES entries.

Driver eras: `nvmlDevice{Compute,Graphics}RunningProcesses_v3` need driver >= 510,
`nvmlDeviceGetRemappedRows` Ampere and newer, `nvmlDeviceGetGpuMaxPcieLinkGeneration`
driver >= 510, and clock *event* reasons replaced throttle reasons in 535;
where the newer entry point is missing (`FUNCTION_NOT_FOUND`) the older one is
tried and the fallback is recorded, since a binding newer than its driver is
itself worth knowing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# NVML return codes (nvml.h) by name: the state names that checks key on.
_ERROR_NAMES = {
    1: "uninitialized",
    2: "invalid_argument",
    3: "not_supported",
    4: "no_permission",
    6: "not_found",
    7: "insufficient_size",
    8: "insufficient_power",
    9: "driver_not_loaded",
    10: "timeout",
    11: "irq_issue",
    12: "library_not_found",
    13: "function_not_found",
    14: "corrupted_inforom",
    15: "gpu_is_lost",
    16: "reset_required",
    17: "operating_system",
    18: "lib_rm_version_mismatch",
    19: "in_use",
    20: "memory",
    21: "no_data",
    25: "argument_version_mismatch",
    28: "gpu_not_found",
    999: "unknown",
}

# The GPUs a pasted text named without any program's reading of the driver: stated, not probed.
NAMED_IN_TEXT = "named_in_text"

MIB = 1024 * 1024
# The most processes read per list and GPU (each costs one nvmlSystemGetProcessName call): a bound on the
# work one device can cause, far above what a GPU runs (nvidia-smi lists them all on one screen).
MAX_PROCESSES = 256


def error_name(exc: BaseException) -> str:
    value = getattr(exc, "value", None)
    if isinstance(value, int):
        return _ERROR_NAMES.get(value, f"error_{value}")
    return "unknown"


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _library_loadable() -> bool:
    """Whether libnvidia-ml can be loaded at all, asked before importing pynvml.

    pynvml's import alone costs tens of milliseconds; on a machine without a
    driver the answer is the same as nvmlInit's NVML_ERROR_LIBRARY_NOT_FOUND.
    """
    import sys

    from gpudoctor.trust import library_for_root, running_as_root

    if sys.platform.startswith("win"):
        return True  # pynvml knows the Windows locations; let it look
    name = "libnvidia-ml.so.1"
    if running_as_root():
        # Never from a directory a user can change (LD_LIBRARY_PATH=~/lib): its constructor would run as root.
        found = library_for_root(name)
        if found is None:
            return False
        name = found
    import ctypes  # here, not above: as root without the library (a container without a driver) no ctypes at all

    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def read_nvml_state(binding: Any = None) -> dict[str, Any]:
    """Initialise NVML, read every device, shut down. Never raises for NVML errors."""
    if binding is None:
        if not _library_loadable():
            return {"status": "library_not_found", "error": "NVML Shared Library Not Found"}
        try:
            import pynvml  # nvidia-ml-py
        except ImportError as exc:
            return {"status": "binding_missing", "error": f"cannot import pynvml: {exc}"}
        binding = pynvml
    if not hasattr(binding, "nvmlDeviceGetCudaComputeCapability"):
        # The long-dead `pynvml` project shadows nvidia-ml-py under the same module name.
        return {"status": "binding_missing", "error": "the imported pynvml is not nvidia-ml-py"}
    nvml_error = getattr(binding, "NVMLError", Exception)
    try:
        binding.nvmlInit()
    except nvml_error as exc:
        return {"status": error_name(exc), "error": _text(exc)}
    try:
        return _read_initialised(binding, nvml_error)
    finally:
        with contextlib.suppress(nvml_error):
            binding.nvmlShutdown()


def _read_initialised(nv: Any, nvml_error: type[BaseException]) -> dict[str, Any]:
    state: dict[str, Any] = {"status": "ok", "errors": {}, "fallbacks": []}

    def system(field: str, fn: Callable[[], Any]) -> None:
        try:
            state[field] = fn()
        except nvml_error as exc:
            state["errors"][field] = error_name(exc)

    system("driver_version", lambda: _text(nv.nvmlSystemGetDriverVersion()))
    system("nvml_version", lambda: _text(nv.nvmlSystemGetNVMLVersion()))
    system("cuda_driver_version", nv.nvmlSystemGetCudaDriverVersion)
    try:
        count = nv.nvmlDeviceGetCount()
    except nvml_error as exc:
        state["status"] = error_name(exc)
        state["error"] = _text(exc)
        state["devices"] = []
        return state
    state["devices"] = [_read_device(nv, nvml_error, index, state["fallbacks"]) for index in range(count)]
    if not state["errors"]:
        del state["errors"]
    if not state["fallbacks"]:
        del state["fallbacks"]
    return state


def _read_device(nv: Any, nvml_error: type[BaseException], index: int, fallbacks: list[str]) -> dict[str, Any]:
    dev: dict[str, Any] = {"index": index}
    errors: dict[str, str] = {}
    try:
        handle = nv.nvmlDeviceGetHandleByIndex(index)
    except nvml_error as exc:
        dev["lost"] = error_name(exc)
        return dev

    def field(name: str, fn: Callable[[], Any]) -> None:
        try:
            dev[name] = fn()
        except nvml_error as exc:
            errors[name] = error_name(exc)
            if errors[name] == "gpu_is_lost":
                dev["lost"] = "gpu_is_lost"

    def newer_or_older(name: str, newer: str, older: str, convert: Callable[[Any], Any]) -> None:
        try:
            dev[name] = convert(getattr(nv, newer)(handle))
            return
        except nvml_error as exc:
            if error_name(exc) != "function_not_found":
                errors[name] = error_name(exc)
                if errors[name] == "gpu_is_lost":
                    dev["lost"] = "gpu_is_lost"
                return
        except AttributeError:
            pass
        fallbacks.append(f"{newer}->{older}")
        field(name, lambda: convert(getattr(nv, older)(handle)))

    field("name", lambda: _text(nv.nvmlDeviceGetName(handle)))
    field("uuid", lambda: _text(nv.nvmlDeviceGetUUID(handle)))
    field("pci_bus_id", lambda: _text(nv.nvmlDeviceGetPciInfo(handle).busId))
    field("compute_capability", lambda: "{:d}.{:d}".format(*nv.nvmlDeviceGetCudaComputeCapability(handle)))

    def memory() -> dict[str, int]:
        # nvml.h: v1's `used` is the "Sum of Reserved and Allocated device memory"; v2 (R510 and later) gives
        # the driver's reservation apart, and its `used` is what nvidia-smi prints as used. A real H200 (driver
        # 580.159.04, docs/gpu-truth.md) held 615 MiB reserved: read by v1, an idle GPU looked 0.6 GiB used and
        # `memory` blamed "no listed process" for it. An older binding (no nvmlMemory_v2) or library reads v1.
        version = getattr(nv, "nvmlMemory_v2", None)
        if version is not None:
            try:
                info = nv.nvmlDeviceGetMemoryInfo(handle, version=version)
            except nvml_error as exc:
                if error_name(exc) not in ("function_not_found", "argument_version_mismatch"):
                    raise
                fallbacks.append("nvmlDeviceGetMemoryInfo_v2->nvmlDeviceGetMemoryInfo")
            else:
                return {
                    "total_bytes": int(info.total),
                    "used_bytes": int(info.used),
                    "free_bytes": int(info.free),
                    "reserved_bytes": int(info.reserved),
                }
        info = nv.nvmlDeviceGetMemoryInfo(handle)
        return {"total_bytes": int(info.total), "used_bytes": int(info.used), "free_bytes": int(info.free)}

    field("memory", memory)
    field("pcie_gen_current", lambda: int(nv.nvmlDeviceGetCurrPcieLinkGeneration(handle)))
    field("pcie_gen_max", lambda: int(nv.nvmlDeviceGetMaxPcieLinkGeneration(handle)))
    field("pcie_gen_gpu_max", lambda: int(nv.nvmlDeviceGetGpuMaxPcieLinkGeneration(handle)))
    field("pcie_width_current", lambda: int(nv.nvmlDeviceGetCurrPcieLinkWidth(handle)))
    field("pcie_width_max", lambda: int(nv.nvmlDeviceGetMaxPcieLinkWidth(handle)))
    field("persistence_mode", lambda: bool(nv.nvmlDeviceGetPersistenceMode(handle)))
    # What the GPU is doing (load-dependent health is judged on it, checks/health.py); a binding without
    # these entry points leaves them unrecorded.
    if hasattr(nv, "nvmlDeviceGetPerformanceState"):
        field("performance_state", lambda: f"P{int(nv.nvmlDeviceGetPerformanceState(handle))}")
    if hasattr(nv, "nvmlDeviceGetUtilizationRates"):
        field("utilization_gpu", lambda: int(nv.nvmlDeviceGetUtilizationRates(handle).gpu))

    def mig() -> dict[str, bool]:
        current, pending = nv.nvmlDeviceGetMigMode(handle)
        return {"current": bool(current), "pending": bool(pending)}

    field("mig_mode", mig)

    def ecc() -> dict[str, bool]:
        current, pending = nv.nvmlDeviceGetEccMode(handle)
        return {"current": bool(current), "pending": bool(pending)}

    field("ecc_mode", ecc)
    uncorrected = getattr(nv, "NVML_MEMORY_ERROR_TYPE_UNCORRECTED", 1)
    field(
        "ecc_volatile_uncorrected",
        lambda: int(nv.nvmlDeviceGetTotalEccErrors(handle, uncorrected, getattr(nv, "NVML_VOLATILE_ECC", 0))),
    )
    field(
        "ecc_aggregate_uncorrected",
        lambda: int(nv.nvmlDeviceGetTotalEccErrors(handle, uncorrected, getattr(nv, "NVML_AGGREGATE_ECC", 1))),
    )
    field("retired_pages_pending", lambda: bool(nv.nvmlDeviceGetRetiredPagesPendingStatus(handle)))

    def remapped() -> dict[str, Any]:
        corr, unc, pending, failure = nv.nvmlDeviceGetRemappedRows(handle)
        return {"correctable": int(corr), "uncorrectable": int(unc), "pending": bool(pending), "failure": bool(failure)}

    field("remapped_rows", remapped)
    newer_or_older(
        "clock_event_reasons",
        "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetCurrentClocksThrottleReasons",
        int,
    )
    field("temperature_c", lambda: int(nv.nvmlDeviceGetTemperature(handle, getattr(nv, "NVML_TEMPERATURE_GPU", 0))))
    field("power_draw_w", lambda: round(nv.nvmlDeviceGetPowerUsage(handle) / 1000.0, 1))

    def processes(raw: Any) -> list[dict[str, Any]]:
        out = []
        for proc in list(raw)[:MAX_PROCESSES]:
            used = getattr(proc, "usedGpuMemory", None)
            entry: dict[str, Any] = {"pid": int(proc.pid), "used_bytes": int(used) if isinstance(used, int) else None}
            try:
                entry["name"] = _text(nv.nvmlSystemGetProcessName(proc.pid))
            except nvml_error:
                entry["name"] = None
            out.append(entry)
        return out

    newer_or_older(
        "processes",
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetComputeRunningProcesses_v2",
        processes,
    )
    # A desktop's Xorg, compositor and browser hold memory as graphics processes, which the compute list
    # leaves out (nvidia-smi shows them as type G). A binding without the entry point leaves them unrecorded.
    if hasattr(nv, "nvmlDeviceGetGraphicsRunningProcesses_v2"):
        newer_or_older(
            "graphics_processes",
            "nvmlDeviceGetGraphicsRunningProcesses_v3",
            "nvmlDeviceGetGraphicsRunningProcesses_v2",
            processes,
        )
    if dev.get("mig_mode", {}).get("current"):
        field("mig_devices", lambda: _mig_devices(nv, nvml_error, handle))
    if errors:
        dev["errors"] = errors
    return dev


def _mig_devices(nv: Any, nvml_error: type[BaseException], handle: Any) -> list[dict[str, Any]]:
    out = []
    for slot in range(nv.nvmlDeviceGetMaxMigDeviceCount(handle)):
        try:
            mig = nv.nvmlDeviceGetMigDeviceHandleByIndex(handle, slot)
        except nvml_error:
            continue  # an empty slot answers NOT_FOUND
        entry: dict[str, Any] = {"slot": slot}
        try:
            entry["uuid"] = _text(nv.nvmlDeviceGetUUID(mig))
            info = nv.nvmlDeviceGetMemoryInfo(mig)
            entry["memory_total_bytes"] = int(info.total)
            entry["memory_used_bytes"] = int(info.used)
        except nvml_error as exc:
            entry["error"] = error_name(exc)
        out.append(entry)
    return out
