"""cuDNN as each framework will load it: present, new enough, and built for the right CUDA major.

Which copy loads is decided as the loader decides (gpudoctor.loader): LD_LIBRARY_PATH, the
framework's own directories (bundled, NVIDIA's pip wheels), then the ldconfig cache. Its version
comes from the file name (libcudnn.so.8.9.7), the wheel (nvidia-cudnn-cu12 9.1.0.70) or a header
of the same major beside it. Sources: compat_matrix/cudnn.toml, tensorflow.toml, torch.toml, jax.toml.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Iterable

from gpudoctor.checks import Check, Context, ev
from gpudoctor.checks.frameworks import jax_cuda_major, ld_dirs, ldconfig_cache, tf_cuda, tf_gpu, torch_cuda, torch_reinstall
from gpudoctor.checks.remedy import pip
from gpudoctor.checks.toolkit import os_name
from gpudoctor.facts import Facts, LibDir
from gpudoctor.loader import resolve_library
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.probed import Found
from gpudoctor.versions import major, major_minor, vkey


@dataclass(frozen=True)
class Need:
    """One framework's need for cuDNN."""

    framework: str  # "TensorFlow 2.10.1"
    cuda_major: int | None
    cudnn_major: int
    minimum: str | None  # the oldest cuDNN it works with
    own_dirs: tuple[LibDir, ...]
    sources: tuple[str, ...]
    fix: tuple[str, ...]


@dataclass(frozen=True)
class Loaded:
    path: str
    version: str | None
    cuda_major: int | None  # for NVIDIA's wheels, from the package name
    via: str


def needs(facts: Facts, ctx: Context) -> list[Need]:
    out: list[Need] = []
    t = torch_cuda(facts)
    if t:
        variant = ctx.matrix.torch_variant(t.version, t.cuda)
        if variant and variant.cudnn:
            out.append(
                Need(
                    f"PyTorch {t.version}",
                    major(t.cuda),
                    major(variant.cudnn) or 0,
                    variant.cudnn,
                    t.lib_dirs,
                    variant.source,
                    torch_reinstall(facts, ctx, t.version),
                )
            )
    tf = tf_gpu(facts)
    if tf:
        row = ctx.matrix.tensorflow_release(tf.version)
        minimum = tf.cudnn if tf.cudnn and "." in tf.cudnn else (row.cudnn if row else tf.cudnn)
        if minimum:
            cuda = tf_cuda(facts, ctx, tf)
            fix = (
                (pip(facts, "install", f"'tensorflow[and-cuda]=={tf.version}'"),)
                if row and row.and_cuda
                else (f"conda install -c conda-forge cudnn={major_minor(minimum)} cudatoolkit={major_minor(cuda)}",
                      f"sudo apt-get install -y libcudnn{major(minimum)}  # NVIDIA's CUDA repository")
            )
            out.append(Need(f"TensorFlow {tf.version}", major(cuda), major(minimum) or 0, minimum, tf.lib_dirs, row.source if row else (), fix))
    jmajor = jax_cuda_major(facts)
    if jmajor:
        jax = facts.frameworks.jax.value
        row = ctx.matrix.jax_release(jax.jax or jax.jaxlib or "0")
        jc = row.cuda.get(jmajor) if row else None
        if jc and jc.cudnn_min:
            fix = (pip(facts, "install", "-U", f"'jax[cuda{jmajor}]'"),)
            out.append(Need(f"JAX {jax.jax}", jmajor, major(jc.cudnn_min) or 0, jc.cudnn_min, jax.lib_dirs, jc.source, fix))
    return out


def _wheel_dirs(facts: Facts, own: tuple[LibDir, ...]) -> tuple[LibDir, ...]:
    """The framework's own directories, plus NVIDIA's wheel directories any framework probe saw."""
    seen = {d.path for d in own}
    extra = []
    for outcome in (facts.frameworks.torch, facts.frameworks.tensorflow, facts.frameworks.jax):
        if isinstance(outcome, Found):
            for d in outcome.value.lib_dirs:
                if d.via == "wheel" and d.path not in seen:
                    seen.add(d.path)
                    extra.append(d)
    return own + tuple(extra)


