"""Parse `nvcc --version` / `nvcc -V` (4-line format up to CUDA 11.0, 5-line format with a "Build" line after).

The version line reads "Cuda compilation tools, release 12.5, V12.5.40".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import require_text


@dataclass(frozen=True)
class NvccVersion:
    """nvcc's self-description."""

    release: str  # "12.5"
    version: str  # "12.5.40"
    build: str | None  # "cuda_12.5.r12.5/compiler.34177558_0"; None before CUDA 11.1
    built_on: str | None  # "Wed_Apr_17_19:19:55_PDT_2024"


_RELEASE_RE = re.compile(r"release[ \t]+(?P<release>\d+\.\d+)[ \t]*,[ \t]*V(?P<version>\d+(?:\.\d+)+)")
_BUILD_RE = re.compile(r"^[ \t]*Build[ \t]+(\S+)[ \t]*$", re.MULTILINE)
_BUILT_ON_RE = re.compile(r"^[ \t]*Built on[ \t]+(\S+)[ \t]*$", re.MULTILINE)


def parse_nvcc_version(text: str) -> NvccVersion:
    """Parse nvcc's version banner.  Raises ParseError without a 'release X.Y, VX.Y.Z' line."""
    require_text(text, "nvcc --version")
    match = _RELEASE_RE.search(text)
    if match is None:
        raise ParseError("not `nvcc --version` output: no 'release X.Y, VX.Y.Z' line")
    build = _BUILD_RE.search(text)
    built_on = _BUILT_ON_RE.search(text)
    return NvccVersion(
        release=match.group("release"),
        version=match.group("version"),
        build=build.group(1) if build else None,
        built_on=built_on.group(1) if built_on else None,
    )
