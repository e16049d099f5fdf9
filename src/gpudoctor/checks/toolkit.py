"""CUDA toolkits: the /usr/local/cuda link, which toolkit each path names, and whether the
driver and the GPU can use what the toolkit builds.

Rules (sources: cuda-release-notes for the toolkit-driver table and minor
version compatibility, cuda-compat-guide for its limits):
- a toolkit newer than the driver's CUDA runs only within the same major,
  on a driver at or above that major's minor-version floor, and even then
  PTX it generates cannot be JIT-compiled by the older driver;
- nvcc can target only the compute capabilities its release supports.
"""

from __future__ import annotations

from typing import Iterable

from gpudoctor.checks import Check, Context, ev
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


def check_link(facts: Facts, ctx: Context) -> Iterable[Finding]:
    link = facts.toolkits.link
    if link.kind != "link" or link.resolved is not None:
        return
    installed = [t for t in facts.toolkits.toolkits if t.root != link.path]
    commands = tuple(f"sudo ln -sfn {t.root} /usr/local/cuda.new && sudo mv -T /usr/local/cuda.new /usr/local/cuda" for t in installed[:1])
    yield Finding(
        "cuda-link-dangling",
        Severity.ERROR,
        "toolkit",
        f"/usr/local/cuda points to {link.target}, which does not exist",
        "Builds and programs that use /usr/local/cuda (most do: CMake's FindCUDAToolkit, PyTorch extensions, "
        "Makefiles) fail with missing nvcc or headers. This usually follows uninstalling the toolkit it pointed to.",
        (ev("file:/usr/local/cuda", f"-> {link.target} (missing)"),),
        Remediation(
            "Point it at an installed toolkit ("
            + (", ".join(t.root for t in installed) if installed else "none is installed: install one first")
            + "); `gpudoctor switch-cuda VERSION` does this atomically.",
            commands,
            requires_root=True,
        ),
    )


def check_newer_than_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    d = facts.driver
    driver_cuda = d.cuda_version
    if not (d.version and driver_cuda):
        return  # no reachable driver: the driver checks already said so
    active = active_toolkit(facts)
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
            Remediation(
                f"Upgrade the driver to >= {needed}, or use a toolkit no newer than CUDA {driver_cuda}.",
                _older_toolkit_commands(facts, driver_cuda),
            ),
            verdict.source,
        )


def _older_toolkit_commands(facts: Facts, driver_cuda: str) -> tuple[str, ...]:
    fitting = [t for t in facts.toolkits.toolkits if t.version and vkey(major_minor(t.version)) <= vkey(driver_cuda)]
    if fitting:
        best = max(fitting, key=lambda t: vkey(t.version))
        return (f"gpudoctor switch-cuda {major_minor(best.version)}", "nvidia-smi  # after a driver upgrade: 'CUDA Version' in the header")
    return ("gpudoctor switch-cuda --list", "nvidia-smi  # after a driver upgrade: 'CUDA Version' in the header")


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
    target = active_toolkit(facts)
    yield Finding(
        "cuda-paths-disagree",
        Severity.WARNING,
        "toolkit",
        "CUDA_HOME, nvcc on PATH, /usr/local/cuda and LD_LIBRARY_PATH name different toolkits",
        f"{described}. A build then compiles with one toolkit and links or runs against another "
        "(undefined symbols, 'no kernel image', version mismatch errors).",
        tuple(ev(f"toolkit:{root}", f"{versions[root] or '?'} via {', '.join(vias)}") for root, vias in sorted(named.items())),
        Remediation(
            "Make them agree for this shell (or system-wide with `gpudoctor switch-cuda VERSION`).",
            (f'eval "$(gpudoctor switch-cuda {major_minor(target.version)} --shell)"',) if target and target.version else (),
        ),
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
        Remediation(
            f"Use a CUDA {major(torch.value.cuda)}.x toolkit when building extensions, or a PyTorch build for CUDA {major(nvcc_version)}.",
            (f'eval "$(gpudoctor switch-cuda {major(torch.value.cuda)} --shell)"',),
        ),
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
            Remediation(
                "Install and use a toolkit that supports this GPU (newer GPUs need newer CUDA; CUDA 13 dropped Maxwell, Pascal and Volta).",
                ("gpudoctor switch-cuda --list",),
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
