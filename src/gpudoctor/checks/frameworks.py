"""PyTorch, TensorFlow and JAX: is the build a GPU build, can this driver run its CUDA runtime,
does it carry kernels for this GPU, and can its CUDA libraries be loaded.

Rules, judged by what really decides (sources in compat_matrix/):
- PyTorch wheels bring their own CUDA runtime (bundled, or NVIDIA's pip wheels from 1.13 on): the
  driver must run that runtime (directly or through minor-version compatibility); the system
  toolkit does not matter here (see toolkit-torch-major-mismatch for extension builds).
- TensorFlow loads CUDA libraries by soname (libcudart.so.11.0, libcudnn.so.8, ...): any install
  whose libraries carry those sonames works; only missing sonames fail.
- A GPU runs a build when the build has a cubin of the same major and an equal or lower minor, or
  PTX of an equal or lower compute capability that the driver can JIT-compile.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.checks.driver import driver_cuda, gpu_present, no_gpu_said
from gpudoctor.checks.toolkit import gpu_cc, os_name
from gpudoctor.checks.wheel_majors import (  # noqa: F401  (shared helpers, imported from here by other checks)
    _JAX_CUDA_PLUGIN,
    _WHEEL_CUDA,
    jax_cuda_major,
    old_major_wheels_dropped,
    old_wheels_said,
    tf_gpu,
    torch_cuda,
)
from gpudoctor.cmdline import Cmd, Line
from gpudoctor.facts import Facts, TensorflowFacts, TorchFacts, absence_known
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.loader import ld_dirs, ldconfig_cache, missing_sonames
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner import where
from gpudoctor.planner.remedy import pip
from gpudoctor.probed import Found, found_value
from gpudoctor.versions import major, major_minor, vkey

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import cast
else:

    def cast(_type: object, value: object) -> object:
        """typing.cast as it runs: the value itself."""
        return value


TORCH_INDEX = "https://download.pytorch.org/whl"


# --- shared helpers, also used by the cuDNN checks ---------------------------------


def tf_cuda(facts: Facts, ctx: Context, tf: TensorflowFacts) -> str | None:
    if tf.cuda:
        return tf.cuda
    row = ctx.matrix.tensorflow_release(tf.version)
    return row.cuda if row else None


def runs_on(archs: Iterable[str], cc: str) -> bool | None:
    """Whether kernels listed as sm_XY / compute_XY (or "X.Y" cubins) run on compute capability `cc`:
    gpudoctor.matrix.kernel_route on the list split into cubins and PTX; None when nothing is listed."""
    from gpudoctor.matrix import kernel_route

    listed = [a.strip() for a in archs]
    ptx = [a for a in listed if a.lower().startswith("compute_")]
    route, _ = kernel_route([a for a in listed if a not in ptx], ptx, cc)
    return None if route == "unknown" else route != "none"


# --- remediations: the plan `gpudoctor install` makes, as the framework checks' commands ------------
#
# One decision: gpudoctor.planner.plan.plan_install chooses the build (driver, every GPU's kernels,
# Python, OS) and the steps (argv in the probed interpreter), and names the move (upgrade, downgrade,
# switch, reinstall, major jumps). The checks only say why.

KERAS3_SOURCE = (
    "https://github.com/tensorflow/tensorflow/releases/tag/v2.16.1"  # TF 2.16: Keras 3 is the default; tf-keras keeps Keras 2
)


def dev_base(version: str) -> str | None:
    """The release a nightly (development) build leads to: "2.7.0.dev20250310+cu124" -> "2.7.0"; None for others."""
    from packaging.version import InvalidVersion, Version

    try:
        v = Version(version)
    except InvalidVersion:
        return None
    return v.base_version if v.is_devrelease else None


def _request(framework: str, version: str) -> tuple[str, ...]:
    """What to ask plan_install for, most exact first: the installed version, then its release. A nightly
    is never pinned (the stable index has no dev builds): its stable release is asked for instead."""
    base = dev_base(version) or version.split("+", 1)[0]
    release = ".".join(base.split(".")[:2])
    if framework == "jax":
        return (base,)
    return tuple(dict.fromkeys((base, release)))


def framework_plan(
    facts: Facts, ctx: Context, framework: str, version: str | None = None, *, env=None, options=None, refuse: bool = False
):
    """`_framework_plan`'s choice, made once per question and Context: the checks that ask for the same
    framework's fix, and `fix`'s offers after them, share it (ctx.choices)."""
    from gpudoctor.planner.machine import env_from_facts
    from gpudoctor.planner.plan import Options, TargetNeeded

    key = ("framework_plan", id(facts), framework, version, env or env_from_facts(facts), options or Options())
    chosen = ctx.choices.get(key)
    if chosen is None or chosen[0] is not facts:  # (the facts are kept with the choice: an id is never reused)
        try:
            chosen = (facts, _framework_plan(facts, ctx, framework, version, env=env, options=options, refuse=True))
        except TargetNeeded as exc:
            chosen = (facts, exc)
        ctx.choices[key] = chosen
    if isinstance(chosen[1], TargetNeeded):
        if refuse:
            raise chosen[1]
        return None, "no-target"
    return chosen[1]


def _framework_plan(
    facts: Facts, ctx: Context, framework: str, version: str | None = None, *, env=None, options=None, refuse: bool = False
):
    """(plan, how): the installed `version` rebuilt for this machine when a build of it fits (how
    "kept"), else the newest release that fits (how "unfit", or "unknown" when the matrix does not
    know `version`; plan.fits is False when nothing fits). plan is None when neither a GPU (of known
    compute capability) nor a driver was seen: choosing a CUDA build then would be a guess (plan_install
    refuses, and so does the remediation). A nightly asks for its stable release (see _request).

    The one choice of a framework fix: the plan's step and `gpudoctor fix` both come from here. `env` and
    `options` are fix's (the environment it installs into, --index-url, --gpu/--driver/--cuda/--cpu);
    `refuse` raises TargetNeeded instead of returning None."""
    from gpudoctor.planner.plan import Options, TargetNeeded, plan_first_fit

    base = options or Options()
    asked = _request(framework, version) if version else ()
    if framework == "torch" and asked:
        # A companion's extension built for another patch of the installed release (xformers 0.0.23.post1 for 2.1.2
        # beside a CPU 2.1.0 pip put in its place): that torch is asked for first, the one the extension loads with
        # (planner.machine.built_for; threads: facebookresearch/xformers#971, plans22/2210; open-mmlab/PIA#30, plans4/348)
        from gpudoctor.planner.machine import built_for

        same = tuple(t for t in built_for(facts) if t.split(".")[:2] == asked[-1].split(".")[:2] and t != asked[0])
        asked = (*same, *asked)
    # The smallest upgrade that fits before the newest release: a project pinned to 2.5 moves to 2.7, not to
    # whatever is newest, so that the rest of its requirements keep working.
    # (Only from a release the matrix knows: from an unknown one, the newest that fits.)
    known = framework == "torch" and version and ctx.matrix.torch_release(dev_base(version) or version) is not None
    nearer = tuple(_newer_torch_releases(ctx, version)) if known and version else ()
    requests: tuple[str | None, ...] = (*asked, *nearer, None)
    try:
        # One pass over the releases (issue 26): the machine read once, each build judged once.
        plan, i, unknown = plan_first_fit(facts, ctx, framework, requests, env=env, options=base, again_if_installed=True)
    except TargetNeeded:
        if refuse:
            raise
        return None, "no-target"
    if i < len(asked):
        return plan, "kept"
    if i < len(asked) + len(nearer) and plan.fits:
        return plan, "nearest"
    return plan, ("unfit" if any(k not in unknown for k in range(len(asked))) else "unknown")


def _newer_torch_releases(ctx: Context, version: str) -> list[str]:
    from gpudoctor.matrix import version_key

    base = dev_base(version) or version.split("+", 1)[0]
    now = version_key(".".join(base.split(".")[:2]))
    return sorted((r.version for r in ctx.matrix.torch_releases if version_key(r.version) > now), key=version_key)


def _move(plan, installed: str | None) -> str:
    """What the commands do to the installed framework, said as people say it."""
    change = getattr(plan, "change", None)
    if change is not None:
        return "; ".join((change.text, *change.major))
    build = plan.chosen.build
    if not installed:
        return f"install {build.label}"
    return f"{installed} -> {build.label}"


def _keras_note(framework: str, installed: str | None, plan) -> str:
    """TF 2.16 made Keras 3 the default (KERAS3_SOURCE): said whenever the plan crosses 2.16."""
    if framework != "tensorflow" or not installed or not plan.fits:
        return ""
    if getattr(plan, "change", None) is not None and any("Keras" in m for m in plan.change.major):
        return ""  # the plan says it already
    before, after = vkey(installed)[:2], vkey(plan.chosen.build.release)[:2]
    if before < (2, 16) <= after:
        return " Major move: Keras 3; tf-keras keeps Keras 2 code working (pip install tf-keras, TF_USE_LEGACY_KERAS=1)."
    if after < (2, 16) <= before:
        return " Back to Keras 2: code written for Keras 3 needs changes."
    return ""


def plan_remediation(
    facts: Facts,
    ctx: Context,
    framework: str,
    installed: str | None,
    why: str,
    *,
    version: str | None = None,
    options=None,
    by_driver: bool = False,
) -> Remediation:
    """The framework step: `why`, then the build this machine runs and the commands that install it.

    `installed` is what is there now (for naming the move); `version` the version to keep when one
    of its builds fits (default: `installed`); `options` what the text says the build is for where the probes saw
    no driver (planner.plan.Options.target). `by_driver`: where no driver was seen and the release is known, the
    release's CUDA builds each behind the nvidia-smi value that selects it (builds_by_driver), not prose only."""
    from gpudoctor.planner.machine import target_gaps
    from gpudoctor.planner.model import TITLES
    from gpudoctor.planner.plan import PICKERS, driver_unseen  # local: install.plan imports the checks

    title = TITLES[framework]
    if image_build(installed):
        return Remediation(
            f"{why} {title} {installed} is a pre-release, built from source or shipped in a container image (such as "
            "NVIDIA's NGC images): a build from the package index would replace it and what was built against it. "
            "Fix the image's environment instead, or use an image built for this machine.",
            (),
            component=framework,
        )
    plan, how = framework_plan(facts, ctx, framework, version if version is not None else installed, options=options)
    if plan is None and by_driver and options is None:
        branches = builds_by_driver(facts, ctx, framework, version if version is not None else installed, why)
        if branches is not None:
            return branches
    if plan is None:
        return Remediation(
            f"{why} No NVIDIA GPU or driver was seen here, and nothing in the environment names a CUDA build, so no "
            f"{title} CUDA build can be chosen without guessing: nvidia-smi decides it (the CUDA Version in its header; "
            f"`gpudoctor install {framework} --cuda <that version>` then installs the newest build it runs).",
            (),
            component=framework,
        )
    held = _held(plan)
    if not plan.fits and held:
        # A companion pinning torch exactly (pick_torch.judge_pins) refuses the move: moving torch alone breaks it.
        return Remediation(
            f"{why} No {title} build that fits this machine keeps what is built on it: {held}.", (), component=framework
        )
    if not plan.fits:
        hints = "; ".join(plan.upgrade)
        return Remediation(
            f"{why} No {title} build in the compatibility matrix runs on this machine"
            + (f": {hints}." if hints else ".")
            + " Fix the driver or GPU first (gpudoctor install "
            + framework
            + " says why).",
            (),
            component=framework,
        )
    build = plan.chosen.build
    said = f"{why} " if why else ""
    if installed and how == "unfit":
        said += f"No build of {title} {installed.split('+', 1)[0]} fits this machine; {build.label} is the newest that does: "
    elif installed and how == "nearest":
        said += f"No build of {title} {installed.split('+', 1)[0]} fits this machine; {build.label} is the nearest newer release that does: "
    elif installed and how == "unknown":
        said += f"{title} {installed.split('+', 1)[0]} is not in the compatibility matrix; {build.label} is the newest build it knows that fits: "
    else:
        said += f"{build.label} fits this machine: "
    said += _move(plan, installed) + "." + _keras_note(framework, installed, plan)
    because = PICKERS[framework].evidence(plan.machine, facts) if target_gaps(plan.machine) else None
    unseen = driver_unseen(ctx.matrix, plan.machine, build, because[1] if because else None)
    if unseen:
        # A GPU without a driver version: the choice is the least demanding build, and the driver it needs is said.
        said += f" {unseen[0].upper()}{unseen[1:]}."
    if how != "kept" and plan.upgrade:
        said += " Instead: " + "; ".join(plan.upgrade) + "."
    commands = _step_commands(facts, plan)
    if framework == "torch":
        commands, dropped = old_major_wheels_dropped(facts, ctx, build, commands)
        if dropped:
            said += " " + old_wheels_said(dropped)
    from gpudoctor.planner.render import companions_said

    said += companions_said(plan)
    return Remediation(said, (*commands, *(where.in_tool(facts, c) for c in plan.after)), component=framework)


