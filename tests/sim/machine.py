"""A simulated NVIDIA machine: a temporary root built from a recorded snapshot, plus the two fake libraries.

`build_machine(snapshot, where, libraries)` lays out, under `where/root`, what the snapshot recorded:
- every recorded file with its text (/proc/driver/nvidia/version, /proc/modules, /etc/os-release, /sys
  PCI entries, libraries found by name...), links as links, recorded directories;
- /dev/nvidia* as real character devices (mknod, major 195 as the driver uses) when the tests run as
  root, plain files otherwise (then a device check sees a file, which the tests say where it matters);
- each recorded command (nvidia-smi -q -x, nvidia-smi...) as a small /bin/sh program in the root's
  /usr/bin that prints the recorded output and exit status, or sleeps past the time limit where the
  recording timed out (gpudoctor runs a bare program name through the root's PATH, as a chroot would);
- the recorded Python environment as an interpreter at its recorded path that prints that environment
  (what gpudoctor's own probe script would have printed there);
- the `nvml` section as a data file for the fake libnvidia-ml.so.1 (tests/sim/fake_nvml.c), and the
  GPUs and their recorded PCIe links as a data file for the fake libcuda.so.1.

`SimMachine.run(*args)` runs the real `gpudoctor` command on it, as a separate program: the real
nvidia-ml-py loads the fake NVML through LD_LIBRARY_PATH, and the bandwidth benchmark the fake libcuda.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpudoctor.host import ENV_NAMES
from tests.sim.build import Libraries

# NVML return codes (nvml.h, enum nvmlReturn_enum) by the state names gpudoctor.host.nvml records.
NVML_CODES = {
    "uninitialized": 1,
    "invalid_argument": 2,
    "not_supported": 3,
    "no_permission": 4,
    "not_found": 6,
    "insufficient_power": 8,
    "driver_not_loaded": 9,
    "timeout": 10,
    "irq_issue": 11,
    "function_not_found": 13,
    "corrupted_inforom": 14,
    "gpu_is_lost": 15,
    "reset_required": 16,
    "operating_system": 17,
    "lib_rm_version_mismatch": 18,
    "memory": 20,
    "no_data": 21,
    "gpu_not_found": 28,
    "unknown": 999,
}

# The NVML functions behind each recorded device field (what gpudoctor.host.nvml calls for it).
FIELD_FUNCTIONS = {
    "name": ("nvmlDeviceGetName",),
    "uuid": ("nvmlDeviceGetUUID",),
    "pci_bus_id": ("nvmlDeviceGetPciInfo_v3",),
    "compute_capability": ("nvmlDeviceGetCudaComputeCapability",),
    "memory": ("nvmlDeviceGetMemoryInfo",),
    "pcie_gen_current": ("nvmlDeviceGetCurrPcieLinkGeneration",),
    "pcie_gen_max": ("nvmlDeviceGetMaxPcieLinkGeneration",),
    "pcie_gen_gpu_max": ("nvmlDeviceGetGpuMaxPcieLinkGeneration",),
    "pcie_width_current": ("nvmlDeviceGetCurrPcieLinkWidth",),
    "pcie_width_max": ("nvmlDeviceGetMaxPcieLinkWidth",),
    "persistence_mode": ("nvmlDeviceGetPersistenceMode",),
    "mig_mode": ("nvmlDeviceGetMigMode",),
    "ecc_mode": ("nvmlDeviceGetEccMode",),
    "ecc_volatile_uncorrected": ("nvmlDeviceGetTotalEccErrors",),
    "ecc_aggregate_uncorrected": ("nvmlDeviceGetTotalEccErrors",),
    "retired_pages_pending": ("nvmlDeviceGetRetiredPagesPendingStatus",),
    "remapped_rows": ("nvmlDeviceGetRemappedRows",),
    "clock_event_reasons": ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"),
    "temperature_c": ("nvmlDeviceGetTemperature",),
    "power_draw_w": ("nvmlDeviceGetPowerUsage",),
    "performance_state": ("nvmlDeviceGetPerformanceState",),
    "utilization_gpu": ("nvmlDeviceGetUtilizationRates",),
    "processes": (
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetComputeRunningProcesses_v2",
        "nvmlDeviceGetComputeRunningProcesses",
    ),
    "graphics_processes": (
        "nvmlDeviceGetGraphicsRunningProcesses_v3",
        "nvmlDeviceGetGraphicsRunningProcesses_v2",
        "nvmlDeviceGetGraphicsRunningProcesses",
    ),
    "mig_devices": ("nvmlDeviceGetMaxMigDeviceCount",),
}
SYSTEM_FUNCTIONS = {
    "driver_version": "nvmlSystemGetDriverVersion",
    "nvml_version": "nvmlSystemGetNVMLVersion",
    "cuda_driver_version": "nvmlSystemGetCudaDriverVersion",
}
NOT_AVAILABLE = 0xFFFFFFFFFFFFFFFF  # NVML_VALUE_NOT_AVAILABLE: a process whose memory the driver cannot see
HANG_MS = 60_000  # a hung nvmlInit: longer than any probe waits (gpudoctor stops waiting; the thread stays blocked)
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Where /sys says a PCIe link runs: the link speed per generation, as the kernel prints it.
LINK_SPEED = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe"}


def _flag(value: Any) -> int:
    return 1 if value else 0


def nvml_data(nvml: dict[str, Any]) -> str:
    """The fake NVML's data file for a recorded `nvml` section (tests/sim/fake_nvml.c reads it)."""
    lines: list[str] = []
    status = nvml.get("status", "ok")
    initialised = status == "ok" or "devices" in nvml or "driver_version" in nvml
    if status == "timeout":
        lines.append(f"hang_ms {HANG_MS}")
    elif not initialised:
        lines.append(f"init {NVML_CODES.get(status, 999)}")
    for field, fn in SYSTEM_FUNCTIONS.items():
        if field in nvml:
            lines.append(f"{field} {nvml[field]}")
        elif field in (nvml.get("errors") or {}):
            lines.append(f"fail {fn} -1 {NVML_CODES[nvml['errors'][field]]}")
    if initialised and status != "ok":
        # nvmlInit answered, nvmlDeviceGetCount did not (gpudoctor.host.nvml records its error as the status).
        lines.append(f"fail nvmlDeviceGetCount_v2 -1 {NVML_CODES.get(status, 999)}")
    devices = nvml.get("devices") or []
    lines.append(f"device_count {len(devices)}")
    for dev in devices:
        lines += _device_lines(dev, driver_era(nvml) is not None)
    return "\n".join(lines) + "\n"


