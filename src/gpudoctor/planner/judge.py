"""The rules every build is held to, whatever the framework: Python, driver, GPU kernels. Pure.

Kernels: a cubin for X.y runs on X.z with z >= y (same major only); PTX for a capability at or
below the GPU's is JIT-compiled by the driver, which needs a driver that fully supports the CUDA
the PTX came from (minor-version compatibility cannot JIT newer PTX: cuda-compat-guide).
"""

from __future__ import annotations

from collections.abc import Sequence

from gpudoctor.matrix import kernel_route, normalize_cc, spec_contains
from gpudoctor.planner.model import Judgement, Machine
from gpudoctor.versions import major, major_minor, vkey


def sm(cc: str) -> str:
    return "sm_" + cc.replace(".", "")


def describe_kernels(arch: Sequence[str], ptx: Sequence[str]) -> str:
    cubins = ", ".join(sm(normalize_cc(a) or a) for a in arch) or "no cubins"
    ptxs = ", ".join("compute_" + (normalize_cc(p) or p).replace(".", "") for p in ptx)
    return f"{cubins} and PTX {ptxs}" if ptxs else f"{cubins}, no PTX"


def judge_python(machine: Machine, spec: str, experimental: Sequence[str], what: str) -> Judgement:
    py = machine.python
    if not py:
        return Judgement("python", True, f"no Python environment was seen, so Python {spec} was not checked", note=True)
    if spec_contains(spec, py):
        return Judgement("python", True, f"Python {py} is within {what}'s {spec}")
    # "3.13t" entries are free-threaded builds, which the probe cannot tell apart: only plain ones count.
    if major_minor(py) in [e for e in experimental if not e.endswith("t")]:
        return Judgement("python", True, f"{what} supports Python {major_minor(py)} only experimentally", note=True)
    return Judgement("python", False, f"supports Python {spec}, not {py}")


def judge_driver(matrix, machine: Machine, cuda: str) -> tuple[Judgement, bool | None]:
    """(the judgement, whether the driver fully supports `cuda`; None when no driver was seen)."""
    driver = machine.driver
    if not driver and machine.driver_cuda:
        return _judge_driver_cuda(matrix, machine, cuda)
    if not driver:
        # Say what the build will need, so that whoever installs it onto a machine can check that driver.
        lowest, full = driver_needs(matrix, cuda, machine.os)
        need = (
            (f": it needs a driver >= {lowest}" + (f" (>= {full} for full support)" if full and full != lowest else ""))
            if lowest
            else ""
        )
        return Judgement(
            "driver", True, f"no NVIDIA driver was seen, so CUDA {cuda} was not checked against one{need}", note=True
        ), None
    v = matrix.driver_supports_cuda(driver, cuda, machine.os)
    up_to = f"driver {driver} runs CUDA up to {machine.driver_cuda or '?'}"
    if v.ok and v.via == "full":
        need = f" (needs >= {v.needed})" if v.needed else ""
        return Judgement("driver", True, f"driver {driver} runs CUDA {cuda} fully{need}"), True
    if v.ok:
        text = f"{up_to}; CUDA {cuda} runs only through CUDA {major(cuda)} minor-version compatibility (>= {v.floor})" + (
            f"; full support needs >= {v.needed}" if v.needed else ""
        )
        return Judgement("driver", True, text, note=True, needs=v.needed), False
    if not v.known:
        return Judgement(
            "driver", False, f"CUDA {cuda} is not in the compatibility matrix: cannot tell whether this driver runs it"
        ), False
    # The lowest driver that runs it: the major's compatibility floor, or the toolkit's own driver where lower (CUDA 11.0).
    lowest = lowest_driver(v.floor, v.needed)
    full = f" (>= {v.needed} for full support)" if v.needed and v.needed != lowest else ""
    return Judgement("driver", False, f"needs driver >= {lowest} for CUDA {cuda}{full}; {up_to}", needs=lowest), False


