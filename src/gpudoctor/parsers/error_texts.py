"""Recognise known failure texts of nvidia-smi, NVML, CUDA, Docker and nvidia-container-cli, and name each with a stable code.

Matching is by fixed phrases (case-insensitive), so the texts may be wrapped in Docker/OCI hook error chains.
"""

from __future__ import annotations

import re

from gpudoctor.lazypattern import LazyPattern as _Lazy
from gpudoctor.parsers._common import MAX_TEXT_CHARS
from gpudoctor.parsers.anchors import Lines
from gpudoctor.parsers.cudnn_files import cudnn_files_said
from gpudoctor.parsers.library_lines import LINK, read_library_lines, stub_libcuda_loaded
from gpudoctor.record import Record, record_class
from gpudoctor.versions import cuda_from_int, cudnn_from_int

# Every check imports this module (an NVML error text is classified on any machine without a working driver),
# while most of its patterns read pasted evidence only: those are compiled at their first use.


# code -> one-line meaning, for callers that render or document the codes.
ERROR_CODES: dict[str, str] = {
    "driver-library-mismatch": "the user-space NVML library and the loaded kernel module are different driver versions",
    "driver-unreachable": "nvidia-smi could not talk to the kernel driver (module not loaded or not built for this kernel)",
    "driver-not-loaded": "NVML reports the NVIDIA kernel driver is not loaded",
    "nvml-library-missing": "libnvidia-ml.so (the driver's user-space NVML library) cannot be found or loaded",
    "nvml-unknown-error": "NVML failed with 'Unknown Error' (in containers: device access lost, e.g. after a systemd daemon-reload)",
    "nvml-insufficient-permissions": "NVML lacks permission to open the /dev/nvidia* device nodes",
    "gpu-lost": "a GPU fell off the bus or stopped responding ('GPU is lost')",
    "no-devices-found": "the driver is loaded but reports no NVIDIA GPUs",
    "container-no-gpu-runtime": "Docker has no device driver for GPU requests (NVIDIA Container Toolkit not configured)",
    "container-unknown-runtime": "Docker was asked for a runtime it has not registered (e.g. --runtime=nvidia)",
    "cuda-driver-insufficient": "the CUDA runtime is newer than the installed driver supports",
    "cuda-no-device": "the CUDA runtime found no CUDA-capable device",
}

# Checked in order; the first matching code wins.  More specific causes come before the
# generic wrappers they appear inside (e.g. an OCI hook error that carries an NVML error). Compiled at first use,
# up to the one that matches: a check imports this module to read the NVML version out of any error text.
_PATTERNS: tuple[tuple[str, _Lazy], ...] = tuple(
    (code, _Lazy(pattern, re.IGNORECASE))
    for code, pattern in (
        ("driver-library-mismatch", r"driver\s?/\s?library version mismatch"),
        (
            "nvml-library-missing",
            r"load library failed:\s*libnvidia-ml\.so"
            r"|libnvidia-ml\.so(?:\.\d+)?: cannot open shared object file"
            r"|couldn't find libnvidia-ml\.so"
            r"|NVML Shared Library Not Found",
        ),
        ("driver-unreachable", r"couldn't communicate with the NVIDIA driver"),
        (
            "driver-not-loaded",
            r"nvml error:\s*driver not loaded|NVML: Driver Not Loaded|NVMLError_DriverNotLoaded",
        ),  # pynvml's class
        ("nvml-insufficient-permissions", r"NVML: Insufficient Permissions|nvml error:\s*insufficient permissions"),
        ("nvml-unknown-error", r"Failed to initialize NVML: Unknown Error|nvml error:\s*unknown error"),
        # nvidia-smi names the GPU whose handle NVML could not give: "Unable to determine the device handle for
        # GPU 0000:02:00.0: GPU is lost.  Reboot the system to recover this GPU", "...: Unknown Error" (a GPU
        # that fell off the bus on newer drivers), or "...: Unable to communicate with GPU because it is
        # insufficiently powered". Not "...: Not Found": the driver never brought that GPU up (another cause).
        (
            "gpu-lost",
            r"GPU is lost|Unable to determine the device handle for GPU ?[0-9A-F:.]{7,16}: (?:Unknown Error|Unable to communicate)",
        ),
        ("no-devices-found", r"^\s*No devices were found\s*$|^\s*No devices found\.?\s*$"),
        ("container-no-gpu-runtime", r"could not select device driver \"[^\"\n]{0,200}\" with capabilities: \[\[gpu\]\]"),
        ("container-unknown-runtime", r"unknown or invalid runtime name"),
        ("cuda-driver-insufficient", r"CUDA driver version is insufficient for CUDA runtime version"),
        ("cuda-no-device", r"no CUDA-capable device is detected"),
    )
)

_NVML_VERSION_RE = _Lazy(r"NVML library version:\s*(\d+(?:\.\d+)+)", re.IGNORECASE)


def _bounded(text: object) -> str | None:
    if not isinstance(text, str):
        return None
    return text[:MAX_TEXT_CHARS]


def classify_error_text(text: str) -> str | None:
    """The code (a key of ERROR_CODES) of the first known failure in `text`, else None.  Never raises."""
    bounded = _bounded(text)
    if bounded is None:
        return None
    for code, pattern in _PATTERNS:
        if pattern.search(bounded) if code != "no-devices-found" else _search_lines(pattern, bounded):
            return code
    return None


def _search_lines(pattern: re.Pattern[str] | _Lazy, text: str) -> bool:
    return any(pattern.match(line) for line in text.splitlines())


_LOST_HANDLE_RE = _Lazy(
    r"Unable to determine the device handle for GPU ?(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])"
    r":[ \t]*(?P<why>(?:GPU is lost|Unknown Error|Unable to communicate)[^\n]{0,160})",
    re.IGNORECASE,
)


def lost_gpu_handles(text: str) -> tuple[tuple[str, str], ...]:
    """(PCI bus id, NVML's words) of each GPU nvidia-smi could not get a handle for, in the order printed.

    "Unable to determine the device handle for GPU0000:01:00.0: GPU is lost.  Reboot the system to recover this
    GPU" -> (("0000:01:00.0", "GPU is lost.  Reboot the system to recover this GPU"),). Never raises."""
    bounded = _bounded(text)
    if bounded is None:
        return ()
    out: list[tuple[str, str]] = []
    for m in _LOST_HANDLE_RE.finditer(bounded):
        entry = (m.group("bus"), m.group("why").strip())
        if entry not in out:
            out.append(entry)
    return tuple(out)


def extract_nvml_library_version(text: str) -> str | None:
    """ "NVML library version: 550.144" (newer drivers add it to the mismatch message) -> "550.144"."""
    bounded = _bounded(text)
    if bounded is None:
        return None
    match = _NVML_VERSION_RE.search(bounded)
    return match.group(1) if match else None


# --- Evidence in error texts ---------------------------------------------------------------------
# What a failure message says beyond its kind: the versions, sonames, capabilities and arch lists the
# frameworks, cuDNN, NVML, the CUDA runtime and the loader print. Each pattern is written from real
# reports (tests/pasted/cases, tests/real); the values come out as strings, exactly as printed.


@record_class(frozen=True, eq=False, repr=False)
class ErrorEvidence(Record):
    """One recognised failure text and what it says.

    `kind` is one of EVIDENCE_KINDS; `values` hold what the text names (a soname, two versions, a
    capability), `line` the line it was read from (stripped, at most 300 characters), `at` where that line is in
    the paste ("input.txt:23", set where a snapshot is read: gpudoctor.pasted.provenance), "" where not known.
    """

    kind: str
    line: str
    values: tuple[tuple[str, str], ...] = ()
    at: str = ""

    def get(self, key: str) -> str | None:
        return dict(self.values).get(key)


