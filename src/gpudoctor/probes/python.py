"""The user's Python environment and the frameworks in it, read from files, never imported.

The environment probed is the one the user works in, not gpudoctor's own (gpudoctor.host.interpreter chooses it).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from gpudoctor.errors import ParseError
from gpudoctor.host import Host, HostError, PythonEnv
from gpudoctor.host.interpreter import choose_interpreter
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.probed import Absent, Found, Probed, Unknown
from gpudoctor.probes.common import CUDA_LIB, lib_dir, probe_command

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    # Imported where they are built: probe_python starts the user's interpreter before the facts' types exist
    # (gpudoctor.probes.run_probes), so that building them overlaps its start-up.
    from gpudoctor.facts import FrameworkFacts, LibDir

TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tf-nightly", "tensorflow-intel", "tensorflow-macos")
JAX_PLUGIN = LazyPattern(r"^jax-cuda(\d+)-(plugin|pjrt)$")


def probe_python(host: Host, override: str | None, timeout_s: float) -> tuple[Probed, str]:
    return start_python(host, override, timeout_s)()


def start_python(host: Host, override: str | None, timeout_s: float) -> Callable[[], tuple[Probed, str]]:
    """`probe_python` in two steps: the interpreter is chosen and started (or its files read) now, in the
    caller's thread; the function returned waits for its answer (gpudoctor.probes.run_probes, in a thread)."""
    executable, chosen_by = choose_interpreter(host, override)
    try:
        finish = host.python_env_started(executable, timeout_s)
    except HostError as exc:
        failed = _failed(exc, chosen_by)
        return lambda: failed

    def answer() -> tuple[Probed, str]:
        try:
            env = finish()
        except HostError as exc:
            return _failed(exc, chosen_by)
        if env is None:
            return Absent("no Python environment was recorded", "python"), chosen_by
        return Found(env, f"python:{env.executable}"), chosen_by

    return answer


def _failed(exc: HostError, chosen_by: str) -> tuple[Probed, str]:
    source = f"python:{exc.path}"
    if exc.code == "ENOENT":
        return Absent(f"no Python interpreter at {exc.path}", source), chosen_by
    kind = "timeout" if exc.code == "ETIMEDOUT" else "failed"
    return Unknown(kind, str(exc), source), chosen_by


def wheel_lib_dirs(host: Host, site: str) -> tuple[LibDir, ...]:
    """site-packages/nvidia/*/lib: where NVIDIA's pip wheels put their libraries."""
    base = posixpath.join(site, "nvidia")
    try:
        packages = host.list_dir(base)
    except HostError:
        return ()
    dirs = []
    for pkg in packages:
        d = lib_dir(host, posixpath.join(base, pkg, "lib"), "wheel")
        if d and d.names:
            dirs.append(d)
    # (CUDA 13 wheels share one nvidia/cu13/lib, which this covers too.)
    return tuple(dirs)


def probe_torch(host: Host, env: PythonEnv) -> Probed:
    dist_version = env.distributions.get("torch")
    if dist_version is None:
        return Absent("torch is not installed in this environment", "dist:torch")
    from gpudoctor.facts import TorchFacts
    from gpudoctor.parsers.torch_version import parse_torch_version_py  # (only where there is a torch to read)

    site = env.locations.get("torch") or (env.site_packages[0] if env.site_packages else "")
    path = posixpath.join(site, "torch/version.py")
    version, cuda, hip = dist_version, None, None
    source = "dist:torch"
    build_known = True
    try:
        build = parse_torch_version_py(host.read_text(path))
        version, cuda, hip = build.version or dist_version, build.cuda, build.hip
        source = f"file:{path}"
    except HostError as exc:
        if not exc.missing:
            return Unknown("permission" if exc.code == "EACCES" else "failed", str(exc), f"file:{path}")
        # Without version.py only the local tag tells the build: 2.1.0+cu121, 2.1.0+cpu. Other local versions name no
        # build: a source build's or NVIDIA's containers' git hash (0.1.12+0ba2043, 2.2.0a0+81ea7a4) is of any.
        tag = re.search(r"\+cu(\d+)(\d)$", dist_version)
        cuda = f"{tag.group(1)}.{tag.group(2)}" if tag else None
        build_known = bool(tag) or dist_version.endswith("+cpu")
        if not build_known and host.platform().get("system") in ("Windows", "Darwin"):
            # An untagged torch there is PyPI's wheel, and PyPI's Windows and macOS wheels are CPU-only:
            # CUDA builds come only from PyTorch's own index, tagged +cuXYZ
            # (https://github.com/pytorch/pytorch.github.io/pull/757: "Windows CPU only wheels are available on PyPI").
            build_known = True
            source = "dist:torch (untagged: PyPI's wheel, CPU-only on this OS)"
    except ParseError as exc:
        return Unknown("unparseable", exc.message, f"file:{path}")
    own = lib_dir(host, posixpath.join(site, "torch/lib"), "bundled")
    dirs = ((own,) if own and own.names else ()) + wheel_lib_dirs(host, site)
    return Found(TorchFacts(version, cuda, hip, site, dirs, build_known), source)


