"""Choose the build to install and the exact steps that install it. Pure: Facts and the matrix in, a Plan out.

The choice: the newest release (or the asked one) with a build whose every judgement holds (Python,
OS, driver, kernels for every GPU); within a release the framework's own ranking decides (PyTorch:
full driver support over minor-version compatibility, then the PyPI default variant, then stable
over experimental, then the newest CUDA; JAX: full support, then the newest CUDA major). Then the
same search with the driver, or the Python version, left out says what an upgrade would open.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from types import ModuleType

from gpudoctor.checks import Context
from gpudoctor.facts import Facts
from gpudoctor.install import commands, pick_jax, pick_tensorflow, pick_torch
from gpudoctor.matrix import kernel_route
from gpudoctor.install.machine import machine_from_facts
from gpudoctor.install.model import TITLES, Candidate, GpuInfo, Machine, Plan, Step, TargetEnv
from gpudoctor.matrix import spec_contains, version_key
from gpudoctor.probed import value_or_none
from gpudoctor.versions import vkey

PICKERS: dict[str, ModuleType] = {"torch": pick_torch, "tensorflow": pick_tensorflow, "jax": pick_jax}
_X86 = ("x86_64", "amd64")


@dataclass(frozen=True)
class Options:
    reinstall: bool = False  # even when the chosen build is installed already
    installer: str | None = None  # pip or uv; None: uv where uv manages an environment without pip
    index_url: str | None = None  # a mirror; "{variant}" in it becomes the PyTorch variant (cu126)
    extra_args: tuple[str, ...] = ()  # appended to the install command (--no-deps, --proxy ...)


def select(pick: ModuleType, matrix, machine: Machine, facts: Facts, groups, ignore: tuple[str, ...] = ()):
    """(best candidate, its matrix row, the candidates ruled out on the way): newest release first."""
    ruled: list[Candidate] = []
    for row, builds in groups:
        cands = [pick.judge(matrix, machine, facts, row, b, ignore_driver="driver" in ignore) for b in builds]
        fitting = [c for c in cands if not c.failures(ignore)]
        if fitting:
            best = max(fitting, key=pick.rank)
            return best, row, ruled + [c for c in cands if c.failures(ignore)]
        ruled += cands
    return None, None, ruled


def _newer(a: Candidate, b: Candidate | None) -> bool:
    return b is None or (version_key(a.build.release), vkey(a.build.cuda)) > (version_key(b.build.release), vkey(b.build.cuda))


def suggest_python(spec: str) -> str | None:
    """A Python to suggest for `spec`: the newest below its upper bound, or its floor when it has none."""
    from gpudoctor.matrix import parse_spec, spec_floor

    if any(op in ("<", "<=") for op, _, _ in parse_spec(spec)):
        for minor in range(30, 5, -1):
            if spec_contains(spec, f"3.{minor}"):
                return f"3.{minor}"
        return None
    floor = spec_floor(spec)
    return ".".join(floor.split(".")[:2]) if floor else None


def kernel_history(pick: ModuleType, matrix, groups, gpu: GpuInfo, title: str) -> tuple[str, ...]:
    """When this GPU's kernels first (or last) shipped in the framework: the reason a new or old GPU narrows the choice."""
    if not gpu.cc:
        return ()
    releases = []  # oldest first: [(builds with their route on this GPU)], routes unknown to the matrix left out
    for row, builds in reversed(groups):
        routes = [(b, kernel_route(*pick.kernels_of(matrix, row, b), gpu.cc)[0]) for b in reversed(builds)]
        routes = [(b, r) for b, r in routes if r != "unknown"]
        if routes:
            releases.append(routes)
    if not releases:
        return ()
    cubin = [b for routes in releases for b, r in routes if r == "cubin"]
    runs = [[b for b, r in routes if r != "none"] for routes in releases]
    if not cubin:
        if any(runs):
            return (f"no {title} build carries {gpu.sm} cubins: on {gpu.name} it runs from PTX the driver compiles",)
        return (f"no {title} build in the matrix has kernels for {gpu.describe()}",)
    out = []
    if not any(r == "cubin" for _, r in releases[0]):
        older = "" if gpu.cc.endswith(".0") else f" (or an older sm_{gpu.cc.split('.')[0]}x)"
        out.append(f"{gpu.name} needs kernels for {gpu.sm}{older}, first shipped in {cubin[0].label}")
    if not runs[-1]:
        last = [b for r in runs if r for b in r][-1]
        out.append(f"{gpu.sm} kernels were last shipped in {last.label}; newer {title} releases dropped {gpu.arch or 'this architecture'}")
    return tuple(out)


def _driver_hint(pick, matrix, machine, facts, groups, chosen) -> str | None:
    """The smallest driver upgrade that opens a newer release than the chosen one (None when none would)."""
    relaxed, row, _ = select(pick, matrix, machine, facts, groups, ignore=("driver",))
    if relaxed is None or not _newer(relaxed, chosen):
        return None
    opened = []
    for b in next(builds for r, builds in groups if r is row):
        fails = pick.judge(matrix, machine, facts, row, b, ignore_driver=True).failures()
        if fails and all(j.topic == "driver" and j.needs for j in fails):
            opened.append((fails[0].needs, matrix.min_driver_for_cuda(b.cuda, machine.os), b))
    if not opened:
        return None
    need, full, b = min(opened, key=lambda o: (vkey(o[0]), vkey(o[1] or "")))
    extra = f" (>= {full} for full CUDA {b.cuda} support)" if full and full != need else ""
    return f"a driver >= {need}{extra} would open {b.label}"