def driver_era(nvml: dict[str, Any]) -> str | None:
    """`before-r510`, `before-r535` or None: a recording whose binding fell back to older entry points was made
    on a driver whose library lacks the newer ones (gpudoctor.host.nvml records each fallback)."""
    fallbacks = " ".join(nvml.get("fallbacks") or ())
    if "nvmlDeviceGetComputeRunningProcesses_v3->" in fallbacks:
        return "before-r510"
    if "nvmlDeviceGetCurrentClocksEventReasons->" in fallbacks:
        return "before-r535"
    return None


def nvml_library(nvml: dict[str, Any], libraries: Libraries) -> Path:
    era = driver_era(nvml)
    return {"before-r510": libraries.nvml_before_r510, "before-r535": libraries.nvml_before_r535}.get(era or "", libraries.nvml)


def _device_lines(dev: dict[str, Any], old: bool) -> list[str]:
    i = dev["index"]
    p = f"dev.{i}."
    errors = dict(dev.get("errors") or {})
    if set(dev) <= {"index", "lost"}:
        return [f"fail nvmlDeviceGetHandleByIndex_v2 {i} {NVML_CODES[dev.get('lost', 'unknown')]}"]
    out = []
    for field in ("name", "uuid"):
        if field in dev:
            out.append(f"{p}{field} {dev[field]}")
    if "pci_bus_id" in dev:
        out.append(f"{p}bus_id {dev['pci_bus_id']}")
    if "compute_capability" in dev:
        out.append(f"{p}cc {dev['compute_capability'].replace('.', ' ')}")
    if "memory" in dev:
        m = dev["memory"]
        out.append(f"{p}memory {m['total_bytes']} {m['used_bytes']} {m['free_bytes']}")
        if m.get("reserved_bytes") is not None:  # read through v2 (host/nvml.py); v1 adds it to used
            out.append(f"{p}reserved {m['reserved_bytes']}")
    for field in ("pcie_gen_current", "pcie_gen_max", "pcie_gen_gpu_max", "pcie_width_current", "pcie_width_max"):
        if field in dev:
            out.append(f"{p}{field} {int(dev[field])}")
    if "persistence_mode" in dev:
        out.append(f"{p}persistence_mode {_flag(dev['persistence_mode'])}")
    for field in ("mig_mode", "ecc_mode"):
        if field in dev:
            out.append(f"{p}{field} {_flag(dev[field]['current'])} {_flag(dev[field]['pending'])}")
    for field in ("ecc_volatile_uncorrected", "ecc_aggregate_uncorrected", "clock_event_reasons", "temperature_c"):
        if field in dev:
            out.append(f"{p}{field} {int(dev[field])}")
    if "retired_pages_pending" in dev:
        out.append(f"{p}retired_pages_pending {_flag(dev['retired_pages_pending'])}")
    if "remapped_rows" in dev:
        r = dev["remapped_rows"]
        out.append(f"{p}remapped_rows {r['correctable']} {r['uncorrectable']} {_flag(r['pending'])} {_flag(r['failure'])}")
    if "performance_state" in dev:
        out.append(f"{p}performance_state {int(str(dev['performance_state']).lstrip('P'))}")
    if "utilization_gpu" in dev:
        out.append(f"{p}utilization_gpu {int(dev['utilization_gpu'])}")
    if "power_draw_w" in dev:
        out.append(f"{p}power_mw {round(dev['power_draw_w'] * 1000)}")
    for key, word in (("processes", "proc"), ("graphics_processes", "gproc")):
        if key in dev:
            out.append(f"{p}{word}s")
            for proc in dev[key]:
                used = NOT_AVAILABLE if proc.get("used_bytes") is None else proc["used_bytes"]
                out.append(f"{p}{word} {proc['pid']} {used} {proc.get('name') or ''}".rstrip())
    if "mig_devices" in dev:
        slots = [m["slot"] for m in dev["mig_devices"]]
        out.append(f"{p}mig_slots {max([7, *(s + 1 for s in slots)])}")  # A100 and H100: 7 MIG slots
        for mig in dev["mig_devices"]:
            if "error" in mig:
                continue
            out.append(f"{p}mig_dev {mig['slot']} {mig['uuid']} {mig['memory_total_bytes']} {mig['memory_used_bytes']}")
    for field, name in errors.items():
        if name == "function_not_found" and old:
            continue  # the old driver's library lacks the symbol itself
        for fn in FIELD_FUNCTIONS[field]:
            out.append(f"fail {fn} {i} {NVML_CODES[name]}")
    return out


