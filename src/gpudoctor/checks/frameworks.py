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
from typing import Iterable

from gpudoctor.checks import Check, Context, ev
from gpudoctor.checks.driver import gpu_present
from gpudoctor.checks.remedy import driver_install, pip
from gpudoctor.checks.toolkit import gpu_cc, os_name
from gpudoctor.facts import Facts, LibDir, TensorflowFacts, TorchFacts
from gpudoctor.loader import resolve_library
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.probed import Found
from gpudoctor.versions import major, major_minor, vkey

TORCH_INDEX = "https://download.pytorch.org/whl"
_JAX_CUDA_PLUGIN = re.compile(r"^jax-cuda(\d+)-(plugin|pjrt)$")


# --- shared helpers, also used by the cuDNN checks ---------------------------------


def torch_cuda(facts: Facts) -> TorchFacts | None:
    t = facts.frameworks.torch
    return t.value if isinstance(t, Found) and t.value.cuda else None


def tf_gpu(facts: Facts) -> TensorflowFacts | None:
    """A TensorFlow that wants a GPU: a CUDA build, or tensorflow-gpu whose build_info was unreadable."""
    t = facts.frameworks.tensorflow
    if not isinstance(t, Found):
        return None
    tf = t.value
    if tf.distribution == "tensorflow-cpu" or tf.is_cuda_build is False:
        return None
    if tf.is_cuda_build is None and tf.distribution != "tensorflow-gpu":
        return None
    return tf


def tf_cuda(facts: Facts, ctx: Context, tf: TensorflowFacts) -> str | None:
    if tf.cuda:
        return tf.cuda
    row = ctx.matrix.tensorflow_release(tf.version)
    return row.cuda if row else None


def jax_cuda_major(facts: Facts) -> int | None:
    """The CUDA major of an installed JAX CUDA plugin (or a jaxlib+cudaNN build), if any."""
    j = facts.frameworks.jax
    if not isinstance(j, Found):
        return None
    for name in j.value.plugins:
        m = _JAX_CUDA_PLUGIN.match(name)
        if m:
            return int(m.group(1))
    local = re.search(r"\+cuda(\d+)", j.value.jaxlib or "")
    return int(local.group(1)) if local else None


def ld_dirs(facts: Facts) -> tuple[LibDir, ...]:
    return facts.ld_library_path


def ldconfig_cache(facts: Facts) -> dict[str, tuple[str, ...]] | None:
    return facts.ldconfig.value if isinstance(facts.ldconfig, Found) else None


def runs_on(archs: Iterable[str], cc: str) -> bool | None:
    """Whether kernels listed as sm_XY / compute_XY (or "X.Y" cubins) run on compute capability `cc`:
    gpudoctor.matrix.kernel_route on the list split into cubins and PTX; None when nothing is listed."""
    from gpudoctor.matrix import kernel_route

    listed = [a.strip() for a in archs]
    ptx = [a for a in listed if a.lower().startswith("compute_")]
    route, _ = kernel_route([a for a in listed if a not in ptx], ptx, cc)
    return None if route == "unknown" else route != "none"


def _best_torch_variant(facts: Facts, ctx: Context, torch_version: str) -> str | None:
    """The CUDA variant of this PyTorch release that fits this machine best (driver, every GPU, Python), as its index tag."""
    from gpudoctor.install.plan import torch_variant_for  # local: install.plan imports the checks

    return torch_variant_for(facts, ctx, torch_version)


def torch_reinstall(facts: Facts, ctx: Context, torch_version: str) -> tuple[str, ...]:
    tag = _best_torch_variant(facts, ctx, torch_version)
    base = torch_version.split("+", 1)[0]
    if tag is None:
        return torch_for_machine(facts, ctx)
    return (pip(facts, "install", "--force-reinstall", f"torch=={base}", "--index-url", f"{TORCH_INDEX}/{tag}"),)


def torch_for_machine(facts: Facts, ctx: Context) -> tuple[str, ...]:
    """The newest PyTorch build whose CUDA this driver runs and that has kernels for every GPU here (gpudoctor install's choice)."""
    from gpudoctor.install.plan import newest_torch  # local: install.plan imports the checks

    best = newest_torch(facts, ctx)
    if best is None:
        return ("# no PyTorch release in the matrix fits this driver and GPU: upgrade the driver first",)
    release, tag = best
    return (pip(facts, "install", "--force-reinstall", f"'torch=={release}.*'", "--index-url", f"{TORCH_INDEX}/{tag}"),)


