"""CUDA toolkits: the /usr/local/cuda link, which toolkit each path names, and whether the
driver and the GPU can use what the toolkit builds.

Rules (sources: cuda-release-notes for the toolkit-driver table and minor
version compatibility, cuda-compat-guide for its limits):
- a toolkit newer than the driver's CUDA runs only within the same major,
  on a driver at or above that major's minor-version floor, and even then
  PTX it generates cannot be JIT-compiled by the older driver;
- nvcc can target only the compute capabilities its release supports.

Every toolkit finding's fix takes its target from one decision, `toolkit_target`: the installed
toolkit this machine should use. The fixes therefore agree (one plan step, gpudoctor.planner.prescribe),
and `gpudoctor fix` switches to the same toolkit. When none qualifies, `toolkit_fix` says what to
install, with NVIDIA's package names for this distribution (CUDA Installation Guide for Linux,
SOURCE_CUDA_INSTALL: the `cuda-toolkit-X-Y` meta packages install /usr/local/cuda-X.Y), and only where
NVIDIA's repository for this distribution release packages that version (compat_matrix/cuda_repos.toml):
`toolkit_install` is the one place that decides how a toolkit gets installed (switch-cuda uses it too).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import replace

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.checks.wheel_majors import old_major_wheels_dropped
from gpudoctor.cmdline import Cmd, EvalShell, Line, posix
from gpudoctor.facts import Facts, Toolkit, absence_known
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import gpu_cc
from gpudoctor.planner.remedy import CUDA_REPOS_URL as CUDA_REPOS_URL  # (cudnn imports it from here)
from gpudoctor.planner.remedy import KEYRING_DEB as KEYRING_DEB
from gpudoctor.planner.remedy import cuda_keyring, family
from gpudoctor.probed import Found
from gpudoctor.versions import major, major_minor, vkey

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # built only where a toolkit step is planned (gpudoctor.checks.toolkit_records)
    from typing import Any, cast

    from gpudoctor.checks.toolkit_records import ToolkitFix, ToolkitInstall, TorchSide
else:

    def cast(_type: object, value: object) -> object:
        """typing.cast as it runs: the value itself."""
        return value


def active_toolkit(facts: Facts) -> Toolkit | None:
    """The toolkit a build would use: nvcc on PATH, else /usr/local/cuda, else CUDA_HOME."""
    tks = facts.toolkits
    for tk in tks.toolkits:
        if "nvcc on PATH" in tk.found_via:
            return tk
    if tks.link.resolved:
        found = tks.by_root(tks.link.resolved)
        if found:
            return found
    for tk in tks.toolkits:
        if "CUDA_HOME" in tk.found_via or "CUDA_PATH" in tk.found_via:
            return tk
    return None


def nvcc_only_toolkit(facts: Facts) -> Toolkit | None:
    """The toolkit known only by `nvcc --version` on PATH (no install folder found or recorded: a pasted
    output, a wrapper gpudoctor could not follow), standing in for it so that it is still judged against
    the driver and the GPUs; None when the nvcc on PATH belongs to a placed toolkit, or there is none."""
    tks = facts.toolkits
    if not tks.nvcc_on_path_version or any("nvcc on PATH" in t.found_via for t in tks.toolkits):
        return None
    nvcc = tks.nvcc_on_path or "nvcc"
    root = posixpath.dirname(posixpath.dirname(nvcc)) if nvcc.startswith("/") else "the nvcc on PATH"
    if tks.by_root(root) is not None:
        return None
    return Toolkit(root, tks.nvcc_on_path_version, "nvcc", ("nvcc on PATH",), nvcc, False, ("known only from nvcc --version",))


def judged_toolkits(facts: Facts) -> tuple[Toolkit, ...]:
    """Every toolkit the driver and GPU checks judge: those found, and one known only from its nvcc."""
    only = nvcc_only_toolkit(facts)
    return facts.toolkits.toolkits + ((only,) if only else ())


def extension_toolkit(facts: Facts) -> Toolkit | None:
    """The toolkit PyTorch's extension builder uses: CUDA_HOME (or CUDA_PATH), else the nvcc on PATH,
    else /usr/local/cuda, as torch.utils.cpp_extension looks for it."""
    tks = facts.toolkits
    for via in ("CUDA_HOME", "CUDA_PATH"):
        for tk in tks.toolkits:
            if via in tk.found_via:
                return tk
    for tk in tks.toolkits:
        if "nvcc on PATH" in tk.found_via:
            return tk
    return tks.by_root(tks.link.resolved) if tks.link.resolved else None


def os_name(facts: Facts) -> str:
    return "windows" if facts.platform.system.lower().startswith("win") else "linux"


# --- the one decision: which toolkit this machine should use --------------------------------

SOURCE_CUDA_INSTALL = "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/"
# The environment entries through which a shell (not the /usr/local/cuda link) names a toolkit.
SHELL_VIAS = ("nvcc on PATH", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH")


def torch_cuda_major(facts: Facts) -> int | None:
    """The CUDA major of the installed PyTorch, when it is a CUDA build (extensions need an nvcc of that major)."""
    t = facts.frameworks.torch
    return major(t.value.cuda) if isinstance(t, Found) and t.value.cuda else None


def driver_runs(facts: Facts, ctx: Context, cuda: str) -> bool:
    """Whether this driver runs programs built with CUDA `cuda`: fully (<= the driver's CUDA) or through
    minor version compatibility (the matrix's floor for that major). True when no driver is known: the
    driver checks speak to that, and a toolkit choice cannot wait for it."""
    d = facts.driver
    if not d.cuda_version:
        return True
    if vkey(major_minor(cuda)) <= vkey(d.cuda_version):
        return True
    return bool(d.version) and ctx.matrix.driver_supports_cuda(d.version, cuda, os_name(facts)).ok


def _builds_for_every_gpu(facts: Facts, ctx: Context, cuda: str) -> bool:
    return all(ctx.matrix.cuda_can_target(cuda, cc) is not False for cc in (gpu_cc(g, ctx) for g in facts.driver.gpus) if cc)


def qualifies(facts: Facts, ctx: Context, cuda: str) -> bool:
    """A CUDA version this machine can use: of PyTorch's CUDA major (when PyTorch is a CUDA build), run by
    this driver, able to build for every GPU here."""
    tmajor = torch_cuda_major(facts)
    return (tmajor is None or major(cuda) == tmajor) and driver_runs(facts, ctx, cuda) and _builds_for_every_gpu(facts, ctx, cuda)


def toolkit_target(facts: Facts, ctx: Context) -> Toolkit | None:
    """THE installed toolkit this machine should use, or None when no installed one qualifies.

    A complete toolkit that `qualifies`; the active one when it does (the least change), else the
    newest. Every toolkit finding, and `gpudoctor fix`, takes its target from here.
    """
    ok = [t for t in facts.toolkits.toolkits if t.version and t.complete and qualifies(facts, ctx, t.version)]
    if not ok:
        return None
    active = active_toolkit(facts)
    if active is not None and any(t is active for t in ok):
        return active
    return max(ok, key=lambda t: vkey(t.version or "0"))


def install_version(facts: Facts, ctx: Context) -> str | None:
    """The CUDA version (major.minor) to install when no installed toolkit qualifies: PyTorch's own
    CUDA (extensions then match it exactly), else the driver's CUDA (the newest it runs fully), else the
    newest CUDA of PyTorch's major in the matrix that qualifies (extensions build with any minor of that major:
    PyTorch 2.1 cu121 on a Blackwell GPU and a CUDA 13 driver takes 12.9, the newest CUDA 12, which 12.1 and 13.0 are not)."""
    torch = facts.frameworks.torch
    candidates: list[str] = []
    if isinstance(torch, Found) and torch.value.cuda:
        # CUDA versions as the probes parsed them (digits and dots): each has a major.minor.
        candidates.append(cast(str, major_minor(torch.value.cuda)))
    if facts.driver.cuda_version:
        candidates.append(cast(str, major_minor(facts.driver.cuda_version)))
    tmajor = torch_cuda_major(facts)
    if tmajor is not None:
        candidates += sorted((c for c in ctx.matrix.cuda_versions() if major(c) == tmajor), key=vkey, reverse=True)
    for c in candidates:
        if qualifies(facts, ctx, c):
            return c
    return None


def switch_request(facts: Facts, tk: Toolkit) -> str:
    """What to pass to `gpudoctor switch-cuda` to name exactly `tk`: its major.minor, or its full version
    when another installed toolkit of the same major.minor is newer (switch-cuda's X.Y picks the newest X.Y.z)."""
    version = tk.version or ""
    mm = major_minor(version)
    newer = [
        t
        for t in facts.toolkits.toolkits
        if t is not tk and t.version and major_minor(t.version) == mm and vkey(t.version) > vkey(version)
    ]
    # `tk` is toolkit_target's: it has a version that qualifies, so a major.minor.
    return version if newer else cast(str, mm)


def _why(facts: Facts, ctx: Context, target: Toolkit | None) -> str:
    tmajor = torch_cuda_major(facts)
    # Only the rules that could be checked are named: no driver seen, no driver rule; no GPU seen, no GPU rule.
    parts = (
        ([f"of PyTorch's CUDA major ({tmajor})"] if tmajor else [])
        + (["run by this driver"] if facts.driver.version or facts.driver.cuda_version else [])
        + (["able to build for every GPU here"] if facts.driver.gpus else [])
    )
    said = ", ".join(parts) or "complete"
    if target is not None:
        said += "; the active one" if target is active_toolkit(facts) else "; the newest such"
    return said


def _use_commands(facts: Facts, request: str, root: str | None) -> tuple[tuple[Line, ...], bool]:
    """Make /usr/local/cuda (where it can be re-pointed) and this shell name the toolkit `request`."""
    tks = facts.toolkits
    out: list[Line] = []
    linux = os_name(facts) == "linux"
    if linux and tks.link.kind in ("link", "missing") and (root is None or tks.link.resolved != root):
        out.append(Cmd(("gpudoctor", "switch-cuda", request), root=True, note="re-points /usr/local/cuda for everyone"))
    shell_agrees = (
        root is not None
        and any(t.root == root and "nvcc on PATH" in t.found_via for t in tks.toolkits)
        and not any(t.root != root and set(t.found_via) & set(SHELL_VIAS) for t in tks.toolkits)
    )
    if not shell_agrees:
        out.append(EvalShell(("gpudoctor", "switch-cuda", request), note="CUDA_HOME, PATH and LD_LIBRARY_PATH of this shell"))
    return tuple(out), any(isinstance(c, Cmd) and c.root for c in out)


# Where NVIDIA's runfiles of every release are (and the runfile's `--toolkit --silent`: toolkit only, no
# driver, into /usr/local/cuda-X.Y; SOURCE_CUDA_INSTALL, "Runfile Installation", "Advanced Options").
SOURCE_CUDA_ARCHIVE = "https://developer.nvidia.com/cuda-toolkit-archive"


def runfile_hint(version: str) -> str:
    """NVIDIA's runfile, toolkit only: installs CUDA `version` (major.minor) on any distribution."""
    return (
        f"NVIDIA's CUDA {version} runfile from the CUDA Toolkit Archive ({SOURCE_CUDA_ARCHIVE}), toolkit only: "
        f"`sudo sh cuda_{version}.<update>_<driver>_linux.run --toolkit --silent` installs /usr/local/cuda-{version}"
    )


def conda_install(version: str) -> Cmd | None:
    """CUDA `version` (major.minor) inside a conda environment: conda-forge's cuda-toolkit pinned by
    cuda-version (CUDA 12 on), NVIDIA's channel label for 11.x (its labels start at 11.3); None before."""
    mj = cast(int, major(version))  # `version` is a major.minor: it has a major
    if mj >= 12:
        return Cmd(("conda", "install", "-c", "conda-forge", "cuda-toolkit", f"cuda-version={version}"))
    if vkey(major_minor(version)) >= (11, 3):
        return Cmd(("conda", "install", "-c", f"nvidia/label/cuda-{version}.0", "cuda-toolkit"))
    return None


def toolkit_install(facts: Facts, matrix: Any, version: str, meta: str = "cuda-toolkit") -> ToolkitInstall:
    """Install CUDA `version` (major.minor) from NVIDIA's repository with this distribution's package
    manager (SOURCE_CUDA_INSTALL: meta package cuda-toolkit-X-Y), where NVIDIA's repository for this
    distribution release packages it (matrix.cuda_repo_for, cuda_repos.toml). No commands where no pinned
    package exists (Arch's rolling `cuda`, Windows, unknown distributions: the summary says what to
    install), or where that repository is known not to have the version (the summary says so, and what
    to do instead). Where the matrix does not know, the commands stand with a caveat: check the repository."""
    from gpudoctor.checks.toolkit_records import ToolkitInstall

    mm = cast(str, major_minor(version))  # `version` is a major.minor (every caller's): the same again
    fam = family(facts)
    if os_name(facts) != "linux" or fam not in ("debian", "rhel", "suse"):
        return ToolkitInstall(mm, (), None)
    d = facts.platform.distro
    # The rows describe the x86_64 repositories; another architecture's repository is not asserted on.
    x86 = (facts.platform.machine or "").lower() in ("x86_64", "amd64")
    repo = matrix.cuda_repo_for(d.id, d.version_id) if x86 else None
    packaged = repo.packages(mm) if repo is not None else None
    release = d.pretty_name or " ".join(p for p in (d.id, d.version_id) if p) or "this distribution"
    # `meta`: cuda-toolkit-X-Y (the whole toolkit) or cuda-libraries-X-Y (the runtime libraries only).
    package = f"{meta}-" + mm.replace(".", "-")
    if repo is not None and packaged is False:
        has = (
            f"it has CUDA {repo.first} and newer"
            if repo.first and vkey(mm) < vkey(repo.first)
            else f"it has CUDA {repo.first} to {repo.last}"
        )
        conda = conda_install(mm)
        instead = runfile_hint(mm) + (f"; or inside a conda environment: `{posix(conda)}`" if conda else "")
        return ToolkitInstall(
            mm,
            (),
            False,
            f"CUDA {mm} is not packaged for {release} (NVIDIA's {repo.repo} repository: {has}). Instead: {instead}.",
        )
    note = f"NVIDIA's {repo.repo} repository" if repo is not None else "NVIDIA's CUDA repository"
    commands: list[Line] = []
    if fam == "debian":
        if repo is not None:
            commands += cuda_keyring(repo.repo)
        commands += [Cmd(("apt-get", "update"), root=True), Cmd(("apt-get", "install", "-y", package), root=True, note=note)]
    elif fam == "rhel":
        commands.append(Cmd(("dnf", "install", "-y", package), root=True, note=note))
    else:
        commands.append(Cmd(("zypper", "install", "-y", package), root=True, note=note))
    says = "" if packaged else f"Check that NVIDIA's repository for {release} has {package}."
    return ToolkitInstall(mm, tuple(commands), packaged, says)


def toolkit_fix(facts: Facts, ctx: Context) -> ToolkitFix:
    """The commands every toolkit finding prints: the same target, the same version, everywhere."""
    from gpudoctor.checks.toolkit_records import ToolkitFix

    target = toolkit_target(facts, ctx)
    why = _why(facts, ctx, target)
    if target is not None:
        request = switch_request(facts, target)
        commands, root = _use_commands(facts, request, target.root)
        return ToolkitFix(request, target, commands, root, why)
    version = install_version(facts, ctx)
    if version is None:
        unchosen = torch_cuda_major(facts) is None and not (facts.driver.version or facts.driver.cuda_version)
        return ToolkitFix(None, None, (), False, why, unchosen=unchosen)
    install = toolkit_install(facts, ctx.matrix, version)
    use, _ = _use_commands(facts, version, None) if install.commands else ((), False)
    return ToolkitFix(version, None, install.commands + use, bool(install.commands), why, install)


def check_link(facts: Facts, ctx: Context) -> Iterable[Finding]:
    link = facts.toolkits.link
    if link.kind != "link" or link.resolved is not None:
        return
    if not absence_known(facts, link.target or link.path):
        return  # partial evidence showed the link, not what is at its target: unknown, not dangling
    fix = toolkit_fix(facts, ctx)
    yield Finding(
        "cuda-link-dangling",
        Severity.ERROR,
        "toolkit",
        f"/usr/local/cuda points to {link.target}, which does not exist",
        "Builds and programs that use /usr/local/cuda (most do: CMake's FindCUDAToolkit, PyTorch extensions, "
        "Makefiles) fail with missing nvcc or headers. This usually follows uninstalling the toolkit it pointed to.",
        (ev("file:/usr/local/cuda", f"-> {link.target} (missing)"),),
        fix.remediation("Point /usr/local/cuda at an installed toolkit (`gpudoctor switch-cuda` does it atomically)."),
    )


def check_newer_than_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    d = facts.driver
    driver_cuda = d.cuda_version
    if not (d.version and driver_cuda):
        return  # no reachable driver: the driver checks already said so
    active = active_toolkit(facts) or nvcc_only_toolkit(facts)
    fix = toolkit_fix(facts, ctx)
    for tk in judged_toolkits(facts):
        if not tk.version or vkey(major_minor(tk.version)) <= vkey(driver_cuda):
            continue
        verdict = ctx.matrix.driver_supports_cuda(d.version, tk.version, os_name(facts))
        needed = verdict.needed or verdict.floor or "a newer driver"  # a release the matrix does not know yet
        is_active = tk is active or (active is not None and tk.root == active.root)
        if verdict.ok:
            severity = Severity.WARNING if is_active else Severity.INFO
            detail = (
                f"The driver {d.version} supports CUDA {driver_cuda}; CUDA {major_minor(tk.version)} programs run on it only "
                f"through minor version compatibility (driver >= {verdict.floor}). Features that need a newer driver fail, "
                "and PTX this toolkit generates cannot be JIT-compiled by this driver ('the provided PTX was compiled with "
                "an unsupported toolchain')."
            )
        else:
            severity = Severity.ERROR if is_active else Severity.WARNING
            detail = (
                f"The driver {d.version} supports CUDA up to {driver_cuda}; CUDA {major_minor(tk.version)} needs driver "
                f">= {needed}. Programs built with it fail with 'CUDA driver version is insufficient for CUDA runtime version'."
            )
        yield Finding(
            "toolkit-newer-than-driver",
            severity,
            "toolkit",
            f"CUDA toolkit {tk.version} at {tk.root} is newer than the driver supports (CUDA {driver_cuda})"
            + ("" if is_active else " (not the active toolkit)"),
            detail,
            (
                ev(f"toolkit:{tk.root}", f"{tk.version} ({tk.version_source})"),
                ev("nvml" if d.nvml_cuda_version else "cmd:nvidia-smi", f"driver {d.version}, CUDA {driver_cuda}"),
            ),
            fix.remediation(
                f"CUDA {major_minor(tk.version)} is the toolkit to use here; it runs through minor version compatibility, "
                f"and a driver >= {needed} would run it fully."
                if fix.target is tk
                else f"Upgrade the driver to >= {needed} to use CUDA {major_minor(tk.version)}, or:"
            ),
            verdict.source,
        )


def check_paths_disagree(facts: Facts, ctx: Context) -> Iterable[Finding]:
    tks = facts.toolkits
    named: dict[str, list[str]] = {}
    for tk in tks.toolkits:
        for via in tk.found_via:
            if via in ("nvcc on PATH", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH", "/usr/local/cuda link"):
                named.setdefault(tk.root, []).append(via)
    if len(named) < 2:
        return
    described = "; ".join(f"{', '.join(vias)} -> {root}" for root, vias in sorted(named.items()))
    versions = {root: (found_tk.version if (found_tk := tks.by_root(root)) else None) for root in named}
    yield Finding(
        "cuda-paths-disagree",
        Severity.WARNING,
        "toolkit",
        "CUDA_HOME, nvcc on PATH, /usr/local/cuda and LD_LIBRARY_PATH name different toolkits",
        f"{described}. A build then compiles with one toolkit and links or runs against another "
        "(undefined symbols, 'no kernel image', version mismatch errors).",
        tuple(ev(f"toolkit:{root}", f"{versions[root] or '?'} via {', '.join(vias)}") for root, vias in sorted(named.items())),
        toolkit_fix(facts, ctx).remediation("Make them name one toolkit, system-wide and in this shell."),
    )


# --- toolkit-torch-major-mismatch: two ways to the same end ----------------------------------------
#
# Extensions build when nvcc and PyTorch have one CUDA major. Either side can move: the toolkit to
# PyTorch's major (toolkit_fix, the toolkit decision every toolkit finding shares) or PyTorch to a
# build of nvcc's major (torch_side, chosen by install.plan.plan_install). Real threads chose both
# (tests/real: transfuser, vllm, era3d moved the toolkit; embodiedocc2, pytorch-sparse moved PyTorch).
# The finding offers the smaller move first and the other as its alternative, never both as steps.
# The smaller move is the toolkit's whenever toolkit_fix has one: it leaves the Python environment, and
# every extension already built against its PyTorch (torch-scatter wheels for cu102, say), as it is,
# while another PyTorch build moves them all (the transfuser maintainer's "a lot of work").


def _torch_requests(ctx: Context, installed: str) -> list[str]:
    """The releases to ask plan_install for, nearest first: the installed version and its release, then
    newer releases oldest first (the smallest upgrade), then older ones newest first."""
    from gpudoctor.matrix import version_key

    base = installed.split("+", 1)[0]
    here = ctx.matrix.torch_release(base)
    releases = sorted((r.version for r in ctx.matrix.torch_releases), key=version_key)
    now = version_key(here.version if here else ".".join(base.split(".")[:2]))
    newer = [r for r in releases if version_key(r) > now]
    older = [r for r in reversed(releases) if version_key(r) < now]
    return ([base, here.version] if here else []) + newer + older


def torch_side(facts: Facts, ctx: Context, nvcc: str) -> TorchSide | None:
    """The PyTorch build whose extensions `nvcc` builds: of nvcc's CUDA major and no newer (plan_install's
    `nvcc` option), in the installed release when it has one, else the nearest release that fits this
    Python (and driver, and GPUs). None when none does. With no driver seen nvcc's CUDA bounds the
    choice, and the summary says which driver the build needs."""
    from gpudoctor.checks.toolkit_records import TorchSide
    from gpudoctor.errors import UsageError
    from gpudoctor.planner.judge import driver_needs
    from gpudoctor.planner.model import Target
    from gpudoctor.planner.plan import Options, TargetNeeded, plan_install

    torch = facts.frameworks.torch
    if not isinstance(torch, Found):
        return None
    installed = torch.value.version
    mm = cast(str, major_minor(nvcc))  # nvcc's version as the probe parsed it (digits): it has one
    here = ctx.matrix.torch_release(installed.split("+", 1)[0])
    for requested in _torch_requests(ctx, installed):
        options = Options(nvcc=mm)
        unseen = False
        try:
            try:
                plan = plan_install(facts, ctx, "torch", requested, options=options)
            except TargetNeeded:
                # Neither driver nor GPU seen: nvcc decides the CUDA major, so plan as for a driver that runs nvcc's CUDA.
                plan = plan_install(facts, ctx, "torch", requested, options=replace(options, target=Target(cuda=mm)))
                unseen = True
        except UsageError:
            continue  # a release the matrix cannot plan (a pre-release version string): the next one
        if not (plan.fits and plan.steps):
            continue
        assert plan.chosen is not None  # what Plan.fits means
        build = plan.chosen.build
        note = ""
        if unseen:
            assert build.cuda is not None  # Options.nvcc admits CUDA builds only
            lowest, full = driver_needs(ctx.matrix, build.cuda, os_name(facts))
            if lowest:
                need = f"a driver >= {lowest}" + (
                    f" (>= {full} for full CUDA {build.cuda} support)" if full and full != lowest else ""
                )
            else:
                need = f"a driver that runs CUDA {build.cuda}"
            note = f"no NVIDIA driver was seen here, so it was not checked against one: it needs {need}"
        from gpudoctor.planner.render import as_cmd

        steps = tuple(as_cmd(s.argv) for s in plan.steps)
        commands, dropped = old_major_wheels_dropped(facts, ctx, build, steps)
        return TorchSide(plan, mm, here is not None and build.release == here.version, note, commands[len(steps) :], dropped)
    return None


def torch_major_remediation(facts: Facts, ctx: Context, nvcc: str) -> Remediation:
    """The toolkit side first (toolkit_fix: the same decision as every toolkit finding and `gpudoctor fix`),
    PyTorch's side as its alternative; PyTorch's side first only where the toolkit has no move: no CUDA
    version of PyTorch's major fits this driver and every GPU here, or NVIDIA's repository for this
    distribution release does not package it (a runfile or conda install of an old toolkit on a newer
    distribution is more work, and its compiler support may lag the distribution's gcc)."""
    tmajor = torch_cuda_major(facts)
    fix = toolkit_fix(facts, ctx)
    toolkit = fix.remediation(f"Build extensions with a CUDA {tmajor}.x toolkit.")
    side = torch_side(facts, ctx, nvcc)
    if side is None:
        return replace(
            toolkit,
            summary=toolkit.summary
            + (
                f" (No PyTorch build in the compatibility matrix has CUDA {major(nvcc)} no newer than {major_minor(nvcc)} "
                "and fits this machine, so the toolkit is the side to move.)"
            ),
        )
    other = side.remediation()
    return replace(toolkit, alternative=other) if fix.moves else replace(other, alternative=toolkit)


def check_torch_major(facts: Facts, ctx: Context) -> Iterable[Finding]:
    torch = facts.frameworks.torch
    tk = extension_toolkit(facts)
    nvcc_version = tk.version if tk and tk.version else facts.toolkits.nvcc_on_path_version
    if not (isinstance(torch, Found) and torch.value.cuda and nvcc_version):
        return
    if major(nvcc_version) == major(torch.value.cuda):
        return
    yield Finding(
        "toolkit-torch-major-mismatch",
        Severity.WARNING,
        "toolkit",
        f"CUDA extensions would build with CUDA {major_minor(nvcc_version)}"
        + (f" ({tk.root})" if tk else "")
        + f" but PyTorch was built with CUDA {torch.value.cuda}",
        "PyTorch runs on its own bundled CUDA runtime, so this does not affect running models; but building "
        "CUDA extensions (pip install of flash-attn, apex, custom ops, torch.utils.cpp_extension) needs an nvcc of "
        "the same CUDA major and fails with 'The detected CUDA version mismatches the version that was used to compile PyTorch'. "
        "Either side can move: a toolkit of PyTorch's CUDA major, or a PyTorch build of nvcc's.",
        (
            ev(
                f"toolkit:{tk.root}" if tk else "cmd:nvcc --version",
                f"{nvcc_version} via {', '.join(tk.found_via) if tk else 'PATH'}",
            ),
            ev(torch.source, f"torch {torch.value.version}, CUDA {torch.value.cuda}"),
        ),
        torch_major_remediation(facts, ctx, nvcc_version),
    )


def check_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    tk = active_toolkit(facts) or nvcc_only_toolkit(facts)
    if tk is None or not tk.version:
        return
    for g in facts.driver.gpus:
        cc = gpu_cc(g, ctx)
        if not cc:
            continue
        can = ctx.matrix.cuda_can_target(tk.version, cc)
        if can is not False:
            continue
        low, high = ctx.matrix.cuda_cc_range(tk.version) or ("?", "?")
        target = ctx.matrix.cc_target(cc)
        fix = toolkit_fix(facts, ctx)
        lead = "Use a toolkit that supports this GPU (newer GPUs need newer CUDA; CUDA 13 dropped Maxwell, Pascal and Volta)."
        if fix.unchosen and target is not None and target.first_cuda and not target.last_cuda:
            # (with no version chosen, the GPU's own floor is what the text does decide: gpu_arch.toml's first_cuda)
            lead += f" CUDA {target.first_cuda} or newer compiles for compute capability {cc}."
        remedy = same_major_build(facts, cc, high, fix.remediation(lead))
        if (
            target is not None
            and target.last_cuda
            and not any(ctx.matrix.cuda_can_target(c, cc) for c in ctx.matrix.cuda_versions())
        ):
            # A GPU no toolkit of the matrix targets (compute capability 1.x, dropped by CUDA 7.0): another toolkit is no fix.
            from gpudoctor.planner.legacy_gpus import legacy_gpu, no_driver_remedy

            if (old := legacy_gpu(facts, ctx)) is not None:
                remedy = no_driver_remedy(old)
        yield Finding(
            "toolkit-arch-unsupported",
            Severity.WARNING,
            "toolkit",
            f"nvcc {major_minor(tk.version)} cannot build for GPU {g.index} ({g.name}, compute capability {cc})",
            f"CUDA {major_minor(tk.version)} targets compute capabilities {low} to {high}. Code compiled with it has no "
            f"kernels for sm_{cc.replace('.', '')}: 'nvcc fatal: Unsupported gpu architecture' at build time, or "
            "'no kernel image is available for execution on the device' at run time.",
            (ev(f"toolkit:{tk.root}", tk.version), ev(g.source, f"{g.name}: {cc}")),
            remedy,
            target.source if target else (),
        )


def same_major_build(facts: Facts, cc: str, high: str, fix: Any) -> Any:
    """A PyTorch extension built by this nvcc can still run on the GPU where the newest architecture it targets is of
    the GPU's major (8.0 for an 8.6 GPU): cubins of one major run on its later minors (NVIDIA's CUDA C++ Programming
    Guide, "Binary Compatibility"), and PyTorch's extension builder reads the architectures from TORCH_CUDA_ARCH_LIST
    (torch/utils/cpp_extension.py, _get_cuda_arch_flags), "+PTX" adding PTX the driver compiles for the GPU."""
    from gpudoctor.cmdline import SetEnv
    from gpudoctor.probed import Found

    torch = facts.frameworks.torch
    if not isinstance(torch, Found) or not torch.value.cuda or fix.alternative is not None:
        return fix  # (a CPU build of torch builds no CUDA extension)
    major = cc.split(".")[0]
    if major != high.split(".")[0]:
        return fix
    # The major's first architecture (8.0 for 8.6): every toolkit targeting the major has it, and it is no Tegra
    # part's (8.7 is Jetson Orin's), whose cubins nobody builds for a discrete GPU.
    high = f"{major}.0"
    # The smaller change comes first: the same nvcc and the same torch, whose extension builder was made for that
    # toolkit (a torch before 1.10 checks no toolkit version at all, later ones refuse another CUDA major), while a
    # new toolkit is an install beside the old one. The toolkit stays the alternative, for native sm_XY code.
    return Remediation(
        f"Keep this nvcc and build the extension for compute capability {high} with PTX, which runs on the GPU's "
        f"{cc} (same major); then rebuild the extension from a clean build directory.",
        (
            SetEnv("TORCH_CUDA_ARCH_LIST", f"{high}+PTX", note="the architectures PyTorch's extension builder compiles for"),
            *_rebuild_in_checkout(facts),
        ),
        component="environment",
        alternative=fix,
    )


def _rebuild_in_checkout(facts: Facts) -> tuple[Any, ...]:
    """The clean rebuild where the text shows the one source checkout an extension is built in (an absolute path): its
    build directory removed (setuptools would link the objects of the failed build again), then an editable install
    against the installed torch (--no-build-isolation: an isolated build would fetch another torch)."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.facts import SOURCE_CHECKOUT
    from gpudoctor.planner.remedy import pip

    dirs = {c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == SOURCE_CHECKOUT and c.get("means")}
    if len(dirs) != 1:
        return ()
    (checkout,) = dirs
    if not checkout.startswith("/"):
        return ()
    return (
        Cmd(("rm", "-rf", f"{checkout.rstrip('/')}/build")),
        pip(facts, "install", "--no-build-isolation", "-e", checkout),
    )


CHECKS = (
    Check("cuda-link", "toolkit", ("cuda-link-dangling",), check_link),
    Check("toolkit-driver", "toolkit", ("toolkit-newer-than-driver",), check_newer_than_driver),
    Check("cuda-paths", "toolkit", ("cuda-paths-disagree",), check_paths_disagree),
    Check("toolkit-torch", "toolkit", ("toolkit-torch-major-mismatch",), check_torch_major),
    Check("toolkit-arch", "toolkit", ("toolkit-arch-unsupported",), check_arch),
)