EVIDENCE_KINDS: dict[str, str] = {
    # (gpudoctor.parsers.cuda_errors: the numbers that decide a cause are read as their catalogue entry's evidence)
    "cuda-error-number": "a CUDA error that decides no cause by itself (unknown, a launch failure, an initialisation error, or a name and a number that disagree)",
    "arch-unsupported": "PyTorch warns that the GPU's compute capability is not among the architectures it was built for",
    "arch-list": "PyTorch lists the CUDA capabilities its build supports",
    "no-kernel-image": "a CUDA kernel had no image for this GPU's architecture",
    "ptx-newer-than-driver": "the driver's JIT refused PTX of a newer ISA than it loads (the program's CUDA toolkit is newer than the driver)",
    "library-missing": "the dynamic loader could not find a library by its soname (or a DLL on Windows)",
    "numpy-too-old": "a compiled module needs a newer NumPy C-API than the NumPy it imported",
    "shm-not-writable": "NCCL could not create its shared-memory segment in /dev/shm: permission denied",
    "slurm-job-without-gpus": "a Slurm job or step allocated no GPU (CUDA_VISIBLE_DEVICES=NoDevFiles: no --gres)",
    "video-library-missing": "FFmpeg could not load the driver's NVENC/NVDEC library (libnvidia-encode, libnvcuvid)",
    "image-manifest-unknown": "the registry holds no image under the tag docker asked for (manifest unknown)",
    "distro-package-installed": "an NVIDIA package listed as installed (apt list --installed, dpkg -l)",
    "tensorrt-version-said": "the TensorRT release an issue template's environment fields state",
    "cudnn-version-said": "the cuDNN version an issue template's environment fields state",
    "slurm-devices-unconstrained": "Slurm's cgroup.conf shown without ConstrainDevices=yes, beside a job's GPUs",
    "gpu-operator-driver-crashing": "the GPU Operator's driver pod restarting in CrashLoopBackOff",
    "cupy-import-failed": "CuPy's import failed: a compiled module of it could not load its CUDA library",
    "kernel-compiler-differs": "a kernel module built with another compiler than the one the running kernel was built with",
    "gpu-driver-container-said": "the GPU Operator's driver container's own log (it builds the NVIDIA module on the node)",
    "nvidia-module-load-failed": "nvidia-installer built the NVIDIA kernel module and the kernel refused to load it",
    "cuda-init-out-of-memory": "cudaErrorMemoryAllocation (2) while PyTorch counted the GPUs, before any allocation",
    "nvidia-module-missing-at-boot": "the NVIDIA kernel module was not loaded at boot (RPM Fusion's fallback to nouveau)",
    "p2p-hang-behind-switch": "P2P between GPUs behind a PCIe switch hangs, and works with NCCL_P2P_DISABLE=1",
    "nccl-shm-create-failed": "NCCL could not create its shared-memory segment in /dev/shm (most often too small)",
    "tensorrt-library-missing": "TensorRT could not load one of its own libraries by soname",
    "ctranslate2-cublas-missing": "CTranslate2 could not load the cuBLAS of the CUDA major it was built for",
    "cudnn-version-mismatch": "cuDNN's runtime version is older than (or of another major than) the one the framework was built with",
    "driver-too-old-found": "PyTorch found a driver supporting an older CUDA than its build (found version NNNNN)",
    "cuda-driver-insufficient": "the CUDA runtime is newer than the installed driver supports",
    "torch-not-compiled-with-cuda": "the installed PyTorch is a CPU-only build",
    "cuda-version-detected-mismatch": "torch.utils.cpp_extension: the nvcc found differs from PyTorch's CUDA",
    "jaxlib-jax-mismatch": "jaxlib and jax versions do not go together",
    "nvrm-api-mismatch": "the kernel log: the user-space driver and the kernel module differ",
    "nvrm-fallen-off-bus": "the kernel log: the GPU has fallen off the bus",
    "nouveau-bound": "the kernel log: nouveau drives the NVIDIA GPU",
    "nvidia-smi-not-found": "the shell could not find nvidia-smi",
    "nvml": "an NVML or nvidia-smi failure (ERROR_CODES names which)",
    "jax-plugin-incompatible": "JAX: the CUDA plugin's version does not go with the installed jaxlib",
    "pip-torch-pinned-by": "pip collecting the torch a package being installed pins ('Collecting torch==2.0.0 (from xformers==0.0.19)')",
    "requirement-stated": "a program's own line stating the least release of the driver, the CUDA toolkit or cuDNN it needs ('Please upgrade to CUDA 12.6.3 or newer'), or the least CUDA the driver must support ('requires CUDA driver version >= 12.0': component driver-cuda)",
    "pip-requirement-conflict": "pip's check after an install: a package requires a release of another that is not the one installed (or none is)",
    "pip-torch-removed": "pip taking an installed torch away ('Successfully uninstalled torch-2.0.1+cu118')",
    "jax-plugin-api-missing": "JAX's CUDA plugin failed calling a jaxlib API the installed jaxlib lacks (a newer plugin)",
    "jaxlib-cpu-fallback": "JAX found no CUDA-enabled jaxlib and fell back to the CPU",
    "undefined-symbol": "the dynamic loader could not bind a symbol an object needs (the object, the mangled name)",
    "pjrt-plugin-mismatch": "JAX's CUDA plugin was built for another PJRT API than the installed jax/jaxlib",
    "container-requires-cuda": "nvidia-container-cli: the image requires a CUDA version the host driver does not support",
    "driver-version-said": "a line of nvidia-smi's header (Driver Version: N) quoted in prose",
    "driver-branch-said": "the driver's branch alone, in a form's field or in prose ('NVIDIA Driver Version: 550', 'driver 535')",
    "cuda-lib-dir-said": "a CUDA toolkit's library directory the text shows (an RPATH, an ls: .../cuda-12.2/lib64)",
    "library-file-said": "a shared library's file the text lists on disk (find, ls -l, locate: an absolute path alone)",
    "cudnn-file-said": "a Windows cuDNN file the text names outside a loader's failure (a folder's listing, where's answer, the reporter's words): its major in its name",
    "cudnn-wheel-said": "NVIDIA's pip wheel of cuDNN named (nvidia-cudnn-cu12, or its site-packages\\nvidia\\cudnn folder)",
    "cuda-version-said": "an issue form's 'CUDA Version: X.Y', which does not say whose CUDA (the toolkit's or the driver's)",
    "cuda-toolkit-said": "the reporter saying which CUDA toolkit they installed ('I installed CUDA 11.8')",
    "cuda-have-said": "the reporter saying which CUDA they have ('I have CUDA version 12.3'; the toolkit's or the driver's)",
    "cuda-runtime-said": "Paddle's device log: the CUDA runtime version it runs ('Runtime API Version: 11.2')",
    "windows-build": "the Windows version (Microsoft Windows [Version 10.0.BUILD])",
    "wsl-gpu-blocked": "NVML inside WSL: GPU access blocked by the operating system",
    "linux-driver-package": "a Linux NVIDIA driver package installed with apt, dnf or yum",
    "tf-not-built-with-cuda": "tf.test.is_built_with_cuda() printed False",
    "libcuda-kernel-mismatch": "the CUDA driver library (libcuda) and the loaded kernel module are different versions",
    "cuda-unavailable": "torch.cuda.is_available() printed False",
    "cuda-available-answered": "torch.cuda.is_available() (or CuPy's, Numba's) answered True: a framework in the interpreter it ran in reaches the GPU",
    "cuda-available-said": "collect_env's 'Is CUDA available: True' (or a script's 'CUDA available: True'): the environment it ran in reaches the GPU",
    "gpu-stack-failure": "a failure line naming the GPU stack that no catalogue entry knows (parsers/failure_lines: its form and failing component)",
    "traceback-cut": "the paste ends before the error: a Python traceback stops before its error line (the failure's message is not shown)",
    "cuda-no-gpus": "PyTorch's CUDA initialisation found no GPU (No CUDA GPUs are available)",
    "nccl-system-error": "NCCL failed a system call (unhandled system error); its WARN line under NCCL_DEBUG=INFO names which",
    "extension-dll-load-failed": "Python could not load a compiled module on Windows: the .pyd, or a DLL it needs",
    "onnxruntime-cuda-provider-failed": "onnxruntime-gpu's CUDA execution provider did not load (a CUDA or cuDNN library it needs was not found)",
    "nvidia-module-missing": "modprobe: no nvidia kernel module exists for the running kernel",
    "torch-oom": "PyTorch ran out of GPU memory: the GPU's total, what was free, and what PyTorch itself reserved",
    "docker-run-without-gpus": "a container started with docker run without GPU access (no --gpus, no NVIDIA runtime)",
    "docker-run-cpu-image": "docker run asks --gpus for an image whose tag names a CPU build",
    "docker-run-gpus-zero": "docker run --gpus 0: a count of zero GPUs (docker reads a bare number as a count)",
    "compose-up-said": "a docker compose up command line the reporter ran (the service it names, if one)",
    "docker-run-said": "a docker run command line the reporter ran (its arguments, to give back with what it lacks)",
    "pip-install-said": "a pip install command line the reporter ran (its arguments, to run again once what it lacked is there)",
    "conda-install-said": "a conda (mamba) install command the reporter ran (its arguments: the packages and channels it asked for)",
    "workload-without-gpu": "a docker compose service or a pod's container, as pasted, that requests no GPU",
    "workload-gpus": "the GPUs a docker compose service or a pod's container, as pasted, requests",
    "video-codec-failing-said": "the reporter says NVENC/NVDEC (the GPU's video encoder or decoder) does not work",
    "node-gpu-capacity-missing": "a Kubernetes node advertises no nvidia.com/gpu (none listed, or a count of 0): the device plugin serves no GPU there",
    "video-capability-said": "the text shows a container asking for the driver's video libraries (the video capability)",
    "gpus-seen-unrequested": "the reporter says a pod or container that requested no GPU still sees all of them",
    "default-runtime-not-nvidia": "the Kubernetes node's container runtime (containerd, or Docker) does not run pods with nvidia by default",
    "job-gpus": "the GPUs per node a Slurm job requests (--gres=gpu[:type]:N, --gpus)",
    "program-gpus": "the GPUs per node a program asks for (a Lightning Trainer's gpus= or devices=)",
    "workload-logged-no-gpu": "a docker compose service's own log line saying it found no GPU (or nvidia-smi failed)",
    "cuda-no-device-driver-loaded": "the driver's libcuda loaded but CUDA found no device (the GPU's device nodes missing or not accessible)",
    "nccl-interfaces-said": "NCCL's INFO line of the network interfaces its socket transport offers the other ranks",
    "nccl-socket-ifname-said": "the NCCL_SOCKET_IFNAME the ranks ran with, as the text shows it set",
    "memlock-limit-said": "the processes' locked-memory limit (ulimit -l), as the text shows it",
    "nccl-variable-said": "an NCCL variable that chooses or turns off a transport (NCCL_P2P_DISABLE ...), as the text shows it set",
    "onnxruntime-native-binding": "onnxruntime's error raised through its C++ or Java API (the program's own onnxruntime)",
    "nccl-init-complete": "NCCL's INFO line of a communicator that finished its initialisation (its ranks connected)",
    "nccl-version-said": "NCCL's INFO line of the release a program loaded and the CUDA it was built for",
    "nccl-channels-net": "NCCL's INFO line of a channel between machines, over its network transport",
    "nccl-ib-no-device": "NCCL's INFO line that its InfiniBand/RoCE transport found no device where the process runs",
    "nccl-channels-local": "NCCL's INFO line of a channel between GPUs of one machine (P2P or shared memory)",
    "nccl-error": "an NCCL call of PyTorch's distributed process group failed (c10d's 'NCCL error in: <file>:<line>, <text>')",
    "ranks-on-hosts": "the ranks of a distributed job run on two or more hosts (their addresses, or the reporter's words)",
    "docker-desktop-said": "Docker Desktop named (with its version where shown): the daemon a WSL distribution's docker CLI may talk to",
    "docker-engine-absent": "the distribution shows no docker engine of its own (no docker service, no systemd unit, no systemd)",
    "distributed-run-said": "a distributed run of several processes over NCCL (DDP's start, torch.distributed's launchers)",
    "interpreters-said": "a multi-node run by an ssh launcher beside both an environment's python and the system's (/usr/bin/python)",
    "windows10-said": "Windows 10 named (as a WSL distribution's host its build decides GPU access)",
    "gpu-unused-said": "the reporter says the program does not use or find the GPU",
    "gpu-idle-said": "the reporter says the GPU sits (near) idle while the program runs: its load under 10 %, or the work on the CPU",
    "gpu-reached-said": "the reporter says nvidia-smi answers inside the container or pod the program runs in",
    "gpu-reached-elsewhere-said": "the reporter says another Python on the machine (the global one, a base environment) reaches the GPU",
    "gpus-variable-said": "a gpus=/GPUS= variable line (an env file's), which docker compose does not read as a GPU request",
    "gpu-off-bus-said": "the reporter says the GPU falls off the bus (Xid 79 in the driver's words), no kernel log pasted",
}