# --- checks ------------------------------------------------------------------------


def check_cpu_build(facts: Facts, ctx: Context) -> Iterable[Finding]:
    if not gpu_present(facts):
        return
    fw = facts.frameworks
    t = fw.torch
    if isinstance(t, Found) and t.value.build_known and not t.value.cuda and not t.value.hip:
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            f"PyTorch {t.value.version} is a CPU-only build, so it cannot use the NVIDIA GPU",
            "torch.cuda.is_available() is False with this build whatever the driver does: it contains no CUDA code. "
            "This usually comes from a plain `pip install torch` on a platform whose default wheel is CPU-only, "
            "or a +cpu index.",
            (ev(t.source, f"torch {t.value.version}, torch.version.cuda = None"),),
            Remediation("Reinstall PyTorch from the CUDA index that fits this driver.", torch_reinstall(facts, ctx, t.value.version)),
        )
    tf = fw.tensorflow
    row = ctx.matrix.tensorflow_release(tf.value.version) if isinstance(tf, Found) else None
    windows_without_gpu = os_name(facts) == "windows" and not (row is not None and row.windows_gpu)
    if (
        isinstance(tf, Found)
        and (tf.value.distribution == "tensorflow-cpu" or tf.value.is_cuda_build is False)
        and not windows_without_gpu  # framework-windows-native-gpu says the real cause there
    ):
        spec = "tensorflow[and-cuda]" if row is not None and row.and_cuda else "tensorflow"
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            f"{tf.value.distribution} {tf.value.version} is built without CUDA, so it cannot use the NVIDIA GPU",
            "tf.config.list_physical_devices('GPU') stays empty with a CPU-only build.",
            (ev(tf.source, f"is_cuda_build = {tf.value.is_cuda_build}"),),
            Remediation(
                "Install the CUDA-enabled TensorFlow package.",
                (pip(facts, "uninstall", "-y", tf.value.distribution), pip(facts, "install", f"'{spec}=={tf.value.version}'")),
            ),
        )
    j = fw.jax
    if isinstance(j, Found) and jax_cuda_major(facts) is None and j.value.jax:
        driver_cuda = facts.driver.cuda_version
        extra = "cuda13" if driver_cuda and vkey(driver_cuda) >= (13,) else "cuda12"
        yield Finding(
            "framework-cpu-build",
            Severity.ERROR,
            "frameworks",
            f"JAX {j.value.jax} has no CUDA plugin installed, so it runs on the CPU",
            "jax.devices() lists only CPU devices: jaxlib is CPU-only and the GPU support comes from the "
            "jax-cudaNN-plugin and jax-cudaNN-pjrt packages.",
            (ev("dist:jax", f"jax {j.value.jax}, jaxlib {j.value.jaxlib}, plugins: none"),),
            Remediation("Install JAX with its CUDA plugin.", (pip(facts, "install", "-U", f"'jax[{extra}]'"),)),
        )


def _driver_verdict(facts: Facts, ctx: Context, cuda: str):
    return ctx.matrix.driver_supports_cuda(facts.driver.version, cuda, os_name(facts))


def check_driver_too_old(facts: Facts, ctx: Context) -> Iterable[Finding]:
    d = facts.driver
    if not d.version:
        return  # the driver checks explain why there is no driver version
    wants: list[tuple[str, str, str]] = []  # (framework label, cuda, evidence source)
    t = torch_cuda(facts)
    if t:
        wants.append((f"PyTorch {t.version}", t.cuda, facts.frameworks.torch.source))
    tf = tf_gpu(facts)
    if tf and tf_cuda(facts, ctx, tf):
        wants.append((f"TensorFlow {tf.version}", tf_cuda(facts, ctx, tf), facts.frameworks.tensorflow.source))
    jmajor = jax_cuda_major(facts)
    if jmajor:
        jax = facts.frameworks.jax.value
        row = ctx.matrix.jax_release(jax.jax or jax.jaxlib or "0")
        jc = row.cuda.get(jmajor) if row else None
        wants.append((f"JAX {jax.jax} (CUDA {jmajor} plugin)", (jc.cuda_min if jc and jc.cuda_min else f"{jmajor}.0"), "dist:jax"))
    for label, cuda, source in wants:
        verdict = _driver_verdict(facts, ctx, cuda)
        if verdict.ok or not verdict.known:
            continue
        needed = verdict.floor if verdict.floor and major(cuda) == major(verdict.cuda) else verdict.needed
        yield Finding(
            "framework-driver-too-old",
            Severity.ERROR,
            "frameworks",
            f"{label} needs CUDA {major_minor(cuda)}, which driver {d.version} cannot run",
            f"The driver supports CUDA up to {d.cuda_version or '?'}; a CUDA {major_minor(cuda)} runtime needs driver >= "
            f"{needed or verdict.needed}. The framework fails with 'CUDA driver version is insufficient for CUDA runtime "
            "version' or reports no GPU.",
            (ev(source, f"{label}: CUDA {cuda}"), ev("nvml" if d.nvml_driver_version else "cmd:nvidia-smi", f"driver {d.version}")),
            Remediation(
                f"Upgrade the NVIDIA driver to >= {needed or verdict.needed}, or install a build for an older CUDA.",
                torch_reinstall(facts, ctx, t.version) if label.startswith("PyTorch") and t else driver_install(facts),
            ),
            verdict.source,
        )