def link_rates(dev: dict[str, Any]) -> tuple[float, float] | None:
    """Bytes/s a healthy copy engine reaches each way over this GPU's recorded current PCIe link (the matrix's figure)."""
    from gpudoctor.bandwidth.expected import load_link_table

    gen, width = dev.get("pcie_gen_current"), dev.get("pcie_width_current")
    if not gen or not width:
        return None
    spec = load_link_table().pcie(int(gen), int(width))
    if spec is None or spec.practical_gb_per_s is None:
        return None
    return spec.practical_gb_per_s * 1e9, spec.practical_gb_per_s * 1e9


def cuda_data(nvml: dict[str, Any], corrupt: bool = False) -> str:
    """The fake libcuda's data file: the recorded GPUs, each copying at what its recorded link gives."""
    devices = [d for d in nvml.get("devices") or [] if "pci_bus_id" in d]
    # Copies with no per-copy latency: every size then gives the link's figure, the one the judgement expects.
    lines = [f"devices {len(devices)}", "rates 25e9 26e9 800e9 40e9 0"]
    if nvml.get("status") == "lib_rm_version_mismatch":
        lines.append("init 803")  # CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: the same mismatch, as the CUDA driver says it
    if corrupt:
        lines.append("corrupt 1")
    for ordinal, dev in enumerate(devices):
        bus = dev["pci_bus_id"]
        lines.append(f"dev.{ordinal}.name {dev.get('name', f'GPU {ordinal}')}")
        lines.append(f"dev.{ordinal}.bus_id {bus[4:] if len(bus) > 12 else bus}")  # CUDA prints a 4-digit domain
        if "memory" in dev:
            lines.append(f"dev.{ordinal}.memory {dev['memory']['total_bytes']}")
        rates = link_rates(dev)
        if rates:
            lines.append(f"dev.{ordinal}.rates {rates[0]:.6e} {rates[1]:.6e}")
    return "\n".join(lines) + "\n"


