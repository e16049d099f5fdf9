"""The facts a build choice depends on, gathered once: OS, driver, GPUs, the target environment. Pure."""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from gpudoctor.facts import Facts, absence_known
from gpudoctor.planner.context import Context, gpu_cc
from gpudoctor.planner.model import GpuInfo, Machine, Target, TargetEnv
from gpudoctor.probed import Found

# Distributions a plan looks at: the frameworks, their companions, JAX's plugins, NVIDIA's cuDNN wheels.
_RELEVANT = re.compile(
    r"^(pip|torch|torchvision|torchaudio|xformers|flash-attn|vllm|tensorflow(-cpu|-gpu|-intel|-macos)?|tf-nightly|jax|jaxlib"
    r"|jax-cuda\d+-(plugin|pjrt)|nvidia-cudnn-cu\d+)$"
)


def env_from_facts(facts: Facts, uv: str | None = None) -> TargetEnv:
    """The probed environment as an install target. `uv`: the uv executable when uv manages it."""
    py = facts.frameworks.python
    if not isinstance(py, Found):
        from gpudoctor.planner.remedy import python_exe

        return TargetEnv(None, None, "unknown", chosen_by=facts.frameworks.python_chosen_by, placeholder=python_exe(facts))
    env = py.value
    prefix = env.prefix or posixpath.dirname(posixpath.dirname(env.executable)) or None
    return TargetEnv(
        python=env.executable,
        version=env.version or None,
        kind=env.kind or "unknown",
        prefix=prefix,
        chosen_by=facts.frameworks.python_chosen_by,
        has_pip="pip" in env.distributions,
        uv=uv,
    )


def os_of(facts: Facts) -> str:
    system = facts.platform.system.lower()
    if system.startswith("win"):
        return "windows"
    if system == "darwin":
        return "macos"
    return "linux"  # WSL included: its CUDA builds are the Linux ones


def machine_from_facts(facts: Facts, ctx: Context, env: TargetEnv | None = None) -> Machine:
    m = ctx.matrix
    os_name = os_of(facts)
    driver = facts.driver.version
    # The matrix's answer is a toolkit release (R565 -> 12.6); nvidia-smi's (12.7) is not always one.
    # Without a driver version (a pasted nvidia-smi header, a driver the matrix does not know), the
    # CUDA version the driver itself reports still decides which builds it runs.
    driver_cuda = (m.max_cuda_for_driver(driver, os_name) if driver else None) or _cuda_minor(facts.driver.cuda_version)
    gpus = []
    for g in facts.driver.gpus:
        if g.lost:
            continue
        cc = gpu_cc(g, ctx)
        gpus.append(GpuInfo(g.index, g.name or f"GPU {g.index}", cc, m.arch_name(cc) if cc else None))
    py = facts.frameworks.python
    installed = {n: v for n, v in py.value.distributions.items() if _RELEVANT.match(n)} if isinstance(py, Found) else {}
    pins = torch_pins(facts, installed)
    return Machine(
        os=os_name,
        arch=facts.platform.machine or "?",
        driver=driver,
        driver_cuda=driver_cuda,
        gpus=tuple(gpus),
        env=env or env_from_facts(facts),
        installed=installed,
        pins=pins,
        listed=isinstance(py, Found) and absence_known(facts, "distributions"),
    )


def built_for(facts: Facts) -> tuple[str, ...]:
    """The exact torch releases companions' messages say their compiled extensions were built for (the catalogue's
    companion-built-for: xformers prints its build's torch_version from cpp_lib.json when its _C fails to load,
    facebookresearch/xformers xformers/_cpp_lib.py @ca6d2aa0), the local tag dropped: 2.1.2+cu121 -> 2.1.2."""
    out = []
    for e in facts.pasted.reported("companion-built-for"):
        public = (e.get("built") or "").split("+", 1)[0]
        if re.fullmatch(r"\d+\.\d+\.\d+", public) and public not in out:
            out.append(public)
    return tuple(out)


# Companions whose every wheel pins one torch exactly (vLLM's Requires-Dist: torch==2.1.2 for 0.3.2): the torch they
# hold the environment to. The matrix has no rows of theirs, so no release of theirs for another torch is known.
PINNING = ("vllm",)


def torch_pins(facts: Facts, installed: dict[str, str]) -> tuple[tuple[str, str, str], ...]:
    """(name, version, the torch it pins) for each pinning companion installed: its METADATA's torch==X where it
    was read (gpudoctor.probes.extensions), else the torch installed beside it (a working vLLM runs on its pin). A
    pasted report that shows the companion's own compiled module failing (".../site-packages/vllm/_C.abi3.so:
    undefined symbol") shows it installed, its version not shown ("")."""
    read = {c.name: c for c in facts.extensions.companions} if facts.extensions is not None else {}
    loaded = _companions_loaded(facts)
    out = []
    for name in PINNING:
        if name not in installed and name in loaded:
            installed = {**installed, name: ""}
        if name not in installed:
            continue
        c = read.get(name)
        pin = next((r.split("==", 1)[1].strip() for r in (c.requires if c else ()) if _TORCH_PIN.match(r)), None)
        torch = pin or installed.get("torch", "").split("+", 1)[0]
        if re.match(r"^\d+\.\d+", torch):  # a version, not a package list's unreadable 'unknown'
            out.append((name, installed[name], torch))
    return tuple(out)