def builds_by_driver(facts: Facts, ctx: Context, framework: str, version: str | None, why: str) -> Remediation | None:
    """A CPU-only PyTorch of a known release where no driver was seen: the one value that decides the CUDA build is
    nvidia-smi's CUDA Version, and the release's own CUDA builds are few (compat_matrix/torch.toml variants), so the
    step asks for that value and gives each build's install behind it, newest first, each chosen by
    framework_plan as `gpudoctor install torch --cuda <that version>` would choose it. The release is kept: a CPU
    wheel of a pinned release (another package's `torch<X` requirement) is replaced by the same release's CUDA build,
    never by a newer release the pin refuses. None where the release or its builds are not known (the prose stays)."""
    from gpudoctor.planner.model import Target
    from gpudoctor.planner.plan import Options

    if framework != "torch" or (version and dev_base(version)):
        return None
    if not version:
        return _assumed_release_build(facts, ctx, why)
    release = ctx.matrix.torch_release(version)
    if release is None:
        return None
    base = version.split("+", 1)[0]
    if vkey(base)[:2] != vkey(release.version)[:2]:
        return None
    variants = sorted(
        (v for v in release.variants.values() if v.cuda and v.status == "stable"), key=lambda v: vkey(v.cuda), reverse=True
    )
    branches: list[tuple[str, tuple]] = []
    for variant in variants:
        plan, how = framework_plan(facts, ctx, framework, base, options=Options(target=Target(cuda=variant.cuda)))
        if plan is None or not plan.fits or how != "kept" or plan.chosen.build.variant != variant.tag:
            continue
        commands = tuple(_step_commands(facts, plan)) + tuple(where.in_tool(facts, c) for c in plan.after)
        if commands:
            branches.append((variant.cuda, commands))
    if not branches:
        return None  # no build of the release the matrix knows fits: the plain step says what decides it
    # Two ways, never run together (Remediation.alternative): the newest build, for a header that reaches its CUDA,
    # else the release's oldest CUDA build, the one the widest range of drivers runs; a build between them adds
    # nothing a driver of the oldest's CUDA or newer cannot already run.
    (newest, first), (oldest, last) = branches[0], branches[-1]
    said = f"{why} " if why else ""
    check = Cmd(("nvidia-smi",), note="read-only: the CUDA Version in its header selects the install")
    if len(branches) == 1:
        return Remediation(
            f"{said}No NVIDIA driver was seen here: PyTorch {base}'s one CUDA build the compatibility matrix holds as "
            f"stable is CUDA {newest}'s, which runs where nvidia-smi's header says CUDA {newest} or newer; install it "
            "in the same environment, keeping the release.",
            (check, *first),
            component=framework,
        )
    return Remediation(
        f"{said}No NVIDIA driver was seen here, so its CUDA Version (nvidia-smi's header) decides which of PyTorch "
        f"{base}'s CUDA builds this machine runs, keeping release {base}: where that header says {newest} or newer, "
        f"the CUDA {newest} build below, in the same environment.",
        (check, *first),
        component=framework,
        alternative=Remediation(
            f"where the header says below {newest} (and at least {oldest}), PyTorch {base}'s CUDA {oldest} build.",
            last,
            component=framework,
        ),
    )


def _assumed_release_build(facts: Facts, ctx: Context, why: str) -> Remediation | None:
    """A CPU-only PyTorch whose version the report does not show, where no driver was seen either (issue 27, kind 9:
    "with the driver unknown, the build with kernels for this GPU that needs the lowest driver, its driver floor named,
    and nvidia-smi asked for"). A senior engineer pastes the install that is right in the common case: the newest
    release the matrix knows for this Python and platform, in its CUDA build that asks least of the driver (the oldest
    stable CUDA variant, whose kernels also reach the oldest GPUs the release supports), pinned with its local tag so
    that pip replaces the installed +cpu build of the same version. The assumption is said, and the reads that would
    show otherwise come first: nvidia-smi (its header's CUDA Version must reach the build's) and `pip show torch` (a
    program pinned to another release keeps it: that release's build from the same index). Threads: plans18/1865
    (DiffSynth WebUI, "reinstall from PyTorch's cu121 (or cu118) index"), plans22/2266 (a calibre plugin's torch,
    "install torch from PyTorch's CUDA wheel index"), plans10/1046 (Python 3.8: torch 2.4.1, the last release for it,
    from the cu121 index). None where no build of any release fits (the prose stays)."""

    if _torch_install_said(facts):
        return None
    # The newest release with a stable CUDA build that fits this machine's Python and platform (judge_python: plan.fits),
    # in that build; a release whose builds are all experimental or unmarked is not yet the common case.
    for release in sorted(ctx.matrix.torch_releases, key=lambda r: vkey(r.version), reverse=True):
        stable = sorted((v for v in release.variants.values() if v.cuda and v.status == "stable"), key=lambda v: vkey(v.cuda))
        if not stable:
            continue
        said = _assumed_build(facts, ctx, release, stable[0], why)
        if said is not None:
            return said
    return None


