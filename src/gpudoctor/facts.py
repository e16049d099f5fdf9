"""What the probes saw, per area, as plain data. No I/O and no judgement here.

Versions are kept as the raw strings the machine printed ("535.104.05");
comparisons parse them where they are made (see `gpudoctor.versions`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from gpudoctor.host import PythonEnv
from gpudoctor.probed import Absent, Found, Probed, Unknown


@dataclass(frozen=True)
class Distro:
    id: str | None = None
    version_id: str | None = None
    pretty_name: str | None = None
    id_like: str | None = None


@dataclass(frozen=True)
class PlatformFacts:
    system: str
    release: str
    machine: str
    distro: Distro
    container: str | None  # docker, podman, kubernetes, lxc, or None
    container_evidence: str | None
    wsl: int | None  # 1, 2, or None
    env: dict[str, str]


@dataclass(frozen=True)
class DeviceNode:
    path: str
    kind: str
    readable: bool | None
    writable: bool | None


@dataclass(frozen=True)
class PciGpu:
    slot: str
    device_id: str | None
    class_code: str | None
    name: str | None
    kernel_driver: str | None  # the driver bound to it: nvidia, nouveau, vfio-pci, or None


@dataclass(frozen=True)
class KernelFacts:
    proc_driver: Probed  # Found[KernelDriver] from /proc/driver/nvidia/version
    module_version: Probed  # Found[str] from /sys/module/nvidia/version
    nvidia_loaded: bool | None  # from /proc/modules; None when unreadable
    nouveau_loaded: bool | None
    device_nodes: tuple[DeviceNode, ...]
    pci: Probed  # Found[tuple[PciGpu, ...]]; Found(()) means no NVIDIA device on the bus
    # NVIDIA's .run installer leaves /usr/bin/nvidia-uninstall: the driver then is not the distribution's
    # packages, and installing those on top mixes two installations.
    run_installer: bool = False


@dataclass(frozen=True)
class Process:
    pid: int
    name: str | None
    used_bytes: int | None
    type: str | None = None  # C (compute), G (graphics), C+G, as nvidia-smi says


@dataclass(frozen=True)
class Gpu:
    """One GPU, merged from NVML and nvidia-smi (NVML first; `source` says which)."""

    index: int
    name: str | None
    uuid: str | None = None
    pci_bus_id: str | None = None
    compute_capability: str | None = None
    memory_total_bytes: int | None = None
    memory_used_bytes: int | None = None
    memory_free_bytes: int | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    persistence_mode: bool | None = None
    mig_current: bool | None = None
    mig_pending: bool | None = None
    mig_devices: int | None = None
    ecc_enabled: bool | None = None
    ecc_volatile_uncorrected: int | None = None
    ecc_aggregate_uncorrected: int | None = None
    retired_pages_pending: bool | None = None
    remapped_rows_pending: bool | None = None
    remapped_rows_failure: bool | None = None
    throttle_reasons: tuple[str, ...] = ()
    temperature_c: int | None = None
    power_draw_w: float | None = None
    processes: tuple[Process, ...] = ()
    lost: bool = False
    source: str = "nvml"


@dataclass(frozen=True)
class DriverFacts:
    """The user-space driver as NVML and nvidia-smi see it.

    `nvml_status` is NVML's own word (`ok`, `library_not_found`,
    `driver_not_loaded`, `lib_rm_version_mismatch`, ...); `smi_status` is
    nvidia-smi's (`ok`, `missing`, `timeout`, `failed`) with its error
    classified in `smi_error_kind` where the text is a known one.
    """

    nvml_status: str
    nvml_error: str | None
    nvml_driver_version: str | None
    nvml_version: str | None
    nvml_cuda_version: str | None  # the newest CUDA this driver supports, "12.4"
    smi_status: str
    smi_error: str | None
    smi_error_kind: str | None
    smi_driver_version: str | None
    smi_cuda_version: str | None
    smi_timeout_s: float | None
    gpus: tuple[Gpu, ...]
    nvml_gpus: tuple[Gpu, ...] = ()
    smi_gpus: tuple[Gpu, ...] = ()

    @property
    def version(self) -> str | None:
        return self.nvml_driver_version or self.smi_driver_version

    @property
    def cuda_version(self) -> str | None:
        return self.nvml_cuda_version or self.smi_cuda_version

    @property
    def reachable(self) -> bool:
        return self.nvml_status == "ok" or self.smi_status == "ok"


@dataclass(frozen=True)
class Toolkit:
    root: str
    version: str | None
    version_source: str | None  # version.json, version.txt, nvcc, cuda.h, dist-info
    found_via: tuple[str, ...]
    nvcc: str | None
    complete: bool
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class CudaLink:
    path: str
    kind: str  # link, dir, missing
    target: str | None
    resolved: str | None  # None when the link dangles
    managed_by_alternatives: bool = False


@dataclass(frozen=True)
class ToolkitFacts:
    toolkits: tuple[Toolkit, ...]
    link: CudaLink
    nvcc_on_path: str | None
    nvcc_on_path_version: str | None
    cuda_home: str | None
    ld_library_path_toolkits: tuple[str, ...]  # toolkit roots named on LD_LIBRARY_PATH
    problems: tuple[str, ...] = ()

    def by_root(self, root: str | None) -> Toolkit | None:
        for tk in self.toolkits:
            if tk.root == root:
                return tk
        return None


@dataclass(frozen=True)
class CudnnInstall:
    version: str | None
    major: int | None
    kind: str  # header, library, wheel
    path: str
    cuda_major: int | None = None  # from the wheel name (nvidia-cudnn-cu12) where known


@dataclass(frozen=True)
class LibDir:
    """A directory the loader may search, and the CUDA libraries it holds."""

    path: str
    via: str  # LD_LIBRARY_PATH, bundled, wheel, toolkit
    names: tuple[str, ...]


@dataclass(frozen=True)
class LibraryResolution:
    """Which file the dynamic loader would load for one soname, and from where."""

    soname: str
    path: str | None
    via: str | None  # bundled, wheel, LD_LIBRARY_PATH, ldconfig, toolkit
    shadowed: tuple[str, ...] = ()  # other copies it wins over


@dataclass(frozen=True)
class TorchFacts:
    version: str
    cuda: str | None  # torch.version.cuda, None for a CPU build
    hip: str | None
    location: str
    lib_dirs: tuple[LibDir, ...] = ()  # its bundled lib/ and the NVIDIA wheels it loads from
    build_known: bool = True  # False without torch/version.py and without a local tag (+cu121, +cpu)


@dataclass(frozen=True)
class TensorflowFacts:
    version: str
    distribution: str
    is_cuda_build: bool | None
    cuda: str | None
    cudnn: str | None
    location: str
    compute_capabilities: tuple[str, ...] = ()
    lib_dirs: tuple[LibDir, ...] = ()


@dataclass(frozen=True)
class JaxFacts:
    jax: str | None
    jaxlib: str | None
    plugins: dict[str, str]  # distribution name -> version
    location: str | None
    lib_dirs: tuple[LibDir, ...] = ()  # NVIDIA's wheel directories beside it (jax[cudaNN] installs them)


@dataclass(frozen=True)
class FrameworkFacts:
    python: Probed  # Found[PythonEnv]
    python_chosen_by: str  # --python, VIRTUAL_ENV, CONDA_PREFIX, PATH, own
    torch: Probed
    tensorflow: Probed
    jax: Probed
    nvidia_wheels: dict[str, str]  # nvidia-* distributions -> version
    deep: dict[str, Any] = field(default_factory=dict)  # --deep: framework -> introspection reply
    # A conda environment's lib/ with the CUDA libraries conda put there (cudatoolkit, cudnn). Conda's own
    # builds find them through their RPATH; a framework installed with pip does not search it.
    env_lib: LibDir | None = None


@dataclass(frozen=True)
class Facts:
    platform: PlatformFacts
    kernel: KernelFacts
    driver: DriverFacts
    toolkits: ToolkitFacts
    cudnn: tuple[CudnnInstall, ...]
    frameworks: FrameworkFacts
    ldconfig: Probed  # Found[dict soname -> tuple of paths]
    ld_library_path: tuple[LibDir, ...]  # LD_LIBRARY_PATH entries in order, with the CUDA libraries each holds
    timings_s: dict[str, float]
    failures: dict[str, Unknown]  # probe name -> why it could not tell


def to_json(value: Any) -> Any:
    """Facts as JSON-ready data: dataclasses become objects, outcomes say their status."""
    if isinstance(value, Found):
        return {"status": "found", "source": value.source, "value": to_json(value.value)}
    if isinstance(value, Absent):
        return {"status": "absent", "source": value.source, "reason": value.reason}
    if isinstance(value, Unknown):
        return {"status": "unknown", "source": value.source, "kind": value.kind, "message": value.message}
    if isinstance(value, PythonEnv):
        data = value.to_json()
        data["how"] = value.how
        return data
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value
