"""cuDNN as each framework will load it: present, new enough, and built for the right CUDA major.

Which copy loads is decided as the loader decides (gpudoctor.loader): from the framework's own
libraries where they were read (facts.loading: their DT_NEEDED and run paths, ld.so's order), else in
a fixed order: LD_LIBRARY_PATH, the framework's own directories (bundled, NVIDIA's pip wheels), then
the ldconfig cache. An old copy on LD_LIBRARY_PATH that shadows a new enough one behind it is fixed by
taking its directory off LD_LIBRARY_PATH, nothing installed (`_unshadow`). Its version
comes from the file name (libcudnn.so.8.9.7), the wheel (nvidia-cudnn-cu12 9.1.0.70) or a header
of the same major beside it. Sources: compat_matrix/cudnn.toml, tensorflow.toml, torch.toml, jax.toml.

The fix installs cuDNN where the framework loads it, built for the framework's CUDA major:
- from NVIDIA's pip wheels (nvidia-cudnn-cuNN) when the framework loads cuDNN from them: PyTorch's
  wheels (the exact version its build pins), TensorFlow >= 2.14 (`tensorflow[and-cuda]` of the
  installed version), JAX's CUDA plugins (the cuDNN range its release needs);
- otherwise from NVIDIA's CUDA repository with the distribution's package manager, pinned to the CUDA
  major. cuDNN 8 and older: one package per cuDNN major whose version names the CUDA it was built for,
  `apt-get install libcudnn8=${cudnn_version}-1+${cuda_version}` (NVIDIA cuDNN 8.9 Installation
  Guide, "Package Manager Installation", SOURCE_CUDNN8_INSTALL). apt matches the version given after
  `=` as a glob (fnmatch; Debian's apt, apt-pkg/versionmatch.cc, pkgVersionMatch::ExpressionMatches,
  SOURCE_APT_VERSION_GLOB), so `libcudnn8=8.*-1+cuda11.*` selects the newest cuDNN 8 built for CUDA
  11, and `apt-mark hold` keeps an upgrade from replacing it with a build for another CUDA. dnf and
  zypper get no glob here (not verified): a listing command and a placeholder instead. cuDNN 9: one
  package per CUDA major, `libcudnn9-cuda-12` (NVIDIA cuDNN 9 Installation Guide for Linux,
  SOURCE_CUDNN9_INSTALL).
A copy on LD_LIBRARY_PATH is searched first (gpudoctor.loader): when that copy is the wrong one, the
fix also puts the new copy's directory ahead of it.

PyTorch's pip wheels of the releases compat_matrix/torch.toml marks `cudnn_bundled` (1.8-1.12) carry
their own cuDNN, linked into libtorch_cuda.so or in torch/lib: they need no cuDNN from the system or
NVIDIA's wheels, so nothing here asks for one (`torch_carries_cudnn`), unless the installed
libtorch_cuda.so, read, names a libcudnn.so.N among its DT_NEEDED.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.checks.frameworks import _JAX_CUDA_PLUGIN as _JAX_PLUGIN
from gpudoctor.checks.frameworks import (
    env_lib_remediation,
    jax_cuda_major,
    jax_remediation,
    plan_remediation,
    tf_cuda,
    tf_cuda_wheels,
    tf_gpu,
    torch_cuda,
)
from gpudoctor.checks.toolkit import CUDA_REPOS_URL, KEYRING_DEB, os_name
from gpudoctor.cmdline import Cmd, Line, Placeholder, SetEnv
from gpudoctor.facts import Facts, LibDir, LibraryResolution, absence_known
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.loader import elf_resolution, ld_dirs, ldconfig_cache, resolve_library
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.remedy import family, pip
from gpudoctor.probed import Found, found_value
from gpudoctor.record import Record, record_class
from gpudoctor.versions import major, vkey

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SOURCE_CUDNN8_INSTALL = "https://docs.nvidia.com/deeplearning/cudnn/archives/cudnn-893/pdf/cuDNN-Installation-Guide.pdf"
SOURCE_CUDNN9_INSTALL = "https://docs.nvidia.com/deeplearning/cudnn/installation/linux.html"
SOURCE_APT_VERSION_GLOB = "https://salsa.debian.org/apt-team/apt/-/blob/main/apt-pkg/versionmatch.cc"


@record_class(frozen=True, eq=False, repr=False)
class Need(Record):
    """One framework's need for cuDNN."""

    framework: str  # "TensorFlow 2.10.1"
    cuda_major: int | None
    cudnn_major: int
    minimum: str | None  # the oldest cuDNN it works with
    own_dirs: tuple[LibDir, ...]
    sources: tuple[str, ...]
    wheel_spec: str | None  # the pip requirement that brings the right cuDNN wheel; None: the system's packages
    bundled: str | None = None  # "torch" when the framework's own build carries cuDNN: the fix is its reinstall
    installed: str | None = None  # the framework's installed version (for naming that reinstall)
    jax_plugin: bool = False  # JAX's CUDA plugin with no NVIDIA wheel seen: jax[cudaNN] brings the cuDNN wheel it loads
    key: str | None = None  # torch, tensorflow, jax: its entry in facts.loading, when its libraries were read