def _torch_install_said(facts: Facts) -> bool:
    """Whether the paste shows the reporter installing a CUDA build of torch themselves (a pip or conda install naming
    torch with a +cuNNN tag, PyTorch's CUDA index, or conda's pytorch-cuda/cudatoolkit): the release that left them
    with is theirs to keep, and the newest release would overwrite it (plans20/2054: torch==1.9.0+cu111 installed
    after the CPU build's error, for spacy's CUDA 11.2 stack). A plain install from the package index (comfyui-4297's
    `pip install --upgrade torch`) is what brought the CPU build: the step replaces it."""
    pasted = getattr(facts, "pasted", None)
    if pasted is None or not pasted.partial:
        return False
    for e in (*pasted.reported("pip-install-said"), *pasted.reported("conda-install-said")):
        text = str(e.get("args") or e.line)
        torch = any(re.match(r"^(?:torch|pytorch)(?:$|[=<>!~\[])", w) for w in text.split())
        if torch and re.search(r"\+cu\d+|/whl/cu\d+|\bpytorch-cuda\b|\bcudatoolkit\b", text):
            return True
    return False


def _assumed_build(facts: Facts, ctx: Context, release, variant, why: str) -> Remediation | None:
    """_assumed_release_build's step for `release` in its CUDA build `variant`; None where it does not fit."""
    from gpudoctor.planner.model import Target
    from gpudoctor.planner.plan import Options, build_floor

    plan, how = framework_plan(facts, ctx, "torch", release.version, options=Options(target=Target(cuda=variant.cuda)))
    if plan is None or not plan.fits or how != "kept" or plan.chosen.build.variant != variant.tag:
        return None
    exact = plan.chosen.build.pin or ""
    if not exact or exact.endswith(".*"):
        # A range (torch==2.14.*) keeps an installed +cpu build of a matching version (PEP 440: a specifier without a
        # local label matches any local label), so only a release whose patch the companion table knows is pinned
        # (pick_torch.settle: torch==2.11.0+cu126, its companions with it).
        return None
    commands = tuple(_step_commands(facts, plan)) + tuple(where.in_tool(facts, c) for c in plan.after)
    if not commands:
        return None
    floor = build_floor(ctx.matrix, plan.machine, variant.cuda)[0]  # (minor version compatibility counted)
    need = f"driver {floor} or newer" if floor else f"a driver whose nvidia-smi header says CUDA {variant.cuda} or newer"
    reads: list[Line] = [Cmd(("nvidia-smi",), note=f"read-only: the build below needs {need}")]
    first = commands[0]
    if isinstance(first, Cmd) and first.argv[1:3] == ("-m", "pip"):
        reads.append(Cmd((*first.argv[:3], "show", "torch"), root=first.root, note="read-only: the release installed now"))
    py = plan.machine.python
    # (the Python not shown: the wheels' own range is said, as pip would refuse the install outside it)
    for_python = f" for Python {major_minor(py)}" if py else f" (its wheels are for Python {release.python.replace(',', ', ')})"
    said = f"{why} " if why else ""
    return Remediation(
        f"{said}Neither an NVIDIA driver nor the installed PyTorch's version was shown, so this assumes PyTorch "
        f"{exact}, the newest release whose companions the compatibility matrix pins{for_python}, in its CUDA {variant.cuda} build: "
        f"of its CUDA builds, the one that asks least of the driver ({need}). If nvidia-smi shows an older driver, "
        "upgrade the driver first; if pip show torch shows another release the program needs, install that "
        "release's CUDA build instead.",
        (*reads, *commands),
        component="torch",
    )


def _step_commands(facts: Facts, plan) -> tuple[Cmd, ...]:
    """The plan's steps as commands, in the tool that manages the environment (gpudoctor.planner.where.in_tool)."""
    from gpudoctor.planner.render import as_cmd  # the download directory gpudoctor fills in becomes a placeholder

    return tuple(where.in_tool(facts, as_cmd(s.argv)) for s in plan.steps)


def torch_reinstall(facts: Facts, ctx: Context, torch_version: str) -> tuple[Line, ...]:
    """The PyTorch step's commands (plan_remediation's), for other checks whose fix is PyTorch's build."""
    return plan_remediation(facts, ctx, "torch", torch_version, "").commands


def _move_word(before: str, after_release: str) -> str:
    b, a = vkey(before)[:2], vkey(after_release)[:2]
    return "upgrade" if a > b else "downgrade" if a < b else "reinstall"


def system_cuda_libraries(facts: Facts, ctx: Context, cuda: str) -> Remediation:
    """CUDA runtime libraries for a framework that dlopen()s them from the system (TensorFlow before 2.14).

    From CUDA 11 the sonames carry the major only (libcudart.so.11.0 for every 11.x), so the newest
    minor of that major in the matrix serves, and it is the one NVIDIA's repository has for current
    distributions; before 11 the soname is the minor's."""
    m = major(cuda)
    mm = major_minor(cuda)
    if m is not None and m >= 11:
        same = [c for c in ctx.matrix.cuda_versions() if major(c) == m]
        mm = major_minor(max(same, key=vkey)) if same else mm
    from gpudoctor.checks.toolkit import toolkit_install

    minor = (vkey(mm) + (0, 0))[1]
    package = f"cuda-libraries-{m}-{minor}"
    py = facts.frameworks.python
    env = py.value if isinstance(py, Found) else None
    commands: tuple[Line, ...] = ()
    said = ""
    if env is not None and env.kind == "conda" and env.prefix and m is not None and m <= 11:
        commands = (
            Cmd(
                ("conda", "install", "-y", "-p", env.prefix, "-c", "conda-forge", f"cudatoolkit={mm}"),
                note="into this conda environment",
            ),
        )
    else:  # NVIDIA's repository, where it has that version for this distribution (the toolkit's own rule)
        # A framework's CUDA (its build's, or the matrix's row): digits and dots, so a major.minor.
        install = toolkit_install(facts, ctx.matrix, cast(str, mm), meta="cuda-libraries")
        commands, said = install.commands, install.says
    return Remediation(
        f"Install the CUDA {mm} runtime libraries where TensorFlow finds them (the ldconfig cache or LD_LIBRARY_PATH)"
        + (
            f". {said}"
            if said and commands
            else "."
            if commands
            else f": NVIDIA's CUDA repository's {package}, or a conda environment with cudatoolkit={mm}."
            + (f" {said}" if said else "")
        ),
        commands,
        requires_root=any(isinstance(c, Cmd) and c.root for c in commands),
        component="toolkit",
    )


# NVIDIA's CUDA 11 pip wheels: the soname stem each holds and its directory under site-packages/nvidia/ (the wheels'
# own layout; TensorFlow 2.14's [and-cuda] extra lists these wheels: tensorflow/tensorflow,
# tensorflow/tools/pip_package/setup.py, tag v2.14.0). libcublasLt is in the cuBLAS wheel.
_CUDA11_WHEELS = (
    ("libcudart.", "nvidia-cuda-runtime-cu11", "cuda_runtime"),
    ("libcublas", "nvidia-cublas-cu11", "cublas"),
    ("libcufft.", "nvidia-cufft-cu11", "cufft"),
    ("libcurand.", "nvidia-curand-cu11", "curand"),
    ("libcusolver.", "nvidia-cusolver-cu11", "cusolver"),
    ("libcusparse.", "nvidia-cusparse-cu11", "cusparse"),
    ("libcudnn.", "nvidia-cudnn-cu11", "cudnn"),
)


def tf_cuda_wheels(facts: Facts, ctx: Context, also: tuple[str, ...] = ()) -> Remediation | None:
    """A pip TensorFlow from before its [and-cuda] extra (< 2.14) built for CUDA 11 with libraries missing: NVIDIA's
    CUDA 11 pip wheels in its own environment and their directories on LD_LIBRARY_PATH (it dlopen()s by soname and
    does not search the wheels itself). No root, no system package; one remediation for every library it lacks
    (the CUDA libraries' finding and cuDNN's give the same, so the plan says it once). None where this does not
    apply: another CUDA major, a conda environment (its own cudatoolkit route), the libraries all there.
    `also`: sonames it finds but must not keep (a cuDNN too old, or built for another CUDA), brought as wheels too."""
    tf = tf_gpu(facts)
    py = facts.frameworks.python
    env = py.value if isinstance(py, Found) else None
    row = ctx.matrix.tensorflow_release(tf.version) if tf else None
    if tf is None or row is None or row.and_cuda or env is None or env.kind == "conda" or os_name(facts) == "windows":
        return None
    cuda = tf_cuda(facts, ctx, tf) or row.cuda
    if major(cuda) != 11:
        return None
    missing = missing_sonames(facts, row.sonames, tf.lib_dirs, "tensorflow")
    missing += [s for s in also if s not in missing]
    site = tf.location or (env.site_packages[0] if env.site_packages else "")
    if not missing or not site:
        return None
    minimum = row.cudnn or "8"
    wheels: list[str] = []
    dirs: list[str] = []
    for soname in missing:
        entry = next((w for w in _CUDA11_WHEELS if soname.startswith(w[0])), None)
        if entry is None:
            return None  # a library no wheel of this table holds: not this route
        _, wheel, sub = entry
        spec = f"{wheel}>={minimum},<{(major(minimum) or 8) + 1}" if sub == "cudnn" else wheel
        if spec not in wheels:
            wheels.append(spec)
            dirs.append(f"{site.rstrip('/')}/nvidia/{sub}/lib")
    from gpudoctor.planner.remedy import keep_path, kept, library_dir

    only_cudnn = all(d.endswith("/nvidia/cudnn/lib") for d in dirs)
    what = f"cuDNN {major(minimum)} for CUDA {major(cuda)}" if only_cudnn else f"CUDA {major(cuda)} libraries"
    return Remediation(
        f"Install TensorFlow {tf.version}'s {what} as NVIDIA's pip wheels in its own environment "
        "(no root, no system package) and put their directories on LD_LIBRARY_PATH: this TensorFlow loads them by "
        "soname and does not search the wheels itself." + keep_path(facts),
        kept(
            facts,
            (
                # A system interpreter's pip writes beside TensorFlow only as the user who installed it there; another user's
                # pip falls back to the user site, where the directories below are not: said, not guessed.
                dataclasses.replace(
                    pip(facts, "install", *wheels),
                    note=f"as the user that installed TensorFlow in {site}: the wheels must land beside it"
                    if env.kind == "system"
                    else "",
                ),
                library_dir(facts, (":".join(dirs),), note="NVIDIA's wheels first, the rest kept"),
            ),
        ),
        # The libraries' step, not TensorFlow's: `gpudoctor fix` reinstalls a framework step's build, which this is not.
        component="cudnn" if only_cudnn else "toolkit",
    )


