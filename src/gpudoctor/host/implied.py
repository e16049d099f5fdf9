"""The files an installed distribution implies, for partial snapshots: "an installed distribution implies
its files unless the text shows otherwise" (docs/pasted.md).

Only what the package's name and version fix for certain: NVIDIA's wheels put their libraries under
site-packages/nvidia/<component>/lib, named by soname. A pip list showing `nvidia-cudnn-cu12 9.1.0.70`
thus shows `nvidia/cudnn/lib/libcudnn.so.9`, and the loader checks judge it as on a machine (a cuDNN wheel
of another CUDA major than the framework's, say). Sonames whose number is not the version's major (cuFFT,
cuSPARSE...) are left out: unknown is better than wrong.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

# nvidia-<component>-cuNN -> (directory under nvidia/, soname stems whose number is the version's major)
_WHEELS = {
    "cudnn": ("cudnn", ("libcudnn",)),
    "cublas": ("cublas", ("libcublas", "libcublasLt")),
    "cuda-runtime": ("cuda_runtime", ("libcudart",)),
}
_NAME = re.compile(r"^nvidia-(?P<component>[a-z-]+?)-cu(?P<cuda>\d+)$")


def _soname(stem: str, version: str, cuda: int) -> str | None:
    major = re.match(r"^(\d+)\.", version)
    if major is None:
        return None
    if stem == "libcudart" and cuda == 11:
        return "libcudart.so.11.0"  # CUDA 11 kept the 11.0 soname for every minor
    return f"{stem}.so.{major.group(1)}"


def implied_files(distributions: Mapping[str, str], site: str, recorded: Mapping[str, object]) -> dict[str, dict]:
    """Paths -> {"type": "file"} for the libraries NVIDIA's wheels in `distributions` hold under `site`,
    except where `recorded` already says something of that directory (the text showed it)."""
    out: dict[str, dict] = {}
    for name, version in distributions.items():
        m = _NAME.match(name)
        if m is None or m.group("component") not in _WHEELS or not site:
            continue
        directory, stems = _WHEELS[m.group("component")]
        lib = posixpath.join(site, "nvidia", directory, "lib")
        if any(p == lib or p.startswith(lib + "/") for p in recorded):
            continue  # the text listed that directory: what it shows stands
        for stem in stems:
            soname = _soname(stem, version, int(m.group("cuda")))
            if soname:
                out[posixpath.join(lib, soname)] = {"type": "file", "implied": True}
    return out
