"""Findings for the messages only the catalogue reads (gpudoctor/pasted/catalogue.toml), on pasted reports.

Each check here judges one evidence kind the catalogue makes and emits the code the fact-based check would,
only where no other check (run on the same facts) already says it: one finding per cause, with the line.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import Check, ev
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.planner.remedy import docker_runtime_setup


def _said(facts: Facts, kind: str) -> list:
    return facts.pasted.reported(kind) if facts.pasted.partial else []


def check_docker_gpu_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """docker's `could not select device driver "" with capabilities: [[gpu]]`: --gpus with no NVIDIA runtime."""
    said = _said(facts, "docker-gpu-driver-missing")
    if not said:
        return
    windows = facts.platform.system.lower().startswith("win")
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "docker cannot give the container a GPU: no NVIDIA device driver is registered with the daemon",
        "docker answered `--gpus` with 'could not select device driver \"\" with capabilities: [[gpu]]', as the text "
        "shows: the daemon has no GPU device driver, because the NVIDIA Container Toolkit is not installed or not "
        "configured for it"
        + (" (on Windows, Docker Desktop passes the GPU only with its WSL 2 backend)" if windows else "")
        + ". Nothing inside the image can fix it.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the host: install the NVIDIA Container Toolkit, configure docker's runtime with it, restart docker."
            if not windows
            else "Use Docker Desktop's WSL 2 backend with a current NVIDIA Windows driver (it passes the GPU into "
            "Linux containers); the NVIDIA Container Toolkit is for Linux hosts.",
            () if windows else docker_runtime_setup(),
            requires_root=not windows,
            component="container",
            where="the host",
        ),
    )


def check_tf_gpu_libraries(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """TensorFlow's `Cannot dlopen some GPU libraries ... Skipping registering GPU devices`."""
    from gpudoctor.checks.frameworks import check_cuda_libs
    from gpudoctor.checks.reported import check_reported_libraries

    said = _said(facts, "tf-gpu-libs-missing")
    if not said or facts.platform.system.lower().startswith("win"):
        return  # on Windows the DLL checks name the DLL
    if any(
        f.code in ("framework-cuda-libs-missing", "cudnn-missing")
        for check in (check_cuda_libs, check_reported_libraries)
        for f in check(facts, ctx)
    ):
        return
    named = [m for m in facts.pasted.missing if m.startswith("lib")]
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        "TensorFlow cannot load the CUDA libraries it was built for and registered no GPU"
        + (f" ({', '.join(named[:4])})" if named else ""),
        "TensorFlow said so ('Cannot dlopen some GPU libraries ... Skipping registering GPU devices'): one or more of "
        "its CUDA libraries (cudart, cuBLAS, cuFFT, cuSPARSE, cuSOLVER, cuDNN of the versions it was built for) is not "
        "installed or not where the loader searches. The log lines above it name which"
        + ("" if named else "; they were not pasted (see the ask-for list)")
        + ".",
        (ev("pasted", said[0].line),),
        Remediation(
            "Install the CUDA libraries of TensorFlow's build where it loads them: for pip installs, "
            "`tensorflow[and-cuda]` of the same version installs NVIDIA's wheels; or put their directory on "
            "LD_LIBRARY_PATH.",
            (),
            component="environment",
        ),
    )


def check_jax_no_cuda_platform(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """XLA's `Could not find registered platform with name: "cuda". Available platform names are: Host Interpreter`:
    the jaxlib that loaded registers no CUDA platform."""
    from gpudoctor.checks.frameworks import check_cpu_build
    from gpudoctor.checks.reported import _jax_fix, check_reported_cpu_build

    said = _said(facts, "jax-no-cuda-platform")
    if not said or any(
        f.code == "framework-cpu-build" for check in (check_cpu_build, check_reported_cpu_build) for f in check(facts, ctx)
    ):
        return
    yield Finding(
        "framework-cpu-build",
        Severity.ERROR,
        "frameworks",
        "the jaxlib that loads is a CPU-only build",
        "XLA lists its platforms and CUDA is not among them ('Available platform names are: Host Interpreter'), as "
        "the text shows: the jaxlib imported has no CUDA support (a CPU jaxlib installed over, or before, the CUDA "
        "one), so JAX runs on the CPU whatever the driver.",
        (ev("pasted", said[0].line),),
        _jax_fix(facts, ctx, "Install JAX with its CUDA support (jax[cudaNN]); remove the CPU jaxlib first."),
    )


def check_wsl_tcc(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A Windows nvidia-smi table in a WSL report with a GPU in TCC mode: WSL 2 passes only WDDM GPUs."""
    from gpudoctor.cmdline import Cmd

    side = facts.pasted.windows_side if facts.pasted.partial else {}
    models = {int(k): str(v) for k, v in (side.get("driver_models") or {}).items()}
    tcc = sorted(i for i, m in models.items() if m == "TCC")
    if not tcc or facts.platform.wsl != 2:
        return
    yield Finding(
        "windows-tcc-mode",
        Severity.INFO,
        "driver",
        f"GPU {', '.join(str(i) for i in tcc)} run{'s' if len(tcc) == 1 else ''} in TCC mode on Windows: invisible to WSL 2",
        "The Windows nvidia-smi table pasted shows the Driver-Model TCC. WSL 2 passes only WDDM GPUs into Linux "
        "(NVIDIA's CUDA on WSL guide), so inside WSL such a GPU does not exist.",
        tuple(ev("pasted", f"GPU {i}: Driver-Model TCC (Windows nvidia-smi)") for i in tcc),
        Remediation(
            "To use the GPU from WSL 2: switch it to WDDM in an Administrator PowerShell, then restart Windows.",
            tuple(Cmd(("nvidia-smi", "-g", str(i), "-dm", "0"), root=True, note="0 = WDDM") for i in tcc),
            requires_root=True,
            component="driver",
            where="Windows",
        ),
    )


CHECKS = (
    Check("catalogued-docker-gpu", "platform", ("container-no-gpu",), check_docker_gpu_driver, ("pasted",)),
    Check("catalogued-tf-libraries", "frameworks", ("framework-cuda-libs-missing",), check_tf_gpu_libraries, ("pasted",)),
    Check("catalogued-jax-platform", "frameworks", ("framework-cpu-build",), check_jax_no_cuda_platform, ("pasted",)),
    Check("catalogued-wsl-tcc", "driver", ("windows-tcc-mode",), check_wsl_tcc, ("pasted",)),
)