def windows_tf_remediation(facts: Facts, ctx: Context, installed: str) -> Remediation:
    """TensorFlow's last native-Windows GPU release (the matrix's windows_gpu rows), in this environment
    when its Python fits, else in a new conda environment made for it; WSL 2 and the CPU said beside."""
    from gpudoctor.matrix import spec_contains, version_key
    from gpudoctor.planner import pick_tensorflow
    from gpudoctor.planner.plan import suggest_python

    last = max((r for r in ctx.matrix.tf_releases if r.windows_gpu), key=lambda r: version_key(r.version))
    spec = pick_tensorflow.groups(ctx.matrix, last.version)[0][1][0].specs[0]  # tensorflow==2.10.*
    py = facts.frameworks.python
    pyv = py.value.version if isinstance(py, Found) else None
    move = f"{_move_word(installed, last.version)} tensorflow {installed} -> {spec.split('==', 1)[1]}"
    keras = " (back to Keras 2: code written for Keras 3 needs changes)" if vkey(installed)[:2] >= (2, 16) else ""
    others = (
        f" Or keep TensorFlow {installed} and use the GPU from WSL 2, where TensorFlow's Linux GPU builds run "
        "(`wsl --install`, then install tensorflow[and-cuda] inside it); or keep running on the CPU."
    )
    libs = f"CUDA {last.cuda} and cuDNN {last.cudnn}"
    env_now = found_value(py) if isinstance(py, Found) else None
    in_conda_env = env_now is not None and env_now.kind == "conda" and bool(env_now.prefix)
    # Imported here: the planner's state and actions (six classes) are not needed by a check with no such finding.
    from gpudoctor.planner.plan_state import has_conda

    if not in_conda_env and has_conda(facts) is not True:
        return _wsl_tf_remediation(last, installed, spec, libs, pyv, keras)
    if pyv and spec_contains(last.python, pyv):
        plan, how = framework_plan(facts, ctx, "tensorflow", last.version)
        # TensorFlow 2.10 has one Windows build: no CUDA build to choose, so no driver is needed to name it.
        commands: list[Line] = (
            list(_step_commands(facts, plan)) if plan is not None and how == "kept" else [pip(facts, "install", spec)]
        )
        env = found_value(py)  # pyv is set only when it is
        # A conda environment, or conda's own Python on Windows (C:/Users/x/anaconda3/python.exe: the environment's root).
        prefix = env.prefix if env.kind == "conda" else env.executable.rpartition("/")[0]
        if prefix and (env.kind == "conda" or (has_conda(facts) and env.executable.lower().endswith("/python.exe"))):
            commands.insert(
                0,  # TensorFlow's order: the libraries first, then tensorflow<2.11
                Cmd(
                    (
                        "conda",
                        "install",
                        "-y",
                        "-p",
                        prefix,
                        "-c",
                        "conda-forge",
                        f"cudatoolkit={last.cuda}",
                        f"cudnn={last.cudnn}",
                    )
                ),
            )
            where_libs = f"it loads {libs}, installed from conda-forge into this environment"
            return Remediation(
                f"TensorFlow {last.version} is the last release with GPU support on native Windows: {move}{keras}; "
                f"{where_libs}.{others}",
                tuple(commands),
                component="tensorflow",
            )
        # conda is here but this Python is not one of its environments: TensorFlow's DLLs come with a new one (below).
    target_py = suggest_python(last.python) or last.python
    name = "tf" + last.version.replace(".", "")
    return Remediation(
        f"TensorFlow {last.version} is the last release with GPU support on native Windows, and it supports Python "
        f"{last.python}" + (f", not this {pyv}" if pyv else "") + f": the commands make a new conda environment `{name}` "
        f"with Python {target_py}, {libs} (conda-forge) and {spec} ({move}{keras}); run your code with that "
        f"environment (conda activate {name}).{others}",
        (
            Cmd(
                (
                    "conda",
                    "create",
                    "-y",
                    "-n",
                    name,
                    "-c",
                    "conda-forge",
                    f"python={target_py}",
                    f"cudatoolkit={last.cuda}",
                    f"cudnn={last.cudnn}",
                )
            ),
            Cmd(("conda", "run", "-n", name, "python", "-m", "pip", "install", spec)),
        ),
        component="tensorflow",
    )


# TensorFlow's install page for Windows (https://www.tensorflow.org/install/pip, "Windows Native" and "Windows WSL2"):
# "TensorFlow 2.10 was the last TensorFlow release that supported GPU on native-Windows. Starting with TensorFlow 2.11,
# you will need to install TensorFlow in WSL2"; for 2.10 natively it installs CUDA and cuDNN with conda
# (`conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0`), and in WSL 2 the Linux steps apply
# (`pip install tensorflow[and-cuda]`, NVIDIA's libraries as wheels).
TF_WINDOWS_INSTALL = "https://www.tensorflow.org/install/pip#windows-native"


def _wsl_tf_remediation(last, installed: str, spec: str, libs: str, pyv: str | None, keras: str = "") -> Remediation:
    """Native-Windows TensorFlow on a machine where no conda was seen: the route that needs no conda, WSL 2 with the
    current TensorFlow and its CUDA wheels, as TensorFlow's page advises after 2.10. The native 2.10 route needs
    its CUDA 11.2 and cuDNN 8.1 DLLs beside it (conda-forge's, or NVIDIA's installers), which no command here can
    bring without conda: it is said, not printed, so no printed step leaves TensorFlow without them."""
    from gpudoctor.cmdline import render
    from gpudoctor.matrix import spec_contains

    fits = bool(pyv and spec_contains(last.python, pyv))
    # (the native line is the Windows host's: written by the quoting layer for cmd.exe and PowerShell alike, where a
    # single-quoted word is no one argument in cmd.exe, plans17/1716's reviewers; the WSL lines above stay bash's)
    native = (
        (
            render(Cmd(("python", "-m", "pip", "install", spec)), "windows")
            if fits
            else f"a Python {last.python} environment" + (f" (not this {pyv})" if pyv else "") + f" with {spec}"
        )
        + f" needs {libs}: with Miniconda installed (docs.conda.io), `conda install -c conda-forge cudatoolkit={last.cuda} "
        f"cudnn={last.cudnn}.0` in that environment, or NVIDIA's installers with their bin folders on PATH"
    )
    return Remediation(
        f"TensorFlow {last.version} was the last release with GPU support on native Windows; from 2.11 TensorFlow's "
        f"install page ({TF_WINDOWS_INSTALL}) runs the GPU build in WSL 2. Install WSL 2 (an administrator PowerShell; "
        "restart Windows when it asks), then in its Ubuntu shell install TensorFlow with its CUDA libraries in a virtual "
        "environment: sudo apt-get update; sudo apt-get install -y python3-venv; python3 -m venv ~/tf; "
        "~/tf/bin/python -m pip install "
        f"'tensorflow[and-cuda]'. Or stay on native Windows with TensorFlow {last.version} "
        f"(tensorflow {installed} -> {spec.split('==', 1)[1]}{keras}): {native}; or keep running on the CPU.",
        (Cmd(("wsl", "--install"), root=True, note="restart Windows when it asks"),),
        requires_root=True,
        component="tensorflow",
    )


