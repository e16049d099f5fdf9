"""Findings that rest on error texts a report showed, where the facts alone cannot judge.

On a partial snapshot (pasted text, docs/pasted.md) the message a framework, cuDNN, the CUDA runtime or
the container runtime printed is evidence of its own: "X with CUDA capability sm_86 is not compatible with
the current PyTorch installation" names the GPU and the build's arch list even when neither the PyTorch
version nor nvidia-smi was pasted. Each check here emits the code the fact-based check would, and only
when that check (run first, on the same facts) did not: one finding per cause, with the evidence line.
Nothing here runs on a whole machine: a live doctor reads the machine itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.checks.driver import no_gpu_said
from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import JAX_CUDA_SAID, Facts
from gpudoctor.host import canonical_name
from gpudoctor.lazypattern import LazyPattern  # pasted evidence only
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner import where
from gpudoctor.probed import Found
from gpudoctor.versions import major, vkey

_TITLES = {"torch": "PyTorch", "tensorflow": "TensorFlow", "jax": "JAX"}


def _said(facts: Facts, kind: str) -> list:
    return facts.pasted.reported(kind) if facts.pasted.partial else []


def other_vendor_gpu_only(facts: Facts) -> str | None:
    """The pasted line naming the machine's only GPU where it is another vendor's (gpudoctor.pasted.cues): no NVIDIA
    driver, toolkit or container runtime can help there, so the checks that prescribe one stay silent."""
    from gpudoctor.checks.driver import gpu_present
    from gpudoctor.facts import NO_NVIDIA_GPU

    if not facts.pasted.partial or gpu_present(facts):
        return None
    return next((c.get("line") or "" for c in facts.pasted.cues if c.get("cue") == NO_NVIDIA_GPU), None)


def _emits(check, facts: Facts, ctx: Context, code: str) -> bool:
    """Whether the fact-based `check` already finds `code` on these facts."""
    return any(f.code == code for f in check(facts, ctx))


# Lua Torch's own paths in a message (its CUDA package cutorch, its Lua modules under torch/install/share/lua, a .lua
# script): the Lua framework PyTorch grew from, which shares the name and the THC error macro (THCudaCheck) but none of
# PyTorch's builds, wheels or collect_env (torch/distro install.sh @4571847c installs into torch/install, cutorch from
# torch/extra). Such a path names no PyTorch.
_TORCH_CUDA_ERROR = LazyPattern(r"\bRuntimeError: CUDA error: [a-z]")
_LUA_TORCH = LazyPattern(r"\S*(?:\bcutorch\b|/share/lua/|/torch/install/|\.lua\b)\S*")


def frameworks_named(facts: Facts) -> set[str]:
    """The frameworks the pasted texts show at work (their log or traceback paths), beside those installed."""
    named = {
        n
        for n, o in (
            ("torch", facts.frameworks.torch),
            ("tensorflow", facts.frameworks.tensorflow),
            ("jax", facts.frameworks.jax),
        )
        if isinstance(o, Found)
    }
    named.update(facts.pasted.frameworks)
    if facts.pasted.reported("driver-too-old-found"):
        named.add("torch")  # "The NVIDIA driver on your system is too old (found version N)" is PyTorch's own message
    for e in facts.pasted.errors:
        line = e.line.lower()
        if "torch" in _LUA_TORCH.sub(" ", line):
            named.add("torch")
        if "tensorflow" in line and "org_tensorflow" not in line:
            named.add("tensorflow")
        # XLA's own paths are JAX's, except inside TensorFlow's tree: TensorFlow logs its copy as tensorflow/compiler/xla,
        # which jaxlib built from that tree prefixed external/org_tensorflow/ (caught above)
        tf_xla = "tensorflow/compiler/xla" in line and "org_tensorflow" not in line
        if "jax" in line or ("xla/" in line and not tf_xla) or "org_tensorflow" in line:
            named.add("jax")
    return named


def _torch_version(facts: Facts) -> str | None:
    t = facts.frameworks.torch
    return t.value.version if isinstance(t, Found) else None


def check_reported_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    from gpudoctor.checks.frameworks import check_arch, plan_remediation

    warned = _said(facts, "arch-unsupported")
    lists = _said(facts, "arch-list")
    no_kernel = _said(facts, "no-kernel-image")
    if not (warned or no_kernel) or _emits(check_arch, facts, ctx, "framework-arch-unsupported"):
        return
    if not warned:
        from gpudoctor.checks.catalogued.library_arch import check_library_below_arch_floor

        # A library beside torch whose own builds stop above the GPU (vLLM's 7.0 floor on a Pascal P100, while torch's
        # wheel still carries sm_60) explains the message: that finding answers it, and a torch reinstall would not.
        if _emits(check_library_below_arch_floor, facts, ctx, "framework-arch-unsupported"):
            return
        from gpudoctor.checks.catalogued.builds import check_extension_kernel_arch

        # A project's own extension said it (its launch check), on a GPU the text names: its rebuild answers it.
        if _emits(check_extension_kernel_arch, facts, ctx, "framework-arch-unsupported"):
            return
        # "no kernel image is available for execution on the device" with PyTorch at work and nothing else said:
        # the build has no kernel for this GPU's architecture. Which GPU, and which build, is asked for.
        torch_at_work = "torch" in frameworks_named(facts)
        # "RuntimeError: CUDA error: <cudaGetErrorString>" is TORCH_CHECK's (c10's C10_CUDA_CHECK, and the CUDA_CHECK
        # macros torch extensions define on it) as Python sees it: torch is at work, if not named in the frames shown.
        # Read so only beside a GPU the text names: alone, which build or extension lacks it stays open (asked).
        if torch_at_work or any(_TORCH_CUDA_ERROR.search(e.line) for e in no_kernel):
            # A GPU the text names (in words or a tool's list) below the oldest architecture of every PyTorch CUDA
            # build (a Kepler GTX 650, 3.0): no install gives it kernels, so the finding says the CPU or another GPU.
            from gpudoctor.planner.context import gpu_cc

            for gpu in facts.driver.gpus:
                if (cc := gpu_cc(gpu, ctx)) and (below := _below_every_torch_build(facts, ctx, cc)):
                    yield below(_NamedGpuSaid(gpu.name or f"GPU of compute capability {cc}", no_kernel[0].line))
                    return
        if torch_at_work:
            version = _torch_version(facts)
            # Which build to install follows from the GPU (its architecture) or the build shown; with neither shown, any
            # pick is a guess (issue 27, kind 5): the finding stands, and the asks (the GPU, the build's arch list) decide.
            guess = version is None and not facts.driver.gpus
            yield Finding(
                "framework-arch-unsupported",
                Severity.ERROR,
                "frameworks",
                f"{'PyTorch ' + version if version else 'the installed PyTorch'} has no kernels for a GPU it runs on",
                "CUDA said so: 'no kernel image is available for execution on the device' means the build carries no "
                "kernel for the GPU's architecture (too new a GPU for an old build, or too old a GPU for a new one). The GPU "
                "and the build were not shown; a CUDA extension built for other architectures fails the same way.",
                (ev("pasted", no_kernel[0].line),),
                None if guess else plan_remediation(facts, ctx, "torch", version, "Install a build with kernels for this GPU."),
            )
        return
    archs = tuple(lists[0].get("archs").split()) if lists else ()
    options = _suggested_cuda(facts)
    for w in warned:
        if below := _below_every_torch_build(facts, ctx, w.get("capability") or ""):
            yield below(w)
            continue
        # PyTorch's own verdict: it warns when no cubin in its list matches the GPU (a compute_NN PTX in the list
        # does not make it run: the thread of every such report ends in "no kernel image is available").
        cc = w.get("capability") or ""
        version = _torch_version(facts)
        label = f"PyTorch {version}" if version else "the installed PyTorch"
        yield Finding(
            "framework-arch-unsupported",
            Severity.ERROR,
            "frameworks",
            f"{label} has no kernels for the {w.get('gpu')} (compute capability {cc})",
            f"PyTorch itself said so: the build carries {' '.join(archs) or 'other architectures'}, none of which runs "
            f"on sm_{cc.replace('.', '')}. It fails with 'no kernel image is available for execution on the device'.",
            (ev("pasted", w.line), *((ev("pasted", lists[0].line),) if lists else ())),
            plan_remediation(
                facts,
                ctx,
                "torch",
                version,
                "Install a build with kernels for this GPU (newer GPUs need newer CUDA builds; old GPUs need older releases).",
                options=options,
            ),
        )


def check_runtime_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Paddle's device log ("GPU Compute Capability: 8.6, Driver API Version: 11.4, Runtime API Version: 10.2") beside
    "no kernel image is available for execution on the device": the CUDA runtime the build runs is older than the GPU's
    architecture (8.6 came with CUDA 11.1; compat_matrix gpu_arch.toml first_cuda), so no kernel of that build was
    compiled for it, whatever toolkit the machine has (Paddle's own log names the build's runtime, not nvcc's). The
    build for a newer CUDA of the same release fixes it, in the same environment."""
    from gpudoctor.planner.context import gpu_cc
    from gpudoctor.planner.remedy import pip

    failed = _said(facts, "no-kernel-image")
    runtimes = [e for e in _said(facts, "cuda-runtime-said") if e.get("cuda")]
    if not failed or not runtimes:
        return
    said = runtimes[0]
    cuda = said.get("cuda") or ""
    # The capability Paddle printed is the GPU it ran on; without it, the GPUs the text names.
    ccs = [said.get("capability") or ""] if said.get("capability") else [gpu_cc(g, ctx) or "" for g in facts.driver.gpus]
    for cc in ccs:
        target = ctx.matrix.cc_target(cc) if cc else None
        if not (target and target.first_cuda) or ctx.matrix.cuda_can_target(cuda, cc) is not False:
            continue
        if vkey(cuda) >= vkey(target.first_cuda):
            continue  # a runtime newer than the architecture's last CUDA: not this cause (an old GPU, a new build)
        python = where.python_exe(facts)
        yield Finding(
            "framework-arch-unsupported",
            Severity.ERROR,
            "frameworks",
            f"the installed PaddlePaddle is a CUDA {cuda} build: it has no kernels for compute capability {cc} "
            f"(CUDA {target.first_cuda} or newer)",
            f"Paddle's own log says its CUDA runtime is {cuda} on a GPU of compute capability {cc}. CUDA {cuda} cannot "
            f"compile for sm_{cc.replace('.', '')}, so the build carries no kernel for this GPU and its first kernel fails "
            "with 'no kernel image is available for execution on the device'. The runtime is the build's: another CUDA "
            "toolkit, cuDNN or driver on the machine does not change it.",
            (ev("pasted", said.line), ev("pasted", failed[0].line)),
            Remediation(
                f"In the same environment, replace paddlepaddle-gpu with Paddle's build of the same release for CUDA "
                f"{target.first_cuda} or newer (one the driver supports): Paddle's install guide gives those builds as "
                "'postNNN' versions (post112: CUDA 11.2) with the wheel page to install them from; then run_check must "
                f"print a Runtime API Version of {target.first_cuda} or newer.",
                (
                    pip(facts, "uninstall", "-y", "paddlepaddle-gpu"),
                    Cmd(
                        (python, "-c", "import paddle; print(paddle.__version__); paddle.utils.run_check()"),
                        note="after installing the build from Paddle's install guide",
                    ),
                ),
                component="environment",
            ),
        )
        return


def _suggested_cuda(facts: Facts):
    """PyTorch's own choice of the CUDA variant that covers the GPU ("Please install PyTorch with a following CUDA
    configurations: 12.6"), as the build's target where no driver was seen: a single variant named (12.6, the last
    with Maxwell and Pascal) is the newest CUDA the build may have. Several named (a source build with a narrow arch
    list, pytorch/pytorch#164708) decide nothing."""
    from gpudoctor.planner.model import Target
    from gpudoctor.planner.plan import Options

    said = _said(facts, "torch-cuda-configurations")
    cudas = (said[0].get("cudas") or "").split() if said else []
    if len(cudas) != 1 or facts.driver.version:
        return None
    return Options(target=Target(cuda=cudas[0]))


class _NamedGpuSaid:
    """The GPU a text names beside PyTorch's "no kernel image" line, shaped as PyTorch's arch warning is read (its
    `gpu` and the line to cite): _below_every_torch_build's finding takes either."""

    def __init__(self, gpu: str, line: str) -> None:
        self.line = line
        self._gpu = gpu

    def get(self, key: str) -> str | None:
        return self._gpu if key == "gpu" else None


_WHO_SAID = {_NamedGpuSaid: "The text names this GPU beside CUDA's 'no kernel image is available' from PyTorch"}


def _below_every_torch_build(facts: Facts, ctx: Context, cc: str):
    """Where no PyTorch CUDA build in the matrix carries kernels for compute capability `cc` (a Fermi GPU, 2.x): no
    install fixes it, so the finding says the CPU or another GPU (component "gpu": no command, nothing to ask), never
    "install a build with kernels". None where some build runs on it or no arch list is known."""
    from gpudoctor.versions import version_key

    verdicts = [v.runs_on(cc) for r in ctx.matrix.torch_releases for v in r.variants.values()]
    if not cc or not verdicts or any(v is not False for v in verdicts):
        return None
    lowest = min((c for r in ctx.matrix.torch_releases for v in r.variants.values() for c in v.ccs), key=version_key)
    if version_key(cc) >= version_key(lowest):
        return None  # a GPU newer than the builds: a newer release may carry it, so the usual step stands

    def finding(w) -> Finding:
        return Finding(
            "framework-arch-unsupported",
            Severity.ERROR,
            "frameworks",
            f"no PyTorch CUDA build supports the {w.get('gpu')} (compute capability {cc})",
            f"{_WHO_SAID.get(type(w), 'PyTorch itself said so')}, and no PyTorch CUDA build in the compatibility "
            "matrix carries kernels for "
            f"sm_{cc.replace('.', '')}: the oldest architecture any of them carries is sm_{lowest.replace('.', '')}. "
            "Another PyTorch, CUDA toolkit or driver does not change that.",
            (ev("pasted", w.line),),
            _cpu_mode(facts, lowest)
            or Remediation(
                f"Run on the CPU (the installed PyTorch works there: device 'cpu'), or on a GPU of compute capability "
                f"{lowest} or newer. No package install fixes it.",
                (),
                component="gpu",
            ),
        )

    return finding


def _cpu_mode(facts: Facts, lowest: str) -> Remediation | None:
    """The application's own CPU mode for a GPU no PyTorch build has kernels for (app_cpu_mode)."""
    return app_cpu_mode(
        facts,
        "no PyTorch build has kernels for this GPU, so no driver, CUDA or package change helps",
        f"a GPU of compute capability {lowest} or newer runs it on the GPU",
    )


def app_cpu_mode(facts: Facts, why: str, instead: str) -> Remediation | None:
    """The application's own CPU mode (gpudoctor/planner/apps.toml [[cpu_mode]]) where the paste is the application's:
    its options in its settings file on Windows, given to its launcher elsewhere; `why` says why the GPU cannot serve,
    `instead` what would run it on a GPU. None for any other program."""
    from gpudoctor.facts import APP_NAMED, OS_NOT_NAMED
    from gpudoctor.planner.apps import cpu_mode

    said = next((c for c in facts.pasted.cues if c.get("cue") == APP_NAMED), None) if facts.pasted.partial else None
    if said is None or (mode := cpu_mode(said.get("means") or "")) is None:
        return None
    args = " ".join(mode.args)
    line = mode.windows_line.replace("{args}", args)
    windows = (facts.platform.system or "").lower().startswith("win")
    assumed = any(c.get("cue") == OS_NOT_NAMED for c in facts.pasted.cues)
    in_file = f"in {mode.windows_file}, the line `{line}`"
    if windows:
        how, start = f"On Windows, {in_file}, then start {mode.windows_start[0]} again", mode.windows_start
    else:
        how = f"Start {mode.posix_start[0]} with them" + (
            f" (on Windows: {in_file}, then {mode.windows_start[0]})" if assumed else ""
        )
        start = (*mode.posix_start, *mode.args)
    return Remediation(
        f"Run {mode.name} on the CPU with its own options ({args}): {why}. {how}. It is slow; {instead}.",
        (
            Cmd(
                start,
                # (the line itself in the note: the block a reader copies shows what goes into the file)
                note=f"the launcher of {mode.name}" + (f", after {mode.windows_file} has the line {line}" if windows else ""),
            ),
        ),
        component="gpu",
    )


# Where the driver comes from when the text names no system whose recipe is known (a Windows log, a bare traceback):
# said, with the restart after it, instead of a restart command alone (issue 27, kind 7).
_DRIVER_FROM = (
    "(NVIDIA's driver for this GPU: the distribution's packages on Linux, nvidia.com/Download or the NVIDIA App on "
    "Windows), then restart the machine"
)


def check_reported_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    from gpudoctor.checks.frameworks import check_driver_too_old
    from gpudoctor.checks.toolkit import check_newer_than_driver
    from gpudoctor.planner.remedy import driver_install_and_reboot, hosted_notebook, where_run

    said = _said(facts, "driver-too-old-found") + _said(facts, "cuda-driver-insufficient")
    if not said or other_vendor_gpu_only(facts) is not None:
        return
    from gpudoctor.checks.workloads import workload_no_gpu

    if workload_no_gpu(facts, ctx) is not None:
        return  # a container given no GPU says "insufficient" too: gpudoctor.checks.workloads names the request
    from gpudoctor.checks.libraries import explained

    if explained(facts, ctx)[1]:
        return  # CTranslate2's CUDA 12 build on an older driver: gpudoctor.checks.libraries names the build that fits
    if _no_driver_shown_on_windows(facts, said):
        return  # an old driver or none at all: undecided (check_reported_unexplained), the adapters asked for
    frameworks = frameworks_named(facts)
    code = "framework-driver-too-old" if frameworks else "toolkit-newer-than-driver"
    if _emits(check_driver_too_old, facts, ctx, "framework-driver-too-old") or _emits(
        check_newer_than_driver, facts, ctx, "toolkit-newer-than-driver"
    ):
        return
    d = facts.driver
    driver = f"driver {d.version}" if d.version else "the installed driver"
    from gpudoctor.checks.driver import driver_cuda

    up_to, _ = driver_cuda(facts, ctx.matrix)  # the number the status line shows
    supports = f" (it supports CUDA up to {up_to})" if up_to else ""
    who = ", ".join(_TITLES.get(f, f) for f in sorted(frameworks)) if frameworks else "the program"
    upgrade = Remediation(
        "Upgrade the NVIDIA driver to "
        + (_driver_floor(facts, ctx) or "one that supports the CUDA of the build")
        + (", then reboot" if (install := driver_install_and_reboot(facts, None, ctx)) else f" {_DRIVER_FROM}")
        + (f"; or install a build for CUDA <= {up_to}" if up_to else "")
        + ".",
        install,
        requires_root=True,
        component="driver",
        where=where_run(facts),
    )
    if not install and facts.platform.system == "Darwin":
        upgrade = _mac_cuda_driver(upgrade)
    if up_to and (hosted := hosted_notebook(facts)):
        upgrade = _hosted_notebook_driver(hosted, up_to, frameworks)
    if (unpassed := _container_without_driver(facts, said, up_to, upgrade)) is not None:
        yield unpassed
        return
    yield Finding(
        code,
        Severity.ERROR,
        "frameworks" if frameworks else "toolkit",
        f"{who} needs a newer CUDA than {driver} supports{supports}",
        "The CUDA runtime it was built with is newer than this driver supports, as the message says. Either "
        "upgrade the driver, or use a build made for the CUDA this driver supports.",
        tuple(ev("pasted", e.line) for e in said[:2]),
        upgrade,
    )


