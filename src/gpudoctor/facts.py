"""What the probes saw, per area, as plain data. No I/O and no judgement here.

Versions are kept as the raw strings the machine printed ("535.104.05");
comparisons parse them where they are made (see `gpudoctor.versions`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import field

from gpudoctor.host import PythonEnv
from gpudoctor.probed import Absent, Found, Probed, Unknown
from gpudoctor.record import Record, record_class

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # (Facts names them only as types: a check without companions or --pid never builds them)
    from typing import Any

    from gpudoctor.extension_facts import ExtensionFacts, ProcessFacts
    from gpudoctor.windows_facts import WindowsFacts  # (likewise a check anywhere but on native Windows)


@record_class(frozen=True, eq=False, repr=False)
class Distro(Record):
    """The Linux distribution, from /etc/os-release (each field None where it is not there)."""

    id: str | None = None
    version_id: str | None = None
    pretty_name: str | None = None
    id_like: str | None = None


@record_class(frozen=True, eq=False, repr=False)
class PlatformFacts(Record):
    """The operating system, its distribution, the container or WSL it runs in, and the environment variables the
    checks read.
    """

    system: str
    release: str
    machine: str
    distro: Distro
    container: str | None  # docker, podman, kubernetes, lxc, or None
    container_evidence: str | None
    wsl: int | None  # 1, 2, or None
    env: dict[str, str]


@record_class(frozen=True, eq=False, repr=False)
class DeviceNode(Record):
    """One /dev/nvidia* node: its kind as stat sees it (char, link...) and whether this user may read and write it."""

    path: str
    kind: str
    readable: bool | None
    writable: bool | None


@record_class(frozen=True, eq=False, repr=False)
class PciGpu(Record):
    """One NVIDIA display device on the PCI bus (/sys/bus/pci or lspci), and the kernel driver bound to it."""

    slot: str
    device_id: str | None
    class_code: str | None
    name: str | None
    kernel_driver: str | None  # the driver bound to it: nvidia, nouveau, vfio-pci, or None


@record_class(frozen=True, eq=False, repr=False)
class KernelFacts(Record):
    """The NVIDIA kernel module as the kernel shows it: /proc/driver/nvidia/version, /sys/module, /proc/modules, the
    device nodes and the PCI bus.
    """

    proc_driver: Probed  # Found[KernelDriver] from /proc/driver/nvidia/version
    module_version: Probed  # Found[str] from /sys/module/nvidia/version
    nvidia_loaded: bool | None  # from /proc/modules; None when unreadable
    nouveau_loaded: bool | None
    device_nodes: tuple[DeviceNode, ...]
    pci: Probed  # Found[tuple[PciGpu, ...]]; Found(()) means no NVIDIA device on the bus
    # NVIDIA's .run installer leaves /usr/bin/nvidia-uninstall: the driver then is not the distribution's
    # packages, and installing those on top mixes two installations.
    run_installer: bool = False
    # lspci is on PATH: a fix suggests `lspci` only then (minimal images and containers have none).
    lspci: bool = False


@record_class(frozen=True, eq=False, repr=False)
class Process(Record):
    """A process using a GPU, as NVML or nvidia-smi lists it."""

    pid: int
    name: str | None
    used_bytes: int | None
    type: str | None = None  # C (compute), G (graphics), C+G, as nvidia-smi says


@record_class(frozen=True, eq=False, repr=False)
class Gpu(Record):
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
    # What the GPU is doing, as load-dependent health is judged (checks/health.py): "P0".."P12", and the
    # share of the last sample period a kernel ran. Holding memory is not activity.
    performance_state: str | None = None
    utilization_gpu_percent: int | None = None
    # Why the driver cannot reach a lost GPU: NVML's error for its handle or a field (`gpu_is_lost`,
    # `unknown`, `insufficient_power`, ...); None for a GPU that answers (checks/health.py, gpu-lost).
    lost_error: str | None = None


@record_class(frozen=True, eq=False, repr=False)
class DriverFacts(Record):
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


@record_class(frozen=True, eq=False, repr=False)
class Toolkit(Record):
    """One CUDA toolkit installation: its root, version (and where that came from), how it was found, its nvcc, whether
    it is whole.
    """

    root: str
    version: str | None
    version_source: str | None  # version.json, version.txt, nvcc, cuda.h, dist-info
    found_via: tuple[str, ...]
    nvcc: str | None
    complete: bool
    problems: tuple[str, ...] = ()


@record_class(frozen=True, eq=False, repr=False)
class CudaLink(Record):
    """The /usr/local/cuda link (or directory) and where it leads; `managed_by_alternatives` where update-alternatives
    owns it.
    """

    path: str
    kind: str  # link, dir, missing
    target: str | None
    resolved: str | None  # None when the link dangles
    managed_by_alternatives: bool = False


@record_class(frozen=True, eq=False, repr=False)
class ToolkitFacts(Record):
    """Every CUDA toolkit found, the /usr/local/cuda link, the nvcc on PATH, CUDA_HOME and the toolkits on
    LD_LIBRARY_PATH.
    """

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


@record_class(frozen=True, eq=False, repr=False)
class CudnnInstall(Record):
    """One cuDNN copy: a header (cudnn_version.h), a library file or an nvidia-cudnn wheel, with the version it
    carries.
    """

    version: str | None
    major: int | None
    kind: str  # header, library, wheel
    path: str
    cuda_major: int | None = None  # from the wheel name (nvidia-cudnn-cu12) where known


@record_class(frozen=True, eq=False, repr=False)
class LibDir(Record):
    """A directory the loader may search, and the CUDA libraries it holds."""

    path: str
    via: str  # LD_LIBRARY_PATH, bundled, wheel, toolkit
    names: tuple[str, ...]


@record_class(frozen=True, eq=False, repr=False)
class LibraryCopy(Record):
    """One copy of a soname the loader can reach, and how."""

    path: str
    via: str
    version: str | None = None


@record_class(frozen=True, eq=False, repr=False)
class LibraryResolution(Record):
    """Which file the dynamic loader would load for one soname, and from where."""

    soname: str
    path: str | None
    # Without ELF records: bundled, wheel, LD_LIBRARY_PATH, ldconfig. With them (gpudoctor.loader.resolve_for):
    # LD_PRELOAD, "RPATH of X", LD_LIBRARY_PATH, "RUNPATH of X", ldconfig, default.
    via: str | None
    shadowed: tuple[str, ...] = ()  # other copies it wins over
    needed_by: str | None = None  # the object whose DT_NEEDED (or dlopen) asks for it
    version: str | None = None  # of the copy that loads: its file name (libcudnn.so.8.9.7) or its NVIDIA wheel
    how: str = "needed"  # needed (DT_NEEDED), dlopen (if dlopen()ed by name from `needed_by`)
    copies: tuple[LibraryCopy, ...] = ()  # every copy in the loader's order, the one that loads first


@record_class(frozen=True, eq=False, repr=False)
class ElfObject(Record):
    """One shared object as the loader reads it (gpudoctor.elf): run paths as stored, $ORIGIN unexpanded."""

    path: str
    needed: tuple[str, ...] = ()
    soname: str | None = None
    rpath: str | None = None
    runpath: str | None = None
    nodeflib: bool = False


@record_class(frozen=True, eq=False, repr=False)
class FrameworkLoading(Record):
    """How one framework's CUDA libraries load, judged from its own ELF files (gpudoctor.probes.loading)."""

    framework: str  # torch, tensorflow, jax
    objects: tuple[ElfObject, ...]  # its main libraries that were read, in load order
    loads: tuple[LibraryResolution, ...]  # each CUDA soname it needs or dlopen()s: the copy that loads, and the others
    static: tuple[str, ...] = ()  # CUDA libraries linked into it (not NEEDED, and the matrix says linked in)
    unread: tuple[str, ...] = ()  # "path: why" for main libraries that exist but could not be read


