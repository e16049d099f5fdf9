"""PyTorch builds: one per CUDA variant of each release, installed from download.pytorch.org/whl/cuXYZ.

The wheels bring their own CUDA runtime, so the system toolkit does not matter; the driver must run
the variant's CUDA, and the wheel must carry kernels for every GPU (compat_matrix/torch.toml).
"""

from __future__ import annotations

import re
from dataclasses import replace

from gpudoctor.matrix import version_key, version_parts
from gpudoctor.planner.judge import judge_driver, judge_kernels, judge_python
from gpudoctor.planner.model import Build, Candidate, Judgement, Machine
from gpudoctor.versions import major_minor, vkey

INDEX = "https://download.pytorch.org/whl"
# Built against one torch release each: they move with it, in the same command, from the same index, pinned to
# the release built for the torch installed (the companion table of compat_matrix/torch.toml, with its sources).
COMPANIONS = ("torchvision", "torchaudio", "xformers")
# Published for each CUDA variant with its local tag on PyTorch's index (torchvision-0.20.1+cu124): a same-version
# switch pins the tag too, or pip keeps the installed build (pytorch-previous-versions: torch==1.12.1+cu113
# torchvision==0.13.1+cu113).
_TAGGED = ("torchvision", "torchaudio")
# What PyTorch's own install line moves with torch ("pip3 install torch torchvision torchaudio --index-url
# https://download.pytorch.org/whl/cu121", pytorch-previous-versions): where the environment's package list was not
# seen, a torch line carries these, each pinned to its release built for the new torch (only where the companion table
# names it: torchaudio from 2.9 on declares no torch requirement, so an unpinned one is any release). One of them left
# on the torch it was built for fails at import (torchvision: "operator torchvision::nms does not exist").
_UNSEEN = ("torchvision", "torchaudio")
# PyTorch stopped building CUDA 10.2 for Windows after 1.10: "As of pytorch/pytorch#65649 Windows CUDA-10.2 builds
# are no longer generated" (https://github.com/pytorch/vision/pull/4662), and the 1.11 install matrix says "There are
# no CUDA-10.2 binaries on Windows, please use 11.3" (https://github.com/pytorch/pytorch.github.io/pull/959).
_WINDOWS_CU102_LAST = (1, 10)
_REQUEST = re.compile(r"^(\d+\.\d+)(\.\d+)?(?:\+(cu\d+))?$")
# The releases the pytorch conda channel published (pytorch-cuda metapackage) before it ended with 2.5.
_CONDA_CHANNEL_LAST = (2, 5)
_PYTORCH_CUDA = ("11.6", "11.7", "11.8", "12.1", "12.4")


def parse_request(matrix, requested: str) -> tuple[str, str | None, str | None]:
    """ "2.2" / "2.2.1" / "2.2.1+cu118" -> (release "2.2", exact version or None, variant tag or None)."""
    from gpudoctor.errors import UsageError

    m = _REQUEST.match(requested.strip())
    known = f"{matrix.torch_releases[0].version} to {matrix.torch_releases[-1].version}"
    if not m:
        raise UsageError(f"not a PyTorch version: {requested!r}", "give one as pip would: 2.5, 2.5.1 or 2.5.1+cu124")
    rel = matrix.torch_release(m.group(1))
    if rel is None:
        raise UsageError(
            f"PyTorch {m.group(1)} is not in the compatibility matrix (it knows {known})",
            "gpudoctor only installs builds it can vouch for",
        )
    if m.group(3) and m.group(3) not in rel.variants:
        raise UsageError(f"PyTorch {rel.version} has no {m.group(3)} build (it has {', '.join(rel.variants)})")
    exact = m.group(1) + m.group(2) if m.group(2) else None
    return rel.version, exact, m.group(3)


def groups(matrix, requested: str | None):
    """[(release, [Build, ...])], newest release first; only the asked one when there is a request."""
    exact = tag = None
    releases = sorted(matrix.torch_releases, key=lambda r: version_key(r.version), reverse=True)
    if requested:
        release, exact, tag = parse_request(matrix, requested)
        releases = [r for r in releases if r.version == release]
    out = []
    for rel in releases:
        builds = []
        for v in sorted(rel.variants.values(), key=lambda v: vkey(v.cuda), reverse=True):
            if not v.tag.startswith("cu") or (tag and v.tag != tag):
                continue
            spec = f"torch=={exact}+{v.tag}" if exact else f"torch=={rel.version}.*"
            builds.append(
                Build(
                    "torch",
                    rel.version,
                    v.tag,
                    v.cuda,
                    (spec,),
                    index_url=f"{INDEX}/{v.tag}",
                    experimental=v.status == "experimental",
                    default=v.tag == rel.pypi_default,
                    sources=tuple(dict.fromkeys(rel.source + v.source)),
                    pin=exact or f"{rel.version}.*",
                )
            )
        out.append((rel, builds))
    return out


