"""Failure lines of the GPU stack that no catalogue entry knows, each with the component that failed.

The catalogue (catalogue.toml) and the fixed extractors (error_texts) read the messages whose meaning is known. A
paste can show a failure neither knows: the last line of a traceback, a loader's refusal, a CUDA error code, a
daemon's or a pod's error. Such a line is still evidence that something failed (issues 28 and 31: never a clean
bill over it), and its form says which component to ask about: the library the loader could not load or bind, the
DLL Windows refused, the Python module that raised, the daemon, the pod. Only lines that name the GPU stack are read
(a CUDA or NVIDIA library, cuDNN, cuBLAS, NCCL, NVML, TensorRT, a GPU); a program's own faults (out of memory, a
shape, an invalid device ordinal, an assertion) are never read here: the program, not the environment, explains
them (the catalogue's program-fault entries say what they mean).

Pure: lines in, ErrorEvidence of kind "gpu-stack-failure" out, with `form`, `component`, `component_kind`
(library, dll, module, package, daemon, pod, toolkit, runtime) and, where the line names it, `requirer` (the object that
needs the library).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor.lazypattern import LazyPattern
from gpudoctor.parsers.error_texts import ErrorEvidence

KIND = "gpu-stack-failure"
_MAX_LINE = 2000  # a longer line is a log's flood, not a failure line
_MAX_FOUND = 8  # the first few lines are the failure; the rest repeat it

# The GPU stack: CUDA's and NVIDIA's libraries by the stems of their sonames and DLLs (libcudart, cudnn64_8.dll,
# cublasLt64_12.dll, nvinfer), NVML, NCCL, TensorRT, and the words GPU and NVIDIA.
_GPU_STACK = LazyPattern(
    r"cuda|cudnn|cublas|cufft|curand|cusparse|cusolver|nccl|nvml|nvidia|nvrtc|nvinfer|tensorrt|cupti|nvjitlink|"
    r"nvcuvid|\bGPUs?\b|\bnvcc\b",
    re.IGNORECASE,
)
# A program's own faults: what it asked of a working GPU (memory, a shape, a device index it chose, its own assertion,
# a tensor on the wrong device). Never the environment's to explain (the catalogue's "program-fault" evidence,
# gpudoctor.checks.reported).
_PROGRAM_FAULT = LazyPattern(
    r"out of memory|OutOfMemory|\bOOM\b|ALLOC_FAILED|invalid device ordinal|device-side assert|illegal memory access|"
    r"misaligned address|size mismatch|\bshapes?\b|dimension|same device|Expected (?:all tensors|object of)|"
    r"AssertionError|IndexError|KeyError|TypeError|AttributeError|NameError|SyntaxError|ZeroDivisionError|"
    r"KeyboardInterrupt|no space left|bfloat16|\bdtype\b"
    # JAX tries every backend it knows and logs the ones this machine lacks ("Unable to initialize backend 'rocm'",
    # jax/_src/xla_bridge.py): no failure unless that backend was asked for
    r"|Unable to initialize backend '(?:rocm|tpu|metal|METAL)'",
    re.IGNORECASE,
)
# A line of a program's code (a comparison, a case label, a statement) or of a log below warning level (an INFO line's
# retry): it names an error without the error happening (tests/pasted/test_catalogue_cuda_errors.py's quiet lines).
_NOT_HAPPENING = LazyPattern(
    r"[=!]=|^(?:if|case|return|elif|else|while|for)\b|^#|//|[{;]\s*$|^\S*\s*(?:INFO|DEBUG|I\d{4})\b|\bretrying\b"
    # TensorFlow's own logger at warning level: it goes on without what it could not load (checks/reported._TF_WARNING)
    r"|\d: W \S+\.cc:\d+\]"
    # NCCL's own INFO level ("host:pid:tid [dev] NCCL INFO ..."): what it found and tried, its WARN lines are the failures
    r"|\bNCCL INFO\b",
    re.IGNORECASE,
)
_SONAME = r"[\w.+-]{1,120}?\.so(?:\.[\w]{1,12}){0,4}"


def _p(name: str) -> str:
    """A library's path or soname, as the loader prints it, in the group `name`."""
    return f"(?P<{name}>" + r"[^\s:'\"`(]{0,400}?" + _SONAME + ")"