@record_class(frozen=True, eq=False, repr=False)
class LoadingFacts(Record):
    """What the dynamic loader sees for the frameworks: the interpreter, preloads, every directory searched."""

    executable: ElfObject | None  # the Python interpreter (its DT_RPATH is searched for objects without RUNPATH)
    preload: tuple[ElfObject, ...]
    default_dirs: tuple[str, ...]
    dirs: tuple[LibDir, ...]  # run-path, default and other directories listed, with the CUDA libraries each holds
    frameworks: tuple[FrameworkLoading, ...]

    def of(self, framework: str) -> FrameworkLoading | None:
        return next((f for f in self.frameworks if f.framework == framework), None)


@record_class(frozen=True, eq=False, repr=False)
class TorchFacts(Record):
    """PyTorch as installed in the probed environment, read from its files (torch/version.py, the distribution's name),
    never imported.
    """

    version: str
    cuda: str | None  # torch.version.cuda, None for a CPU build
    hip: str | None
    location: str
    lib_dirs: tuple[LibDir, ...] = ()  # its bundled lib/ and the NVIDIA wheels it loads from
    build_known: bool = True  # False without torch/version.py and without a local tag (+cu121, +cpu)


@record_class(frozen=True, eq=False, repr=False)
class TensorflowFacts(Record):
    """TensorFlow as installed in the probed environment: its distribution and build facts (build_info.py), never
    imported.
    """

    version: str
    distribution: str
    is_cuda_build: bool | None
    cuda: str | None
    cudnn: str | None
    location: str
    compute_capabilities: tuple[str, ...] = ()
    lib_dirs: tuple[LibDir, ...] = ()