@dataclass
class SimMachine:
    root: Path
    env: dict[str, str]
    snapshot: dict[str, Any]

    def run(self, *args: str, timeout: float = 60, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """`gpudoctor ARGS` as a separate program (with `--root ROOT` among ARGS: on the simulated machine)."""
        argv = [sys.executable, "-m", "gpudoctor", *args]
        return subprocess.run(
            argv, env={**self.env, **(env or {})}, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )


def _inside(root: Path, path: str) -> Path:
    return root / path.lstrip("/")


def _write_file(root: Path, path: str, entry: Any, devices: list[int]) -> None:
    target = _inside(root, path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(entry, str):
        target.write_text(entry, encoding="utf-8")
        return
    if "link" in entry:
        target.symlink_to(entry["link"])
        return
    if entry.get("type") == "char":
        try:
            os.mknod(target, 0o666 | stat.S_IFCHR, os.makedev(195, len(devices)))
            devices.append(1)
            return
        except (PermissionError, OSError):
            pass  # not root (or no CAP_MKNOD): a plain file stands in for the device
    if entry.get("binary"):
        target.write_bytes(b"\x7fELF\x00")
    else:
        target.write_bytes(b"")
    if entry.get("readable") is False or "error" in entry:
        target.chmod(0)


def _program(root: Path, data: Path, program: str, entries: dict[str, dict[str, Any]]) -> None:
    """A /bin/sh program answering each recorded argument list with the recorded output and status."""
    path = _inside(root, program) if program.startswith("/") else root / "usr" / "bin" / program
    path.parent.mkdir(parents=True, exist_ok=True)
    cat, sleep = shutil.which("cat") or "/bin/cat", shutil.which("sleep") or "/bin/sleep"
    lines = ["#!/bin/sh", 'case "$*" in']
    for n, (args, entry) in enumerate(sorted(entries.items())):
        out, err = data / f"{path.name}.{n}.out", data / f"{path.name}.{n}.err"
        out.write_text(str(entry.get("stdout", "")), encoding="utf-8")
        err.write_text(str(entry.get("stderr", "")), encoding="utf-8")
        if entry.get("timeout"):
            action = f"exec {sleep} 600"
        else:
            action = f"{cat} {shlex.quote(str(out))}; {cat} {shlex.quote(str(err))} >&2; exit {int(entry.get('rc', 0) or 0)}"
        lines.append(f"  {shlex.quote(args)}) {action};;")
    lines += ["esac", "echo 'not recorded' >&2", "exit 2", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    path.chmod(0o755)


def _interpreter(root: Path, data: Path, python: dict[str, Any]) -> None:
    """The recorded interpreter: prints what gpudoctor's probe script printed there (its last line is the JSON)."""
    executable = str(python.get("executable") or "/usr/bin/python3")
    answer = data / "python.json"
    answer.write_text(json.dumps(python) + "\n", encoding="utf-8")
    path = _inside(root, executable)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\nexec {shutil.which('cat') or '/bin/cat'} {shlex.quote(str(answer))}\n", encoding="utf-8")
    path.chmod(0o755)


def build_machine(
    snapshot: dict[str, Any],
    where: Path,
    libraries: Libraries,
    *,
    link_files: bool = False,
    corrupt: bool = False,
) -> SimMachine:
    """Lay out the simulated machine under `where` (see the module docstring) and the environment to run on it.

    link_files: also write each GPU's /sys/bus/pci/devices/ADDR/current_link_speed and current_link_width
    from NVML's current link (what `bench bandwidth` reads while copies run); off by default, because a
    snapshot that did not record them would then differ from its replay. corrupt: the fake libcuda
    flips a byte of every host-to-device copy (`bench bandwidth --verify` must catch it).
    """
    root, data, home = where / "root", where / "data", where / "home"
    for d in (root, data, home):
        d.mkdir(parents=True, exist_ok=True)
    devices: list[int] = []
    for path, entry in sorted((snapshot.get("files") or {}).items()):
        _write_file(root, path, entry, devices)
    for path, listing in (snapshot.get("dirs") or {}).items():
        _inside(root, path).mkdir(parents=True, exist_ok=True)
        for name in listing if isinstance(listing, list) else ():
            child = _inside(root, path) / name
            if not child.exists() and not child.is_symlink():
                child.mkdir(parents=True, exist_ok=True)
    programs: dict[str, dict[str, dict[str, Any]]] = {}
    for key, entry in (snapshot.get("commands") or {}).items():
        argv = shlex.split(key)
        programs.setdefault(argv[0], {})[" ".join(argv[1:])] = entry
    for program, entries in programs.items():
        _program(root, data, program, entries)
    if snapshot.get("python"):
        _interpreter(root, data, snapshot["python"])
    nvml = snapshot.get("nvml") or {}
    if link_files:
        for dev in nvml.get("devices") or []:
            if "pci_bus_id" in dev and dev.get("pcie_gen_current"):
                base = root / "sys/bus/pci/devices" / dev["pci_bus_id"][4:].lower()
                base.mkdir(parents=True, exist_ok=True)
                (base / "current_link_speed").write_text(LINK_SPEED[int(dev["pcie_gen_current"])] + "\n")
                (base / "current_link_width").write_text(f"{int(dev['pcie_width_current'])}\n")
    recorded_env = snapshot.get("env") or {}
    lib_dirs = []
    if nvml and nvml.get("status") != "library_not_found":
        (data / "nvml.txt").write_text(nvml_data(nvml), encoding="utf-8")
        lib_dirs.append(str(nvml_library(nvml, libraries)))
    if nvml.get("devices"):
        (data / "cuda.txt").write_text(cuda_data(nvml, corrupt), encoding="utf-8")
        lib_dirs.append(str(libraries.cuda))
    env = {name: str(recorded_env[name]) for name in ENV_NAMES if name in recorded_env}
    env.update(
        {
            "PATH": str(recorded_env.get("PATH") or DEFAULT_PATH),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "COLUMNS": "160",
            "GPUDOCTOR_SIM_NVML": str(data / "nvml.txt"),
            "GPUDOCTOR_SIM_CUDA": str(data / "cuda.txt"),
        }
    )
    if "PYTHONPATH" in os.environ:  # a checkout run without installing gpudoctor (no ENV_NAMES fact reads it)
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    recorded_ld = recorded_env.get("LD_LIBRARY_PATH")
    if lib_dirs or recorded_ld:
        env["LD_LIBRARY_PATH"] = ":".join([*lib_dirs, *([recorded_ld] if recorded_ld else [])])
    return SimMachine(root, env, snapshot)
