"""`gpudoctor memory plan`: do these jobs, with these budgets, fit on this GPU, and what enforces each budget.

Pure: takes the memory view of the machine and the jobs. A job needs its budget plus the memory its
framework's CUDA context and libraries take outside the budget (OVERHEADS); the jobs fit when the sum
is at most what is free now. On a GPU already split by MIG, jobs go to free MIG instances instead.
When budgets must be isolated in hardware (--isolate, or a program no software setting caps), the
plan also names the MIG profiles that would hold the jobs (mig.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gpudoctor.errors import UsageError
from gpudoctor.memory.mig import MigFit, fit_profiles, mig_gpu
from gpudoctor.memory.settings import JobSettings, job_settings
from gpudoctor.memory.view import GpuMemory, MemoryView, MigInstance
from gpudoctor.model import FRAMEWORK_ALIASES

MIB = 1024**2
GIB = 1024**3


@dataclass(frozen=True)
class Overhead:
    """Memory one process of a framework holds outside its budget; NOT measured here (docs/memory.md)."""

    framework: str
    bytes: int
    basis: str
    sources: tuple[str, ...]


OVERHEADS = {
    "torch": Overhead(
        "torch",
        512 * MIB,
        "CUDA context with lazy module loading (CUDA >= 11.7): about 300-400 MB per PyTorch maintainers; "
        "rounded up for cuBLAS/cuDNN handles. Before CUDA 11.7 it was over 1000 MB.",
        ("https://github.com/pytorch/pytorch/issues/109888", "https://github.com/pytorch/pytorch/issues/107667"),
    ),
    "tensorflow": Overhead(
        "tensorflow",
        1536 * MIB,
        "TF 2.7 on an RTX 3090 held 1869 MiB (nvidia-smi) with its logical device capped at 512 MiB: "
        "1357 MiB outside the cap, rounded up.",
        ("https://github.com/tensorflow/tensorflow/issues/53822",),
    ),
    "jax": Overhead(
        "jax",
        1024 * MIB,
        "No published figure found. JAX's maintainers say cuDNN and the CUDA libraries need memory outside "
        "XLA's pool; taken between the PyTorch and TensorFlow figures.",
        ("https://github.com/jax-ml/jax/issues/17426", "https://github.com/jax-ml/jax/issues/6039"),
    ),
    "other": Overhead(
        "other",
        512 * MIB,
        "A bare CUDA context: 320 MB measured with PyCUDA on a Titan V, rounded up.",
        ("https://github.com/pytorch/pytorch/issues/28394",),
    ),
}
# A job whose framework is not named is given the largest overhead, so the plan errs on the safe side.
OVERHEADS["any"] = Overhead("any", max(o.bytes for o in OVERHEADS.values()), "the largest of the frameworks' figures", ())

_UNITS = {
    "b": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,  # as --require reads them
    "kib": 1024,
    "mib": MIB,
    "gib": GIB,
    "tib": 1024**4,
    "k": 1024,
    "m": MIB,
    "g": GIB,
    "t": 1024**4,  # shorthand, as docker and PyTorch's allocator read them
    "ki": 1024,
    "mi": MIB,
    "gi": GIB,
    "ti": 1024**4,  # Kubernetes
}
_FRAMEWORKS = {
    **FRAMEWORK_ALIASES,
    # Libraries on top of one, whose memory that framework's allocator holds:
    "keras": "tensorflow",
    "flax": "jax",
    "other": "other",
    "none": "other",
    "cuda": "other",
    "any": "any",
}
_JOB = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)=(?P<size>\d+(?:\.\d+)?)\s*(?P<unit>[A-Za-z]*)(?::(?P<fw>[A-Za-z]+))?$")


_LEAST_CUT = 0.5  # budgets are offered cut to no less than half of what was asked


def _bytes(size: str, unit: str, spec: str, example: str) -> int:
    if not unit:
        raise UsageError(f"the size in {spec!r} needs a unit", hint=f"such as {example}")
    if unit.lower() not in _UNITS:
        raise UsageError(
            f"unknown size unit {unit!r} in {spec!r}", hint="use GiB or MiB (powers of 1024), or GB or MB (powers of 1000)"
        )
    return int(float(size) * _UNITS[unit.lower()])


_SIZE = re.compile(r"^(?P<size>\d+(?:\.\d+)?)\s*(?P<unit>[A-Za-z]*)$")


def stated_gpu(spec: str) -> MemoryView:
    """`--gpu-memory 24GiB`: a GPU as the person states it (all of it free, nothing running), for planning
    without one (a machine still to buy or rent, a laptop without a GPU)."""
    m = _SIZE.match(spec.strip())
    if m is None:
        raise UsageError(f"--gpu-memory {spec!r}: not a size", hint="such as --gpu-memory 24GiB")
    total = _bytes(m.group("size"), m.group("unit"), spec, f"{m.group('size')}GiB")
    if total <= 0:
        raise UsageError(f"--gpu-memory {spec!r}: a GPU needs some memory")
    name = f"a {fmt_size(total)} GPU, as stated"
    return MemoryView((GpuMemory(0, name, None, total, 0, total, "stated: --gpu-memory"),), host_mode="stated")


@dataclass(frozen=True)
class Job:
    name: str
    budget_bytes: int
    framework: str  # torch, tensorflow, jax, other, or any (not named)


def parse_job(spec: str) -> Job:
    m = _JOB.match(spec.strip())
    if m is None:
        raise UsageError(
            f"cannot read the job {spec!r}",
            hint="write NAME=SIZE or NAME=SIZE:FRAMEWORK, such as bert=5GiB or bert=5GiB:torch",
        )
    budget = _bytes(m.group("size"), m.group("unit") or "", spec, f"{m.group('name')}={m.group('size')}GiB")
    if budget <= 0:
        raise UsageError(f"the budget of {m.group('name')!r} is zero")
    fw = (m.group("fw") or "any").lower()
    if fw not in _FRAMEWORKS:
        import difflib

        close = difflib.get_close_matches(fw, list(_FRAMEWORKS), n=1)
        raise UsageError(
            f"unknown framework {m.group('fw')!r} in {spec!r}",
            hint=(f"did you mean {close[0]!r}? " if close else "") + "use torch, tensorflow, jax or other",
        )
    return Job(m.group("name"), budget, _FRAMEWORKS[fw])


def parse_jobs(specs: list[str]) -> tuple[Job, ...]:
    jobs = tuple(parse_job(s) for s in specs)
    if not jobs:
        raise UsageError("no jobs given", hint="gpudoctor memory plan --gpu 0 bert=5GiB resnet=7GiB")
    names = [j.name for j in jobs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"job names must differ: {', '.join(twice)} given twice")
    return jobs


@dataclass(frozen=True)
class JobPlan:
    job: Job
    overhead_bytes: int
    settings: JobSettings
    instance: MigInstance | None = None  # the MIG instance it runs on, on a GPU split by MIG

    @property
    def need_bytes(self) -> int:
        return self.job.budget_bytes + self.overhead_bytes


@dataclass(frozen=True)
class Plan:
    gpu: GpuMemory
    jobs: tuple[JobPlan, ...]
    mode: str  # "shared" (one GPU, budgets in software) or "mig-instances" (existing MIG instances)
    available_bytes: int
    need_bytes: int
    fits: bool
    suggestions: tuple[str, ...]
    mig: MigFit | None = None  # MIG profiles that would isolate the jobs, where asked for or needed
    isolation: str | None = None  # why MIG is part of the plan, or why it cannot be

    @property
    def shortfall_bytes(self) -> int:
        return max(0, self.need_bytes - self.available_bytes)

    @property
    def ok(self) -> bool:
        """What the exit status says: the jobs fit, in the way the plan must enforce them."""
        if self.mode == "mig-instances" or self.isolation is None:
            return self.fits
        return self.mig is not None and self.mig.fits


def fmt_size(n: int | None) -> str:
    """MiB under 1 GiB (a 19 MiB MIG slice is not "0.02 GiB"), else GiB with two decimals."""
    if n is None:
        return "?"
    return f"{n / MIB:.0f} MiB" if abs(n) < GIB else f"{n / GIB:.2f} GiB"


def pick_gpu(view: MemoryView, index: int) -> GpuMemory:
    for g in view.gpus:
        if g.index == index:
            return g
    known = ", ".join(str(g.index) for g in view.gpus) or "none"
    raise UsageError(f"there is no GPU {index} on this machine (GPUs: {known})", hint="gpudoctor memory lists them")


def make_plan(view: MemoryView, index: int, jobs: tuple[Job, ...], isolate: bool = False, matrix: Any = None) -> Plan:
    gpu = pick_gpu(view, index)
    if gpu.total_bytes is None:
        raise UsageError(f"GPU {index} does not report its total memory, so no budget can be judged")
    if gpu.mig_enabled:
        return _plan_on_instances(view, gpu, jobs, matrix)
    plans = tuple(
        JobPlan(
            j,
            OVERHEADS[j.framework].bytes,
            job_settings(j.framework, j.budget_bytes, gpu.total_bytes, gpu.uuid, gpu.index, matrix),
        )
        for j in jobs
    )
    available = gpu.free_bytes if gpu.free_bytes is not None else gpu.total_bytes - (gpu.used_bytes or 0)
    need = sum(p.need_bytes for p in plans)
    fits = need <= available
    suggestions = () if fits else _what_would_fit(view, gpu, plans, available, need)
    mig, isolation = None, None
    unenforceable = [p.job.name for p in plans if p.job.framework == "other"]
    if isolate or unenforceable:
        isolation = "asked for with --isolate" if isolate else f"no software setting caps {', '.join(unenforceable)}"
        row = mig_gpu(gpu.name, gpu.total_bytes)
        if row is None:
            isolation += f"; GPU {gpu.index} ({gpu.name or 'unknown'}) has no MIG: give each such job its own GPU"
        else:
            mig = fit_profiles(row, gpu.total_bytes, [(p.job.name, p.need_bytes) for p in plans])
    return Plan(gpu, plans, "shared", available, need, fits, suggestions, mig, isolation)


def _plan_on_instances(view: MemoryView, gpu: GpuMemory, jobs: tuple[Job, ...], matrix: Any) -> Plan:
    """Jobs onto the MIG instances nobody uses, largest job first onto the smallest instance that holds it."""
    free = [m for m in gpu.instances if _unused(m, gpu)]
    free.sort(key=lambda m: (m.free_bytes, m.device if m.device is not None else 0))
    chosen: dict[str, MigInstance] = {}
    for job in sorted(jobs, key=lambda j: -(j.budget_bytes + OVERHEADS[j.framework].bytes)):
        need = job.budget_bytes + OVERHEADS[job.framework].bytes
        inst = next((m for m in free if (m.free_bytes or 0) >= need), None)
        if inst is not None:
            chosen[job.name] = inst
            free.remove(inst)
    plans = []
    for j in jobs:
        inst = chosen.get(j.name)
        total = inst.total_bytes if inst and inst.total_bytes else gpu.total_bytes or 0
        uuid = inst.uuid if inst and inst.uuid else (f"MIG-<uuid of MIG {inst.device} from nvidia-smi -L>" if inst else None)
        plans.append(
            JobPlan(
                j, OVERHEADS[j.framework].bytes, job_settings(j.framework, j.budget_bytes, total, uuid, gpu.index, matrix), inst
            )
        )
    need = sum(p.need_bytes for p in plans)
    available = sum(m.free_bytes or 0 for m in gpu.instances if _unused(m, gpu))
    fits = len(chosen) == len(jobs)
    suggestions: list[str] = []
    mig = None
    if not fits:
        left = [j.name for j in jobs if j.name not in chosen]
        suggestions.append(f"no free MIG instance holds {', '.join(left)}: a job cannot span instances")
        row = mig_gpu(gpu.name, gpu.total_bytes)
        if row is not None:
            mig = fit_profiles(row, gpu.total_bytes or 0, [(p.job.name, p.need_bytes) for p in plans])
            if mig.fits:
                suggestions.append(f"re-partition GPU {gpu.index:d} with the MIG profiles below (destroys its instances)")
        suggestions += _other_gpus(view, gpu, need)
    return Plan(
        gpu,
        tuple(plans),
        "mig-instances",
        available,
        need,
        fits,
        tuple(suggestions),
        mig,
        f"GPU {gpu.index:d} is split by MIG: each job gets an instance of its own",
    )


# An idle MIG instance shows 10-30 MiB used (the captures); any CUDA context takes hundreds.
IDLE_INSTANCE = 64 * MIB


def _unused(m: MigInstance, gpu: GpuMemory) -> bool:
    """No process placed on it (nvidia-smi's GI/CI), and no more used than an idle instance (NVML gives no placement)."""
    if m.free_bytes is None:
        return False
    placed = any(h.gi is not None and (h.gi, h.ci) == (m.gi, m.ci) for h in gpu.holders)
    return not placed and (m.used_bytes or 0) < IDLE_INSTANCE


def _other_gpus(view: MemoryView, gpu: GpuMemory, need: int) -> list[str]:
    out = []
    for g in view.gpus:
        if g.index != gpu.index and not g.mig_enabled and g.free_bytes is not None and g.free_bytes >= need:
            out.append(f"GPU {g.index} ({g.name or 'unknown'}) has {fmt_size(g.free_bytes)} free: --gpu {g.index} fits them all")
    return out


def _what_would_fit(view: MemoryView, gpu: GpuMemory, plans: tuple[JobPlan, ...], available: int, need: int) -> tuple[str, ...]:
    short = need - available
    out: list[str] = []
    total = gpu.total_bytes or 0
    if need > total:
        out.append(f"even an empty GPU {gpu.index} ({fmt_size(total)}) is {fmt_size(need - total)} too small for all of them")
    else:
        freed, stop = 0, []
        for h in sorted(gpu.holders, key=lambda h: -(h.used_bytes or 0)):
            if freed >= short or not h.used_bytes:
                break
            freed += h.used_bytes
            stop.append(f"{h.pid} ({h.name or '?'}, {fmt_size(h.used_bytes)})")
        if freed >= short and stop:
            out.append(f"stopping {'process' if len(stop) == 1 else 'processes'} {', '.join(stop)} frees enough")
    out += _other_gpus(view, gpu, need)
    for p in plans:
        if need - p.need_bytes <= available and len(plans) > 1:
            out.append(f"without {p.job.name} ({fmt_size(p.need_bytes)}) the others fit")
    budgets = sum(p.job.budget_bytes for p in plans)
    room = available - sum(p.overhead_bytes for p in plans)
    # Smaller budgets are offered only where they stay budgets: at most halved. A job cut to 3% of what it asked
    # for (bert=165MiB) is not a plan, and the plan already says it does not fit.
    if room > 0 and budgets > 0 and room / budgets >= _LEAST_CUT:
        factor = room / budgets
        scaled = " ".join(f"{p.job.name}={int(p.job.budget_bytes * factor / MIB)}MiB" for p in plans)
        out.append(f"budgets cut to {int(factor * 100)}% fit: {scaled}")
    return tuple(out)