# (form, pattern): the first that matches a line decides its component. Each form is named after what the line says.
_FORMS: tuple[tuple[str, LazyPattern], ...] = (
    # glibc's loader: "libcublas.so.11: symbol free_gemm_select version libcublasLt.so.11 not defined in file
    # libcublasLt.so.11 with link time reference" (the library found is another release than the one linked against)
    (
        "symbol-version",
        LazyPattern(_p("requirer") + r": symbol \S{1,300} version \S{1,120} not defined in file (?P<lib>" + _SONAME + ")"),
    ),
    # "libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by .../libcudnn_ops.so.9)"
    (
        "version-not-found",
        LazyPattern(
            _p("lib") + r": version [`'\u2018][^'\u2019`]{1,80}['\u2019] not found \(required by (?P<requirer>[^)\s]{1,400})\)"
        ),
    ),
    (
        "loading-shared-libraries",
        LazyPattern(r"(?P<requirer>[^\s:'\"`]{1,400}): error while loading shared libraries: (?P<lib>" + _SONAME + ")"),
    ),
    ("shared-object-not-opened", LazyPattern(_p("lib") + r": cannot open shared object file")),
    ("undefined-symbol", LazyPattern(_p("lib") + r": undefined symbol: \S")),
    (
        "library-not-loaded",
        LazyPattern(
            r"(?:could not|unable to|failed to|cannot|can't) (?:load|open|find|dlopen)(?: the)?(?: dynamic)?(?: shared)? "
            r"(?:library|libraries|module)[:\s]+['\"`]?(?P<lib>[\w.+-]{1,120}?\.(?:so(?:\.\w{1,12}){0,4}|dll|dylib))",
            re.IGNORECASE,
        ),
    ),
    (
        "windows-module",
        LazyPattern(
            r"WinError (?:126|127|193)|specified (?:module|procedure) could not be found|is not a valid Win32 application",
            re.IGNORECASE,
        ),
    ),
    ("linker", LazyPattern(r"\bld(?:\.\w+)?: cannot find -l(?P<lib>[\w+.-]{1,80})")),
    ("nvcc", LazyPattern(r"\bnvcc fatal\s*:")),
    ("daemon", LazyPattern(r"Error response from daemon: \S")),
    (
        "pod",
        LazyPattern(
            r"^\s*(?P<pod>[a-z0-9][a-z0-9.-]{0,252})\s+\d+/\d+\s+(?:CrashLoopBackOff|Error|ImagePullBackOff|ErrImagePull|"
            r"CreateContainerError|CreateContainerConfigError|RunContainerError|Init:\S+)\s"
            r"|\b(?:FailedScheduling|UnexpectedAdmissionError|FailedCreatePodSandBox|Back-off restarting failed container)\b"
        ),
    ),
    (
        "cuda-error",
        LazyPattern(
            r"(?P<code>\bCUDA_ERROR_[A-Z_]{2,60}\b|\bcudaError[A-Z]\w{2,60}\b)|\bCUDA error(?::\s*(?P<said>[\w ]{3,60})| \d)"
        ),
    ),
    ("tensorrt", LazyPattern(r"\[TRT\] \[E\]|\[TRT\]\s*\[ERROR\]")),
    # An installer's own words that a package of the stack did not install ("The installation of nvidia-dali-cuda120 for
    # version 1.44.0 failed.", NVIDIA's placeholder packages; pip's "Failed building wheel for pycuda")
    (
        "install-failed",
        LazyPattern(
            r"\b(?:installation|install|build) of (?P<pkg>[A-Za-z][\w.-]{1,80})\b.{0,80}?\bfailed\b"
            r"|\bFailed (?:building wheel for|to build|to install) (?P<pkg2>[A-Za-z][\w.-]{1,80})",
            re.IGNORECASE,
        ),
    ),
    # The last line of a Python traceback ("numba.cuda.cudadrv.runtime.CudaRuntimeAPIError: [35] ...", "ImportError:
    # libcudnn.so.8: ..."), also quoted in prose between backticks.
    ("exception", LazyPattern(r"(?:^|[\s`'\"(])(?P<exc>(?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z]\w{0,60}(?:Error|Exception)): \S")),
    # A warning that the GPU is not there for the program ("UserWarning: User provided device_type of 'cuda', but CUDA
    # is not available", XGBoost's "No visible GPU is found, setting device to CPU")
    (
        "gpu-unavailable-warning",
        LazyPattern(
            r"Warning\b.{0,200}?(?:(?:CUDA|GPU)s?\b.{0,80}?\b(?:is not available|not found|not compiled|could not be found)"
            r"|\bno (?:visible |usable |available )?(?:CUDA|GPU))",
            re.IGNORECASE,
        ),
    ),
)
_DLL = LazyPattern(r"(?P<path>(?:[A-Za-z]:)?[^\s'\"`]{0,400}?[\\/])?(?P<dll>[\w.+-]{1,120}?\.(?:dll|pyd))\b", re.IGNORECASE)
_NO_MODULE = LazyPattern(r"No module named '(?P<module>[\w.]{1,120})'")
_SITE_MODULE = LazyPattern(r"(?:site|dist)-packages[\\/](?P<module>[A-Za-z_]\w{0,80})")
_CONTAINER_FOR_POD = LazyPattern(r"\bpod \"?(?P<pod>[a-z0-9][a-z0-9.-]{0,252})")
# The words of the GPU stack a line names, as the component where no library, DLL or module is named: most specific
# first (cuDNN fails inside CUDA's words, NCCL inside the GPU's).
_STACK_WORDS = (
    ("tensorrt", re.compile(r"tensorrt|nvinfer|\[TRT\]", re.IGNORECASE)),
    ("cudnn", re.compile(r"cudnn", re.IGNORECASE)),
    ("cublas", re.compile(r"cublas", re.IGNORECASE)),
    ("nccl", re.compile(r"nccl", re.IGNORECASE)),
    ("nvml", re.compile(r"nvml|nvidia-ml", re.IGNORECASE)),
    ("nvcc", re.compile(r"\bnvcc\b", re.IGNORECASE)),
    ("cuda", re.compile(r"cuda", re.IGNORECASE)),
    ("gpu", re.compile(r"\bGPUs?\b|nvidia", re.IGNORECASE)),
)