def _same_build_when_unplanned(facts: Facts, ctx: Context, t: TorchFacts) -> Remediation | None:
    """PyTorch's CUDA libraries missing where no GPU or driver was seen to plan a build for: the installed build is the
    one to put back (its CUDA is known, so nothing is guessed), with its dependencies. None where a build can be
    planned (plan_remediation says which), or the installed one is an image's or a source build (no index has it)."""
    from gpudoctor.planner.plan import TargetNeeded

    rel = ctx.matrix.torch_release(t.version)
    if image_build(t.version) or rel is None or t.version.partition("+")[2] not in rel.variants:
        return None
    try:
        plan, _how = framework_plan(facts, ctx, "torch", t.version)
    except TargetNeeded:
        plan = None
    if plan is not None:
        return None
    return Remediation(
        f"Reinstall PyTorch {t.version} with its dependencies (a --no-deps install leaves them out): the same build, "
        "from its own index, so the NVIDIA wheels it loads come with it.",
        (same_torch_build(facts, ctx, t),),
        component="torch",
    )


def same_torch_build(facts: Facts, ctx: Context, t: TorchFacts) -> Cmd:
    """The installed PyTorch build put back with its dependencies: the exact version, from its own index (the local
    tag's, else the matrix's variant for its CUDA), --force-reinstall so the wheels it needs come again."""
    tag = t.version.partition("+")[2]
    rel = ctx.matrix.torch_release(t.version)
    if not tag and rel is not None:
        variant = ctx.matrix.torch_variant(t.version, t.cuda)
        tag = variant.tag if variant else ""
    if rel is not None and tag not in rel.variants:
        tag = ""
    index = ("--index-url", f"{TORCH_INDEX}/{tag}") if tag.startswith("cu") else ()
    return pip(facts, "install", "--force-reinstall", f"torch=={t.version}", *index)


def _wheels_owner(facts: Facts, ctx: Context) -> tuple[int | None, Cmd | None]:
    """The CUDA major the installed framework loads NVIDIA's wheels for, and the command that puts that
    framework's build back with its wheels (the exact installed version, from its own index)."""
    t = torch_cuda(facts)
    if t:
        return major(t.cuda), same_torch_build(facts, ctx, t)
    tf = tf_gpu(facts)
    row = ctx.matrix.tensorflow_release(tf.version) if tf else None
    if tf and row is not None and row.and_cuda:
        return major(row.cuda), pip(facts, "install", "--force-reinstall", f"tensorflow[and-cuda]=={tf.version}")
    jm = jax_cuda_major(facts)
    j = facts.frameworks.jax
    if jm and isinstance(j, Found) and j.value.jax:
        jrow = ctx.matrix.jax_release(j.value.jax)
        jc = jrow.cuda.get(jm) if jrow else None
        if jc is not None and jc.plugin:
            return jm, pip(facts, "install", "--force-reinstall", f"jax[cuda{jm}]=={j.value.jax}")
        return jm, None
    return None, None


def _wheels_remediation(facts: Facts, drop: list[str], keep: int | None, reinstall: Cmd | None) -> Remediation:
    if keep is None or not drop:
        return Remediation(
            "No CUDA framework here says which CUDA major to keep: uninstall the NVIDIA wheels of the major your "
            "framework does not use, then force-reinstall that framework (the uninstall deletes files both majors share).",
            component="environment",
        )
    # The step is the framework's: its reinstall is what makes the result consistent.
    component = next(
        (c for c in ("torch", "tensorflow", "jax") if reinstall and any(str(a).startswith(c) for a in reinstall.argv[4:])),
        "environment",
    )
    # A file both majors' wheels write under one name: NCCL's library is libnccl.so.2 in every major (returnn#1802).
    shared = "libnccl.so.2" if any(d.startswith("nvidia-nccl-cu") for d in drop) else "libcudnn.so.8"
    said = (
        f"Uninstall the CUDA {', '.join(sorted({d.rsplit('-cu', 1)[1] for d in drop}))} wheels no framework here uses, then "
        f"force-reinstall the framework's own CUDA {keep} build in the same go: both majors write the same files under "
        f"nvidia/ ({shared} among them), so the uninstall deletes files the framework loads and only a reinstall "
        "puts them back."
    )
    if reinstall is None:
        # No pip command gives that build (a jaxlib built for a local CUDA, say): the sentence must not promise one.
        said = (
            f"Uninstall the CUDA {', '.join(sorted({d.rsplit('-cu', 1)[1] for d in drop}))} wheels no framework here uses, then "
            f"reinstall the framework's own CUDA {keep} build the way it was installed (no pip package gives that build, so "
            f"no command is printed for it): both majors write the same files under nvidia/ ({shared} among them), so "
            "the uninstall deletes files the framework loads and only a reinstall puts them back."
        )
        return Remediation(said, (pip(facts, "uninstall", "-y", *drop),), component="environment")
    return Remediation(said, (pip(facts, "uninstall", "-y", *drop), reinstall), component=component)


# --- checks ------------------------------------------------------------------------


_CONDA_CUDA_ASKED = LazyPattern(r"\b(?P<pkg>cudatoolkit|pytorch-cuda)\s*=+\s*(?P<cuda>\d{1,2}\.\d)\b")


def _conda_cpu(facts: Facts) -> tuple[str, str | None] | None:
    """(what showed conda's CPU build of PyTorch, the `pkg=X.Y` CUDA package the conda command asked for or None)."""
    from gpudoctor.facts import CONDA_ENV_SAID, TORCH_CONDA_CPU

    said = next((c.get("line") or "" for c in facts.pasted.cues if c.get("cue") == TORCH_CONDA_CPU), None)
    if said is None:
        return None
    asked = (_CONDA_CUDA_ASKED.search(c.get("line") or "") for c in facts.pasted.cues if c.get("cue") == CONDA_ENV_SAID)
    m = next((a for a in asked if a), None)
    return said, (f"{m.group('pkg')}={m.group('cuda')}" if m else None)


def _conda_cuda_build(facts: Facts, version: str, cuda: str | None) -> Remediation:
    """conda's own way out of its CPU build, in the conda environment (Anaconda Prompt on Windows): the cpuonly
    metapackage pins the pytorch channel's CPU builds ("cpuonly" in PyTorch's previous-versions install commands,
    pytorch.org/get-started/previous-versions), so it goes first; then the same install with the CUDA build asked for
    by its build string (the pytorch channel's "py3.8_cuda11.3_cudnn8_0", conda-forge's "cuda118_..." both hold
    "cuda"), beside the CUDA package the reporter's command named. Without one, nvidia-smi decides which CUDA."""
    release = version.split("+", 1)[0]
    pins = (f"pytorch={release}=*cuda*", "torchvision", "torchaudio")
    install = (
        Cmd(
            ("conda", "install", *pins, cuda, "-c", "pytorch", *(("-c", "nvidia") if cuda.startswith("pytorch-cuda") else ())),
            note="check that the plan lists cuda builds of pytorch before answering y",
        )
        if cuda
        else Cmd(("nvidia-smi",), note="the CUDA Version in its header decides the cudatoolkit or pytorch-cuda to ask conda for")
    )
    return Remediation(
        "Remove the cpuonly metapackage if the environment holds it, then ask conda for the CUDA build of PyTorch "
        f"{release} by its build string, in the same conda environment (Anaconda Prompt on Windows).",
        (
            Cmd(("conda", "list", "cpuonly"), note="in the environment PyTorch is in: the metapackage that pins the CPU builds"),
            Cmd(("conda", "remove", "cpuonly"), note="only if the previous command lists it"),
            install,
            dataclasses.replace(
                where.python_step(
                    facts, "-c", "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"
                ),
                note="a CUDA version and True",
            ),
        ),
        component="torch",
    )


def check_cpu_build(facts: Facts, ctx: Context) -> Iterable[Finding]:
    if not gpu_present(facts) and absence_known(facts, "gpu"):
        return  # no GPU here; on partial evidence (pasted text) that never showed one, the build still says it
    fw = facts.frameworks
    t = fw.torch
    if isinstance(t, Found) and t.value.build_known and not t.value.cuda and not t.value.hip and (conda := _conda_cpu(facts)):
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            f"PyTorch {t.value.version} is conda's CPU-only build, so it cannot use the NVIDIA GPU",
            "torch.cuda.is_available() is False with this build whatever the driver does: it contains no CUDA code. "
            "conda's solver chose the CPU build (its build string says cpu): the cpuonly metapackage in the "
            "environment pins it, or no CUDA build fits the rest of the request.",
            (ev("pasted", conda[0]),),
            _conda_cuda_build(facts, t.value.version, conda[1]),
        )
    elif isinstance(t, Found) and t.value.build_known and not t.value.cuda and not t.value.hip:
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            f"PyTorch {t.value.version} is a CPU-only build, so it cannot use the NVIDIA GPU",
            "torch.cuda.is_available() is False with this build whatever the driver does: it contains no CUDA code. "
            "This usually comes from a plain `pip install torch` on a platform whose default wheel is CPU-only, "
            "or a +cpu index.",
            (ev(t.source, f"torch {t.value.version}, torch.version.cuda = None"),),
            plan_remediation(
                facts, ctx, "torch", t.value.version, "Install PyTorch's CUDA build from its own index.", by_driver=True
            ),
        )
    tf = fw.tensorflow
    row = ctx.matrix.tensorflow_release(tf.value.version) if isinstance(tf, Found) else None
    windows_without_gpu = os_name(facts) == "windows" and not (row is not None and row.windows_gpu)
    if (
        isinstance(tf, Found)
        and (tf.value.distribution == "tensorflow-cpu" or tf.value.is_cuda_build is False)
        and not windows_without_gpu  # framework-windows-native-gpu says the real cause there
    ):
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            f"{tf.value.distribution} {tf.value.version} is built without CUDA, so it cannot use the NVIDIA GPU",
            "tf.config.list_physical_devices('GPU') stays empty with a CPU-only build.",
            (ev(tf.source, f"is_cuda_build = {tf.value.is_cuda_build}"),),
            plan_remediation(
                facts,
                ctx,
                "tensorflow",
                tf.value.version,
                f"Install the CUDA-enabled TensorFlow package in place of {tf.value.distribution}.",
            ),
        )
    j = fw.jax
    # No plugin among the distributions: judged only where the whole list was seen (not from partial evidence).
    if isinstance(j, Found) and jax_cuda_major(facts) is None and j.value.jax and absence_known(facts, "distributions"):
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            f"JAX {j.value.jax} has no CUDA plugin installed, so it runs on the CPU",
            "jax.devices() lists only CPU devices: jaxlib is CPU-only and the GPU support comes from the "
            "jax-cudaNN-plugin and jax-cudaNN-pjrt packages.",
            (ev("dist:jax", f"jax {j.value.jax}, jaxlib {j.value.jaxlib}, plugins: none"),),
            plan_remediation(facts, ctx, "jax", j.value.jax, "Install JAX with the CUDA plugin of its version."),
        )


