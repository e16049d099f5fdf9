"""Small helpers every probe uses to turn host answers into outcomes."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.errors import ParseError
from gpudoctor.host import Host, HostError
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.probed import Absent, Found, Probed, Unknown

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # imported where used: the Python probe starts before the facts' types are built (run_probes)
    from typing import Any

    from gpudoctor.facts import LibDir

_KINDS = {"EACCES": "permission", "EPERM": "permission", "ETIMEDOUT": "timeout", "EBINARY": "unparseable"}


def absent_or_unknown(exc: HostError, source: str, absent_reason: str) -> Absent | Unknown:
    """A missing file is a fact (Absent); any other error means we could not tell (Unknown)."""
    if exc.missing:
        return Absent(absent_reason, source)
    return Unknown(_KINDS.get(exc.code, "failed"), str(exc), source)


# The CUDA libraries whose resolution decides whether a framework loads.
CUDA_LIB = LazyPattern(
    # PyTorch's own bundled copies carry a hash: libcudart-e409450e.so.11.0.
    r"^lib(cudart|cublas|cublasLt|cudnn|cudnn_[a-z_]+|nvrtc|cufft|cusparse|cusolver|curand|nccl|nvJitLink)"
    r"(-[0-9a-f]{8})?\.so(\.\d+)*$"
)


def lib_dir(host: Host, path: str, via: str) -> LibDir | None:
    """A directory's CUDA libraries, or None when it cannot be listed."""
    from gpudoctor.facts import LibDir

    try:
        names = host.list_dir(path)
    except HostError:
        return None
    return LibDir(path, via, tuple(n for n in names if CUDA_LIB.match(n)))


def probe_command(
    host: Host, argvs: list[list[str]], timeout_s: float, parse: Callable[[str], Any], missing: Absent | Unknown
) -> Probed:
    """Run the first of `argvs` that exists and parse its output: Found, or why not.

    A time-out, a failure and unparseable output are each an Unknown of their own kind;
    `missing` is the outcome when none of the commands is installed.
    """
    for argv in argvs:
        result = host.run(argv, timeout_s)
        if result.missing:
            continue
        source = f"cmd:{result.key}"
        if result.timed_out:
            return Unknown("timeout", f"{result.key} did not finish within {timeout_s:g} s", source)
        if result.overflow:
            return Unknown("failed", f"{result.key}: {result.stderr}", source)
        if not result.ok:
            return Unknown("failed", result.stderr.strip() or f"exit {result.rc}", source)
        try:
            return Found(parse(result.stdout), source)
        except ParseError as exc:
            return Unknown("unparseable", exc.message, source)
    return missing
