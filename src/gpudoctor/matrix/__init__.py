"""The compatibility matrix: CUDA/driver, GPU, cuDNN and framework facts, each citing its source.

The data lives in ``compat_matrix/*.toml`` (shipped as the package ``gpudoctor.compat_matrix``);
``load`` parses it lazily (never at import time) and caches the bundled matrix, ``schema`` validates
it and builds one record type per row (``records``), ``queries`` holds :class:`Matrix`, whose every
query is pure, ``terms`` its vocabulary (compute capabilities, kernel routes, OS and GPU names) and
``render`` its plain-text tables. Versions and specifiers are gpudoctor.versions'. This face hands the
public names on; the record classes are loaded when first named.
"""

from __future__ import annotations

from gpudoctor.matrix.files import FILES, SECTIONS
from gpudoctor.matrix.load import _load_bundled, check_matrix, load_matrix, render_matrix_text, validate
from gpudoctor.matrix.queries import Matrix
from gpudoctor.matrix.terms import gpu_name_tokens, kernel_route, normalize_cc
from gpudoctor.versions import parse_spec, spec_contains, spec_floor, version_key, version_parts

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "FILES",
    "SECTIONS",
    "Arch",
    "CcTarget",
    "CudaRelease",
    "CudaRepo",
    "CudnnMajor",
    "CudnnPip",
    "CudnnRelease",
    "DriverBranch",
    "Gpu",
    "JaxCuda",
    "JaxPin",
    "JaxRelease",
    "LinkSpec",
    "Matrix",
    "MemoryControl",
    "MemorySettings",
    "MinorCompat",
    "PcieGen",
    "Precision",
    "PtxIsa",
    "Source",
    "TfRelease",
    "Threshold",
    "TorchPins",
    "TorchRelease",
    "TorchVariant",
    "Verdict",
    "C2cLink",
    "check_matrix",
    "load_matrix",
    "normalize_cc",
    "render_matrix_text",
    "validate",
    "version_key",
    "version_parts",
    "gpu_name_tokens",
    "kernel_route",
    "parse_spec",
    "spec_contains",
    "spec_floor",
    "_load_bundled",
]

_RECORD_NAMES = frozenset(
    {
        "Arch",
        "C2cLink",
        "CcTarget",
        "CudaRelease",
        "CudaRepo",
        "CudnnMajor",
        "CudnnPip",
        "CudnnRelease",
        "DriverBranch",
        "Gpu",
        "JaxCuda",
        "JaxPin",
        "JaxRelease",
        "LinkSpec",
        "MemoryControl",
        "MemorySettings",
        "MinorCompat",
        "PcieGen",
        "Precision",
        "PtxIsa",
        "Source",
        "TfRelease",
        "Threshold",
        "TorchPins",
        "TorchRelease",
        "TorchVariant",
        "Verdict",
    }
)


def __getattr__(name: str) -> Any:
    # The record classes live in gpudoctor.matrix.records, imported on first use so that
    # `import gpudoctor.matrix` stays cheap.
    if name in _RECORD_NAMES:
        from gpudoctor.matrix import records

        return getattr(records, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _RECORD_NAMES)