def _driver_verdict(facts: Facts, ctx: Context, cuda: str):
    d = facts.driver
    if d.version:
        return ctx.matrix.driver_supports_cuda(d.version, cuda, os_name(facts))
    # Only the CUDA version the driver reports (NVML's cuDriverGetVersion, nvidia-smi's header): it decides too.
    return ctx.matrix.driver_cuda_supports_cuda(d.cuda_version, cuda, os_name(facts))


def check_driver_too_old(facts: Facts, ctx: Context) -> Iterable[Finding]:
    d = facts.driver
    if not d.version and not d.cuda_version:
        return  # neither the driver's version nor its CUDA: the driver checks explain why
    from gpudoctor.planner.judge import lowest_driver

    driver = f"driver {d.version}" if d.version else f"the driver (CUDA {major_minor(d.cuda_version)})"
    if d.version:
        driver_ev = ev("nvml" if d.nvml_driver_version else "cmd:nvidia-smi", f"driver {d.version}")
    else:
        driver_ev = ev(
            "nvml" if d.nvml_cuda_version else "cmd:nvidia-smi",
            f"driver's CUDA version {d.cuda_version}; driver version not reported",
        )
    wants: list[tuple[str, str, str, str, str | None]] = []  # (framework, label, cuda, evidence source, version)
    t = torch_cuda(facts)
    if t and t.cuda:  # torch_cuda returns a build with its CUDA only
        wants.append(("torch", f"PyTorch {t.version}", t.cuda, facts.frameworks.torch.source, t.version))
    tf = tf_gpu(facts)
    tfc = tf_cuda(facts, ctx, tf) if tf else None
    if tf and tfc:
        wants.append(("tensorflow", f"TensorFlow {tf.version}", tfc, facts.frameworks.tensorflow.source, tf.version))
    jmajor = jax_cuda_major(facts)
    if jmajor:
        jax = found_value(facts.frameworks.jax)
        row = ctx.matrix.jax_release(jax.jax or jax.jaxlib or "0")
        jc = row.cuda.get(jmajor) if row else None
        wants.append(
            (
                "jax",
                f"JAX {jax.jax} (CUDA {jmajor} plugin)",
                (jc.cuda_min if jc and jc.cuda_min else f"{jmajor}.0"),
                "dist:jax",
                jax.jax,
            )
        )
    for framework, label, cuda, source, version in wants:
        verdict = _driver_verdict(facts, ctx, cuda)
        if verdict.ok or not verdict.known:
            continue
        if d.version:
            needed = verdict.floor if verdict.floor and major(cuda) == major(verdict.cuda) else verdict.needed
        else:
            needed = lowest_driver(verdict.floor, verdict.needed)
        unknown = "" if d.version else " (its version number was not reported)"
        floor = needed or verdict.needed
        # The number the status line shows too (checks.driver.driver_cuda): reported, else the matrix's for the version.
        up_to, derived = driver_cuda(facts, ctx.matrix)
        supports = (
            f"supports CUDA up to {up_to}" + (" (by the compatibility matrix)" if derived else "")
            if up_to
            else "does not say which CUDA it supports"
        )
        yield Finding(
            "framework-driver-too-old",
            Severity.ERROR,
            "frameworks",
            f"{label} needs CUDA {major_minor(cuda)}, which {driver} cannot run",
            f"The driver{unknown} {supports}; a CUDA {major_minor(cuda)} runtime needs driver >= "
            f"{needed or verdict.needed}. The framework fails with 'CUDA driver version is insufficient for CUDA runtime "
            "version' or reports no GPU.",
            (ev(source, f"{label}: CUDA {cuda}"), driver_ev),
            _driver_or_build(facts, ctx, framework, label, version, floor),
            verdict.source,
        )


def image_build(version: str | None) -> bool:
    """A pre-release version (2.1.0a0+32f93b1): a build from source or the one a container image ships
    (NVIDIA's NGC images), never a release on the package index. A nightly (.devYYYYMMDD) is not one: its
    stable release replaces it."""
    base = (version or "").split("+", 1)[0]
    return bool(re.search(r"(a|b|rc)\d+$", base)) and not dev_base(version or "")


def _driver_upgrade(facts: Facts, ctx: Context, floor: str) -> Remediation:
    """The driver step: this machine's distribution's driver, then a reboot (on a cluster node, its
    administrator's); in a container, the host's; on Windows, NVIDIA's Windows driver, as an Administrator."""
    from gpudoctor.planner.legacy_gpus import legacy_gpu, no_driver_remedy
    from gpudoctor.planner.remedy import driver_install_and_reboot, where_run

    old = legacy_gpu(facts, ctx)
    if old is not None and old.beyond(floor):
        # No driver for this GPU reaches the floor: an upgrade cannot be made, whatever is installed.
        return no_driver_remedy(old)
    if facts.platform.container:
        return Remediation(
            f"Upgrade the host's NVIDIA driver to >= {floor}: a container runs on the host's driver (its kernel "
            "module), so the upgrade happens on the host, with the host's package manager; then restart the container.",
            (),
            requires_root=True,
            component="driver",
            where=where_run(facts),
        )
    if os_name(facts) == "windows":
        # No package manager installs NVIDIA's Windows driver: the step names the floor and where it comes from.
        # Restart-Computer alone would restart on the same driver: the restart belongs to the installer, which asks.
        return Remediation(
            f"Upgrade the NVIDIA driver to >= {floor}: NVIDIA's Windows driver for this GPU (nvidia.com/Download, "
            "or the NVIDIA App), as an Administrator, then restart Windows if the installer asks.",
            (),
            requires_root=True,
            component="driver",
        )
    commands = driver_install_and_reboot(facts, None, ctx)
    said = (
        f"Upgrade the NVIDIA driver to >= {floor}, then reboot (the branch the distribution recommends; check that it "
        "is at least that)."
        if commands
        else f"Upgrade the NVIDIA driver to >= {floor}: no recipe is known for this system, so install a branch >= "
        f"{floor.split('.')[0]} from its vendor or from NVIDIA (nvidia.com/Download), then restart the machine."
    )
    return Remediation(said, commands, requires_root=True, component="driver", where=where_run(facts))


def _held(plan, version: str | None = None) -> str | None:
    """Why a companion pinned to the installed torch refuses a build (pick_torch.judge_pins), where one does: first
    for a build that only the companion refuses, of the installed release (another CUDA build of it), the nearest
    move."""
    minor = ".".join((version or "").split("+", 1)[0].split(".")[:2])
    ruled = sorted(
        plan.ruled_out,
        key=lambda c: (
            any(j.topic != "companion" for j in c.failures()),
            ".".join(c.build.release.split(".")[:2]) != minor,
        ),
    )
    return next((j.text for c in ruled for j in c.failures() if j.topic == "companion"), None)


def _driver_or_build(facts: Facts, ctx: Context, framework: str, label: str, version: str | None, floor: str) -> Remediation:
    """Two ways out, in the order that changes least: a build this driver runs (a pip reinstall) first, the
    driver upgrade as its alternative; the driver first where the installed build is not a release from the
    package index (a pre-release: a source or container-image build, which a reinstall would replace with
    another build), where no build fits, or where the build that fits is a major version back."""
    driver = _driver_upgrade(facts, ctx, floor)
    if image_build(version):
        return dataclasses.replace(
            driver,
            summary=driver.summary
            + (
                f" {label} is a pre-release, built from source or shipped in a container image (such as NVIDIA's NGC "
                "images): a build from the package index would replace it, so upgrade the driver or use an image built for it."
            ),
        )
    build = plan_remediation(facts, ctx, framework, version, "Install a build this driver runs, or upgrade the driver (below).")
    plan, _ = framework_plan(facts, ctx, framework, version)
    change = getattr(plan, "change", None) if plan is not None else None
    back = change is not None and change.kind == "downgrade" and bool(change.major)
    from gpudoctor.planner.cluster import cluster_node

    # A cluster job's user cannot change the node's driver: their own build comes first even a major version back.
    if not build.commands and plan is not None and not plan.fits and (held := _held(plan, version)):
        # The build this driver runs would break a companion pinned to the torch installed: the driver is the way out,
        # and why the reinstall is not offered is said with it.
        return dataclasses.replace(
            driver, summary=f"{driver.summary} No {label.split()[0]} build this driver runs keeps what is built on it: {held}."
        )
    if not build.commands or (back and not cluster_node(facts)):
        return dataclasses.replace(driver, alternative=build if build.commands else None)
    return dataclasses.replace(build, alternative=driver)


