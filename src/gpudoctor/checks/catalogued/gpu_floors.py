"""Catalogued messages of a GPU below what a library or application supports (TensorFlow, Triton, Ollama, a component
such as RAPIDS), and of a machine whose only GPU is another vendor's.

No driver, toolkit or package version changes a GPU's compute capability: the finding says which release still
runs on it, or a build for its capability, or that another GPU (or the CPU) is the way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.facts import Facts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.versions import vkey


def check_tf_gpu_below_minimum(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """TensorFlow's gpu_device.cc ignores a GPU below the lowest compute capability its build has kernels for
    ("Ignoring visible gpu device (...) with Cuda compute capability 3.5. The minimum required Cuda capability is
    3.7.") and runs on the CPU. The message names both: no driver, CUDA or cuDNN change helps; another GPU does, or a
    TensorFlow built from source for the GPU's capability (TF_CUDA_COMPUTE_CAPABILITIES, which ./configure asks for).
    Where TensorFlow created a GPU device all the same, the GPU ignored was one of several: a warning."""
    said = _said(facts, "tf-gpu-below-minimum")
    if not said:
        return
    e = said[0]
    gpu, cc, minimum = e.get("gpu") or "GPU", e.get("capability") or "", e.get("minimum") or ""
    others = bool(_said(facts, "tf-gpu-device-created"))
    yield Finding(
        "framework-arch-unsupported",
        Severity.WARNING if others else Severity.ERROR,
        "frameworks",
        f"the installed TensorFlow has no kernels for the {gpu} (compute capability {cc}; its build needs {minimum} or newer)",
        f"TensorFlow found the GPU and ignored it, as the text shows: its build carries kernels for compute capability "
        f"{minimum} and newer only"
        + (", so it uses the machine's other GPUs and leaves this one idle." if others else ", so it runs on the CPU.")
        + " No driver, CUDA or cuDNN version changes that.",
        (ev("pasted", e.line),),
        Remediation(
            f"Run on a GPU of compute capability {minimum} or newer, or build TensorFlow from source for compute "
            f"capability {cc} (./configure's TF_CUDA_COMPUTE_CAPABILITIES), where the CUDA it builds with still supports "
            "that GPU. Nothing to install otherwise.",
            (),
            component="gpu",
        ),
    )


# The lowest GPU compute capability an application's CUDA build runs on, by the catalogue entry that reports a GPU
# skipped below it: (the application, its floor, the first release with that floor). Ollama: CudaComputeMin {5, 0}
# (discover/gpu.go @05de33f8, and from 0.1.29, gpu/gpu.go @e87c780f); 0.1.20 skipped everything below 6.0
# (CudaComputeMajorMin = 6, gpu/gpu.go @ab6be852), so a 5.x GPU it skipped runs on a later release.
_APP_GPU_FLOOR = {"ollama-cuda-gpu-too-old": ("Ollama", "5.0", "0.1.29")}


def check_app_gpu_too_old(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """An application that skipped the GPU as too old for its CUDA build and named the GPU's compute capability
    (Ollama's "CUDA GPU is too old. Compute Capability detected: 3.5"): it runs on the CPU. Below the floor of its
    current releases no driver, CUDA or package install changes that; at or above it, the release that printed it had a
    higher floor, and a later release runs on the GPU."""
    for e in _said(facts, "app-gpu-too-old")[:1]:
        app, floor, since = _APP_GPU_FLOOR.get(e.get("entry") or "", ("", "", ""))
        cc = e.get("capability") or ""
        if not app or not cc:
            continue
        if vkey(cc) < vkey(floor):
            title = f"{app} does not run on this GPU (compute capability {cc}; its CUDA build needs {floor} or newer)"
            detail = (
                f"{app} found the GPU and skipped it, as the text shows: its CUDA build runs on compute capability "
                f"{floor} and newer only, so every model runs on the CPU. No driver, CUDA or {app} version changes that."
            )
            fix = Remediation(
                f"Run {app} on a GPU of compute capability {floor} or newer; on this one it runs on the CPU. Nothing to install.",
                (),
                component="gpu",
            )
        else:
            title = f"this {app} release skips the GPU of compute capability {cc}; releases from {since} run on it"
            detail = (
                f"{app} found the GPU and skipped it as too old, as the text shows, so every model runs on the CPU. The "
                f"release that printed it required a higher compute capability than {app} does from {since}, which runs "
                f"on {floor} and newer: the GPU ({cc}) is supported by a later release."
            )
            fix = Remediation(
                f"Upgrade {app} to {since} or later, the way it was installed (its installer, package or container "
                "image), and restart its server.",
                (),
                component="environment",
            )
        yield Finding("framework-arch-unsupported", Severity.ERROR, "frameworks", title, detail, (ev("pasted", e.line),), fix)


def check_component_below_min_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A component the paste names (catalogue.toml's [[component]]) whose every release needs a compute capability the
    GPUs shown lack (RAPIDS: Pascal, 6.0), beside its "no kernel image is available": its kernels were never built for
    this GPU, so no driver, toolkit or package version changes it; another GPU does."""
    failed = _said(facts, "no-kernel-image")
    if not failed:
        return
    # Imported past the test above: the catalogue's two record classes only for a text that says it.
    from gpudoctor.facts import COMPONENT_NAMED
    from gpudoctor.parsers.catalogue import components
    from gpudoctor.planner.context import gpu_cc
    from gpudoctor.versions import vkey

    named = {c.get("means") for c in facts.pasted.cues if c.get("cue") == COMPONENT_NAMED}
    for comp in components():
        if comp.id not in named or not comp.min_cc:
            continue
        ccs = [(g, cc) for g in facts.driver.gpus if (cc := gpu_cc(g, ctx))]
        if not ccs or any(vkey(cc) >= vkey(comp.min_cc) for _, cc in ccs):
            continue  # (a GPU that it runs on may be the one that failed)
        g, cc = ccs[0]
        yield Finding(
            "framework-arch-unsupported",
            Severity.ERROR,
            "frameworks",
            f"{comp.id} does not run on the {g.name} (compute capability {cc}; it needs {comp.min_cc} or newer)",
            f"The text shows 'no kernel image is available for execution on the device' from {comp.id}, on GPUs of compute "
            f"capability {cc}: its releases are built for {comp.min_cc} and newer only ({comp.source.get('repo', '')} "
            f"{comp.source.get('path', '')}), so no driver, CUDA or package version gives it kernels for this GPU.",
            (ev("pasted", failed[0].line), ev(g.source, f"{g.name}: {cc}")),
            Remediation(
                f"Run it on a GPU of compute capability {comp.min_cc} or newer (another machine or cloud instance); on this "
                "one, use the CPU libraries it mirrors. No install fixes it.",
                (),
                component="gpu",
            ),
        )
        return


def check_other_vendor_gpu_only(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The paste names the machine's only GPU, another vendor's (gpudoctor.pasted.cues), or the reporter says the machine
    has no NVIDIA GPU beside a CUDA program that reached none (PyTorch's "Found no NVIDIA driver", a launcher's CUDA
    check): there is no NVIDIA GPU, so a CUDA program's failure (driver "insufficient", docker's --gpus refused) is
    that, and the way is the CPU: the application's own CPU mode where the paste is a catalogued application's (its
    launcher's options, gpudoctor/planner/apps.toml [[cpu_mode]]), the program's CPU device otherwise."""
    from gpudoctor.checks.driver import no_gpu_said
    from gpudoctor.checks.reported import app_cpu_mode, other_vendor_gpu_only

    line = other_vendor_gpu_only(facts)
    if line is None and any(_said(facts, kind) for kind in _CUDA_REACHED_NONE):
        line = no_gpu_said(facts)
    if line is None:
        return
    # An AMD Radeon is no CUDA device, and PyTorch reaches one only through its ROCm builds, on Linux alone
    # (pytorch/pytorch README.md @0bd96675: "ROCm is currently supported only for Linux systems"): said beside the way
    # a GPU would run it, so the reader of an AMD machine learns the route that uses their card.
    amd = " An AMD Radeon GPU runs PyTorch only through its ROCm builds, on Linux." if _AMD_GPU.search(line) else ""
    yield Finding(
        "gpu-none",
        Severity.ERROR,
        "gpu",
        "no NVIDIA GPU on this machine",
        "The text says the machine has no NVIDIA GPU (or names only another vendor's), and nothing in it shows an NVIDIA "
        "one. CUDA code cannot run here: no NVIDIA driver, CUDA toolkit or container runtime can change that.",
        (ev("pasted", line),),
        app_cpu_mode(
            facts,
            "there is no NVIDIA GPU here, so no driver, CUDA or package change helps",
            "a machine with an NVIDIA GPU runs it on the GPU" + ("." + amd.rstrip(".") if amd else ""),
        )
        or Remediation(
            "Run on the CPU (the program's CPU device option), or on a machine or cloud instance with an NVIDIA GPU." + amd,
            (),
            component="gpu",
        ),
    )


# AMD's Radeon cards as gpudoctor.pasted.cues names them ("AMD Radeon RX 6750 XT", "Radeon RX 570", "RX 7900 XTX").
_AMD_GPU = LazyPattern(r"\bRadeon\b|(?<![\w-])RX\s?(?:[5-9]\d{3}|[45][6-9]0)\b", re.IGNORECASE)

# A CUDA program that reached no NVIDIA driver or device: PyTorch's "Found no NVIDIA driver" (torch-found-no-driver,
# also inside the AUTOMATIC1111 web UI's "Warning: caught exception ..., memory monitor disabled") and a launcher's own
# CUDA check failing (a1111-torch-cannot-use-gpu). Said beside "I have no NVIDIA GPU", that is the whole story.
_CUDA_REACHED_NONE = ("torch-no-driver", "cuda-unavailable")


def check_triton_gpu_too_old(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """PyTorch's GPUTooOldForTriton (torch/_inductor/exc.py): the GPU is below the compute capability Triton, the code
    generator of torch.compile and of Triton kernels, supports. No build of anything has kernels for it: the fix is
    another GPU, or the program without compiled Triton kernels. The other libraries' own minimums (catalogue.toml's
    gpu-below-library-minimum: flash-attn's Ampere check, vLLM's bfloat16) are the same question, answered here too."""
    said = _said(facts, "triton-gpu-too-old")
    if not said:
        yield from _gpu_below_library_minimum(facts, ctx)
        return
    e = said[0]
    gpu, cc, needs = e.get("gpu") or "this GPU", e.get("capability") or "", e.get("needs") or ""
    yield Finding(
        "framework-arch-unsupported",
        Severity.ERROR,
        "frameworks",
        f"Triton (torch.compile's GPU compiler) does not support the {gpu} (compute capability {cc}; it needs {needs} or newer)",
        f"PyTorch said so before compiling anything: Triton generates code only for GPUs of compute capability {needs} and "
        "newer, so torch.compile and every library built on Triton kernels fail on this GPU. No PyTorch, Triton or "
        "driver version changes that.",
        (ev("pasted", e.line),),
        Remediation(
            f"Run on a GPU of compute capability {needs} or newer (a notebook's or cloud's other GPU type), or run the "
            "program without torch.compile and Triton kernels (eager mode), where it offers that. No package install fixes "
            "it.",
            (),
            component="gpu",
        ),
    )


def _gpu_below_library_minimum(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A library's refusal of the GPU for its compute capability (catalogue.toml's gpu-below-library-minimum, the minimum
    from its entry's values: flash-attn's Ampere check). The GPU decides: every GPU the text shows below the minimum. A
    GPU at or above it (flash-attn builds that predate the RTX 50 series print the same words there,
    flash-attention#1540) or none shown is left to the entry's asks. (vLLM's bfloat16 refusal is no such case: the GPU
    runs vLLM in float16, so the catalogue reads it as the program's choice.)"""
    said = _said(facts, "gpu-below-library-minimum")
    if not said:
        return
    from gpudoctor.planner.context import gpu_cc

    e = said[0]
    needs, library = e.get("needs") or "", e.get("library") or "the library"
    if not needs:
        return
    ccs = [(g, c) for g in facts.driver.gpus if (c := gpu_cc(g, ctx))]
    if not ccs and (named := e.get("capability")):
        # the refusal names the GPU and its capability itself (cuDF's "Detected Compute Capability: 6.0")
        gpu, cc, where = e.get("gpu") or "GPU 0", named, ("pasted", e.line)
        if vkey(cc) >= vkey(needs):
            return
    elif not ccs or any(vkey(c) >= vkey(needs) for _, c in ccs):
        return
    else:
        g, cc = ccs[0]
        gpu, where = g.name, (g.source, f"{g.name}: {cc}")
    instead = e.get("instead")
    yield Finding(
        "framework-arch-unsupported",
        Severity.ERROR,
        "frameworks",
        f"{library} does not run on the {gpu} (compute capability {cc}; it needs {needs} or newer)",
        f"{library} refused the GPU: it runs only on compute capability {needs} and newer, and the {gpu} is {cc}. No "
        "driver, CUDA or package version changes that.",
        (ev("pasted", e.line), ev(*where)) if where[1] != e.line else (ev("pasted", e.line),),
        Remediation(
            (f"On this GPU, {instead}; or run" if instead else "Run")
            + f" on a GPU of compute capability {needs} or newer (another machine or cloud instance). No install fixes it.",
            (),
            component="gpu",
        ),
    )


def check_driver_function_legacy_gpu(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A driver-API function missing from the driver (numba's "Driver missing function", cuda-python's "Function ... not
    found") on a GPU whose last driver is a legacy branch (compat_matrix/gpu_arch.toml arch.last_driver), where no
    driver for the GPU can have the function: the driver shown is already of that branch, or the branch runs a CUDA
    older than every release the matrix lists (compute capability 1.x: 340.xx, CUDA 6.5). Then the GPU is too old for
    the program and no driver, CUDA or package install changes that. On a GPU current drivers support, or a legacy one
    below its last branch, a newer driver is the way (the catalogue's ask, nvidia-smi, decides)."""
    from gpudoctor.planner.legacy_gpus import legacy_gpu, no_driver_remedy

    said = _said(facts, "driver-missing-function")
    old = legacy_gpu(facts, ctx) if said else None
    if not said or old is None:
        return
    listed = ctx.matrix.cuda_versions()
    head = (facts.driver.version or "").split(".", 1)[0]
    on_last = head.isdigit() and int(head) >= old.last_driver
    if not on_last and not (listed and vkey(old.last_cuda) < min(vkey(c) for c in listed)):
        return
    e = said[0]
    function = e.get("function") or "a driver-API function"
    yield Finding(
        "framework-arch-unsupported",
        Severity.ERROR,
        "gpu",
        f"the {old.name} is too old for this program: no driver for it has {function}",
        f"The driver lacks {function}, as the text shows, and {old.said}. A driver exports only the functions of the "
        "CUDA releases up to its own, and no newer driver drives this GPU, so no driver, CUDA or package install on "
        "this machine gives the program what it calls.",
        (ev("pasted", e.line),),
        no_driver_remedy(old),
    )