def kernels_of(matrix, rel, build: Build) -> tuple[tuple[str, ...], tuple[str, ...]]:
    v = rel.variants[build.variant]
    return v.arch, v.ptx


def judge(matrix, machine: Machine, facts, rel, build: Build, *, ignore_driver: bool = False) -> Candidate:
    v = rel.variants[build.variant]
    js: list[Judgement] = []
    if machine.os == "macos":
        js.append(Judgement("os", False, "PyTorch publishes no CUDA builds for macOS"))
    elif machine.os == "windows" and v.tag == "cu102" and version_key(rel.version) > _WINDOWS_CU102_LAST:
        js.append(Judgement("os", False, "PyTorch published no cu102 wheels for Windows after 1.10"))
    js.append(judge_python(machine, rel.python, rel.python_experimental, f"PyTorch {rel.version}"))
    drv, full = judge_driver(matrix, machine, v.cuda)
    js.append(drv)
    js += judge_kernels(machine, v.arch, v.ptx, True if ignore_driver else full, v.cuda)
    js += judge_pins(machine, rel, v.tag)
    if build.experimental:
        js.append(Judgement("build", True, f"{v.tag} is marked experimental in PyTorch {rel.version}'s release notes", note=True))
    return Candidate(build, tuple(js))


def judge_pins(machine: Machine, rel, tag: str | None = None) -> list[Judgement]:
    """A companion that pins one torch exactly (vLLM) holds torch to that release: moving torch alone breaks it, and the
    matrix knows no release of it built for another torch, so a build of another release is refused, with why. Its
    compiled kernels are built with that torch's CUDA as well (vllm-project/vllm docs/source/getting_started/
    installation.rst @08274978: "compiled with CUDA 12.1 and public PyTorch release versions by default", its CUDA 11.8
    binaries a separate +cu118 wheel on its GitHub releases; "binary incompatibility with other CUDA versions and
    PyTorch versions, even for the same PyTorch version with different building configurations"): where the installed
    torch's build is known (+cu121), another CUDA build of the same release (cu118) is refused too."""
    out = []
    have = _public_local(machine.installed.get("torch", ""))[1]
    for name, version, torch in machine.pins:
        who = f"{name} {version}".strip()
        if _minor(torch) != _minor(rel.version):
            out.append(
                Judgement(
                    "companion",
                    False,
                    f"{who} pins torch=={torch}: torch {rel.version} breaks it (install the {name} release built "
                    f"for that torch with it, or keep torch {torch})",
                )
            )
        elif tag and have.startswith("cu") and tag != have:
            out.append(
                Judgement(
                    "companion",
                    False,
                    f"{who} is built for torch {torch}+{have}: a {tag} torch alone breaks it (only with {name}'s own "
                    f"{tag} build beside it, or on a driver that runs {have})",
                )
            )
        else:
            out.append(Judgement("companion", True, f"{who} pins torch=={torch}: this build keeps it", note=True))
    return out


def rank(c: Candidate) -> tuple:
    """Within a release: full driver support, then the PyPI default variant (the wheel most people run),
    then a stable one, then the newest CUDA."""
    mvc = any(j.topic == "driver" and j.note and j.needs for j in c.judgements)
    return (not mvc, c.build.default, not c.build.experimental, vkey(c.build.cuda))


def installed_matches(machine: Machine, torch_facts, build: Build) -> bool:
    """Whether this exact build is what is installed (same release and CUDA; the same version when one was asked)."""
    if torch_facts is None or not torch_facts.cuda:
        return False
    version = torch_facts.version.split("+", 1)[0]
    if build.pin and not build.pin.endswith(".*") and version != build.pin.split("+", 1)[0]:
        return False
    return version_parts(version)[:2] == version_parts(build.release)[:2] and major_minor(torch_facts.cuda) == build.cuda


def manual(machine: Machine, rel, candidate: Candidate) -> tuple[str, ...]:
    return ()


