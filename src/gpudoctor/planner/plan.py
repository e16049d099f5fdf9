"""Choose the build to install and the exact steps that install it. Pure: Facts and the matrix in, a Plan out.

The choice: the newest release (or the asked one) with a build whose every judgement holds (Python,
OS, driver, kernels for every GPU); within a release the framework's own ranking decides (PyTorch:
full driver support over minor-version compatibility, then the PyPI default variant, then stable
over experimental, then the newest CUDA; JAX: full support, then the newest CUDA major). With the
driver unknown, the build with kernels for this GPU that needs the lowest driver instead (_lowest_driver).
Then the same search with the driver, or the Python version, left out says what an upgrade would open.
plan_first_fit tries several requests (the installed version, its release, the nearer releases, the
newest) in one pass: the machine read once, each build judged once, one plan written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

from gpudoctor.cmdline import Cmd
from gpudoctor.errors import UsageError
from gpudoctor.facts import Facts
from gpudoctor.matrix import kernel_route, spec_contains, version_key
from gpudoctor.planner import commands, pick_jax, pick_tensorflow, pick_torch
from gpudoctor.planner.context import Context
from gpudoctor.planner.machine import apply_target, machine_from_facts, target_gaps
from gpudoctor.planner.model import TITLES, Candidate, Change, GpuInfo, Machine, Plan, Step, Target, TargetEnv
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
    target: Target = field(default_factory=Target)  # --gpu/--driver/--cuda/--cpu: what the probes could not see
    # Only builds whose CUDA extensions this nvcc can build (its CUDA major, no newer than it): the
    # PyTorch side of toolkit-torch-major-mismatch (gpudoctor.checks.toolkit.torch_side).
    nvcc: str | None = None


TARGET_OPTIONS = (
    ("--gpu NAME|CC", 'the GPU the build is for: a name ("RTX 4090") or a compute capability (8.9)'),
    ("--driver VERSION", "the NVIDIA driver it will run on (550.54.14)"),
    ("--cuda VERSION", "the CUDA version that driver runs (nvidia-smi's header: 12.4)"),
    ("--cpu", "a CPU-only build"),
)


class TargetNeeded(UsageError):
    """No GPU or no driver was seen, and nobody said what the build is for: choosing a CUDA build would be a guess."""

    def __init__(self, framework: str, gaps: tuple[str, ...]) -> None:
        self.framework = framework
        self.gaps = gaps
        super().__init__(
            f"{' and '.join(gaps)} seen here, so no {TITLES[framework]} CUDA build can be chosen for this machine without guessing",
            "say what the build is for: " + "; ".join(f"{o} ({why})" for o, why in TARGET_OPTIONS),
        )

    def to_json(self) -> dict:
        return {
            "code": "target-needed",
            "message": self.message,
            "hint": self.hint,
            "missing": list(self.gaps),
            "options": [{"option": o, "meaning": why} for o, why in TARGET_OPTIONS],
        }


def select(pick: ModuleType, matrix, machine: Machine, facts: Facts, groups, ignore: tuple[str, ...] = (), judged=None):
    """(best candidate, its matrix row, the candidates ruled out on the way): newest release first.

    Without the driver's CUDA version (a GPU seen, its driver not) the newest release is not the
    choice: see _lowest_driver. `judged`: a dict that keeps each build's judgement for the next call
    (one pass over the releases when several requests are tried, plan_first_fit)."""
    judge = _judge(pick, matrix, machine, facts, "driver" in ignore, {} if judged is None else judged)
    if not machine.driver_cuda and not machine.cpu and "driver" not in ignore:
        return _lowest_driver(pick, matrix, machine, groups, judge, ignore)
    ruled: list[Candidate] = []
    for row, builds in groups:
        cands = [judge(row, b) for b in builds]
        fitting = [c for c in cands if not c.failures(ignore)]
        if fitting:
            return max(fitting, key=pick.rank), row, ruled + [c for c in cands if c.failures(ignore)]
        ruled += cands
    return None, None, ruled


def _judge(pick: ModuleType, matrix, machine: Machine, facts: Facts, ignore_driver: bool, judged: dict):
    def judge(row, build) -> Candidate:
        key = (id(row), build, ignore_driver)
        c = judged.get(key)
        if c is None:
            c = judged[key] = pick.judge(matrix, machine, facts, row, build, ignore_driver=ignore_driver)
        return c

    return judge


def build_floor(matrix, machine: Machine, cuda: str | None) -> tuple[str | None, str | None]:
    """(the lowest driver that runs a build of CUDA `cuda` on this machine's GPUs, the driver that runs it fully).

    A driver older than the first CUDA release that targets a GPU does not know that GPU (an RTX 50,
    sm_120, first targeted by CUDA 12.8, needs R570, CUDA 12.8's driver; gpu_arch.toml's first_cuda),
    so the GPU's own floor counts too."""
    from gpudoctor.planner.judge import driver_needs

    if not cuda:
        return None, None
    lowest, full = driver_needs(matrix, cuda, machine.os)
    gpu = _gpu_floor(matrix, machine)
    if gpu and lowest and vkey(gpu) > vkey(lowest):
        lowest = gpu
    return lowest, full


def _gpu_floor(matrix, machine: Machine) -> str | None:
    floors = []
    for g in machine.gpus:
        t = matrix.cc_target(g.cc) if g.cc else None
        first = matrix.min_driver_for_cuda(t.first_cuda, machine.os) if t is not None and t.first_cuda else None
        if first:
            floors.append(first)
    return max(floors, key=vkey, default=None)


def _driver_tier(matrix, machine: Machine, cuda: str | None) -> tuple:
    """What a build asks of an unseen driver, for choosing: its CUDA major's minor-version-compatibility floor
    (every driver from there runs any build of that major: CUDA 11.0 and 11.8 ask the same, 450.80.02), or
    its toolkit driver where the matrix has no floor; never less than the GPU's own floor."""
    from gpudoctor.versions import major

    if not cuda:
        return (999,)
    m = major(cuda)
    tier = (matrix.minor_compat_floor(m, machine.os) if m is not None else None) or matrix.min_driver_for_cuda(cuda, machine.os)
    gpu = _gpu_floor(matrix, machine)
    if gpu and (not tier or vkey(gpu) > vkey(tier)):
        tier = gpu
    return vkey(tier) if tier else (999,)


def _lowest_driver(pick: ModuleType, matrix, machine: Machine, groups, judge, ignore: tuple[str, ...]):
    """With the driver unknown: of the builds with kernels for this GPU, the one that needs the lowest driver
    (it runs on the most drivers: an RTX 5090 gets a cu128 build, driver >= 570.26, not cu132's >= 580.65.06),
    compared by _driver_tier; among equals the newest release, and within a release the lowest CUDA (every
    driver that runs a newer CUDA runs it too).
    The plan names that build's driver floor and asks for nvidia-smi (driver_unseen)."""
    best: tuple | None = None
    ruled: list[Candidate] = []
    for row, builds in groups:  # newest release first: a tie keeps the newer one
        cands = [judge(row, b) for b in builds]
        ruled += [c for c in cands if c.failures(ignore)]
        fitting = sorted((c for c in cands if not c.failures(ignore)), key=lambda c: vkey(c.build.cuda))
        for c in fitting:
            key = _driver_tier(matrix, machine, c.build.cuda)
            if best is None or key < best[0]:
                best = (key, c, row)
    if best is None:
        return None, None, ruled
    _, chosen, row = best
    newer_or_same = [c for c in ruled if version_key(c.build.release) >= version_key(chosen.build.release)]
    return chosen, row, newer_or_same


def _default_wheel_of_cpu_torch(matrix, machine: Machine, facts: Facts) -> tuple[str, str] | None:
    """(variant, why) where the text shows a pip or uv command install this CPU build, pinned, from PyTorch's CPU
    index on Linux x86_64, and no driver was seen: the same release's default wheel (the package index's Linux
    wheels of torch are CUDA builds, pypi_default in torch.toml). The reporter chose the release, the installer
    the CPU index; the driver it needs is said with the plan (driver_unseen). Without such a command, no CUDA
    build is guessed (TargetNeeded)."""
    from gpudoctor.facts import CPU_INDEX_INSTALL

    installed = machine.installed.get("torch", "")
    public, _, local = installed.partition("+")
    if local.lower() != "cpu" or machine.os != "linux" or machine.arch.lower() not in _X86:
        return None
    if not any(c.get("cue") == CPU_INDEX_INSTALL and c.get("means") == public for c in facts.pasted.cues):
        return None
    rel = matrix.torch_release(public)
    if rel is None or not rel.pypi_default.startswith("cu"):
        return None
    return rel.pypi_default, f"torch {public}'s Linux wheel on the default package index is its {rel.pypi_default} build"


def driver_unseen(matrix, plan_machine: Machine, build, because: str | None = None) -> str | None:
    """What the plan says when no driver was seen: the driver the chosen build needs, and what to run (None when one was seen).
    `because`: what in the environment named the build (the picker's `evidence`), when that chose it."""
    if plan_machine.driver_cuda or plan_machine.cpu or not build.cuda:
        return None
    lowest, full = build_floor(matrix, plan_machine, build.cuda)
    need = (
        (
            f"driver >= {lowest}"
            + (f" (>= {full} for full CUDA {build.cuda} support)" if full and vkey(full) > vkey(lowest) else "")
        )
        if lowest
        else "a driver that runs CUDA " + build.cuda
    )
    if because:
        return (
            f"no NVIDIA driver was seen here: {because}, so that build; it needs {need}; "
            "nvidia-smi's CUDA version says whether the driver runs it"
        )
    # No driver CUDA: plan_install went on only because a GPU with a compute capability was seen or named (target_gaps).
    which = "with kernels for this GPU" if any(g.cc for g in plan_machine.gpus) else "that fit"
    return (
        f"no NVIDIA driver was seen here: of the builds {which}, {build.label} needs the lowest "
        f"driver: {need}; run nvidia-smi and give its CUDA version (--cuda) for the newest build that driver runs"
    )


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
    # Every picker module has this function: (cubin archs, PTX archs) of a build.
    kernels_of: Callable[[Any, Any, Any], tuple[tuple[str, ...], tuple[str, ...]]] = pick.kernels_of
    for row, builds in reversed(groups):
        routes = [(b, kernel_route(*kernels_of(matrix, row, b), gpu.cc)[0]) for b in reversed(builds)]
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
        out.append(
            f"{gpu.sm} kernels were last shipped in {last.label}; newer {title} releases dropped {gpu.arch or 'this architecture'}"
        )
    return tuple(out)


def _driver_hint(pick, matrix, machine, facts, groups, chosen, judged=None) -> str | None:
    """The smallest driver upgrade that opens a newer release than the chosen one (None when none would)."""
    relaxed, row, _ = select(pick, matrix, machine, facts, groups, ignore=("driver",), judged=judged)
    if relaxed is None or not _newer(relaxed, chosen):
        return None
    opened = []
    judge = _judge(pick, matrix, machine, facts, True, {} if judged is None else judged)
    for b in next(builds for r, builds in groups if r is row):
        fails = judge(row, b).failures()
        if fails and all(j.topic == "driver" and j.needs for j in fails):
            opened.append((fails[0].needs, matrix.min_driver_for_cuda(b.cuda, machine.os), b))
    if not opened:
        return None
    need, full, b = min(opened, key=lambda o: (vkey(o[0]), vkey(o[1] or "")))
    extra = f" (>= {full} for full CUDA {b.cuda} support)" if full and full != need else ""
    return f"a driver >= {need}{extra} would open {b.label}"


def _hints(pick, matrix, machine, facts, groups, chosen, judged=None) -> tuple[str, ...]:
    out = [h for h in (_driver_hint(pick, matrix, machine, facts, groups, chosen, judged),) if h]
    relaxed, row, _ = select(pick, matrix, machine, facts, groups, ignore=("python",), judged=judged)
    if relaxed is not None and _newer(relaxed, chosen) and machine.python:
        py = suggest_python(row.python)
        out.append(
            f"an environment with Python {py or row.python} would open {relaxed.build.label} (it supports Python {row.python})"
        )
    return tuple(out)


def _steps(pick, matrix, machine: Machine, build, installer: str, options: Options, again: bool = False) -> tuple[Step, ...]:
    # One install command (gpudoctor.planner.commands says why nothing is lost): the framework and its companions together.
    # `again`: the build installed now is the chosen one (--reinstall over the same version).
    names = pick.uninstall_names(machine, build, options.reinstall)
    index = build.index_url
    if options.index_url:
        index = options.index_url.replace("{variant}", build.variant)
    return commands.replace_steps(
        installer,
        machine.env,
        pick.install_specs(matrix, machine, build),
        names,
        label=build.label,
        index_url=index,
        find_links=build.find_links,
        extra=options.extra_args,
        reinstall=again,
    )


def _notes(machine: Machine, env: TargetEnv) -> tuple[str, ...]:
    notes = []
    if not env.python:
        notes.append(
            f"no Python environment was seen: the commands name {env.placeholder}; run them with the environment's own interpreter"
        )
    elif env.kind == "system":
        notes.append(
            f"{env.python} is a system interpreter: a virtual environment keeps the install apart from the "
            "distribution's packages (pip may refuse here with 'externally-managed-environment')"
        )
    if machine.cpu:
        notes.append("a CPU-only build: the framework will not use a GPU")
    elif not machine.gpus:
        notes.append("no GPU was named or seen, so no build could be checked for its kernels (--gpu NAME|CC checks them)")
    if machine.told:
        notes.append(f"planned for the target described by {' '.join(machine.told)}, not for what the probes saw here")
    if machine.arch.lower() not in _X86:
        notes.append(
            f"the matrix describes the x86_64 wheels; on {machine.arch} the index may have no such build (pip then says so)"
        )
    if env.kind == "conda":
        notes.append(
            "conda-forge builds are not the wheels this plan was checked against (their CUDA versions and GPU architectures "
            "are conda-forge's); do not mix conda and pip installs of the same package"
        )
    return tuple(notes)


def _cpu_groups(pick: ModuleType, machine: Machine, groups):
    """The CPU-only build of each release (--cpu): its Python range is all that is judged."""
    return [(row, [pick.cpu_build(machine, row, builds[0])]) for row, builds in groups if builds]


def _select_cpu(pick: ModuleType, machine: Machine, groups):
    ruled: list[Candidate] = []
    for row, builds in groups:
        c = pick.cpu_judge(machine, row, builds[0])
        if not c.failures():
            return c, row, ruled
        ruled.append(c)
    return None, None, ruled


# TensorFlow 2.16 made Keras 3 its tf.keras and removed tf.estimator
# (https://github.com/tensorflow/tensorflow/releases/tag/v2.16.1).
_KERAS3 = (2, 16)
_MAIN_DISTRIBUTION = {"torch": ("torch",), "tensorflow": pick_tensorflow.TF_DISTRIBUTIONS, "jax": ("jax",)}


def _public(version: str):
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version.split("+", 1)[0])
    except InvalidVersion:
        return None


