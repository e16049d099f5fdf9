"""CUDA toolkits: the /usr/local/cuda link, which toolkit each path names, and whether the
driver and the GPU can use what the toolkit builds.

Rules (sources: cuda-release-notes for the toolkit-driver table and minor
version compatibility, cuda-compat-guide for its limits):
- a toolkit newer than the driver's CUDA runs only within the same major,
  on a driver at or above that major's minor-version floor, and even then
  PTX it generates cannot be JIT-compiled by the older driver;
- nvcc can target only the compute capabilities its release supports.

Every toolkit finding's fix takes its target from one decision, `toolkit_target`: the installed
toolkit this machine should use. The fixes therefore agree (one plan step, gpudoctor.prescribe),
and `gpudoctor fix` switches to the same toolkit. When none qualifies, `toolkit_fix` says what to
install, with NVIDIA's package names for this distribution (CUDA Installation Guide for Linux,
SOURCE_CUDA_INSTALL: the `cuda-toolkit-X-Y` meta packages install /usr/local/cuda-X.Y).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from gpudoctor.checks import Check, Context, ev
from gpudoctor.checks.remedy import family
from gpudoctor.cmdline import Cmd, EvalShell, Line
from gpudoctor.facts import Facts, Gpu, Toolkit
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.probed import Found
from gpudoctor.versions import major, major_minor, vkey


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


def gpu_cc(gpu: Gpu, ctx: Context) -> str | None:
    """A GPU's compute capability: NVML's, else the matrix's entry for its name."""
    if gpu.compute_capability:
        return gpu.compute_capability
    return ctx.matrix.compute_capability_for_gpu(gpu.name) if gpu.name else None


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
    return (
        (tmajor is None or major(cuda) == tmajor)
        and driver_runs(facts, ctx, cuda)
        and _builds_for_every_gpu(facts, ctx, cuda)
    )


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
    CUDA (extensions then match it exactly), else the driver's CUDA (the newest it runs fully)."""
    torch = facts.frameworks.torch
    candidates = []
    if isinstance(torch, Found) and torch.value.cuda:
        candidates.append(major_minor(torch.value.cuda))
    if facts.driver.cuda_version:
        candidates.append(major_minor(facts.driver.cuda_version))
    for c in candidates:
        if qualifies(facts, ctx, c):
            return c
    return None


def switch_request(facts: Facts, tk: Toolkit) -> str:
    """What to pass to `gpudoctor switch-cuda` to name exactly `tk`: its major.minor, or its full version
    when another installed toolkit of the same major.minor is newer (switch-cuda's X.Y picks the newest X.Y.z)."""
    version = tk.version or ""
    mm = major_minor(version)
    newer = [t for t in facts.toolkits.toolkits if t is not tk and t.version and major_minor(t.version) == mm and vkey(t.version) > vkey(version)]
    return version if newer else mm


@dataclass(frozen=True)
class ToolkitFix:
    """The toolkit step of the plan: switch to an installed toolkit, or install one and then switch."""

    version: str | None  # what switch-cuda is given (12.5), or the version to install (12.1); None: nothing fits
    target: Toolkit | None  # the installed toolkit, when one qualifies
    commands: tuple[Line, ...]
    requires_root: bool
    why: str = ""  # what made it the choice

    @property
    def installs(self) -> bool:
        return self.target is None and self.version is not None

    def says(self) -> str:
        """One sentence for a remediation's summary."""
        if self.target is not None:
            return f"Use CUDA {self.version} ({self.target.root}): {self.why}."
        if self.version is not None:
            return f"Install CUDA {self.version}, then use it: no installed toolkit is {self.why}."
        return "No CUDA version fits PyTorch's CUDA major, this driver and every GPU here: change the PyTorch build or the driver first."

    def remediation(self, lead: str = "") -> Remediation:
        summary = f"{lead} {self.says()}".strip()
        return Remediation(summary, self.commands, requires_root=self.requires_root, component="toolkit")


def _why(facts: Facts, ctx: Context, target: Toolkit | None) -> str:
    tmajor = torch_cuda_major(facts)
    parts = ([f"of PyTorch's CUDA major ({tmajor})"] if tmajor else []) + ["run by this driver", "able to build for every GPU here"]
    said = ", ".join(parts)
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
    shell_agrees = root is not None and any(
        t.root == root and "nvcc on PATH" in t.found_via for t in tks.toolkits
    ) and not any(t.root != root and set(t.found_via) & set(SHELL_VIAS) for t in tks.toolkits)
    if not shell_agrees:
        out.append(EvalShell(("gpudoctor", "switch-cuda", request), note="CUDA_HOME, PATH and LD_LIBRARY_PATH of this shell"))
    return tuple(out), any(isinstance(c, Cmd) and c.root for c in out)


