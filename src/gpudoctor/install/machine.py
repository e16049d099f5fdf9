"""The facts a build choice depends on, gathered once: OS, driver, GPUs, the target environment. Pure."""

from __future__ import annotations

import posixpath
import re

from gpudoctor.checks import Context
from gpudoctor.checks.toolkit import gpu_cc
from gpudoctor.facts import Facts
from gpudoctor.install.model import GpuInfo, Machine, TargetEnv
from gpudoctor.probed import Found

# Distributions a plan looks at: the frameworks, their companions, JAX's plugins, NVIDIA's cuDNN wheels.
_RELEVANT = re.compile(
    r"^(pip|torch|torchvision|torchaudio|tensorflow(-cpu|-gpu|-intel|-macos)?|tf-nightly|jax|jaxlib"
    r"|jax-cuda\d+-(plugin|pjrt)|nvidia-cudnn-cu\d+)$"
)


def env_from_facts(facts: Facts, uv: str | None = None) -> TargetEnv:
    """The probed environment as an install target. `uv`: the uv executable when uv manages it."""
    py = facts.frameworks.python
    if not isinstance(py, Found):
        return TargetEnv(None, None, "unknown", chosen_by=facts.frameworks.python_chosen_by)
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
    driver_cuda = (m.max_cuda_for_driver(driver, os_name) if driver else None) or facts.driver.cuda_version
    gpus = []
    for g in facts.driver.gpus:
        if g.lost:
            continue
        cc = gpu_cc(g, ctx)
        gpus.append(GpuInfo(g.index, g.name or f"GPU {g.index}", cc, m.arch_name(cc) if cc else None))
    py = facts.frameworks.python
    installed = (
        {n: v for n, v in py.value.distributions.items() if _RELEVANT.match(n)} if isinstance(py, Found) else {}
    )
    return Machine(
        os=os_name,
        arch=facts.platform.machine or "?",
        driver=driver,
        driver_cuda=driver_cuda,
        gpus=tuple(gpus),
        env=env or env_from_facts(facts),
        installed=installed,
    )