_TORCH_PIN = re.compile(r"^torch\s*==\s*[0-9][^,;\s]*\s*$")
# A compiled module of a package in a site-packages directory, as a pasted error names it (the loader's "undefined
# symbol", "cannot open shared object file" lines carry the object's path).
_SITE_OBJECT = re.compile(r"[\\/](?:site|dist)-packages[\\/](?P<pkg>[A-Za-z_]\w*)[\\/][^\\/]*\.(?:so|pyd)\b")


def _companions_loaded(facts: Facts) -> set[str]:
    if not facts.pasted.partial:
        return set()
    return {
        m.group("pkg")
        for e in facts.pasted.errors
        for value in (e.get("object"), e.get("path"))
        if value and (m := _SITE_OBJECT.search(value))
    }


_CUDA = re.compile(r"^(\d{1,2})\.(\d{1,2})(\.\d+)?$")
_CC = re.compile(r"^(?:sm_?)?(\d{1,2})\.?(\d)$", re.I)
# "550" alone is the branch: what every 550 release runs (its first releases predate some of its CUDA support).
_DRIVER = re.compile(r"^\d{3}(\.\d{1,3}){0,2}$")


def _cuda_minor(cuda: str | None) -> str | None:
    m = _CUDA.match((cuda or "").strip())
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


def target_gaps(machine: Machine) -> tuple[str, ...]:
    """What the probes did not see that a CUDA build choice needs; empty when it can be made.

    One of the two is enough. A driver seen without a GPU (a pod whose device list was not captured,
    nvidia-smi's "No devices were found") decides the CUDA build; the kernels go unchecked, and the plan
    says so. A GPU seen without a driver (a report that pasted the GPU, a driver NVML could not name)
    narrows the choice to the builds with kernels for it, and of those the one that needs the lowest
    driver is chosen (gpudoctor.planner.plan.select); the plan says which driver it needs. With
    neither (or a GPU whose compute capability is unknown), every CUDA build would be a guess."""
    if machine.driver_cuda or any(g.cc for g in machine.gpus):
        return ()
    return (("no NVIDIA GPU",) if not machine.gpus else ()) + ("no NVIDIA driver",)


def gpu_from_option(text: str, ctx: Context) -> GpuInfo:
    """--gpu: a compute capability ("8.9", "sm_89") or a name the matrix knows ("RTX 4090"). Raises UsageError."""
    from gpudoctor.errors import UsageError

    t = text.strip()
    m = _CC.match(t)
    if m and (t.lower().startswith("sm") or "." in t):
        cc = f"{int(m.group(1))}.{int(m.group(2))}"
        return GpuInfo(0, f"a GPU of compute capability {cc}", cc, ctx.matrix.arch_name(cc))
    for name in (t, f"GeForce {t}", f"NVIDIA {t}"):
        row = ctx.matrix.gpu_for_name(name)
        if row is not None:
            return GpuInfo(0, row.name, row.cc, ctx.matrix.arch_name(row.cc))
    raise UsageError(
        f"--gpu {text}: not a compute capability and not a GPU name the compatibility matrix knows",
        "give the compute capability instead, e.g. --gpu 8.9 (NVIDIA's CUDA GPUs page lists them)",
    )


def apply_target(machine: Machine, target: Target, ctx: Context) -> Machine:
    """The machine as the person describes it: what they say replaces what the probes saw. Raises UsageError."""
    from gpudoctor.errors import UsageError

    if not target:
        return machine
    m = ctx.matrix
    out = replace(machine, told=target.options(), cpu=target.cpu)
    if target.gpu:
        out = replace(out, gpus=(gpu_from_option(target.gpu, ctx),))
    if target.driver:
        d = target.driver.strip()
        if not _DRIVER.match(d):
            raise UsageError(
                f"--driver {target.driver}: not an NVIDIA driver version",
                "give it as nvidia-smi prints it, e.g. --driver 550.54.14",
            )
        cuda = m.max_cuda_for_driver(d, out.os)
        if cuda is None:
            raise UsageError(
                f"--driver {d}: the compatibility matrix knows no CUDA this driver runs",
                "give the driver's CUDA version instead: --cuda 12.4",
            )
        out = replace(out, driver=d, driver_cuda=cuda)
    if target.cuda:
        cuda = _cuda_minor(target.cuda)
        if cuda is None:
            raise UsageError(
                f"--cuda {target.cuda}: not a CUDA version", "give the CUDA version nvidia-smi's header shows, e.g. --cuda 12.4"
            )
        if target.driver and out.driver_cuda and cuda != out.driver_cuda:
            raise UsageError(
                f"--driver {out.driver} runs CUDA up to {out.driver_cuda}, not {cuda}", "give --driver or --cuda, not both"
            )
        if not target.driver:
            # Only the CUDA version: the driver version the probes saw (if any) no longer describes the target.
            out = replace(out, driver=None, driver_cuda=cuda)
    return out