def check_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    gpus = [(g, gpu_cc(g, ctx)) for g in facts.driver.gpus]
    gpus = [(g, cc) for g, cc in gpus if cc]
    if not gpus:
        return
    builds: list[tuple[str, tuple[str, ...], str, tuple[str, ...]]] = []  # label, archs, evidence source, sources
    t = torch_cuda(facts)
    if t:
        deep = facts.frameworks.deep.get("torch", {})
        if deep.get("arch_list"):
            builds.append((f"PyTorch {t.version}", tuple(deep["arch_list"]), "deep:torch.cuda.get_arch_list()", ()))
        else:
            variant = ctx.matrix.torch_variant(t.version, t.cuda)
            if variant and variant.arch:
                builds.append((f"PyTorch {t.version}", variant.arch + variant.ptx, "compat_matrix:torch", variant.source))
    tf = tf_gpu(facts)
    if tf:
        if tf.compute_capabilities:
            builds.append((f"TensorFlow {tf.version}", tf.compute_capabilities, facts.frameworks.tensorflow.source, ()))
        else:
            row = ctx.matrix.tensorflow_release(tf.version)
            if row and row.arch:
                builds.append((f"TensorFlow {tf.version}", row.arch + row.ptx, "compat_matrix:tensorflow", row.source))
    for label, archs, source, cited in builds:
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
                "execution on the device' (or TensorFlow ignores the GPU).",
                (ev(source, ", ".join(archs)), ev(g.source, f"{g.name}: {cc}")),
                Remediation(
                    "Install a build that supports this GPU (newer GPUs need newer CUDA builds; old GPUs need older releases).",
                    torch_for_machine(facts, ctx) if label.startswith("PyTorch") else (pip(facts, "install", "-U", "'tensorflow[and-cuda]'"),),
                ),
                tuple(cited),
            )


def _torch_sonames(t: TorchFacts) -> tuple[str, ...]:
    m = major(t.cuda)
    if m is None:
        return ()
    # CUDA 11 libraries keep the 11.0 soname for cudart; from 12 on, the major alone.
    return (f"libcudart.so.{m}.0" if m < 12 else f"libcudart.so.{m}", f"libcublas.so.{m}")


def _has_bundled(dirs: tuple[LibDir, ...], stem: str) -> bool:
    return any(n.startswith(stem) for d in dirs if d.via == "bundled" for n in d.names)


def missing_sonames(facts: Facts, sonames: Iterable[str], own: tuple[LibDir, ...]) -> list[str]:
    cache = ldconfig_cache(facts)
    out = []
    for soname in sonames:
        stem = soname.split(".so", 1)[0]
        if _has_bundled(own, stem + "-") or _has_bundled(own, soname):
            continue
        if resolve_library(soname, ld_dirs(facts), own, cache).path is None:
            out.append(soname)
    return out


