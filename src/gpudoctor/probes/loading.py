"""The frameworks' own libraries, read as the dynamic loader reads them, and where each CUDA library loads from.

For each installed framework its main shared libraries are read through the host (gpudoctor.elf:
DT_NEEDED, DT_RPATH, DT_RUNPATH), with the Python interpreter (its DT_RPATH is searched for objects
without a RUNPATH: conda's python carries $ORIGIN/../lib) and the LD_PRELOAD objects. Every directory
those name is listed, and each CUDA soname is resolved by gpudoctor.loader.resolve_for:

- a soname in a library's DT_NEEDED, with that library as the needing object (the first in load order
  that needs it: later ones find it already loaded);
- for TensorFlow and JAX, which dlopen() their CUDA libraries by name from their own library (TSL's
  DsoLoader), every CUDA soname any searched directory or the ldconfig cache offers, resolved with the
  calling library, marked `dlopen`: which of them the release really opens is the matrix's to say, and
  the checks ask only for those (compat_matrix/tensorflow.toml `sonames`, jax.toml's cuDNN).

Copies the loader does not reach (a conda environment's lib/, a toolkit's lib64, another framework's
wheels) are listed after the reachable ones as `not searched: ...`, so the answer shows every copy.
Nothing is read when no framework is installed; a framework whose libraries cannot be read gets no
entry, and the checks fall back to the matrix's list and gpudoctor.loader.resolve_library.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from gpudoctor.facts import (
    ElfObject,
    FrameworkFacts,
    FrameworkLoading,
    LibDir,
    LibraryCopy,
    LibraryResolution,
    LoadingFacts,
    PlatformFacts,
    ToolkitFacts,
)
from gpudoctor.host import Host, HostError
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.loader import LoaderEnv, default_dirs, expand, resolve_for, split_path_list
from gpudoctor.probed import Found
from gpudoctor.probes.common import CUDA_LIB, lib_dir

# Each framework's main libraries, relative to its site-packages, in the order they load. torch/__init__.py
# loads libtorch_global_deps.so first (ctypes, RTLD_GLOBAL), then torch._C pulls in libtorch_cuda.so.
# TensorFlow's dlopen()s come from TSL's DsoLoader, compiled into libtensorflow_framework.so.2 (the first here).
_TORCH = ("torch/lib/libtorch_global_deps.so", "torch/lib/libtorch_cuda.so")
_TENSORFLOW = ("tensorflow/libtensorflow_framework.so.2", "tensorflow/python/_pywrap_tensorflow_internal.so")
_JAX_PLUGIN_DIR = LazyPattern(r"^xla_cuda(\d+)$")
_VERSIONED = LazyPattern(r"\.so\.(\d+(?:\.\d+)+)$")
_FULL_VERSION = LazyPattern(r"\.so\.\d+\.\d+\.\d+")
_WHEEL_LIB = LazyPattern(r"/nvidia/([a-z_0-9]+)/lib$")
# cuDNN 9 and later: libcudnn.so.N is a shim that dlopen()s its sub-libraries (libcudnn_graph.so.N,
# libcudnn_engines_precompiled.so.N, ...) by bare soname, with ITS OWN search path (NVIDIA's cuDNN "Backend API
# Overview": "the older shim layer (libcudnn.so)" and the sub-libraries; LocalAI PR #10946: "a dispatcher plus
# seven sublibraries it dlopens by bare soname ... CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"). Seen on a real
# H200 (docs/gpu-truth.md): the wheel's shim loaded through torch's RPATH while its sub-libraries came from an
# older system copy on LD_LIBRARY_PATH (searched before the shim's RUNPATH), and PyTorch refused the mix.
_CUDNN_SHIM = LazyPattern(r"^libcudnn\.so\.(\d+)$")
_CUDNN_SUB = LazyPattern(r"^libcudnn_[a-z_]+\.so\.(\d+)$")


def _read(host: Host, path: str, unread: list[str]) -> ElfObject | None:
    try:
        d = host.elf(path)
    except HostError as exc:
        if not exc.missing:
            unread.append(f"{path}: {exc.code}")
        return None
    return ElfObject(path, d.needed, d.soname, d.rpath, d.runpath, d.nodeflib)


def _objects(host: Host, framework: str, site: str, unread: list[str]) -> tuple[tuple[ElfObject, ...], ElfObject | None]:
    """(main libraries read, in load order; the one that dlopen()s CUDA libraries by name, or None)."""
    if framework == "torch":
        rels: list[str] = list(_TORCH)
    elif framework == "tensorflow":
        rels = list(_TENSORFLOW)
    else:
        rels = []
        try:
            plugins = sorted(n for n in host.list_dir(posixpath.join(site, "jax_plugins")) if _JAX_PLUGIN_DIR.match(n))
        except HostError:
            plugins = []
        rels += [f"jax_plugins/{p}/xla_cuda_plugin.so" for p in plugins]
        rels += ["jaxlib/xla_extension.so", "jaxlib/_jax.so"]
    objs = tuple(o for o in (_read(host, posixpath.join(site, r), unread) for r in rels) if o is not None)
    caller = objs[0] if objs and framework in ("tensorflow", "jax") else None
    return objs, caller


def _version(host: Host, path: str, wheels: Mapping[str, str]) -> str | None:
    """A copy's version: its wheel's (site-packages/nvidia/cudnn/lib -> nvidia-cudnn-cuNN, when one
    major is installed), else the versioned file name the soname link leads to (libcudnn.so.8.9.7)."""
    m = _WHEEL_LIB.search(posixpath.dirname(path))
    if m:
        pkg = "nvidia-" + m.group(1).replace("_", "-")
        versions = {v for n, v in wheels.items() if re.fullmatch(re.escape(pkg) + r"-cu\d+", n)}
        if len(versions) == 1:
            return versions.pop()
    real = host.realpath(path)
    if real is None or posixpath.basename(real) == posixpath.basename(path):
        return None  # not a link to a versioned file: the soname's own digits (libcudart.so.11.0) are no version
    found = _VERSIONED.search(posixpath.basename(real))
    return found.group(1) if found else None


def probe_loading(
    host: Host,
    platform: PlatformFacts,
    frameworks: FrameworkFacts,
    toolkits: ToolkitFacts,
    ld_library_path: tuple[LibDir, ...],
    ldconfig: Mapping[str, tuple[str, ...]] | None,
) -> LoadingFacts | None:
    python = frameworks.python
    if not isinstance(python, Found) or platform.system.lower().startswith(("win", "darwin")):
        return None
    env = python.value
    installed = {
        name: outcome.value
        for name, outcome in (("torch", frameworks.torch), ("tensorflow", frameworks.tensorflow), ("jax", frameworks.jax))
        if isinstance(outcome, Found)
    }
    if not installed:
        return None
    unread_by: dict[str, list[str]] = {}
    read: dict[str, tuple[tuple[ElfObject, ...], ElfObject | None]] = {}
    for name, fw in installed.items():
        site = fw.location or (env.site_packages[0] if env.site_packages else "")
        unread_by[name] = []
        if site:
            read[name] = _objects(host, name, site, unread_by[name])
    if not any(objs for objs, _ in read.values()):
        return None  # nothing read (a snapshot without ELF records): the checks keep the matrix's list
    exe_unread: list[str] = []
    # The interpreter as the kernel runs it: a venv's bin/python is a link, and the main program's $ORIGIN is
    # the directory of the file itself (glibc takes it from /proc/self/exe, links resolved).
    real_exe = (host.realpath(env.executable) or env.executable) if env.executable.startswith("/") else None
    executable = _read(host, real_exe, exe_unread) if real_exe else None
    # LD_PRELOAD, then /etc/ld.so.preload (ld.so(8)): loaded before everything, they win every soname they carry.
    preloads = split_path_list(platform.env.get("LD_PRELOAD")) + split_path_list(host.read_text_or_none("/etc/ld.so.preload"))
    preload = tuple(_read(host, p, exe_unread) or ElfObject(p) for p in preloads[:16])  # bounded: read, not trusted
    distro = f"{platform.distro.id or ''} {platform.distro.id_like or ''}"
    debian = "debian" in distro or "ubuntu" in distro or host.is_dir(f"/usr/lib/{_triplet(platform.machine)}")
    defaults = default_dirs(platform.machine, debian)
    # Every directory the loader may search for these objects, listed once.
    wanted: list[str] = []
    for objs, _ in read.values():
        for o in objs:
            wanted += expand(o.runpath or o.rpath, posixpath.dirname(o.path))
    if executable is not None and not executable.runpath:
        wanted += expand(executable.rpath, posixpath.dirname(executable.path))
    wanted += defaults
    listed: dict[str, LibDir] = {d.path: d for d in ld_library_path}
    for path in wanted:
        if path not in listed:
            d = lib_dir(host, path, "searched")
            if d is not None:
                listed[path] = d
    # Copies the loader does not reach, shown so that every copy is in the answer.
    elsewhere: list[LibDir] = []
    for fw in installed.values():
        elsewhere += [d for d in fw.lib_dirs if d.path not in listed]
    if frameworks.env_lib is not None and frameworks.env_lib.path not in listed:
        elsewhere.append(frameworks.env_lib)
    for tk in toolkits.toolkits:
        for sub in ("lib64", "lib"):
            path = posixpath.join(tk.root, sub)
            if path not in listed and all(d.path != path for d in elsewhere):
                d = lib_dir(host, path, "toolkit")
                if d is not None and d.names:
                    elsewhere.append(d)
                    break
    loader_env = LoaderEnv(
        ld_library_path=tuple(d.path for d in ld_library_path),
        ldconfig=ldconfig,
        listings={p: frozenset(d.names) for p, d in listed.items()},
        default_dirs=defaults,
        preload=preload,
    )
    chain = (executable,) if executable is not None else ()
    # What each directory is, for copies the loader does not reach from a given object.
    kinds = {d: "default directory" for d in defaults}
    kinds.update({d.path: "run path of another object" for d in listed.values() if d.via == "searched"})
    kinds.update({d.path: d.via for d in ld_library_path})
    for fw in installed.values():
        kinds.update({d.path: d.via for d in fw.lib_dirs})
    if frameworks.env_lib is not None:
        kinds[frameworks.env_lib.path] = "conda environment's lib/"
    kinds.update({d.path: d.via for d in elsewhere if d.via == "toolkit"})
    offered = sorted(
        {n for d in listed.values() for n in d.names} | set(ldconfig or {}) | {n for d in elsewhere for n in d.names}
    )
    results = []
    for name, (objs, caller) in read.items():
        if not objs:
            continue
        loads: dict[str, LibraryResolution] = {}
        for o in objs:
            for soname in o.needed:
                if CUDA_LIB.match(soname) and soname not in loads:
                    loads[soname] = resolve_for(soname, o, chain, loader_env)
        if caller is not None:
            for soname in offered:
                # A file named for its full version (libcudnn.so.8.9.7) is what a soname link leads to, not a soname.
                if CUDA_LIB.match(soname) and not _FULL_VERSION.search(soname) and soname not in loads:
                    res = resolve_for(soname, caller, chain, loader_env)
                    loads[soname] = LibraryResolution(
                        soname, res.path, res.via, res.shadowed, res.needed_by, how="dlopen", copies=res.copies
                    )
        for shim in [r for r in loads.values() if r.path]:
            loader_env = _cudnn_subs(host, shim, objs, chain, loader_env, listed, offered, loads)
        every = list(listed.values()) + elsewhere
        finished = tuple(_complete(host, res, every, kinds, env.distributions) for _, res in sorted(loads.items()))
        static: tuple[str, ...] = ()
        fw = installed[name]
        if name == "torch" and getattr(fw, "cuda", None) and any(o.path.endswith("/libtorch_cuda.so") for o in objs):
            # Every PyTorch CUDA build uses cuDNN. Its libtorch_cuda.so read, no object NEEDs a libcudnn and
            # torch/lib holds none: it is linked in. Shown (check -v, JSON); the cuDNN check asks for none only
            # where the matrix agrees (compat_matrix/torch.toml cudnn_bundled), since a cuDNN dlopen()ed later
            # would look the same here, and asks for one whenever a libcudnn.so.N is NEEDED.
            needs = any(n.startswith(("libcudnn.so", "libcudnn-")) for o in objs for n in o.needed)
            bundled = any(n.startswith("libcudnn") for d in fw.lib_dirs if d.via == "bundled" for n in d.names)
            static = () if needs or bundled else ("libcudnn",)
        results.append(FrameworkLoading(name, objs, finished, static, tuple(unread_by[name])))
    return LoadingFacts(executable, preload, defaults, tuple(listed.values()) + tuple(elsewhere), tuple(results))


def _cudnn_subs(
    host: Host,
    shim: LibraryResolution,
    objs: tuple[ElfObject, ...],
    chain: tuple[ElfObject, ...],
    env: LoaderEnv,
    listed: dict[str, LibDir],
    offered: list[str],
    loads: dict[str, LibraryResolution],
) -> LoaderEnv:
    """cuDNN >= 9's sub-libraries, resolved as its shim dlopen()s them: the shim is the needing object, the
    object that loaded it and the interpreter its loaders. Each replaces a resolution made for the framework's own
    caller (a JAX plugin's dlopen of the sub-library): the shim, not the plugin, opens them. `listed` gains the
    directories of the shim's run path; the loader's environment with them is returned."""
    found = _CUDNN_SHIM.match(shim.soname)
    if found is None or int(found.group(1)) < 9 or shim.path is None:
        return env
    # Not one of the framework's main libraries: where its headers cannot be read (a snapshot from before gpudoctor
    # read them, a file it may not open), the sub-libraries stay as they were, and nothing is listed as unread.
    obj = _read(host, shim.path, [])
    if obj is None:
        return env
    added = False
    for path in [posixpath.dirname(shim.path), *expand(obj.runpath or obj.rpath, posixpath.dirname(obj.path))]:
        if path not in listed:
            d = lib_dir(host, path, "searched")
            if d is not None:
                listed[path] = d
                added = True
    if added:  # the loader's view gains the shim's folders; with none new, the one it has is already this one
        env = LoaderEnv(
            env.ld_library_path,
            env.ldconfig,
            {p: frozenset(d.names) for p, d in listed.items()},
            env.default_dirs,
            env.preload,
        )
    loader = next((o for o in objs if o.path == shim.needed_by), None)
    shim_chain = (loader, *chain) if loader is not None else chain
    names = {n for d in listed.values() for n in d.names} | set(offered)
    for soname in sorted(names):
        sub = _CUDNN_SUB.match(soname)
        if sub and sub.group(1) == found.group(1):
            res = resolve_for(soname, obj, shim_chain, env)
            loads[soname] = LibraryResolution(soname, res.path, res.via, res.shadowed, obj.path, how="dlopen", copies=res.copies)
    return env


def _complete(
    host: Host, res: LibraryResolution, dirs: list[LibDir], kinds: Mapping[str, str], wheels: Mapping[str, str]
) -> LibraryResolution:
    """The resolution with every copy's version, and the copies the loader does not reach from its object."""
    copies = [LibraryCopy(c.path, c.via, _version(host, c.path, wheels)) for c in res.copies]
    for d in dirs:
        path = posixpath.join(d.path, res.soname)
        if res.soname in d.names and all(c.path != path for c in copies):
            copies.append(LibraryCopy(path, f"not searched: {kinds.get(d.path, d.via)}", _version(host, path, wheels)))
    version = copies[0].version if res.path is not None and copies else None
    return LibraryResolution(res.soname, res.path, res.via, res.shadowed, res.needed_by, version, res.how, tuple(copies))


def _triplet(machine: str) -> str:
    return {"x86_64": "x86_64-linux-gnu", "amd64": "x86_64-linux-gnu", "aarch64": "aarch64-linux-gnu"}.get(
        (machine or "").lower(), "x86_64-linux-gnu"
    )