# What each form says failed, for the finding's title ({c}: the component).
MEANS = {
    "symbol-version": "the loader found a {c} of another release than the one linked against",
    "version-not-found": "{c} lacks a symbol version a library needs",
    "loading-shared-libraries": "a program could not load {c}",
    "shared-object-not-opened": "{c} could not be loaded",
    "undefined-symbol": "{c} lacks a symbol a library needs",
    "library-not-loaded": "{c} could not be loaded",
    "windows-module": "Windows could not load {c} or a DLL it needs",
    "linker": "the linker could not find {c}",
    "nvcc": "nvcc stopped",
    "daemon": "the docker daemon refused the request",
    "pod": "the pod {c} failed",
    "cuda-error": "a CUDA call failed ({c})",
    "tensorrt": "TensorRT failed",
    "install-failed": "{c} did not install",
    "exception": "{c} raised an error",
    "gpu-unavailable-warning": "{c} found no usable GPU",
}


def _stack_word(line: str) -> str:
    return next((name for name, pattern in _STACK_WORDS if pattern.search(line)), "gpu")


def _component(form: str, m: re.Match[str], line: str) -> tuple[tuple[str, str], ...]:
    """The failing component the line names, by its form: (component, component_kind[, requirer])."""
    groups = m.groupdict()
    if groups.get("lib"):
        lib = groups["lib"].rsplit("/", 1)[-1]
        if form == "linker":
            lib = f"lib{lib}.so"
        kind = "dll" if lib.lower().endswith(".dll") else "library"
        requirer = groups.get("requirer")
        return (("component", lib), ("component_kind", kind), *((("requirer", requirer),) if requirer else ()))
    dll = _DLL.search(line) if form in ("windows-module", "exception") else None
    if dll is not None:
        folder = (dll.group("path") or "").rstrip("\\/")
        return (("component", dll.group("dll")), ("component_kind", "dll"), *((("folder", folder),) if folder else ()))
    if form == "daemon":
        return (("component", "docker"), ("component_kind", "daemon"))
    if form == "pod":
        pod = groups.get("pod") or ((p := _CONTAINER_FOR_POD.search(line)) and p.group("pod")) or ""
        return (("component", pod or "pod"), ("component_kind", "pod"))
    if form == "cuda-error":  # the error code (cudaErrorUnknown), or CUDA's words after "CUDA error:"
        said = (groups.get("code") or groups.get("said") or "").strip()
        return (("component", said or "cuda"), ("component_kind", "runtime"))
    if form == "tensorrt":
        return (("component", "tensorrt"), ("component_kind", "module"))
    if form == "install-failed":  # the package the installer could not install: its own asks are the installer's
        return (("component", groups.get("pkg") or groups.get("pkg2") or "package"), ("component_kind", "package"))
    if form == "nvcc":
        return (("component", "nvcc"), ("component_kind", "toolkit"))
    if (missing := _NO_MODULE.search(line)) is not None:
        return (("component", missing.group("module").split(".")[0]), ("component_kind", "module"))
    exc = groups.get("exc") or ""
    if "." in exc and not exc.startswith(("builtins.", "ctypes.")):
        return (("component", exc.split(".")[0]), ("component_kind", "module"))  # the package whose exception it is
    if (site := _SITE_MODULE.search(line)) is not None:
        return (("component", site.group("module")), ("component_kind", "module"))
    return (("component", _stack_word(line)), ("component_kind", "runtime"))


def read_failure_lines(lines: Iterable[str], known: frozenset[str] = frozenset()) -> list[ErrorEvidence]:
    """The failure lines among `lines` that name the GPU stack and are not a program's own fault, skipping any line in
    `known` (read already, by the catalogue or an extractor, whose reading is the better one)."""
    out: list[ErrorEvidence] = []
    seen: set[str] = set()
    for raw in lines:
        line = raw.strip()
        if not line or len(line) > _MAX_LINE or line in seen or any(k in line or line in k for k in known):
            continue
        if not _GPU_STACK.search(line) or _PROGRAM_FAULT.search(line) or _NOT_HAPPENING.search(line):
            continue
        for form, pattern in _FORMS:
            m = pattern.search(line)
            if m is None:
                continue
            seen.add(line)
            out.append(ErrorEvidence(KIND, line[:300], (("form", form), *_component(form, m, line))))
            break
        if len(out) >= _MAX_FOUND:
            break
    return out
