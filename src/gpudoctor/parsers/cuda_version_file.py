"""Parse CUDA toolkit version files: version.json (CUDA >= 11.1), version.txt ("CUDA Version 10.2.89") and cuda.h's CUDA_VERSION macro.

version.json keys are component ids ("cuda", "cuda_cudart", "cuda_nvcc", "nvidia_driver"...), each {"name", "version"}.
"""

from __future__ import annotations

import json
import re
from dataclasses import field

from gpudoctor.errors import ParseError
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.parsers._common import require_text
from gpudoctor.record import Record, record_class
from gpudoctor.versions import cuda_from_int


@record_class(frozen=True, eq=False, repr=False)
class CudaVersionFile(Record):
    """A toolkit's own statement of its version."""

    version: str  # as written: "12.8.2" (json "cuda"), "12.8.90" (cudart fallback), "10.2.89" (txt)
    source: str  # where `version` came from: "cuda", "cuda_cudart", "cuda_nvcc", "version.txt"
    components: dict[str, str] = field(default_factory=dict)  # component id -> version
    bundled_driver_name: str | None = None  # json "nvidia_driver" name, e.g. "NVIDIA Windows Driver"
    bundled_driver_version: str | None = None  # the driver the installer shipped, e.g. "572.61"
    patches: tuple[str, ...] = ()  # version.txt "CUDA Patch Version" lines


# Which entry states the toolkit version, best first.  "cuda" is the SDK version proper;
# some repackaged toolkits lack it, and then the runtime or compiler version stands in.
_VERSION_KEYS = ("cuda", "cuda_cudart", "cuda_nvcc")


def parse_cuda_version_json(text: str) -> CudaVersionFile:
    """Parse a toolkit's version.json.  Raises ParseError unless some entry gives a version."""
    require_text(text, "CUDA version.json")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise ParseError(f"CUDA version.json is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ParseError("CUDA version.json: top level is not an object")
    components: dict[str, str] = {}
    for key, entry in data.items():
        if isinstance(entry, dict) and isinstance(entry.get("version"), str) and entry["version"].strip():
            components[str(key)] = entry["version"].strip()
    for key in _VERSION_KEYS:
        if key in components:
            version, source = components[key], key
            break
    else:
        raise ParseError("CUDA version.json names no 'cuda', 'cuda_cudart' or 'cuda_nvcc' version")
    driver = data.get("nvidia_driver")
    driver_name = driver.get("name") if isinstance(driver, dict) else None
    return CudaVersionFile(
        version=version,
        source=source,
        components=components,
        bundled_driver_name=driver_name if isinstance(driver_name, str) else None,
        bundled_driver_version=components.get("nvidia_driver"),
    )


# [ \t] rather than \s: \s would also eat newlines and make the search quadratic.
_TXT_RE = LazyPattern(r"^[ \t]*CUDA Version[ \t]+(\d+(?:\.\d+)+)[ \t]*$", re.MULTILINE)
_TXT_PATCH_RE = LazyPattern(r"^[ \t]*CUDA Patch Version[ \t]+(\d+(?:\.\d+)+)[ \t]*$", re.MULTILINE)


def parse_cuda_version_txt(text: str) -> CudaVersionFile:
    """Parse a pre-11.1 toolkit's version.txt ("CUDA Version 10.2.89", optional patch lines)."""
    require_text(text, "CUDA version.txt")
    match = _TXT_RE.search(text)
    if match is None:
        raise ParseError("not a CUDA version.txt: no 'CUDA Version X.Y.Z' line")
    return CudaVersionFile(version=match.group(1), source="version.txt", patches=tuple(_TXT_PATCH_RE.findall(text)))


_CUDA_H_RE = LazyPattern(r"^[ \t]*#[ \t]*define[ \t]+CUDA_VERSION[ \t]+(\d{1,9})\b", re.MULTILINE)


def parse_cuda_h_version(text: str) -> str:
    """`#define CUDA_VERSION 12040` in cuda.h -> "12.4" (the macro is major*1000 + minor*10)."""
    require_text(text, "cuda.h")
    match = _CUDA_H_RE.search(text)
    if match is None:
        raise ParseError("no '#define CUDA_VERSION <number>' in cuda.h")
    number = int(match.group(1))
    if number < 1000:
        raise ParseError(f"implausible CUDA_VERSION {number} in cuda.h")
    return cuda_from_int(number)