def judge_kernels(
    machine: Machine, arch: Sequence[str], ptx: Sequence[str], driver_full: bool | None, cuda: str | None
) -> list[Judgement]:
    out = []
    for g in machine.gpus:
        if not g.cc:
            out.append(Judgement("gpu", True, f"{g.describe()}: compute capability unknown, kernels not checked", note=True))
            continue
        route, via = kernel_route(arch, ptx, g.cc)
        if route == "unknown":
            out.append(
                Judgement(
                    "gpu",
                    True,
                    f"the matrix does not list this build's GPU architectures: kernels for {g.sm} not checked",
                    note=True,
                )
            )
        elif route == "cubin":
            assert via is not None  # kernel_route names the architecture it runs for cubin and ptx
            out.append(
                Judgement(
                    "gpu", True, f"has kernels for {g.describe()}" + ("" if via == g.cc else f": its {sm(via)} cubins run there")
                )
            )
        elif route == "ptx":
            assert via is not None
            if driver_full is False:
                out.append(
                    Judgement(
                        "gpu",
                        False,
                        f"no cubin for {g.describe()}: only compute_{via.replace('.', '')} PTX, which the driver must JIT-compile, "
                        f"and a driver running CUDA {cuda} through minor-version compatibility cannot",
                    )
                )
            else:
                out.append(
                    Judgement(
                        "gpu",
                        True,
                        f"no cubin for {g.describe()}: the driver JIT-compiles its compute_{via.replace('.', '')} PTX (slow first start)",
                        note=True,
                    )
                )
        else:
            out.append(Judgement("gpu", False, f"no kernels for {g.describe()}: the build carries {describe_kernels(arch, ptx)}"))
    return out


def _judge_driver_cuda(matrix, machine: Machine, cuda: str) -> tuple[Judgement, bool]:
    """The driver's version is unknown but the CUDA version it reports is (nvidia-smi's header, NVML's
    cuDriverGetVersion, or --cuda): gpudoctor.matrix.Matrix.driver_cuda_supports_cuda decides (fully up
    to that CUDA, a newer minor of its major by minor-version compatibility where every driver reporting
    it is at the major's floor, no newer major)."""
    up_to = machine.driver_cuda
    v = matrix.driver_cuda_supports_cuda(up_to or "", cuda, machine.os)
    full = v.needed
    if v.ok and v.via == "full":
        return Judgement("driver", True, f"the driver runs CUDA up to {up_to}, so CUDA {cuda} fully"), True
    if v.ok:
        text = (
            f"the driver runs CUDA up to {up_to}; CUDA {cuda} runs only through CUDA {major(cuda)} minor-version compatibility"
            + (f"; full support needs a driver >= {full}" if full else "")
        )
        return Judgement("driver", True, text, note=True, needs=full), False
    need = lowest_driver(v.floor, v.needed)
    if need is None:
        return Judgement(
            "driver", False, f"CUDA {cuda} is not in the compatibility matrix: cannot tell whether this driver runs it"
        ), False
    more = f" (>= {full} for full support)" if full and full != need else ""
    return Judgement(
        "driver", False, f"needs driver >= {need} for CUDA {cuda}{more}; the driver runs CUDA up to {up_to}", needs=need
    ), False


def lowest_driver(floor: str | None, full: str | None) -> str | None:
    """The lowest driver that runs a CUDA build: its major's minor-version-compatibility floor or its toolkit
    driver, whichever is lower (CUDA 11.0's own GA driver 450.51.05 is below CUDA 11's floor 450.80.02)."""
    return min((d for d in (floor, full) if d), key=vkey, default=None)


def driver_needs(matrix, cuda: str, os: str) -> tuple[str | None, str | None]:
    """(the lowest driver that runs CUDA `cuda`, the driver that runs it fully): what a build asks of a driver not seen."""
    full = matrix.min_driver_for_cuda(cuda, os)
    cuda_major = major(cuda)
    floor = matrix.minor_compat_floor(cuda_major, os) if cuda_major is not None else None
    return lowest_driver(floor, full), full