@record_class(frozen=True, eq=False, repr=False)
class JaxFacts(Record):
    """JAX, jaxlib and their CUDA plugins as installed in the probed environment, never imported."""

    jax: str | None
    jaxlib: str | None
    plugins: dict[str, str]  # distribution name -> version
    location: str | None
    lib_dirs: tuple[LibDir, ...] = ()  # NVIDIA's wheel directories beside it (jax[cudaNN] installs them)


@record_class(frozen=True, eq=False, repr=False)
class FrameworkFacts(Record):
    """The probed Python environment and the frameworks and NVIDIA wheels in it."""

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


# The cue (Partial.cues) the pasted reader sets where the paste names another vendor's GPU as the machine's only
# one: here, below both the reader (gpudoctor.pasted.cues) and the checks that stay silent on it.
NO_NVIDIA_GPU = "only another vendor's GPU named"
# The cue where an `ollama ps` row shows a model held in system memory while it takes several times its weights there
# (gpudoctor.parsers.ollama_ps.context_overload): the context length, not the GPU, put it on the CPU.
OLLAMA_CONTEXT_OVERLOAD = "an Ollama model's context beyond the GPU"
# The cue where the reporter reads the GPU's load in Windows' Task Manager (gpudoctor.parsers.failure_lines.GPU_GRAPH):
# its GPU graphs show the 3D, Copy and Video engines by default, not CUDA's compute ("Cuda" or "Compute_0" must be
# chosen in a graph's engine drop-down: Microsoft's DirectX blog, "GPUs in the Task Manager",
# https://devblogs.microsoft.com/directx/gpus-in-the-task-manager/), so a 0 % there says nothing of a CUDA program.
GPU_GRAPH_SAID = "the GPU's load read in Task Manager"
# The cue where the reporter says the machine has no GPU at all (an issue form's "GPU model and memory: No", "I don't
# have a GPU"): a CUDA library a GPU build could not load there is no fault, so the checks that prescribe one stay
# silent (gpudoctor.checks.reported.no_gpu_said).
NO_GPU_SAID = "the reporter says there is no GPU"
# The cue the pasted reader sets where the text says the failing commands ran in a container ("in the container",
# "connecting the existing containers", a cri-containerd/kubepods cgroup); its `runtime` is docker, podman or
# kubernetes. The checks read it through gpudoctor.planner.remedy.container_said.
CONTAINER_SAID = "a container named as where it ran"
# The cue the pasted reader sets where the program that failed is a compiled one (C#, C++, .NET) and the text shows no
# Python at all: the asks that run an interpreter (pip list, collect_env) cannot be answered there.
NO_PYTHON = "a compiled program, no Python"
# The cue the pasted reader sets where the text says the machine is a cluster's ("our HPC", "HPC3", a login node,
# `module load`) without showing its scheduler; gpudoctor.planner.remedy.cluster_node reads it.
CLUSTER_SAID = "a cluster named as where it ran"
# The cue the pasted reader sets where an nvidia-smi header names another Linux driver release than its `Driver Version`
# (an old nvidia-smi first on PATH, or copied in): gpudoctor.checks.reported.check_reported_smi_other_release reads it.
SMI_OTHER_RELEASE = "nvidia-smi of another driver release"
# The cue the pasted reader sets where the text says the machine slept and woke (suspend, standby, "after sleep"):
# gpudoctor.checks.catalogued.devices.check_cuda_init_unknown reads it.
SUSPEND_SAID = "the machine suspended and resumed"
# The cue the pasted reader sets where the text shows a Windows CUDA toolkit folder of release 13 or later (its DLLs in
# bin\x64): gpudoctor.checks.catalogued.windows_wsl.check_cuda13_dll_folder reads it, its `means` the folder.
CUDA13_WINDOWS_TOOLKIT = "a Windows CUDA 13 toolkit folder"
# The cue the pasted reader sets where the shell reported its program killed by SIGKILL (bash's bare "Killed", zsh's
# "zsh: killed ...") or the kernel's out-of-memory killer named it: gpudoctor.checks.reported.check_reported_wsl_memory.
KILLED_SAID = "a program killed by SIGKILL"
# The cue the pasted reader sets where the text states the host's RAM ("32 GB RAM", "RAM: 64GB", Windows' "Installed
# RAM" value); its `means` holds the size as "N GB": check_reported_wsl_memory sizes WSL's VM from it.
HOST_RAM_SAID = "the host's RAM stated"
# The cue the pasted reader sets where the reporter administers the cluster ("our cgroup.conf", "I am the admin"): the
# administrators' changes are then theirs to make, not something to ask others for (gpudoctor.planner.cluster).
ADMIN_SAID = "the reporter administers the machine"
# The cue the pasted reader sets where the commands ran in a notebook (Colab, Jupyter: `!pip`, /content, the name):
# a variable set by `!export` is gone after its line (gpudoctor.planner.remedy.notebook_said).
NOTEBOOK_SAID = "a notebook named as where it ran"
# The cue the pasted reader sets where the paste runs a tool that manages the program's environment: `means` is one of
# PROJECT_TOOLS. The package steps are then that tool's own commands (gpudoctor.planner.where.package_step): pip in a
# uv project's .venv does not exist and `uv run` syncs the lock back; a notebook's `%pip` installs into its kernel.
PROJECT_TOOL = "a tool that manages the program's environment"
# The console script the paste's program was started through, on Linux, where no interpreter was read (`means`: its name;
# `path`: its file where a traceback frame shows it): pip writes the interpreter that installed it into the script's first
# line (#!), so that line names the Python whose packages the program imports, which `python3` on PATH need not be.
CONSOLE_SCRIPT = "a console script ran the program"
PROJECT_TOOLS = ("uv project", "poetry", "pipenv", "notebook", "uv venv")
OS_NOT_NAMED = "no OS named in the text"
# The kernel release a pasted report is given where it says WSL 2 but shows no kernel release (a real one carries its
# version first, "5.15.153.1-microsoft-standard-WSL2"): WSL 2 is then the reporter's word, which `wsl -l -v` checks.
WSL2_RELEASE_PLACED = "microsoft-standard-WSL2"

