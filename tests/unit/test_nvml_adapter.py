"""The NVML adapter on a fake binding that raises the real pynvml error classes."""

from __future__ import annotations

import types

import pynvml
import pytest

from gpudoctor.host.nvml import read_nvml_state


def error(code):
    return pynvml.NVMLError(code)


class FakeNvml(types.SimpleNamespace):
    """The pynvml functions the adapter calls, answering for two GPUs; `fail` maps name -> NVML error code."""

    NVMLError = pynvml.NVMLError
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED
    NVML_VOLATILE_ECC = pynvml.NVML_VOLATILE_ECC
    NVML_AGGREGATE_ECC = pynvml.NVML_AGGREGATE_ECC
    NVML_TEMPERATURE_GPU = pynvml.NVML_TEMPERATURE_GPU

    def __init__(self, fail=None, init_error=None, lost=()):
        super().__init__()
        self.fail = fail or {}
        self.init_error = init_error
        self.lost = set(lost)
        self.shutdown_called = False

    def _maybe(self, name, handle=None):
        if handle in self.lost:
            raise error(pynvml.NVML_ERROR_GPU_IS_LOST)
        if name in self.fail:
            raise error(self.fail[name])

    def nvmlInit(self):
        if self.init_error is not None:
            raise error(self.init_error)

    def nvmlShutdown(self):
        self.shutdown_called = True

    def nvmlSystemGetDriverVersion(self):
        return "550.54.14"

    def nvmlSystemGetNVMLVersion(self):
        return "12.550.54.14"

    def nvmlSystemGetCudaDriverVersion(self):
        return 12040

    def nvmlDeviceGetCount(self):
        return 2

    def nvmlDeviceGetHandleByIndex(self, i):
        return i

    def nvmlDeviceGetName(self, h):
        self._maybe("name", h)
        return "NVIDIA H100 NVL"

    def nvmlDeviceGetUUID(self, h):
        self._maybe("uuid", h)
        return f"GPU-0000000{h}-0000-0000-0000-000000000000"

    def nvmlDeviceGetPciInfo(self, h):
        self._maybe("pci", h)
        return types.SimpleNamespace(busId=f"00000000:{h + 0x17:02X}:00.0")

    def nvmlDeviceGetCudaComputeCapability(self, h):
        self._maybe("cc", h)
        return (9, 0)

    def nvmlDeviceGetMemoryInfo(self, h):
        self._maybe("memory", h)
        return types.SimpleNamespace(total=100, used=40, free=60)

    def nvmlDeviceGetCurrPcieLinkGeneration(self, h):
        self._maybe("gen", h)
        return 5

    def nvmlDeviceGetMaxPcieLinkGeneration(self, h):
        return 5

    def nvmlDeviceGetGpuMaxPcieLinkGeneration(self, h):
        self._maybe("gpu_max_gen", h)
        return 5

    def nvmlDeviceGetCurrPcieLinkWidth(self, h):
        return 8

    def nvmlDeviceGetMaxPcieLinkWidth(self, h):
        return 16

    def nvmlDeviceGetPersistenceMode(self, h):
        return 1

    def nvmlDeviceGetMigMode(self, h):
        self._maybe("mig", h)
        return (0, 0)

    def nvmlDeviceGetEccMode(self, h):
        return (1, 1)

    def nvmlDeviceGetTotalEccErrors(self, h, kind, counter):
        return 3 if counter == pynvml.NVML_VOLATILE_ECC else 7

    def nvmlDeviceGetRetiredPagesPendingStatus(self, h):
        self._maybe("retired", h)
        return 0

    def nvmlDeviceGetRemappedRows(self, h):
        return (0, 1, 1, 0)

    def nvmlDeviceGetCurrentClocksEventReasons(self, h):
        self._maybe("events", h)
        return 0x40 | 0x4

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, h):
        return 0x1

    def nvmlDeviceGetTemperature(self, h, sensor):
        return 87

    def nvmlDeviceGetPowerUsage(self, h):
        return 312345

    def nvmlDeviceGetPerformanceState(self, h):
        self._maybe("pstate", h)
        return 8

    def nvmlDeviceGetUtilizationRates(self, h):
        return types.SimpleNamespace(gpu=0, memory=3)

    def nvmlDeviceGetComputeRunningProcesses_v3(self, h):
        self._maybe("procs_v3", h)
        return [types.SimpleNamespace(pid=4242, usedGpuMemory=2 * 1024**3)]

    def nvmlDeviceGetComputeRunningProcesses_v2(self, h):
        return [types.SimpleNamespace(pid=99, usedGpuMemory=None)]

    def nvmlSystemGetProcessName(self, pid):
        if pid == 99:
            raise error(pynvml.NVML_ERROR_NOT_FOUND)
        return "python3"