@record_class(frozen=True, eq=False, repr=False)
class Loaded(Record):
    """The cuDNN copy a framework loads: its path, version, the CUDA major of its wheel, and how the loader finds it."""

    path: str
    version: str | None
    cuda_major: int | None  # for NVIDIA's wheels, from the package name
    via: str


def torch_pip_wheel(facts: Facts, version: str) -> bool:
    """Whether the installed PyTorch is one of PyTorch's pip wheels rather than a conda package or a source
    build. The wheels from 1.9 carry their variant as a local tag (1.12.1+cu113); an untagged torch in a
    conda environment is the conda package (it loads the environment's cudnn package); a pre-release
    (2.1.0a0+...) is a source or NGC build on the system's cuDNN."""
    if "a0" in version:
        return False
    if "+" in version:
        return True
    py = facts.frameworks.python
    return not (isinstance(py, Found) and py.value.kind == "conda")


def torch_carries_cudnn(facts: Facts, ctx: Context) -> tuple[str, ...]:
    """The matrix sources that say the installed PyTorch carries its own cuDNN (its pip wheel of a
    `cudnn_bundled` release); empty when it loads one from elsewhere or the matrix does not say."""
    t = torch_cuda(facts)
    if t is None:
        return ()
    rel = ctx.matrix.torch_release(t.version.split("+", 1)[0])
    if rel is None or not rel.cudnn_bundled or not torch_pip_wheel(facts, t.version):
        return ()
    return rel.source or ("pypi-torch-wheels",)  # the inspection that found no libcudnn among its DT_NEEDED