def check_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    gpus = [(g, cc) for g in facts.driver.gpus if (cc := gpu_cc(g, ctx))]
    if not gpus:
        return
    # framework, version, label, archs, evidence source, sources, how the arch list was found (said in the finding)
    builds: list[tuple[str, str, str, tuple[str, ...], str, tuple[str, ...], str]] = []
    t = torch_cuda(facts)
    if t:
        deep = facts.frameworks.deep.get("torch", {})
        if deep.get("arch_list"):
            builds.append(
                ("torch", t.version, f"PyTorch {t.version}", tuple(deep["arch_list"]), "deep:torch.cuda.get_arch_list()", (), "")
            )
        else:
            variant = ctx.matrix.torch_variant(t.version, t.cuda)
            how = ""
            base = dev_base(t.version)
            if variant is None and base:
                # A nightly is built with its CUDA variant's arch list; the matrix knows releases only, so the
                # newest release build of that variant at or below the nightly's version stands in for it.
                tag = f"cu{''.join(str(n) for n in vkey(t.cuda)[:2])}"
                found = ctx.matrix.torch_variant_at_or_below(base, tag)
                if found:
                    rel, variant = found
                    how = (
                        f" {t.version} is a nightly build, which the matrix does not list: its kernels are judged by "
                        f"PyTorch {rel.version}'s {tag} build, the newest release with that CUDA variant at or below {base}."
                    )
            if variant and variant.arch:
                builds.append(
                    (
                        "torch",
                        t.version,
                        f"PyTorch {t.version}",
                        variant.arch + variant.ptx,
                        "compat_matrix:torch",
                        variant.source,
                        how,
                    )
                )
    tf = tf_gpu(facts)
    if tf:
        if tf.compute_capabilities:
            builds.append(
                (
                    "tensorflow",
                    tf.version,
                    f"TensorFlow {tf.version}",
                    tf.compute_capabilities,
                    facts.frameworks.tensorflow.source,
                    (),
                    "",
                )
            )
        else:
            row = ctx.matrix.tensorflow_release(tf.version)
            if row and row.arch:
                builds.append(
                    (
                        "tensorflow",
                        tf.version,
                        f"TensorFlow {tf.version}",
                        row.arch + row.ptx,
                        "compat_matrix:tensorflow",
                        row.source,
                        "",
                    )
                )
    for framework, version, label, archs, source, cited, how in builds:
        for g, cc in gpus:
            if runs_on(archs, cc) is not False:
                continue
            yield Finding(
                "framework-arch-unsupported",
                Severity.ERROR,
                "frameworks",
                f"{label} has no kernels for GPU {g.index} ({g.name}, compute capability {cc})",
                f"The build carries {', '.join(archs)}: no cubin for sm_{cc.replace('.', '')} (or an older minor of its "
                "major) and no PTX the driver could compile for it. It fails with 'no kernel image is available for "
                "execution on the device' (or TensorFlow ignores the GPU)." + how,
                (ev(source, ", ".join(archs)), ev(g.source, f"{g.name}: {cc}")),
                plan_remediation(
                    facts,
                    ctx,
                    framework,
                    version,
                    "Install a build with kernels for this GPU (newer GPUs need newer CUDA builds; old GPUs need older releases).",
                ),
                tuple(cited),
            )


def _torch_sonames(t: TorchFacts) -> tuple[str, ...]:
    m = major(t.cuda)
    if m is None:
        return ()
    # CUDA 11 libraries keep the 11.0 soname for cudart; from 12 on, the major alone.
    return (f"libcudart.so.{m}.0" if m < 12 else f"libcudart.so.{m}", f"libcublas.so.{m}")


def env_lib_remediation(facts: Facts, sonames: Iterable[str], label: str) -> Remediation | None:
    """When every missing library is in the conda environment's lib/, which a framework installed with
    pip does not search: that directory on LD_LIBRARY_PATH as the environment's own variable (conda sets
    it at each activation), nothing installed again. None when the libraries are not all there."""
    d = facts.frameworks.env_lib
    env = facts.frameworks.python.value if isinstance(facts.frameworks.python, Found) else None
    wanted = list(sonames)
    if d is None or env is None or not wanted or not all(s in d.names for s in wanted):
        return None
    rest = [p for p in facts.platform.env.get("LD_LIBRARY_PATH", "").split(":") if p and p != d.path]
    return Remediation(
        f"{label} does not search the conda environment's lib/ ({d.path}), which already holds {', '.join(wanted)}: "
        "put it on LD_LIBRARY_PATH for this environment, then activate the environment again.",
        (
            Cmd(
                ("conda", "env", "config", "vars", "set", "-p", env.prefix, "LD_LIBRARY_PATH=" + ":".join([d.path, *rest])),
                note="then: conda deactivate, and activate it again",
            ),
        ),
        component="environment",
    )


def check_cuda_libs(facts: Facts, ctx: Context) -> Iterable[Finding]:
    if os_name(facts) == "windows":
        return  # DLL search is another story; the Windows checks say what matters there
    if no_gpu_said(facts) is not None:
        return  # the reporter says there is no GPU: a GPU build's missing libraries are no fault there
    t = torch_cuda(facts)
    if t and vkey(t.version) >= (1, 13):
        # From 1.13 the CUDA libraries come from NVIDIA's pip wheels (or are bundled in torch/lib).
        fl = facts.loading.of("torch") if facts.loading is not None else None
        # Read: what its libraries really need (a soname they do not need is linked in, or never loaded).
        # (cuDNN is the cuDNN check's: cudnn-missing names it.)
        wanted = (
            [r.soname for r in fl.loads if r.how == "needed" and not r.soname.startswith("libcudnn")]
            if fl and any(o.path.endswith("/libtorch_cuda.so") for o in fl.objects)
            else _torch_sonames(t)
        )
        missing = missing_sonames(facts, wanted, t.lib_dirs, "torch")
        if missing:
            yield Finding(
                "framework-cuda-libs-missing",
                Severity.ERROR,
                "frameworks",
                f"PyTorch {t.version} cannot find its CUDA libraries: {', '.join(missing)}",
                "PyTorch's CUDA build loads these from NVIDIA's pip wheels (nvidia-cuda-runtime-cuXX, nvidia-cublas-cuXX) "
                "or its own lib/; neither has them here, nor LD_LIBRARY_PATH or the ldconfig cache. Import fails with "
                "'libcudart.so... cannot open shared object file' or torch.cuda.is_available() is False.",
                tuple(ev("loader", f"{s}: not found") for s in missing),
                env_lib_remediation(facts, missing, f"PyTorch {t.version}")
                or _same_build_when_unplanned(facts, ctx, t)
                or plan_remediation(
                    facts,
                    ctx,
                    "torch",
                    t.version,
                    "Reinstall PyTorch with its dependencies (a --no-deps install leaves them out).",
                ),
            )
    tf = tf_gpu(facts)
    if tf:
        row = ctx.matrix.tensorflow_release(tf.version)
        if row:
            wanted = [s for s in row.sonames if not s.startswith("libcudnn")]
            missing = missing_sonames(facts, wanted, tf.lib_dirs, "tensorflow")
            if missing:
                cuda = tf_cuda(facts, ctx, tf) or row.cuda
                present = sorted(
                    {n for d in ld_dirs(facts) for n in d.names if n.startswith("libcudart.so")}
                    | {n for n in (ldconfig_cache(facts) or {}) if n.startswith("libcudart.so")}
                )
                fix = env_lib_remediation(facts, missing, f"TensorFlow {tf.version}") or (
                    plan_remediation(
                        facts, ctx, "tensorflow", tf.version, "Install TensorFlow with its CUDA libraries as NVIDIA's pip wheels."
                    )
                    if row.and_cuda
                    else tf_cuda_wheels(facts, ctx) or system_cuda_libraries(facts, ctx, cuda)
                )
                yield Finding(
                    "framework-cuda-libs-missing",
                    Severity.ERROR,
                    "frameworks",
                    f"TensorFlow {tf.version} cannot load its CUDA {major(cuda)} libraries: {', '.join(missing)}",
                    f"TensorFlow {tf.version} dlopen()s CUDA libraries by soname (tested with CUDA {row.cuda}); none of "
                    "LD_LIBRARY_PATH, NVIDIA's pip wheels or the ldconfig cache provide them"
                    + (f" (only {', '.join(present)} is installed)" if present else "")
                    + ". It logs 'Could not load dynamic library' and runs on the CPU.",
                    tuple(ev("loader", f"{s}: not found") for s in missing),
                    fix,
                    row.source,
                )


