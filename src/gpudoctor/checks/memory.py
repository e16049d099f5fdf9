"""A framework here will preallocate GPU memory on a GPU that another job already uses.

TensorFlow maps nearly all free memory of every visible GPU when it starts, and JAX 75% of the total
(compat_matrix/memory_settings.toml): beside another job, either the newcomer dies with
RESOURCE_EXHAUSTED or it leaves the other job no room to grow.

"Shared", precisely: a GPU this environment would use (CUDA_VISIBLE_DEVICES applied) on which at
least one compute process (nvidia-smi type C or C+G; every NVML-listed process) holds memory now.
Display processes (type G) alone do not count: they were there first, and preallocation takes what
they leave. A GPU split by MIG does not count either: each process then has an instance to itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.checks.frameworks import jax_cuda_major, tf_gpu
from gpudoctor.checks.platform import visible_devices
from gpudoctor.checks.toolkit import os_name
from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.facts import Facts, Gpu, Process
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.probed import found_value


def _visible(facts: Facts) -> list[Gpu]:
    gpus = list(facts.driver.gpus)
    value = facts.platform.env.get("CUDA_VISIBLE_DEVICES")
    if value is None or not gpus:
        return gpus
    valid, _ = visible_devices(value, [(g.index, g.uuid) for g in gpus], sum(g.mig_devices or 0 for g in gpus))
    chosen = []
    for entry in valid:
        if entry.startswith("MIG-"):
            return []  # a MIG instance is the process's own
        match = (
            next((g for g in gpus if g.index == int(entry)), None)
            if entry.isdigit()
            else next((g for g in gpus if g.uuid and g.uuid.startswith(entry)), None)
        )
        if match is not None and match not in chosen:
            chosen.append(match)
    return chosen


def shared_gpus(facts: Facts) -> list[tuple[Gpu, list[Process]]]:
    """The visible GPUs that compute processes already use, with those processes."""
    from gpudoctor.memory.view import is_compute, processes_by_gpu

    by_gpu = processes_by_gpu(facts.driver)
    out = []
    for g in _visible(facts):
        if g.mig_current:
            continue
        procs = [p for p in by_gpu.get(g.index, ()) if is_compute(p.type) and (p.used_bytes is None or p.used_bytes > 0)]
        if procs:
            out.append((g, procs))
    return out


def _who(procs: list[Process]) -> str:
    from gpudoctor.memory.plan import fmt_size

    top = sorted(procs, key=lambda p: -(p.used_bytes or 0))[:3]
    return ", ".join(f"{p.name or '?'} (pid {p.pid}, {fmt_size(p.used_bytes)})" for p in top)


def _evidence(shared: list[tuple[Gpu, list[Process]]]) -> tuple:
    return tuple(
        ev(
            g.source,
            f"GPU {g.index}: {len(procs)} compute process(es) hold "
            f"{sum(p.used_bytes or 0 for p in procs)} bytes; {g.memory_free_bytes} bytes free",
        )
        for g, procs in shared
    )


def _where(shared: list[tuple[Gpu, list[Process]]]) -> str:
    return "; ".join(f"GPU {g.index}: {_who(procs)}" for g, procs in shared)


def _sources(ctx: Context, framework: str, *names: str) -> tuple[str, ...]:
    settings = ctx.matrix.memory_setting(framework)
    keys: list[str] = list(settings.source) if settings else []
    for name in names:
        control = settings.control(name) if settings else None
        keys += [k for k in (control.source if control else ()) if k not in keys]
    return tuple(keys)


def check_tf_preallocates(facts: Facts, ctx: Context) -> Iterable[Finding]:
    tf = tf_gpu(facts)
    if tf is None or os_name(facts) == "windows":
        return  # TensorFlow has not used a GPU on native Windows since 2.10 (framework-windows-native-gpu)
    value = facts.platform.env.get("TF_FORCE_GPU_ALLOW_GROWTH")
    if value == "true":
        return
    shared = shared_gpus(facts)
    if not shared:
        return
    why = (
        "TF_FORCE_GPU_ALLOW_GROWTH is not set"
        if value is None
        else f'TF_FORCE_GPU_ALLOW_GROWTH={value!r} is not growth: TensorFlow accepts exactly "true" or "false"'
    )
    yield Finding(
        "tf-preallocates",
        Severity.WARNING,
        "memory",
        f"TensorFlow {tf.version} will map nearly all free memory of GPU(s) that other jobs use",
        f"{why}, so TensorFlow maps nearly all free memory of every visible GPU at start and never gives it back. "
        f"Already there: {_where(shared)}. The job that asks second fails with ResourceExhaustedError: OOM, or the "
        "other job cannot grow.",
        (
            ev("env:TF_FORCE_GPU_ALLOW_GROWTH", "unset" if value is None else value),
            ev(facts.frameworks.tensorflow.source, f"tensorflow {tf.version}"),
            *_evidence(shared),
        ),
        Remediation(
            "Let TensorFlow grow on demand (set it where the job starts); for a hard cap per job, see gpudoctor memory plan.",
            (
                SetEnv("TF_FORCE_GPU_ALLOW_GROWTH", "true"),
                Cmd(("gpudoctor", "memory", "plan", "--gpu", str(shared[0][0].index), "myjob=4GiB:tensorflow")),
            ),
            component="memory",
        ),
        _sources(ctx, "tensorflow", "TF_FORCE_GPU_ALLOW_GROWTH", "tf.config.set_logical_device_configuration"),
    )


def _preallocation_off(env: dict[str, str], values: tuple[str, ...]) -> bool:
    return env.get("XLA_PYTHON_CLIENT_PREALLOCATE") in values or env.get("XLA_PYTHON_CLIENT_ALLOCATOR") == "platform"


def check_jax_preallocates(facts: Facts, ctx: Context) -> Iterable[Finding]:
    if jax_cuda_major(facts) is None:
        return
    env = facts.platform.env
    settings = ctx.matrix.memory_setting("jax")
    control = settings.control("XLA_PYTHON_CLIENT_PREALLOCATE") if settings else None
    off_values = control.values if control and control.values else ("false", "False", "0")
    if _preallocation_off(env, off_values) or "XLA_PYTHON_CLIENT_MEM_FRACTION" in env:
        return
    shared = shared_gpus(facts)
    if not shared:
        return
    share = settings.default_fraction if settings and settings.default_fraction else 0.75
    jax_version = found_value(facts.frameworks.jax).jax or "?"
    commands: list = [SetEnv("XLA_PYTHON_CLIENT_PREALLOCATE", "false")]
    # Half of what is free now on the tightest shared GPU (less JAX's own overhead), rounded down: the
    # most that fits would leave the jobs already there no room to grow, which is the harm itself.
    from gpudoctor.memory.plan import OVERHEADS  # what a JAX process holds outside its pool, with its sources

    overhead = OVERHEADS["jax"].bytes
    halves = [((g.memory_free_bytes or 0) - overhead) / 2 / g.memory_total_bytes for g, _ in shared if g.memory_total_bytes]
    if halves and min(halves) >= 0.05:
        commands.append(
            SetEnv(
                "XLA_PYTHON_CLIENT_MEM_FRACTION",
                f"{math.floor(min(halves) * 100) / 100:.2f}",
                note="the most JAX may take: half of what is free now",
            )
        )
    commands.append(Cmd(("gpudoctor", "memory", "plan", "--gpu", str(shared[0][0].index), "myjob=4GiB:jax")))
    yield Finding(
        "jax-preallocates",
        Severity.WARNING,
        "memory",
        f"JAX {jax_version} will preallocate {share:.0%} of GPU(s) that other jobs use",
        f"Neither XLA_PYTHON_CLIENT_PREALLOCATE=false nor XLA_PYTHON_CLIENT_MEM_FRACTION is set, so JAX's first GPU "
        f"operation takes {share:.0%} of the GPU's total memory at once. Already there: {_where(shared)}. "
        "JAX fails with RESOURCE_EXHAUSTED when that much is not free, or leaves the other job no room.",
        (
            ev("env:XLA_PYTHON_CLIENT_PREALLOCATE", env.get("XLA_PYTHON_CLIENT_PREALLOCATE", "unset")),
            ev("env:XLA_PYTHON_CLIENT_MEM_FRACTION", "unset"),
            ev(facts.frameworks.jax.source, f"jax {jax_version}"),
            *_evidence(shared),
        ),
        Remediation(
            "Stop JAX from preallocating, or give it a share that fits (set before JAX starts).",
            tuple(commands),
            component="memory",
        ),
        _sources(ctx, "jax", "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION"),
    )


CHECKS = (
    Check("tf-preallocates", "memory", ("tf-preallocates",), check_tf_preallocates),
    Check("jax-preallocates", "memory", ("jax-preallocates",), check_jax_preallocates),
)
