"""The matrix's vocabulary: compute capabilities, how a build's kernels reach a GPU, operating system and GPU names.
Shared by the matrix's records and queries and by the checks and planners that read them."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from gpudoctor.lazypattern import LazyPattern

_CC_DOTTED = LazyPattern(r"(?:sm_|compute_)?(\d+)\.(\d+)[af]?")
_CC_PACKED = LazyPattern(r"(?:sm_|compute_)?(\d+)(\d)[af]?")


def normalize_cc(cc: str | int | float | tuple[int, int]) -> str | None:
    """ "9.0", "sm_90", "sm_90a", "compute_90", "90", (9, 0) -> "9.0"; None when not a CC."""
    if isinstance(cc, tuple):
        if len(cc) == 2 and all(isinstance(x, int) for x in cc):
            return f"{cc[0]}.{cc[1]}"
        return None
    s = str(cc).strip().lower()
    m = _CC_DOTTED.fullmatch(s)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}"
    m = _CC_PACKED.fullmatch(s)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}"
    return None


def _cc_key(cc: str) -> tuple[int, int]:
    a, b = cc.split(".")
    return (int(a), int(b))


def kernel_route(arch: Iterable[str], ptx: Iterable[str], cc: str) -> tuple[str, str | None]:
    """How a build with cubins `arch` and PTX `ptx` runs on compute capability `cc`.

    ("cubin", "8.0"): a cubin of the same major and an equal or lower minor; arch-specific cubins
    (sm_90a) run only on exactly their capability. ("ptx", "9.0"): PTX at or below `cc`, which the
    driver JIT-compiles. ("none", None): neither. ("unknown", None): no kernels listed, or `cc` is
    not a compute capability. The one rule for the checks, the installer and the matrix records.
    """
    want = normalize_cc(cc)
    exact: list[str] = []
    cubins: list[str] = []
    for raw in arch:
        c = normalize_cc(raw)
        if c:
            (exact if str(raw).strip().lower().endswith("a") else cubins).append(c)
    ptxs = [c for c in (normalize_cc(p) for p in ptx) if c]
    if want is None or not (exact or cubins or ptxs):
        return "unknown", None
    key = _cc_key(want)
    same_major = [c for c in cubins if _cc_key(c)[0] == key[0] and _cc_key(c) <= key] + [c for c in exact if c == want]
    if same_major:
        return "cubin", max(same_major, key=_cc_key)
    lower = [p for p in ptxs if _cc_key(p) <= key]
    if lower:
        return "ptx", max(lower, key=_cc_key)
    return "none", None


def _norm_os(os: str) -> str:
    s = (os or "linux").strip().lower()
    if s.startswith("win") or s in ("nt", "wsl", "wsl2"):
        # WSL uses the Windows display driver.
        return "windows"
    return "linux"


_TOKEN = LazyPattern(r"[a-z0-9]+")
_DROP_LEADING = ("nvidia", "tesla")


@functools.lru_cache(maxsize=1024)
def gpu_name_tokens(name: str) -> tuple[tuple[str, ...], bool]:
    """Normalize a GPU name to lowercase words without a leading NVIDIA/Tesla; flag '...' truncation."""
    s = name.strip()
    truncated = s.endswith("...") or s.endswith("\u2026")
    s = s.rstrip(".\u2026 ")
    toks = _TOKEN.findall(s.lower())
    while toks and toks[0] in _DROP_LEADING:
        toks.pop(0)
    return tuple(toks), truncated