def test_healthy_read():
    fake = FakeNvml()
    state = read_nvml_state(fake)
    assert fake.shutdown_called
    assert state["status"] == "ok"
    assert (state["driver_version"], state["cuda_driver_version"]) == ("550.54.14", 12040)
    dev = state["devices"][0]
    assert dev["compute_capability"] == "9.0"
    assert dev["memory"] == {"total_bytes": 100, "used_bytes": 40, "free_bytes": 60}
    assert (dev["pcie_gen_current"], dev["pcie_width_current"], dev["pcie_width_max"]) == (5, 8, 16)
    assert dev["ecc_volatile_uncorrected"] == 3 and dev["ecc_aggregate_uncorrected"] == 7
    assert dev["remapped_rows"] == {"correctable": 0, "uncorrectable": 1, "pending": True, "failure": False}
    assert dev["clock_event_reasons"] == 0x44
    assert dev["processes"] == [{"pid": 4242, "used_bytes": 2 * 1024**3, "name": "python3"}]
    assert dev["power_draw_w"] == 312.3


@pytest.mark.parametrize(
    "code, status",
    [
        (pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, "library_not_found"),
        (pynvml.NVML_ERROR_DRIVER_NOT_LOADED, "driver_not_loaded"),
        (pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH, "lib_rm_version_mismatch"),
        (pynvml.NVML_ERROR_NO_PERMISSION, "no_permission"),
        (pynvml.NVML_ERROR_UNKNOWN, "unknown"),
    ],
)
def test_init_errors_keep_their_identity(code, status):
    state = read_nvml_state(FakeNvml(init_error=code))
    assert state["status"] == status
    assert state["error"] == str(pynvml.NVMLError(code))


def test_lost_gpu_marks_that_device_and_others_continue():
    state = read_nvml_state(FakeNvml(lost={1}))
    assert "lost" not in state["devices"][0]
    assert state["devices"][1]["lost"] == "gpu_is_lost"
    assert state["devices"][0]["name"] == "NVIDIA H100 NVL"


def test_not_supported_field_is_recorded_not_fatal():
    state = read_nvml_state(FakeNvml(fail={"retired": pynvml.NVML_ERROR_NOT_SUPPORTED, "mig": pynvml.NVML_ERROR_NOT_SUPPORTED}))
    dev = state["devices"][0]
    assert dev["errors"] == {"retired_pages_pending": "not_supported", "mig_mode": "not_supported"}
    assert "retired_pages_pending" not in dev and dev["name"] == "NVIDIA H100 NVL"


def test_missing_v3_entry_point_falls_back_and_says_so():
    fake = FakeNvml(fail={"procs_v3": pynvml.NVML_ERROR_FUNCTION_NOT_FOUND, "events": pynvml.NVML_ERROR_FUNCTION_NOT_FOUND})
    state = read_nvml_state(fake)
    dev = state["devices"][0]
    assert dev["processes"] == [{"pid": 99, "used_bytes": None, "name": None}]
    assert dev["clock_event_reasons"] == 0x1
    assert "nvmlDeviceGetComputeRunningProcesses_v3->nvmlDeviceGetComputeRunningProcesses_v2" in state["fallbacks"]


def test_wrong_binding_is_a_state():
    assert read_nvml_state(types.SimpleNamespace(nvmlInit=lambda: None))["status"] == "binding_missing"


def test_live_nvml_on_this_machine_never_raises():
    from gpudoctor.host.live import LiveHost

    state = LiveHost().nvml(5.0)
    assert state["status"] in (
        "ok",
        "library_not_found",
        "driver_not_loaded",
        "lib_rm_version_mismatch",
        "no_permission",
        "unknown",
    )


