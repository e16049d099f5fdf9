"""Who holds GPU memory: each GPU (and MIG instance) with its total, used and free memory, and every
process holding some, with its user, command line and framework where that can be told.

Pure: built from `DriverFacts`, the MIG details NVML or nvidia-smi reported, and what procinfo.py read
about each process. No I/O, no rich.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpudoctor.facts import DriverFacts, Gpu, Process

FRAMEWORKS = ("torch", "tensorflow", "jax", "cupy")

# Libraries only a framework's GPU runtime maps, as they appear in /proc/PID/maps. jaxlib renamed
# xla_extension.so to _jax.so (0.6-era); the CUDA plugin lives in jax_plugins/xla_cuda12/.
MAPS_MARKERS = (
    ("torch", "libtorch_cuda"),
    ("tensorflow", "libtensorflow_framework.so"),
    ("tensorflow", "_pywrap_tensorflow_internal.so"),
    ("jax", "xla_extension"),
    ("jax", "jaxlib/_jax."),
    ("jax", "xla_cuda_plugin.so"),
    # CuPy's CUDA bindings are extension modules under cupy_backends/cuda/ (its runtime, driver and
    # memory-pool APIs): mapped by every process that has touched a CuPy array.
    ("cupy", "cupy_backends/cuda/"),
)

# Words in a command line that name a framework. Whole words only: "torch_utils.py" is no evidence,
# and "tensorboard" is not TensorFlow holding GPU memory.
_CMDLINE = (
    ("torch", re.compile(r"(?<![\w-])(torch|torchrun|torch\.distributed\.\w+)(?![\w-])")),
    ("tensorflow", re.compile(r"(?<![\w-])(tensorflow|tensorflow_model_server|keras)(?![\w-])")),
    ("jax", re.compile(r"(?<![\w-])(jax|jaxlib|flax)(?![\w-])")),
    ("cupy", re.compile(r"(?<![\w-])(cupy|cupyx)(?![\w-])")),
)


@dataclass(frozen=True)
class ProcInfo:
    """What /proc (or ps) said about one process; `problem` says why something is missing."""

    pid: int
    user: str | None = None  # the login name, else "uid N"
    uid: int | None = None
    cmdline: str | None = None
    frameworks: tuple[str, ...] = ()
    framework_how: str | None = None  # "maps: libtorch_cuda.so", "command line"
    problem: str | None = None


@dataclass(frozen=True)
class MigInstance:
    """One MIG device: its GPU instance (GI) and compute instance (CI) and its own memory slice."""

    gpu_index: int
    device: int | None  # the MIG device index nvidia-smi shows, NVML's slot
    gi: int | None = None
    ci: int | None = None
    uuid: str | None = None
    total_bytes: int | None = None
    used_bytes: int | None = None
    sm_count: int | None = None

    @property
    def free_bytes(self) -> int | None:
        if self.total_bytes is None or self.used_bytes is None:
            return None
        return max(0, self.total_bytes - self.used_bytes)

    @property
    def label(self) -> str:
        parts = [f"MIG {self.device}" if self.device is not None else "MIG"]
        if self.gi is not None:
            parts.append(f"GI {self.gi}" + (f"/CI {self.ci}" if self.ci is not None else ""))
        return " ".join(parts)


@dataclass(frozen=True)
class MigDetails:
    """MIG instances per GPU index, and which instance each process runs on ((gpu, pid) -> (gi, ci))."""

    instances: Mapping[int, tuple[MigInstance, ...]] = field(default_factory=dict)
    placement: Mapping[tuple[int, int], tuple[int | None, int | None]] = field(default_factory=dict)


@dataclass(frozen=True)
class Holder:
    """One process holding memory on one GPU."""

    pid: int
    name: str | None  # as NVML or nvidia-smi named it
    type: str | None  # C, G, C+G, as nvidia-smi types them (NVML's two lists give the same, docs/snapshot-format.md)
    used_bytes: int | None
    user: str | None = None
    command: str | None = None  # the full command line where /proc or ps gave it
    frameworks: tuple[str, ...] = ()
    framework_how: str | None = None
    gi: int | None = None
    ci: int | None = None
    problem: str | None = None

    @property
    def compute(self) -> bool:
        return is_compute(self.type)

    @property
    def framework(self) -> str | None:
        return "+".join(self.frameworks) or None


@dataclass(frozen=True)
class GpuMemory:
    index: int
    name: str | None
    uuid: str | None
    total_bytes: int | None
    used_bytes: int | None
    free_bytes: int | None
    source: str
    mig_enabled: bool = False
    instances: tuple[MigInstance, ...] = ()
    holders: tuple[Holder, ...] = ()
    # Why the driver cannot reach this GPU (NVML's error for it: gpu_is_lost, ...); None: it answers.
    lost: str | None = None

    @property
    def held_bytes(self) -> int:
        return sum(h.used_bytes or 0 for h in self.holders)

    @property
    def unaccounted_bytes(self) -> int | None:
        """Used memory no listed process explains: processes of other containers, or the driver's own."""
        if self.used_bytes is None:
            return None
        return max(0, self.used_bytes - self.held_bytes)