def check_windows_tf(facts: Facts, ctx: Context) -> Iterable[Finding]:
    tf = facts.frameworks.tensorflow
    if os_name(facts) != "windows" or not isinstance(tf, Found) or tf.value.distribution == "tensorflow-cpu":
        return
    row = ctx.matrix.tensorflow_release(tf.value.version)
    if row is None and vkey(tf.value.version) <= (2, 10):
        return
    if row is not None and row.windows_gpu:
        return
    yield Finding(
        "framework-windows-native-gpu",
        Severity.ERROR,
        "frameworks",
        f"TensorFlow {tf.value.version} has no GPU support on native Windows",
        "TensorFlow 2.10 was the last release with GPU support on native Windows; newer releases run on the CPU there.",
        (ev(tf.source, f"{tf.value.distribution} {tf.value.version}"), ev("platform", facts.platform.system)),
        windows_tf_remediation(facts, ctx, tf.value.version),
        row.source if row else (),
    )


def check_wheels_conflict(facts: Facts, ctx: Context) -> Iterable[Finding]:
    by_base: dict[str, dict[int, str]] = {}
    for name, version in facts.frameworks.nvidia_wheels.items():
        m = _WHEEL_CUDA.match(name)
        if m:
            by_base.setdefault(m.group(1), {})[int(m.group(2))] = version
    mixed = {base: majors for base, majors in by_base.items() if len(majors) > 1}
    if not mixed:
        return
    described = "; ".join(
        f"{base}: " + ", ".join(f"cu{m} {v}" for m, v in sorted(majors.items())) for base, majors in sorted(mixed.items())
    )
    keep, reinstall = _wheels_owner(facts, ctx)
    drop = [f"{base}-cu{m}" for base, majors in sorted(mixed.items()) for m in sorted(majors) if keep is not None and m != keep]
    yield Finding(
        "nvidia-wheels-conflict",
        Severity.WARNING,
        "frameworks",
        "NVIDIA pip wheels for different CUDA majors of the same library are installed together",
        f"{described}. They install into the same nvidia/ package directory, so one overwrites files of the "
        "other and a framework can load a library built for the wrong CUDA major.",
        tuple(
            ev(f"dist:{base}", ", ".join(f"cu{m}=={v}" for m, v in sorted(majors.items())))
            for base, majors in sorted(mixed.items())
        ),
        _wheels_remediation(facts, drop, keep, reinstall),
    )


def jax_remediation(facts: Facts, ctx: Context, why: str, *, wheels: bool = False) -> Remediation:
    """The JAX step when jax, jaxlib and the CUDA plugin must agree (and, `wheels`, the plugin's NVIDIA
    wheels must come): one version for all of them, gpudoctor.planner.pick_jax.agreed_version.

    With a GPU and driver seen, the planner's build of that version (the one decision every framework
    fix takes). Without them the planner refuses to choose a CUDA build, but agreement chooses none: the
    installed variant is kept, so the pinned command needs no GPU facts (pick_jax.agreement)."""
    from gpudoctor.planner import commands, pick_jax  # local: install.plan imports the checks
    from gpudoctor.planner.machine import machine_from_facts, target_gaps
    from gpudoctor.planner.render import as_cmd

    jax = found_value(facts.frameworks.jax)
    machine = machine_from_facts(facts, ctx)
    version = pick_jax.agreed_version(ctx.matrix, machine.installed)
    if version is None or not target_gaps(machine):
        return plan_remediation(facts, ctx, "jax", jax.jax or jax.jaxlib, why, version=version)
    moves = ", ".join(
        f"{n} {v} -> {version}"
        for n, v in sorted(machine.installed.items())
        if (n in ("jax", "jaxlib") or _JAX_CUDA_PLUGIN.match(n)) and vkey(v) != vkey(version)
    )
    m = pick_jax.cuda_variant(machine.installed)
    kept = f"the CUDA {m} build" if m else "the CPU build"
    if wheels:  # the cuDNN step: why this version is jax-plugin-mismatch's to say, when one moves
        said = f"{why} JAX {version}" + (f" ({moves})" if moves else "") + f", still {kept}."
    else:
        if jax.jax and vkey(version) != vkey(jax.jax) and ctx.matrix.jax_release(jax.jax) is None:
            reason = (
                f"jaxlib's version: jax {jax.jax} is older than every JAX release in the compatibility matrix "
                f"({ctx.matrix.jax_releases[0].version} and newer), so no jaxlib of it can be vouched for; "
                "jax is pure Python and moves up"
            )
        else:
            reason = "jax's version: projects pin jax, and jaxlib is the half that follows it (JEP 9419: jax >= jaxlib)"
        said = f"{why} They should agree on {version}, {reason}" + (f": {moves}" if moves else "") + f"; still {kept}."
    done = pick_jax.agreement(ctx.matrix, machine, version, wheels=wheels)
    if done is None:
        return Remediation(
            f"{said} The compatibility matrix has no build of JAX {version} like the one installed, and no NVIDIA GPU "
            "or driver was seen to choose another: tell `gpudoctor install jax` the target (--gpu, --driver, --cuda, --cpu).",
            (),
            component="jax",
        )
    specs, links, remove = done
    if not specs:
        return Remediation(said, (), component="jax")
    installer = "uv" if machine.env.uv and not machine.env.has_pip else "pip"
    if specs == (f"jax=={version}",) and not remove:
        # jax alone (pure Python): one install, which pip resolves and builds before it replaces anything and
        # rolls back on failure. Not download-then---no-index: old jax releases are source distributions only
        # (0.4.14), and an offline install cannot fetch the setuptools their build needs.
        cmds: tuple[Cmd, ...] = (where.in_tool(facts, Cmd(commands.install_argv(installer, machine.env, specs))),)
    else:
        steps = commands.replace_steps(installer, machine.env, specs, remove, label=f"JAX {version}", find_links=links)
        cmds = tuple(where.in_tool(facts, as_cmd(s.argv)) for s in steps)
    if "[" in specs[0]:
        said += f" {specs[0]} pins jaxlib{' and the plugin' if m else ''} to {version}" + (
            " and brings NVIDIA's CUDA and cuDNN wheels." if wheels else "."
        )
    return Remediation(f"{said} Agreeing chooses no build, so it needs no GPU facts.", cmds, component="jax")


def check_jax_versions(facts: Facts, ctx: Context) -> Iterable[Finding]:
    j = facts.frameworks.jax
    if not isinstance(j, Found):
        return
    jax = j.value
    versions = {"jax": jax.jax, "jaxlib": jax.jaxlib, **jax.plugins}
    versions = {k: v for k, v in versions.items() if v}
    # Each agreement holds from its own `since` (jaxlib not newer than jax since 0.3.0), older than the
    # matrix's first release row included; judged by the installed jax's version, not its row's.
    from gpudoctor.matrix import version_key

    try:
        judged = version_key(jax.jax or jax.jaxlib or "0")
    except ValueError:
        return  # not a version: nothing to judge it by
    pins = [p for p in ctx.matrix.jax_pins if version_key(p.since) <= judged]
    broken = []
    for pin in pins:
        present = tuple(p for p in pin.packages if p in versions)
        if len(present) < 2:
            continue
        # Judge the pin on the packages that are installed (jax without its pjrt package, say).
        if dataclasses.replace(pin, packages=present).satisfied(versions) is False:
            broken.append((pin, {p: versions[p] for p in present}))
    if not broken:
        return
    said = "; ".join(f"{pin.rule.replace('-', ' ')}: " + ", ".join(f"{p} {v}" for p, v in rel.items()) for pin, rel in broken)
    yield Finding(
        "jax-plugin-mismatch",
        Severity.ERROR,
        "frameworks",
        "jax, jaxlib and the CUDA plugin versions disagree",
        f"{said}. JAX refuses to start ('jaxlib version ... is newer than jax', 'incompatible CUDA plugin') or "
        "silently falls back to the CPU when the plugin does not match.",
        tuple(ev(f"dist:{p}", v) for p, v in versions.items()),
        jax_remediation(facts, ctx, "Install jax, jaxlib and the CUDA plugin at one version, in one command."),
        tuple(dict.fromkeys(k for pin, _ in broken for k in pin.source)),
    )


CHECKS = (
    Check("framework-build", "frameworks", ("framework-cpu-build",), check_cpu_build),
    Check("framework-driver", "frameworks", ("framework-driver-too-old",), check_driver_too_old),
    Check("framework-arch", "frameworks", ("framework-arch-unsupported",), check_arch),
    Check("framework-libraries", "frameworks", ("framework-cuda-libs-missing",), check_cuda_libs),
    Check("tensorflow-windows", "frameworks", ("framework-windows-native-gpu",), check_windows_tf),
    Check("nvidia-wheels", "frameworks", ("nvidia-wheels-conflict",), check_wheels_conflict),
    Check("jax-versions", "frameworks", ("jax-plugin-mismatch",), check_jax_versions),
)