_ARCH_WARNING = _Lazy(
    r"(?P<gpu>\S[^\n]{0,120}?) with CUDA capability sm_(?P<cc>\d{2,3}[a-z]?) is not compatible with the current PyTorch",
    re.IGNORECASE,
)
# PyTorch before 1.x: "Found GPU0 GeForce 820M which is of cuda capability 2.1. PyTorch no longer supports this GPU".
_OLD_GPU = _Lazy(
    r"Found GPU\d+ (?P<gpu>\S[^\n]{0,100}?) which is of cuda capability (?P<major>\d+)\.(?P<minor>\d+)", re.IGNORECASE
)
_ARCH_LIST = _Lazy(
    r"(?:current PyTorch install supports CUDA capabilities|supported CUDA capabilities are)\s*:?\s*\[?"
    r"(?P<archs>(?:'?(?:sm|compute)_\d{2,3}[a-z]?'?[\s,]*)+)",
    re.IGNORECASE,
)
_NO_KERNEL = _Lazy(r"no kernel image is available for execution on the device", re.IGNORECASE)
_SONAME = r"(?P<soname>[A-Za-z0-9_+.-]{1,100}?\.(?:so(?:\.\d+)*|dll|dylib))"
_LIB_MISSING = (
    _Lazy(_SONAME + r": cannot open shared object file"),
    # glibc's loader before an executable's main, as a title quotes it without its reason ("error while loading shared
    # libraries: libcudart.so.9.0", KlausT/ccminer#149; glibc elf/dl-error-skeleton.c's "%s: error while loading
    # shared libraries: %s%s%s" names the library first)
    _Lazy(r"error while loading shared libraries: " + _SONAME + r"(?=$|[\s:])"),
    _Lazy(r"Could not load dynamic library '" + _SONAME + r"'"),
    # (not where cuDNN 8's own line ends in Windows' 193, a file found that is no 64-bit image: catalogue.toml's
    # cudnn8-sublibrary-bad-image reads it)
    _Lazy(
        r"(?!Could not load library cudnn_(?:ops|cnn|adv)_(?:infer|train)64_8\.dll\.? Error code 193\b)"
        r"(?:Could not load library|Could not locate|Unable to load)\s+" + _SONAME + r"\b"
    ),
    # (also as a notebook's JSON error prints it, each quote escaped: Error loading \"c:\\...\\fbgemm.dll\" or ...)
    _Lazy(r"Error loading \\?\"[^\"\n]{0,300}[\\/]" + _SONAME + r"\\?\" or one of its dependencies"),
    _Lazy(r"cannot find -l(?P<stem>[A-Za-z0-9_+-]{1,60})\b"),
    # Paddle's loader, each name it tried in turn ("(cublas64_112.dll;cublas64_11.dll)"), the last the most general:
    # "The third-party dynamic library (%s) that Paddle depends on is not configured correctly. (error code is %s)"
    # (PaddlePaddle/Paddle, paddle/phi/backends/dynload/dynamic_loader.cc @f0ac0988).
    _Lazy(r"third-party dynamic library \((?:[A-Za-z0-9_+.-]{1,100};){0,8}" + _SONAME + r"\) that Paddle depends on"),
    # TensorRT's Python package on Windows, which looks for its DLLs on PATH itself: "Could not find: {:}. Is it on your
    # PATH?" (NVIDIA/TensorRT, python/packaging/tensorrt/__init__.py @b0c259a7).
    _Lazy(r"Could not find: " + _SONAME + r"\. Is it on your PATH\?"),
    # (the same raise quoted without its second sentence: FileNotFoundError names it, a DLL only)
    _Lazy(r"FileNotFoundError: Could not find: (?P<soname>[A-Za-z0-9_+.-]{1,100}?\.dll)\b"),
    # TensorRT's DynamicLibrary (trtexec and the samples), on Windows with no reason after the name: "Unable to open
    # library: " + mLibName + errorStr (NVIDIA/TensorRT, samples/common/common.h @a892d222; errorStr only off Windows).
    _Lazy(r"Unable to open library: (?P<soname>[A-Za-z0-9_+.-]{1,100}?\.dll)\b"),
    # ... and off Windows with dlerror()'s text after " due to ", which names the file the loader could not open first:
    # the library itself or a dependency of it ("Unable to open library: libnvinfer_plugin.so.8 due to libcudnn.so.8",
    # as a title or a summary quotes it without dlerror's reason; DDTRobot/tita_rl#2, NVIDIA/TensorRT#3061). A path
    # there ("due to /opt/.../libnvinfer_plugin.so.8: file too short") is a file found that does not load: not read.
    _Lazy(r"Unable to open library: [A-Za-z0-9_+.-]{1,100}?\.so(?:\.\d+)* due to " + _SONAME + r"(?=$|[\s:\"'”])"),
    # ONNX Runtime on Windows, naming the dependency LoadLibrary could not find: 'Error loading "X" which depends on "Y"
    # which is missing.', the chain walked to the first file missing, the last one named (microsoft/onnxruntime,
    # onnxruntime/core/platform/windows/dll_load_error.cc @27718fb8, DetermineLoadLibraryError), quoted or retyped without
    # its quotes (rembg#783: "onnxruntime_providers_cuda.dll which depends on cublasLt64_12.dll
    # which is missing"; deepbeepmeep/Wan2GP#1513, yalue/onnxruntime_go#124 quote it whole).
    _Lazy(r"which depends on \\?[\"']?(?P<soname>[A-Za-z0-9_+.-]{1,100}?\.dll)\\?[\"']? which is missing"),
)
# torch's own raise on Windows, err.strerror += f' Error loading "{dll}" or one of its dependencies.'
# (pytorch/pytorch, torch/__init__.py @ 2.4.0, _load_dll_libraries), as a log formatter that wraps at its column width
# prints it (rich's, in the kohya_ss and SD.Next launchers): "Error loading" ends one line, the quoted path starts the
# next, indented. _LIB_MISSING reads it on one line; this reads it with that break, where no line held it whole.
_DLL_WRAPPED = _Lazy(
    r"Error loading[ \t]{0,40}\r?\n[ \t]{0,200}\\?\"[^\"\n]{0,300}[\\/]" + _SONAME + r"\\?\"\s{1,200}or one of its dependencies"
)
# TensorFlow's dso loader looks for TensorRT's libnvinfer at import for its optional TF-TRT integration and goes on
# without it ("TF-TRT Warning: Could not find TensorRT", tensorflow/compiler/tf2tensorrt/utils/py_utils.cc @b42113ff;
# GetNvInferDsoHandle in tensorflow/tsl/platform/default/dso_loader.cc @d2b65574): that line is no missing library.
_TF_DSO_LINE = _Lazy(r"Could not load dynamic library '")
# JAX's xla_bridge tries every backend it knows at start-up and logs each one that does not initialise at INFO level;
# on a machine without TPUs the TPU one reads "Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so:
# libtpu.so: cannot open shared object file" on every GPU run (google-deepmind/alphafold3#656: "this warning can be
# safely ignored (when running AF3 on a GPU)"; google-deepmind/alphafold3#172: "They are just information level").
_JAX_TPU_PROBE = _Lazy(r"Unable to initialize backend 'tpu'")
# Paddle's cuDNN wrapper finding no handle ("Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.
# [Hint: cudnn_dso_handle should not be null.]", PaddlePaddle/Paddle paddle/phi/backends/dynload/cudnn.cc @1642ecf8,
# EnforceCUDNNLoaded): its loader dlopen()s cuDNN by the name libcudnn.so on Linux and found none (dynamic_loader.cc's
# own line, when printed, says "The third-party dynamic library (libcudnn.so) that Paddle depends on is not configured
# correctly": PaddlePaddle/Paddle#50195). Only a Linux build's source path after it (forward slashes): on Windows the
# library is a DLL.
_PADDLE_CUDNN_HANDLE = _Lazy(
    r"Cannot load cudnn shared library\. Cannot invoke method cudnn\w{0,40}\.?\s{0,200}\[Hint: cudnn_dso_handle should "
    r"not be null\.\] \(at [^)\s\\]{0,200}/dynload/cudnn\.cc"
)
_LIB_BECAUSE = _Lazy(
    r"Could not load library (?P<wanted>[A-Za-z0-9_+.-]{1,100}?\.so(?:\.\d+)*)\.? Error: "
    + _SONAME
    + r": cannot open shared object file"
)
_CUDNN_LOADED = _Lazy(
    r"Loaded runtime CuDNN library:\s*(?P<loaded>\d+(?:\.\d+)*)\s*(?:\(compatibility version [\d.]+\)\s*)?"
    r"but (?:the )?source was compiled with:?\s*(?P<compiled>\d+(?:\.\d+)*)",
    re.IGNORECASE,
)


def _cudnn_loaded_values(m: re.Match[str]) -> dict[str, str]:
    """The two versions of TensorFlow's "Loaded runtime CuDNN library" line, dotted. TensorFlow 1.x before 1.11 printed
    cudnnGetVersion() and CUDNN_VERSION as integers with their "compatibility version" (major*1000 + minor*100 from
    cuDNN 7 on) and refused any compatibility version but the compiled one, an equal major.minor: "Loaded runtime CuDNN
    library: 7103 (compatibility version 7100) but source was compiled with 7005 (compatibility version 7000)"
    (qianguih/voxelnet#50 and LeoCHANGcn/Nvidia-docker-Ubuntu-16.04-Unity-Desktop-TensorFlow-with-GPU#1, each fixed by
    cuDNN 7.0.5, the compiled minor; tensorflow/models#5943). Later releases print dotted versions and accept an equal
    or higher minor ("CuDNN library needs to have matching major version and equal or higher minor version")."""
    loaded, compiled = m.group("loaded"), m.group("compiled")
    values = {"loaded": loaded, "compiled": compiled}
    if loaded.isdigit() and compiled.isdigit() and int(loaded) >= 1000 and int(compiled) >= 1000:
        values = {"loaded": cudnn_from_int(int(loaded)), "compiled": cudnn_from_int(int(compiled))}
    if "compatibility version" in m.group(0).lower():
        values["rule"] = "equal-minor"
    return values