def carried(matrix, machine: Machine, torch: str | None) -> dict[str, str]:
    """The companions a line installing `torch` (an exact version; None for a range) moves, name -> installed version
    ("" where it was not shown): those installed; where the package list was not seen (a paste without `pip list`),
    also torchvision and torchaudio (_UNSEEN), each where the companion table names its release built for `torch`
    and PyTorch's index builds it for every CUDA variant (_tagged). The one answer for every torch line:
    install_specs, settle and companion_moves ask it."""
    out = {n: machine.installed[n] for n in COMPANIONS if n in machine.installed}
    if not machine.listed and torch:
        for n in _UNSEEN:
            row = matrix.companion_for(n, torch)
            if n not in out and row is not None and _tagged(n, row.version):
                out[n] = ""
    return {n: out[n] for n in COMPANIONS if n in out}


def uninstall_names(machine: Machine, build: Build, reinstall: bool) -> tuple[str, ...]:
    # torch and its companions are all in the one install command (install_specs): none is removed first.
    return tuple(n for n in ("torch", *COMPANIONS) if n in machine.installed)


def evidence(machine: Machine, facts=None) -> tuple[str, str] | None:
    """(variant tag, why) when the environment names its CUDA build without a GPU or driver seen; None when
    nothing does, or when what does disagrees. What names it (issue 27, kind 9):
    - a companion installed from PyTorch's index for one CUDA variant (torchvision 0.18.0+cu121 beside a CPU
      torch, which a plain `pip install` from the package index replaced);
    - a companion's message that it was built for a +cuNNN torch (xformers: "xFormers was built for: PyTorch
      2.1.0+cu121 ... (you have 2.1.0+cpu)", gpudoctor/parsers/catalogue.toml);
    - conda's CUDA package in the environment: pytorch-cuda X.Y (the pytorch channel's metapackage that
      selects the CUDA X.Y build) or cudatoolkit X.Y (the runtime a conda PyTorch build of X.Y links)."""
    tags: dict[str, str] = {}
    for name in COMPANIONS:
        local = _public_local(machine.installed.get(name, ""))[1]
        if re.fullmatch(r"cu\d+", local):
            tags.setdefault(local, f"{name} {machine.installed[name]} is PyTorch's {local} build")
    if facts is not None:
        for e in facts.pasted.reported("companion-built-for"):
            built = e.get("built") or ""
            local = _public_local(built)[1]
            if re.fullmatch(r"cu\d+", local):
                who = (e.get("entry") or "a companion").split("-built-for", 1)[0]
                tags.setdefault(local, f"{who} says it was built for PyTorch {built}, PyTorch's {local} build")
        dists = _distributions(facts)
        for name in ("pytorch-cuda", "cudatoolkit"):
            m = re.match(r"^(\d{1,2})\.(\d)(?:\.|$)", dists.get(name, ""))
            if m:
                local = f"cu{m.group(1)}{m.group(2)}"
                tags.setdefault(local, f"conda's {name} {dists[name]} is in the environment, the CUDA of PyTorch's {local} build")
    if len(tags) != 1:
        return None
    ((tag, why),) = tags.items()
    return tag, why


def _distributions(facts) -> dict[str, str]:
    from gpudoctor.probed import value_or_none

    py = value_or_none(facts.frameworks.python)
    return dict(py.distributions) if py is not None else {}


def _public_local(version: str) -> tuple[str, str]:
    public, _, local = version.partition("+")
    return public, local


def _stable(public: str) -> str:
    """A nightly's or a pre-release's release (2.7.0.dev20250310 -> 2.7.0): the stable index has only that."""
    from packaging.version import InvalidVersion, Version

    try:
        v = Version(public)
    except InvalidVersion:
        return ""
    return v.base_version if v.is_prerelease or v.is_devrelease else public


def settle(matrix, machine: Machine, build: Build) -> Build:
    """The build with its exact version where a range would not do: pip keeps an installed 2.5.1+cu121 for
    `torch==2.5.*` whatever the index, so a switch of the build within the release (or the same build again)
    pins the installed version with the build's tag (torch==2.5.1+cu124; a minimal change: the patch stays); with companions
    installed (or possibly installed: a package list not seen, `carried`), the newest patch the companion table knows, so that each companion is pinned to the release
    built for it (torch==2.7.1 with torchvision==0.22.1). Else the build as it is."""
    if not build.pin or not build.pin.endswith(".*"):
        return build
    public = _stable(_public_local(machine.installed.get("torch", ""))[0])
    exact = None
    pinned = [t for _, _, t in machine.pins if _minor(t) == _minor(build.release)]
    if pinned:
        exact = pinned[0]  # the torch a pinning companion (vLLM) is built for: judge_pins let no other release through
    elif public and version_parts(public)[:2] == version_parts(build.release)[:2]:
        exact = public  # the installed patch stays: another build of it, or the same one again (--reinstall)
    elif moving := {*carried(matrix, machine, None), *(() if machine.listed else _UNSEEN)}:
        known = [
            t
            for r in matrix.companions
            if r.package in moving
            for t in r.torch
            if t.count(".") == 2 and version_parts(t)[:2] == version_parts(build.release)[:2]
        ]
        exact = max(known, key=version_key, default=None)
    if exact is None:
        return build
    tagged = f"{exact}+{build.variant}" if build.index_url and build.variant else exact
    return replace(build, specs=(f"torch=={tagged}", *build.specs[1:]), pin=exact)