def needs(facts: Facts, ctx: Context) -> list[Need]:
    out: list[Need] = []
    t = torch_cuda(facts)
    fl = facts.loading.of("torch") if facts.loading is not None else None
    # Its own libraries, where read, overrule the matrix when they name a libcudnn.so.N among their DT_NEEDED.
    dynamic = fl is not None and any(r.how == "needed" and r.soname.startswith("libcudnn.so.") for r in fl.loads)
    if t and (dynamic or not torch_carries_cudnn(facts, ctx)):  # a wheel that carries cuDNN needs none from anywhere else
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
                    _torch_wheel(ctx, major(t.cuda), variant.cudnn) if facts.frameworks.nvidia_wheels else None,
                    # Released builds from before NVIDIA's wheels carry cuDNN in torch/lib: only a reinstall
                    # restores it. (Pre-release builds, 2.1.0a0+..., are source or NGC builds on the system's cuDNN.)
                    "torch" if _torch_wheel(ctx, major(t.cuda), variant.cudnn) is None and "a0" not in t.version else None,
                    t.version,
                    key="torch",
                )
            )
    tf = tf_gpu(facts)
    if tf:
        row = ctx.matrix.tensorflow_release(tf.version)
        minimum = tf.cudnn if tf.cudnn and "." in tf.cudnn else (row.cudnn if row else tf.cudnn)
        if minimum:
            cuda = tf_cuda(facts, ctx, tf)
            # TensorFlow >= 2.14 finds NVIDIA's wheels itself when installed with the [and-cuda] extra,
            # which pins the cuDNN its build needs; older releases load cuDNN from the system only.
            spec = f"tensorflow[and-cuda]=={tf.version}" if row and row.and_cuda else None
            out.append(
                Need(
                    f"TensorFlow {tf.version}",
                    major(cuda),
                    major(minimum) or 0,
                    minimum,
                    tf.lib_dirs,
                    row.source if row else (),
                    spec,
                    key="tensorflow",
                )
            )
    jmajor = jax_cuda_major(facts)
    if jmajor:
        jax = found_value(facts.frameworks.jax)
        row = ctx.matrix.jax_release(jax.jax or jax.jaxlib or "0")
        jc = row.cuda.get(jmajor) if row else None
        if jc and jc.cudnn_min:
            # JAX's CUDA plugins load cuDNN from NVIDIA's wheels (jax[cudaNN]); a jaxlib built for a
            # local CUDA (no wheel directories in the environment) loads the system's.
            wheels = any(d.via == "wheel" for d in _wheel_dirs(facts, jax.lib_dirs))
            spec = f"nvidia-cudnn-cu{jmajor}{jc.cudnn}" if wheels and jc.cudnn else None
            # The plugin route (jax[cudaNN]) gets cuDNN as NVIDIA's wheel: with none seen, reinstalling jax[cudaNN]
            # brings it in the range the plugin needs (one JAX step), where a system cuDNN would be a second install.
            plugin = not wheels and any(_JAX_PLUGIN.match(n) for n in jax.plugins)
            out.append(
                Need(
                    f"JAX {jax.jax}",
                    jmajor,
                    major(jc.cudnn_min) or 0,
                    jc.cudnn_min,
                    jax.lib_dirs,
                    jc.source,
                    spec,
                    jax_plugin=plugin,
                    key="jax",
                )
            )
        elif local := _JAXLIB_LOCAL.search(jax.jaxlib or ""):
            # A jaxlib from before the plugins, built for a local CUDA (0.4.6+cuda11.cudnn86): it loads the
            # system's cuDNN of that major, at least the version in its tag ("cuda11_cudnn86: CUDA >= 11.8
            # and cuDNN >= 8.6", JAX's README of the time).
            minimum = f"{local.group(2)}.{local.group(3)}"
            out.append(
                Need(
                    f"jaxlib {jax.jaxlib}",
                    int(local.group(1)),
                    int(local.group(2)),
                    minimum,
                    jax.lib_dirs,
                    ("jax-readme-local-cuda",),
                    None,
                    key="jax",
                )
            )
    return out


# jaxlib's local tag before the CUDA plugins: +cuda<CUDA major>.cudnn<cuDNN major><minor digits>
_JAXLIB_LOCAL = LazyPattern(r"\+cuda(\d+)\.cudnn(\d)(\d+)$")


def _torch_wheel(ctx: Context, cuda_major: int | None, cudnn: str) -> str | None:
    """nvidia-cudnn-cuNN==the version PyTorch's build pins, when PyPI has that series and version
    (PyTorch's wheels load cuDNN from it); None for builds that bundle cuDNN or predate the wheels."""
    for series in ctx.matrix.cudnn_pip:
        if series.cuda_major == cuda_major and len(cudnn.split(".")) == 4 and vkey(series.first) <= vkey(cudnn):
            return f"{series.package}=={cudnn}"
    return None


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


def _loaded_via(own: tuple[LibDir, ...], res: LibraryResolution) -> str:
    """The resolution's way in, in the words the fixes use: LD_LIBRARY_PATH and LD_PRELOAD as they are, a
    copy in the framework's own or NVIDIA's wheel directories as bundled / wheel, else the loader's step."""
    if res.via in ("LD_LIBRARY_PATH", "LD_PRELOAD") or res.path is None:
        return res.via or "ldconfig"
    directory = posixpath.dirname(res.path)
    return next((d.via for d in own if d.path == directory and d.via in ("wheel", "bundled")), res.via or "ldconfig")