_DRIVER_FOUND = _Lazy(r"NVIDIA driver on your system is too old\s*\(found version (?P<found>\d{4,6})\)", re.IGNORECASE)
_INSUFFICIENT = _Lazy(
    r"CUDA driver version is insufficient for CUDA runtime version|CUDA_ERROR_INSUFFICIENT_DRIVER"
    r"|cudaErrorInsufficientDriver",
    re.IGNORECASE,
)
# ImportError: /…/flash_attn_2_cuda…so: undefined symbol: _ZN3c104cuda9SetDeviceEi
# glibc's loader appends the symbol's version node when the reference is versioned (bminor/glibc elf/dl-lookup.c
# @557a76a9, _dl_lookup_symbol_x: make_string ("undefined symbol: ", undef_name, versionstr, versionname) with
# versionstr ", version "): `undefined symbol: cublasLtGetStatusString, version libcublasLt.so.11`.
_UNDEFINED_SYMBOL = _Lazy(
    r"undefined symbol:\s*(?P<symbol>[A-Za-z_][\w.$]{0,4000})(?:,\s*version\s+(?P<version>[A-Za-z_][\w.+-]{0,200}))?"
)
# The object named just before it ("/…/x.so: undefined symbol: …"), read from the last token before the match.
_SYMBOL_OBJECT = _Lazy(r"[^\s:'\"]{1,1000}\.so[\w.]{0,40}")
# Windows' loader, the same failure (NTSTATUS 0xC0000139 STATUS_ENTRYPOINT_NOT_FOUND, "The procedure entry point %hs
# could not be located in the dynamic link library %hs.", Microsoft's [MS-ERREF] 2.3.1): the name in MSVC's mangling.
# Reporters retype it from a dialog, so the name may hold spaces and "located" lose its "d".
_ENTRY_POINT = _Lazy(
    r"procedure entry point\s+(?P<symbol>\S[^\n]{0,300}?)\s+could not be located?\s+in the dynamic link library\s+"
    r"(?P<object>[A-Za-z]:\\[^\n\"<>|]{1,1000}?\.(?:pyd|dll))",
    re.IGNORECASE,
)
_MAX_UNDEFINED = 64  # distinct lines judged; a log repeating one a million times is one
_NOT_COMPILED = _Lazy(r"Torch not compiled with CUDA enabled", re.IGNORECASE)
_DETECTED = _Lazy(
    r"detected CUDA version \((?P<nvcc>\d+\.\d+)\) mismatches the version that was used to compile\s+PyTorch \((?P<torch>\d+\.\d+)\)",
    re.IGNORECASE,
)
_JAXLIB = _Lazy(
    r"jaxlib version (?P<jaxlib>\d+(?:\.\d+)+) is (?:newer|older) than and incompatible with jax version (?P<jax>\d+(?:\.\d+)+)",
    re.IGNORECASE,
)
_API_MISMATCH = _Lazy(
    r"NVRM: API mismatch: the client(?: '[^'\n]{0,80}' \(pid \d+\))?(?:\s|#012|NVRM:)*has the version (?P<client>\d+(?:\.\d+)+), "
    r"but(?:\s|#012|NVRM:)*this kernel module has(?:\s|#012|NVRM:)*the version (?P<kernel>\d+(?:\.\d+)+)",
    re.IGNORECASE,
)
_FALLEN = _Lazy(r"NVRM: .{0,80}(?:GPU has fallen off the bus|Xid \(PCI:[^)]{1,40}\): 79\b)", re.IGNORECASE)
_NOUVEAU = _Lazy(r"\bnouveau [0-9a-f:.]{7,16}: (?:NVIDIA|DRM:|fb:)", re.IGNORECASE)
_SMI_NOT_FOUND = _Lazy(
    r"nvidia-smi:? (?:command not found|not found)|'nvidia-smi' is not recognized as an internal or external command"
    r"|The term 'nvidia-smi' is not recognized",
    re.IGNORECASE,
)


_PLUGIN_INCOMPATIBLE = _Lazy(
    r"JAX plugin (?P<plugin>jax_cuda\d+_(?:plugin|pjrt)) version (?P<version>\d+(?:\.\d+)+) is installed,\s+but it is not "
    r"compatible with the installed jaxlib version (?P<jaxlib>\d+(?:\.\d+)+)"
)
# pip's resolver collecting the torch another requirement pins (pypa/pip src/pip/_internal/operations/prepare.py
# @6d309205: message = "Collecting %s", then `information += f" (from {comes_from})"`): the package being installed
# requires that torch exactly, and pip replaces the installed one with it. And pip taking a torch away
# (src/pip/_internal/req/req_install.py: "Found existing installation: %s"; req_uninstall.py: "Successfully
# uninstalled %s"): the torch that was there before.
_PIP_TORCH_PINNED = _Lazy(
    r"^\s*Collecting torch==(?P<torch>\d+\.\d+(?:\.\d+)?(?:\+\w+)?)\s+\(from (?P<package>[A-Za-z0-9][\w.-]{0,80}?)"
    r"(?:\[[^\]]{0,80}\])?==(?P<version>\d[\w.+!]{0,40})\)"
)
_PIP_TORCH_REMOVED = _Lazy(
    r"^\s*(?:Successfully uninstalled torch-|Found existing installation: torch\s+)(?P<torch>\d+\.\d+(?:\.\d+)?(?:\+\w+)?)\s*$"
)
# pip's check after an install, for any package (pypa/pip src/pip/_internal/commands/install.py @6d309205,
# _warn_about_conflicts: "{name} {version} requires {requirement}, but {you} have {dep_name} {dep_version} which is
# incompatible." and f"{project_name} {version} requires {dependency[1]}, which is not installed."; older pip: "X 1.0 has
# requirement Y<2, but you'll have Y 2.1 which is incompatible.", as the catalogue's companion entry reads it too). The requirement is pip's str() of it: a name, its specifiers joined by
# commas, a marker after "; ". The one conflict of a torch companion with torch is the catalogue's own
# (pip-companion-requires-other-torch); the checks tell the two apart.
_PIP_CONFLICT = _Lazy(
    r"(?<![\w.-])(?P<requirer>[A-Za-z0-9][\w.-]{0,80}) (?P<version>\d[\w.+!-]{0,40}) (?:requires|has requirement) "
    r"(?P<requirement>[A-Za-z0-9][^\n]{0,200}?)(?:, but you(?:'ll| will)? have (?P<package>[A-Za-z0-9][\w.-]{0,80}) "
    r"(?P<have>\d[\w.+!-]{0,40}?),? which is incompatible|, which is not installed)"
)
# A program's own statement of the release of a system component it needs, a floor and no more: "Please upgrade to CUDA
# 12.6.3 or newer." (openxla/xla, ptx_compiler_helpers.cc's ptxas warning, as JAX prints it), "The minimum required
# Nvidia driver for nvenc is 418.30 or newer" (FFmpeg's libavcodec/nvenc.c), "requires CUDA 11.8 or later". Read for the
# driver, the CUDA toolkit and cuDNN, whose installed versions the facts carry; the checks judge it against them
# (gpudoctor.checks.stated): a floor the versions shown meet is no fault.
_STATED_SUBJECT = r"(?P<subject>(?:NVIDIA |Nvidia )?(?:GPU )?driver|CUDA(?: toolkit| Toolkit)?|cuDNN)"
_STATED_FLOOR = _Lazy(
    r"\b(?:requires?|upgrade to|needs?)\s(?:(?:a|an|the|at least)\s)?" + _STATED_SUBJECT + r"\s(?:version\s)?"
    r"(?P<need>\d+(?:\.\d+){1,3})\s(?:or\s(?:newer|later|higher|above|greater)|and (?:newer|later|above))",
    re.IGNORECASE,
)
# The reporter's own sentence ("I read that it requires CUDA 11.8 or newer"): what they were told, not the program's line.
_FIRST_PERSON = _Lazy(r"\b(?:I|I'm|I've|we|my|our)\b")
_STATED_MINIMUM = _Lazy(
    r"\bminimum required " + _STATED_SUBJECT + r"(?: version)?(?: for \S{1,40})? is (?P<need>\d+(?:\.\d+){1,3})",
    re.IGNORECASE,
)
# The same floor written as a comparison ("requires CUDA driver version >= 12.0", "needs cuDNN >= 8.6", "requires NVIDIA
# driver version >= 525.60.13"), or as the refusal of an older one ("Driver Not Supported: your driver is older than
# 535"). "CUDA driver" names the CUDA the driver supports (what nvidia-smi heads "CUDA Version"), not a driver release:
# read as its own component, judged against the driver's CUDA. A capability ("minimum required Cuda capability is 3.0"),
# a CMake find ('found suitable version "10.1", minimum required is "7.5"') name no subject here and are not read.
_STATED_AT_LEAST = _Lazy(
    r"\b(?:requires?|needs?)\s(?:(?:a|an|the)\s)?(?P<subject>(?:NVIDIA |Nvidia )?(?:GPU )?driver|CUDA driver|CUDA"
    r"(?: toolkit| Toolkit)?|cuDNN)\s(?:version\s)?(?:>=|\u2265)\s?(?P<need>\d+(?:\.\d+){1,3})\b",
    re.IGNORECASE,
)
# Omniverse Kit's driver check (its gpu.foundation plugin, as isaac-sim/IsaacLab#4244 quotes it: "The currently installed
# NVIDIA graphics driver is unsupported or has known issues. ... Installed driver: 535.18 / The unsupported driver range:
# [0.0, 535.129)"): the range's open end is the least release it runs on.
_STATED_RANGE = _Lazy(
    r"\bThe unsupported (?P<subject>driver) range: \[\d{1,3}(?:\.\d{1,3}){0,2}, (?P<need>\d{3}(?:\.\d{1,3}){0,2})\)"
)
_STATED_OLDER = _Lazy(
    r"\b(?P<subject>(?:NVIDIA |Nvidia |GPU )?driver)(?: version)? is older than (?:the )?(?:required |minimum )?"
    r"(?:version )?(?P<need>\d{3}(?:\.\d{1,3}){0,2})\b",
    re.IGNORECASE,
)
# JAX's CUDA plugin (the jax-cudaNN-plugin wheel, importable as jax_plugins.xla_cudaNN) calls jaxlib's Python API
# from its initialize() (jax-ml/jax, jax_plugins/cuda/__init__.py @fdaf7b68: `from jax._src.lib import xla_client`,
# then `xla_client.register_custom_type_id_handler(`): a traceback whose frame in the plugin's __init__.py is a call
# into xla_client / xla_extension / jaxlib, or ends on an AttributeError or ImportError naming one of them, is a
# plugin of a later release than the installed jaxlib (the API it calls is not there yet).
_PLUGIN_FRAME = _Lazy(r'File "[^"\n]{0,300}?jax_plugins[/\\](?P<plugin>xla_cuda\d{2})[/\\]__init__\.py", line \d+')
_JAXLIB_API = _Lazy(
    r"^\s*(?:[\w.]+\s*=\s*)?(?:xla_client|xla_extension|_xla|jaxlib(?:\.\w+)*)\.\w+\s*\("
    r"|\b(?:AttributeError: module '(?:jaxlib|jax\._src\.lib)[\w.]*' has no attribute"
    r"|ImportError: cannot import name '\w+' from '(?:jaxlib|jax\._src\.lib)[\w.]*')"
)


def _plugin_api_missing(lines: list[str]) -> tuple[str, str] | None:
    """(the plugin's frame line, its module xla_cudaNN) where JAX's CUDA plugin failed on a jaxlib API, else None."""
    for i, line in enumerate(lines):
        # (the frame's folder as plain text first: the pattern runs only on the lines that hold it)
        frame = _PLUGIN_FRAME.search(line[:2_000]) if "jax_plugins" in line[:2_000] else None
        if frame is None:
            continue
        for after in lines[i + 1 : i + 6]:
            if 'File "' in after:
                break
            if _JAXLIB_API.search(after[:2_000]):
                return line, frame.group("plugin")
    return None


