"""gpudoctor's NVML adapter and the real nvidia-ml-py against the fake libnvidia-ml.so.1, one NVML error at a time.

Each case writes a machine's NVML data file, injects one error into one entry point (or makes nvmlInit hang),
and reads it the way `gpudoctor check` does (`read_nvml_state`, through `LiveHost.nvml` and its time limit),
in a separate interpreter whose LD_LIBRARY_PATH holds the fake: the loader resolves libnvidia-ml.so.1 once,
when a process starts. The ABI cases call the library through ctypes with NVIDIA's own struct layouts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.sim.machine import NVML_CODES, nvml_data

ONE_GPU: dict[str, Any] = {
    "status": "ok",
    "driver_version": "570.124.04",
    "nvml_version": "12.570.124.04",
    "cuda_driver_version": 12080,
    "devices": [
        {
            "index": 0,
            "name": "NVIDIA GeForce RTX 3060",
            "uuid": "GPU-d6889ff6-2523-9142-ca3c-1ca3f396a625",
            "pci_bus_id": "00000000:2D:00.0",
            "compute_capability": "8.6",
            "memory": {"total_bytes": 12884901888, "used_bytes": 2147483648, "free_bytes": 10737418240},
            "pcie_gen_current": 4,
            "pcie_gen_max": 4,
            "pcie_gen_gpu_max": 4,
            "pcie_width_current": 16,
            "pcie_width_max": 16,
            "persistence_mode": False,
            "remapped_rows": {"correctable": 0, "uncorrectable": 0, "pending": False, "failure": False},
            "clock_event_reasons": 0,
            "temperature_c": 55,
            "power_draw_w": 101.5,
            "processes": [
                {"pid": 4242, "name": "python3", "used_bytes": 2147483648},
                {"pid": 77, "name": None, "used_bytes": None},
            ],
        }
    ],
}

READ = "import json; from gpudoctor.host.live import LiveHost; print(json.dumps(LiveHost().nvml({timeout})))"


def run_python(libraries, data: str, tmp_path: Path, code: str) -> Any:
    path = tmp_path / "nvml.txt"
    path.write_text(data, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": str(libraries.nvml), "GPUDOCTOR_SIM_NVML": str(path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def read_state(libraries, nvml: dict[str, Any], tmp_path: Path, extra: str = "", timeout: float = 30.0) -> dict[str, Any]:
    # 30 s: a limit no busy machine reaches (the read returns as soon as NVML answers); the hang case sets its own.
    return run_python(libraries, nvml_data(nvml) + extra, tmp_path, READ.format(timeout=timeout))


def test_a_healthy_gpu_reads_back_as_recorded(libraries, tmp_path):
    state = read_state(libraries, ONE_GPU, tmp_path)
    (dev,) = state["devices"]
    want = ONE_GPU["devices"][0]
    # NVML's v2 memory call: the data gives no reservation, so the fake answers 0 reserved beside what it was given.
    assert dev["memory"].pop("reserved_bytes") == 0
    for field, value in want.items():
        assert dev[field] == value, field
    # What the data file does not give, the library does not support (as for a GPU without the feature).
    assert set(dev["errors"].values()) == {"not_supported"}
    assert "mig_mode" in dev["errors"] and "ecc_mode" in dev["errors"]
    assert state["driver_version"] == "570.124.04" and state["cuda_driver_version"] == 12080


@pytest.mark.parametrize("status", ["no_permission", "driver_not_loaded", "lib_rm_version_mismatch", "unknown"])
def test_nvml_init_errors_are_the_status(libraries, tmp_path, status):
    state = read_state(libraries, {"status": status}, tmp_path)
    assert state["status"] == status
    assert state["error"]  # nvidia-ml-py's text of it, from nvmlErrorString


@pytest.mark.parametrize(
    "function, name, field",
    [
        ("nvmlDeviceGetRemappedRows", "not_supported", "remapped_rows"),
        ("nvmlDeviceGetComputeRunningProcesses_v3", "no_permission", "processes"),
        ("nvmlDeviceGetGraphicsRunningProcesses_v3", "no_permission", "graphics_processes"),
        ("nvmlDeviceGetMemoryInfo", "gpu_is_lost", "memory"),
        ("nvmlDeviceGetTemperature", "unknown", "temperature_c"),
    ],
)
def test_one_failing_entry_point_is_one_recorded_error(libraries, tmp_path, function, name, field):
    state = read_state(libraries, ONE_GPU, tmp_path, f"fail {function} 0 {NVML_CODES[name]}\n")
    (dev,) = state["devices"]
    assert dev["errors"][field] == name and field not in dev
    assert dev.get("lost") == ("gpu_is_lost" if name == "gpu_is_lost" else None)
    assert dev["name"] == "NVIDIA GeForce RTX 3060"  # the other fields still read


def test_graphics_processes_are_read_and_merged_with_compute_by_pid(libraries, tmp_path):
    """The graphics list through the real binding (two-call sizing, the v3 struct): Xorg and a program that both
    renders and computes (pid 4242, in both lists) become one list, 4242 once, as C+G, its memory counted once."""
    from gpudoctor.probes.driver import gpus_from_nvml

    nvml = json.loads(json.dumps(ONE_GPU))
    nvml["devices"][0]["graphics_processes"] = [
        {"pid": 1803, "name": "/usr/lib/xorg/Xorg", "used_bytes": 262144000},
        {"pid": 4242, "name": "python3", "used_bytes": 2147483648},
    ]
    state = read_state(libraries, nvml, tmp_path)
    (dev,) = state["devices"]
    assert dev["graphics_processes"] == nvml["devices"][0]["graphics_processes"]
    assert dev["processes"] == nvml["devices"][0]["processes"] and "graphics_processes" not in dev.get("errors", {})
    (gpu,) = gpus_from_nvml(state)
    assert [(p.pid, p.type, p.used_bytes) for p in gpu.processes] == [
        (4242, "C+G", 2147483648),
        (77, "C", None),
        (1803, "G", 262144000),
    ]


def test_a_lost_gpu_handle_leaves_the_others(libraries, tmp_path):
    nvml = json.loads(json.dumps(ONE_GPU))
    nvml["devices"].append({**nvml["devices"][0], "index": 1, "pci_bus_id": "00000000:2E:00.0"})
    state = read_state(libraries, nvml, tmp_path, "fail nvmlDeviceGetHandleByIndex_v2 0 15\n")
    assert state["devices"][0] == {"index": 0, "lost": "gpu_is_lost"}
    assert state["devices"][1]["pci_bus_id"] == "00000000:2E:00.0"


def test_an_unpowered_gpu_handle_is_recorded_by_its_error(libraries, tmp_path):
    """INSUFFICIENT_POWER for a handle (its external power cables): recorded under that name, and the GPU is lost."""
    from gpudoctor.probes.driver import gpus_from_nvml

    state = read_state(libraries, ONE_GPU, tmp_path, f"fail nvmlDeviceGetHandleByIndex_v2 0 {NVML_CODES['insufficient_power']}\n")
    assert state["devices"] == [{"index": 0, "lost": "insufficient_power"}]
    (gpu,) = gpus_from_nvml(state)
    assert gpu.lost and gpu.lost_error == "insufficient_power"


def test_a_hanging_nvml_init_is_a_timeout(libraries, tmp_path):
    state = read_state(libraries, {"status": "timeout"}, tmp_path, timeout=0.5)
    assert state == {"status": "timeout", "error": "NVML did not answer within 0.5 s"}


ABI = r"""
import ctypes, json, pynvml
from pynvml import c_nvmlMemory_v2_t, nvmlMemory_v2
pynvml.nvmlInit()
lib = pynvml.nvmlLib
handle = pynvml.nvmlDeviceGetHandleByIndex(0)
out = {}
# nvmlMemory_v2_t: the struct version is checked, `reserved` filled.
info = pynvml.nvmlDeviceGetMemoryInfo(handle, version=nvmlMemory_v2)
out["v2"] = [info.total, info.reserved, info.free, info.used]
# v1's used is reserved + allocated (nvml.h; a real H200 answered so, docs/gpu-truth.md).
v1 = pynvml.nvmlDeviceGetMemoryInfo(handle)
out["v1_memory"] = [v1.total, v1.free, v1.used]
bad = c_nvmlMemory_v2_t(); bad.version = 1
out["v2_bad_version"] = lib.nvmlDeviceGetMemoryInfo_v2(handle, ctypes.byref(bad))
# The unversioned (v1) process list: pid and memory only, 12 + 4 padding bytes per entry.
class V1(ctypes.Structure):
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong)]
count = ctypes.c_uint(0)
out["v1_sizing"] = [lib.nvmlDeviceGetComputeRunningProcesses(handle, ctypes.byref(count), None), count.value]
procs = (V1 * count.value)()
out["v1_rc"] = lib.nvmlDeviceGetComputeRunningProcesses(handle, ctypes.byref(count), procs)
out["v1"] = [[p.pid, p.usedGpuMemory] for p in procs]
out["v2"] += [[p.pid, p.gpuInstanceId] for p in pynvml.nvmlDeviceGetComputeRunningProcesses_v2(handle)]
# A handle that is not one the library gave out (a truncated pointer) is refused, not followed.
out["bad_handle"] = lib.nvmlDeviceGetTemperature(ctypes.c_void_p(0x1234), 0, ctypes.byref(ctypes.c_uint()))
out["mig_on_non_mig"] = lib.nvmlDeviceGetMigMode(handle, ctypes.byref(ctypes.c_uint()), ctypes.byref(ctypes.c_uint()))
print(json.dumps(out))
"""


def test_struct_versions_and_handles_at_the_c_abi(libraries, tmp_path):
    out = run_python(libraries, nvml_data(ONE_GPU) + "dev.0.reserved 503316480\n", tmp_path, ABI)
    assert out["v2"][:4] == [12884901888, 503316480, 10737418240, 2147483648]
    assert out["v2_bad_version"] == 25  # NVML_ERROR_ARGUMENT_VERSION_MISMATCH
    assert out["v1_memory"] == [12884901888, 10737418240, 2147483648 + 503316480]
    assert out["v1_sizing"] == [7, 2]  # NVML_ERROR_INSUFFICIENT_SIZE and the count needed
    assert out["v1_rc"] == 0 and out["v1"] == [[4242, 2147483648], [77, 0xFFFFFFFFFFFFFFFF]]
    assert out["v2"][4:] == [[4242, 0xFFFFFFFF], [77, 0xFFFFFFFF]]  # no MIG: the instance ids say so
    assert out["bad_handle"] == 2  # NVML_ERROR_INVALID_ARGUMENT
    assert out["mig_on_non_mig"] == 3  # NOT_SUPPORTED: the data gives no MIG mode for this GPU