def loaded_cudnn(facts: Facts, need: Need) -> Loaded | None:
    """The cuDNN of the needed major the loader would load for this framework, with what is known of it."""
    soname = f"libcudnn.so.{need.cudnn_major}"
    own = _wheel_dirs(facts, need.own_dirs)
    elf = elf_resolution(facts, need.key, soname)
    if elf is not None:
        if elf.path is None:
            return None
        res = LibraryResolution(soname, elf.path, _loaded_via(own, elf), elf.shadowed, version=elf.version)
    else:
        bundled = [d for d in own if d.via == "bundled" and any(n.startswith(("libcudnn.so", "libcudnn-")) for n in d.names)]
        if bundled:
            return Loaded(posixpath.join(bundled[0].path, "libcudnn"), None, need.cuda_major, "bundled")
        res = resolve_library(soname, ld_dirs(facts), own, ldconfig_cache(facts))
    if res.path is None:
        return None
    directory = posixpath.dirname(res.path)
    if res.via == "wheel":
        wheels = {
            int(n[15:]): v for n, v in facts.frameworks.nvidia_wheels.items() if re.fullmatch("nvidia-cudnn-cu[0-9]{1,3}", n)
        }
        # With wheels of several CUDA majors installed, the files overlap and either may be on
        # disk; nvidia-wheels-conflict says so, and the framework's own major is assumed here.
        chosen = need.cuda_major if need.cuda_major in wheels else (next(iter(sorted(wheels))) if wheels else None)
        return Loaded(res.path, wheels.get(chosen) if chosen is not None else None, chosen, "wheel")
    version = res.version
    for inst in () if version else facts.cudnn:
        if (
            inst.kind == "library"
            and posixpath.dirname(inst.path) == directory
            and inst.major == need.cudnn_major
            and inst.version
            and len(inst.version.split(".")) > 1
        ):
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
        if loaded is None and need.bundled and not any(d.via == "bundled" for d in need.own_dirs):
            continue  # its build carries cuDNN in a directory that was not listed (a pasted snapshot): unknown, not missing
        if loaded is None and not absence_known(facts, soname):
            continue  # partial evidence (pasted text) that never showed the libraries: unknown, not missing
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
                env_lib_remediation(facts, [soname], need.framework)
                or _remediation(
                    facts,
                    ctx,
                    need,
                    None,
                    f"Install cuDNN {need.cudnn_major}.x for CUDA {need.cuda_major or '?'} where {need.framework} finds it",
                ),
                need.sources,
            )
            continue
        if loaded.cuda_major is not None and need.cuda_major is not None and loaded.cuda_major != need.cuda_major:
            yield _mismatch(facts, ctx, need, loaded, f"the wheel nvidia-cudnn-cu{loaded.cuda_major}")
        elif loaded.version and need.cuda_major is not None:
            majors = ctx.matrix.cudnn_cuda_majors(loaded.version)
            if majors and need.cuda_major not in majors:
                rel = ctx.matrix.cudnn_release(loaded.version)
                yield _mismatch(
                    facts,
                    ctx,
                    need,
                    loaded,
                    f"cuDNN {loaded.version} (built for CUDA {', '.join(map(str, majors))})",
                    rel.source if rel else (),
                )
        if loaded.version and need.minimum and vkey(loaded.version)[:3] < vkey(need.minimum)[:3]:
            yield Finding(
                "cudnn-too-old",
                Severity.ERROR,
                "cudnn",
                f"cuDNN {loaded.version} is older than {need.framework} requires ({need.minimum})",
                f"The {soname} that loads ({loaded.path}) is {loaded.version}; {need.framework} was built against "
                f"{need.minimum} and fails at its first convolution with 'Loaded runtime CuDNN library: {loaded.version} "
                f"but source was compiled with: {need.minimum}'.",
                (
                    ev(f"loader:{loaded.via}", f"{loaded.path} ({loaded.version})"),
                    ev("requirement", f"{need.framework}: cuDNN >= {need.minimum}"),
                ),
                _unshadow(facts, need, loaded)
                or _remediation(
                    facts, ctx, need, loaded, f"Install cuDNN >= {need.minimum} (same major) where {need.framework} loads it"
                ),
                need.sources,
            )