@dataclass(frozen=True)
class MemoryView:
    gpus: tuple[GpuMemory, ...]
    host_mode: str = "live"
    problem: str | None = None  # one sentence when no GPU could be read at all
    notes: tuple[str, ...] = ()


def is_compute(process_type: str | None) -> bool:
    """A CUDA context: nvidia-smi's C or C+G (M/M+C under MPS). An unknown type counts, to be safe."""
    return process_type is None or "C" in process_type.upper()


def frameworks_in_text(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    return tuple(fw for fw, pattern in _CMDLINE if pattern.search(text))


def frameworks_in_maps(maps: str) -> tuple[tuple[str, ...], str | None]:
    """Frameworks whose GPU runtime library is mapped, and the markers seen (the evidence)."""
    found: dict[str, str] = {}
    for fw, marker in MAPS_MARKERS:
        if fw not in found and marker in maps:
            found[fw] = marker
    frameworks = tuple(fw for fw in FRAMEWORKS if fw in found)
    return frameworks, ", ".join(found[fw] for fw in frameworks) or None


# --- MIG details, from whichever source had them -------------------------------------------------


def mig_from_nvml(state: Mapping[str, Any]) -> MigDetails:
    instances: dict[int, tuple[MigInstance, ...]] = {}
    if state.get("status") != "ok":
        return MigDetails()
    for dev in state.get("devices") or []:
        found = []
        for m in dev.get("mig_devices") or []:
            if not isinstance(m, dict):
                continue
            found.append(
                MigInstance(
                    int(dev.get("index", 0)),
                    m.get("slot"),
                    uuid=m.get("uuid"),
                    total_bytes=m.get("memory_total_bytes"),
                    used_bytes=m.get("memory_used_bytes"),
                )
            )
        if found:
            instances[int(dev.get("index", 0))] = tuple(found)
    return MigDetails(instances)


def mig_from_smi_xml(report: Any) -> MigDetails:
    instances: dict[int, tuple[MigInstance, ...]] = {}
    placement: dict[tuple[int, int], tuple[int | None, int | None]] = {}
    for g in report.gpus:
        found = tuple(
            MigInstance(
                g.index,
                m.index,
                m.gpu_instance_id,
                m.compute_instance_id,
                None,
                _mib(m.memory_total_mib),
                _mib(m.memory_used_mib),
                m.multiprocessor_count,
            )
            for m in g.mig_devices
        )
        if found:
            instances[g.index] = found
        for p in g.processes:
            if p.pid is not None and p.gpu_instance_id is not None:
                placement[(g.index, p.pid)] = (p.gpu_instance_id, p.compute_instance_id)
    return MigDetails(instances, placement)


def mig_from_smi_table(table: Any) -> MigDetails:
    instances: dict[int, list[MigInstance]] = {}
    for m in table.mig_devices:
        instances.setdefault(m.gpu_index, []).append(
            MigInstance(
                m.gpu_index,
                m.mig_device_index,
                m.gpu_instance_id,
                m.compute_instance_id,
                None,
                _mib(m.memory_total_mib),
                _mib(m.memory_used_mib),
                m.sm_count,
            )
        )
    placement = {
        (p.gpu_index, p.pid): (p.gpu_instance_id, p.compute_instance_id) for p in table.processes if p.gpu_instance_id is not None
    }
    return MigDetails({k: tuple(v) for k, v in instances.items()}, placement)


def merge_mig(smi: MigDetails, nvml: MigDetails) -> MigDetails:
    """nvidia-smi knows GI/CI ids and process placement, NVML the MIG UUIDs: keep both, matched by device index."""
    if not smi.instances:
        return MigDetails(nvml.instances, smi.placement)
    merged: dict[int, tuple[MigInstance, ...]] = {}
    for gpu, found in smi.instances.items():
        by_slot = {m.device: m for m in nvml.instances.get(gpu, ())}
        out = []
        for m in found:
            other = by_slot.get(m.device)
            out.append(
                m
                if other is None
                else MigInstance(
                    m.gpu_index,
                    m.device,
                    m.gi,
                    m.ci,
                    other.uuid,
                    m.total_bytes if m.total_bytes is not None else other.total_bytes,
                    m.used_bytes if m.used_bytes is not None else other.used_bytes,
                    m.sm_count,
                )
            )
        merged[gpu] = tuple(out)
    return MigDetails(merged, smi.placement)


# --- processes -------------------------------------------------------------------------------------


def _partner(gpu: Gpu, others: Iterable[Gpu]) -> Gpu | None:
    others = list(others)
    if gpu.uuid:
        for o in others:
            if o.uuid == gpu.uuid:
                return o
    return next((o for o in others if o.index == gpu.index and not (gpu.uuid and o.uuid)), None)


def processes_by_gpu(driver: DriverFacts) -> dict[int, tuple[Process, ...]]:
    """Every process on each GPU, NVML's and nvidia-smi's together.

    NVML's compute and graphics lists (merged by pid in the facts) and nvidia-smi's list; a process both
    list keeps NVML's figure and nvidia-smi's type. A snapshot recorded before graphics processes were read
    has NVML's compute processes only: nvidia-smi then adds the graphics ones.
    """
    base_is_nvml = bool(driver.gpus) and driver.gpus[0].source == "nvml"
    others = driver.smi_gpus if base_is_nvml else driver.nvml_gpus
    out: dict[int, tuple[Process, ...]] = {}
    for g in driver.gpus:
        merged: dict[int, Process] = {p.pid: p for p in g.processes}
        partner = _partner(g, others)
        for p in partner.processes if partner else ():
            mine = merged.get(p.pid)
            if mine is None:
                merged[p.pid] = p
            else:
                merged[p.pid] = Process(
                    p.pid,
                    mine.name or p.name,
                    mine.used_bytes if mine.used_bytes is not None else p.used_bytes,
                    p.type or mine.type,
                )
        out[g.index] = tuple(merged.values())
    return out


def build_view(
    driver: DriverFacts,
    mig: MigDetails = MigDetails(),
    procs: Mapping[int, ProcInfo] | None = None,
    host_mode: str = "live",
) -> MemoryView:
    procs = procs or {}
    if not driver.gpus:
        return MemoryView((), host_mode, _no_gpu_sentence(driver))
    by_gpu = processes_by_gpu(driver)
    gpus = []
    for g in driver.gpus:
        holders = []
        for p in by_gpu.get(g.index, ()):
            info = procs.get(p.pid)
            gi, ci = mig.placement.get((g.index, p.pid), (None, None))
            frameworks = info.frameworks if info and info.frameworks else frameworks_in_text(p.name)
            how = info.framework_how if info and info.frameworks else ("process name" if frameworks else None)
            holders.append(
                Holder(
                    p.pid,
                    p.name,
                    p.type,
                    p.used_bytes,
                    info.user if info else None,
                    info.cmdline if info else None,
                    frameworks,
                    how,
                    gi,
                    ci,
                    info.problem if info else None,
                )
            )
        holders.sort(key=lambda h: (-(h.used_bytes or 0), h.pid))
        gpus.append(
            GpuMemory(
                g.index,
                g.name,
                g.uuid,
                g.memory_total_bytes,
                g.memory_used_bytes,
                g.memory_free_bytes,
                g.source,
                bool(g.mig_current),
                tuple(mig.instances.get(g.index, ())),
                tuple(holders),
                (g.lost_error or "lost") if g.lost else None,
            )
        )
    return MemoryView(tuple(gpus), host_mode)


def _no_gpu_sentence(driver: DriverFacts) -> str:
    smi = {"missing": "nvidia-smi is not installed", "timeout": "nvidia-smi did not answer in time"}.get(
        driver.smi_status, f"nvidia-smi failed ({(driver.smi_error or driver.smi_status).strip().splitlines()[0]})"
    )
    if driver.smi_status == "ok":
        smi = "nvidia-smi lists none"
    nvml = "NVML lists none" if driver.nvml_status == "ok" else f"NVML: {driver.nvml_status}"
    return f"No NVIDIA GPU could be read ({nvml}; {smi})."


def _mib(value: int | None) -> int | None:
    return None if value is None else int(value) * 1024 * 1024