# The cue the pasted reader sets where the text names a compiled torch extension in prose ("xformers has not been
# installed properly"); its `means` is the distribution. Which torch it was built for decides whether it loads, so
# gpudoctor.pasted.ask asks for both versions where the text shows neither.
EXTENSION_NAMED = "a compiled torch extension named"
# The cue the pasted reader sets where torch.utils.cpp_extension's "The detected CUDA version (X) mismatches the version
# that was used to compile PyTorch (Y)" names a PyTorch CUDA of another major than the installed torch's own tag
# (+cuXYZ, printed or stated): the build imported another torch than the installed one, the one pip's isolated build
# environment fetched for the package's build requirement. Its `means` is "installed CUDA|message's CUDA"
# (gpudoctor.pasted.isolated_build; judged by gpudoctor.checks.catalogued.builds).
ISOLATED_BUILD_TORCH = "an isolated build compiled against another torch"
# The cue the pasted reader sets where the text names NVIDIA's PyTorch container image (nvcr.io/nvidia/pytorch:23.10-py3)
# as where it runs; its `means` is the image. Its torch is NVIDIA's own build of a pre-release (2.1.0a0+32f93b1 in
# 23.10, NVIDIA's PyTorch release notes), for which no project publishes wheels: an extension is built against it.
TORCH_OF_IMAGE = "NVIDIA's PyTorch image named"
# The cue the pasted reader sets where a JAX report names its CUDA major (jaxlib 0.4.28+cuda12.cudnn89, jax-cuda12-plugin,
# jax[cuda12]) without the installed versions; its `means` is the major ("12"). JAX's packages of one major are then
# put back at one release by jax's own extra, whatever their versions were (gpudoctor.checks.reported).
JAX_CUDA_SAID = "JAX's CUDA major named"
# The cue the pasted reader sets where, on native Windows, pip was asked for (or built) a package that publishes Linux
# builds only (vLLM); its `means` is the package. Its route on that PC is WSL 2 (gpudoctor.checks.windows).
LINUX_ONLY_SAID = "a Linux-only package asked for on native Windows"
# The cue the pasted reader sets where pip found no release for the interpreter and the text shows pip typed as a
# program of its own (`pip3 install torch`), not as `python -m pip`; its `means` is the name typed. The pip on PATH may
# be another Python's than `python` (gpudoctor.pasted.ask asks it which).
PIP_TYPED = "pip typed as a program of its own"
# The cue the pasted reader sets where a traceback imports a compiled torch companion from a source checkout (its
# package directory outside any site-packages: ~/repo/audio/torchaudio/__init__.py); `means` is the checkout,
# `package` the distribution. Its extension was built there, against the torch of that time: it is rebuilt there.
SOURCE_CHECKOUT = "a companion imported from its source checkout"
# The cue the pasted reader sets on the command the reporter ran that failed (gpudoctor.pasted.failing): `means` is
# the command as typed, `shell` the prompt's ("posix", "powershell", "cmd", "container"; "" where a code block showed
# it without one). The plan ends by running it again where it failed (gpudoctor.planner.resume), only where it is a
# plain command (gpudoctor.cmdline.split_plain): it is the reporter's text, never code of ours.
REPORTER_COMMAND = "the reporter's failing command"
# The cue the pasted reader sets where a pip or uv command installed torch, pinned, from PyTorch's CPU index and the
# installer said it finished; `means` is the release. The fix is the same release from the default index (its Linux
# wheels are CUDA builds): the reporter chose the release, and the CPU index only by the installer's choice.
CPU_INDEX_INSTALL = "torch installed from PyTorch's CPU index"