def _unshadow(facts: Facts, need: Need, loaded: Loaded) -> Remediation | None:
    """When an old copy on LD_LIBRARY_PATH shadows one the loader would otherwise load and that is new
    enough (the framework's own wheel, found through its run path): stop it winning, install nothing.

    Only from the framework's own libraries (facts.loading): the copies behind the winner are known
    there, in the loader's order, with their versions."""
    if loaded.via != "LD_LIBRARY_PATH" or not need.minimum:
        return None
    res = elf_resolution(facts, need.key, f"libcudnn.so.{need.cudnn_major}")
    if res is None or res.path != loaded.path:
        return None
    shadowing = posixpath.dirname(loaded.path)
    behind = next(
        (c for c in res.copies[1:] if not c.via.startswith("not searched") and posixpath.dirname(c.path) != shadowing), None
    )
    if behind is None or not behind.version or vkey(behind.version)[:3] < vkey(need.minimum)[:3]:
        return None
    entries = [p for p in facts.platform.env.get("LD_LIBRARY_PATH", "").split(":") if p and posixpath.normpath(p) != shadowing]
    fl = facts.loading.of(need.key) if facts.loading is not None and need.key else None
    # Other libraries the framework loads from that directory and can find nowhere else: said, so that the
    # change is made knowingly (a shell profile that set it for some other program, say).
    alone = sorted(
        r.soname
        for r in (fl.loads if fl else ())
        if r.path
        and posixpath.dirname(r.path) == shadowing
        and r.how == "needed"
        and not any(not c.via.startswith("not searched") and posixpath.dirname(c.path) != shadowing for c in r.copies[1:])
    )
    return Remediation(
        f"Stop {loaded.path} winning: LD_LIBRARY_PATH is searched before {need.framework}'s run path, which "
        f"leads to {behind.path} ({behind.version}, new enough). Take {shadowing} off LD_LIBRARY_PATH where it is set "
        "(shell profile, job script, module file); nothing needs installing."
        + (f" {', '.join(alone)} then load from nowhere else: keep that directory for what needs it." if alone else ""),
        (SetEnv("LD_LIBRARY_PATH", ":".join(entries) or None, note=f"without {shadowing}"),),
        component="cudnn",
    )


def _mismatch(facts: Facts, ctx: Context, need: Need, loaded: Loaded, what: str, cited: tuple[str, ...] = ()) -> Finding:
    return Finding(
        "cudnn-cuda-mismatch",
        Severity.ERROR,
        "cudnn",
        f"{need.framework} uses CUDA {need.cuda_major} but loads {what}",
        f"cuDNN is built per CUDA major; the copy that loads ({loaded.path}) was built for another one than "
        f"{need.framework}'s CUDA runtime. Expect CUDNN_STATUS_NOT_INITIALIZED, undefined symbols, or a crash at the first convolution.",
        (ev(f"loader:{loaded.via}", loaded.path), ev("framework", f"{need.framework}: CUDA {need.cuda_major}")),
        _remediation(
            facts, ctx, need, loaded, f"Install the cuDNN build for CUDA {need.cuda_major} where {need.framework} loads it"
        ),
        cited or need.sources,
    )


# --- the fix: the right cuDNN where the framework loads it ------------------------------------


