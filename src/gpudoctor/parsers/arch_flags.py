"""GPU architecture names as compilers print them, read into typed facts: the compute capability, the variant suffix
and, for a refusal, which program refused it.

nvcc and ptxas name an architecture as a real (sm_XY) or virtual (compute_XY) target of a compute capability X.Y, with
an optional suffix: "a" the architecture-specific variant (sm_90a, usable only on that exact CC) and "f" the
family-specific one (sm_100f, CUDA 12.9 on); NVIDIA's nvcc documentation, "GPU Feature List". Each variant has its own
first toolkit (compat_matrix/gpu_arch.toml: first_cuda, a_first_cuda, f_first_cuda), so a refusal is judged by the
variant named, never by its plain CC alone. AMD's targets (gfx1100, gfx90a) are no CUDA architecture: they read as
AMD, with no compute capability, so nothing judges them against a CUDA release.

A refusal is read only from the compiler's own fatal line ("nvcc fatal : Unsupported gpu architecture 'compute_120a'",
"ptxas fatal : Value 'sm_100' is not defined for option 'gpu-name'"): an architecture named anywhere else (a flag list,
a comment) is what a build asked for, not what a compiler refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor.lazypattern import LazyPattern

# sm_90, compute_120a, sm_100f; gfx1100, gfx90a (AMD). Two or three digits: a CC's major and one minor digit.
_NVIDIA = LazyPattern(r"(?P<kind>sm|compute)_(?P<major>\d{1,2})(?P<minor>\d)(?P<suffix>[af]?)")
_AMD = LazyPattern(r"gfx\d{3,4}[a-z]?|gfx\d{2}[a-z]")

# The compilers' two refusals, as nvcc and ptxas print them (nvcc is closed source: the messages as catalogue.toml's
# nvcc-unsupported-gpu-architecture, nvcc-gpu-architecture-not-defined and ptxas-gpu-name-not-defined quote them from
# their threads). A Windows build names the program with .exe.
_REFUSED = LazyPattern(
    r"(?<![\w-])(?P<by>nvcc|ptxas)(?:\.exe)?\s+fatal\s*:\s*(?:Unsupported gpu architecture '(?P<a>[\w]{1,20})'"
    r"|Value '(?P<v>[\w]{1,20})' is not defined for option 'gpu-(?:name|architecture)')"
)


@dataclass(frozen=True)
class ArchName:
    """One architecture name as written: `cc` its compute capability ("12.0"; None for AMD's), `suffix` "" (plain),
    "a" (architecture-specific) or "f" (family-specific), `virtual` for compute_XY (PTX) rather than sm_XY."""

    text: str
    cc: str | None
    suffix: str = ""
    virtual: bool = False
    amd: bool = False


@dataclass(frozen=True)
class ArchRefusal:
    """A compiler refusing an architecture: `by` "nvcc" or "ptxas", and the line that says so."""

    arch: ArchName
    by: str
    line: str


def arch_name(text: str) -> ArchName | None:
    """An architecture's name read ("compute_120a" -> CC 12.0, suffix "a"; "gfx1100" -> AMD); None for anything else,
    a plain number included (a version, a line number)."""
    t = text.strip().lower()
    if m := _NVIDIA.fullmatch(t):
        cc = f"{int(m.group('major'))}.{m.group('minor')}"
        return ArchName(text.strip(), cc, m.group("suffix"), m.group("kind") == "compute")
    if _AMD.fullmatch(t):
        return ArchName(text.strip(), None, amd=True)
    return None


def read_refusal(line: str) -> ArchRefusal | None:
    """nvcc's or ptxas's refusal of an architecture in `line`, typed; None where the line holds none."""
    if "fatal" not in line:
        return None  # (the plain-text prefilter: every refusal is the compiler's fatal line)
    m = _REFUSED.search(line)
    if m is None:
        return None
    arch = arch_name(m.group("a") or m.group("v") or "")
    return ArchRefusal(arch, m.group("by"), line) if arch is not None else None