# JAX's own cuDNN checks: "Found cuDNN version 8600, but JAX was built against version 8906, which is newer", and
# "Outdated cuDNN installation found. Version JAX was built against: 8907 Minimum supported: 9100 Installed version: 8907".
_JAX_CUDNN = _Lazy(r"Found cuDNN version (?P<loaded>\d{4,5}), but JAX was built against version (?P<compiled>\d{4,5})")
_JAX_CUDNN_OUTDATED = _Lazy(
    r"Outdated cuDNN installation found\.?\s+(?:Version JAX was built against:\s*\d{4,5}\s+)?"
    r"Minimum supported:\s*(?P<compiled>\d{4,5})\s+Installed version:\s*(?P<loaded>\d{4,5})"
)
# TensorFlow's cuda_diagnostics: "kernel version 440.64.0 does not match DSO version 418.87.1", after cuInit's
# CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (a forward-compatibility libcuda, or a driver upgraded without a reboot).
_LIBCUDA_MISMATCH = _Lazy(
    r"kernel version (?P<kernel>\d+(?:\.\d+)+) does not match DSO version (?P<client>\d+(?:\.\d+)+)|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"
    # the runtime's text of the same error (cudaErrorSystemDriverMismatch, 803), as PyTorch's warning quotes it
    r"|system has unsupported display driver / cuda driver combination"
)
# PyTorch's own check: "cuDNN version incompatibility: PyTorch was compiled against (8, 3, 2) but linked against (8, 0, 3)".
_TORCH_CUDNN = _Lazy(
    r"cuDNN version incompatibility: PyTorch was compiled\s+against \((?P<compiled>\d+, \d+, \d+)\) but (?:found runtime version|linked against) \((?P<loaded>\d+, \d+, \d+)\)"
)
# The same check before PyTorch printed tuples: the versions as cudnnGetVersion() integers (major*1000 + minor*100 +
# patch). PyTorch 0.2 to 0.4 said "mismatch" and refused any other major.minor, a newer minor too (pytorch/pytorch#1586,
# "Check cuDNN version at runtime": `if (__cudnn_version // 100) != (compile_version // 100): raise RuntimeError('cuDNN
# version mismatch: PyTorch was compiled against {} but linked against {}')`; threads: pytorch/pytorch#5369 "compiled
# against 6021 but linked against 5110", xingyizhou/CenterNet#119 "7102 ... 7301", fixed by conda install cudnn=7.1.2).
# PyTorch 1.0 and later say "incompatibility" and, from cuDNN 7 on, accept the same major with an equal or newer minor
# (torch/backends/cudnn/__init__.py: "Starting with cuDNN 7, minor versions are backwards-compatible"; thread:
# akanimax/T2F#6, PyTorch 1.0.0 "compiled against 7401 but linked against 7301"). Reporters retype it in titles ("link
# against", "Pytorch").
_TORCH_CUDNN_INT = _Lazy(
    r"cuDNN version (?P<word>mismatch|incompatibility)\s*:\s*PyTorch was compiled\s+against (?P<compiled>\d{4,5}) "
    r"but link(?:ed)? against (?P<loaded>\d{4,5})\b",
    re.IGNORECASE,
)
_MODULE_MISSING = _Lazy(r"modprobe: FATAL: Module nvidia\S* not found|Module nvidia not found in directory /lib/modules/")
_TORCH_OOM = _Lazy(
    r"Tried to allocate [\d.]+ [KMG]iB \(GPU (?P<gpu>\d+); (?P<total>[\d.]+) (?P<tu>[KMG]iB) total capacity; "
    r"[\d.]+ [KMG]iB already allocated; (?P<free>[\d.]+) (?P<fu>[KMG]iB) free; (?P<reserved>[\d.]+) (?P<ru>[KMG]iB) reserved"
)
# The same message from PyTorch 2.1 on (c10/cuda/CUDACachingAllocator.cpp @eb42ad6e): "... GPU 0 has a total capacity of
# 7.92 GiB of which 27.38 MiB is free. [Process N has X memory in use. ][Including non-PyTorch memory, this process has X
# memory in use. ]Of the allocated memory 7.11 GiB is allocated by PyTorch, and 257.90 MiB is reserved by PyTorch but
# unallocated." PyTorch's own share is allocated plus reserved-but-unallocated; some 2.1 builds spell "capacty", and
# format_size writes sizes under 1 KiB in bytes ("0 bytes is free"). "Process N has" may be this very process (in a
# container NVML lists it by the host's pid), so only the figures decide what others hold.
_TORCH_OOM_NEW = _Lazy(
    r"Tried to allocate [\d.]+ (?:bytes|[KMG]iB)\. GPU (?P<gpu>\d+) has a total capac(?:i)?ty of (?P<total>[\d.]+) "
    r"(?P<tu>bytes|[KMG]iB) of which (?P<free>[\d.]+) (?P<fu>bytes|[KMG]iB) is free\..{0,2000}?Of the allocated memory "
    r"(?P<alloc>[\d.]+) (?P<au>bytes|[KMG]iB) is allocated by PyTorch,.{0,200}? and (?P<unalloc>[\d.]+) "
    r"(?P<uu>bytes|[KMG]iB) is reserved by PyTorch but unallocated"
)
_DOCKER_RUN = _Lazy(r"\bdocker\s+run\b(?P<args>[^\n]{0,400})")
# A `pip install ...` the reporter ran, as a command line of its own (a shell prompt before it at most, `python -m pip` or
# `pip`/`pip3`; in a notebook cell, after IPython's shell escape `!` or its `%pip` magic, which install the same way):
# never a message's advice ("run pip install x"), which stands inside a sentence.
_PIP_INSTALL = _Lazy(
    r"^\s*(?:\([\w.-]{1,60}\)\s*)?(?:[\w@.:~/-]{0,80}[$#>]\s+|(?:PS\s+)?[A-Za-z]:\\[^<>|\n]{0,160}>\s*)?"
    r"(?:[!%][ \t]{0,2})?(?:python[\d.]*\s+-m\s+)?pip[\d.]*\s+install\b(?P<args>[^\n]{0,400})"
)
# A `conda install ...` (mamba's, micromamba's) the reporter ran: a command line of its own (a prompt before it at most)
# or an inline code span in a sentence ("I ran `conda install -c pytorch pytorch=1.9.0 cudatoolkit=11.3`"), never the
# words in running prose.
_CONDA_INSTALL = _Lazy(
    r"(?:^\s*(?:\([\w.-]{1,60}\)\s*)?(?:[\w@.:~/-]{0,80}[$#>]\s+|(?:PS\s+)?[A-Za-z]:\\[^<>|\n]{0,160}>\s*)?|`)"
    r"(?:conda|mamba|micromamba)\s+install\b(?P<args>[^`\n]{0,400})"
)
# `docker compose up` (the plugin) or `docker-compose up` (the old binary), with the first service it names where its
# options are plain flags: the service a compose fix recreates.
_COMPOSE_UP = _Lazy(r"\bdocker[- ]compose\s+up\b(?:\s+-{1,2}[\w-]{1,40})*(?:\s+(?P<service>[a-z0-9][\w.-]{0,62}))?")
# `--gpus 0`: docker's --gpus reads a bare number as a count (docker/cli opts/gpus.go, parseCount), so this asks for
# no GPU at all; the first GPU is `--gpus device=0`. A reporter writes it meaning GPU 0.
_GPUS_ZERO = _Lazy(r"(?:^|\s)--gpus(?:\s+|=)(?:count=)?0(?=\s|$|`)")
# An image whose tag names a CPU build (text-embeddings-inference:cpu-1.5, name:2.1-cpu, name:latest-cpu).
_CPU_IMAGE = _Lazy(
    r"(?:^|\s)(?P<image>[\w.-]{1,100}(?:/[\w.-]{1,100}){0,4}:(?:[\w.]{1,40}[-_])?cpu(?:[-_.][\w.-]{0,40})?)(?=\s|$)",
    re.IGNORECASE,
)
_JAXLIB_CPU = _Lazy(r"CUDA-enabled jaxlib is not installed\. Falling back to cpu", re.IGNORECASE)
_PJRT = _Lazy(
    r"Mismatched PJRT plugin PJRT API version|Unexpected PJRT_\w+ size|plugin is likely built with a (?:later|newer) version"
)
_CONTAINER_CUDA = _Lazy(r"requirement error: unsatisfied condition: cuda\s*>=?\s*(?P<cuda>\d+\.\d+)", re.IGNORECASE)
# The same message cut short inside its condition where the paste ends ("... unsatisfied condition: cu", a stored copy
# or a terminal cut at the end): the hook's conditions are cuda, driver, arch and brand (NVIDIA/libnvidia-container
# src/cli/configure.c @e27a4a75, its `rules[]`), so a condition cut after "c" or "cu" is the CUDA one, its version
# unread. Only at the very end of the text (a fence or quote after it allowed):
# anywhere else the words that follow are the message's own.
_CONTAINER_CUDA_CUT = _Lazy(
    r"requirement error: unsatisfied condition: c(?:u(?:da?)?)?(?:\s*>=?\s*(?:\d+\.?)?)?[\s`'\"\\]*\Z", re.IGNORECASE
)
# nvidia-smi's header quoted, or the version said in prose ("I am running CUDA 11.7 and driver version 472.12").
# nvidia-smi's header, or the driver named with its version in prose: "driver version is 535.54", "NVIDIA Graphics
# Driver 388.73" (the name NVIDIA's Windows installer and Control Panel give it), "nvidia driver 470.82.01".
_DRIVER_SAID = _Lazy(
    r"(?:Driver Version:\s*|(?i:\bdriver version\s+(?:is\s+)?)"
    r"|(?i:\b(?:NVIDIA|GeForce|Quadro)(?:\s+Graphics)?\s+driver\s+(?:version\s+)?(?:is\s+)?v?)"
    # "with driver 470.103.01", "driver: 531.18" in running text, "Driver==515.86.01" in a list written as pip's pins: a
    # driver's three-digit branch and its build
    r"|(?i:\bdriver[ \t]*(?:==?|:)?[ \t]*v?(?=\d{3}\.\d))"
    # a GPU with its driver in brackets, as reporters list their machine ("GPU: RTX 3080 (531.18)")
    r"|(?i:\b(?:RTX|GTX|Quadro|Tesla)[ \t-]*[A-Z]{0,2}\d{2,4}(?:[ \t]+(?:Ti|SUPER))?[ \t]*\((?:driver[ \t]+)?v?(?=\d{3}\.\d{2,3}(?:\.\d{2,3})?\))))"
    r"(?P<version>\d{3}\.\d{2,3}(?:\.\d{2,3})?)\b"
)
# The driver in the reporter's own words where _DRIVER_SAID's forms are not used: "I have driver 535", "my nvidia
# driver is 470.x", "driver version: 551.76", "updated the driver to 551.86". The word driver, then only joining words
# (version, is, was, to, now, currently, a colon or an equals sign), then a driver's shape: a three-digit branch,
# optionally .minor(.patch) of two or three digits, or the branch with ".x"/".xx". A CUDA version ("driver version: 12.2"),
# a package's ("driver and torch 2.1.0", "nvidia-driver-535", a package name with the word in it) or a number of
# another unit ("driver uses 535 MB") is none; nor a requirement ("requires driver 470 or later").
_DRIVER_PROSE = _Lazy(
    r"(?i:(?<![\w-])(?:(?:nvidia|geforce|quadro|gpu)[ \t]+)?drivers?(?:'s)?"
    r"(?:[ \t]*(?:\bversion\b|\bis\b|\bwas\b|\bto\b|\bnow\b|\bcurrently\b|:|==?)){0,3}[ \t]*[vr]?)"
    r"(?P<version>\d{3}(?:\.\d{2,3}(?:\.\d{2,3})?)?)(?P<x>\.[xX*]{1,2})?"
    # (nor one of several tried: "change the driver version to 451 or 426"; a sentence's full stop after it is no part of
    # it: "my CUDA driver is 570.133.20.", NVIDIA/cutlass#2866)
    r"(?![\w%\-+]|\.(?=\w)|[ \t]*(?i:MB|MiB|GB|GiB|W|MHz|or[ \t]+(?:later|newer|higher|above|greater)|and[ \t]+(?:later|newer|above)"
    r"|(?:or|,|/)[ \t]*\d))"
)
_REQUIRED = _Lazy(r"(?i:requir|\bneeds?\b|minimum|at least|>=|\u2265)")