def _remediation(facts: Facts, ctx: Context, need: Need, loaded: Loaded | None, lead: str) -> Remediation:
    if need.jax_plugin and loaded is None:  # the JAX step's own decision (gpudoctor.checks.frameworks.jax_remediation)
        return jax_remediation(
            facts,
            ctx,
            f"{lead}: JAX's CUDA plugin loads it from NVIDIA's pip wheels, which jax[cuda{need.cuda_major}] brings.",
            wheels=True,
        )
    also = (f"libcudnn.so.{need.cudnn_major}",) if loaded is not None else ()  # the copy that loads is not the one
    if need.key == "tensorflow" and (wheels := tf_cuda_wheels(facts, ctx, also)) is not None:
        return wheels  # a pip TensorFlow's cuDNN comes as NVIDIA's wheel, with its CUDA libraries: one step for both
    if need.bundled:  # the framework step's own decision: which build, which commands
        return plan_remediation(facts, ctx, need.bundled, need.installed, f"{lead}: its build carries cuDNN, so reinstall it.")
    commands, where = cudnn_commands(facts, need, loaded, ctx.matrix)
    said = f"{lead}: {where}."
    if not commands:
        said += f" No pinned package is known for this system: install cuDNN {need.cudnn_major} for CUDA {need.cuda_major or '?'} from NVIDIA's archive (tar)."
    return Remediation(said, commands, requires_root=any(isinstance(c, Cmd) and c.root for c in commands), component="cudnn")


def cudnn_commands(facts: Facts, need: Need, loaded: Loaded | None, matrix: Any = None) -> tuple[tuple[Line, ...], str]:
    """(commands, where they put cuDNN): complete, a removal always followed by the install it needs."""
    if need.wheel_spec:
        commands = _wheel_commands(facts, need, loaded)
        new_dir = _wheel_cudnn_dir(facts, need)
        where = f"NVIDIA's pip wheel ({need.wheel_spec}) in the probed Python environment"
    else:
        commands = _system_commands(facts, need, matrix)
        new_dir = _system_lib_dir(facts)
        where = f"NVIDIA's CUDA repository, the build for CUDA {need.cuda_major}"
    if commands and loaded is not None and loaded.via == "LD_LIBRARY_PATH" and new_dir:
        # The copy on LD_LIBRARY_PATH is searched before anything installed above: put the new one first.
        from gpudoctor.planner.remedy import keep_path, kept, library_dir

        commands = kept(
            facts, (*commands, library_dir(facts, (new_dir,), note="the new cuDNN ahead of the old copy, the rest kept"))
        )
        where += f"; LD_LIBRARY_PATH finds {loaded.path} first, so the new copy's directory goes ahead of it." + keep_path(
            facts
        ).rstrip(".")
    return commands, where


def _wheel_commands(facts: Facts, need: Need, loaded: Loaded | None) -> tuple[Line, ...]:
    assert need.wheel_spec
    if not (loaded is not None and loaded.via == "wheel" and loaded.cuda_major not in (None, need.cuda_major)):
        return (pip(facts, "install", need.wheel_spec),)
    # The wheel of another CUDA major loads. Wheels of every CUDA major share site-packages/nvidia/cudnn,
    # so removing it deletes files of the right one too: that one is then reinstalled in full.
    wrong = f"nvidia-cudnn-cu{loaded.cuda_major}"
    right = f"nvidia-cudnn-cu{need.cuda_major}"
    have = facts.frameworks.nvidia_wheels.get(right)
    if have and (not need.minimum or vkey(have)[:3] >= vkey(need.minimum)[:3]):
        install = pip(facts, "install", "--force-reinstall", "--no-deps", f"{right}=={have}")
    elif have:
        install = pip(facts, "install", "--force-reinstall", need.wheel_spec)
    else:
        install = pip(facts, "install", need.wheel_spec)
    return (pip(facts, "uninstall", "-y", wrong), install)


def _wheel_cudnn_dir(facts: Facts, need: Need) -> str | None:
    for d in _wheel_dirs(facts, need.own_dirs):
        if d.via == "wheel" and d.path.endswith("/nvidia/cudnn/lib"):
            return d.path
    env = facts.frameworks.python
    sites = env.value.site_packages if isinstance(env, Found) else ()
    return posixpath.join(sites[0], "nvidia", "cudnn", "lib") if sites else None


_MULTIARCH = {
    "x86_64": "x86_64-linux-gnu",
    "amd64": "x86_64-linux-gnu",
    "aarch64": "aarch64-linux-gnu",
    "arm64": "aarch64-linux-gnu",
}