def install_commands(facts: Facts, version: str) -> tuple[Line, ...]:
    """Install CUDA `version` (major.minor) from NVIDIA's repository with this distribution's package
    manager (SOURCE_CUDA_INSTALL: meta package cuda-toolkit-X-Y). Empty where no pinned package exists
    (Arch's rolling `cuda`, Windows, unknown distributions): the summary then says what to install."""
    if os_name(facts) != "linux":
        return ()
    package = "cuda-toolkit-" + "-".join(major_minor(version).split("."))
    note = "NVIDIA's CUDA repository"
    fam = family(facts)
    if fam == "debian":
        return (Cmd(("apt-get", "update"), root=True), Cmd(("apt-get", "install", "-y", package), root=True, note=note))
    if fam == "rhel":
        return (Cmd(("dnf", "install", "-y", package), root=True, note=note),)
    if fam == "suse":
        return (Cmd(("zypper", "install", "-y", package), root=True, note=note),)
    return ()


def toolkit_fix(facts: Facts, ctx: Context) -> ToolkitFix:
    """The commands every toolkit finding prints: the same target, the same version, everywhere."""
    target = toolkit_target(facts, ctx)
    why = _why(facts, ctx, target)
    if target is not None:
        request = switch_request(facts, target)
        commands, root = _use_commands(facts, request, target.root)
        return ToolkitFix(request, target, commands, root, why)
    version = install_version(facts, ctx)
    if version is None:
        return ToolkitFix(None, None, (), False, why)
    install = install_commands(facts, version)
    use, _ = _use_commands(facts, version, None) if install else ((), False)
    return ToolkitFix(version, None, install + use, bool(install), why)



def check_link(facts: Facts, ctx: Context) -> Iterable[Finding]:
    link = facts.toolkits.link
    if link.kind != "link" or link.resolved is not None:
        return
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
    active = active_toolkit(facts)
    fix = toolkit_fix(facts, ctx)
    for tk in facts.toolkits.toolkits:
        if not tk.version or vkey(major_minor(tk.version)) <= vkey(driver_cuda):
            continue
        verdict = ctx.matrix.driver_supports_cuda(d.version, tk.version, os_name(facts))
        needed = verdict.needed or verdict.floor or "a newer driver"  # a release the matrix does not know yet
        is_active = tk is active
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
            (ev(f"toolkit:{tk.root}", f"{tk.version} ({tk.version_source})"), ev("nvml" if d.nvml_cuda_version else "cmd:nvidia-smi", f"driver {d.version}, CUDA {driver_cuda}")),
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
    versions = {root: (tks.by_root(root).version if tks.by_root(root) else None) for root in named}
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
        "the same CUDA major and fails with 'The detected CUDA version mismatches the version that was used to compile PyTorch'.",
        (
            ev(f"toolkit:{tk.root}" if tk else "cmd:nvcc --version", f"{nvcc_version} via {', '.join(tk.found_via) if tk else 'PATH'}"),
            ev(torch.source, f"torch {torch.value.version}, CUDA {torch.value.cuda}"),
        ),
        toolkit_fix(facts, ctx).remediation(f"Build extensions with a CUDA {major(torch.value.cuda)}.x toolkit."),
    )


def check_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    tk = active_toolkit(facts)
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
        yield Finding(
            "toolkit-arch-unsupported",
            Severity.WARNING,
            "toolkit",
            f"nvcc {major_minor(tk.version)} cannot build for GPU {g.index} ({g.name}, compute capability {cc})",
            f"CUDA {major_minor(tk.version)} targets compute capabilities {low} to {high}. Code compiled with it has no "
            f"kernels for sm_{cc.replace('.', '')}: 'nvcc fatal: Unsupported gpu architecture' at build time, or "
            "'no kernel image is available for execution on the device' at run time.",
            (ev(f"toolkit:{tk.root}", tk.version), ev(g.source, f"{g.name}: {cc}")),
            toolkit_fix(facts, ctx).remediation(
                "Use a toolkit that supports this GPU (newer GPUs need newer CUDA; CUDA 13 dropped Maxwell, Pascal and Volta)."
            ),
            target.source if target else (),
        )


CHECKS = (
    Check("cuda-link", "toolkit", ("cuda-link-dangling",), check_link),
    Check("toolkit-driver", "toolkit", ("toolkit-newer-than-driver",), check_newer_than_driver),
    Check("cuda-paths", "toolkit", ("cuda-paths-disagree",), check_paths_disagree),
    Check("toolkit-torch", "toolkit", ("toolkit-torch-major-mismatch",), check_torch_major),
    Check("toolkit-arch", "toolkit", ("toolkit-arch-unsupported",), check_arch),
)