def _hosted_notebook_driver(hosted: str, up_to: str, frameworks: set[str]) -> Remediation:
    """On a hosted notebook (Colab, Kaggle) the driver is the platform's and the notebook cannot upgrade it, so the way
    out is the other half of the message: the build made for the CUDA this driver serves (the framework with its
    companions, from its own index for that CUDA), or the platform's own build back (a fresh runtime), or a runtime whose
    driver is newer. Threads: NVlabs/few-shot-vid2vid#50 (Colab, driver 418.67, torch with torchvision 0.5: the answer,
    install the PyTorch that matches; plans23 2361), googlecolab/colabtools#1773 (Colab, found version 10010: the Colab
    team points to the bundled torch and a factory reset; tests/pasted/cases/colabtools-1773-*)."""
    torch = "torch" in frameworks or not frameworks
    check = (
        Cmd(("nvidia-smi",), note="the platform's driver and the newest CUDA it serves"),
        Cmd(
            ("python3", "-c", "import torch; print(torch.__version__, torch.version.cuda)"),
            note="the CUDA the installed torch was built for",
        )
        if torch
        else Cmd(("python3", "-m", "pip", "list"), note="the framework builds installed, and the CUDA each names"),
    )
    return Remediation(
        f"The NVIDIA driver of a {hosted} runtime is the platform's: a notebook cannot upgrade it. Install the build "
        f"made for CUDA <= {up_to}, the framework and its companions"
        f"{' (torchvision, torchaudio)' if torch else ''} together from its own index for that CUDA, then restart the "
        "runtime; or return to the runtime's own preinstalled build (a factory reset of the runtime gives a fresh VM); "
        "or choose a runtime or accelerator whose driver serves the build's CUDA.",
        check,
        component="driver",  # the driver's step, whose fix here is no driver: `gpudoctor fix` offers none for it
    )


def _mac_cuda_driver(upgrade: Remediation) -> Remediation:
    """On a Mac the driver CUDA talks to is the "CUDA Driver" package (CUDA.framework and CUDA.kext, with its CUDA
    preference pane), installed and updated apart from the toolkit and run on top of the NVIDIA GPU driver of the macOS
    release (Apple's, or NVIDIA's web driver for that release): "Go to System Preferences > CUDA and update driver
    version if prompted" (gist.github.com/petrbela/e1542b9ec5453c55a57b7e034771e154, a MacBook Pro's CUDA set-up), the
    maintainer's "cuda version is separate from nvidia driver" (torch/cutorch#318). CUDA 10.2 was the last CUDA release
    for macOS (NVIDIA's CUDA 10.2 release notes). No nvidia-smi or distribution package exists there. Threads:
    torch/cutorch#318 (OS X 10.10.5, CUDA Driver 7.5.20, error 35: tests/blind/plans22/cases/2261-*),
    CESNET/GPUJPEG#4 (macOS 10.11.6, CUDA Driver 8.0.63: tests/blind/plans20/cases/2061-*)."""
    return replace(
        upgrade,
        summary=(
            "Update the CUDA Driver for macOS (System Preferences > CUDA > Install CUDA Update, or NVIDIA's CUDA Driver "
            "package for Mac OS X) to the release of the CUDA toolkit the program was built with, or newer; it is "
            "separate from the toolkit and runs on the NVIDIA GPU driver of this macOS release (on a Mac that uses "
            "NVIDIA's web driver, the web driver build for this macOS release too), then restart the Mac. Or rebuild "
            "the program with a toolkit no newer than the installed CUDA Driver (CUDA 10.2 was the last release for "
            "macOS)."
        ),
        commands=(
            Cmd(
                ("system_profiler", "SPDisplaysDataType"),
                pipe=("grep", "-i", "-E", "chipset|vendor"),
                note="the Mac's GPUs: CUDA needs an NVIDIA one",
            ),
            Cmd(("kextstat",), pipe=("grep", "-i", "-E", "cuda|nvidia"), note="the CUDA and NVIDIA kernel extensions loaded"),
            Cmd(("/usr/local/cuda/bin/nvcc", "--version"), note="the toolkit the program was built with"),
        ),
        where="",
    )


def _driver_floor(facts: Facts, ctx: Context) -> str:
    """The least driver the upgrade must reach ("" where unknown), where the driver's version is shown and the build's CUDA is not: the
    toolkit driver of the first CUDA release this driver does not serve (NVIDIA's CUDA release notes, Table 3,
    compat_matrix/cuda_driver.toml; matrix.next_driver_floor). A build for a CUDA past that release needs its own
    release's minimum, which the newest driver for the GPU meets. Threads: apache/mxnet#3486 (352.99; CUDA 8.0 needs
    367.48, and the 367.44 tried was still below it: tests/blind/plans19/cases/1961-*), NVIDIA/nvidia-docker#414
    (367.57 under a CUDA 8.0 GA2 image: 375.26, tests/blind/plans12/cases/1224-*)."""
    from gpudoctor.checks.toolkit import os_name

    d = facts.driver
    row = ctx.matrix.next_driver_floor(d.version, os_name(facts)) if d.version else None
    if row is None:
        return ""
    floor = row.driver(os_name(facts))
    return (
        f"at least {floor} (CUDA {row.label}'s minimum, the first CUDA release driver {d.version} does not serve; a "
        "build for a newer CUDA needs its own CUDA's minimum, which the newest driver for this GPU meets)"
    )


def cuda_floor(facts: Facts, ctx: Context, cuda: str) -> str | None:
    """The least driver a program of `cuda` needs, said where the upgrade is asked for (None where the matrix lists
    none): the toolkit driver of that CUDA release (NVIDIA's CUDA release notes, Table 3, compat_matrix/cuda_driver.toml;
    matrix.min_driver_for_cuda). The deferred step then says what the reads decide: a branch at or past this floor,
    not "one that supports" it. Threads: NVIDIA/nvidia-docker#536 and #543 (an image's cuda>=9.0 on an older host
    driver: 384.81, tests/blind/plans10/cases/1015-*, tests/pasted nvidia-docker-543), pytorch/pytorch#4546 (nvcc 10.1
    beside a CUDA 9.1 driver: 418.39)."""
    from gpudoctor.checks.toolkit import os_name

    return ctx.matrix.min_driver_for_cuda(cuda, os_name(facts)) if cuda else None


def _floor_said(facts: Facts, ctx: Context, cuda: str) -> str:
    """cuda_floor as the upgrade's prose says it ("" where none is known)."""
    floor = cuda_floor(facts, ctx, cuda)
    return f" (at least {floor}, CUDA {cuda}'s minimum driver)" if floor else ""


def _no_driver_shown_on_windows(facts: Facts, said: list) -> bool:
    """CUDA's "driver version is insufficient" (cudaErrorInsufficientDriver, 35) on native Windows with neither an
    NVIDIA GPU nor a driver version shown: the CUDA runtime says the same where it finds no NVIDIA driver at all
    (_container_without_driver below), and a Windows machine with only Intel or AMD graphics runs a CUDA build's
    program as readily as one with an old GeForce driver (roop-unleashed threads of an onnxruntime-gpu CUDA provider on
    Intel and AMD graphics: tests/blind/plans18/cases/1861-*; a CUDA 8 bandwidthTest.exe, tests/blind/plans3/cases/
    209-*). Whether the machine has an NVIDIA GPU and which driver decides the fix (a driver update, or another
    provider), so no upgrade is asserted before nvidia-smi and the adapter list answer. PyTorch's "found version N"
    states the driver's CUDA, so only the runtime's own message is read here."""
    d = facts.driver
    if not (facts.platform.system or "").lower().startswith("win") or facts.platform.wsl:
        return False
    if any(e.kind != "cuda-driver-insufficient" for e in said):
        return False
    return not d.version and not d.cuda_version and not d.gpus


def _container_without_driver(facts: Facts, said: list, up_to: str | None, upgrade: Remediation) -> Finding | None:
    """CUDA's "driver version is insufficient" in a container the text names, with a host driver of a current CUDA
    major (12 or newer) shown: the CUDA runtime says the same where it finds no libcuda at all, which is a container
    started without the NVIDIA runtime. Whether the container has the driver decides it (nvidia-smi inside); the
    driver upgrade stays the other way, for a runtime newer still. PyTorch's "found version N" states the driver's
    CUDA itself, so it is not read here."""
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import container_said, reporters_docker_run

    runtime = container_said(facts)
    if runtime not in ("docker", "podman") or not up_to or (major(up_to) or 0) < 12:
        return None
    if any(e.kind != "cuda-driver-insufficient" for e in said):
        return None
    d = facts.driver
    run = reporters_docker_run(facts, gpus=True) or Cmd(
        ("docker", "run", "--gpus", "all", Placeholder("image")),
        note="with your usual options; in a template (Unraid, Portainer): Extra Parameters --runtime=nvidia and the "
        "variable NVIDIA_VISIBLE_DEVICES=all (or the GPU's UUID)",
    )
    return Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the container was probably started without the GPU: the host's driver is new enough",
        f"The text shows the host's driver {d.version or ''} (CUDA up to {up_to}) and a program in a {runtime} "
        "container that says the driver is insufficient: the CUDA runtime says so too when it finds no driver library "
        "at all, which is a container started without the NVIDIA runtime (no --gpus, no NVIDIA_VISIBLE_DEVICES). "
        "Upgrading the host's driver would not pass the GPU in.",
        tuple(ev("pasted", e.line) for e in said[:2]),
        Remediation(
            "Start the container with the GPU through the NVIDIA container toolkit, then check that nvidia-smi answers "
            "inside it.",
            (
                run,
                Cmd(
                    ("docker", "exec", Placeholder("container"), "nvidia-smi"), note="inside: lists the GPU once it is passed in"
                ),
            ),
            component="container",
            where="the host",
            alternative=replace(
                upgrade,
                summary="Only if nvidia-smi inside the container already shows the driver: the build needs a newer CUDA "
                "still. " + upgrade.summary,
            ),
        ),
    )


def check_reported_toolkit(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvcc --version beside the driver's CUDA version alone (PyTorch's "found version N", a header): the toolkit's
    programs need a newer driver. The fact-based check wants the toolkit's directory and the driver's version."""
    from gpudoctor.checks.toolkit import check_newer_than_driver
    from gpudoctor.planner.remedy import driver_install_and_reboot, where_run

    nvcc, driver_cuda = facts.toolkits.nvcc_on_path_version, facts.driver.cuda_version
    if other_vendor_gpu_only(facts) is not None:
        return
    if not facts.pasted.partial or not nvcc or not driver_cuda or vkey(nvcc)[:2] <= vkey(driver_cuda)[:2]:
        return
    if _emits(check_newer_than_driver, facts, ctx, "toolkit-newer-than-driver") or _emits(
        check_reported_driver, facts, ctx, "toolkit-newer-than-driver"
    ):
        return  # said already, by the fact-based check or from the runtime's own message
    yield Finding(
        "toolkit-newer-than-driver",
        Severity.ERROR,
        "toolkit",
        f"nvcc {nvcc} is newer than the driver supports (CUDA {driver_cuda})",
        f"Programs built with CUDA {'.'.join(nvcc.split('.')[:2])} need a driver that supports it; this one supports "
        f"CUDA up to {driver_cuda}. They fail with 'CUDA driver version is insufficient for CUDA runtime version'.",
        (ev("cmd:nvcc --version", nvcc), ev("driver", f"CUDA {driver_cuda}")),
        Remediation(
            f"Upgrade the NVIDIA driver to one that supports CUDA {'.'.join(nvcc.split('.')[:2])}"
            f"{_floor_said(facts, ctx, '.'.join(nvcc.split('.')[:2]))}, then reboot; or use a "
            f"toolkit for CUDA <= {driver_cuda}.",
            driver_install_and_reboot(facts, None, ctx),
            requires_root=True,
            component="driver",
            where=where_run(facts),
        ),
    )


# conda's CUDA runtime packages: cudatoolkit (CUDA 11 and older; the defaults and conda-forge channels), cuda-cudart
# (NVIDIA's split packages, CUDA 12 on). conda's GPU builds of TensorFlow and PyTorch load it from the environment.
_CONDA_RUNTIME = ("cudatoolkit", "cuda-cudart")


def check_reported_conda_runtime(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A conda environment's CUDA runtime (its cudatoolkit row) beside the driver's version, where no framework build
    states a CUDA of its own (the fact-based driver check judges that): conda's GPU builds run on the environment's
    runtime, so the driver must support that CUDA (NVIDIA's minimum driver per toolkit, compat_matrix/cuda_driver.toml)."""
    from gpudoctor.checks.frameworks import _driver_upgrade, check_driver_too_old
    from gpudoctor.checks.toolkit import check_newer_than_driver, os_name
    from gpudoctor.checks.wheel_majors import tf_gpu, torch_cuda
    from gpudoctor.versions import major_minor

    py = facts.frameworks.python
    d = facts.driver
    if not facts.pasted.partial or not isinstance(py, Found) or py.value.kind != "conda" or not d.version:
        return
    if torch_cuda(facts) is not None or tf_gpu(facts) is not None or other_vendor_gpu_only(facts) is not None:
        return  # a framework's own build decides which CUDA it needs (check_driver_too_old)
    name, version = next(((n, py.value.distributions[n]) for n in _CONDA_RUNTIME if py.value.distributions.get(n)), ("", ""))
    if not version:
        return
    cuda = major_minor(version)
    verdict = ctx.matrix.driver_supports_cuda(d.version, cuda, os_name(facts))
    if verdict.ok or not verdict.known:
        return
    if any(
        _emits(check, facts, ctx, code)
        for check, code in (
            (check_driver_too_old, "framework-driver-too-old"),
            (check_newer_than_driver, "toolkit-newer-than-driver"),
            (check_reported_driver, "framework-driver-too-old"),
            (check_reported_driver, "toolkit-newer-than-driver"),
        )
    ):
        return
    needed = verdict.needed or verdict.floor or "a newer driver"
    frameworks = sorted(frameworks_named(facts) & {"torch", "tensorflow"})
    who = ", ".join(_TITLES[f] for f in frameworks) if frameworks else "CUDA programs"
    yield Finding(
        "framework-driver-too-old" if frameworks else "toolkit-newer-than-driver",
        Severity.ERROR,
        "frameworks" if frameworks else "toolkit",
        f"the conda environment's CUDA runtime ({name} {version}) needs driver >= {needed}; the driver is {d.version}",
        f"{who} in this conda environment {'runs' if len(frameworks) == 1 else 'run'} on its own CUDA {cuda} runtime ({name} {version}), which needs an NVIDIA "
        f"driver >= {needed}; driver {d.version} supports an older CUDA. They fail with 'CUDA driver version is "
        "insufficient for CUDA runtime version' or find no GPU.",
        (ev("dist:" + name, f"{name} {version}"), ev("nvml", f"driver {d.version}")),
        _driver_upgrade(facts, ctx, needed),
        verdict.source,
    )


def check_stated_toolkit_for_tensorflow(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The CUDA toolkit the reporter says they installed ("I installed CUDA 11.8 and cuDNN 8.6") beside a TensorFlow
    whose tested build is of another CUDA major (2.16.1: CUDA 12.3, tensorflow.toml): TensorFlow dlopen()s the sonames
    of its own major (libcudart.so.12), which that toolkit does not have, so it lists no GPU. On Linux (and WSL 2) from
    2.14 the [and-cuda] extra brings the right libraries as NVIDIA's wheels; older releases name the toolkit to install."""
    from gpudoctor.checks.toolkit import os_name
    from gpudoctor.planner.remedy import pip

    said = _said(facts, "cuda-toolkit-said")
    tf = facts.frameworks.tensorflow
    if not said or not isinstance(tf, Found) or os_name(facts) == "windows" or other_vendor_gpu_only(facts) is not None:
        return
    if tf.value.distribution == "tensorflow-cpu" or tf.value.is_cuda_build is False or no_gpu_said(facts) is not None:
        return
    row = ctx.matrix.tensorflow_release(tf.value.version)
    stated = said[-1].get("cuda") or ""
    if row is None or not row.cuda or not stated or major(row.cuda) == major(stated):
        return
    if _emits(_libs_checks, facts, ctx, "framework-cuda-libs-missing"):
        return
    from gpudoctor.planner.pick_tensorflow import AND_CUDA_REPLACED

    version = tf.value.version
    # (2.15.0's [and-cuda] extra does not resolve; its re-release 2.15.0.post1's does: pick_tensorflow)
    pin = AND_CUDA_REPLACED.get(version, version)
    command = (pip(facts, "install", f"tensorflow[and-cuda]=={pin}"),) if row.and_cuda else ()
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"TensorFlow {version} needs CUDA {row.cuda} and cuDNN {row.cudnn}; the CUDA {stated} installed cannot serve it",
        f"TensorFlow {version} is built for CUDA {row.cuda} and cuDNN {row.cudnn} (its tested build) and loads the CUDA "
        f"{major(row.cuda)} libraries by soname; the text says CUDA {stated} was installed, whose libraries are CUDA "
        f"{major(stated)}'s. TensorFlow cannot load them and lists no GPU.",
        (ev("pasted", said[-1].line), ev(tf.source, f"tensorflow {version}")),
        Remediation(
            (
                f"Install TensorFlow {version} with its CUDA libraries as NVIDIA's pip wheels (the [and-cuda] extra: CUDA "
                f"{row.cuda}, cuDNN {row.cudnn}), in the same environment; take the CUDA {stated} directories out of "
                "LD_LIBRARY_PATH where they were added, so that they do not shadow the wheels' libraries."
                + (" In WSL 2 the Windows driver serves CUDA: install no Linux driver there." if facts.platform.wsl else "")
            )
            if row.and_cuda
            else f"Install the CUDA {row.cuda} toolkit and cuDNN {row.cudnn} TensorFlow {version} was built for (its tested "
            "build), or a TensorFlow built for the CUDA installed.",
            command,
            component="tensorflow",
        ),
        row.source,
    )