def _system_lib_dir(facts: Facts) -> str | None:
    """Where the distribution's cuDNN package puts the library."""
    fam = family(facts)
    if fam == "debian":
        triplet = _MULTIARCH.get((facts.platform.machine or "").lower())
        return f"/usr/lib/{triplet}" if triplet else None
    return "/usr/lib64" if fam in ("rhel", "suse") else None


def _system_commands(facts: Facts, need: Need, matrix: Any = None) -> tuple[Line, ...]:
    """cuDNN `need.cudnn_major` built for CUDA `need.cuda_major`, from NVIDIA's CUDA repository: on Debian and Ubuntu
    its set-up step first (cuda-keyring, as for a toolkit) where the matrix knows this release's repository, since
    the packages come from no other source and nothing recorded says the repository is configured."""
    m, cuda = need.cudnn_major, need.cuda_major
    if cuda is None or not m:
        return ()
    repo = "NVIDIA's CUDA repository"
    fam = family(facts)
    if fam == "debian":
        return _keyring(facts, matrix) + _system_commands_of(fam, m, cuda, repo)
    return _system_commands_of(fam, m, cuda, repo)


def _keyring(facts: Facts, matrix: Any) -> tuple[Line, ...]:
    """NVIDIA's repository set up on Debian/Ubuntu x86_64 (gpudoctor.checks.toolkit's rule): () where not known."""
    d = facts.platform.distro
    x86 = (facts.platform.machine or "").lower() in ("x86_64", "amd64")
    row = matrix.cuda_repo_for(d.id, d.version_id) if matrix is not None and x86 else None
    if row is None:
        return ()
    return (
        Cmd(("wget", f"{CUDA_REPOS_URL}{row.repo}/x86_64/{KEYRING_DEB}")),
        Cmd(("dpkg", "-i", KEYRING_DEB), root=True, note="adds NVIDIA's CUDA repository and its signing key"),
    )


def _system_commands_of(fam: str | None, m: int, cuda: int, repo: str) -> tuple[Line, ...]:
    if m >= 9:
        package = f"libcudnn{m}-cuda-{cuda}"  # SOURCE_CUDNN9_INSTALL: one package per CUDA major
        if fam == "debian":
            return (Cmd(("apt-get", "update"), root=True), Cmd(("apt-get", "install", "-y", package), root=True, note=repo))
        if fam == "rhel":
            return (Cmd(("dnf", "install", "-y", package), root=True, note=repo),)
        if fam == "suse":
            return (Cmd(("zypper", "install", "-y", package), root=True, note=repo),)
        return ()
    package = f"libcudnn{m}"
    if fam == "debian":
        # SOURCE_CUDNN8_INSTALL: libcudnn8=${cudnn_version}-1+${cuda_version}; apt globs the version (SOURCE_APT_VERSION_GLOB).
        return (
            Cmd(("apt-get", "update"), root=True),
            Cmd(
                ("apt-get", "install", "-y", f"{package}={m}.*-1+cuda{cuda}.*"),
                root=True,
                note=f"{repo}: the newest cuDNN {m} built for CUDA {cuda}",
            ),
            Cmd(("apt-mark", "hold", package), root=True, note="keeps upgrades from replacing it with a build for another CUDA"),
        )
    chosen = Placeholder(f"{package}-for-cuda{cuda}")
    if fam == "rhel":
        return (
            Cmd(("dnf", "--showduplicates", "list", package), note=f"the builds: choose one whose version ends in cuda{cuda}.x"),
            Cmd(("dnf", "install", "-y", chosen), root=True, note=repo),
        )
    if fam == "suse":
        return (
            Cmd(("zypper", "search", "-s", package), note=f"the builds: choose one whose version ends in cuda{cuda}.x"),
            Cmd(("zypper", "install", "-y", chosen), root=True, note=repo),
        )
    return ()


# --- cuDNN >= 9: the shim and its sub-libraries from one copy ----------------------------------------


