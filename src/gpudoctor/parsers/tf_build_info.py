"""Parse tensorflow/python/platform/build_info.py: TF 1.x module variables, TF 2.3-era plain dict, TF 2.5+ OrderedDict, Windows DLL fields, CPU-only builds.

Read with ast literals only, never executed.  Windows builds state versions DLL-style ("64_112" = cudart64_112.dll = CUDA 11.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpudoctor.errors import ParseError
from gpudoctor.parsers._pyliteral import module_literals


@dataclass(frozen=True)
class TfBuild:
    """What the TensorFlow wheel was built against.  Versions are kept as written."""

    is_cuda_build: bool | None
    is_rocm_build: bool | None
    is_tensorrt_build: bool | None
    cuda_version: str | None  # as written: "11.2", "64_112" (Windows), "10" (TF 1.15)
    cudnn_version: str | None  # as written: "8", "64_8", "7"
    cuda_version_normalized: str | None  # "11.2" for both "11.2" and "64_112"; "10" stays "10"
    cudnn_version_normalized: str | None  # "8" for both "8" and "64_8"
    cuda_compute_capabilities: tuple[str, ...]  # ("sm_35", ..., "compute_80")
    cpu_compiler: str | None
    msvcp_dll_names: tuple[str, ...]  # Windows: ("msvcp140.dll", "msvcp140_1.dll")
    nvcuda_dll_name: str | None
    cudart_dll_name: str | None
    cudnn_dll_name: str | None
    raw: dict[str, object] = field(default_factory=dict)  # the build_info dict (or TF 1.x variables)


_WINDOWS_SUFFIX_RE = re.compile(r"^64_(\d+)$")

# TF 1.x wrote these module-level names instead of a build_info dict.
_TF1_NAMES = {
    "is_cuda_build": "is_cuda_build",
    "is_rocm_build": "is_rocm_build",
    "is_tensorrt_build": "is_tensorrt_build",
    "cuda_version_number": "cuda_version",
    "cudnn_version_number": "cudnn_version",
}


def _normalize_cuda(version: str | None) -> str | None:
    """ "64_112" -> "11.2", "64_101" -> "10.1", "64_92" -> "9.2"; dotted or bare versions unchanged."""
    if version is None:
        return None
    match = _WINDOWS_SUFFIX_RE.match(version)
    if match is None:
        return version
    digits = match.group(1)
    # cudart64_<major><minor>.dll: the last digit is the minor version (CUDA minors are < 10).
    if len(digits) < 2:
        return digits
    return f"{int(digits[:-1])}.{digits[-1]}"


def _normalize_cudnn(version: str | None) -> str | None:
    """ "64_8" -> "8"; cudnn64_<major>.dll names the major only."""
    if version is None:
        return None
    match = _WINDOWS_SUFFIX_RE.match(version)
    return match.group(1) if match else version


def _str(value: object) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def _bool(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def parse_tf_build_info(text: str) -> TfBuild:
    """Parse build_info.py.  Raises ParseError when it has neither a build_info dict nor TF 1.x variables."""
    literals = module_literals(text, "TensorFlow build_info.py")
    info = literals.get("build_info")
    if isinstance(info, dict):
        raw = {str(k): v for k, v in info.items()}
        values = dict(raw)
    else:
        raw = {name: literals[name] for name in _TF1_NAMES if name in literals}
        if not raw:
            raise ParseError("TensorFlow build_info.py has no build_info dict and no TF 1.x build variables")
        values = {_TF1_NAMES[name]: value for name, value in raw.items()}
    capabilities = values.get("cuda_compute_capabilities")
    if isinstance(capabilities, (list, tuple)):
        capabilities = tuple(str(c) for c in capabilities)
    elif isinstance(capabilities, str):
        capabilities = tuple(c.strip() for c in capabilities.split(",") if c.strip())
    else:
        capabilities = ()
    msvcp = _str(values.get("msvcp_dll_names"))
    cuda_version = _str(values.get("cuda_version"))
    cudnn_version = _str(values.get("cudnn_version"))
    return TfBuild(
        is_cuda_build=_bool(values.get("is_cuda_build")),
        is_rocm_build=_bool(values.get("is_rocm_build")),
        is_tensorrt_build=_bool(values.get("is_tensorrt_build")),
        cuda_version=cuda_version,
        cudnn_version=cudnn_version,
        cuda_version_normalized=_normalize_cuda(cuda_version),
        cudnn_version_normalized=_normalize_cudnn(cudnn_version),
        cuda_compute_capabilities=capabilities,
        cpu_compiler=_str(values.get("cpu_compiler")),
        msvcp_dll_names=tuple(n.strip() for n in msvcp.split(",") if n.strip()) if msvcp else (),
        nvcuda_dll_name=_str(values.get("nvcuda_dll_name")),
        cudart_dll_name=_str(values.get("cudart_dll_name")),
        cudnn_dll_name=_str(values.get("cudnn_dll_name")),
        raw=raw,
    )