# Where the paste's program ran (gpudoctor.planner.where reads them, the reader gpudoctor.pasted.cues sets them):
# a component of gpudoctor/parsers/catalogue.toml named (`means`: its id); an image the text starts with `docker run`
# (`means`: the image, `container`: its --name where given); a conda environment said to hold the program; a
# conda-forge package's build path (`means`: the package).
COMPONENT_NAMED = "a component named"
# The pod a `kubectl exec|describe pod|logs` line names, with its namespace where given: `means` is "namespace/pod"
# ("/pod" without one). Here, beside the other cue kinds, so the rules read it without importing the reader.
KUBECTL_POD = "a pod kubectl names"
IMAGE_RUN = "an image run with docker run"
# The text saying a new container works where the failing one does not: the failing container predates what changed
# on the host (gpudoctor.pasted.container_age).
STALE_CONTAINER = "a new container said to work"
# nvidia-docker2's runtime shown (its package, its wrapper, --runtime=nvidia): a test container is started with
# --runtime=nvidia, which it registers on every Docker release (gpudoctor.pasted.container_age).
NVIDIA_RUNTIME_SAID = "nvidia-docker2's runtime shown"
# `nvidia-ctk cdi list`'s answer shown ("Found 3 CDI devices", then the names): the host's CDI spec is in the paste, so
# it is not asked again (gpudoctor.pasted.container_age).
CDI_LISTED = "the CDI devices listed"
# The image the paste's program runs in where no `docker run --gpus` names it (IMAGE_RUN): a `docker run` without --gpus
# (`means`: the image, `gpus`: ""), a Dockerfile the paste shows built (`means`: "", the image it builds, which the
# paste does not name; `gpus`: "all"), or an Apptainer/Singularity image run (`runtime`: singularity or apptainer,
# `python`: the interpreter its command ran). Read only by gpudoctor.planner.where, which asks its Python questions there.
PROGRAM_IMAGE = "the image the program runs in"
# A program the paste shows started by hand (`./ollama-linux-amd64`, `$ ollama serve`): `means` is its name. No
# service manager runs it, so it has no systemd unit whose journal to ask for (gpudoctor.pasted.ask).
STARTED_BY_HAND = "a program started by hand"
# The text saying no service manager runs here (Ollama's install script: "WARNING: systemd is not running"; systemctl's
# "System has not been booted with systemd as init system"): a container or a chroot. A service's unit was written but
# never started, so there is no journal to read; the program's server is started by hand (gpudoctor.pasted.ask).
NO_SERVICE_MANAGER = "no service manager running"
# `docker compose up` run in the paste (its spec not pasted): the services it started log to Compose, not to a systemd
# unit's journal (gpudoctor.pasted.ask asks `docker compose logs` of a component that runs as a container).
COMPOSE_STARTED = "a docker compose project started"
# A container whose log the paste shows (docker compose's `name  | ` prefix): `means` is its service's name.
LOGGED_SERVICE = "a docker compose service's log"
# The container a `docker exec NAME ...` (or podman's) line of the paste runs a command in: `means` is its name, so what
# is asked of "the container" is asked of that one.
EXEC_NAMED = "a container docker exec names"
# The container a compose file names (`container_name: NAME`, one literal name in the paste): `means` is its name, the one
# docker gives the service's container instead of PROJECT-SERVICE-N (the Compose Specification, services.container_name).
CONTAINER_NAMED = "a container its compose file names"
# The controller that owns the pod kubectl names (`Controlled By:` of describe pod, or what its name and labels show:
# a StatefulSet's pod-index label, a Deployment's pod-template-hash, Kubeflow's Notebook over its StatefulSet): `means`
# is "kind/name". A change to the pod's spec goes into the owner's pod template; the owner recreates the pod.
POD_OWNER = "the controller owning the pod"
CONDA_ENV_SAID = "a conda environment named"
CONDA_FORGE_BUILD = "a conda-forge build's path"
# The environment the paste's prompts show active, by the name its activation writes before the prompt ("(tf_daily)
# C:\\x>", gpudoctor.pasted.cues.prompt_env; conda's base left out: a new prompt starts in it): `means` is its name,
# `kind` "conda" where the paste activates or creates that name with conda (`conda activate NAME`, Windows conda's
# `activate NAME`, `conda create -n NAME`), else "" (a venv's is activated by its path, and its name says no path). A
# new prompt (after a restart) has no environment active: gpudoctor.planner.where.reentry enters it again.
ENV_PROMPT = "an environment a prompt shows active"
# The cue the pasted reader sets where conda put (or its solver puts) PyTorch's CPU build into the environment: a pytorch
# package whose build string says cpu ("py3.8_cpu_0"), or the cpuonly metapackage that pins it: the fix is conda's
# (gpudoctor.checks.frameworks.check_cpu_build).
TORCH_CONDA_CPU = "PyTorch's CPU build from conda"
# The cue the pasted reader sets for each GPU model the reporter names in words where several are named and the text does
# not say they are all this machine's ("works on my 3090, not on the 1080"): `means` is the model as the matrix names
# it, with its compute capability. Every GPU the text names stays a fact with its line; none is written as the machine's.
GPU_NAMED = "a GPU model named"
# The cue the pasted reader sets where another vendor's GPU is named beside an NVIDIA one (a laptop's integrated Intel
# or AMD graphics beside its GeForce): `means` is that GPU as written, a display adapter and no CUDA device.
OTHER_GPU_BESIDE = "another vendor's GPU beside the NVIDIA one"
# The cue the pasted reader sets where the machine is an NVIDIA Jetson (the text names a Jetson, L4T, JetPack or
# /etc/nv_tegra_release): its integrated GPU has no nvidia-smi before JetPack 6 (tegrastats and jtop are its tools) and
# its L4T release, not a driver table, decides the builds that run. `means` is the L4T release where the text shows it.
JETSON_SAID = "an NVIDIA Jetson (L4T)"
# The cue the pasted reader sets where the text shows a node's kernel that its distribution's repositories do not carry:
# ELRepo's kernel-lt and kernel-ml (their releases end in .elrepo), or a 4.x or newer kernel on an x86_64 CentOS 7, whose
# own kernels are 3.10.0. `means` is the kernel release. A driver built in a container from the distribution's kernel
# headers (the GPU Operator's driver container) finds none for it: gpudoctor.checks.catalogued.containers reads it.
KERNEL_OUTSIDE_DISTRO = "a kernel from outside the distribution's repositories"
# The cue the pasted reader sets where the text says DKMS builds the nvidia kernel module (a distribution's nvidia-dkms
# or nvidia-driver-NNN-dkms package, `dkms` named with nvidia): DKMS builds it per installed kernel, and only for a
# kernel whose headers are installed, so a kernel added without its headers has no module to load.
# gpudoctor.checks.driver reads it where nvidia-smi cannot reach the driver. `means` is the words that said it.
DKMS_SAID = "the nvidia kernel module built by DKMS"
# The cue the pasted reader sets where modprobe or insmod says the kernel refused the nvidia module for its signature:
# "could not insert 'nvidia': Key was rejected by service" (EKEYREJECTED: signed with a key the kernel does not trust) or
# "... Required key not available" (ENOKEY: not signed, and Secure Boot's lockdown requires it). kmod prints strerror()
# of the kernel's answer (kmod-project/kmod tools/modprobe.c @05828b4a: ERR("could not insert '%s': %s\n", ...,
# strerror(-err))). The module is built and found; only its signing key is not enrolled, so enrolling the key, not a
# reinstall, loads it. `means` is the module named. gpudoctor.checks.driver reads it where nvidia-smi cannot reach the
# driver.
MODULE_KEY_REFUSED = "the nvidia module refused for its signing key"
# The cue the pasted reader sets where the text names an image of a GPU application gpudoctor/planner/apps.toml
# catalogues, with its tag: `means` the image, `app` the application's id, `tag`, and `wants` the first line that shows
# the application's GPU part asked for ("" where none does). gpudoctor.checks.catalogued.containers reads it.
APP_IMAGE = "an application's image"
# The cue the pasted reader sets where the paste is a catalogued application's own (gpudoctor/planner/apps.toml's
# [[cpu_mode]]: its launcher, banner or issue form): `means` the application's id. gpudoctor.checks.reported reads it.
APP_NAMED = "an application's own text"
# The cue the pasted reader sets where the paste is a catalogued standalone application's own (apps.toml's
# [[standalone]]: a frozen program with no Python environment): `means` its id. gpudoctor.checks.windows reads it.
STANDALONE_APP = "a standalone application's own text"
# The cue the pasted reader sets where setuptools reports nvcc failing ("error: command '/usr/local/cuda/bin/nvcc' failed
# with exit code 1", pypa/setuptools setuptools/_distutils/spawn.py @00eaec7a): a Python package's extension build ran
# nvcc (pip install of a source tree, setup.py), the way torch.utils.cpp_extension builds. `means` is the nvcc's path.
SETUPTOOLS_NVCC = "a Python package's build ran nvcc"
# The cue the pasted reader sets where a traceback shows a package's own import failing (a frame of its top-level
# site-packages/<pkg>/__init__.py "in <module>", the traceback ending in ImportError, ModuleNotFoundError or OSError):
# `means` is the package's import name. A probe that imports it ends in the same error and decides nothing.
IMPORT_FAILED = "a package whose import failed"
# The cue the pasted reader sets where the interpreter died importing a package (`>>> import torch`, then the shell's
# "Segmentation fault"): `means` is the package's import name. No Python-level probe of it can answer; a backtrace
# (gdb, or faulthandler's Python stack) names the native library the crash is in.
IMPORT_CRASHED = "a package whose import crashed the interpreter"
# The cue the pasted reader sets where the text dates JAX before jax.print_environment_info() (added in jax 0.3.18,
# jax-ml/jax commit 0fb462ef, tag jax-v0.3.18 @e0344328, which requires jaxlib 0.3.15: jax/version.py): a jax or jaxlib
# pinned below those, or the CPU fallback warned from jax/lib/xla_bridge.py, which moved to jax/_src/lib/ in jax 0.2.25
# (jax-v0.2.25 @821fcaa7). `means` is what dated it.
JAX_BEFORE_ENV_INFO = "a JAX older than jax.print_environment_info()"
# The cue the pasted reader sets where the text names a TensorFlow release older than tf.config (first released with
# 1.14: tensorflow/python/framework/config.py) and shows no installed TensorFlow: "tensorflow-gpu 1.1.0",
# "tensorflow==1.12". `means` is the release named; the asks probe it with 1.x's own calls.
TF_BEFORE_CONFIG = "a TensorFlow older than tf.config"


