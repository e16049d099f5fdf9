"""What each step kind does to the machine's facts, as the checks read them: a framework's version and CUDA build
with the libraries its wheel brings, a companion, an NVIDIA wheel, a variable, the loader's copies under a new
LD_LIBRARY_PATH, the /usr/local/cuda link and the shell's toolkit, a new toolkit, the driver's packages and the module
a reboot loads (gpudoctor.planner.driver_state). An effect this module does not follow is flagged `unmodelled` with
its reason, and the facts are left as they were."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from gpudoctor.cmdline import Cmd, Output, PrependPath
from gpudoctor.extension_facts import Companion, ExtensionFacts
from gpudoctor.facts import (
    CudaLink,
    CudnnInstall,
    FrameworkFacts,
    JaxFacts,
    LibDir,
    LibraryCopy,
    TensorflowFacts,
    Toolkit,
    TorchFacts,
)
from gpudoctor.planner import driver_state
from gpudoctor.planner.actions import Action, Requirement, canon
from gpudoctor.planner.plan_state import (
    COMPANIONS,
    State,
    Unresolved,
    distro_family,
    index_tag,
    python_env,
    toolkit_of,
    torch_target,
)
from gpudoctor.probed import Absent, Found
from gpudoctor.versions import version_key
from gpudoctor.windows_facts import DllDir

_DRIVER_PKG = re.compile(r"(nvidia-driver|nvidia-open|cuda-drivers|libnvidia-)")
_TOOLKIT_PKG = re.compile(r"cuda-toolkit-(\d+)-(\d+)\Z")
# NVIDIA's repository names its cuDNN packages libcudnn8 (the CUDA major in the version: 8.9.7.29-1+cuda11.8) and
# libcudnn9-cuda-12 (in the name); they put libcudnn.so.N in the distribution's library directory.
_CUDNN_PKG = re.compile(r"libcudnn(\d+)(?:-cuda-(\d+))?(?:=[^+]*\+cuda(\d+))?")
_LIBDIR = {"x86_64": "/usr/lib/x86_64-linux-gnu", "aarch64": "/usr/lib/aarch64-linux-gnu"}  # Debian's multiarch


def _sonames(cuda: str, cudnn: str | None) -> tuple[str, ...]:
    """The CUDA libraries a framework's CUDA wheel brings (runtime, cuBLAS, cuDNN), by their sonames: CUDA 11
    keeps the 11.0 soname for cudart, 12 on the major alone; cuDNN its major."""
    m = int(cuda.split(".")[0])
    names = [f"libcudart.so.{m}.0" if m < 12 else f"libcudart.so.{m}", f"libcublas.so.{m}", f"libcublasLt.so.{m}"]
    if cudnn:
        names.append(f"libcudnn.so.{cudnn.split('.')[0]}")
    return tuple(names)


def _wheel_libs(rel: Any, variant: Any, location: str) -> tuple[LibDir, ...]:
    """Where a PyTorch CUDA wheel's libraries are once pip installed it with its dependencies: in torch/lib for
    the releases that bundle them (before 1.13), else in NVIDIA's wheels beside it (the variant's CUDA and cuDNN,
    compat_matrix/torch.toml)."""
    names = _sonames(variant.cuda, variant.cudnn)
    site = location.rsplit("/torch", 1)[0] if location.endswith("/torch") else location
    if version_key(rel.version) < (1, 13):
        return (LibDir(f"{location}/lib" if location else "torch/lib", "bundled", names),)
    return (LibDir(f"{site}/nvidia/lib", "wheel", names),)


def _add_wheels(facts: Any, cuda: str, cudnn: str | None) -> Any:
    """NVIDIA's wheels a framework's CUDA wheel depends on, at the versions the matrix names (cuDNN's)."""
    wheels = dict(facts.frameworks.nvidia_wheels)
    m = cuda.split(".")[0]
    if cudnn:
        wheels[f"nvidia-cudnn-cu{m}"] = cudnn
    return replace(facts, frameworks=replace(facts.frameworks, nvidia_wheels=wheels))


def _pin_wheels(facts: Any, pins: tuple[tuple[str, str], ...]) -> Any:
    """Every NVIDIA wheel a torch build pins (compat_matrix/torch.toml nvidia_pins), at its pinned version: pip
    installs or moves each one; wheels of other names (another CUDA major's among them) stay."""
    wheels = dict(facts.frameworks.nvidia_wheels)
    wheels.update(pins)
    facts = replace(facts, frameworks=replace(facts.frameworks, nvidia_wheels=wheels))
    for name, version in pins:
        facts = _set_dist(facts, name, version)
    return facts


def _set_env(facts: Any, name: str, value: str | None) -> Any:
    env = dict(facts.platform.env)
    if value is None:
        env.pop(name, None)
    else:
        env[name] = value
    return replace(facts, platform=replace(facts.platform, env=env))


def _set_dist(facts: Any, name: str, version: str | None) -> Any:
    env = python_env(facts)
    if env is None:
        return facts
    dists = dict(env.distributions)
    if version is None:
        dists.pop(name, None)
    else:
        dists[name] = version
    new = replace(env, distributions=dists)
    return replace(facts, frameworks=replace(facts.frameworks, python=Found(new, facts.frameworks.python.source)))


def _location(facts: Any) -> str:
    env = python_env(facts)
    return env.site_packages[0] if env is not None and env.site_packages else ""


def _extensions(facts: Any) -> ExtensionFacts | None:
    """The machine's extension facts; where none were read but the environment lists torch's companions, the
    companions as the package list shows them (the companion check then judges them by the matrix alone)."""
    if facts.extensions is not None:
        return facts.extensions
    env = python_env(facts)
    torch = facts.frameworks.torch
    if env is None or not isinstance(torch, Found):
        return None
    present = [(n, env.distributions[n]) for n in COMPANIONS if n in env.distributions]
    if not present:
        return None
    t = torch.value
    return ExtensionFacts(t.version, t.cuda, None, (), (), tuple(Companion(n, v, _location(facts)) for n, v in present))


def _judged(facts: Any, name: str) -> bool:
    """Whether `name` is one of the companions the extension facts hold (apex, bitsandbytes and DeepSpeed among them)."""
    return facts.extensions is not None and any(c.name == name for c in facts.extensions.companions)


def enrich(facts: Any) -> Any:
    """The facts the model starts from: the recorded ones, with torch's companions taken from the package list
    where their files were not read (so moving torch without them shows)."""
    ext = _extensions(facts)
    return facts if ext is facts.extensions else replace(facts, extensions=ext)


def _pip_install(s: State, a: Action) -> None:
    f = s.facts
    env_new = a.kind == "conda-run" and a.name in s.envs
    if env_new:
        s.flag("unmodelled", a, f"installs into the new conda environment {a.name}: the diagnosis is of the recorded one")
        return
    for r in a.requirements:
        if r.name == "torch":
            t = torch_target(s, r, a)
            if isinstance(t, Unresolved):
                if not t.unserved:  # an unserved build fails to install: its need says so, and nothing changes
                    s.flag("unmodelled", a, t.reason)
                    if "--no-deps" not in a.flags and f.frameworks.nvidia_wheels:
                        s.flag("unmodelled", a, "the NVIDIA wheels an unknown torch build pulls in replace the installed ones")
                continue
            rel, variant, version = t
            cuda = variant.cuda if variant is not None else None
            old = f.frameworks.torch.value if isinstance(f.frameworks.torch, Found) else None
            if old is not None and f.extensions is not None and _torch_moved(old.version, old.cuda, version, cuda):
                # Built against the torch installed now: each companion not in this command is left behind until a later
                # command installs it again (flash-attn follows the install: it builds against the new torch).
                named = {q.name for q in a.requirements}
                for c in f.extensions.companions:
                    if c.name not in named and c.name != "triton":  # torch's own dependency: pip moves triton with it
                        s.behind.setdefault(c.name, (s.step, c.version, old.version))
            location = old.location if old else _location(f)
            kept = tuple(d for d in (old.lib_dirs if old else ()) if d.via == "wheel")
            pins = s.matrix.nvidia_pins(version, variant.tag) if variant is not None else None
            if cuda and "--no-deps" not in a.flags:
                kept = _wheel_libs(rel, variant, location)
                if pins is not None:
                    f = _pin_wheels(f, pins.wheels)
                else:
                    if f.frameworks.nvidia_wheels:
                        # pip moves the installed NVIDIA wheels to the new build's pins: only its cuDNN is in the matrix.
                        s.flag(
                            "unmodelled",
                            a,
                            "the NVIDIA wheels the new torch pins: the matrix read the pins of PyPI's builds only",
                        )
                    f = _add_wheels(f, variant.cuda, variant.cudnn)
            torch = TorchFacts(version, cuda, None, location, kept, True)
            f = replace(f, frameworks=replace(f.frameworks, torch=Found(torch, "plan")))
            if old is None or (old.version, old.cuda) != (version, cuda):  # the same build again prints the same
                f = _unsaid(f, _TORCH_SAID)
            f = _set_dist(f, "torch", version)
            if f.loading is not None:
                f = replace(
                    f, loading=replace(f.loading, frameworks=tuple(x for x in f.loading.frameworks if x.framework != "torch"))
                )
            if f.extensions is not None:
                # The new torch's own libraries and Requires-Dist were not read: what binds to them is judged by version.
                # Its NVIDIA pins where the matrix read that build (the NCCL check reads them).
                requires = tuple(f"{n}=={v}" for n, v in pins.wheels) if pins is not None else ()
                f = replace(f, extensions=replace(f.extensions, torch_version=version, torch_cuda=cuda, torch_cxx11abi=None,
                                                  torch_libs=(), torch_requires=requires))  # fmt: skip
            s.write(("package", "torch"), version, a)
        elif r.name in COMPANIONS or _judged(f, r.name):
            s.behind.pop(r.name, None)
            version = r.version
            built = next((c.version for c in f.extensions.companions if c.name == r.name), "") if f.extensions else ""
            if r.op == "@" and "--no-build-isolation" in a.flags and built:
                # Built from its source against the installed torch (no isolated build fetching another torch): the
                # same release, now bound to this torch.
                version = built
            elif not version or r.wildcard:
                installed = f.extensions.torch_version if f.extensions else None
                row = s.matrix.companion_for(r.name, installed) if installed else None
                if row is None:
                    s.flag("unmodelled", a, f"which {r.name} pip picks: the matrix names none for torch {installed}")
                    if f.extensions is not None:  # replaced by a version the model cannot name: no longer judged
                        comps = tuple(c for c in f.extensions.companions if c.name != r.name)
                        f = replace(f, extensions=replace(f.extensions, companions=comps))
                    continue
                version = row.version
            tag = index_tag(a.index)
            if tag and r.name in ("torchvision", "torchaudio") and "+" not in version:
                version = f"{version}+{tag}"  # the PyTorch index's builds carry their variant as a local tag
            ext = f.extensions
            if ext is not None:
                # A fresh wheel (or a build against the installed torch): its ELF was not read, so what binds to torch is
                # judged by its version against the matrix's companion rows, as the companion check does.
                site = next((c.site for c in ext.companions if c.name == r.name), _location(f))
                comp = Companion(r.name, version, site)
                comps = tuple(c for c in ext.companions if c.name != r.name) + (comp,)
                f = replace(f, extensions=replace(ext, companions=comps))
            f = _set_dist(f, r.name, version)
            s.write(("package", r.name), version, a)
        elif r.name in ("tensorflow", "tensorflow-gpu", "tensorflow-cpu"):
            rel = s.matrix.tensorflow_release(r.version.rstrip(".*")) if r.version else None
            if rel is None:
                s.flag("unmodelled", a, f"the matrix has no tensorflow {r.version or '(unpinned)'} release")
                continue
            version = rel.tested if r.wildcard or not r.version else r.version
            tf = TensorflowFacts(version, r.name, r.name != "tensorflow-cpu", rel.cuda, rel.cudnn, _location(f))
            f = replace(f, frameworks=replace(f.frameworks, tensorflow=Found(tf, "plan")))
            f = _set_dist(f, r.name, version)
            if f.loading is not None:
                f = replace(
                    f,
                    loading=replace(f.loading, frameworks=tuple(x for x in f.loading.frameworks if x.framework != "tensorflow")),
                )
            if "and-cuda" in r.extras and rel.and_cuda:
                # The extra brings NVIDIA's wheels of the release's CUDA and cuDNN: the sonames it loads (the matrix).
                site = _location(f)
                tf = replace(tf, lib_dirs=(LibDir(f"{site}/nvidia/lib", "wheel", tuple(rel.sonames)),))
                f = _add_wheels(replace(f, frameworks=replace(f.frameworks, tensorflow=Found(tf, "plan"))), rel.cuda, rel.cudnn)
            numpy = (python_env(f).distributions.get("numpy") if python_env(f) else None) or ""
            if numpy.split(".")[0].isdigit() and int(numpy.split(".")[0]) >= 2:
                s.flag("unmodelled", a, f"whether numpy {numpy} suits tensorflow {version}: the matrix holds no numpy data")
            s.write(("package", r.name), version, a)
        elif r.name in ("jax", "jaxlib") or r.name.startswith("jax-cuda"):
            f = _jax(s, f, r, a)
        elif r.name.startswith("nvidia-"):
            s.wheels[r.name] = r.version or r.spec  # its directory's libraries (a later LD_LIBRARY_PATH step)
            if not r.version:
                s.flag("unmodelled", a, f"{r.name} unpinned: which version pip picks is not modelled")
                continue
            wheels = dict(f.frameworks.nvidia_wheels)
            wheels[r.name] = r.version
            f = replace(f, frameworks=replace(f.frameworks, nvidia_wheels=wheels))
            f = _set_dist(f, r.name, r.version)
            s.write(("package", r.name), r.version, a)
        elif r.op == "==" and r.version and not r.wildcard:
            # Any other package at an exact version: that distribution at that version in this interpreter's
            # environment (what the checks read of it: its version among the distributions), no more.
            f = _set_dist(f, r.name, r.version)
            s.write(("package", r.name), r.version, a)
        else:
            s.flag("unmodelled", a, f"{r.name} {r.spec or '(unpinned)'}: which version pip picks is not modelled")
    s.facts = f


# What a pasted report quotes of the build of a framework itself (its arch list, its CPU-only build, its version
# pairing), by gpudoctor.parsers.error_texts kind: text the replaced build printed, which the new one does not; the
# checks then judge the new build by its facts and the matrix. (What the text says of the driver, the loader or the
# GPU stays: a new build does not change it.)
_TORCH_SAID = frozenset({"arch-unsupported", "arch-list", "torch-not-compiled-with-cuda"})
_JAX_SAID = frozenset(
    {"jax-plugin-incompatible", "jax-plugin-api-missing", "pjrt-plugin-mismatch", "jaxlib-jax-mismatch", "jaxlib-cpu-fallback"}
)


def _unsaid(facts: Any, kinds: frozenset[str]) -> Any:
    """The facts without the pasted failure texts of `kinds`: the build that printed them is replaced."""
    errors = tuple(e for e in facts.pasted.errors if e.kind not in kinds)
    return facts if len(errors) == len(facts.pasted.errors) else replace(facts, pasted=replace(facts.pasted, errors=errors))


def _torch_moved(old: str, old_cuda: str | None, new: str, new_cuda: str | None) -> bool:
    """Whether what was built against torch `old` no longer binds to `new`: another version (its C++ names change
    with each release), or another CUDA major (its kernels link that runtime)."""
    if old.split("+", 1)[0] != new.split("+", 1)[0]:
        return True
    return bool(old_cuda and new_cuda and old_cuda.split(".")[0] != new_cuda.split(".")[0])


def left_behind(s: State) -> None:
    """At the end of the plan: each companion a torch move left behind that is not built for the torch the plan
    leaves (its wheel's torch pin, the matrix's companion row, flash-attn's local tag say so) breaks: the plan moved
    torch without it. And each binary a step removed that no later step builds again: its import fails."""
    for obj, step in sorted(s.unbuilt.items()):
        s.step, s.component = step, "torch"
        s.flag("breaks", None, f"{obj} is removed and no later step builds it again: its import fails", ())
    torch = s.facts.frameworks.torch
    ext = s.facts.extensions
    if not s.behind or not isinstance(torch, Found) or ext is None:
        return
    now = torch.value.version
    for name, (step, version, before) in sorted(s.behind.items()):
        c = next((x for x in ext.companions if x.name == name and x.version == version), None)
        if c is None or _built_for(s, c, now):
            continue
        s.step, s.component = step, "torch"
        s.flag(
            "breaks",
            None,
            f"{name} {version} is left built for torch {before}: the plan moves torch to {now} without it",
            ("companion-torch-mismatch",),
        )


def _built_for(s: State, c: Companion, torch: str) -> bool:
    public = torch.split("+", 1)[0]
    pins = [r.split("==", 1)[1].strip() for r in c.requires if re.match(r"^torch\s*==", r)]
    if pins:
        return pins[0].split("+", 1)[0] == public
    tag = re.search(r"torch(\d+\.\d+)", c.version)
    if tag:
        return tag.group(1) == ".".join(public.split(".")[:2])
    row = next((r for r in s.matrix.companion_releases(c.name) if r.version == c.version.split("+", 1)[0]), None)
    return row is not None and row.fits(public)


def _jax(s: State, f: Any, r: Requirement, a: Action) -> Any:
    old = f.frameworks.jax.value if isinstance(f.frameworks.jax, Found) else JaxFacts(None, None, {}, _location(f))
    if not r.version or r.wildcard:
        s.flag("unmodelled", a, f"{r.name} without an exact version: which release pip picks is not modelled")
        return f
    jax, jaxlib, plugins, lib_dirs = old.jax, old.jaxlib, dict(old.plugins), old.lib_dirs
    cuda = next((int(m.group(1)) for e in r.extras if (m := re.fullmatch(r"cuda(\d+)(?:-local|-pip)?", e))), None)
    rel = s.matrix.jax_release(r.version)
    if r.name == "jax":
        jax = r.version
        if r.extras:  # jax[cpu], jax[cuda12], jax[tpu]: jaxlib of the same version
            jaxlib = r.version
        if cuda is not None:
            plugins = {k: v for k, v in plugins.items() if not k.startswith("jax-cuda")}
            if rel is not None and rel.packaging != "jaxlib":
                plugins[f"jax-cuda{cuda}-plugin"] = r.version
                plugins[f"jax-cuda{cuda}-pjrt"] = r.version
            need = rel.cuda.get(cuda) if rel is not None else None
            if need is None or not need.cudnn:
                s.flag("unmodelled", a, f"the matrix does not say which cuDNN jax {r.version} brings for CUDA {cuda}")
            else:
                # jax[cudaNN] brings NVIDIA's wheels: cuDNN at the floor the matrix names for this release.
                floor = re.sub(r"[^\d.]", "", need.cudnn.split(",")[0]) or None
                site = (old.location or _location(f)).rsplit("/jax", 1)[0]
                lib_dirs = (LibDir(f"{site}/nvidia/lib", "wheel", _sonames(f"{cuda}.0", floor)),)
                f = _add_wheels(f, f"{cuda}.0", floor)
    elif r.name == "jaxlib":
        jaxlib = r.version
    else:
        plugins[r.name] = r.version
    new = JaxFacts(jax, jaxlib, plugins, old.location or _location(f), lib_dirs)
    f = replace(f, frameworks=replace(f.frameworks, jax=Found(new, "plan")))
    if (new.jax, new.jaxlib, new.plugins) != (old.jax, old.jaxlib, old.plugins):  # the same again prints the same
        f = _unsaid(f, _JAX_SAID)
    for name, v in (("jax", jax), ("jaxlib", jaxlib), *plugins.items()):
        if v:
            f = _set_dist(f, name, v)
    if f.loading is not None:
        f = replace(f, loading=replace(f.loading, frameworks=tuple(x for x in f.loading.frameworks if x.framework != "jax")))
    s.write(("package", r.name), r.version, a)
    return f


def _pip_uninstall(s: State, a: Action) -> None:
    f = s.facts
    for r in a.requirements:
        wheels = {k: v for k, v in f.frameworks.nvidia_wheels.items() if canon(k) != r.name}
        fw: FrameworkFacts = replace(f.frameworks, nvidia_wheels=wheels)
        if r.name in ("torch", "tensorflow", "jax"):
            removed: dict[str, Any] = {r.name: Absent("removed by the plan", "plan")}
            fw = replace(fw, **removed)
        f = replace(f, frameworks=fw)
        if f.extensions is not None and _judged(f, r.name):
            f = replace(
                f, extensions=replace(f.extensions, companions=tuple(c for c in f.extensions.companions if c.name != r.name))
            )
        f = _set_dist(f, r.name, None)
        s.behind.pop(r.name, None)
        s.write(("package", r.name), "removed", a)
    s.facts = f


def _conda_install(s: State, a: Action) -> None:
    """conda-forge's cudatoolkit and cudnn into a Windows environment: their DLLs land in PREFIX/Library/bin, which
    conda's Python searches (TensorFlow's documented route for 2.10 on native Windows, tensorflow.org/install/pip).
    The DLL names follow NVIDIA's: cudart64_110.dll serves every CUDA 11.x, cudnn64_8.dll every cuDNN 8."""
    f = s.facts
    win = f.windows
    pins = {p.partition("=")[0]: p.partition("=")[2] for p in a.packages}
    cuda, cudnn = pins.get("cudatoolkit", ""), pins.get("cudnn", "")
    if win is None or not a.dest or not (cuda or cudnn) or set(pins) - {"cudatoolkit", "cudnn"}:
        s.flag("unmodelled", a, "a conda install other than CUDA and cuDNN into a Windows environment by its prefix")
        return
    dlls: list[str] = []
    if cuda:
        major, _, minor = cuda.partition(".")
        dlls.append(f"cudart64_{major}0.dll" if int(major or 0) >= 11 else f"cudart64_{major}{(minor or '0')[:1]}.dll")
    if cudnn:
        dlls.append(f"cudnn64_{cudnn.split('.')[0]}.dll")
    path = a.dest.rstrip("/\\") + "/Library/bin"
    kept = tuple(d for d in win.dll_dirs if d.path != path)
    s.facts = replace(f, windows=replace(win, dll_dirs=(DllDir(path, "conda", tuple(dlls)), *kept)))
    for p, v in pins.items():
        s.write(("conda-package", p), v, a)


def _switch_link(s: State, a: Action) -> None:
    f = s.facts
    tk = toolkit_of(f, a.name)
    root = tk.root if tk else f"/usr/local/cuda-{a.name}"
    link = CudaLink(f.toolkits.link.path or "/usr/local/cuda", "link", root, root, f.toolkits.link.managed_by_alternatives)
    toolkits = tuple(_moved(t, root, ("/usr/local/cuda link",)) for t in f.toolkits.toolkits)
    s.facts = replace(f, toolkits=replace(f.toolkits, link=link, toolkits=toolkits))
    s.write(("link", "/usr/local/cuda"), a.name, a)


def _moved(t: Toolkit, root: str, vias: tuple[str, ...]) -> Toolkit:
    """`t` with `vias` (the ways a toolkit is named) now naming the toolkit at `root` alone."""
    kept = tuple(v for v in t.found_via if v not in vias)
    return replace(t, found_via=kept + (vias if t.root == root else ()))


# The ways the toolkits probe records that the shell names a toolkit (gpudoctor.probes.toolkits): what
# `eval "$(gpudoctor switch-cuda X --shell)"` re-points (CUDA_HOME, PATH's nvcc, LD_LIBRARY_PATH).
_SHELL_VIAS = ("nvcc on PATH", "CUDA_HOME", "LD_LIBRARY_PATH")


def _shell_env(s: State, a: Action) -> None:
    f = s.facts
    tk = toolkit_of(f, a.name)
    root = tk.root if tk else f"/usr/local/cuda-{a.name}"
    nvcc = tk.nvcc if tk and tk.nvcc else f"{root}/bin/nvcc"
    toolkits = tuple(_moved(t, root, _SHELL_VIAS) for t in f.toolkits.toolkits)
    t = replace(f.toolkits, toolkits=toolkits, cuda_home=root, nvcc_on_path=nvcc,
                nvcc_on_path_version=(tk.version if tk else a.name), ld_library_path_toolkits=(root,))  # fmt: skip
    f = _set_env(replace(f, toolkits=t), "CUDA_HOME", root)
    s.facts = f
    s.write(("env", "CUDA_HOME"), root, a)
    if f.loading is not None and any(fl.loads for fl in f.loading.frameworks):
        s.flag(
            "unmodelled", a, "LD_LIBRARY_PATH gains the toolkit's lib64: the loader's choice for the frameworks is not recomputed"
        )


def _listing(facts: Any, directory: str) -> tuple[str, ...] | None:
    """The CUDA libraries a directory holds, where any probe listed it; None where none did."""
    d = directory.rstrip("/")
    groups: list[tuple[LibDir, ...]] = [facts.ld_library_path]
    if facts.loading is not None:
        groups.append(facts.loading.dirs)
    for outcome in (facts.frameworks.torch, facts.frameworks.tensorflow, facts.frameworks.jax):
        if isinstance(outcome, Found):
            groups.append(outcome.value.lib_dirs)
    if facts.frameworks.env_lib is not None:
        groups.append((facts.frameworks.env_lib,))
    for group in groups:
        for libdir in group:
            if libdir.path.rstrip("/") == d:
                return libdir.names
    return None


# NVIDIA's CUDA wheels: the sonames a wheel's nvidia/<library>/lib holds, by the wheel's name. The CUDA 11 ones are
# the sonames compat_matrix/tensorflow.toml lists for the TensorFlow releases that load them from these wheels (2.5 to
# 2.13); cuBLAS 12's is the name CTranslate2 4 asks for (parsers/catalogue.toml, ctranslate2-cublas-missing). cuDNN's
# soname is its own major, read from the wheel's version or specifier.
_WHEEL_SONAMES = {
    "nvidia-cublas-cu11": ("libcublas.so.11", "libcublasLt.so.11"),
    "nvidia-cublas-cu12": ("libcublas.so.12", "libcublasLt.so.12"),
    "nvidia-cuda-runtime-cu11": ("libcudart.so.11.0",),
    "nvidia-cufft-cu11": ("libcufft.so.10",),
    "nvidia-curand-cu11": ("libcurand.so.10",),
    "nvidia-cusolver-cu11": ("libcusolver.so.11",),
    "nvidia-cusparse-cu11": ("libcusparse.so.11",),
}


def _wheel_dir(s: State, directory: str) -> tuple[str, ...] | None:
    """The sonames of `<site-packages>/nvidia/<lib>/lib` where an NVIDIA wheel of that library is installed (on the
    machine, or by an earlier step of the plan), else None."""
    m = re.search(r"/nvidia/([a-z_]+)/lib/?\Z", directory)
    if m is None:
        return None
    wheels = {**s.facts.frameworks.nvidia_wheels, **s.wheels}
    for wheel, version in wheels.items():
        w = re.fullmatch(r"nvidia-([a-z-]+)-cu\d+", wheel)
        if not w or w.group(1).replace("-", "_") != m.group(1):
            continue
        if w.group(1) == "cudnn":
            major = re.search(r"\d+", version or "")
            if major is None:
                return None
            n = major.group(0)
            return (f"libcudnn.so.{n}", *(f"libcudnn_{p}.so.{n}" for p in ("ops_infer", "cnn_infer", "adv_infer")))
        return _WHEEL_SONAMES.get(wheel)
    return None


def _prepend(s: State, a: Action) -> None:
    """A directory put first on a list variable: LD_LIBRARY_PATH's new order followed through the loader (a program's
    output by the directory it prints: Output.site_dir under the environment's site-packages)."""
    line = a.line
    assert isinstance(line, PrependPath)
    directory = a.value
    if directory is None:
        outputs = [p for p in line.parts if isinstance(p, Output)]
        site = _location(s.facts)
        if len(line.parts) != 1 or not outputs[0].site_dir or not site:
            s.flag("unmodelled", a, f"the directory a program prints for {a.name}: not followed")
            return
        directory = f"{site.rstrip('/')}/{outputs[0].site_dir}"
    if a.name != "LD_LIBRARY_PATH":
        s.flag("unmodelled", a, f"{a.name} changes what is found first: not recomputed")
        return
    new = [d for d in directory.split(":") if d]  # a literal may name several, in order
    old = [d for d in s.facts.platform.env.get("LD_LIBRARY_PATH", "").split(":") if d and d not in new]
    value = ":".join([*new, *old])
    facts = s.facts
    for d in new:
        listed = _wheel_dir(s, d)
        if listed is not None and _listing(facts, d) is None:
            facts = replace(facts, ld_library_path=(*facts.ld_library_path, LibDir(d, "wheel", listed)))
    moved = _loader_path(facts, value)
    if isinstance(moved, str):
        s.flag("unmodelled", a, moved)
    else:
        s.facts = moved
    s.write(("env", a.name), value, a)


def _loader_path(facts: Any, value: str | None) -> Any:
    """The facts with LD_LIBRARY_PATH set to `value` (None: unset): its directories, and each framework's
    resolutions re-ordered as ld.so searches (RPATH copies first, then LD_LIBRARY_PATH, then the rest:
    gpudoctor.loader.search_order). A string says why it cannot be followed (a directory nobody listed)."""
    dirs = [d for d in (value or "").split(":") if d]
    libdirs = []
    for d in dirs:
        names = _listing(facts, d)
        if names is None:
            return f"LD_LIBRARY_PATH names {d}, whose libraries were not listed: what the loader finds there is unknown"
        libdirs.append(LibDir(d, "LD_LIBRARY_PATH", names))
    f = _set_env(replace(facts, ld_library_path=tuple(libdirs)), "LD_LIBRARY_PATH", value)
    if f.loading is None:
        return f
    frameworks = []
    for fl in f.loading.frameworks:
        loads = []
        for res in fl.loads:
            copies = [c for c in res.copies if c.via != "LD_LIBRARY_PATH"]
            lead = 0
            while lead < len(copies) and copies[lead].via.startswith("RPATH of "):
                lead += 1
            new = [LibraryCopy(f"{d.path.rstrip('/')}/{res.soname}", "LD_LIBRARY_PATH") for d in libdirs if res.soname in d.names]
            copies = copies[:lead] + new + copies[lead:]
            if not res.copies and res.path is not None:
                loads.append(res)  # read without its copies: nothing to re-order
                continue
            first = copies[0] if copies else None
            loads.append(
                replace(
                    res,
                    path=first.path if first else None,
                    via=first.via if first else None,
                    shadowed=tuple(c.path for c in copies[1:]),
                    version=_copy_version(res, first),
                    copies=tuple(copies),
                )
            )
        frameworks.append(replace(fl, loads=tuple(loads)))
    return replace(f, loading=replace(f.loading, frameworks=tuple(frameworks)))


def _copy_version(res: Any, copy: Any) -> str | None:
    """The version of the copy that now loads: its own where known, the old one's where it is the same file."""
    if copy is None:
        return None
    if copy.version:
        return copy.version
    return res.version if copy.path == res.path else None


def _pkg_install(s: State, a: Action) -> None:
    s.installed.update(a.packages)
    if not a.packages:  # dpkg --configure -a, apt-get install --fix-broken
        if s.driver is not None and s.driver.finished:
            return  # the upgrade an earlier command of the plan finished: nothing is left interrupted
        build = driver_state.finished(s.facts, f"step {s.step}'s package repair")
        if build is not None:
            # The driver upgrade that left the mismatch, finished: its user-space now, its module at the next boot.
            d = _driver(s)
            d.userspace, d.pending, d.finished = build, build, True
            s.facts = driver_state.settle(s.facts, d)
            return
        s.disk_changed.append("interrupted package installs finished")
        s.flag("unmodelled", a, "finishes interrupted installs: which packages, and their versions, were not recorded")
        return
    for p in a.packages:
        name = p.split("=")[0]
        m = _TOOLKIT_PKG.match(name)
        if m:
            version = f"{m.group(1)}.{m.group(2)}"
            root = f"/usr/local/cuda-{version}"
            tk = Toolkit(root, version, "version.json", ("plan",), f"{root}/bin/nvcc", True)
            s.facts = replace(s.facts, toolkits=replace(s.facts.toolkits, toolkits=(*s.facts.toolkits.toolkits, tk)))
            s.toolkits.add(version)
            s.write(("package", name), p, a)
        elif (cudnn := _CUDNN_PKG.match(p)) is not None:
            why = _cudnn_package(s, int(cudnn.group(1)), cudnn.group(2) or cudnn.group(3))
            if why:
                s.disk_changed.append(p)
                s.flag("unmodelled", a, f"{p}: {why}")
            s.write(("package", name), p, a)
        elif _driver_package(s, p):
            s.write(("package", name), p, a)
        elif _DRIVER_PKG.match(name):
            s.disk_changed.append(f"driver package {p}")
            s.flag("unmodelled", a, f"{p}: the driver version it installs is the repository's on the day")
        else:
            s.disk_changed.append(p)
            s.flag("unmodelled", a, f"{p}: the libraries it puts on the loader's path are not modelled")


def _driver(s: State) -> driver_state.Driver:
    if s.driver is None:
        s.driver = driver_state.start(s.facts)
    return s.driver


def _driver_package(s: State, package: str) -> bool:
    """A driver package on a machine whose driver library and module differ (or that a step of the plan already
    changed): its user-space build now, its module (where the package carries it) at the next boot. False where the
    model does not follow it (another machine: what a new branch changes of what the checks read is not modelled)."""
    got = driver_state.package_build(package, f"step {s.step}'s {package.split('=')[0]}")
    if got is None or (s.driver is None and not driver_state.mismatched(s.facts)):
        return False
    build, module = got
    d = _driver(s)
    d.userspace = build
    if module:
        d.pending = build
    s.facts = driver_state.settle(s.facts, d)
    return True


def _activate(s: State, a: Action) -> bool:
    """A reboot, or the nvidia module loaded where rmmod took it out: the module pending on disk becomes the loaded
    one. Pending: what a driver step of the plan put on disk; else, on a mismatch the plan has read the module on disk
    for (modinfo), the module its reboot is for (driver_state.on_disk). False where neither: not followed here."""
    read = ("modinfo", "-F", "version", "nvidia") in s.asked
    d = s.driver
    pending = d.pending if d is not None else None
    if pending is None:
        pending = driver_state.on_disk(s.facts, read)
        if pending is None:
            return False
        d = _driver(s)
        if d.userspace is None:
            d.userspace = pending  # the libraries' build, whose version the record does not show
    assert d is not None
    d.loaded, d.pending, d.unloaded = pending, None, False
    s.facts = driver_state.settle(s.facts, d)
    return True


def _module(s: State, a: Action) -> str | None:
    """rmmod of the nvidia modules takes the loaded one out; modprobe nvidia after it (or where a driver step of the plan
    left a module pending and none was loaded) loads the one on disk, as a reboot does; with nothing pending and the
    driver answering, it loads the same build again and changes nothing. Returns what is not followed."""
    words = a.line.words if isinstance(a.line, Cmd) else ()
    if "nvidia" not in words:
        return _UNMODELLED["module-load"]
    if a.tool == "rmmod":
        if s.driver is not None or driver_state.mismatched(s.facts):
            _driver(s).unloaded = True
            return None
        return _UNMODELLED["module-load"]
    d = s.driver
    if d is not None and (d.unloaded or d.loaded is None and not driver_state.mismatched(s.facts)) and _activate(s, a):
        return None
    if d is not None and d.loaded is not None and d.pending is None and not driver_state.mismatched(s.facts):
        # Nothing pending and the module answering: loading it (again, after rmmod) loads the same build; nothing changes.
        d.unloaded = False
        return None
    return _UNMODELLED["module-load"]


def _cudnn_package(s: State, major: int, cuda: str | None) -> str | None:
    """A cuDNN package of NVIDIA's repository installed: the newest release of that major for that CUDA major (the
    matrix), its library in the loader's cache and in each framework's copies. None when applied, else why not."""
    f = s.facts
    if cuda is None:
        return "which CUDA major its build is for is not named"
    fits = [r for r in s.matrix.cudnn_releases if r.version.split(".")[0] == str(major) and int(cuda) in r.cuda_majors]
    libdir = (
        _LIBDIR.get((f.platform.machine or "").lower()) if "debian" in distro_family(f) | {f.platform.distro.id or ""} else None
    )
    if not fits:
        return f"the matrix has no cuDNN {major} for CUDA {cuda}"
    if libdir is None:
        return "where its library goes on this machine is not known (not a Debian-family x86_64 or aarch64)"
    if not isinstance(f.ldconfig, Found):
        return "the loader's cache was not recorded: what it holds after the install is unknown"
    version = max((r.through or r.version for r in fits), key=version_key)
    soname = f"libcudnn.so.{major}"
    path = f"{libdir}/{soname}"
    cache = dict(f.ldconfig.value)
    if any(p != path for p in cache.get(soname, ())):
        return f"the loader's cache already holds another {soname}: which one it then takes is not modelled"
    cache[soname] = (path,)
    loading = f.loading
    if loading is not None:
        frameworks = []
        for fl in loading.frameworks:
            loads = []
            for res in fl.loads:
                if res.soname == soname:
                    copies = [c for c in res.copies if c.path != path]
                    at = next((i for i, c in enumerate(copies) if c.via == "default"), len(copies))
                    copies.insert(at, LibraryCopy(path, "ldconfig", version))
                    first = copies[0]
                    res = replace(res, path=first.path, via=first.via, shadowed=tuple(c.path for c in copies[1:]),
                                  version=_copy_version(res, first), copies=tuple(copies))  # fmt: skip
                loads.append(res)
            frameworks.append(replace(fl, loads=tuple(loads)))
        loading = replace(loading, frameworks=tuple(frameworks))
    install = CudnnInstall(version, major, "library", path, int(cuda))
    s.facts = replace(f, ldconfig=Found(cache, f.ldconfig.source), loading=loading, cudnn=(*f.cudnn, install))
    return None


# Findings that judged the loaded driver too old: a reboot alone loads the same driver.
_DRIVER_TOO_OLD = {"framework-driver-too-old", "toolkit-newer-than-driver"}


# Findings that say no NVIDIA driver is installed to load (nouveau holds the GPU, or no module at all): a reboot reaches
# the plan's goal, nvidia loaded, only after a step that installs one.
_NO_DRIVER = {"driver-nouveau", "driver-missing"}
_DRIVER_INSTALLED = ("driver package ", "a driver the distribution chooses")


# What the model follows of a boot beside the driver: nouveau blacklisted in modprobe.d (a tee of "blacklist nouveau"
# into /etc/modprobe.d), and the initramfs rebuilt with it (update-initramfs, dracut).
_NOUVEAU_BLACKLISTED = "nouveau blacklisted in modprobe.d"
_BOOT_FOLLOWED = frozenset({_NOUVEAU_BLACKLISTED, "update-initramfs", "dracut", "a driver the distribution chooses"})


def _blacklists_nouveau(a: Action) -> bool:
    return a.kind == "module-config" and isinstance(a.line, Cmd) and "blacklist nouveau" in a.line.words


def _reboot(s: State, a: Action) -> None:
    d = s.facts.driver
    if s.driver is not None and s.driver.pending is not None or driver_state.mismatched(s.facts):
        # The module the plan (or the upgrade the record shows) put on disk is loaded; nouveau stays out where a step
        # blacklisted it (modprobe.d, read at boot; the initramfs rebuilt with it). Anything else on disk: not followed.
        kernel = s.facts.kernel
        if _NOUVEAU_BLACKLISTED in s.disk_changed:
            s.facts = replace(s.facts, kernel=replace(kernel, nouveau_loaded=False))
        if _activate(s, a):
            rest = [c for c in s.disk_changed if c not in _BOOT_FOLLOWED]
            s.disk_changed.clear()
            if rest:
                s.flag("unmodelled", a, f"loads what earlier steps changed on disk ({rest[0]}): not followed by the model")
            return
        s.facts = replace(s.facts, kernel=kernel)
    if set(s.codes) & _NO_DRIVER and not any(c.startswith(_DRIVER_INSTALLED) for c in s.disk_changed):
        # (a blacklist and a rebuilt initramfs change the boot, but boot into no NVIDIA driver: issue 27, kind 9)
        s.flag("unmet-precondition", a, "reboots into no NVIDIA driver: none is installed, and no earlier step installs one")
        s.disk_changed.clear()
    elif s.disk_changed:
        s.flag("unmodelled", a, f"loads what earlier steps changed on disk ({s.disk_changed[0]}): not followed by the model")
        s.disk_changed.clear()
    elif d.nvml_status == "lib_rm_version_mismatch" or d.smi_error_kind == "driver-library-mismatch":
        s.flag("unmodelled", a, "loads the kernel module on disk, whose version was not recorded")
    elif any(g.lost for g in d.gpus) or s.component == "health":
        s.flag("unmodelled", a, "whether a GPU that fell off the bus comes back is the hardware's")
    elif not (d.reachable or d.version or d.cuda_version or set(s.codes) & _DRIVER_TOO_OLD):
        # No driver answers: a reboot may load a module that is on disk (built for a newer kernel), which was not recorded.
        s.flag("unmodelled", a, "whether a reboot brings up a driver: the modules on disk were not recorded")
    else:
        # The loaded driver is known (or judged too old by the finding the step answers) and nothing pending shows:
        # a reboot loads the same one again.
        s.flag("unmet-precondition", a, "a reboot with nothing to activate: no earlier step changes what it loads")


# apt and apt-get read one package index (/var/lib/apt/lists): an update by either serves both.
_APT = {"apt": "apt-get"}


def apply(s: State, a: Action) -> None:
    k = a.kind
    # Kinds that change nothing the diagnosis reads (a service restart: the recorded machine holds no service state).
    if k in ("inspect", "pkg-update", "pkg-hold", "pip-download", "repo-add", "conda-create", "service-restart"):
        if k == "pkg-update":
            s.fresh |= s.sources
            s.refreshed.add(_APT.get(a.tool, a.tool))
        elif k == "repo-add":
            source = a.name or "nvidia-cuda"  # dpkg -i of cuda-keyring: NVIDIA's CUDA repository
            s.sources.add(source)
            s.fresh.discard(source)
        elif k == "pip-download":
            s.staged.setdefault(a.dest or "", {}).update({r.name: a.index for r in a.requirements})
        elif k == "conda-create":
            s.envs[a.name] = next((p.partition("=")[2] for p in a.packages if p.startswith("python=")), None)
        elif k == "inspect" and a.tool.rsplit("/", 1)[-1] == "wget" and isinstance(a.line, Cmd):
            s.downloaded.update(w.rsplit("/", 1)[-1] for w in a.line.words[1:] if not w.startswith("-"))
        return
    if k in ("pip-install", "conda-run"):
        if "--no-index" in a.flags and a.index is None:
            # Installed from what an earlier `pip download` fetched: from that command's index.
            staged = s.staged.get(a.dest or "", {})
            a = replace(a, index=next((staged[r.name] for r in a.requirements if staged.get(r.name)), None))
        rebuilt(s, a)
        if k == "conda-run" and not a.requirements:
            s.flag("unmodelled", a, "a command in another conda environment")
            return
        _pip_install(s, a)
    elif k == "pip-uninstall":
        _pip_uninstall(s, a)
    elif k == "conda-install":
        _conda_install(s, a)
    elif k == "conda-remove":
        # The facts hold no conda package beside the frameworks (cpuonly is a pin for conda's solver, no files): the
        # removal is recorded, the facts stay.
        for p in a.packages:
            s.write(("conda-package", p), "removed", a)
    elif k in ("env-set", "env-unset", "conda-env-vars"):
        if a.name == "LD_LIBRARY_PATH":
            moved = _loader_path(s.facts, a.value)
            if isinstance(moved, str):
                s.flag("unmodelled", a, moved)
            else:
                s.facts = moved
        elif a.name in ("PATH", "LD_PRELOAD"):
            s.flag("unmodelled", a, f"{a.name} changes what is found first: not recomputed")
        else:
            s.facts = _set_env(s.facts, a.name, a.value)
        s.write(("env", a.name), str(a.value), a)
    elif k == "env-prepend":
        # One directory on each variable the line names (PrependPath.also: a link's LIBRARY_PATH and the load's
        # LD_LIBRARY_PATH), each followed as its own line would be.
        line = a.line
        assert isinstance(line, PrependPath)
        for name in line.names:
            _prepend(s, replace(a, name=name))
    elif k == "link-switch":
        _switch_link(s, a)
    elif k == "shell-env":
        _shell_env(s, a)
    elif k == "pkg-install":
        _pkg_install(s, a)
    elif k == "registry" and s.facts.windows is not None:
        w = s.facts.windows
        s.facts = _set_env(
            replace(
                s.facts, windows=replace(w, cuda_path_versions={n: v for n, v in w.cuda_path_versions.items() if n != a.name})
            ),
            a.name,
            None,
        )
        s.write(("env", a.name), "None", a)
    elif k in ("module-config", "boot-image"):
        # takes effect at the next boot
        s.disk_changed.append(
            _NOUVEAU_BLACKLISTED if _blacklists_nouveau(a) else a.tool if k == "boot-image" else a.name or a.tool
        )
    elif k == "gpu-config" and isinstance(a.line, Cmd) and "-dm" in a.line.words:
        # nvidia-smi -dm (the Windows driver model) is stored and applied at the next start (nvidia-smi(1), -dm: "Will
        # take effect after reboot"): the restart after it has something to activate, and is where the model stops.
        s.disk_changed.append("the GPU's driver model")
    elif k == "driver-install" and not set(s.codes) & _DRIVER_TOO_OLD and not s.facts.platform.wsl:
        # Where any NVIDIA driver answers the finding (none installed, nouveau holding the GPU): the branch the
        # distribution recommends, its user-space now and its module at the next boot or modprobe; its version stays
        # unknown (driver_state.DriverBuild without one), so nothing judged by the version is cleared by it.
        d = _driver(s)
        d.userspace = d.pending = driver_state.DriverBuild(None, None, f"step {s.step}'s {a.tool} install")
        s.disk_changed.append("a driver the distribution chooses")
    elif k == "driver-install":
        s.disk_changed.append("a driver the distribution chooses")
        s.flag("unmodelled", a, "the driver branch the distribution recommends is chosen on the day")
    elif k == "reboot":
        _reboot(s, a)
    elif k == "module-load":
        if why := _module(s, a):
            s.flag("unmodelled", a, why)
    elif k == "remove-files":
        _remove_files(s, a)
    elif k == "container-run" and "--gpus" in " ".join(a.flags) and (why := _container_again(s, a)):
        s.flag("unmodelled", a, why)
    elif k == "wsl":
        sub = next((w for w in a.line.words[1:] if w.startswith("--")), "") if isinstance(a.line, Cmd) else ""
        s.flag("unmodelled", a, _WSL.get(sub, _UNMODELLED["wsl"]))
    else:
        s.flag("unmodelled", a, _UNMODELLED.get(k, f"no model of {a.tool}"))


# torch's just-in-time extension cache (torch.utils.cpp_extension: TORCH_EXTENSIONS_DIR, by default
# ~/.cache/torch_extensions, /tmp/torch_extensions in older releases): load() builds an extension there again when its
# folder is gone, at the program's next run.
_JIT_CACHE = "/torch_extensions/"


def _under(path: str, removed: str) -> bool:
    removed = removed.rstrip("/")
    return bool(removed) and (path == removed or path.startswith(removed + "/"))


def _remove_files(s: State, a: Action) -> None:
    """rm of files or folders: the snapshot holds none of them, so no fact changes but what the pasted text printed from
    a binary removed (a stale build's undefined symbol): that binary is gone, and its text with it. A binary removed
    must be built again: by torch's JIT at the next run (its cache), or by a later step that installs its source tree
    (`pip install -e DIR`); one left to no rebuild is checked at the end (`left_behind`)."""
    gone = [e for e in s.facts.pasted.errors if (obj := e.get("object")) and any(_under(obj, p) for p in a.packages)]
    if not gone:
        # Files the report names no failure of (a library, a link the facts may hold): what their removal takes away is
        # not followed.
        s.flag("unmodelled", a, "no model of rm beyond a binary the pasted text names")
        return
    errors = tuple(e for e in s.facts.pasted.errors if e not in gone)
    s.facts = replace(s.facts, pasted=replace(s.facts.pasted, errors=errors))
    for e in gone:
        obj = str(e.get("object"))
        if _JIT_CACHE not in obj:
            s.unbuilt.setdefault(obj, s.step)


# What a pasted report shows of a container that has no GPU access: the docker run line without --gpus, and inside it
# nvidia-smi missing, CUDA unavailable, no device, NVIDIA images' banner, the driver's own libraries not found. The
# NVIDIA Container Toolkit mounts the driver's libraries (libcuda: `compute`, libnvidia-ml and nvidia-smi: `utility`)
# and device nodes from the host into a container that asks for a GPU ("Specialized Configurations with Docker",
# https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/1.20.2/docker-specialized.html): a container started
# again with --gpus no longer prints them.
_NO_GPU_INSIDE = frozenset({"docker-run-without-gpus", "nvidia-smi-not-found", "cuda-unavailable", "image-driver-not-detected"})
_DRIVER_LIBS = re.compile(r"lib(?:cuda|nvidia-ml)\.so(?:\.1)?\Z")


def _container_again(s: State, a: Action) -> str:
    """`docker run --gpus all` of the container the report started without GPU access (its own words, the image among
    them): the new container's GPU facts follow the host's, so what the text showed of the old one's missing GPU goes.
    Returns what stays unfollowed: the host's runtime, which --gpus needs and the report does not show (the plan's
    alternative installs it); or, for another container, that the model does not follow it."""
    f = s.facts
    said = next((e for e in f.pasted.reported("docker-run-said") if e.get("args")), None)
    words = a.line.words if isinstance(a.line, Cmd) else ()
    if said is None or not f.pasted.reported("docker-run-without-gpus") or not _contains(words, str(said.get("args")).split()):
        return _UNMODELLED["container-run"]
    errors = tuple(
        e
        for e in f.pasted.errors
        if e.kind not in _NO_GPU_INSIDE
        and not (e.kind == "nvml" and e.get("code") == "cuda-no-device")
        and not (e.kind == "library-missing" and _DRIVER_LIBS.match(e.get("soname") or ""))
    )
    s.facts = replace(f, pasted=replace(f.pasted, errors=errors))
    return "whether the host has NVIDIA's container runtime, which --gpus needs, was not recorded (the alternative installs it)"


def _contains(words: tuple[str, ...], said: list[str]) -> bool:
    """Whether `said` (the reporter's docker run arguments) are among `words`, in their order."""
    it = iter(words)
    return bool(said) and all(any(w == x for x in it) for w in said)


def rebuilt(s: State, a: Action) -> None:
    """A pip install of a source tree (`-e DIR`, or DIR as a requirement) builds again the binaries removed under it."""
    if a.kind not in ("pip-install", "conda-run") or not isinstance(a.line, Cmd):
        return
    trees = [w for w in a.line.words if w.startswith("/")]
    for obj in [o for o in s.unbuilt if any(_under(o, t) for t in trees)]:
        del s.unbuilt[obj]


_UNMODELLED = {
    "pkg-remove": "what the removal takes off the loader's path is not modelled",
    "module-load": "the module's version and the device nodes it creates are not modelled",
    "container-run": "a new container: its devices and driver libraries come from the host's runtime, which was not recorded",
    "container-restart": "a restarted container's device nodes come from the host, which was not recorded",
    "runtime-config": "the host's container runtime was not recorded",
    "user-group": "group membership takes effect at the next login: device access is not modelled",
    "gpu-reset": "a GPU reset is the hardware's",
    "gpu-config": "the GPU's mode after the change is not modelled",
    "loader-cache": "the loader cache rebuilt from what is on disk, which was not recorded",
    "wsl": "WSL's own update and conversion are not modelled",
}

# What each `wsl` command does that the recorded machine cannot show.
_WSL = {
    "--install": "wsl --install sets up another system, a Linux distribution under WSL 2: the fix is made there, and it was "
    "not recorded (the Windows environment keeps its finding)",
    "--update": "wsl --update replaces WSL's own kernel and runtime, whose versions were not recorded",
    "--set-version": "a distribution converted to WSL 2 reaches the GPU through the Windows driver's WSL support, which a "
    "WSL 1 report does not show",
}