def _hints(pick, matrix, machine, facts, groups, chosen) -> tuple[str, ...]:
    out = [h for h in (_driver_hint(pick, matrix, machine, facts, groups, chosen),) if h]
    relaxed, row, _ = select(pick, matrix, machine, facts, groups, ignore=("python",))
    if relaxed is not None and _newer(relaxed, chosen) and machine.python:
        py = suggest_python(row.python)
        out.append(f"an environment with Python {py or row.python} would open {relaxed.build.label} (it supports Python {row.python})")
    return tuple(out)


def _steps(pick, machine: Machine, build, installer: str, options: Options) -> tuple[Step, ...]:
    # Download first, replace in one step (gpudoctor.install.commands says how): nothing is removed before the new build is here.
    names = pick.uninstall_names(machine, build, options.reinstall)
    index = build.index_url
    if options.index_url:
        index = options.index_url.replace("{variant}", build.variant)
    return commands.replace_steps(installer, machine.env, pick.install_specs(machine, build), names, label=build.label,
                                  index_url=index, find_links=build.find_links, extra=options.extra_args,
                                  reinstall=options.reinstall)


def _notes(machine: Machine, env: TargetEnv) -> tuple[str, ...]:
    notes = []
    if not env.python:
        notes.append(f"no Python environment was seen: the commands name {commands.PLACEHOLDER_PYTHON}; run them with the environment's own interpreter")
    elif env.kind == "system":
        notes.append(
            f"{env.python} is a system interpreter: a virtual environment keeps the install apart from the "
            "distribution's packages (pip may refuse here with 'externally-managed-environment')"
        )
    if not machine.gpus:
        notes.append("no NVIDIA GPU was seen, so no build could be checked for its kernels (gpudoctor check says why)")
    if machine.arch.lower() not in _X86:
        notes.append(f"the matrix describes the x86_64 wheels; on {machine.arch} the index may have no such build (pip then says so)")
    if env.kind == "conda":
        notes.append(
            "conda-forge builds are not the wheels this plan was checked against (their CUDA versions and GPU architectures "
            "are conda-forge's); do not mix conda and pip installs of the same package"
        )
    return tuple(notes)


def plan_install(facts: Facts, ctx: Context, framework: str, requested: str | None = None, *,
                 env: TargetEnv | None = None, options: Options = Options()) -> Plan:
    """Raises UsageError for a version that is not one, or that the matrix does not know."""
    pick = PICKERS[framework]
    matrix = ctx.matrix
    title = TITLES[framework]
    machine = machine_from_facts(facts, ctx, env)
    groups = pick.groups(matrix, requested)
    chosen, row, ruled = select(pick, matrix, machine, facts, groups)
    installer = options.installer or ("uv" if machine.env.uv and not machine.env.has_pip else "pip")
    plan = Plan(framework, requested, machine, chosen, ruled_out=tuple(ruled), installer=installer,
                notes=_notes(machine, machine.env), upgrade=_hints(pick, matrix, machine, facts, groups, chosen))
    if chosen is None:
        instead = None
        if requested:
            instead, _, _ = select(pick, matrix, machine, facts, pick.groups(matrix, None))
        return replace(plan, instead=instead)
    history = tuple(line for g in machine.gpus for line in kernel_history(pick, matrix, pick.groups(matrix, None), g, title))
    first = f"{title} {requested}, as asked" if requested else f"the newest {title} release that fits this machine"
    build = chosen.build
    fw_facts = value_or_none(getattr(facts.frameworks, framework))
    already = pick.installed_matches(machine, fw_facts, build) and not options.reinstall
    steps = () if already else _steps(pick, machine, build, installer, options)
    equivalents = []
    if steps and installer == "pip" and machine.env.uv:
        equivalents.append(("uv", tuple(s.argv for s in _steps(pick, machine, build, "uv", options))))
    if steps and installer == "uv" and machine.env.has_pip:
        equivalents.append(("pip", tuple(s.argv for s in _steps(pick, machine, build, "pip", options))))
    if steps and machine.env.kind == "conda":
        equivalents.append(("conda", (pick.conda_equivalent(machine, build),)))
    back = pick.undo_args(machine) if steps else ()
    return replace(
        plan,
        reasons=(first, *history),
        steps=steps,
        equivalents=tuple(equivalents),
        manual=pick.manual(machine, row, chosen),
        already=already,
        undo=(shlex.join(commands.args_argv(installer, machine.env, undo_back(back, machine, options))),) if back else (),
    )


def undo_back(back: tuple[str, ...], machine: Machine, options: Options) -> tuple[str, ...]:
    """The undo arguments through the user's mirror (--index-url), {variant} being the old build's local tag."""
    if not options.index_url or not back:
        return back
    old_variant = machine.installed.get("torch", "").partition("+")[2]
    if "{variant}" in options.index_url and not old_variant:
        return back  # no variant to fill in: the picker's own index names the old build's source
    return commands.undo_args(back, options.index_url.replace("{variant}", old_variant))


# --- for the framework checks' remediation commands ------------------------------------------


def torch_variant_for(facts: Facts, ctx: Context, torch_version: str) -> str | None:
    """The variant tag (cu118) of this PyTorch release that fits this machine best; None when none does."""
    rel = ctx.matrix.torch_release(torch_version)
    if rel is None:
        return None
    chosen, _, _ = select(pick_torch, ctx.matrix, machine_from_facts(facts, ctx), facts, pick_torch.groups(ctx.matrix, rel.version))
    return chosen.build.variant if chosen else None


def newest_torch(facts: Facts, ctx: Context) -> tuple[str, str] | None:
    """(release, variant tag) of the newest PyTorch build that fits this machine; None when none does."""
    chosen, _, _ = select(pick_torch, ctx.matrix, machine_from_facts(facts, ctx), facts, pick_torch.groups(ctx.matrix, None))
    return (chosen.build.release, chosen.build.variant) if chosen else None