def test_activity_is_recorded_and_becomes_the_gpus():
    """Performance state and utilisation: what load-dependent health is judged on (checks/health.py)."""
    from gpudoctor.probes.driver import gpus_from_nvml

    state = read_nvml_state(FakeNvml())
    assert (state["devices"][0]["performance_state"], state["devices"][0]["utilization_gpu"]) == ("P8", 0)
    gpu = gpus_from_nvml(state)[0]
    assert (gpu.performance_state, gpu.utilization_gpu_percent) == ("P8", 0)
    failed = read_nvml_state(FakeNvml(fail={"pstate": pynvml.NVML_ERROR_NOT_SUPPORTED}))["devices"][0]
    assert "performance_state" not in failed and failed["errors"]["performance_state"] == "not_supported"


class DesktopNvml(FakeNvml):
    """A desktop: Xorg is a graphics process, pid 4242 is in both lists (it renders and computes)."""

    def nvmlDeviceGetGraphicsRunningProcesses_v3(self, h):
        self._maybe("gprocs_v3", h)
        return [
            types.SimpleNamespace(pid=1803, usedGpuMemory=250 * 1024**2),
            types.SimpleNamespace(pid=4242, usedGpuMemory=2 * 1024**3),
        ]

    def nvmlDeviceGetGraphicsRunningProcesses_v2(self, h):
        return [types.SimpleNamespace(pid=1803, usedGpuMemory=None)]

    def nvmlSystemGetProcessName(self, pid):
        return "/usr/lib/xorg/Xorg" if pid == 1803 else super().nvmlSystemGetProcessName(pid)


def test_graphics_processes_are_recorded_as_nvml_lists_them_and_merged_in_the_facts():
    from gpudoctor.probes.driver import gpus_from_nvml

    state = read_nvml_state(DesktopNvml())
    dev = state["devices"][0]
    assert dev["processes"] == [{"pid": 4242, "used_bytes": 2 * 1024**3, "name": "python3"}]
    assert dev["graphics_processes"] == [
        {"pid": 1803, "used_bytes": 250 * 1024**2, "name": "/usr/lib/xorg/Xorg"},
        {"pid": 4242, "used_bytes": 2 * 1024**3, "name": "python3"},
    ]
    procs = gpus_from_nvml(state)[0].processes
    assert [(p.pid, p.type, p.used_bytes) for p in procs] == [(4242, "C+G", 2 * 1024**3), (1803, "G", 250 * 1024**2)]


def test_graphics_processes_fall_back_to_v2_and_say_so():
    state = read_nvml_state(DesktopNvml(fail={"gprocs_v3": pynvml.NVML_ERROR_FUNCTION_NOT_FOUND}))
    assert state["devices"][0]["graphics_processes"] == [{"pid": 1803, "used_bytes": None, "name": "/usr/lib/xorg/Xorg"}]
    assert "nvmlDeviceGetGraphicsRunningProcesses_v3->nvmlDeviceGetGraphicsRunningProcesses_v2" in state["fallbacks"]


def test_a_binding_without_graphics_entry_points_leaves_them_unrecorded():
    dev = read_nvml_state(FakeNvml())["devices"][0]
    assert "graphics_processes" not in dev and "graphics_processes" not in dev.get("errors", {})


def test_process_lists_are_read_to_a_bound():
    from gpudoctor.host.nvml import MAX_PROCESSES

    class Crowded(DesktopNvml):
        def nvmlDeviceGetGraphicsRunningProcesses_v3(self, h):
            return [types.SimpleNamespace(pid=10_000 + i, usedGpuMemory=1) for i in range(MAX_PROCESSES + 50)]

    assert len(read_nvml_state(Crowded())["devices"][0]["graphics_processes"]) == MAX_PROCESSES


def test_a_handle_error_other_than_lost_keeps_its_name():
    class Unpowered(FakeNvml):
        def nvmlDeviceGetHandleByIndex(self, i):
            if i == 1:
                raise error(pynvml.NVML_ERROR_INSUFFICIENT_POWER)
            return i

    assert read_nvml_state(Unpowered())["devices"][1] == {"index": 1, "lost": "insufficient_power"}


def test_a_process_list_answering_gpu_is_lost_marks_the_gpu_lost():
    dev = read_nvml_state(DesktopNvml(fail={"gprocs_v3": pynvml.NVML_ERROR_GPU_IS_LOST}))["devices"][0]
    assert dev["lost"] == "gpu_is_lost" and dev["errors"]["graphics_processes"] == "gpu_is_lost"