def install_specs(matrix, machine: Machine, build: Build) -> tuple[str, ...]:
    """torch and every companion installed, in one command: each companion pinned to its release built for the
    exact torch (compat_matrix/torch.toml `companion`); unpinned where the table has none, and pip's resolver
    picks the one whose own `torch==` requirement fits."""
    exact = None if not build.pin or build.pin.endswith(".*") else build.pin
    return (
        *build.specs,
        *companion_specs(matrix, carried(matrix, machine, exact), exact, build.variant if build.index_url else None),
    )


def companion_specs(matrix, installed: dict[str, str], torch: str | None, variant: str | None = None) -> tuple[str, ...]:
    """The requirement of each companion in `installed` for the torch line: pinned to its release built for the exact
    `torch` (compat_matrix/torch.toml `companion`), unpinned where the table has none (pip's resolver picks the one whose
    own torch== requirement fits). `variant`: the PyTorch index the line installs from (cu124), whose tag a same-version
    companion needs, or pip keeps the installed build; one whose version was not shown ("") gets it too, as it may be
    that version of another build. The one rule, for every torch line (the planner's, and the
    companion check's torch put back)."""
    specs = []
    for name in COMPANIONS:
        if name not in installed:
            continue
        row = matrix.companion_for(name, torch) if torch else None
        if row is None:
            specs.append(name)
            continue
        spec = f"{name}=={row.version}"
        public, local = _public_local(installed[name])
        if name in _TAGGED and variant and public in (row.version, "") and local != variant and _tagged(name, row.version):
            spec += f"+{variant}"
        specs.append(spec)
    return tuple(specs)


def companion_moves(matrix, machine: Machine, build: Build, installer: str) -> tuple[tuple[str, ...], tuple]:
    """What moves with torch besides its own line (install_specs pins torchvision, torchaudio and xformers in it):
    (sentences that say so, the commands that follow the install). The one place that decides it.

    flash-attn builds against the torch installed when its setup runs (--no-build-isolation), so it follows the
    install, never in its line: its nearest release with wheels for the new torch (release assets its setup.py
    fetches for torch's CUDA and C++ ABI, compat_matrix/torch.toml), else a rebuild against the new torch for this
    machine's GPUs. A companion that pins torch exactly (vLLM) never gets here: judge_pins refuses the move."""
    from gpudoctor.cmdline import Cmd, SetEnv
    from gpudoctor.planner.commands import args_argv

    said: list[str] = []
    after: list = []
    exact = build.pin if build.pin and not build.pin.endswith(".*") else None
    target = exact or build.release
    before = _public_local(machine.installed.get("torch", ""))[0]
    for name, version in carried(matrix, machine, exact).items():
        row = matrix.companion_for(name, exact) if exact else None
        if row is not None and row.version != _public_local(version)[0]:
            was = version or "(its version not shown)"
            said.append(f"{name} {was} -> {row.version} (the release built for torch {exact})")
        elif row is None and matrix.companion_releases(name):
            said.append(f"{name}: the matrix names no release built for torch {target}; pip picks the one whose torch pin fits")
    fa = machine.installed.get("flash-attn")
    # What is built against torch moves when torch's version moves, or its CUDA major (its kernels link that runtime).
    local = _public_local(machine.installed.get("torch", ""))[1]
    cuda_moves = bool(re.fullmatch(r"cu\d+", local) and build.cuda and local[2:-1] != build.cuda.split(".")[0])
    same = bool(before) and (before == target or (exact is None and _minor(before) == _minor(build.release)))
    if fa and (cuda_moves or not same):
        row = matrix.companion_nearest("flash-attn", fa, target, build.cuda)
        if row is not None and row.wheels == "release-assets":
            said.append(
                f"flash-attn {fa} -> {row.version}, its nearest release with wheels built for torch "
                f"{'.'.join(target.split('.')[:2])} and CUDA {(build.cuda or '?').split('.')[0]}, after torch (its setup.py fetches the wheel for the new torch's CUDA and C++ ABI)"
            )
            args = ("--no-build-isolation", "--force-reinstall", "--no-deps", f"flash-attn=={row.version}")
            after.append(Cmd(args_argv(installer, machine.env, args)))
        else:
            archs = ";".join(sorted({g.cc for g in machine.gpus if g.cc}))
            said.append(
                f"flash-attn {fa}: no release of it has wheels built for torch {target} and CUDA {(build.cuda or '?').split('.')[0]}, so it is rebuilt against the new "
                "torch after the install (--no-build-isolation; TORCH_CUDA_ARCH_LIST names this machine's GPUs)"
            )
            if archs:
                after.append(SetEnv("TORCH_CUDA_ARCH_LIST", archs))
            after.append(SetEnv("FLASH_ATTENTION_FORCE_BUILD", "TRUE"))
            from gpudoctor.planner.remedy import rebuild_args  # the doctor's rebuild, one answer

            after.append(Cmd(args_argv(installer, machine.env, rebuild_args("flash-attn", f"flash-attn=={fa}"))))
    return tuple(said), tuple(after)