def _libs_checks(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The checks that already judge a framework's CUDA libraries (on the facts, or from the error texts)."""
    from gpudoctor.checks.frameworks import check_cuda_libs

    yield from check_cuda_libs(facts, ctx)
    yield from check_reported_libraries(facts, ctx)


def check_reported_extension_build(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """torch.utils.cpp_extension's "The detected CUDA version (X) mismatches the version that was used to compile
    PyTorch (Y)" with different majors: building an extension refuses (a minor difference only warns)."""
    from gpudoctor.checks.toolkit import check_torch_major

    # apex's message names PyTorch's CUDA only; its nvcc is the one printed above it ("Compiling cuda extensions
    # with"), read as the toolkit on PATH. A message with neither nvcc is left to the asks.
    shown = facts.toolkits.nvcc_on_path_version or ""
    said = [
        e
        for e in _said(facts, "cuda-version-detected-mismatch")
        if (e.get("nvcc") or shown) and vkey(e.get("nvcc") or shown)[:1] != vkey(e.get("torch") or "")[:1]
    ]
    if not said or _emits(check_torch_major, facts, ctx, "toolkit-torch-major-mismatch"):
        return
    from gpudoctor.facts import ISOLATED_BUILD_TORCH

    own = next((c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == ISOLATED_BUILD_TORCH), "")
    if own and (not shown or vkey(shown)[:1] == vkey(own.partition("|")[0])[:1]):
        # The message's PyTorch is the isolated build's, not the installed one, and nvcc fits the installed torch:
        # checks.catalogued.builds (check_isolated_build_other_torch) says it; no toolkit is to move.
        return
    e = said[0]
    nvcc, torch = e.get("nvcc") or shown, e.get("torch") or "?"
    yield Finding(
        "toolkit-torch-major-mismatch",
        Severity.ERROR,
        "toolkit",
        f"the CUDA toolkit that builds extensions is {nvcc}, PyTorch was built with CUDA {torch}",
        "torch.utils.cpp_extension builds with the toolkit at CUDA_HOME (else the nvcc on PATH) and refuses one of another "
        "CUDA major than PyTorch's, as the message says. PyTorch itself runs; only building the extension fails.",
        (ev("pasted", e.line),),
        _conda_toolkit(facts, torch, nvcc)
        or Remediation(
            f"Build with a CUDA {torch.split('.')[0]}.x toolkit: install one and point CUDA_HOME (and PATH) at it, or "
            f"install a PyTorch build of CUDA {nvcc.split('.')[0]}.x (torchvision and torchaudio "
            "moved with it).",
            (),
            component="toolkit",
        ),
    )


def _conda_toolkit(facts: Facts, torch: str, nvcc: str) -> Remediation | None:
    """In a conda environment, the toolkit of PyTorch's own CUDA goes into that environment from NVIDIA's channel, whose
    label names the release (CUDA Installation Guide for Linux, "Conda Installation": `conda install cuda -c
    nvidia/label/cuda-11.3.0`; labels from 11.3.0 on), and CUDA_HOME points the extension build at it: nothing
    system-wide changes, and PyTorch stays. None outside conda or before 11.3."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.planner.where import conda

    if not conda(facts) or not re.fullmatch(r"\d+\.\d+", torch) or vkey(torch) < vkey("11.3"):
        return None
    return Remediation(
        f"Install CUDA {torch}'s toolkit into the conda environment (PyTorch's own CUDA, so PyTorch stays), then, with "
        "the environment active, point the build at it before building: export CUDA_HOME=$CONDA_PREFIX and put "
        f"$CONDA_PREFIX/bin first on PATH. Or instead install a PyTorch build of CUDA {nvcc.split('.')[0]}.x.",
        (Cmd(("conda", "install", "-c", f"nvidia/label/cuda-{torch}.0", "cuda-toolkit")),),
        component="toolkit",
    )


def _disable_require(facts: Facts, cuda: str) -> Remediation | None:
    """The container toolkit's own switch for an image whose NVIDIA_REQUIRE_CUDA the host's driver does not meet:
    NVIDIA_DISABLE_REQUIRE=true skips the check (NVIDIA/nvidia-container-toolkit internal/config/image/envvars.go and
    cuda_image.go @d34b3046). It helps only within one CUDA major, where the driver runs the image's newer minor by
    minor-version compatibility; across majors the CUDA inside fails instead. None where the driver's CUDA is known to
    be of another major, where the image needs an X.0 (then the driver is of an older major), or before CUDA 11."""
    from gpudoctor.checks.driver import driver_cuda
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import reporters_docker_run

    have, _ = driver_cuda(facts)
    if have and major(have) != major(cuda) or vkey(cuda)[1:2] == (0,) or (major(cuda) or 0) < 11:
        # another major; an X.0 image, which every X.y driver meets (refused: the driver is older than X); or CUDA
        # before 11, which has no minor-version compatibility (CUDA Compatibility guide: from CUDA 11 on)
        return None
    own = reporters_docker_run(facts, gpus=True)
    words = own.argv[2:] if own is not None else ("--gpus", "all", Placeholder("image"))
    return Remediation(
        f"Where the host's driver is a CUDA {major(cuda)}.x driver (nvidia-smi's CUDA Version {major(cuda)}.x), skip "
        "the image's requirement check: minor-version compatibility runs the image on it"
        + ("." if have else "; not with a driver of an older CUDA major, where the CUDA inside fails instead."),
        (
            Cmd(
                ("docker", "run", "-e", "NVIDIA_DISABLE_REQUIRE=true", *words),
                note="the container toolkit's switch for the image's NVIDIA_REQUIRE_CUDA",
            ),
        ),
        component="container",
        where="the host",
    )


def check_reported_container(facts: Facts, ctx: Context) -> Iterable[Finding]:
    from gpudoctor.planner.remedy import driver_install_and_reboot

    if other_vendor_gpu_only(facts) is not None:
        return
    for e in _said(facts, "container-requires-cuda")[:1]:
        d = facts.driver
        # (a message cut inside its condition leaves the version unread: said as unread, never guessed)
        cuda = e.get("cuda")
        needs = f"CUDA {cuda}" if cuda else "a newer CUDA (the version is cut off in the text)"
        yield Finding(
            "toolkit-newer-than-driver",
            Severity.ERROR,
            # the host's driver is what falls short (the image brings its own CUDA; a toolkit on the host plays no part)
            "driver",
            f"the image needs {'CUDA ' + cuda + ', newer' if cuda else 'a newer CUDA'} than the host's driver supports",
            "nvidia-container-cli refused to start the container: the image's NVIDIA_REQUIRE_CUDA asks for "
            f"{'CUDA >= ' + cuda if cuda else 'a CUDA version (cut off in the text)'}, and the host's "
            f"driver{' ' + d.version if d.version else ''} supports an older one. "
            "Upgrade the host's driver, or use an image built for an older CUDA.",
            (ev("pasted", e.line),),
            Remediation(
                f"Upgrade the host's NVIDIA driver to one that supports {needs}{_floor_said(facts, ctx, cuda or '')}, "
                "then reboot; or use an "
                "image built for the CUDA the host's driver supports.",
                driver_install_and_reboot(facts, None, ctx),
                requires_root=True,
                component="driver",
                where="the host",
                alternative=_disable_require(facts, cuda) if cuda else None,
            ),
        )
        return
    for e in _said(facts, "container-driver-floor")[:1]:
        # The same fault said by the image itself: an NGC image's entrypoint names the driver release its CUDA was built
        # for and the host's (triton-inference-server/server nvidia_entrypoint.sh @0794865d), where forward
        # compatibility could not stand in (it runs on data-center GPUs only). The container starts; CUDA inside fails.
        needs, found = e.get("needs") or "", e.get("found") or ""
        yield Finding(
            "toolkit-newer-than-driver",
            Severity.ERROR,
            "driver",
            f"the image was built for NVIDIA driver {needs} or later; the host's is {found}",
            f"The image's entrypoint found the host's driver {found} older than the {needs} its CUDA was built for, "
            "and CUDA's forward compatibility unavailable on this GPU: CUDA fails inside the container. Upgrade the "
            "host's driver, or run an older release of the image, built for a CUDA the driver supports (each "
            "release's notes name the driver it needs).",
            (ev("pasted", e.line),),
            Remediation(
                f"Upgrade the host's NVIDIA driver to {needs} or later, then reboot; or run an older release of the "
                f"image whose release notes ask for driver {found.split('.')[0]} or older.",
                driver_install_and_reboot(facts, None, ctx),
                requires_root=True,
                component="driver",
                where="the host",
            ),
        )


def _cudnn_off_the_path(facts: Facts, e, loaded: str) -> Remediation | None:
    """PyTorch's cuDNN check refusing an older cuDNN that LD_LIBRARY_PATH put first: the pasted LD_LIBRARY_PATH holds
    a directory named for cuDNN, or PyTorch itself says its LD_LIBRARY_PATH holds one (torch/backends/cudnn/__init__.py
    since pytorch/pytorch#80877: "Looks like your LD_LIBRARY_PATH contains incompatible version of cudnn"). The
    loader searches LD_LIBRARY_PATH before the run path that leads a pip wheel to its own cuDNN (torch/lib, or NVIDIA's
    nvidia-cudnn wheel), so the fix is taking that directory off the path, nothing installed; None where neither shows.
    """
    from gpudoctor.cmdline import Cmd, SetEnv
    from gpudoctor.planner.cluster import cluster_node
    from gpudoctor.planner.where import python_step

    entries = facts.platform.env.get("LD_LIBRARY_PATH", "").split(":")
    named = [p for p in entries if "cudnn" in p.lower()]
    # (the directory whose name carries the version that loaded, where several name cuDNN)
    shadow = next((p for p in named if loaded and loaded in p), named[0] if named else None)
    if shadow is None and "LD_LIBRARY_PATH" not in e.line and not e.get("ld_library_path"):
        return None
    check = python_step(facts, "-c", "import torch; print(torch.__version__, torch.backends.cudnn.version())")
    module = (
        (Cmd(("module", "list"), note="if an environment module put it there: module unload it, here and in job scripts"),)
        if cluster_node(facts)
        else ()
    )
    if shadow is not None:
        rest = [p for p in entries if p != shadow]
        return Remediation(
            f"The cuDNN {loaded} that loads comes from {shadow} on LD_LIBRARY_PATH, which the loader searches before "
            "PyTorch's own cuDNN (its wheel's, found through its run path). Take that directory off LD_LIBRARY_PATH "
            "where it is set (an environment module, ~/.bashrc, the job script); nothing needs installing. PyTorch then "
            "loads its own cuDNN.",
            (*module, SetEnv("LD_LIBRARY_PATH", ":".join(rest) or None, note=f"without {shadow}"), check),
            component="cudnn",
        )
    # The same import with LD_LIBRARY_PATH unset for it alone: PyTorch's own cuDNN loads where that variable was the
    # cause, which decides it without changing the shell; the program is then started the same way.
    unset = replace(
        check,
        argv=("env", "-u", "LD_LIBRARY_PATH", *check.argv),
        note=f"without LD_LIBRARY_PATH: PyTorch's own cuDNN loads, not {loaded}, where that variable was the cause",
    )
    return Remediation(
        f"PyTorch says LD_LIBRARY_PATH is set and may hold the cuDNN {loaded} that loads: the loader searches it before "
        "PyTorch's own cuDNN (its wheel's, found through its run path). Where the import below loads PyTorch's own "
        "without it, start the program the same way (env -u LD_LIBRARY_PATH before its command) or take the directory "
        "that holds that libcudnn off LD_LIBRARY_PATH where it is set (an environment module, ~/.bashrc, a container's "
        "ENV); nothing needs installing.",
        (
            *module,
            Cmd(("printenv", "LD_LIBRARY_PATH"), pipe=("tr", ":", "\\n"), note="the directories, in order"),
            unset,
        ),
        component="cudnn",
    )


def _conda_cudnn(facts: Facts, who: str, loaded: str, compiled: str) -> Remediation | None:
    """In a conda environment the cuDNN a framework loads is the environment's own cudnn package (conda puts its
    lib on the run path of the environment's programs), which the solver chose when nothing pinned it: the fix is
    that package at the compiled major.minor (conda's `=X.Y` takes the newest X.Y.*), in the same environment, with
    the environment's CUDA runtime (its cudatoolkit row, where shown) held where it is."""
    from gpudoctor.versions import major_minor

    if not where.conda(facts) or not (mm := major_minor(compiled)):
        return None
    py = facts.frameworks.python
    toolkit = py.value.distributions.get("cudatoolkit") if isinstance(py, Found) else None
    held = (f"cudatoolkit={major_minor(toolkit)}",) if toolkit and major_minor(toolkit) else ()
    return Remediation(
        f"{who} loads the conda environment's cuDNN {loaded}, older than the {compiled} it was compiled with: install "
        f"cuDNN {mm} into the same environment (activated), keeping its CUDA runtime, then run the program again; "
        "the warning is gone when the new cuDNN loads.",
        (
            Cmd(("conda", "list", "cudnn"), note="in the activated environment: the cuDNN package it holds now"),
            Cmd(("conda", "install", *held, f"cudnn={mm}")),
        ),
        component="cudnn",
    )


def _cudnn_stray(facts: Facts, who: str, loaded: str, compiled: str) -> Remediation:
    """A cuDNN the program printed it loaded, of an older major than the one the paste shows it built for or its
    environment holding (gpudoctor.pasted.printed): that cuDNN is installed, and another copy, found first by the
    loader's search (LD_LIBRARY_PATH, then the ldconfig cache, then the system directories), is the one that opened.
    A program that opens cuDNN by that search (Paddle's dynamic loader: FLAGS_cudnn_dir, then the search path,
    PaddlePaddle/Paddle paddle/fluid/platform/dynload/dynamic_loader.cc @da045ad2) does not look in a conda
    environment's lib: the look shows which copies the loader knows and that the environment holds its own, and the
    environment's lib goes first on LD_LIBRARY_PATH, kept for its activations; nothing is installed or removed (the
    stale copy on the system path is the administrator's to clear). Outside a conda environment, the look."""
    from gpudoctor.cmdline import Output
    from gpudoctor.planner.remedy import keep_path, kept, library_dir
    from gpudoctor.planner.where import python_exe, python_step

    looks: tuple[Cmd, ...] = (
        Cmd(("ldconfig", "-p"), pipe=("grep", "libcudnn"), note="the copies of cuDNN the loader's cache knows"),
        Cmd(("printenv", "LD_LIBRARY_PATH"), pipe=("tr", ":", "\\n"), note="the directories searched before it, in order"),
    )
    rerun = (python_step(facts, "-c", "import paddle; paddle.utils.run_check()"),) if who == "Paddle" else ()
    if not where.conda(facts):
        return Remediation(
            f"{who} loads a cuDNN {loaded} found first on the loader's search path, not the cuDNN {compiled} it was "
            f"built for: find which copy the loader picks, and put the directory of a cuDNN {compiled.split('.')[0]} "
            "first on LD_LIBRARY_PATH (or take the stale copy's directory off it).",
            looks,
            component="cudnn",
        )
    lib = Output((python_exe(facts), "-c", "import os, sys; print(os.path.join(sys.prefix, 'lib'))"))
    own = python_step(
        facts, "-c", "import glob, os, sys; print(*sorted(glob.glob(os.path.join(sys.prefix, 'lib', 'libcudnn*'))))"
    )
    return Remediation(
        f"{who} loads a cuDNN {loaded} found first on the loader's search path, not the conda environment's cuDNN "
        f"{compiled}: the loader does not search the environment's lib. Look which copies it knows and that the "
        "environment holds its own, then put the environment's lib first on LD_LIBRARY_PATH and run the program "
        "again; nothing needs installing." + keep_path(facts),
        (*looks, replace(own, note="the environment's own cuDNN"), *kept(facts, (library_dir(facts, (lib,)),)), *rerun),
        component="cudnn",
    )


# TensorFlow 1.x GPU wheels by the cuDNN major they were built with: (first release built for it, the CUDA of every
# release built for it). The tested build configurations (https://www.tensorflow.org/install/source#gpu, Linux GPU):
# tensorflow_gpu-1.0.0 to 1.2.0 CUDA 8 / cuDNN 5.1; 1.3.0 and 1.4.0 CUDA 8 / cuDNN 6; 1.5.0 to 1.12.0 CUDA 9 / cuDNN 7.
_TF1_BY_CUDNN = {5: ("1.0.0", "8.0"), 6: ("1.3.0", "8.0"), 7: ("1.5.0", "9.0")}


def _tf1_built_for(loaded: str, compiled: str) -> str | None:
    """The TensorFlow 1.x release to move to where the cuDNN that loads is of a NEWER major than the one the installed
    build was compiled with (whose "compatibility version" check refuses it): the first release built for the loaded
    major, where that release is built for the same CUDA as the installed one. The installed build got as far as
    loading cuDNN, so its own CUDA runtime loads here, and a release of that CUDA runs on what the machine has; a
    release of another CUDA (cuDNN 6 to 7 is CUDA 8 to 9) would need a toolkit the text does not show."""
    have, want = major(compiled), major(loaded)
    if have is None or want is None or want <= have or have not in _TF1_BY_CUDNN or want not in _TF1_BY_CUDNN:
        return None
    release, cuda = _TF1_BY_CUDNN[want]
    return release if cuda == _TF1_BY_CUDNN[have][1] else None


def _cudnn_minor_differs(facts: Facts, e, loaded: str, compiled: str) -> Finding:
    """TensorFlow 1.x before 1.11 refused a cuDNN of another minor than the one it was compiled with, newer ones too
    (its "compatibility version" line, parsers.error_texts): the cuDNN that loads must be the compiled major.minor.
    The threads' fix is that minor put where TensorFlow loads it (qianguih/voxelnet#50: conda install cudnn=7.0.5 in
    the environment; LeoCHANGcn/Nvidia-docker-Ubuntu-16.04-Unity-Desktop-TensorFlow-with-GPU#1: libcudnn7 7.0.5), or a
    TensorFlow whose check accepts a newer minor (1.11 on: "equal or higher minor version")."""
    from gpudoctor.planner.remedy import pip
    from gpudoctor.planner.where import python_step
    from gpudoctor.versions import major_minor

    mm = major_minor(compiled) or compiled
    who = e.get("program") or "TensorFlow"
    # (PyTorch before 1.0 had the same rule: pytorch/pytorch#1586, parsers.error_texts._TORCH_CUDNN_INT)
    own = (
        "import torch; print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version())"
        if who == "PyTorch"
        else "import tensorflow as tf; print(tf.__version__)"
    )
    looks = (
        python_step(facts, "-c", own),
        Cmd(("ldconfig", "-p"), pipe=("grep", "libcudnn"), note="the copies of cuDNN the loader's cache knows"),
        Cmd(("printenv", "LD_LIBRARY_PATH"), note="the directories searched before the cache"),
    )
    newer = vkey(loaded)[:1] > vkey(compiled)[:1]
    release = _tf1_built_for(loaded, compiled) if newer and who == "TensorFlow" else None
    if where.conda(facts):
        rem = Remediation(
            f"This {who} build accepts only cuDNN {mm}.x: install cuDNN {mm} into the same conda environment "
            f"(activated), then run the program again.",
            (*looks, Cmd(("conda", "list", "cudnn")), Cmd(("conda", "install", f"cudnn={mm}"))),
            component="cudnn",
        )
    elif release:
        # pythonic projects of that era pin TensorFlow 1.x loosely; the release built for the cuDNN the machine holds
        # is a user-level pip step (no root: the threads' reporters on shared servers could not install cuDNN)
        cuda = _TF1_BY_CUDNN[major(loaded) or 0][1]
        rem = Remediation(
            f"The cuDNN that loads ({loaded}) is of a newer major than this {who} build was compiled with ({compiled}), "
            f"and a {who} before 1.11 takes only its own cuDNN major.minor. Install the first {who} release built for "
            f"cuDNN {major(loaded)}, tensorflow-gpu {release} (CUDA {cuda}, like the installed build, whose CUDA "
            "runtime already loads here), in the same environment: no system library changes.",
            (
                *looks[:1],
                pip(facts, "install", f"tensorflow-gpu=={release}"),
                python_step(facts, "-c", "import tensorflow as tf; print(tf.__version__, tf.test.is_gpu_available())"),
            ),
            component="tensorflow",
            alternative=Remediation(
                f"Keep this {who} and put a cuDNN {mm}.x for CUDA {cuda} first on LD_LIBRARY_PATH (unpacked to a "
                "folder of your own; no root needed).",
                looks[1:],
                component="cudnn",
            ),
        )
    elif newer:
        rem = Remediation(
            f"The cuDNN that loads ({loaded}) is of a newer major than this {who} build was compiled with ({compiled}), "
            f"and its check takes only cuDNN {mm}.x: put a cuDNN {mm}.x for the CUDA this build uses where {who} "
            f"loads it (unpacked to its own folder, first on LD_LIBRARY_PATH), or move to a {who} release built for "
            f"cuDNN {major(loaded)} together with the CUDA that release needs.",
            looks,
            component="cudnn",
        )
    else:
        rem = Remediation(
            f"This {who} build accepts only cuDNN {mm}.x (the same major and minor as the {compiled} it was compiled "
            f"with), not {loaded}: put a cuDNN {mm}.x for the same CUDA where {who} loads it (replace the "
            f"{loaded} files in the CUDA directory it loads them from, or unpack {mm}.x to its own folder and put that "
            f"first on LD_LIBRARY_PATH), or move to a {who} release whose check accepts a newer minor "
            f"({who} {'1.0' if who == 'PyTorch' else '1.11'} and later).",
            looks,
            component="cudnn",
        )
    whose = "(PyTorch before 1.0)" if who == "PyTorch" else "(the 'compatibility version' in the message)"
    return Finding(
        "cudnn-too-old",
        Severity.ERROR,
        "cudnn",
        f"cuDNN {loaded} is not the cuDNN {mm} this {who} build requires (compiled with {compiled})",
        f"The cuDNN that loads is {loaded}; the build was compiled with {compiled} and its check "
        f"{whose} accepts only the same major and minor (a newer "
        f"{'major' if newer else 'minor'} is refused too).",
        (ev("pasted", e.line),),
        rem,
    )


def check_reported_cudnn(facts: Facts, ctx: Context) -> Iterable[Finding]:
    from gpudoctor.checks.cudnn import check_cudnn

    said = _said(facts, "cudnn-version-mismatch")
    if not said or _emits(check_cudnn, facts, ctx, "cudnn-too-old"):
        return
    e = said[0]
    loaded, compiled = e.get("loaded") or "", e.get("compiled") or ""
    # the "compatibility version" check refuses any other major.minor: a newer major too, which the generic finding
    # below would call older (tsinghua-rll/VoxelNet-tensorflow#19, charlesq34/pointnet#82)
    if e.get("rule") == "equal-minor" and vkey(loaded)[:2] != vkey(compiled)[:2] and vkey(loaded)[:1] >= vkey(compiled)[:1]:
        yield _cudnn_minor_differs(facts, e, loaded, compiled)
        return
    if vkey(loaded)[:1] == vkey(compiled)[:1] and vkey(loaded)[:3] >= vkey(compiled)[:3]:
        return
    named = frameworks_named(facts) & set(_TITLES)
    # Paddle's own warning names Paddle (its catalogue entry), whose paths frameworks_named does not read
    paddle = e.get("entry") == "paddle-cudnn-older-than-compiled"
    who = e.get("program") or ("Paddle" if paddle else " and ".join(_TITLES[f] for f in sorted(named)) or "the framework")
    # a loaded cuDNN the program printed, of an older major than the one held (pasted.printed): another copy came first
    stray = _cudnn_stray(facts, who, loaded, compiled) if e.get("held") else None
    from gpudoctor.checks.cudnn_wheel import cudnn_wheel_upgrade

    rem = (
        stray
        or _conda_cudnn(facts, who, loaded, compiled)
        or cudnn_wheel_upgrade(facts, who, loaded, compiled)
        or Remediation(
            f"Install cuDNN >= {compiled} (major {compiled.split('.')[0]}) where {who} loads it, or a build of {who} "
            f"made for cuDNN {loaded}; find the copy that loads first (it may shadow a newer one).",
            (),
            component="cudnn",
        )
    )
    again = jax_again(facts, ctx) if named == {"jax"} else None
    if named == {"torch"} and (off := _cudnn_off_the_path(facts, e, loaded)) is not None:
        rem = off
    if again is not None:
        # JAX's own extra brings the cuDNN wheel its release is built for: the step that makes JAX's packages agree.
        rem = Remediation(
            f"Reinstall JAX with jax[cuda{again[0]}]: it brings the nvidia-cudnn-cu{again[0]} wheel its release needs "
            f"(>= {compiled}); a cuDNN {loaded} ahead of it on LD_LIBRARY_PATH would still load first.",
            again[1],
            component="jax",
        )
    yield Finding(
        "cudnn-too-old",
        Severity.ERROR,
        "cudnn",
        f"cuDNN {loaded} is older than {who} requires ({compiled})",
        (
            f"{who} printed the cuDNN it loaded, {loaded} ({e.line.strip()[:120]}), while the paste shows cuDNN "
            f"{compiled} as the one it was built for or its environment holds: a cuDNN of another major, found first, "
            "opened instead, and the build needs its own major."
            if stray
            else f"The cuDNN that loads is {loaded}; the build was compiled with {compiled} and needs the same major and "
            "an equal or newer minor, as the message says."
        ),
        (ev("pasted", e.line),),
        rem,
    )


_CUDA_SONAMES = LazyPattern(r"^(?:lib)?(cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvrtc|nvJitLink|cudnn)")


# A CUDA 10.x-or-older runtime library's soname carries the toolkit's major.minor (libcudart.so.10.2); from CUDA 11 on
# it is the major's (libcudart.so.11.0 for every 11.x), which names no toolkit directory.
_TOOLKIT_SONAME = LazyPattern(r"^lib(?:cudart|cublas|cufft|curand|cusolver|cusparse|nvrtc)\.so\.(?P<cuda>[1-9]\.\d|10\.\d)$")


def _toolkit_lib_dir(facts: Facts, missing: list[str]) -> Remediation | None:
    """The CUDA runtime libraries missing are a toolkit's own, of the version the text says is installed (the form's
    'CUDA version: 10.2' beside libcudart.so.10.2): the toolkit is there and its lib64 is not where the loader looks
    (not in the ldconfig cache, not on LD_LIBRARY_PATH), as with a pip wheel that links the system toolkit's runtime
    (cupy-cudaNNN). Its default directory goes first on LD_LIBRARY_PATH, after a look that it holds the library."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.planner.remedy import keep_path, kept, library_dir

    found = [_TOOLKIT_SONAME.search(s) for s in missing]
    versions = {m.group("cuda") for m in found if m}
    stated = {e.get("cuda") for e in _said(facts, "cuda-version-said")}
    if not all(found) or len(versions) != 1 or not versions <= stated:
        return None
    (cuda,) = versions
    lib64 = f"/usr/local/cuda-{cuda}/lib64"
    return Remediation(
        f"CUDA {cuda} is said to be installed and its runtime is what is missing: put its lib64 (the toolkit's default "
        f"directory, {lib64}; the ls shows the library is there) first on LD_LIBRARY_PATH, in the shell or environment "
        "the program runs in." + keep_path(facts),
        kept(facts, (Cmd(("ls", f"{lib64}/{sorted(missing)[0]}")), library_dir(facts, (lib64,)))),
        component="environment",
    )


# The libraries whose soname carries the CUDA major from CUDA 11 on (libcudart.so.12, libnvrtc.so.12, libcublas.so.12):
# a toolkit directory of that major holds them (cuFFT's and cuRAND's sonames count their own versions).
_CUDA_MAJOR_SONAME = LazyPattern(r"^lib(?:cudart|nvrtc|cublas|cublasLt|nvJitLink)\.so\.(?P<major>1[1-9])$")


def _shown_lib_dir(facts: Facts, missing: list[str]) -> Remediation | None:
    """The libraries missing belong to a CUDA major whose toolkit library directory the text itself shows (an RPATH,
    an ls, a site's software tree): the library is there, and the loader does not search there (a library opened with
    dlopen by its soname ignores the RPATH of the module that opens it). That directory goes first on LD_LIBRARY_PATH,
    after a look that it holds the library; on a cluster the site's CUDA module sets it."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.planner.cluster import cluster_node
    from gpudoctor.planner.remedy import keep_path, kept, library_dir

    majors = {m.group("major") for s in missing if (m := _CUDA_MAJOR_SONAME.match(s))}
    if len(majors) != 1 or not all(_CUDA_MAJOR_SONAME.match(s) for s in missing):
        return None
    (major,) = majors
    dirs = [e.get("path") for e in _said(facts, "cuda-lib-dir-said") if (e.get("cuda") or "").split(".")[0] == major]
    if not dirs:
        return None
    lib = next((d for d in dirs if d.endswith("/lib64")), dirs[0])
    return Remediation(
        f"The text shows CUDA {major}'s library directory, {lib}: the library is there and the loader does not search "
        "it. Put it first on LD_LIBRARY_PATH in every shell and job that runs the program"
        + (" (the site's CUDA module, `module load cuda`, sets it where one is provided)" if cluster_node(facts) else "")
        + "."
        + keep_path(facts),
        kept(facts, (Cmd(("ls", f"{lib}/{sorted(missing)[0]}")), library_dir(facts, (lib,)))),
        component="environment",
    )


# The CUDA major of a runtime library's soname from CUDA 11 on, also as a title writes it (libcudart.so.11.0: 11).
_MAJOR_OF_SONAME = LazyPattern(r"^lib(?:cudart|nvrtc|cublas|cublasLt|nvJitLink)\.so\.(?P<major>1[1-9])(?:\.0)?$")

# The directory of the first copy of a library ($1) on the machine; nothing, and a failure, where there is none (so
# that the export that takes it adds nothing). find's own status is not read: it is 1 after any unreadable directory.
_FIRST_COPY_DIR = 'f=$(find / -name "$1" -not -path "/proc/*" -print -quit 2>/dev/null); [ -n "$f" ] && dirname "$f"'


def _native_program_lib_dir(facts: Facts, missing: list[str], frameworks: set[str]) -> Remediation | None:
    """The loader's own message at a program's start, "error while loading shared libraries: libcudart.so.11.0" (glibc's
    ld.so, before main: the form only an executable linked against the library prints; a Python module's dlopen says
    "cannot open shared object file" inside an ImportError instead), for a CUDA runtime library with no framework
    named: a native CUDA program (a miner, a course's CUDA program, a compiled client) built against a toolkit that is
    installed where the loader does not search, or not at all. No wheel or framework extra is the fix: the directory
    holding the library goes first on LD_LIBRARY_PATH, after the look that finds it (no -xdev: a cluster's /opt, where
    an HPC SDK or a module tree keeps its toolkits, is often another file system), then ldd shows it resolved.
    Threads: KlausT/ccminer#149 (libcudart.so.9.0, fixed by LD_LIBRARY_PATH=/usr/local/cuda/lib64, tests/pasted/cases/
    ccminer-149-*), tonyyxliu/CUHKSZ-CSC4005#69 (libcudart.so.11.0 of an NVHPC SDK, tests/blind/plans19/cases/1967-*)."""
    from gpudoctor.cmdline import Cmd, Output, Placeholder
    from gpudoctor.planner.cluster import cluster_node
    from gpudoctor.planner.remedy import keep_path, kept, library_dir

    started = {e.get("soname") for e in _said(facts, "library-missing") if "error while loading shared libraries" in e.line}
    if frameworks or not missing or not set(missing) <= started:
        return None
    first = sorted(missing)[0]
    stem = first.split(".so", 1)[0]
    toolkit = _TOOLKIT_SONAME.search(first)
    major = _MAJOR_OF_SONAME.match(first)
    of = f"CUDA {toolkit.group('cuda')}'s" if toolkit else f"a CUDA {major.group('major')}.x" if major else "the CUDA"
    return Remediation(
        f"The loader's message at the program's start: it is a native program linked against {first}, the runtime of "
        f"{of} toolkit, and the loader does not find that library. Find where the toolkit (or an HPC SDK) keeps it, put "
        "that directory first on LD_LIBRARY_PATH, exported, in the shell or job script that starts the program, and "
        f"check with ldd that it resolves. Only where find prints nothing is {of} toolkit absent: then install it, or "
        "use a build of the program made for the CUDA that is installed"
        + (
            "; on a cluster the site's module for that toolkit (`module avail`, `module load`) sets the variable"
            if cluster_node(facts)
            else ""
        )
        + "."
        + keep_path(facts),
        kept(
            facts,
            (
                Cmd(("find", "/", "-name", f"{first}*", "-not", "-path", "/proc/*"), note="the copies there are"),
                library_dir(
                    facts,
                    (Output(("sh", "-c", _FIRST_COPY_DIR, "sh", first)),),
                    note="the first copy's directory; with several, the one of the toolkit the program was built with",
                ),
                Cmd(("ldd", Placeholder("program")), pipe=("grep", "-E", f"{stem}|not found"), note=f"{first} => that directory"),
            ),
        ),
        component="environment",
    )


# Where NVIDIA's cuDNN install guide (tar archive: "sudo cp cuda/lib64/libcudnn* /usr/local/cuda/lib64") puts cuDNN.
_CUDNN_ARCHIVE_DIR = "/usr/local/cuda/lib64"


def _cudnn_dev_name(facts: Facts, missing: list[str], frameworks: set[str]) -> Remediation | None:
    """A program that opens cuDNN by its development name, the unversioned libcudnn.so (Paddle's dynamic loader on
    Linux: GetDsoHandleFromSearchPath(FLAGS_cudnn_dir, "libcudnn.so", ...), PaddlePaddle/Paddle
    paddle/fluid/platform/dynload/dynamic_loader.cc @da045ad2), is not a wheel's user: PyTorch, TensorFlow and JAX open
    a major's soname (libcudnn.so.8), which NVIDIA's cudnn wheels hold. That name is the link the cuDNN archive's lib64
    (and the libcudnnN-dev package) holds beside libcudnn.so.N, in a directory the loader is not told of: the look
    finds it, that directory goes first on LD_LIBRARY_PATH, and a missing link is made there."""
    from gpudoctor.checks.library_copy import look_and_export
    from gpudoctor.planner.remedy import keep_path, kept

    if missing != ["libcudnn.so"] or frameworks & set(_TITLES):
        return None
    # Where the copy is, the look decides, not the install guide's folder: a cuDNN unpacked elsewhere, or a conda or
    # pip one, is as likely (opendatalab/PDF-Extract-Kit#77, tests/blind/plans21/cases/2134-*, its reviewer).
    return Remediation(
        "The program opens cuDNN by its development name, libcudnn.so: the link that NVIDIA's cuDNN archive (copied "
        f"into {_CUDNN_ARCHIVE_DIR} by its install guide) and the libcudnnN-dev package hold beside libcudnn.so.N. "
        "Look where cuDNN is, put the directory of the first copy found first on LD_LIBRARY_PATH (the line sets "
        "nothing where none is found), and where the listing shows libcudnn.so.N without libcudnn.so, make the link "
        "in that directory (ln -s libcudnn.so.N libcudnn.so, N as listed, with sudo outside your own folders); then "
        "run the program again." + keep_path(facts),
        kept(
            facts,
            (
                Cmd(("ldconfig", "-p"), pipe=("grep", "libcudnn"), note="the copies the loader's cache knows"),
                *look_and_export(facts, "libcudnn", "libcudnn.so*"),
            ),
        ),
        component="cudnn",
    )


def check_reported_libraries(facts: Facts, ctx: Context) -> Iterable[Finding]:
    from gpudoctor.checks.cudnn import check_cudnn
    from gpudoctor.checks.frameworks import check_cuda_libs

    if not facts.pasted.partial or facts.platform.system.lower().startswith("win") or no_gpu_said(facts) is not None:
        return  # DLL search on Windows: the Windows checks judge it (no GPU said: nothing to load libraries for)
    from gpudoctor.checks.libraries import cudnn8_wheels_by_cuda, explained
    from gpudoctor.checks.library_copy import found_copy_dir
    from gpudoctor.planner.remedy import shown_library_dir

    judged, _ = explained(facts, ctx)  # a library's own build explains them (gpudoctor.checks.libraries)
    # A library the linker could not find at a build (ld's -lNAME, parsers.library_lines' link side) is no load
    # failure: checks.catalogued.builds.check_link_cuda_libraries puts its folder where the linker looks.
    linked = {e.get("soname") for e in _said(facts, "library-missing") if e.get("side") == "link"}
    missing = [m for m in facts.pasted.missing if _CUDA_SONAMES.match(m) and m not in judged and m not in linked]
    cudnn = [m for m in missing if "cudnn" in m]
    others = [m for m in missing if "cudnn" not in m]
    frameworks = frameworks_named(facts)
    if others and not _emits(check_cuda_libs, facts, ctx, "framework-cuda-libs-missing"):
        who = " and ".join(_TITLES.get(f, f) for f in sorted(frameworks)) or "the program"
        yield Finding(
            "framework-cuda-libs-missing",
            Severity.ERROR,
            "frameworks",
            f"{who} cannot load its CUDA libraries: {', '.join(others)}",
            "The dynamic loader found none of them, as the pasted log says: they are not installed, or not where it "
            "searches (LD_LIBRARY_PATH, the ldconfig cache, NVIDIA's pip wheels).",
            tuple(ev("pasted", f"{m}: cannot be loaded") for m in others),
            shown_library_dir(facts, others, "environment")
            or _toolkit_lib_dir(facts, others)
            or _shown_lib_dir(facts, others)
            or _native_program_lib_dir(facts, others, frameworks)
            or found_copy_dir(
                facts,
                others,
                "install the CUDA libraries of the framework's CUDA version where it loads them (for pip installs, "
                "the framework's CUDA extra installs NVIDIA's wheels)",
                "environment",
            )
            or Remediation(
                "Install the CUDA libraries of the framework's CUDA version where it loads them (for pip installs, the "
                "framework's CUDA extra installs NVIDIA's wheels), or add their directory to LD_LIBRARY_PATH.",
                (),
                component="environment",
            ),
        )
    if cudnn and not _emits(check_cudnn, facts, ctx, "cudnn-missing"):
        yield Finding(
            "cudnn-missing",
            Severity.ERROR,
            "cudnn",
            f"{', '.join(cudnn)} cannot be loaded",
            "The dynamic loader found no cuDNN of this major, as the pasted log says.",
            tuple(ev("pasted", f"{m}: cannot be loaded") for m in cudnn),
            shown_library_dir(facts, cudnn, "cudnn")
            or _cudnn_dev_name(facts, cudnn, frameworks)
            or (cudnn8_wheels_by_cuda(facts, ctx, cudnn[0]) if len(cudnn) == 1 and not frameworks else None)
            or found_copy_dir(
                facts,
                cudnn,
                "install cuDNN of that major for the framework's CUDA where it loads it (NVIDIA's nvidia-cudnn-cuNN "
                "wheel for pip installs)",
                "cudnn",
            )
            or Remediation(
                "Install cuDNN of that major for the framework's CUDA where it loads it (NVIDIA's nvidia-cudnn-cuNN "
                "wheel for pip installs), or add its directory to LD_LIBRARY_PATH.",
                (),
                component="cudnn",
            ),
        )


def check_reported_driver_missing(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """modprobe found no nvidia module for the running kernel: no driver can load (a kernel upgraded past a
    driver installed without DKMS, or a module that failed to build). The fact-based check wants the PCI bus."""
    from gpudoctor.checks.driver import check_driver_missing
    from gpudoctor.planner.remedy import driver_install_and_reboot

    if other_vendor_gpu_only(facts) is not None:
        return
    said = _said(facts, "nvidia-module-missing")
    if not said or facts.driver.reachable or _emits(check_driver_missing, facts, ctx, "driver-missing"):
        return
    yield Finding(
        "driver-missing",
        Severity.ERROR,
        "driver",
        "no NVIDIA kernel module exists for the running kernel",
        "modprobe found no nvidia module, as the text shows: the driver was built for another kernel (one installed "
        "without DKMS does not follow a kernel upgrade) or its module failed to build, so nothing can reach the GPU.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Install the driver so that its module is built for the running kernel (the distribution's packages, or the "
            ".run installer with --dkms), then reboot.",
            driver_install_and_reboot(facts, None, ctx),
            requires_root=True,
            component="driver",
        ),
    )


# The driver's user-space libraries by soname, as a loader error names them (libcuda.so.1, libnvidia-ml.so.1).
_DRIVER_SONAME = LazyPattern(r"^lib(?:cuda|nvidia-ml)\.so(?:\.1)?$")


def check_reported_container_gpu(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A container started without GPU access (docker run without --gpus or the NVIDIA runtime), where the
    text also shows the GPU unusable inside it."""
    from gpudoctor.checks.driver import smi_in_gpu_less_container
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import reporters_docker_run

    if other_vendor_gpu_only(facts) is not None:
        return

    if zero := _said(facts, "docker-run-gpus-zero"):
        yield _gpus_zero(facts, zero[0])
        return
    # The host's driver may well work (its nvidia-smi pasted beside): the container still has no GPU.
    started = _said(facts, "docker-run-without-gpus")
    if not started:
        return
    # ...and the GPU shown unusable inside it (a default runtime of nvidia in daemon.json needs no --gpus).
    unusable = [
        e
        for e in facts.pasted.errors
        # (image-driver-not-detected: NVIDIA images' start banner, catalogue image-nvidia-driver-not-detected)
        if e.kind in ("nvidia-smi-not-found", "cuda-unavailable", "tf-not-built-with-cuda", "image-driver-not-detected")
        or (e.kind == "nvml" and e.get("code") == "cuda-no-device")
        # nvidia-smi inside finds no /dev/nvidiactl: a container given the driver's files by hand (-v mounts of
        # /usr/bin, /usr/lib64/nvidia), but no device nodes, which only the NVIDIA runtime passes in
        # (checks.driver.smi_in_gpu_less_container)
        or (e.kind == "nvml" and e.get("code") == "driver-unreachable" and smi_in_gpu_less_container(facts, requested=True))
        # the driver's own user-space library, which no CUDA image ships: the NVIDIA Container Toolkit mounts it
        # from the host into a container that asks for a GPU, and into no other ("unset: the same behaviour as
        # runc, neither GPUs nor capabilities exposed"; `compute` is libcuda, `utility` libnvidia-ml: "Specialized
        # Configurations with Docker", https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/1.20.2/
        # docker-specialized.html)
        or (e.kind == "library-missing" and _DRIVER_SONAME.match(e.get("soname") or ""))
    ]
    if not unusable:
        return
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the container was started without access to the GPU",
        "The docker run shown has neither --gpus nor the NVIDIA runtime, so the container gets no GPU device and no "
        "driver library; the framework inside sees no GPU. Installing a driver inside the container does not help.",
        (ev("pasted", started[0].line),),
        Remediation(
            "Start the container with GPU access (the NVIDIA Container Toolkit installed and configured on the host).",
            (reporters_docker_run(facts, gpus=True) or Cmd(("docker", "run", "--gpus", "all", Placeholder("image"))),),
            component="container",
            where="the host",
        ),
    )


def _gpus_zero(facts: Facts, e) -> Finding:
    """`docker run --gpus 0`: docker's --gpus reads a bare number as a count (docker/cli opts/gpus.go, parseCount @
    29e34aba), so the container asks for no GPU and gets none; a GPU by index is `--gpus device=0`."""
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import reporters_docker_run

    run = reporters_docker_run(facts, gpus=True) or Cmd(
        ("docker", "run", "--gpus", "all", Placeholder("image")), note="your docker run with --gpus all for --gpus 0"
    )
    return Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the container was started with --gpus 0, which asks for no GPU",
        "Docker reads a number after --gpus as a count of GPUs, so '--gpus 0' gives the container zero GPUs and no "
        "driver library; the program inside finds no NVIDIA GPU. '--gpus all' gives it every GPU ('--gpus device=0' "
        "the first one). Nothing needs installing in the container, nor a driver beside the host's.",
        (ev("pasted", e.line),),
        Remediation(
            "Start the container again with --gpus all instead of --gpus 0.",
            (run, Cmd(("docker", "exec", Placeholder("container"), "nvidia-smi"), note="the GPU is seen inside")),
            component="container",
            where="the host",
        ),
    )


def check_reported_cpu_build(facts: Facts, ctx: Context) -> Iterable[Finding]:
    from gpudoctor.checks.frameworks import check_cpu_build, plan_remediation

    if not facts.pasted.partial or _emits(check_cpu_build, facts, ctx, "framework-cpu-build"):
        return
    for e in _said(facts, "torch-not-compiled-with-cuda")[:1]:
        version = _torch_version(facts)
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            f"{'PyTorch ' + version if version else 'the installed PyTorch'} is a CPU-only build",
            (
                # (catalogue torch-cpu-build-no-cuda-binding: a torch.cuda function reached the missing binding first)
                "Python said so: torch._C has none of PyTorch's CUDA functions ('"
                + e.line.strip()[-120:]
                + "'), as in every build without CUDA: it cannot use the GPU however the driver is set up."
                if e.get("entry") == "torch-cpu-build-no-cuda-binding"
                else "PyTorch said so ('Torch not compiled with CUDA enabled'): it cannot use the GPU however the driver is "
                "set up."
            ),
            (ev("pasted", e.line),),
            plan_remediation(facts, ctx, "torch", version, "Install a CUDA build of PyTorch.", by_driver=True),
        )
    for e in _said(facts, "jaxlib-cpu-fallback")[:1]:
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            "JAX has no CUDA-enabled jaxlib and runs on the CPU",
            "JAX said so ('a CUDA-enabled jaxlib is not installed. Falling back to cpu'): the CUDA plugin (or a CUDA "
            "jaxlib) is missing or does not load.",
            (ev("pasted", e.line),),
            _jax_conda_fresh(facts, ctx)
            or _jax_fix(facts, ctx, "Install JAX with its CUDA plugin (jax[cudaNN]), jax, jaxlib and the plugin at one version."),
        )


def check_reported_jax(facts: Facts, ctx: Context) -> Iterable[Finding]:
    from gpudoctor.checks.frameworks import check_jax_versions

    said = _said(facts, "pjrt-plugin-mismatch") + _said(facts, "jax-plugin-incompatible")
    api = _said(facts, "jax-plugin-api-missing")
    # jax's own import check, its first test: jaxlib older than the installed jax's minimum (jax/_src/lib/__init__.py
    # @25fb3640). The message names jaxlib's version and jax's minimum, not jax's version, so check_jax_versions (which
    # judges the pair) cannot: the message itself decides.
    older = [e for e in _said(facts, "jaxlib-jax-mismatch") if e.get("needs")]
    if older and not (said or api) and not _emits(check_jax_versions, facts, ctx, "jax-plugin-mismatch"):
        yield Finding(
            "jax-plugin-mismatch",
            Severity.ERROR,
            "frameworks",
            f"jaxlib {older[0].get('jaxlib')} is older than the installed jax needs ({older[0].get('needs')})",
            "jax refused to import: its jaxlib is from an older release than jax requires (the two were installed "
            "separately, or one was upgraded alone). jax, jaxlib and the CUDA plugin go together, at one version.",
            (ev("pasted", older[0].line),),
            # Not _jax_fix: it agrees on the versions shown, and only jaxlib's is; the one to install is jax's own,
            # which the catalogue's ask (pip list) shows.
            Remediation(
                f"Install jaxlib of the installed jax's release (at least {older[0].get('needs')}) together with jax and "
                "its CUDA plugin, in one command: jax's version was not shown (pip list decides it).",
                (),
                component="jax",
            ),
        )
        return
    if not (said or api) or _emits(check_jax_versions, facts, ctx, "jax-plugin-mismatch"):
        return
    yield Finding(
        "jax-plugin-mismatch",
        Severity.ERROR,
        "frameworks",
        "JAX's CUDA plugin does not match the installed jax and jaxlib",
        (
            "The CUDA plugin (jax-cudaNN-plugin / -pjrt) was built for another PJRT API version than jax and jaxlib, as "
            "the message says; newer plugins crash instead of saying so."
            if said
            else "The traceback ends in the CUDA plugin's initialize() (jax_plugins), calling a jaxlib API the installed "
            "jaxlib does not have: the plugin (jax-cudaNN-plugin with its jax-cudaNN-pjrt) is of a later release than "
            "jaxlib, and each plugin release works only with the jaxlib of its own version. The driver, CUDA and "
            "cuDNN are not involved."
        ),
        (ev("pasted", (said or api)[0].line),),
        (None if said else _plugin_to_jaxlib(facts, ctx, api[0].get("plugin") or ""))
        or _jax_fix(facts, ctx, "Install jax, jaxlib and the CUDA plugin at one version, in one command."),
    )


def _plugin_to_jaxlib(facts: Facts, ctx: Context, plugin: str) -> Remediation | None:
    """The CUDA plugin (its module xla_cudaNN) brought back to the jax and jaxlib shown: jax's own CUDA extra of their
    release, which pins jaxlib, jax-cudaNN-plugin and (through it) jax-cudaNN-pjrt to releases made for it, so pip
    moves the newer plugin down with nothing removed first (jax 0.4.35's cuda12 extra, its index metadata: jaxlib==0.4.34,
    jax-cuda12-plugin[with_cuda]>=0.4.34,<=0.4.35; the plugin requires jax-cuda12-pjrt of its own version). None where the versions were not
    shown or the matrix has no CUDA build of that release for the plugin's major."""
    from gpudoctor.planner import commands, pick_jax
    from gpudoctor.planner.machine import machine_from_facts

    j = facts.frameworks.jax
    m = re.fullmatch(r"xla_cuda(\d{2})", plugin)
    if not isinstance(j, Found) or m is None:
        return None
    installed = {k: v for k, v in (("jax", j.value.jax), ("jaxlib", j.value.jaxlib)) if v}
    version = pick_jax.agreed_version(ctx.matrix, installed)
    if version is None:
        return None
    build = next(
        (b for _, builds in pick_jax.groups(ctx.matrix, version) for b in builds if b.variant == f"cuda{m.group(1)}"), None
    )
    if build is None:
        return None
    machine = machine_from_facts(facts, ctx)
    installer = "uv" if machine.env.uv and not machine.env.has_pip else "pip"
    return Remediation(
        f"Bring the CUDA plugin back to the installed JAX {version}: {build.specs[0]} pins jaxlib, "
        f"jax-cuda{m.group(1)}-plugin and its PJRT to releases made for jax {version} (pip moves the newer plugin "
        "down), in the interpreter that runs the program. Or upgrade all of them together to the current release "
        f"(jax[cuda{m.group(1)}], upgraded).",
        (
            where.in_tool(facts, Cmd(commands.install_argv(installer, machine.env, build.specs, find_links=build.find_links))),
            replace(
                where.python_step(facts, "-c", "import jax, jaxlib; print(jax.__version__, jaxlib.__version__, jax.devices())"),
                note="a CUDA device listed",
            ),
        ),
        component="jax",
    )


# The companions PyTorch publishes with each torch release, each built for that release only.
_TORCH_FAMILY = ("torchvision", "torchaudio", "torchtext")


def check_reported_torch_pulled(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """pip collecting the torch a package being installed pins exactly ("Collecting torch==2.0.0 (from
    xformers==0.0.19)") over another torch the text shows installed (a listing before the install, or pip's own
    "Successfully uninstalled torch-2.0.1+cu118"): pip replaces torch, and the companions built for the torch that
    was there (torchvision, torchaudio) no longer match it. The fix keeps that torch: the package's release built for
    it (the matrix's pairing table), whose pin it already satisfies."""
    from gpudoctor.planner.remedy import pip

    pinned = _said(facts, "pip-torch-pinned-by")
    if not pinned:
        return
    e = pinned[-1]
    wanted, package, version = e.get("torch") or "", canonical_name(e.get("package") or ""), e.get("version") or ""
    removed = _said(facts, "pip-torch-removed")
    py = facts.frameworks.python
    dists = py.value.distributions if isinstance(py, Found) else {}
    before = removed[-1].get("torch") if removed else dists.get("torch")
    if not before or package in ("torch", *_TORCH_FAMILY) or vkey(before.split("+")[0]) == vkey(wanted.split("+")[0]):
        return
    base = before.split("+")[0]
    left = [f"{n} {dists[n]}" for n in _TORCH_FAMILY if n in dists]
    row = ctx.matrix.companion_for(package, base)
    evidence = (ev("pasted", e.line),) + ((ev("pasted", removed[-1].line),) if removed else ())
    why = (
        f"pip's resolver says so ('{e.line.strip()}'): {package} {version} requires torch=={wanted}, so installing it "
        f"replaces the torch that was there, {before}, with the package index's {wanted}"
        + (f", and {', '.join(left)}, built for torch {base}, no longer match it" if left else "")
        + " (expect 'operator torchvision::nms does not exist' or undefined symbols at import). The GPU, the driver "
        "and CUDA are not involved."
    )
    if row is not None:
        remedy = Remediation(
            f"Install the {package} release built for torch {base} instead: {package}=={row.version} requires torch "
            f"{base}, which the installed {before} satisfies, so torch and its companions stay. If torch was already "
            f"replaced, the same command brings torch {base} back (reinstall its companions at the same time if they "
            "were moved).",
            (
                pip(facts, "install", f"{package}=={row.version}"),
                replace(
                    where.python_step(
                        facts, "-c", f"import torch, {package.replace('-', '_')} as m; print(torch.__version__, m.__version__)"
                    ),
                    note=f"torch {base} and {package} {row.version}",
                ),
            ),
            component="torch",
        )
    else:
        remedy = Remediation(
            f"Keep torch {before}: install the {package} release built for it (the compatibility matrix pairs none of "
            f"{package} with torch {base}), or move torch, torchvision and torchaudio together to a release {package} "
            f"{version} supports.",
            (),
            component="torch",
        )
    yield Finding(
        "companion-torch-mismatch",
        Severity.ERROR,
        "frameworks",
        f"{package} {version} pins torch {wanted}, so pip replaces the installed torch {before}",
        why,
        evidence,
        remedy,
    )


def jax_again(facts: Facts, ctx: Context) -> tuple[str, tuple[Cmd, ...]] | None:
    """(CUDA major, commands) that put JAX's packages of the CUDA major a paste names (gpudoctor.facts.JAX_CUDA_SAID) at
    one release: jax's own extra, upgraded, pins the other three exactly (jax 0.4.30's cuda12 extra: jaxlib==0.4.30,
    jax-cuda12-plugin[with_cuda]==0.4.30, whose own pin is jax-cuda12-pjrt==0.4.30), so pip replaces whichever of them
    is of another release, nothing removed first; pip picks the newest release for the environment's Python. None
    where no major was named, or where the newest release the matrix knows has no plugin for it (jax[cuda11] ended
    with CUDA 11's builds)."""
    from gpudoctor.planner import pick_jax
    from gpudoctor.planner.remedy import pip

    major = next((c.get("means") for c in facts.pasted.cues if c.get("cue") == JAX_CUDA_SAID), None)
    newest = pick_jax.groups(ctx.matrix, None)[:1]
    if not major or not newest or not any(b.specs[0].startswith(f"jax[cuda{major}]") for b in newest[0][1]):
        return None
    return major, (pip(facts, "install", "-U", f"jax[cuda{major}]"),)


# A conda install that names jax or jaxlib among its packages.
_CONDA_JAX = LazyPattern(r"\binstall\b.*?(?<![\w-])jax(?:lib)?(?![\w-])")
# The environment the fresh route creates (a name of gpudoctor's, beside the one that fell back).
_JAX_ENV = "jax-cuda"


def _jax_conda_fresh(facts: Facts, ctx: Context) -> Remediation | None:
    """JAX fell back to the CPU in an environment conda built with jax/jaxlib (the paste shows the conda install): a
    fresh conda environment with jax's own pip CUDA extra, NVIDIA's supported route (JAX's installation guide: the pip
    jax[cudaNN] wheels are the supported NVIDIA GPU install, the conda-forge builds community-supported), never pip on
    top of conda's jaxlib in the same environment, where the two installers' copies of jaxlib collide. The CUDA major
    is the one the paste names (gpudoctor.facts.JAX_CUDA_SAID) where jax's newest release has a plugin for it; None
    where the paste shows no conda install of JAX or names no major."""
    said = [e for e in _said(facts, "conda-install-said") if _CONDA_JAX.search(e.line)]
    again = jax_again(facts, ctx) if said else None
    if again is None:
        return None
    cuda = f"jax[cuda{again[0]}]"
    env = facts.frameworks.python
    shown = re.match(r"^(\d+\.\d+)", env.value.version or "") if isinstance(env, Found) else None
    python = shown.group(1) if shown else None  # the environment's Python where the paste shows it, else conda's newest
    return Remediation(
        "The jaxlib conda installed has no CUDA backend that loads. Check its build in that environment, then give "
        f"JAX its own pip CUDA wheels ({cuda}, which bring the CUDA libraries they need) in a fresh conda "
        "environment; pip over conda's jaxlib in the same environment leaves two copies.",
        (
            Cmd(
                ("conda", "list", "^(jax|jaxlib|jax-cuda\\d+-plugin|cuda-version|cuda-nvcc|cudnn)$"),
                note="in the environment that fell back: a jaxlib build string without cuda is the CPU build",
            ),
            # `conda run -n ENV` runs the command in that environment without activating it in this shell
            Cmd(("conda", "create", "-y", "-n", _JAX_ENV, f"python={python}" if python else "python", "pip")),
            Cmd(("conda", "run", "-n", _JAX_ENV, "python", "-m", "pip", "install", "-U", cuda)),
            Cmd(("conda", "run", "-n", _JAX_ENV, "python", "-c", "import jax; print(jax.devices())"), note="a CudaDevice"),
        ),
        component="jax",
    )


def _jax_fix(facts: Facts, ctx: Context, why: str) -> Remediation:
    """JAX's step (gpudoctor.checks.frameworks.jax_remediation) where JAX's versions were shown, else the advice alone."""
    from gpudoctor.checks.frameworks import jax_remediation

    if isinstance(facts.frameworks.jax, Found):
        return jax_remediation(facts, ctx, why)
    again = jax_again(facts, ctx)
    if again is not None:
        major, commands = again
        return Remediation(
            why + f" The installed versions were not shown and do not decide it: jax[cuda{major}], upgraded, pins jaxlib, "
            "the CUDA plugin and its PJRT to jax's own release (pip replaces whichever is of another one), with the "
            "NVIDIA CUDA and cuDNN wheels that release needs.",
            commands,
            component="jax",
        )
    return Remediation(
        why + " The installed versions were not shown: the commands that show them are asked for.", (), component="jax"
    )


# The driver's own libraries at a Linux driver package's path (not WSL's /usr/lib/wsl/lib), as an error text names them.
_LINUX_DRIVER_LIB = LazyPattern(
    r"(?<![\w/])(?:/usr)?/lib(?:64)?/(?:x86_64-linux-gnu/|aarch64-linux-gnu/)?(?:libcuda|libnvidia-ml)\.so[.\d]*"
)


def check_reported_wsl(facts: Facts, ctx: Context) -> Iterable[Finding]:
    from gpudoctor.checks.platform import check_wsl
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import family

    blocked = _said(facts, "wsl-gpu-blocked")
    packages = _said(facts, "linux-driver-package")
    # a program that loaded libcuda from a Linux driver package's directory (its error names the file): inside WSL 2
    # only /usr/lib/wsl/lib holds the driver, so that file is a Linux driver package's, which shadows it
    loaded = (
        [(e, m.group(0)) for e in facts.pasted.errors if (m := _LINUX_DRIVER_LIB.search(e.line))] if facts.pasted.partial else []
    )
    # a program's discovery that tried a Linux driver package's libnvidia-ml or libcuda and failed on it (Ollama 0.1.x:
    # "Unable to load CUDA management library /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.104.05: nvml vram init
    # failure: 9", NVML's DRIVER_NOT_LOADED): no failure by itself elsewhere, but inside WSL 2 the file is there, and
    # it is a Linux driver's, which shadows /usr/lib/wsl/lib for every program that finds it first
    loaded += [
        (e, m.group(0))
        for e in _said(facts, "gpu-library-unloadable")
        if (m := _LINUX_DRIVER_LIB.search(e.get("library") or "")) and not loaded
    ]
    # cuInit answering NO_DEVICE inside WSL 2 with nothing hiding the GPUs: the libcuda loaded is not WSL's (only the
    # Windows driver's /usr/lib/wsl/lib/libcuda.so.1 reaches the GPU through /dev/dxg); a Linux driver package's copy,
    # found first by the loader, sees no device. What the paste leaves open is asked by the steps themselves.
    no_device = [
        e
        for e in _said(facts, "cuinit-failed")
        if e.get("error") == "CUDA_ERROR_NO_DEVICE" and "CUDA_VISIBLE_DEVICES" not in facts.platform.env
    ]
    if facts.platform.wsl != 2 or not (blocked or packages or loaded or no_device):
        return
    if _emits(check_wsl, facts, ctx, "wsl-linux-driver-installed"):
        return
    if not (packages or loaded or no_device):
        return  # blocked alone may be the Windows side (an old Windows driver): not this cause
    # the package as written (a Markdown backtick or a comma after it is not part of its name)
    written = (packages[0].get("package") or "").strip("`'\",.;:") if packages else ""
    package = written if re.fullmatch(r"[a-z0-9][a-z0-9.+~-]{0,100}", written) else None
    dpkg = family(facts) in ("debian", "unknown")  # WSL's default distribution is Ubuntu
    listed = (
        Cmd(("dpkg", "-l"), pipe=("grep", "-E", "libnvidia-compute|nvidia-driver|nvidia-utils"))
        if dpkg
        else Cmd(("rpm", "-qa"), pipe=("grep", "-i", "nvidia"))
    )
    remove = (
        Cmd(
            ("apt-get", "remove", "--purge", package or Placeholder("package")),
            root=True,
            note="" if package else "each package the list shows",
        )
        if dpkg
        else Cmd(("dnf", "remove", package or Placeholder("package")), root=True)
    )
    shown = (
        f"a Linux driver package installed inside WSL ({package or written or 'named'})"
        if packages
        else f"a Linux driver's library in use: {loaded[0][1]}"
        if loaded
        else "cuInit answering CUDA_ERROR_NO_DEVICE, with nothing hiding the GPU (no CUDA_VISIBLE_DEVICES)"
    )
    confirmed = bool(packages or loaded)
    found = (
        # which libcuda the loader finds: only /usr/lib/wsl/lib's may be listed
        Cmd(("ldconfig", "-p"), pipe=("grep", "libcuda"), note="which libcuda files the loader finds first"),
        Cmd(("ls", "-l", "/usr/lib/wsl/lib/libcuda.so.1"), note="the libcuda of the Windows driver, which must stay"),
    )
    # cuInit's NO_DEVICE alone is the commonest sign of a shadowing libcuda, but not proof of it (an old Windows
    # driver answers the same): without a package or a library the text names, the cause is NOT DECIDED and the
    # listing that decides it comes before any removal (issue 28: no fact the paste did not state)
    yield Finding(
        "wsl-linux-driver-installed",
        Severity.ERROR if confirmed else Severity.WARNING,
        "platform",
        "a Linux NVIDIA driver is installed inside WSL 2, shadowing the Windows driver"
        if confirmed
        else "NOT DECIDED: CUDA finds no GPU inside WSL 2; the likeliest cause is a Linux driver's libcuda found "
        "before WSL's, which the first two commands decide",
        f"In WSL 2 the driver comes from Windows (its libraries appear under /usr/lib/wsl/lib). The text shows {shown}"
        + (
            ", whose nvidia-smi and libraries cannot reach the GPU."
            if confirmed
            else ". WSL's libcuda.so.1 reaches the GPU; a Linux driver's libcuda, installed into the distribution (a "
            "driver, utils or libnvidia-compute package, often pulled in by a CUDA meta package) and found first, "
            "sees none. The text does not show which libcuda is loaded; an old Windows driver answers the same."
        ),
        tuple(ev("pasted", e.line) for e in (packages[:1] + [x for x, _ in loaded[:1]] + no_device[:1] + blocked[:1])),
        Remediation(
            f"Remove the Linux driver package{f' ({package})' if package else 's'} from the WSL distribution; keep only "
            "the Windows driver, then refresh the loader's cache and check that libcuda resolves to /usr/lib/wsl/lib."
            + (
                ""
                if confirmed
                else " Remove only what the first two commands show: a libcuda outside /usr/lib/wsl/lib, or a Linux "
                "driver package. Where they show none, the Windows driver is the suspect: update it on Windows."
            ),
            (
                *(() if confirmed else found),
                # the file the text names: its package, which dpkg -S says (the list may hold others of the driver)
                *(
                    (Cmd(("dpkg", "-S", loaded[0][1]), note="the package that installed it"),)
                    if loaded and dpkg and not package
                    else ()
                ),
                *(() if package else (listed,)),
                remove,
                Cmd(("ldconfig",), root=True),
                Cmd(("ldconfig", "-p"), pipe=("grep", "libcuda"), note="only /usr/lib/wsl/lib entries may remain"),
            ),
            requires_root=True,
            component="platform",
        ),
    )


def check_reported_wsl_memory(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A program killed by SIGKILL inside WSL 2 (gpudoctor.pasted.cues, KILLED_SAID): WSL 2 is a virtual machine
    that gets part of the host's memory (by default half of it on current builds, 80% on builds before 20175:
    Microsoft's "Advanced settings configuration in WSL", learn.microsoft.com/en-us/windows/wsl/wsl-config, the [wsl2]
    memory and swap keys of %UserProfile%\\.wslconfig, swap 25% of memory by default), so a model that loads on
    Windows itself can be killed by the VM's out-of-memory killer while it passes through system RAM on its way to
    the GPU. GPU memory flags do not change it; the VM's memory and swap do. The new limits leave Windows an eighth
    of the RAM (4 GB at least) and give a swap as large as the RAM: sized from the RAM the text states
    (HOST_RAM_SAID), else read by PowerShell on the machine itself; written by PowerShell on the Windows side
    (reached from WSL as powershell.exe), whose profile folder WSL does not know."""
    from gpudoctor.facts import HOST_RAM_SAID, KILLED_SAID

    killed = next((c.get("line") or "" for c in facts.pasted.cues if c.get("cue") == KILLED_SAID), None)
    if killed is None or facts.platform.wsl != 2:
        return
    ram = next((c for c in facts.pasted.cues if c.get("cue") == HOST_RAM_SAID), None)
    gb = int(str(ram["means"]).split()[0]) if ram else None
    if gb is not None:
        sizes = f'"memory={gb - max(4, gb // 8)}GB","swap={gb}GB"'
        said = f"the host's {gb} GB of RAM"
    else:  # PowerShell reads the RAM: the same rule for a machine the text does not describe
        sizes = '"memory=$($gb - [math]::Max(4, [math]::Floor($gb / 8)))GB","swap=$($gb)GB"'
        said = "the RAM PowerShell reads"
    script = (
        "" if gb is not None else "$gb = [math]::Floor((Get-CimInstance Win32_ComputerSystem).TotalPhysicalMemory / 1GB); "
    ) + f'Add-Content -Path "$env:USERPROFILE\\.wslconfig" -Value "[wsl2]",{sizes}'
    yield Finding(
        "wsl-memory-limit",
        Severity.ERROR,
        "platform",
        "a program was killed inside WSL 2: the virtual machine's memory limit",
        "The shell reports the program killed (SIGKILL), which inside WSL 2 is most often the Linux out-of-memory "
        "killer: WSL 2 gets only part of the host's RAM (half by default on current builds), and a model passes "
        "through system RAM before it reaches the GPU. Flags that limit GPU memory do not help; a larger memory "
        "limit and swap for WSL's VM (%UserProfile%\\.wslconfig on Windows) do.",
        tuple(ev("pasted", line) for line in (killed, *((ram.get("line") or "",) if ram else ())) if line),
        Remediation(
            "Check that memory was the reason, then give WSL's VM more memory and swap in %UserProfile%\\.wslconfig "
            f"(sized from {said}, leaving Windows an eighth of it), restart WSL and run the program again.",
            (
                Cmd(("free", "-g"), note="the memory WSL's VM got"),
                Cmd(
                    ("dmesg",),
                    root=True,
                    pipe=("grep", "-i", "-E", "killed process|out of memory"),
                    note="right after the kill: the out-of-memory killer names the program",
                ),
                Cmd(
                    ("powershell.exe", "-NoProfile", "-Command", script),
                    note="appends a [wsl2] section to %UserProfile%\\.wslconfig on Windows; where the file has one "
                    "already, edit its memory= and swap= lines instead",
                ),
                Cmd(("wsl.exe", "--shutdown"), note="restarts WSL's VM with the new limit; open it again, check free -g"),
            ),
            component="platform",
        ),
    )


def check_reported_smi_other_release(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A pasted nvidia-smi header whose own version is another Linux driver release than the `Driver Version` it reads
    from the kernel module (gpudoctor.pasted.cues, SMI_OTHER_RELEASE), with `CUDA Version: N/A`: the nvidia-smi and
    CUDA driver library (libcuda) this shell finds are not the loaded driver's. An old driver tree or module first on
    PATH/LD_LIBRARY_PATH, or user-space libraries a driver update left behind; the commands in the same shell (a job
    like the failing one, on a cluster) decide which. Without `N/A` an nvidia-smi copied from a nearby release still
    reads the driver (a container's ./nvidia-smi): no finding."""
    from gpudoctor.checks.driver import check_library_mismatch
    from gpudoctor.facts import SMI_OTHER_RELEASE
    from gpudoctor.planner.cluster import cluster_node

    cue = next((c for c in facts.pasted.cues if c.get("cue") == SMI_OTHER_RELEASE), None)
    line = (cue or {}).get("line") or ""
    if cue is None or facts.platform.wsl or not _CUDA_NA.search(line):
        return
    if _emits(check_library_mismatch, facts, ctx, "driver-library-mismatch"):
        return
    m = _SMI_HEADER.search(line)
    smi, kernel = (m.group(1), m.group(2)) if m else ("another release", "the loaded module's")
    cluster = cluster_node(facts)
    place = "in a job submitted like the failing one" if cluster else "in the shell the failing program ran in"
    yield Finding(
        "driver-library-mismatch",
        Severity.ERROR,
        "driver",
        "the loaded NVIDIA kernel module and the user-space driver library are different versions",
        f"The nvidia-smi that ran is version {smi} while the loaded kernel module is {kernel}, and it reports 'CUDA "
        "Version: N/A': the CUDA driver library (libcuda) it looks for is missing or unusable, so CUDA programs there "
        "see no GPU. The user-space driver this shell finds is not the loaded driver's: an old driver tree or "
        "environment module first on PATH or LD_LIBRARY_PATH (unload it), or libraries a driver update left behind "
        + (
            "(the cluster administrators' to fix)." if cluster else "(reinstall the driver's user-space of the module's version)."
        ),
        (ev("pasted", line),),
        Remediation(
            f"Run these {place}: which nvidia-smi and libcuda come first, and what the kernel module is. A {smi} file "
            f"first on PATH or LD_LIBRARY_PATH is the stale tree to remove from them; only {kernel} libraries "
            "present but unused, or none at all, is the node's user-space to repair"
            + (" (ask the administrators)." if cluster else "."),
            (
                Cmd(("which", "-a", "nvidia-smi"), note="every nvidia-smi on PATH: the first one runs"),
                Cmd(("cat", "/proc/driver/nvidia/version"), note="the kernel module loaded now"),
                Cmd(
                    ("ldconfig", "-p"),
                    pipe=("grep", "-E", "libcuda.so|libnvidia-ml.so"),
                    note=f"whether a {kernel} libcuda.so.1 is there",
                ),
                Cmd(("printenv", "PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES"), note="an old driver tree first"),
                *(
                    (Cmd(("module", "list"), note="a loaded CUDA or driver module that puts older files first"),)
                    if cluster
                    else ()
                ),
            ),
            component="driver",
        ),
    )


_CUDA_NA = LazyPattern(r"CUDA Version:\s*N/A")
_SMI_HEADER = LazyPattern(r"NVIDIA-SMI\s+(\d[\d.]*)\s+Driver Version:\s*(\d[\d.]*)")


_NVRM_BUS = LazyPattern(r"(?:PCI:)?\b([0-9A-Fa-f]{4}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})(?:\.([0-7]))?")


def check_reported_lost(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A pasted kernel log where the driver says a GPU fell off the bus ("NVRM: Xid (PCI:0000:2b:00): 79, GPU has
    fallen off the bus."), unless the report also shows that GPU answering (an nvidia-smi table listing it: the Xid
    was before a reboot, or a laptop GPU powered down)."""
    from gpudoctor.checks.health import check_lost, lost_fix, lspci_slot

    said = _said(facts, "nvrm-fallen-off-bus")
    words = _said(facts, "gpu-off-bus-said")
    if not (said or words) or _emits(check_lost, facts, ctx, "gpu-lost"):
        return
    if words and not said:
        yield _off_bus_said(facts, words[0].line)
        return
    answering = {lspci_slot(g.pci_bus_id) for g in facts.driver.gpus if not g.lost and g.pci_bus_id}
    named: list[tuple[str, str]] = []
    for e in said:
        m = _NVRM_BUS.search(e.line)
        bus = f"{m.group(1)}:{m.group(2)}:{m.group(3)}.{m.group(4) or '0'}".lower() if m else ""
        if bus in answering or (not bus and facts.driver.gpus):
            continue
        if bus not in [b for b, _ in named]:
            named.append((bus, e.line))
    for bus, line in named:
        yield Finding(
            "gpu-lost",
            Severity.ERROR,
            "health",
            f"the GPU at {bus} fell off the bus (Xid 79)" if bus else "a GPU fell off the bus (Xid 79)",
            "The kernel log shows the NVIDIA driver found the GPU unreachable over PCI Express (Xid 79, 'GPU has fallen "
            "off the bus'): most often a failing PCIe link (slot, riser, power delivery), else failing GPU hardware or a "
            "driver problem (NVIDIA's Xid catalog). No program can use it until the machine is restarted.",
            (ev("pasted", line),),
            lost_fix(facts, bus or None, None),
        )


def _off_bus_said(facts: Facts, line: str) -> Finding:
    """The reporter's words that the GPU falls off the bus, no kernel log pasted: Xid 79 by its description, whose
    causes NVIDIA's Xid catalog lists as the PCIe link, power, heat or the GPU, and NVIDIA's engineers first test by
    power and heat (the temperatures and power draw under the load that loses it, the boost clock capped with nvidia-smi
    --lock-gpu-clocks as a test, the platform's firmware). The kernel log confirms it first; the state is collected
    after a loss, before the reboot (gpudoctor.checks.health.lost_fix)."""
    from gpudoctor.checks.health import lost_fix

    lost = lost_fix(facts, None, None)
    windows = (facts.platform.system or "").lower().startswith("win")
    test = (
        Cmd(
            ("nvidia-smi", "-q", "-d", "TEMPERATURE,POWER,PERFORMANCE", "-l", "5"),
            note="while the load that loses it runs: temperatures, power draw and throttle reasons up to the failure",
        ),
        Cmd(("nvidia-smi", "-q", "-d", "CLOCK"), note="the GPU's default and maximum graphics clocks"),
        Cmd(
            ("nvidia-smi", "-lgc", Placeholder("clock-range-mhz")),
            root=True,
            note="a test: locks the graphics clock to MIN,MAX in MHz (the MAX well below the maximum above), so "
            "boost peaks cannot draw power; undo with nvidia-smi -rgc",
        ),
    )
    confirm = (
        ()
        if windows
        else (
            Cmd(
                ("dmesg", "-T"),
                root=True,
                pipe=("grep", "-i", "-E", "nvrm|xid|aer:"),
                note="Xid 79 confirms it; a reboot since clears this log: journalctl -k -b -1 reads the previous boot's",
            ),
        )
    )
    return Finding(
        "gpu-lost",
        Severity.ERROR,
        "health",
        "the GPU falls off the bus (Xid 79, in the reporter's words)",
        "The reporter says the GPU falls off the bus: Xid 79, the driver finding the GPU unreachable over PCI Express. "
        "NVIDIA's Xid catalog names a failing PCIe link, power delivery, overheating or failing hardware, not the driver's "
        "version: the temperatures and power under the load that loses it, and a test with the clock capped, tell power and "
        "heat apart before any part is changed.",
        (ev("pasted", line),),
        Remediation(
            "Confirm Xid 79 in the kernel log, then watch temperatures and power while the load runs and, as a test, cap "
            "the graphics clock: a GPU that stays on the bus capped lacks power at its boost peaks. Update the machine's "
            "firmware (BIOS/UEFI, a laptop's EC) and have the cooling and power supply checked; reseat the GPU and its "
            "power cables where it is a card. A reinstall of the driver does not address it. After a loss, collect "
            "nvidia-bug-report.sh before the reboot.",
            (*confirm, *test),
            requires_root=True,
            component="health",
            where=lost.where,
            alternative=lost,
        ),
    )


# Error kinds that describe rather than fail: an arch list, a quoted nvidia-smi header or a form's CUDA version, the
# Windows build, a driver
# package's name, a `docker run` line without --gpus (a daemon whose default runtime is nvidia needs none); and
# PyTorch's out-of-memory, a program too large for its GPU rather than an environment's fault (`gpudoctor memory
# plan` sizes that). Every other recognised kind is a failure somebody hit (parsers/error_texts.EVIDENCE_KINDS).
_DESCRIPTIVE = frozenset(
    {
        "gpu-reached-said",  # the reporter's words that the GPU reaches the program's container: a fact, no failure
        "ollama-install-nvidia-said",  # Ollama's installer found the NVIDIA driver's nvidia-smi: a fact, no failure
        "gpu-reached-elsewhere-said",  # another Python on the machine reaches the GPU: a fact, no failure
        "arch-list",
        "driver-version-said",
        "driver-branch-said",
        "cuda-version-said",
        "cuda-lib-dir-said",
        "library-file-said",  # a library's file listed on disk (find, ls -l): a fact, no failure
        "cudnn-file-said",  # a Windows cuDNN file named beside the failure: a fact, no failure
        "cudnn-wheel-said",  # NVIDIA's cuDNN wheel named: a fact, no failure
        "cuda-toolkit-said",
        "cuda-have-said",
        "cuda-runtime-said",
        "windows-build",
        "linux-driver-package",
        "distro-package-installed",  # a listing of what is installed: facts, no failure
        "pip-torch-removed",  # pip's install output: what it took away and what a package pins (judged by
        "pip-torch-pinned-by",  # check_reported_torch_pulled where torch moves)
        "requirement-stated",  # a floor, judged against the versions shown (gpudoctor.checks.stated): met, no failure
        "tensorrt-version-said",
        "cudnn-version-said",
        "docker-run-without-gpus",
        "docker-run-said",
        "pip-install-said",  # what the reporter ran; the failure beside it is its own evidence
        "conda-install-said",  # what the reporter asked conda for (judged by gpudoctor.checks.installers)
        "compose-up-said",  # what started the containers; the failure beside it is its own evidence
        "workload-without-gpu",  # a spec; the failure beside it is what gpudoctor.checks.workloads judges
        "video-capability-said",  # a container's setting; judged beside a video library failing (checks.catalogued.devices)
        "gpu-driver-container-said",  # whose log it is (the GPU Operator's driver container); its errors are their own evidence
        "workload-gpus",
        "gpus-variable-said",  # an env file's variable, read beside a compose spec
        "ranks-on-hosts",  # where a distributed job runs; its failure is judged by gpudoctor.checks.workloads
        "docker-desktop-said",  # which daemon answers docker inside WSL (gpudoctor.checks.docker_desktop)
        "docker-engine-absent",
        "distributed-run-said",  # what ran; a failure beside it is its own evidence
        # c10d's Winsock 10049 warning: a process group starting on Windows, harmless itself (its asks read the launcher)
        "windows-distributed-rendezvous",
        "interpreters-said",  # judged by gpudoctor.checks.workloads (the remote ranks' python)
        "windows10-said",  # the host's Windows, asked about where WSL 2 fails (gpudoctor.pasted.ask)
        "job-gpus",
        "program-gpus",
        "torch-oom",
        "gpu-memory-exhausted",  # cuBLAS's or cuDNN's ALLOC_FAILED: the GPU is full, as for torch-oom
        # A program's own fault the catalogue recognises (an index out of range, a tensor left on the CPU, CUDA in a
        # forked child, a data type the GPU lacks): read and shown, never an environment finding.
        "program-fault",
        "cuda-available-said",
        "cuda-available-answered",  # a framework's is_available() answered True: the GPU reached (checks.symptoms)
        "library-said",  # a library at work or its version (the catalogue's ctranslate2 lines): no failure
        "cpu-flags-said",  # the CPU's instruction-set flags (/proc/cpuinfo, lscpu): a fact, no failure
        "nccl-interfaces-said",  # NCCL's INFO line of the interfaces it offers (gpudoctor.checks.catalogued.clusters)
        "nccl-socket-ifname-said",  # NCCL_SOCKET_IFNAME as set (gpudoctor.checks.catalogued.clusters)
        "memlock-limit-said",  # the locked-memory limit shown (gpudoctor.checks.catalogued.clusters)
        "nccl-variable-said",  # NCCL_P2P_DISABLE and its kin as set: NCCL at work (gpudoctor.checks.symptoms)
        "onnxruntime-native-binding",  # onnxruntime raised through C++ or Java (gpudoctor.checks.libraries)
        "nccl-init-complete",  # NCCL's INFO line of a communicator whose ranks connected
        "nccl-version-said",  # NCCL's INFO line of its release (gpudoctor.checks.catalogued.windows_wsl)
        "nccl-channels-net",  # NCCL's INFO lines of its channels: over the network, or within one machine
        "nccl-channels-local",
        "nccl-ib-no-device",  # NCCL's INFO line of no verbs device: judged only beside a container (checks.catalogued.clusters)
        "nccl-plugin-absent",  # NCCL's INFO line that no external network plugin is installed: its own transports run
        "cdi-devices-listed",  # nvidia-ctk cdi list's count: what the host's CDI specs define (checks.catalogued.containers)
        "xid-application",  # an Xid of the catalog's application bucket: the program's fault, the GPU healthy (catalogue.toml)
        "gpu-recovery-action",  # Xid 154: the driver's recovery action after an earlier Xid, which is the failure
        "wsl-ldconfig-not-symlink",  # ldconfig's warning over WSL's /usr/lib/wsl/lib at every run: no failure
        "wsl-version-listed",  # wsl -l -v's default row: the WSL version (gpudoctor.pasted.read), judged by check_wsl
        "tf-startup-log",  # TensorFlow's and XLA's start-up lines every user sees (catalogue.toml, h112): no fault
        "tf-gpu-device-created",  # TensorFlow's INFO line of a GPU device it created: the GPU works for it
        "paddle-gpu-device-ready",  # Paddle's "Please NOTE: device: 0, GPU Compute Capability" line: the GPU answered
        # a library the loader missed before one of those two lines: a warning the program went on from (pasted.read)
        "library-missing-gpu-reached",
        "pip-user-install-said",  # pip installed into ~/.local: where a copy went, judged only beside a failure
        # a shell's "command not found": judged beside pip's user-scheme line (gpudoctor.checks.installers)
        "shell-command-not-found",
        "installer-wheel-tags-said",  # uv's hint: the Pythons a release has wheels for (gpudoctor.checks.installers)
        "python-32bit-said",  # the interpreter's width, judged beside an installer's failure (gpudoctor.checks.installers)
        "python-pypy-said",  # the interpreter's implementation, judged beside an installer's failure
        "glibc-release-said",  # collect_env's glibc: judged beside the loader's GLIBC_ floor (checks.catalogued.runtime_floors)
        "deepspeed-op-report",  # ds_report's header: a report of the ops, no failure (its asks read the toolkit)
        # DeepSpeed's async_io warning (NVMe offload only) and its Windows link test: notes (checks.catalogued.builds)
        "deepspeed-aio-unavailable",
        "deepspeed-windows-link-test",
        "gpu-library-unloadable",  # Ollama's discovery skipping one library for the next: judged by check_reported_wsl
        "cmake-cudatoolkit-found",  # CMake found a toolkit on Windows (gpudoctor.checks.catalogued.builds reads it)
        "visual-studio-instance-said",  # a Visual Studio instance's folder in a path: where, no failure
        "onnxruntime-build-majors",  # onnxruntime's warning naming its build's majors (gpudoctor.checks.libraries)
        "cuda-path-value",  # CUDA_PATH's value: the toolkit installed on Windows (gpudoctor.checks.windows reads it)
        "numba-driver-variable-said",  # numba's driver variable set, its value (checks.catalogued.framework_builds)
        "cuda-toolkit-folder-said",  # a toolkit's folder on Windows, named (checks.catalogued.framework_builds reads it)
        "torch-allocator-said",  # ComfyUI's start-up line of the allocator backend (checks.catalogued.framework_builds)
        "comfyui-frame",  # a traceback frame in ComfyUI's code: which program, no failure of its own
        "cuda-device-capability-said",  # ggml's device line: the GPU and its compute capability (checks.catalogued.builds)
        "cmake-configure-said",  # a CMake configure command that ran, with its -D options (checks.catalogued.builds)
        "xla-build-cuda-said",  # the CUDA roots XLA searched (checks.catalogued.framework_builds reads its build's)
    }
)
UNEXPLAINED = "pasted-error-unexplained"
# TensorFlow's own logger at warning level ("2022-06-22 15:44:53.578885: W tensorflow/...dso_loader.cc:64] Could not
# load dynamic library ..."): TensorFlow goes on without the GPU, which is no failure on a machine meant to have none
# (google/lightweight_mmm#23, a fine case in tests/pasted/cases).
_TF_WARNING = LazyPattern(r"\d: W \S+\.cc:\d+\]")
_TF_WARNED = frozenset({"library-missing", "xla-ptxas-version-unknown"})


# How a place of gpudoctor.checks.symptoms reads in a finding.
_PLACE_WORDS = {
    "pod": "a Kubernetes pod",
    "container": "a container",
    "wsl": "WSL 2",
    "windows": "Windows",
    "linux": "Linux",
}


def recognised_failure(e) -> bool:
    """Whether a recognised error text is a failure somebody hit, as far as the text alone says: not a description
    (_DESCRIPTIVE), not TensorFlow's warning that it goes on without the GPU."""
    return e.kind not in _DESCRIPTIVE and not (e.kind in _TF_WARNED and _TF_WARNING.search(e.line))


PROGRAM = "program-fault"
# The error texts that are the program's own doing, as the catalogue reads them: an index out of range, CUDA in a forked
# child, a tensor left on the CPU ("program-fault"), and the GPU's memory running out under the program's own size
# (PyTorch's out-of-memory, cuBLAS's or cuDNN's ALLOC_FAILED), which a smaller batch or model answers.
_PROGRAM_KINDS = ("program-fault", "torch-oom", "gpu-memory-exhausted")
# What to do in the program, where the message's catalogue entry does not say it in its meaning.
_PROGRAM_STEPS = {
    "torch-oom": "a smaller batch or model (or free what other processes hold: nvidia-smi lists them)",
    "gpu-memory-exhausted": "a smaller batch or model (or free what other processes hold: nvidia-smi lists them)",
    "nccl-unavailable": "the gloo backend (init_process_group(backend='gloo')), or the job run under Linux (WSL 2 included)",
}
# The step where the text names the library that started the processes (a catalogue [[component]]): its own setting, not
# Python's. vLLM starts its tensor-parallel workers with the start method VLLM_WORKER_MULTIPROC_METHOD names, "fork" by
# default (vllm-project/vllm vllm/envs.py @f218f9c2: `os.getenv("VLLM_WORKER_MULTIPROC_METHOD", "fork")`), whatever the
# script gave multiprocessing.set_start_method; its maintainers on vllm-project/vllm#7077 and #7151: set it to spawn.
_PROGRAM_STEPS_BY_COMPONENT = {
    ("torch-cannot-reinitialize-cuda-forked", "vllm"): (
        "vLLM forks its tensor-parallel workers unless told otherwise, whatever multiprocessing.set_start_method says: "
        "VLLM_WORKER_MULTIPROC_METHOD=spawn in the environment that starts it (with LLM(...) under "
        "`if __name__ == '__main__':`), or LLM(...) built before anything in the script touches CUDA"
    ),
}


# The GPU's memory running out, as the catalogue reads it, and a failure line that says only that an allocation failed.
_MEMORY_KINDS = ("torch-oom", "gpu-memory-exhausted")
_ALLOCATION_FAILED = LazyPattern(r"\b(?:failed|unable) to allocate\b", re.IGNORECASE)


def _without_nccl(facts: Facts) -> bool:
    """Where PyTorch is never built with NCCL: its builds for Windows and macOS (torch.distributed offers gloo there)."""
    system = (facts.platform.system or "").lower()
    return system.startswith("win") or system == "darwin"


# A line Python's warnings module printed ("<file>:<line>: UserWarning: <message>", warnings.formatwarning): the
# program went on. A library that warns has handled what it names (PyTorch 2.3's cuDNN v8 API warns "Plan failed
# with a cudnnException ... CUDNN_STATUS_NOT_SUPPORTED" and tries the next plan), so the warning is no fault to answer.
_PYTHON_WARNING = LazyPattern(r":\d+: (?:[A-Z]\w*)?Warning: ")


def program_fault(e, facts: Facts) -> bool:
    """Whether an error text is the program's own fault, nothing in the environment's: the kinds above, and NCCL asked
    for where PyTorch never has it (the program's choice of backend, not a broken install). Never a line printed as a
    Python warning: the program went on past it."""
    if _PYTHON_WARNING.search(e.line or ""):
        return False
    if e.kind == "nccl-unavailable":
        return _without_nccl(facts)
    if e.kind == "cuda-invalid-device":
        return bool(_masked_devices(facts))
    return e.kind in _PROGRAM_KINDS


# The lines a program's own CUDA backend prints for each device it initialised (catalogue entries): ggml's
# "Device 0: <name>, compute capability X.Y" (ggml-org/llama.cpp ggml/src/ggml-cuda/ggml-cuda.cu @f6d77a1b).
_BACKEND_FOUND_GPU = frozenset({"ggml-cuda-device-capability"})


# What says the GPU was not found: the reporter's words that the program does not find or detect it (not that it does
# not use it: a backend that found the GPU and offloaded nothing to it is the program's setting, QwenLM/Qwen3#196), and
# llama.cpp's own "no usable GPU found", printed while parsing --gpu-layers before its backends load
# (ggml-org/llama.cpp#22790: "a misleading 'no usable GPU found' warning even when GPU backends are available").
_NOT_FOUND_WORDS = LazyPattern(r"\b(?:find|finds|found|detect\w*|recogni[sz]\w*)\b", re.IGNORECASE)


def _not_found_but_backend_found(e, facts: Facts) -> bool:
    """A "no GPU found" beside the program's own backend listing the CUDA device it initialised (ggml_cuda_init's
    "Device 0: <name>, compute capability X.Y"): the program found the GPU (tests/blind/plans15/cases/1554-*: a Node
    bridge's own probe says "No CUDA detected" under WSL while ggml_cuda_init finds the RTX 4090 in the same log)."""
    said = e.kind == "llama-cpp-no-gpu-device" or (e.kind == "gpu-unused-said" and bool(_NOT_FOUND_WORDS.search(e.line or "")))
    return said and any(x.get("entry") in _BACKEND_FOUND_GPU for x in facts.pasted.errors)


# An entry of CUDA_VISIBLE_DEVICES: an index, or a GPU's or MIG instance's UUID (or its prefix)
_MASK_ENTRY = LazyPattern(r"\d{1,3}|(?:GPU|MIG)-[0-9a-fA-F-]{1,60}")


def _masked_devices(facts: Facts) -> list[str]:
    """The entries of a CUDA_VISIBLE_DEVICES the text shows set for the program, where an invalid device ordinal beside
    it is the program's own index: CUDA shows only the GPUs the variable lists, renumbered from 0 in its order (CUDA C++
    Programming Guide, "CUDA Environment Variables"; PyTorch's CUDA semantics: indices are relative to the visible
    devices), so an index counted in the machine's numbering (cuda:5 under CUDA_VISIBLE_DEVICES=5) names no device.
    None where the variable names a GPU the machine shown does not have: that is the environment's
    (checks.platform.check_cuda_visible_devices)."""
    from gpudoctor.checks.platform import visible_devices

    value = facts.platform.env.get("CUDA_VISIBLE_DEVICES") or ""
    entries = [v.strip() for v in value.split(",")]
    if not value or not all(_MASK_ENTRY.fullmatch(v) for v in entries):
        return []
    gpus = facts.driver.gpus
    if gpus and visible_devices(value, [(g.index, g.uuid) for g in gpus], sum(g.mig_devices or 0 for g in gpus))[1]:
        return []
    return entries


def _decided_cuda_error(x) -> bool:
    """Whether evidence `x` is a CUDA error whose number decides a cause (parsers/cuda_errors.TABLE: a row with the
    catalogue entry or the extractor's kind that reads it), read by its number, its name or its string."""
    from gpudoctor.parsers.cuda_errors import TABLE

    entries = {t.entry for t in TABLE if t.entry}
    kinds = {t.kind for t in TABLE if t.kind}
    return x.get("entry") in entries or x.kind in kinds


def _failure(e, facts: Facts) -> bool:
    if e.kind in ("nccl-unavailable", "cuda-invalid-device") and program_fault(e, facts):
        return False  # said as the program's (check_reported_program_fault): nothing unexplained
    if (
        e.kind == "gpu-stack-failure"
        and _ALLOCATION_FAILED.search(e.line or "")
        and any(x.kind in _MEMORY_KINDS for x in facts.pasted.errors)
    ):
        # an allocation's failure said again by its caller (ggml's "failed to allocate CUDA0 buffer", "unable to
        # allocate CUDA0 buffer" after "cudaMalloc failed: out of memory", ggml-org/llama.cpp#20431): the memory line
        # beside it, which the catalogue reads, names why; alone, the line stays open (the reason is not shown)
        return False
    if e.kind in ("cuda-unavailable", "cuda-no-gpus", "torch-load-no-cuda", "gpu-unused-said") and facts.pasted.reported(
        "cuda-available-said"
    ):
        # collect_env answered True for the environment it ran in: the False was printed by another interpreter,
        # which the text does not show (pytorch/pytorch#51858, a fine case in tests/pasted/cases).
        return False
    if (
        e.kind in ("cuda-unavailable", "cuda-no-gpus", "gpu-unused-said", "native-runtime-cpu-build")
        and facts.platform.system == "Darwin"
    ):
        # a Mac has no CUDA to reach: CUDA 10.2 was the last toolkit and driver for macOS (NVIDIA's CUDA 10.2 release
        # notes), and PyTorch's macOS wheels are CPU and MPS builds ("MacOS Binaries dont support CUDA", pytorch.org
        # Get Started); a program that says it falls back to the CPU there says how a Mac runs it
        return False
    if _not_found_but_backend_found(e, facts):
        # the program's own CUDA backend lists the device it initialised: what said no GPU was found is another probe
        # than the one that runs the work, not a fault of the environment to name
        return False
    if e.kind == "gpu-unused-said" and facts.pasted.reported("gpu-reached-said"):
        # only the reporter's words, beside their words that nvidia-smi answers in the program's container: the GPU
        # reaches where the program runs, so what it runs on is its own setting (a video stream copied, not encoded:
        # tests/blind/plans10/cases/1040-*), not a fault of the environment to name
        return False
    if e.kind == "gpu-unused-said" and any(_decided_cuda_error(x) for x in facts.pasted.errors):
        # the reporter's words that the GPU is not used, beside a CUDA error whose number or name says why (802 the
        # system not ready, 35 the driver older than the runtime, 100 no device: parsers/cuda_errors.TABLE's decided
        # rows): the words tell the same failure, which that error's own entry judges and asks about; read apart,
        # they would add the generic causes of an unused GPU (a CPU build, a hidden GPU) that the error rules out
        # (tests/blind/plans21/cases/2118-*: error 802 with "I can't use the GPUs")
        return False
    if e.kind == "gpu-unused-said" and any(
        x.kind != e.kind and not x.kind.endswith("-said") and x.line and x.line in e.line for x in facts.pasted.errors
    ):
        # words read from a program's own message another entry recognises (Ollama's installer: "No NVIDIA GPU
        # detected", on every machine without one): that entry's own rule judges it. (Another reading of the reporter's
        # own words is no program's message: the same sentence often holds the failure beside another Python reaching
        # the GPU, or beside the driver's version it names, "does not detect my GPU. I've driver 580":
        # tests/blind/plans11/cases/1144-*.)
        return False
    if e.get("entry") in _APP_CPU_NOTICES:
        # An application's notice that it runs on the CPU (EasyOCR's Reader, Cellpose's probe) is printed on every
        # machine without a usable GPU, a laptop's CPU-only torch included: a failure only where the text shows that
        # the GPU was meant (an NVIDIA GPU or driver named, the reporter's words that it is not used, a CUDA build
        # asked for in an install), else the program's own fallback, working as designed.
        return _gpu_meant(facts)
    if e.kind == "ollama-install-no-gpu":
        # Ollama's installer says it on every machine without a GPU (a CPU-only VM, a laptop): a failure only where the
        # text names an NVIDIA GPU that the installer did not find (scripts/install.sh @3fa8daae)
        return bool(facts.driver.gpus) and other_vendor_gpu_only(facts) is None
    if e.kind == "ctranslate2-compute-type-unsupported":
        # CTranslate2 runs float16 on compute capability 7.0 and newer, int8 on 7.0+ or 6.1, int16 on no GPU
        # (docs/quantization.md @0d8bcd36). On an older GPU, or where no GPU is named, the refusal is the program's
        # compute_type setting (float32 runs there: a GTX 1080's control case, plans8 838), not the environment's;
        # only where every GPU named has the type did CTranslate2 not run on the GPU.
        kind = e.get("compute_type") or ""
        floor = "6.1" if kind.startswith("int8") else "8.0" if kind.startswith("bfloat16") else "7.0"
        ccs = [g.compute_capability for g in facts.driver.gpus if g.compute_capability]
        return kind != "int16" and bool(ccs) and all(vkey(cc) >= vkey(floor) for cc in ccs)
    if e.kind == "ollama-model-on-cpu":
        # a model Ollama loaded wholly into system memory (`ollama ps`: 100% CPU) is a failure only where the text
        # shows an NVIDIA GPU or its driver answering (nvidia-smi's header alone, ollama/ollama#11676): on a machine
        # without one it is how Ollama runs
        # (Ollama's installer saying "NVIDIA GPU installed." or "ready." is the driver's nvidia-smi found on that
        # machine, scripts/install.sh @3fa8daae: the GPU was meant, ollama/ollama#7049)
        return (
            bool(facts.driver.gpus or facts.driver.version or facts.pasted.reported("ollama-install-nvidia-said"))
            and other_vendor_gpu_only(facts) is None
        )
    if e.kind == "gpu-stack-failure" and e.get("form") == "cpu-device-chosen":
        # a program's log that it chose the CPU (failure_lines) is a failure only where the text names an NVIDIA GPU, as
        # Whisper's on the CPU below: on a machine without one the CPU is how it runs
        return bool(facts.driver.gpus) and other_vendor_gpu_only(facts) is None
    if e.kind in ("whisper-on-cpu", "llama-cpp-no-gpu-device"):
        # Whisper on the CPU, or llama.cpp given -ngl with no GPU device, is a failure only on a machine with an NVIDIA
        # GPU, named in the text: a CPU run chosen by the program or on a machine without one (llama.cpp's own CPU CI
        # passes -ngl 99) is no fault of the environment.
        return bool(facts.driver.gpus) and other_vendor_gpu_only(facts) is None
    if e.kind in ("tf-cudart-not-loaded", "jax-cpu-backend-only"):
        # TensorFlow prints it at import on every machine without the CUDA runtime, a CPU-only one too: a failure only
        # where the text shows an NVIDIA GPU (gpudoctor.checks.catalogued.framework_builds judges it there). JAX's
        # "No GPU/TPU found, falling back to CPU" likewise: CPU notebooks print it, and reporters quote it from before
        # a fix (tests/blind/pasted 005: a driver's version shown, the GPUs listed by jax afterwards; a fine case).
        return bool(facts.driver.gpus) and other_vendor_gpu_only(facts) is None
    if e.kind == "gpu-idle-said":
        # the reporter's words that the GPU sits idle: as their other words of a failure (below), no failure on a machine
        # they say has no NVIDIA GPU, or whose only GPU is another vendor's
        return no_gpu_said(facts) is None and other_vendor_gpu_only(facts) is None
    if e.get("component_kind") == "said" and e.get("form") != "error-in-picture":
        # only the reporter's words that it fails: on a machine they say has no NVIDIA GPU, the program's start-up
        # message they call an error is its going on without one (tensorflow/tensorflow#43361, a control of set 3).
        # (An error shown only as a picture stays open either way: the picture, as text, decides.)
        return no_gpu_said(facts) is None and other_vendor_gpu_only(facts) is None
    # TensorFlow's warnings that it goes on without the GPU (a library it could not load, a ptxas it could not run):
    # no failure on a machine meant to have none.
    return recognised_failure(e)


# The catalogue's entries for an application's own notice that it fell back to the CPU.
_APP_CPU_NOTICES = ("easyocr-cuda-not-available", "cellpose-torch-cuda-not-working")
_CUDA_BUILD_ASKED = LazyPattern(r"\bcuda(?:toolkit)?\b|\bcu\d{2,3}\b|pytorch-cuda|\bgpu\b", re.IGNORECASE)


def _gpu_meant(facts: Facts) -> bool:
    """Whether the paste shows the GPU was meant to be used: an NVIDIA GPU or driver named, the reporter saying it is not
    used, or an install that asks for a CUDA build (cudatoolkit=, +cu121, pytorch-cuda, a -gpu package)."""
    if facts.driver.gpus or facts.driver.version or facts.pasted.reported("gpu-unused-said"):
        return True
    installs = ("conda-install-said", "pip-install-said")
    return any(e.kind in installs and _CUDA_BUILD_ASKED.search(e.line or "") for e in facts.pasted.errors)


def pasted_failures(facts: Facts) -> list:
    """The pasted error texts that are failures somebody hit (_failure), in the order read: what
    pasted-error-unexplained names, and whose symptom family gpudoctor.pasted.ask asks about."""
    return [e for e in facts.pasted.errors if _failure(e, facts)] if facts.pasted.partial else []


def check_reported_unexplained(facts: Facts, ctx: Context, others: Iterable[Finding] = ()) -> Iterable[Finding]:
    """Thin evidence is not health: a pasted failure that no check could turn into a cause (every other check found
    nothing at warning or above: `others`, their findings, given by run_checks) is named, so the report never reads
    "No problems found" over an error it was shown."""
    failures = pasted_failures(facts)
    if not failures or any(f.severity >= Severity.WARNING for f in others):
        return
    from gpudoctor.parsers.error_texts import EVIDENCE_KINDS

    first = failures[0]
    more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
    from gpudoctor.parsers.error_texts import ERROR_CODES

    # NVML's and the CUDA runtime's failures share the kind "nvml": their code says which
    what = ERROR_CODES.get(first.get("code") or "") if first.kind == "nvml" else EVIDENCE_KINDS.get(first.kind)
    if first.kind == "library-missing" and first.get("side") == "link":
        from gpudoctor.parsers.library_lines import LINK_MEANS

        what = LINK_MEANS
    if first.kind == "cuda-error-number" and (first.get("name") or first.get("number")):
        # the error as the line gives it, name and number (gpudoctor.parsers.cuda_errors; where they disagree, as numba's
        # "[35] ... results in cudaErrorUnknown" does, both are shown): what the reader looks up
        named = ", ".join(filter(None, (first.get("name"), first.get("number") and f"error number {first.get('number')}")))
        what = f"{what}: {named}"
    if first.kind == "gpu-stack-failure":  # a line no catalogue entry knows: what failed, by its form and component
        from gpudoctor.parsers.failure_lines import MEANS

        what = MEANS.get(first.get("form") or "", "{c} failed").format(c=first.get("component") or "the GPU stack")
    if what is None and first.get("entry"):
        from gpudoctor.parsers.catalogue import by_id

        entry = by_id(first.get("entry"))
        what = entry.means.split(":", 1)[0] if entry is not None else None  # a catalogue message: its meaning's head
    from gpudoctor.checks.symptoms import family_of, open_causes, place

    # A symptom several causes share (gpudoctor.checks.symptoms): the causes still open where the program runs are
    # named, none asserted; the asks that decide between them are the family's (gpudoctor.pasted.ask).
    family = next((f for e in failures if (f := family_of(e, facts)) is not None), None)
    causes = open_causes(family, facts) if family is not None else ()
    from gpudoctor.facts import OS_NOT_NAMED

    # (where the text names no OS, Linux is only the reading's assumption: said so, so that the place is not asserted)
    where = _PLACE_WORDS[place(facts)]
    if any(c.get("cue") == OS_NOT_NAMED for c in facts.pasted.cues):
        where = f"{where}, assumed: the text names no OS"
    # (one cause left open, the paste having ruled out the others, is still not shown: it is named as the one that fits)
    fits = (
        f" Where it runs ({where}) it fits: " + "; ".join(causes) + ". Nothing pasted decides between them."
        if len(causes) > 1
        else f" Where it runs ({where}), of the usual causes the paste leaves open only {causes[0]}; it is not shown either."
        if causes
        else ""
    )
    from gpudoctor.parsers.failure_lines import PROGRAM_FORMS, SAID

    # where the line is in the paste ("input.txt:23", gpudoctor.pasted.provenance), so the reader finds what was read
    at = f" (at {first.at})" if first.at else ""
    if first.kind == "traceback-cut":  # the failure's own line is not in the paste: that is the first thing missing
        shown = (
            f"The paste ends before the error: its traceback stops at '{first.line.strip()}'{at}, before the line naming it, "
            "and the rest"
        )
    elif first.get("form") == "error-introduced":  # the line the reporter quotes as the error, which no entry knows
        shown = (
            f"The reporter quotes this as the error{at}: '{first.line.strip()}'. No catalogue entry knows this line, and the rest"
        )
    elif first.get("form") in SAID:  # the reporter's words, no line of the program's
        shown = (
            f"The reporter says{at}: '{first.line.strip()}'. The failing command's own output is not in the paste, and the rest"
        )
    elif first.get("form") == "traceback-end":  # the line the program stopped on, which no catalogue entry knows
        shown = (
            f"The program stopped on{at}: '{first.line.strip()}' (its traceback's last line). No catalogue entry knows "
            "this error, and the rest"
        )
    elif first.get("form") in (*PROGRAM_FORMS, "install-failed"):  # a failure any program prints (a configure, a kill...)
        said = (
            "The text shows" if first.get("form") == "memory-exhausted" else "The program failed"
        )  # (a reading, no failure's line)
        shown = f"{said}{at}: '{first.line.strip()}'. No catalogue entry knows this line, and the rest"
    else:
        shown = f"The text says{at}: '{first.line.strip()}'. gpudoctor recognised the error, but the rest"
    yield Finding(
        UNEXPLAINED,
        Severity.WARNING,
        "doctor",
        # NOT DECIDED heads it: a failure shown whose cause is unknown is neither a clean bill nor a diagnosis (issue 27)
        f"NOT DECIDED: the text shows a failure that what was pasted cannot explain: {what or first.kind}{more}",
        f"{shown} of the text does not show enough (the GPU, the driver, the framework's build) to say why it "
        f"happened.{fits} This is not a clean bill of health: ask for what is listed under 'Ask the reporter for' and "
        "read the answers with it.",
        tuple(ev("pasted", line) for line in list(dict.fromkeys(e.line for e in failures))[:3]),  # a line read twice: once
        # No remediation but one: nothing is known to fix yet; what to do next is the ask-for list (gpudoctor.pasted.ask),
        # beside the one fix whose deciding check is a single command (a CPU-only torch left open: _if_cpu_torch).
        _if_cpu_torch(facts, ctx, family),
    )


def _if_cpu_torch(facts: Facts, ctx: Context, family) -> Remediation | None:
    """The fix of the CPU-only torch, where the program does not reach the GPU, torch is the framework it runs (and no
    other is named), and the paste leaves that build open where it runs (a machine or WSL, not an image: there the
    image is the build). Its install is conditional on the one read-only check that decides it (planner.remedy
    .if_cpu_build): the reviewers' commonest kind-9 reason on these reports was a CPU-only torch named among the
    causes with no command to replace it (tools/plan_kind_census_h253.md). The build is the machine's
    (checks.frameworks.plan_remediation); where no driver was seen, the toolkit's nvcc decides its CUDA, as for
    toolkit-torch-major-mismatch's torch side (an extension built later needs that major)."""
    from gpudoctor.checks.symptoms import GPU_NOT_REACHED, closed_keys, family_of, place, reached

    if family is not GPU_NOT_REACHED or place(facts) not in ("linux", "windows"):
        return None  # (in WSL the Windows driver's libraries are the first cause open; in an image, the image's build)
    if "build" in closed_keys(family, facts) or frameworks_named(facts) & {"tensorflow", "jax"}:
        return None
    if reached(facts):
        return None  # torch said it reaches a GPU there: its build is a CUDA one
    # The failure itself is torch's (its path, its words, "Torch is not able to use GPU"), not another program's beside a
    # torch mentioned elsewhere (ollama, Ray's scheduler: their own causes first)
    if not any(
        family_of(e, facts) is GPU_NOT_REACHED and "torch" in _LUA_TORCH.sub(" ", e.line.lower()) for e in pasted_failures(facts)
    ):
        return None
    version = _torch_version(facts)
    if version and "+" in version and not version.endswith("+cpu"):
        return None  # its build is shown, and it is a CUDA one
    from gpudoctor.facts import JETSON_SAID

    if any(c.get("cue") == JETSON_SAID for c in facts.pasted.cues):
        return None  # a Jetson's torch comes from NVIDIA's JetPack wheels, not the index's CUDA builds
    from gpudoctor.checks.frameworks import plan_remediation
    from gpudoctor.planner.remedy import if_cpu_build

    options = _nvcc_target(facts)
    if not facts.driver.version and options is None:
        # Neither driver nor toolkit seen: the release's CUDA builds behind nvidia-smi, or, its version unknown too, the
        # newest release in its build that asks least of the driver, the assumption said (plan_remediation's by_driver:
        # issue 27, kind 9, "with the driver unknown, the build ... that needs the lowest driver, its driver floor named,
        # and nvidia-smi asked for"); where neither decides, nvidia-smi is asked in the step (if_cpu_build).
        return if_cpu_build(facts, plan_remediation(facts, ctx, "torch", version, "", by_driver=True))
    return if_cpu_build(facts, plan_remediation(facts, ctx, "torch", version, "", options=options))


def _nvcc_target(facts: Facts):
    """Where no driver was seen, the toolkit's release as the build's target (its nvcc: a build of that CUDA major, no
    newer), as checks.toolkit's torch side plans it; None where a driver was seen (it decides) or no toolkit either."""
    if facts.driver.version:
        return None
    from gpudoctor.checks.toolkit import judged_toolkits
    from gpudoctor.planner.model import Target
    from gpudoctor.planner.plan import Options
    from gpudoctor.versions import major_minor

    shown = [t.version for t in judged_toolkits(facts) if t.version]
    mm = major_minor(shown[0]) if len(set(map(major_minor, shown))) == 1 else None
    return Options(nvcc=mm, target=Target(cuda=mm)) if mm else None


def check_reported_program_fault(facts: Facts, ctx: Context, others: Iterable[Finding] = ()) -> Iterable[Finding]:
    """A failure that is the program's own (program_fault), where no other check found anything at warning or above in
    the environment: said as the program's, with what the message means and the step in the program, at info, so the
    report neither reads "No problems found" over it nor prescribes an environment repair for it."""
    if not facts.pasted.partial or any(f.severity >= Severity.WARNING for f in others):
        return
    if any(not program_fault(e, facts) for e in pasted_failures(facts)):
        # a failure of the environment's is shown beside it, unexplained (check_reported_unexplained names it, at
        # warning): "nothing points at the environment" would contradict it (a TensorFlow cuBLAS handle that could not
        # be made at the start, ALLOC_FAILED beside it: the memory TensorFlow reserved, asked, not the program's size)
        return
    faults = [e for e in facts.pasted.errors if program_fault(e, facts)]
    if not faults:
        return
    from gpudoctor.parsers.catalogue import by_id
    from gpudoctor.parsers.error_texts import EVIDENCE_KINDS

    first = faults[0]
    entry = by_id(first.get("entry")) if first.get("entry") else None
    # (an extractor's kind is described by what it reads, after its colon: the meaning is the head)
    means = entry.means if entry is not None else EVIDENCE_KINDS.get(first.kind, first.kind).split(":", 1)[0]
    step = _PROGRAM_STEPS.get(first.kind)
    if first.kind == "cuda-invalid-device":
        shown = _masked_devices(facts)
        step = (
            f"CUDA_VISIBLE_DEVICES={','.join(shown)} leaves {len(shown)} GPU(s) visible to it, numbered from 0 in the "
            f"variable's order: address them as cuda:0{f' to cuda:{len(shown) - 1}' if len(shown) > 1 else ''} (or "
            "give no index), not by the machine's numbering"
        )
    if entry is not None:
        from gpudoctor.facts import COMPONENT_NAMED

        named = {c.get("means") for c in facts.pasted.cues if c.get("cue") == COMPONENT_NAMED}
        own = next((v for (e, c), v in _PROGRAM_STEPS_BY_COMPONENT.items() if e == entry.id and c in named), None)
        if own:
            # (the entry's general advice, after its colon, is what the library's own setting replaces)
            means, step = means.split(":", 1)[0], own
    yield Finding(
        PROGRAM,
        Severity.INFO,
        "doctor",
        f"the failure shown is the program's own: {means.split(':', 1)[0]}",
        f"The text says: '{first.line.strip()}'. It means {means}."
        + (f" In the program: {step}." if step else "")
        + " Nothing pasted points at the GPU environment; no repair of it is prescribed.",
        tuple(ev("pasted", line) for line in list(dict.fromkeys(e.line for e in faults))[:3]),
        # No remediation: the step is the program's, not the environment's (the plan holds only the latter).
    )


def check_stated_cuda_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """An issue form's "CUDA Version: X.Y" beside a GPU CUDA X.Y cannot compile for because the GPU is newer (an RTX
    4090, 8.9, with CUDA 11.3): whose CUDA the form means is not said, but a driver that supports only CUDA X.Y
    predates the GPU and could not drive it, so X.Y is the toolkit that builds the extension. Judged where no toolkit
    was shown (then toolkit-arch's own check decides)."""
    from gpudoctor.checks.toolkit import active_toolkit, nvcc_only_toolkit, same_major_build
    from gpudoctor.planner.context import gpu_cc

    said = _said(facts, "cuda-version-said")
    if not said or active_toolkit(facts) or nvcc_only_toolkit(facts):
        return
    cuda = said[-1].get("cuda") or ""
    for g in facts.driver.gpus:
        cc = gpu_cc(g, ctx)
        target = ctx.matrix.cc_target(cc) if cc else None
        if not (cc and target and target.first_cuda) or ctx.matrix.cuda_can_target(cuda, cc) is not False:
            continue
        if vkey(cuda) >= vkey(target.first_cuda):
            continue  # too old a GPU for this CUDA: a new driver on an old GPU reads the same, so it is not decided here
        # A cubin of the same major and a lower minor runs on this GPU (8.6 on 8.9: NVIDIA's Ada Compatibility Guide,
        # "Application Compatibility"), but not a Tegra part's on a discrete GPU (7.2 is Xavier's, 8.7 Orin's: "binary
        # compatibility between desktop and Tegra is not supported", CUDA C++ Programming Guide, "Binary
        # Compatibility"): the newest such one CUDA X.Y knows that a discrete GPU has (gpu_arch.toml's segments).
        discrete = {m.cc for m in ctx.matrix.gpus if m.segment != "jetson"}
        lower = [
            t.cc
            for t in ctx.matrix.cc_targets
            if t.cc.split(".")[0] == cc.split(".")[0]
            and vkey(t.cc) < vkey(cc)
            and t.cc in discrete
            and ctx.matrix.cuda_can_target(cuda, t.cc)
        ]
        build_for = (
            f"build for {lower[-1]}, which CUDA {cuda} knows and which runs on {cc} (TORCH_CUDA_ARCH_LIST={lower[-1]} for a "
            "PyTorch extension, or the project's own architecture variable), or "
            if lower
            else ""
        )
        newer = (
            f"use a CUDA {target.first_cuda} or newer toolkit (the toolkit alone, no driver) with a PyTorch built for the "
            "same CUDA major, then rebuild."
        )
        high = (ctx.matrix.cuda_cc_range(cuda) or ("", ""))[1]
        # Where the torch that builds it is shown with its CUDA, the same-major build is a command (toolkit's rule,
        # the toolkit its alternative); where not, both are said, and pasted.ask asks for the torch's CUDA that decides.
        toolkit = Remediation(f"To build for this GPU, {newer}", component="toolkit")
        torch = facts.frameworks.torch
        # (a torch of another CUDA major than the stated one builds with its own major's toolkit, which knows the GPU)
        same_cuda = isinstance(torch, Found) and (torch.value.cuda or "").split(".")[0] == cuda.split(".")[0]
        remediation = same_major_build(facts, cc, high, toolkit) if build_for and high and same_cuda else toolkit
        if remediation is toolkit:
            remediation = Remediation(f"To build for this GPU, {build_for}{newer}", component="toolkit")
        yield Finding(
            "toolkit-arch-unsupported",
            Severity.WARNING,
            "toolkit",
            f"CUDA {cuda} cannot build for the {g.name} (compute capability {cc}: CUDA {target.first_cuda} or newer)",
            f"The text states CUDA {cuda} beside this GPU. A driver that supports only CUDA {cuda} predates the GPU and "
            f"could not drive it, so this is the toolkit's version: its nvcc has no sm_{cc.replace('.', '')}, and a build "
            f"for this GPU stops with nvcc's 'Unsupported gpu architecture compute_{cc.replace('.', '')}'.",
            (ev("pasted", said[-1].line), ev(g.source, f"{g.name}: {cc}")),
            remediation,
            target.source,
        )
        return


CHECKS = (
    Check("reported-stated-cuda-arch", "toolkit", ("toolkit-arch-unsupported",), check_stated_cuda_arch, ("pasted",)),
    Check("reported-arch", "frameworks", ("framework-arch-unsupported",), check_reported_arch, ("pasted",)),
    Check("reported-runtime-arch", "frameworks", ("framework-arch-unsupported",), check_runtime_arch, ("pasted",)),
    Check(
        "reported-driver",
        "frameworks",
        ("framework-driver-too-old", "toolkit-newer-than-driver", "container-no-gpu"),
        check_reported_driver,
        ("pasted",),
    ),
    Check("reported-toolkit", "toolkit", ("toolkit-newer-than-driver",), check_reported_toolkit, ("pasted",)),
    Check(
        "reported-stated-toolkit-tf",
        "frameworks",
        ("framework-cuda-libs-missing",),
        check_stated_toolkit_for_tensorflow,
        ("pasted",),
    ),
    Check(
        "reported-conda-runtime",
        "frameworks",
        ("framework-driver-too-old", "toolkit-newer-than-driver"),
        check_reported_conda_runtime,
        ("pasted",),
    ),
    Check("reported-extension", "toolkit", ("toolkit-torch-major-mismatch",), check_reported_extension_build, ("pasted",)),
    Check("reported-container", "toolkit", ("toolkit-newer-than-driver",), check_reported_container, ("pasted",)),
    Check("reported-cudnn", "cudnn", ("cudnn-too-old",), check_reported_cudnn, ("pasted",)),
    Check(
        "reported-libraries",
        "frameworks",
        ("framework-cuda-libs-missing", "cudnn-missing"),
        check_reported_libraries,
        ("pasted",),
    ),
    Check("reported-driver-missing", "driver", ("driver-missing",), check_reported_driver_missing, ("pasted",)),
    Check("reported-container-gpu", "platform", ("container-no-gpu",), check_reported_container_gpu, ("pasted",)),
    Check("reported-cpu-build", "frameworks", ("framework-cpu-build",), check_reported_cpu_build, ("pasted",)),
    Check("reported-jax", "frameworks", ("jax-plugin-mismatch",), check_reported_jax, ("pasted",)),
    Check("reported-torch-pulled", "frameworks", ("companion-torch-mismatch",), check_reported_torch_pulled, ("pasted",)),
    Check("reported-wsl", "platform", ("wsl-linux-driver-installed",), check_reported_wsl, ("pasted",)),
    Check("reported-lost", "health", ("gpu-lost",), check_reported_lost, ("pasted",)),
    Check("reported-wsl-memory", "platform", ("wsl-memory-limit",), check_reported_wsl_memory, ("pasted",)),
    Check("reported-smi-other-release", "driver", ("driver-library-mismatch",), check_reported_smi_other_release, ("pasted",)),
    # Last: it reads what every other check found.
    Check("reported-program-fault", "doctor", (PROGRAM,), check_reported_program_fault, ("pasted",), after_others=True),
    Check("reported-unexplained", "doctor", (UNEXPLAINED,), check_reported_unexplained, ("pasted",), after_others=True),
)
