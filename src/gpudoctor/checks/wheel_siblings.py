"""A library of NVIDIA's pip wheels bound to another copy of its sibling library (pasted reports).

glibc names the version node of a versioned reference it could not bind: `.../site-packages/nvidia/cublas/lib/
libcublas.so.11: undefined symbol: cublasLtGetStatusString, version libcublasLt.so.11` (gpudoctor.parsers.error_texts).
NVIDIA's libraries name their version nodes after their sonames, so the symbol is one of that library's; the wheel
ships it beside the failing library, built together. A copy without it was bound first: an older CUDA's (a toolkit's
lib64 on LD_LIBRARY_PATH, a CUDA runtime image's /usr/local/cuda in the ldconfig cache). The fix installs nothing: the
wheel's directory goes first where the loader looks, and the other copy stays for whatever else uses it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from gpudoctor.checks.base import Context, ev
from gpudoctor.facts import Facts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.remedy import keep_path, kept, library_dir

# <site-packages>/nvidia/<library>/lib/<file>.so.N, after the ../ of torch/lib/../../nvidia are resolved.
_WHEEL_LIB = LazyPattern(
    r"^(?P<dir>/\S*/(?:site|dist)-packages/nvidia/(?P<package>[a-z_]+)/lib)/(?P<file>lib[\w.+-]+\.so[\d.]*)$"
)
# The folder under site-packages/nvidia each library's wheel installs into, by the library's name (pytorch/pytorch
# torch/__init__.py, _load_global_deps' cuda_libs table: cublas libcublas, cudnn libcudnn, cuda_nvrtc libnvrtc,
# cuda_runtime libcudart, cuda_cupti libcupti, cufft, curand, nvjitlink libnvJitLink, cusparse, cusparselt
# libcusparseLt, cusolver, nccl); cuBLASLt ships in the cublas wheel beside cuBLAS, cuDNN's sub-libraries beside cuDNN.
# Longest prefix first. A library not listed is taken to be the failing library's own wheel's.
_WHEEL_FOLDER = (
    ("libcusparseLt", "cusparselt"),
    ("libcusparse", "cusparse"),
    ("libcublas", "cublas"),
    ("libcudnn", "cudnn"),
    ("libnvrtc", "cuda_nvrtc"),
    ("libcudart", "cuda_runtime"),
    ("libcupti", "cuda_cupti"),
    ("libcufft", "cufft"),
    ("libcurand", "curand"),
    ("libnvJitLink", "nvjitlink"),
    ("libcusolver", "cusolver"),
    ("libnccl", "nccl"),
)
# A version node that names a shared library (libcudnn_ops_infer.so.8), not a symbol set (GLIBC_2.29, CXXABI_1.3).
_LIBRARY_NODE = LazyPattern(r"^lib[\w+-]+\.so(?:\.\d+)*$")


def check_wheel_sibling_shadowed(facts: Facts, ctx: Context) -> Iterable[Finding]:
    if not facts.pasted.partial:
        return
    for e in facts.pasted.reported("undefined-symbol"):
        node = e.get("version") or ""
        obj = posixpath.normpath(e.get("object") or "")
        m = _WHEEL_LIB.match(obj)
        if not m or not _LIBRARY_NODE.match(node):
            continue
        folder = next((f for prefix, f in _WHEEL_FOLDER if node.startswith(prefix)), m.group("package"))
        wheel_dir = posixpath.join(posixpath.dirname(posixpath.dirname(m.group("dir"))), folder, "lib")
        yield Finding(
            "cuda-paths-disagree",
            Severity.WARNING,
            "toolkit",
            f"{m.group('file')} of NVIDIA's {m.group('package')} wheel is bound to another {node} than the one it ships with",
            f"The loader says {m.group('file')} (in {m.group('dir')}) needs {e.get('symbol')} of {node}, and the {node} it "
            f"bound lacks it: that copy comes from elsewhere (an older CUDA's library directory on LD_LIBRARY_PATH, or "
            f"a toolkit or CUDA image directory in the ldconfig cache), loaded ahead of the {node} in {wheel_dir}. "
            "Nothing needs installing: the wheel's directory goes first where the loader looks.",
            (ev("pasted", e.line),),
            Remediation(
                f"Put {wheel_dir} first on LD_LIBRARY_PATH, so its own {node} loads (`echo $LD_LIBRARY_PATH` and "
                f"`ldconfig -p | grep {node.split('.so')[0]}.so` show where the other copy comes from; a CUDA "
                "directory on LD_LIBRARY_PATH that nothing else needs can be taken off instead)." + keep_path(facts),
                kept(facts, (library_dir(facts, (wheel_dir,), note=f"NVIDIA's wheel's {node} ahead of the other copy"),)),
                component="torch",
            ),
        )
        return