def _minor(version: str) -> tuple[int, ...] | None:
    """(major, minor) of a version; None for one that is not (an unreadable 'unknown' from a package list)."""
    try:
        return version_parts(version)[:2]
    except ValueError:
        return None


def _tagged(name: str, version: str) -> bool:
    """Whether PyTorch's index builds `name` per CUDA variant: torchaudio only from 0.10 ("Starting 0.10, torchaudio has
    CPU-only and CUDA-enabled binary distributions", pytorch/audio docs/source/installation.rst @0e01d387)."""
    return name != "torchaudio" or version_key(version) >= (0, 10)


def undo_args(machine: Machine) -> tuple[str, ...]:
    """The install arguments that put back the torch (and companions) installed now; its local tag names its index."""
    before = machine.installed.get("torch")
    if not before:
        return ()
    local = before.partition("+")[2]
    pins = tuple(f"{n}=={machine.installed[n]}" for n in ("torch", *COMPANIONS) if n in machine.installed)
    # A nightly (2.7.0.dev20250310+cu124) is only on the nightly index, never on the stable one.
    nightly = ".dev" in before.partition("+")[0]
    index = f"{INDEX}/nightly/{local}" if nightly else f"{INDEX}/{local}"
    return (*pins, *(("--index-url", index) if local else ()))


def conda_equivalent(machine: Machine, build: Build) -> tuple[str, ...]:
    prefix = machine.env.prefix or "PREFIX"
    if vkey(build.release) <= _CONDA_CHANNEL_LAST and build.cuda in _PYTORCH_CUDA:
        return (
            "conda",
            "install",
            "-p",
            prefix,
            f"pytorch={build.release}",
            f"pytorch-cuda={build.cuda}",
            "-c",
            "pytorch",
            "-c",
            "nvidia",
        )
    # conda-forge's CUDA builds (build strings cudaNNN_...); the solver picks the CUDA the driver allows.
    return ("conda", "install", "-p", prefix, "-c", "conda-forge", f"pytorch={build.release}=cuda*")


# --- CPU-only builds (--cpu): PyTorch's cpu index holds them for Linux and Windows; on macOS the PyPI
# wheels are the CPU ones (https://pytorch.org/get-started/locally/).


def cpu_build(machine: Machine, rel, build: Build) -> Build:
    exact = build.pin if build.pin and not build.pin.endswith(".*") else None
    spec = f"torch=={exact}" if exact else f"torch=={rel.version}.*"
    index = None if machine.os == "macos" else f"{INDEX}/cpu"
    return Build(
        "torch", rel.version, "cpu", None, (spec,), index_url=index, sources=build.sources, pin=exact or f"{rel.version}.*"
    )


def cpu_judge(machine: Machine, rel, build: Build) -> Candidate:
    return Candidate(build, (judge_python(machine, rel.python, rel.python_experimental, f"PyTorch {rel.version}"),))


def cpu_installed(machine: Machine, torch_facts, build: Build) -> bool:
    if torch_facts is None or torch_facts.cuda:
        return False
    version = torch_facts.version.split("+", 1)[0]
    if build.pin and not build.pin.endswith(".*") and version != build.pin:
        return False
    return version_parts(version)[:2] == version_parts(build.release)[:2]