def loaded_cudnn(facts: Facts, need: Need) -> Loaded | None:
    """The cuDNN of the needed major the loader would load for this framework, with what is known of it."""
    soname = f"libcudnn.so.{need.cudnn_major}"
    own = _wheel_dirs(facts, need.own_dirs)
    bundled = [d for d in own if d.via == "bundled" and any(n.startswith(("libcudnn.so", "libcudnn-")) for n in d.names)]
    if bundled:
        return Loaded(posixpath.join(bundled[0].path, "libcudnn"), None, need.cuda_major, "bundled")
    res = resolve_library(soname, ld_dirs(facts), own, ldconfig_cache(facts))
    if res.path is None:
        return None
    directory = posixpath.dirname(res.path)
    if res.via == "wheel":
        wheels = {int(n.rsplit("cu", 1)[1]): v for n, v in facts.frameworks.nvidia_wheels.items() if n.startswith("nvidia-cudnn-cu")}
        # With wheels of several CUDA majors installed, the files overlap and either may be on
        # disk; nvidia-wheels-conflict says so, and the framework's own major is assumed here.
        chosen = need.cuda_major if need.cuda_major in wheels else (next(iter(sorted(wheels))) if wheels else None)
        return Loaded(res.path, wheels.get(chosen) if chosen is not None else None, chosen, "wheel")
    version = None
    for inst in facts.cudnn:
        if inst.kind == "library" and posixpath.dirname(inst.path) == directory and inst.major == need.cudnn_major:
            if inst.version and len(inst.version.split(".")) > 1:
                version = inst.version
    if version is None:
        headers = [i for i in facts.cudnn if i.kind == "header" and i.major == need.cudnn_major and i.version]
        if headers:
            version = headers[0].version
    return Loaded(res.path, version, None, res.via or "ldconfig")


def check_cudnn(facts: Facts, ctx: Context) -> Iterable[Finding]:
    if os_name(facts) == "windows":
        return
    for need in needs(facts, ctx):
        soname = f"libcudnn.so.{need.cudnn_major}"
        loaded = loaded_cudnn(facts, need)
        if loaded is None:
            others = sorted({i.version or i.path for i in facts.cudnn if i.major and i.major != need.cudnn_major})
            yield Finding(
                "cudnn-missing",
                Severity.ERROR,
                "cudnn",
                f"{need.framework} needs {soname} and none can be loaded",
                f"{need.framework} loads cuDNN {need.cudnn_major}.x (>= {need.minimum}) by its soname; no {soname} is on "
                "LD_LIBRARY_PATH, in its own or NVIDIA's wheel directories, or in the ldconfig cache"
                + (f" (other majors are installed: {', '.join(others)}; a different major cannot stand in)" if others else "")
                + ". Expect \"Could not load dynamic library 'libcudnn.so...'\" and no GPU for convolutions.",
                (ev("loader", f"{soname}: not found"),),
                Remediation(f"Install cuDNN {need.cudnn_major}.x for CUDA {need.cuda_major or '?'} where it is found.", need.fix),
                need.sources,
            )
            continue
        if loaded.cuda_major is not None and need.cuda_major is not None and loaded.cuda_major != need.cuda_major:
            yield _mismatch(need, loaded, f"the wheel nvidia-cudnn-cu{loaded.cuda_major}")
        elif loaded.version and need.cuda_major is not None:
            majors = ctx.matrix.cudnn_cuda_majors(loaded.version)
            if majors and need.cuda_major not in majors:
                rel = ctx.matrix.cudnn_release(loaded.version)
                yield _mismatch(need, loaded, f"cuDNN {loaded.version} (built for CUDA {', '.join(map(str, majors))})", rel.source if rel else ())
        if loaded.version and need.minimum and vkey(loaded.version)[:3] < vkey(need.minimum)[:3]:
            yield Finding(
                "cudnn-too-old",
                Severity.ERROR,
                "cudnn",
                f"cuDNN {loaded.version} is older than {need.framework} requires ({need.minimum})",
                f"The {soname} that loads ({loaded.path}) is {loaded.version}; {need.framework} was built against "
                f"{need.minimum} and fails at its first convolution with 'Loaded runtime CuDNN library: {loaded.version} "
                f"but source was compiled with: {need.minimum}'.",
                (ev(f"loader:{loaded.via}", f"{loaded.path} ({loaded.version})"), ev("requirement", f"{need.framework}: cuDNN >= {need.minimum}")),
                Remediation(f"Install cuDNN >= {need.minimum} (same major) where {need.framework} loads it, or remove the older copy ahead of it.", need.fix),
                need.sources,
            )


def _mismatch(need: Need, loaded: Loaded, what: str, cited: tuple[str, ...] = ()) -> Finding:
    return Finding(
        "cudnn-cuda-mismatch",
        Severity.ERROR,
        "cudnn",
        f"{need.framework} uses CUDA {need.cuda_major} but loads {what}",
        f"cuDNN is built per CUDA major; the copy that loads ({loaded.path}) was built for another one than "
        f"{need.framework}'s CUDA runtime. Expect CUDNN_STATUS_NOT_INITIALIZED, undefined symbols, or a crash at the first convolution.",
        (ev(f"loader:{loaded.via}", loaded.path), ev("framework", f"{need.framework}: CUDA {need.cuda_major}")),
        Remediation(f"Install the cuDNN build for CUDA {need.cuda_major} and remove the other from the loader's path.", need.fix),
        cited or need.sources,
    )


CHECKS = (Check("cudnn", "cudnn", ("cudnn-missing", "cudnn-too-old", "cudnn-cuda-mismatch"), check_cudnn),)