def change_of(framework: str, machine: Machine, build) -> Change:
    """What installing `build` does to the framework installed now: named, never a bare "reinstall" for a version change."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    target = re.split(r"[\[=<>!~]", build.specs[0], maxsplit=1)[0]
    pin = build.pin or f"{build.release}.*"
    ranged = pin.endswith(".*") or pin[:1] in "<>!~" or "," in pin
    exact = None if ranged else pin.removeprefix("==")
    after = pin.removeprefix("==")
    if exact and framework == "torch":
        after = build.specs[0].split("==", 1)[1]  # with its variant's local tag: 2.2.1+cu118
    if build.variant not in after:
        after += f" ({build.variant})"
    installed = [(d, machine.installed[d]) for d in _MAIN_DISTRIBUTION[framework] if d in machine.installed]
    if not installed:
        return Change("install", target, None, after)
    name, before = installed[0]
    shown = before if name == target else f"{before} ({name})"
    old = _public(before)
    try:
        spec = SpecifierSet(pin if pin[:1] in "=<>!~" else f"=={pin}")
    except InvalidSpecifier:
        spec = None
    if old is None or spec is None:
        kind = "switch"
    elif exact is not None and _public(exact) == old:
        kind = "reinstall"
    elif spec.contains(old, prereleases=True):
        kind = "switch"  # the same release: another build of it, or its newest patch
    else:
        floors = [_public(sp.version.removesuffix(".*")) for sp in spec if sp.operator in ("==", ">=", "~=")]
        floors = [f for f in floors if f is not None]
        kind = "upgrade" if floors and min(floors) > old else "downgrade"
    new = _public(exact) if exact else _public(build.release)
    return Change(kind, target, shown, after, _major_moves(framework, old, new))


def _major_moves(framework: str, old, new) -> tuple[str, ...]:
    if old is None or new is None:
        return ()
    moves: tuple[str, ...] = ()
    if old.is_devrelease and not new.is_devrelease:
        # A nightly's code is ahead of (or beside) every release: said, so nobody expects the nightly's features.
        moves = (
            f"a nightly (development) build -> a stable release ({new.base_version}"
            + (", the nightly's own release)" if new.release[:2] == old.release[:2] else ")"),
        )
    if framework == "torch" and old.major != new.major:
        return (*moves, f"a major version: PyTorch {old.major}.x -> {new.major}.x")
    if framework == "tensorflow":
        if old.release[:2] < _KERAS3 <= new.release[:2]:
            return (
                *moves,
                "a major move: from TensorFlow 2.16 tf.keras is Keras 3 (code written for Keras 2 may need changes, "
                "or the tf-keras package with TF_USE_LEGACY_KERAS=1) and tf.estimator is gone",
            )
        if new.release[:2] < _KERAS3 <= old.release[:2]:
            return (*moves, "a major move: before TensorFlow 2.16 tf.keras is Keras 2 (code written for Keras 3 may not run)")
    return moves


def _nvcc_builds_for(nvcc: str, cuda: str | None) -> bool:
    """torch.utils.cpp_extension refuses an nvcc of another CUDA major than the build's; a build newer
    than nvcc would need headers and features nvcc does not have."""
    return bool(cuda) and vkey(cuda)[:1] == vkey(nvcc)[:1] and vkey(cuda)[:2] <= vkey(nvcc)[:2]


def plan_install(
    facts: Facts,
    ctx: Context,
    framework: str,
    requested: str | None = None,
    *,
    env: TargetEnv | None = None,
    options: Options = Options(),
) -> Plan:
    """Raises UsageError for a version that is not one, or that the matrix does not know; TargetNeeded
    (a UsageError) where no GPU or no driver was seen and options.target does not say what the build is for."""
    search = _Search(facts, ctx, framework, env, options)
    return search.finish(requested, *search.choose(requested))


def plan_first_fit(
    facts: Facts,
    ctx: Context,
    framework: str,
    requests: tuple[str | None, ...],
    *,
    env: TargetEnv | None = None,
    options: Options = Options(),
    again_if_installed: bool = False,
) -> tuple[Plan, int, tuple[int, ...]]:
    """(the plan for the first of `requests` that a build fits, its index, the indexes the matrix did not know) in one pass: the machine read once,
    each build judged once, the plan written once. None among `requests` asks for the newest release; a
    request the matrix does not know is passed over. When none fits, the plan of the last one tried (index
    -1 when every request was unknown). `again_if_installed`: the chosen build installed already means it
    is broken in place, so the plan installs it again over itself (reinstall). Raises TargetNeeded as
    plan_install does, and UsageError when every request is unknown."""
    from gpudoctor.errors import UsageError

    search = _Search(facts, ctx, framework, env, options)
    last = None
    error: UsageError | None = None
    unknown: list[int] = []
    for i, requested in enumerate(requests):
        try:
            chosen = search.choose(requested)
        except TargetNeeded:
            raise
        except UsageError as exc:
            error = exc
            unknown.append(i)
            continue
        last = (i, requested, chosen)
        if chosen[0] is not None:
            break
    if last is None:
        raise error or UsageError("nothing to plan")
    i, requested, chosen = last
    plan = search.finish(requested, *chosen)
    if again_if_installed and plan.fits and plan.already:
        search.options = replace(options, reinstall=True)
        plan = search.finish(requested, *chosen)
    return plan, i, tuple(unknown)


class _Search:
    """One machine, its builds judged once: the choice for a request (`choose`) and the plan (`finish`)."""

    def __init__(self, facts: Facts, ctx: Context, framework: str, env: TargetEnv | None, options: Options) -> None:
        self.facts, self.ctx, self.framework, self.options = facts, ctx, framework, options
        self.pick = PICKERS[framework]
        self.matrix = ctx.matrix
        self.machine = apply_target(machine_from_facts(facts, ctx, env), options.target, ctx)
        gaps = target_gaps(self.machine)
        # With neither a GPU nor a driver seen, the environment itself may name its build (a companion built for
        # +cu121 beside a CPU torch, conda's pytorch-cuda): that build, not a guess (issue 27, kind 9).
        self.evidence = self.pick.evidence(self.machine, facts) if gaps and not options.target and not self.machine.cpu else None
        if gaps and not options.target and not self.machine.cpu and self.evidence is None and framework == "torch":
            self.evidence = _default_wheel_of_cpu_torch(self.matrix, self.machine, facts)
        if gaps and not options.target and self.evidence is None:
            raise TargetNeeded(framework, gaps)
        self.judged: dict = {}
        self._every = None

    def groups(self, requested: str | None):
        if requested is None and self._every is not None:
            return self._every
        groups = self.pick.groups(self.matrix, requested)
        if self.options.nvcc:
            nvcc = self.options.nvcc
            groups = [(row, [b for b in builds if _nvcc_builds_for(nvcc, b.cuda)]) for row, builds in groups]
        if self.machine.cpu:
            groups = _cpu_groups(self.pick, self.machine, groups)
        if self.evidence:
            groups = [(row, [b for b in builds if b.variant == self.evidence[0]]) for row, builds in groups]
        if requested is None:
            self._every = groups
        return groups

    def select(self, groups, ignore: tuple[str, ...] = ()):
        if self.machine.cpu:
            return _select_cpu(self.pick, self.machine, groups)
        return select(self.pick, self.matrix, self.machine, self.facts, groups, ignore, self.judged)

    def choose(self, requested: str | None):
        """(chosen candidate or None, its row, the candidates ruled out). Raises UsageError for an unknown request."""
        return self.select(self.groups(requested))

    def finish(self, requested: str | None, chosen: Candidate | None, row, ruled) -> Plan:
        pick, matrix, machine, facts, options = self.pick, self.matrix, self.machine, self.facts, self.options
        title = TITLES[self.framework]
        groups = self.groups(requested)
        installer = options.installer or ("uv" if machine.env.uv and not machine.env.has_pip else "pip")
        upgrade = () if machine.cpu else _hints(pick, matrix, machine, facts, groups, chosen, self.judged)
        plan = Plan(
            self.framework,
            requested,
            machine,
            chosen,
            ruled_out=tuple(ruled),
            installer=installer,
            notes=_notes(machine, machine.env),
            upgrade=upgrade,
        )
        if chosen is None:
            instead = None
            if requested:
                instead, _, _ = self.select(self.groups(None))
            return replace(plan, instead=instead)
        history = (
            ()
            if machine.cpu
            else tuple(line for g in machine.gpus for line in kernel_history(pick, matrix, self.groups_all(), g, title))
        )
        first = f"{title} {requested}, as asked" if requested else f"the newest {title} release that fits this machine"
        if machine.cpu:
            first += " (a CPU-only build, as asked with --cpu)"
        elif not machine.driver_cuda:
            first = f"{title} {requested}, as asked" if requested else f"a {title} release that fits this machine"
        unseen = driver_unseen(matrix, machine, chosen.build, self.evidence[1] if self.evidence else None)
        if unseen:
            history = (unseen, *history)
        fw_facts = value_or_none(getattr(facts.frameworks, self.framework))
        matches = pick.cpu_installed if machine.cpu else pick.installed_matches
        installed = matches(machine, fw_facts, chosen.build)
        already = installed and not options.reinstall
        again = installed and options.reinstall  # the same build over itself: only a forced reinstall does anything
        if not already:
            # The exact version where pip would otherwise keep what is installed (gpudoctor.planner.pick_torch.settle).
            chosen = replace(chosen, build=pick.settle(matrix, machine, chosen.build))
        steps = () if already else _steps(pick, matrix, machine, chosen.build, installer, options, again)
        build = chosen.build
        equivalents = []
        if steps and installer == "pip" and machine.env.uv:
            equivalents.append(("uv", tuple(s.argv for s in _steps(pick, matrix, machine, build, "uv", options, again))))
        if steps and installer == "uv" and machine.env.has_pip:
            equivalents.append(("pip", tuple(s.argv for s in _steps(pick, matrix, machine, build, "pip", options, again))))
        if steps and machine.env.kind == "conda" and not machine.cpu:
            equivalents.append(("conda", (pick.conda_equivalent(machine, build),)))
        said, after = pick.companion_moves(matrix, machine, build, installer) if steps else ((), ())
        back = pick.undo_args(machine) if steps else ()
        if back and options.index_url:
            back = _undo_index(back, options.index_url)
        return replace(
            plan,
            chosen=chosen,
            reasons=(first, *history),
            steps=steps,
            equivalents=tuple(equivalents),
            manual=() if machine.cpu else pick.manual(machine, row, chosen),
            already=already,
            undo=(Cmd(commands.args_argv(installer, machine.env, back)),) if back else (),
            change=change_of(self.framework, machine, build) if steps else None,
            companions=said,
            after=after,
        )

    def groups_all(self):
        # kernel_history reads every release's kernels, CUDA builds only (not narrowed by --cpu or nvcc).
        return self.pick.groups(self.matrix, None)


def _undo_index(args: tuple[str, ...], index_url: str) -> tuple[str, ...]:
    """The way back from the same mirror the install used (--index-url; {variant} is the one installed before)."""
    out, local = [], None
    it = iter(args)
    for a in it:
        if a == "--index-url":
            local = next(it, "").rstrip("/").rsplit("/", 1)[-1]
            continue
        out.append(a)
    if "{variant}" in index_url and not local:
        return tuple(out)  # the installed build came from the default index: no variant to fill in
    return (*out, "--index-url", index_url.replace("{variant}", local or ""))


# --- for the framework checks' remediation commands ------------------------------------------


def torch_variant_for(facts: Facts, ctx: Context, torch_version: str) -> str | None:
    """The variant tag (cu118) of this PyTorch release that fits this machine best; None when none does."""
    rel = ctx.matrix.torch_release(torch_version)
    machine = machine_from_facts(facts, ctx)
    if rel is None or target_gaps(machine):
        return None  # plan_install's rule: no GPU and no driver seen, no CUDA build chosen
    chosen, _, _ = select(pick_torch, ctx.matrix, machine, facts, pick_torch.groups(ctx.matrix, rel.version))
    return chosen.build.variant if chosen else None


def newest_torch(facts: Facts, ctx: Context) -> tuple[str, str] | None:
    """(release, variant tag) of the newest PyTorch build that fits this machine; None when none does,
    or when no GPU and no driver were seen (plan_install refuses to guess there)."""
    machine = machine_from_facts(facts, ctx)
    if target_gaps(machine):
        return None
    chosen, _, _ = select(pick_torch, ctx.matrix, machine, facts, pick_torch.groups(ctx.matrix, None))
    return (chosen.build.release, chosen.build.variant) if chosen else None