def check_cuda_libs(facts: Facts, ctx: Context) -> Iterable[Finding]:
    if os_name(facts) == "windows":
        return  # DLL search is another story; the Windows checks say what matters there
    t = torch_cuda(facts)
    if t and vkey(t.version) >= (1, 13):
        # From 1.13 the CUDA libraries come from NVIDIA's pip wheels (or are bundled in torch/lib).
        missing = missing_sonames(facts, _torch_sonames(t), t.lib_dirs)
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
                Remediation("Reinstall PyTorch with its dependencies (a --no-deps install leaves them out).", torch_reinstall(facts, ctx, t.version)),
            )
    tf = tf_gpu(facts)
    if tf:
        row = ctx.matrix.tensorflow_release(tf.version)
        if row:
            wanted = [s for s in row.sonames if not s.startswith("libcudnn")]
            missing = missing_sonames(facts, wanted, tf.lib_dirs)
            if missing:
                cuda = tf_cuda(facts, ctx, tf) or row.cuda
                present = sorted({n for d in ld_dirs(facts) for n in d.names if n.startswith("libcudart.so")} | {
                    n for n in (ldconfig_cache(facts) or {}) if n.startswith("libcudart.so")})
                commands = (
                    (pip(facts, "install", f"'tensorflow[and-cuda]=={tf.version}'"),)
                    if row.and_cuda
                    else (
                        f"sudo apt-get install -y cuda-libraries-{major(cuda)}-{(vkey(cuda) + (0, 0))[1]}  # NVIDIA's CUDA repository",
                        f"conda install -c conda-forge cudatoolkit={major_minor(cuda)} cudnn={row.cudnn}",
                    )
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
                    Remediation(f"Install CUDA {major(cuda)}.x runtime libraries where TensorFlow finds them.", commands),
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
        Remediation(
            "Use TensorFlow in WSL 2 (GPU supported), or pin TensorFlow 2.10 with CUDA 11.2 and cuDNN 8.1 on Windows.",
            ("wsl --install -d Ubuntu", "# inside WSL: python3 -m pip install 'tensorflow[and-cuda]'", pip(facts, "install", "'tensorflow<2.11'")),
        ),
        row.source if row else (),
    )


_WHEEL_CUDA = re.compile(r"^(nvidia-[a-z0-9-]+?)-cu(\d+)$")


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
    keep = major(torch_cuda(facts).cuda) if torch_cuda(facts) else None
    drop = [f"{base}-cu{m}" for base, majors in sorted(mixed.items()) for m in sorted(majors) if keep is not None and m != keep]
    yield Finding(
        "nvidia-wheels-conflict",
        Severity.WARNING,
        "frameworks",
        "NVIDIA pip wheels for different CUDA majors of the same library are installed together",
        f"{described}. They install into the same nvidia/ package directory, so one overwrites files of the "
        "other and a framework can load a library built for the wrong CUDA major.",
        tuple(ev(f"dist:{base}", ", ".join(f"cu{m}=={v}" for m, v in sorted(majors.items()))) for base, majors in sorted(mixed.items())),
        Remediation(
            "Uninstall the wheels of the CUDA major no framework here uses, then reinstall the framework so its own are complete.",
            ((pip(facts, "uninstall", "-y", *drop),) if drop else ()) + ((pip(facts, "check"),)),
        ),
    )


def check_jax_versions(facts: Facts, ctx: Context) -> Iterable[Finding]:
    j = facts.frameworks.jax
    if not isinstance(j, Found):
        return
    jax = j.value
    versions = {"jax": jax.jax, "jaxlib": jax.jaxlib, **jax.plugins}
    versions = {k: v for k, v in versions.items() if v}
    row = ctx.matrix.jax_release(jax.jax or jax.jaxlib or "0")
    if row is None:
        return
    broken = []
    for pin in row.pins:
        present = tuple(p for p in pin.packages if p in versions)
        if len(present) < 2:
            continue
        # Judge the pin on the packages that are installed (jax without its pjrt package, say).
        if dataclasses.replace(pin, packages=present).satisfied(versions) is False:
            broken.append((pin, {p: versions[p] for p in present}))
    if not broken:
        return
    said = "; ".join(f"{pin.rule.replace('-', ' ')}: " + ", ".join(f"{p} {v}" for p, v in rel.items()) for pin, rel in broken)
    target = jax.jax or jax.jaxlib
    extra = f"cuda{jax_cuda_major(facts) or 12}"
    yield Finding(
        "jax-plugin-mismatch",
        Severity.ERROR,
        "frameworks",
        "jax, jaxlib and the CUDA plugin versions disagree",
        f"{said}. JAX refuses to start ('jaxlib version ... is newer than jax', 'incompatible CUDA plugin') or "
        "silently falls back to the CPU when the plugin does not match.",
        tuple(ev(f"dist:{p}", v) for p, v in versions.items()),
        Remediation("Install matching versions in one command.", (pip(facts, "install", "-U", f"'jax[{extra}]=={target}'"),)),
        tuple(k for pin, _ in broken for k in pin.source),
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