# The reporter saying, in the first person, which CUDA toolkit they installed ("I have managed to install CUDA 11.8 and
# cudnn 8.6", "I installed the CUDA Toolkit 12.1"): that toolkit's version. "install" must be followed by CUDA itself:
# "installed torch with CUDA 11.8" names a framework's build, not a toolkit.
_TOOLKIT_SAID = _Lazy(
    r"\b(?:I|I've|we|we've)\b[^.\n]{0,40}?\binstall(?:ed)?\s+(?:the\s+)?CUDA(?:\s+Toolkit)?\s+v?(?P<cuda>\d{1,2}\.\d)\b",
    re.IGNORECASE,
)
# "I have CUDA version 12.3", "I'm using CUDA 12.1": a CUDA the reporter has, without saying whose (a toolkit's or
# the driver's, as nvidia-smi shows it): only where a toolkit is the question (a CUDA_PATH folder that is not there).
_HAVE_SAID = _Lazy(
    r"\b(?:I\s+have|I've\s+got|I\s+am\s+using|I'm\s+using|I\s+use)\s+(?:the\s+)?CUDA(?:\s+Toolkit)?\s+(?:version\s+)?"
    r"v?(?P<cuda>\d{1,2}\.\d)\b",
    re.IGNORECASE,
)
# The same, told other ways: a toolkit named as installed after its version ("on a system with CUDA 13.0 installed",
# onnxruntime's cublasLt64_12.dll missing in danielgatis/rembg#783), and a major alone in the first person ("it wants
# cuda 12 but i have cuda 13", deepbeepmeep/Wan2GP#1513): a CUDA of two digits with no minor after it. "with CUDA 11.8"
# without "installed" is a framework's build ("torch built with CUDA 11.8"), not read.
_HAVE_SAID_MORE = _Lazy(
    r"\bwith\s+(?:the\s+)?CUDA(?:\s+Toolkit)?\s+v?(?P<cuda>\d{1,2}\.\d)(?:\.\d{1,3})?\s+(?:already\s+)?installed\b"
    r"|\b(?:I\s+have|I've\s+got)\s+(?:the\s+)?CUDA(?:\s+Toolkit)?\s+(?:version\s+)?v?(?P<major>\d{2})(?![\d.]|\s*(?:GB|MB))",
    re.IGNORECASE,
)
# Paddle's first GPU log line, "Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.5, Runtime
# API Version: 11.2" (PaddlePaddle/Paddle, paddle/phi/backends/gpu/gpu_resources.cc @57462fd6): the runtime is the CUDA
# whose libraries that Paddle loads (cudaRuntimeGetVersion). The compute capability it prints first is the GPU's own
# (paddle/phi/backends/gpu/gpu_context.cc @005ad638: "GPU Compute Capability: " << compute_capability_ / 10 << ".").
_RUNTIME_SAID = _Lazy(
    r"(?:GPU Compute Capability:\s*(?P<capability>\d{1,2}\.\d),\s*Driver API Version:\s*\d{1,2}\.\d,\s*)?"
    r"Runtime API Version:\s*(?P<cuda>\d{1,2}\.\d)\b"
)
# Windows' build as `ver` prints it ("Microsoft Windows [Version 10.0.19042.1052]") and as winver and Settings' About
# page write it ("Version 1909 (OS Build 18363.1256)"), the form reporters copy from those windows.
_WINDOWS_BUILD = _Lazy(
    r"Microsoft Windows \[Version 10\.0\.(?P<build>\d{5})(?:\.\d+)?\]|\(OS Build (?P<osbuild>\d{5})(?:\.\d+)?\)", re.IGNORECASE
)
_WSL_BLOCKED = _Lazy(r"GPU access blocked by the operating system", re.IGNORECASE)
# A package an installed-package listing names, with its version: apt's `apt list --installed` ("name/suite,now VERSION
# ARCH [installed...]", Debian/apt apt-private/private-output.cc @6b128124: _("[installed]")) and dpkg's `dpkg -l` rows
# ("ii  name[:arch]  VERSION  ARCH  description"). Only NVIDIA's and CUDA's packages are kept (the caller's filter).
_APT_INSTALLED = _Lazy(r"^\s*(?P<package>[a-z0-9][a-z0-9.+-]{0,80})/\S{0,120}\s+(?P<version>[\w.+:~-]{1,80})\s+\w+\s+\[installed")
_DPKG_ROW = _Lazy(r"^\s*ii\s+(?P<package>[a-z0-9][a-z0-9.+-]{0,80})(?::\w+)?\s+(?P<version>\d[\w.+:~-]{0,80})\s+\w+\s")
_NVIDIA_PACKAGE = _Lazy(r"nvidia|cuda|nvcuvid")
_LINUX_DRIVER_PKG = _Lazy(
    r"\b(?:apt|apt-get|dnf|yum)\s+(?:-y\s+)?install\b[^\n]{0,120}?\b(?P<package>nvidia-(?:utils|driver|dkms|kernel-source|headless)-\d{3}\S*|nvidia-driver\b|cuda-drivers\b)"
)
# The REPL's answer on the next line, after its prompt, or written as a comment ("# false is returned",
# "-> False"), the query quoted as code first ("`torch.cuda.is_available() `" with "false" on the next line:
# tests/blind/pasted/cases/016-*). The separators are disjoint alternatives, so a long run of them cannot backtrack.
_ANSWER = r"\)?(?:\s|>>>|Out\[\d+\]:|#|->|=>|:|`)*(?:(?:returns?|is|gives|prints?|outputs?)\s+)?[`'\"]?False\b"
_CUDA_UNAVAILABLE = _Lazy(r"cuda\.is_available\(\)" + _ANSWER, re.IGNORECASE)
# The same question answered True: a framework in the interpreter it ran in reaches the GPU (the driver answers there,
# and nothing in that environment hides the GPU from it).
_CUDA_ANSWERED_TRUE = _Lazy(r"cuda\.is_available\(\)" + _ANSWER.removesuffix(r"False\b") + r"True\b", re.IGNORECASE)
# collect_env's own answer for the interpreter it ran in (python -m torch.utils.collect_env), or a script printing the
# same answer under its own label ("CUDA available: True", "CUDA AVAILABLE:" with True on the next line).
# `nvidia-smi topo -m`'s rows (GPU0 X PXB SYS ...), a pair linked through PCIe switches only (PIX, PXB), and the
# reporter saying P2P hangs where NCCL_P2P_DISABLE=1 works around it: ACS or the IOMMU redirecting peer-to-peer
# traffic (NCCL's troubleshooting guide, "PCI Access Control Services (ACS)").
_TOPO_ROW = _Lazy(r"^[ \t]*GPU\d+[ \t]+(?:(?:X|PIX|PXB|PHB|NODE|SYS|NV\d+)[ \t]+){2,}[^\n]*$", re.MULTILINE)
_TOPO_PCIE_SWITCH = _Lazy(r"\b(?:PIX|PXB)\b")
_P2P_DISABLE_HELPS = _Lazy(
    r"(?=[^\n]{0,300}\b(?:hang|hangs|hanging|hung|stuck|freez\w*)\b)[^\n]{0,300}NCCL_P2P_DISABLE=1[^\n]{0,300}"
    r"|[^\n]{0,300}NCCL_P2P_DISABLE=1[^\n]{0,200}\b(?:work\w*|fix\w*|help\w*|solv\w*)\b[^\n]{0,200}",
    re.IGNORECASE,
)
# Slurm's cgroup.conf as `cat` prints it (up to a fence, a prompt or a blank line): without ConstrainDevices=yes a job's
# CUDA_VISIBLE_DEVICES holds the node's global GPU indices (SchedMD/slurm src/plugins/gres/common/gres_common.c,
# common_use_local_device_index), which a container given only the job's /dev/nvidiaN does not have.
_CGROUP_CONF = _Lazy(r"\bcat\s+\S*cgroup\.conf[^\n]*\n(?P<body>(?:(?!```|➜|\$ |\S+@\S+[$#] )[^\n]+\n){1,60})")
_CONSTRAIN_DEVICES = _Lazy(r"^[ \t]*ConstrainDevices\s*=\s*yes\b", re.IGNORECASE | re.MULTILINE)
_CONSTRAIN_ANY = _Lazy(r"^[ \t]*Constrain\w+\s*=", re.IGNORECASE | re.MULTILINE)
_JOB_DEVICES = _Lazy(r"\bCUDA_VISIBLE_DEVICES\b|/dev/nvidia\d")
# (collect_env of torch 1.5 and before wrote its booleans as Yes and No: pretty_str's replace_bools(dct, true='Yes',
# false='No'), pytorch/pytorch torch/utils/collect_env.py; tests/blind/pasted/cases/001-*, quoted in a reply)
_CUDA_AVAILABLE_SAID = _Lazy(
    r"^[ \t]*(?:Is )?CUDA available[ \t]*:?[ \t]*(?:\r?\n[ \t]*)?(?:True|Yes)[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)
_TF_NO_CUDA = _Lazy(r"is_built_with_cuda\(\)" + _ANSWER, re.IGNORECASE)


# More lines than any paste: a text beyond it is read for blocks and messages up to here (as gpudoctor.pasted.blocks).
_MAX_LINES = 200_000


def _cut(line: str) -> str:
    return line.strip()[:300]


def extract_evidence(text: str) -> list[ErrorEvidence]:
    """Every recognised failure text in `text`, in order, each once per distinct value. Never raises."""
    bounded = _bounded(text)
    if bounded is None:
        return []
    out: list[ErrorEvidence] = []
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()

    def add(kind: str, line: str, **values: str) -> None:
        key = (kind, tuple(sorted(values.items())))
        if key not in seen:
            seen.add(key)
            out.append(ErrorEvidence(kind, _cut(line), tuple(sorted(values.items()))))

    # Each distinct line once, in the order first seen: every value is added once anyway, and no line's result
    # depends on another's, so a flood of repeated (or blank) lines costs one look.
    # (a line past 20,000 characters is a minified blob, not a message: its start is read)
    lines = [line[:20000] for line in dict.fromkeys(line for line in bounded.splitlines()[:_MAX_LINES] if line.strip())]
    # Each pattern is tried only on the lines that hold a text it requires (parsers.anchors): a whole log pasted is
    # tens of thousands of lines, most of which hold none.
    scan = Lines(lines)
    raw = bounded.splitlines()[:_MAX_LINES]
    for number, line in enumerate(lines):
        # The two patterns with a lazy run of up to 120 characters before their words are tried only on a line that
        # has those words: tried everywhere, they cost 120 steps per character of every long line (issue 30).
        capability = "capability" in line.lower()
        if capability and (m := scan.search(_ARCH_WARNING, number)):
            gpu = _product_name(m.group("gpu").strip().strip("'\"").split("UserWarning:")[-1].strip())
            add("arch-unsupported", line, gpu=gpu[-100:], capability=_cc(m.group("cc")))
        if capability and (m := scan.search(_OLD_GPU, number)):
            add("arch-unsupported", line, gpu=m.group("gpu").strip(), capability=f"{m.group('major')}.{m.group('minor')}")
        # The arch list may follow on the next line ("The current PyTorch install supports ...").
        if m := scan.search(_ARCH_LIST, number):
            archs = " ".join(re.findall(r"(?:sm|compute)_\d{2,3}[a-z]?", m.group("archs")))
            if archs:
                add("arch-list", line, archs=archs)
        if scan.search(_NO_KERNEL, number):
            add("no-kernel-image", line)
        # cuDNN's "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file":
        # the library the loader could not open is the one after "Error:", which the named one depends on.
        because = scan.search(_LIB_BECAUSE, number)
        for pattern in _LIB_MISSING:
            for m in pattern.finditer(line) if scan.may(pattern, number) else ():
                soname = m.groupdict().get("soname") or ""
                stem = m.groupdict().get("stem")
                side = {}
                if stem:
                    # ld's -lNAME: the link editor's search at build time, not the loader's (parsers.library_lines)
                    soname, side = f"lib{stem}.so", {"side": LINK}
                if because and soname == because.group("wanted") and because.group("wanted") != because.group("soname"):
                    continue
                if soname.startswith("libnvinfer") and scan.search(_TF_DSO_LINE, number):
                    continue  # TensorFlow's optional TensorRT (TF-TRT) looked for and did not find: no fault
                if soname.startswith("libtpu") and _JAX_TPU_PROBE.search(line):
                    continue  # JAX trying its TPU backend on a machine without TPUs: an INFO line, no fault
                if soname and not soname.startswith("."):
                    add("library-missing", line, soname=soname, **side)
        if m := scan.search(_CUDNN_LOADED, number):
            add("cudnn-version-mismatch", line, **_cudnn_loaded_values(m))
        if m := scan.search(_DRIVER_FOUND, number):
            add("driver-too-old-found", line, cuda=cuda_from_int(int(m.group("found"))))  # (PyTorch's "found version 11040")
        if scan.search(_INSUFFICIENT, number):
            add("cuda-driver-insufficient", line)
        if scan.search(_NOT_COMPILED, number):
            add("torch-not-compiled-with-cuda", line)
        if scan.search(_SMI_NOT_FOUND, number):
            add("nvidia-smi-not-found", line)
        if m := scan.search(_JAXLIB, number):
            add("jaxlib-jax-mismatch", line, jaxlib=m.group("jaxlib"), jax=m.group("jax"))
        if m := scan.search(_FALLEN, number):
            add("nvrm-fallen-off-bus", line)
        if scan.search(_NOUVEAU, number):
            add("nouveau-bound", line)
        if m := scan.search(_LIBCUDA_MISMATCH, number):
            add("libcuda-kernel-mismatch", line, **{k: v for k, v in m.groupdict().items() if v})
        if m := scan.search(_TORCH_CUDNN, number):
            # PyTorch names LD_LIBRARY_PATH at the message's end only where that variable is set ("one possibility
            # is that there is a conflicting cuDNN in LD_LIBRARY_PATH", or "Looks like your LD_LIBRARY_PATH contains
            # incompatible version of cudnn": torch/backends/cudnn/__init__.py, _init, since pytorch/pytorch#80877);
            # a terminal or a log prefix often wraps that end onto the next line.
            ending = " ".join(lines[number : number + 2])
            said = {"ld_library_path": "set"} if "LD_LIBRARY_PATH" in ending else {}
            add(
                "cudnn-version-mismatch",
                line,
                loaded=m.group("loaded").replace(", ", "."),
                compiled=m.group("compiled").replace(", ", "."),
                **said,
            )
        elif m := scan.search(_TORCH_CUDNN_INT, number):
            ending = " ".join(lines[number : number + 2])
            said = {"ld_library_path": "set"} if "LD_LIBRARY_PATH" in ending else {}
            if m.group("word").lower() == "mismatch":
                said["rule"] = "equal-minor"  # (PyTorch before 1.0: the same major.minor only)
            add(
                "cudnn-version-mismatch",
                line,
                loaded=cudnn_from_int(int(m.group("loaded"))),
                compiled=cudnn_from_int(int(m.group("compiled"))),
                program="PyTorch",
                **said,
            )
        if scan.search(_MODULE_MISSING, number):
            add("nvidia-module-missing", line)
        if m := scan.search(_TORCH_OOM, number):
            add(
                "torch-oom",
                line,
                gpu=m.group("gpu"),
                total=_bytes(m.group("total"), m.group("tu")),
                free=_bytes(m.group("free"), m.group("fu")),
                reserved=_bytes(m.group("reserved"), m.group("ru")),
            )
        elif m := scan.search(_TORCH_OOM_NEW, number):
            reserved = int(_bytes(m.group("alloc"), m.group("au"))) + int(_bytes(m.group("unalloc"), m.group("uu")))
            add(
                "torch-oom",
                line,
                gpu=m.group("gpu"),
                total=_bytes(m.group("total"), m.group("tu")),
                free=_bytes(m.group("free"), m.group("fu")),
                reserved=str(reserved),
                unallocated=_bytes(m.group("unalloc"), m.group("uu")),
            )
        if m := scan.search(_COMPOSE_UP, number):
            add("compose-up-said", line, **({"service": m.group("service")} if m.group("service") else {}))
        if m := scan.search(_DOCKER_RUN, number):
            # its plain words (given back in a plan), or none where the line has the shell's own syntax
            add("docker-run-said", line, **({"args": args} if (args := _docker_args(m.group("args"))) else {}))
        if "install" in line and (m := scan.search(_PIP_INSTALL, number)):
            # its plain words (a single-quoted one unquoted: the plan quotes it again), to run it again as data
            add("pip-install-said", line, **({"args": args} if (args := _pip_args(m.group("args"))) else {}))
        if "install" in line and (m := scan.search(_CONDA_INSTALL, number)):
            add("conda-install-said", line, **({"args": args} if (args := _pip_args(m.group("args"))) else {}))
        # (nvidia-docker's `nvidia-docker run` asks for the NVIDIA runtime itself: NVIDIA images' banner advises it)
        if (
            (m := scan.search(_DOCKER_RUN, number))
            and not line[: m.start()].endswith("nvidia-")
            and not re.search(
                r"--gpus|--runtime[= ]nvidia|--device[= ]\S*nvidia|NVIDIA_VISIBLE_DEVICES",
                m.group("args") + _continuation(raw, line),
            )
        ):
            add("docker-run-without-gpus", line)
        elif m and "--gpus" in m.group("args") and (image := _CPU_IMAGE.search(m.group("args"))):
            add("docker-run-cpu-image", line, image=image.group("image"))
        elif m and _GPUS_ZERO.search(m.group("args")):
            add("docker-run-gpus-zero", line)
        if "torch" in line and (m := scan.search(_PIP_TORCH_PINNED, number)):
            add("pip-torch-pinned-by", line, torch=m.group("torch"), package=m.group("package"), version=m.group("version"))
        if (
            m := (
                scan.search(_STATED_FLOOR, number)
                or scan.search(_STATED_MINIMUM, number)
                or scan.search(_STATED_AT_LEAST, number)
                or scan.search(_STATED_OLDER, number)
                or scan.search(_STATED_RANGE, number)
            )
        ) and not _FIRST_PERSON.search(line):
            subject, need = m.group("subject").lower(), m.group("need")
            # A driver's floor is a release (a three-digit branch: "requires CUDA Driver Version >= 418.39") or the CUDA
            # it must support ("Requires CUDA driver version >= 12.0"): told apart by the number's shape, not the words.
            component = (
                ("driver" if len(need.split(".")[0]) == 3 else "driver-cuda")
                if "driver" in subject
                else "cudnn"
                if "cudnn" in subject
                else "cuda"
            )
            # "... is older than 535": the program compared the release itself, a verdict where none is shown
            refused = {"refused": "1"} if "older than" in m.group(0).lower() else {}
            add("requirement-stated", line, component=component, need=need, **refused)
        if "requir" in line and (m := scan.search(_PIP_CONFLICT, number)):
            add("pip-requirement-conflict", line, **{k: v for k, v in m.groupdict().items() if v})
        if "torch" in line and (m := scan.search(_PIP_TORCH_REMOVED, number)):
            add("pip-torch-removed", line, torch=m.group("torch"))
        if scan.search(_JAXLIB_CPU, number):
            add("jaxlib-cpu-fallback", line)
        if scan.search(_PJRT, number):
            add("pjrt-plugin-mismatch", line)
        if m := scan.search(_DRIVER_SAID, number):
            add("driver-version-said", line, version=m.group("version"))
        elif (m := scan.search(_DRIVER_PROSE, number)) and not _REQUIRED.search(line[max(0, m.start() - 40) : m.start()]):
            if "." in m.group("version"):
                add("driver-version-said", line, version=m.group("version"))
            else:  # the branch alone ("driver 535", "470.x"): no version to compare, the newest CUDA it runs
                add("driver-branch-said", line, branch=m.group("version"))
        if m := scan.search(_TOOLKIT_SAID, number):
            add("cuda-toolkit-said", line, cuda=m.group("cuda"))
        elif m := scan.search(_HAVE_SAID, number):
            add("cuda-have-said", line, cuda=m.group("cuda"))
        elif m := scan.search(_HAVE_SAID_MORE, number):
            # (a major alone: its consumers read the major; none builds a toolkit's folder name from it)
            add("cuda-have-said", line, cuda=m.group("cuda") or m.group("major"))
        if m := scan.search(_RUNTIME_SAID, number):
            cc = {"capability": m.group("capability")} if m.group("capability") else {}
            add("cuda-runtime-said", line, cuda=m.group("cuda"), **cc)
        if m := scan.search(_WINDOWS_BUILD, number):
            add("windows-build", line, build=m.group("build") or m.group("osbuild"))
        if scan.search(_WSL_BLOCKED, number):
            add("wsl-gpu-blocked", line)
        if (m := scan.search(_APT_INSTALLED, number) or scan.search(_DPKG_ROW, number)) and _NVIDIA_PACKAGE.search(
            m.group("package")
        ):
            add("distro-package-installed", line, package=m.group("package"), version=m.group("version"))
        if m := scan.search(_LINUX_DRIVER_PKG, number):
            add("linux-driver-package", line, package=m.group("package"))
        code = classify_error_text(line) if scan.search(_MAYBE_NVML, number) else None
        if code is not None:
            values = {"code": code}
            version = extract_nvml_library_version(line)
            if version:
                values["nvml_version"] = version
            add("nvml", line, **values)
    # Messages wrapped over two lines (torch's cpp_extension, the NVRM API mismatch).
    # A terminal wraps long lines at a fixed width, even inside a word ("unsatisfied condi" / "tion: cuda >= 9.0"):
    # the container runtime's message is also looked for with the lines joined.
    joined = bounded[: 4 * 1024 * 1024].replace("\r", "").replace("\n", "")
    if not any(e.kind == "cudnn-version-mismatch" for e in out) and (m := _CUDNN_LOADED.search(joined)):
        add(
            "cudnn-version-mismatch",
            joined[max(0, m.start() - 60) : m.end()],
            **_cudnn_loaded_values(m),
        )
    # The driver library resolved to a toolkit's link-time stub, by the path a program printed for it (numba's "Mapped
    # libcuda.so paths:", ctypes' "PATH: undefined symbol"): parsers.library_lines reads the line.
    if stub := stub_libcuda_loaded(read_library_lines(bounded)):
        add("cuda-stub-library", stub.line, path=stub.path)
    held = {e.get("soname") for e in out if e.kind == "library-missing"}
    if "libcudnn.so" not in held and (m := _PADDLE_CUDNN_HANDLE.search(bounded[: 4 * 1024 * 1024])):
        start = bounded.rfind("\n", 0, m.start()) + 1
        add("library-missing", bounded[start : m.end()].strip()[:300], soname="libcudnn.so")
    for m in _DLL_WRAPPED.finditer(bounded[: 4 * 1024 * 1024]):
        if m.group("soname") not in held:
            start = bounded.rfind("\n", 0, m.start()) + 1  # (from its line's start: the error's own words before it)
            add("library-missing", " ".join(bounded[start : m.end()].split()), soname=m.group("soname"))
    spaced = bounded[: 4 * 1024 * 1024].replace("\n", " ")
    for pattern in (_JAX_CUDNN, _JAX_CUDNN_OUTDATED):
        if m := pattern.search(spaced):
            add(
                "cudnn-version-mismatch",
                m.group(0),
                loaded=cudnn_from_int(int(m.group("loaded"))),
                compiled=cudnn_from_int(int(m.group("compiled"))),
            )
    if m := _CONTAINER_CUDA.search(joined):
        add("container-requires-cuda", joined[max(0, m.start() - 60) : m.end()], cuda=m.group("cuda"))
    elif m := _CONTAINER_CUDA_CUT.search(joined.rstrip()):
        # (no cuda value: the version was cut away, and nothing may be filled in for it)
        add("container-requires-cuda", joined[max(0, m.start() - 60) : m.end()].rstrip())
    if m := _PLUGIN_INCOMPATIBLE.search(bounded[: 4 * 1024 * 1024].replace("\n", " ")):
        add("jax-plugin-incompatible", m.group(0), plugin=m.group("plugin"), version=m.group("version"), jaxlib=m.group("jaxlib"))
    if "jax_plugins" in bounded and (api := _plugin_api_missing(bounded.splitlines()[:_MAX_LINES])):
        add("jax-plugin-api-missing", api[0], plugin=api[1])
    for m in _CUDA_UNAVAILABLE.finditer(bounded[: 4 * 1024 * 1024]):
        add("cuda-unavailable", bounded[m.start() : m.end()].replace("\n", " "))
    # `nvidia-smi topo -m` with GPUs behind PCIe switches (PIX/PXB), whose P2P hangs and works with NCCL_P2P_DISABLE=1
    if (
        len(rows := _TOPO_ROW.findall(bounded[: 4 * 1024 * 1024])) >= 2
        and any(_TOPO_PCIE_SWITCH.search(r) for r in rows)
        and (said := _P2P_DISABLE_HELPS.search(bounded[: 4 * 1024 * 1024]))
    ):
        add("p2p-hang-behind-switch", said.group(0).strip(), gpus=str(len(rows)))
    # cgroup.conf shown whole (its Constrain* lines) without ConstrainDevices=yes, beside the GPUs a job was given
    if (
        (m := _CGROUP_CONF.search(bounded[: 4 * 1024 * 1024]))
        and _CONSTRAIN_ANY.search(m.group("body"))
        and not _CONSTRAIN_DEVICES.search(m.group("body"))
        and _JOB_DEVICES.search(bounded[: 4 * 1024 * 1024])
    ):
        add("slurm-devices-unconstrained", m.group(0).split("\n", 1)[0].strip())
    if m := _CUDA_ANSWERED_TRUE.search(bounded[: 4 * 1024 * 1024]):
        add("cuda-available-answered", bounded[m.start() : m.end()].replace("\n", " "))
    if m := _CUDA_AVAILABLE_SAID.search(bounded[: 4 * 1024 * 1024]):
        add("cuda-available-said", m.group(0).strip())
    for m in _TF_NO_CUDA.finditer(bounded[: 4 * 1024 * 1024]):
        add("tf-not-built-with-cuda", bounded[m.start() : m.end()].replace("\n", " "))
    for n, m in enumerate(_UNDEFINED_SYMBOL.finditer(bounded[: 4 * 1024 * 1024])):
        if n >= _MAX_UNDEFINED:
            break
        line = bounded[max(0, m.start() - 1000) : m.start()].rsplit("\n", 1)[-1]
        before = line.rstrip()
        token = re.split(r"[\s'\"(]", before[:-1] if before.endswith(":") else "")[-1]
        obj = token if _SYMBOL_OBJECT.fullmatch(token) else ""
        start = m.start() - len(line) + before.rfind(obj) if obj else m.start()
        versioned = {"version": m.group("version")} if m.group("version") else {}
        add("undefined-symbol", bounded[start : m.end()], symbol=m.group("symbol"), object=obj, **versioned)
    for n, m in enumerate(_ENTRY_POINT.finditer(bounded[: 4 * 1024 * 1024].replace("\n", " "))):
        if n >= _MAX_UNDEFINED:
            break
        add("undefined-symbol", m.group(0), symbol=m.group("symbol"), object=m.group("object"))
    for kind, line, values in cudnn_files_said(lines):
        add(kind, line, **values)
    for pattern, kind in ((_DETECTED, "cuda-version-detected-mismatch"), (_API_MISMATCH, "nvrm-api-mismatch")):
        for m in pattern.finditer(bounded[: 4 * 1024 * 1024]):
            line = bounded[m.start() : m.end()].replace("\n", " ")
            add(kind, line, **m.groupdict())
    return out


# A docker run line given back as a command: only plain words (options, an image, its command), at most 24 of them,
# and never a line with a shell's own syntax ($, quotes, pipes, redirections): those stay the reporter's to retype.
_DOCKER_WORD = _Lazy(r"[\w./:=@,+-]{1,200}")
_SHELL_SYNTAX = _Lazy(r"[$`\\'|;&<>()*?!{}\[\]]|\"[^\"]*\s[^\"]*\"")


def _continuation(raw: list[str], line: str) -> str:
    """The lines a shell command continues on after `line` (each line before them ending in a backslash, POSIX sh's
    line continuation; PowerShell's backtick and cmd.exe's caret alike), joined: the options a long `docker run` spreads
    over its next lines (`docker run --rm \\` then `--gpus all \\` ...) are the same command's. Empty where `line` is
    not continued."""
    if not line.rstrip().endswith(("\\", "`", "^")):
        return ""
    try:
        i = raw.index(line)
    except ValueError:
        return ""
    out: list[str] = []
    while raw[i].rstrip().endswith(("\\", "`", "^")) and i + 1 < len(raw) and len(out) < 60:
        i += 1
        out.append(raw[i])
    return " " + " ".join(out)


def _docker_args(args: str) -> str:
    """The arguments of `docker run ...` as space-separated plain words, or "" where the line is not only those. A
    command quoted inline in prose ends at its closing backtick (the sentence that goes on is not its arguments)."""
    args = args.split("`", 1)[0]
    words = args.strip().split()
    if not all(_DOCKER_WORD.fullmatch(w) for w in words) and not _SHELL_SYNTAX.search(args.strip().rstrip("`")):
        # plain double quotes around a plain value (-e CLI_ARGS="", -e "A=b") say that value and nothing else
        words = [w.replace('"', "") if w.count('"') % 2 == 0 else "" for w in words]
    if not words or len(words) > 24 or not all(_DOCKER_WORD.fullmatch(w) for w in words) or words[0].startswith("<"):
        return ""
    return " ".join(words)


def _pip_args(args: str) -> str:
    """The arguments of `pip install ...` as space-separated plain words (a word in single quotes with nothing of the
    shell's inside, unquoted), or "" where the line is not only those."""
    words = [
        w[1:-1] if len(w) > 2 and w[0] == w[-1] == "'" and "'" not in w[1:-1] else w for w in args.strip().rstrip("`").split()
    ]
    if not words or len(words) > 24 or not all(_DOCKER_WORD.fullmatch(w) for w in words) or words[0].startswith("<"):
        return ""
    return " ".join(words)


# Lines worth handing to classify_error_text (which looks for whole-message phrases).
_MAYBE_NVML = _Lazy(
    r"NVML|nvidia-smi|NVIDIA driver|GPU is lost|device handle for GPU|No devices (?:were )?found|CUDA-capable device|could not select device driver"
    r"|runtime name|CUDA driver version",
    re.IGNORECASE,
)


# Where the device's name starts when the message is quoted inside a sentence ("facing issue like NVIDIA GeForce RTX
# 5080 with CUDA capability ..."): PyTorch prints torch.cuda.get_device_name(), which starts with one of these words.
_BRAND = _Lazy(r"\b(?:NVIDIA|GeForce|Tesla|Quadro|TITAN)\b")


def _product_name(text: str) -> str:
    """The device name at the end of `text`: from the last run of brand words on, or `text` as it is without one."""
    starts = [m.start() for m in _BRAND.finditer(text)]
    if not starts:
        return text
    start = starts[-1]
    for earlier in reversed(starts[:-1]):
        # "NVIDIA GeForce RTX": a brand word right before the next one belongs to the same name.
        if not text[earlier:start].split()[1:]:
            start = earlier
        else:
            break
    return text[start:]


def _bytes(value: str, unit: str) -> str:
    return str(int(float(value) * {"bytes": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}[unit]))


def _cc(digits: str) -> str:
    """sm_86 -> 8.6, sm_120 -> 12.0 (a trailing family letter, sm_90a, is dropped)."""
    digits = digits.rstrip("abcdefghijklmnopqrstuvwxyz")
    return f"{digits[:-1]}.{digits[-1]}"