def check_cudnn_sublibraries(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """cuDNN 9's shim (libcudnn.so.9) dlopen()s its sub-libraries by name with its own search path
    (gpudoctor.probes.loading); where they would load from another copy of another version, cuDNN refuses the
    mix at its first use. Judged from the frameworks' own libraries only: the copies and versions are known there.
    One finding per shim: two frameworks loading the same one (PyTorch and JAX in one environment) share it."""
    if facts.loading is None:
        return
    by_shim: dict[str, tuple[LibraryResolution, list[str], list[LibraryResolution]]] = {}
    for fl in facts.loading.frameworks:
        for shim in fl.loads:
            if shim.path is None or not shim.version or not re.fullmatch(r"libcudnn\.so\.(9|[1-9]\d+)", shim.soname):
                continue
            home = posixpath.dirname(shim.path)
            mixed = [
                r
                for r in fl.loads
                if r.how == "dlopen"
                and r.needed_by == shim.path
                and r.path
                and r.version
                and posixpath.dirname(r.path) != home
                and vkey(r.version)[:3] != vkey(shim.version)[:3]
            ]
            if mixed:
                name = {"torch": "PyTorch", "tensorflow": "TensorFlow", "jax": "JAX"}.get(fl.framework, fl.framework)
                entry = by_shim.setdefault(shim.path, (shim, [], mixed))
                entry[1].append(name)
    for shim, frameworks, mixed in by_shim.values():
        where = sorted({posixpath.dirname(r.path or "") for r in mixed})
        versions = sorted({r.version or "" for r in mixed}, key=vkey)
        via = sorted({str(r.via) for r in mixed})
        yield Finding(
            "cudnn-sublibraries-mixed",
            Severity.ERROR,
            "cudnn",
            f"{' and '.join(frameworks)} would load cuDNN {shim.version} with sub-libraries of cuDNN {', '.join(versions)}",
            f"{shim.soname} loads from {shim.path} ({shim.version}, {shim.via}); it opens its sub-libraries by name "
            f"with its own search path, and {', '.join(r.soname for r in mixed)} would come from {', '.join(where)} "
            f"({', '.join(versions)}, {', '.join(via)}). cuDNN refuses the mix at its first use: "
            "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, or PyTorch's \"cuDNN version incompatibility: PyTorch was "
            'compiled against ... but found runtime version ..." at the first convolution.',
            tuple(ev(f"loader:{r.via}", f"{r.path} ({r.version})") for r in mixed[:3])
            + (ev(f"loader:{shim.via}", f"{shim.path} ({shim.version})"),),
            _unmix(facts, shim, mixed, where),
        )


def _unmix(facts: Facts, shim: LibraryResolution, mixed: list[LibraryResolution], where: list[str]) -> Remediation:
    """Stop the other copy winning: off LD_LIBRARY_PATH when that is how it wins (nothing to install: the shim's own
    directory holds its sub-libraries); otherwise name the directories, since which copy to keep is the user's."""
    if all(r.via == "LD_LIBRARY_PATH" for r in mixed):
        keep = [p for p in facts.platform.env.get("LD_LIBRARY_PATH", "").split(":") if p and posixpath.normpath(p) not in where]
        return Remediation(
            f"Take {', '.join(where)} off LD_LIBRARY_PATH where it is set (shell profile, job script, module file, "
            f"container image): it is searched before {shim.soname}'s own run path, which leads to the sub-libraries "
            f"of cuDNN {shim.version} beside it. Nothing needs installing.",
            (SetEnv("LD_LIBRARY_PATH", ":".join(keep) or None, note=f"without {', '.join(where)}"),),
            component="cudnn",
        )
    return Remediation(
        f"Make the sub-libraries load from the same copy as {shim.path}: remove or move the other cuDNN "
        f"({', '.join(where)}) out of the loader's way, or complete the copy beside {shim.soname} (a package that "
        "copied the shim alone leaves its sub-libraries to be found elsewhere).",
        component="cudnn",
    )


CHECKS = (
    Check("cudnn", "cudnn", ("cudnn-missing", "cudnn-too-old", "cudnn-cuda-mismatch"), check_cudnn),
    Check("cudnn-sublibraries", "cudnn", ("cudnn-sublibraries-mixed",), check_cudnn_sublibraries),
)