@record_class(frozen=True, eq=False, repr=False)
class Partial(Record):
    """What a snapshot built from pasted text (or one marked `"partial": true`) showed beyond its files.

    On such a snapshot what is not recorded is unknown, not absent: `absence_known` below is the one place
    that decides whether a check may judge something missing. `errors` are the failure texts it held
    (gpudoctor.parsers.error_texts.ErrorEvidence); `missing` what the text itself showed missing (a
    soname the loader could not open, `nvidia-smi` not found).
    """

    partial: bool = False
    errors: tuple[Any, ...] = ()
    missing: tuple[str, ...] = ()
    frameworks: tuple[str, ...] = ()  # frameworks the text shows at work (traceback paths), versions unknown
    whole: tuple[str, ...] = ()  # areas shown whole, whose gaps are absences: "distributions" (a full package list)
    cues: tuple[dict[str, str], ...] = ()  # what set platform and setting, each with its line (gpudoctor.pasted.cues)
    cluster: str | None = None  # "slurm": the text shows a job of that scheduler
    windows_side: dict[str, Any] = field(default_factory=dict)  # a Windows nvidia-smi table in a WSL report

    def reported(self, kind: str) -> list[Any]:
        return [e for e in self.errors if e.kind == kind]


@record_class(frozen=True, eq=False, repr=False)
class Facts(Record):
    """Everything one run's probes saw, per area: what the checks judge (a live machine, a snapshot or a paste)."""

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
    windows: WindowsFacts | None = None  # native Windows only
    # The frameworks' libraries as the dynamic loader loads them; None where none was read (no framework, or a
    # snapshot without ELF records: the checks then fall back to the matrix's list and a fixed order).
    loading: LoadingFacts | None = None
    pasted: Partial = Partial()  # a partial snapshot: what was shown, and that the rest is unknown
    # Companions and compiled extensions of torch (gpudoctor.probes.extensions); None when none is installed.
    extensions: ExtensionFacts | None = None
    process: ProcessFacts | None = None  # check --pid: what a running process mapped


def absence_known(facts: Facts, what: str) -> bool:
    """Whether a check may judge `what` absent: always on a whole machine, and on partial evidence only
    where the text showed it missing. `what` names a thing as `Partial.missing` does: a soname
    (`libcudnn.so.8`; a stem such as `libcudnn` matches any of its versions), `nvidia-smi`, or an area
    that was not shown (`driver`, `device-nodes`, `pci`, `toolkit`, `libraries`)."""
    if not facts.pasted.partial:
        return True
    if what in facts.pasted.missing or what in facts.pasted.whole:
        return True
    if what == "driver" and "nvidia-smi" in facts.pasted.missing:
        return True
    # A soname of any version stands for its stem (libcudnn.so shown missing: libcudnn.so.8 is missing).
    return any(
        m.split(".so", 1)[0] == what.split(".so", 1)[0] and (m.endswith(".so") or what.endswith(".so"))
        for m in facts.pasted.missing
    )


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