def probe_tensorflow(host: Host, env: PythonEnv) -> Probed:
    dist = next((d for d in TF_DISTRIBUTIONS if d in env.distributions), None)
    if dist is None:
        return Absent("tensorflow is not installed in this environment", "dist:tensorflow")
    from gpudoctor.facts import TensorflowFacts
    from gpudoctor.parsers.tf_build_info import parse_tf_build_info  # (only where there is a TensorFlow to read)

    version = env.distributions[dist]
    site = env.locations.get(dist) or (env.site_packages[0] if env.site_packages else "")
    path = posixpath.join(site, "tensorflow/python/platform/build_info.py")
    dirs = wheel_lib_dirs(host, site)
    try:
        info = parse_tf_build_info(host.read_text(path))
    except HostError as exc:
        if exc.missing:
            return Found(TensorflowFacts(version, dist, None, None, None, site, (), dirs), f"dist:{dist}")
        return Unknown("permission" if exc.code == "EACCES" else "failed", str(exc), f"file:{path}")
    except ParseError as exc:
        return Unknown("unparseable", exc.message, f"file:{path}")
    return Found(
        TensorflowFacts(
            version,
            dist,
            info.is_cuda_build,
            # Windows builds write DLL suffixes ("64_112", "64_8"): the facts carry the versions (11.2, 8), which
            # every rule reads as versions ("64_112" made "cudart64_64_1120.dll" and "the CUDA 64_112 toolkit").
            info.cuda_version_normalized,
            info.cudnn_version_normalized,
            site,
            tuple(info.cuda_compute_capabilities or ()),
            dirs,
        ),
        f"file:{path}",
    )


def probe_jax(host: Host, env: PythonEnv) -> Probed:
    jax = env.distributions.get("jax")
    jaxlib = env.distributions.get("jaxlib")
    plugins = {name: v for name, v in env.distributions.items() if JAX_PLUGIN.match(name)}
    if not (jax or jaxlib or plugins):
        return Absent("jax is not installed in this environment", "dist:jax")
    from gpudoctor.facts import JaxFacts

    site = env.locations.get("jax") or (env.site_packages[0] if env.site_packages else "")
    return Found(JaxFacts(jax, jaxlib, plugins, site or None, wheel_lib_dirs(host, site) if site else ()), "dist:jax")


def probe_frameworks(host: Host, python: Probed, chosen_by: str) -> FrameworkFacts:
    from gpudoctor.facts import FrameworkFacts

    if not isinstance(python, Found):
        why = python if isinstance(python, Unknown) else Absent("no Python environment", python.source)
        return FrameworkFacts(python, chosen_by, why, why, why, {})
    env: PythonEnv = python.value
    wheels = {n: v for n, v in env.distributions.items() if n.startswith("nvidia-") and n != "nvidia-ml-py"}
    return FrameworkFacts(
        python=python,
        python_chosen_by=chosen_by,
        torch=probe_torch(host, env),
        tensorflow=probe_tensorflow(host, env),
        jax=probe_jax(host, env),
        nvidia_wheels=wheels,
        env_lib=lib_dir(host, posixpath.join(env.prefix, "lib"), "conda-env") if env.kind == "conda" and env.prefix else None,
    )


def probe_ld_library_path(host: Host) -> tuple[LibDir, ...]:
    dirs = []
    for entry in host.env().get("LD_LIBRARY_PATH", "").split(":"):
        if entry.startswith("/"):
            d = lib_dir(host, entry.rstrip("/") or "/", "LD_LIBRARY_PATH")
            if d is not None:
                dirs.append(d)
    return tuple(dirs)


def probe_ldconfig(host: Host, timeout_s: float) -> Probed:
    from gpudoctor.parsers.ldconfig import parse_ld_so_cache, parse_ldconfig

    def cuda(soname: str) -> bool:
        return bool(CUDA_LIB.match(soname)) or soname.startswith(("libcuda.", "libnvidia-ml."))

    def cuda_entries(text: str) -> dict[str, tuple[str, ...]]:
        return {k: v for k, v in parse_ldconfig(text).items() if cuda(k)}

    # On the live machine the cache file is read as `ldconfig -p` would read it, without starting it (the
    # same entries in the same order: tests/unit/test_ldconfig_cache.py compares both); the source stays
    # `ldconfig -p`, the command a user runs to see it. A file this reader does not know runs the command.
    read_cache = getattr(host, "ld_so_cache", None) if host.mode == "live" else None
    data = read_cache() if read_cache is not None else None
    if data is not None:
        try:
            return Found(parse_ld_so_cache(data, cuda), "cmd:ldconfig -p")
        except ParseError:
            pass

    return probe_command(
        host,
        [["ldconfig", "-p"], ["/sbin/ldconfig", "-p"]],
        timeout_s,
        cuda_entries,
        Absent("ldconfig is not installed", "cmd:ldconfig -p"),
    )
