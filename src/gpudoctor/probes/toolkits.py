"""Every CUDA toolkit on the machine, where it was found, and its version.

Found through: /usr/local/cuda* (and what /usr/local/cuda points to),
/opt/cuda*, CUDA_HOME / CUDA_PATH / CUDA_ROOT, `nvcc` on PATH (following a
wrapper script to the real compiler), LD_LIBRARY_PATH, and a conda prefix.
The version comes from what the tree carries, cheapest first: version.json
(CUDA 11.1+), version.txt (older), NVIDIA's wheel dist-info (a toolkit
assembled from pip wheels has no version file), conda-meta, CUDA_VERSION in
include/cuda.h, and only then `nvcc --version`.
"""

from __future__ import annotations

import contextlib
import posixpath

from gpudoctor.errors import ParseError
from gpudoctor.facts import CudaLink, Toolkit, ToolkitFacts
from gpudoctor.host import Host, HostError
from gpudoctor.lazypattern import LazyPattern

LINK = "/usr/local/cuda"
_SEARCH_DIRS = ("/usr/local", "/opt")
_TOOLKIT_DIR = LazyPattern(r"^cuda(-\d+(\.\d+)*)?$")
_WRAPPED_NVCC = LazyPattern(r"(/[^\s'\"]+/bin/nvcc)\b")
_DIST_INFO = LazyPattern(r"^nvidia_cuda_(nvcc|runtime)(?:_cu\d+)?-(\d+\.\d+(?:\.\d+)*)\.dist-info$")
_CONDA_NVCC = LazyPattern(r"^cuda-(?:nvcc|cudart)-(\d+\.\d+(?:\.\d+)*)-")


def _looks_like_toolkit(host: Host, root: str) -> bool:
    """A version file, or nvcc beside the CUDA runtime headers.

    nvcc alone is not enough: /usr/local/bin/nvcc may be a wrapper script,
    which does not make /usr/local a toolkit.
    """
    if host.exists(posixpath.join(root, "version.json")) or host.exists(posixpath.join(root, "version.txt")):
        return True
    has_headers = host.exists(posixpath.join(root, "include/cuda_runtime.h")) or host.exists(
        posixpath.join(root, "include/cuda.h")
    )
    return has_headers and (host.exists(posixpath.join(root, "bin/nvcc")) or host.exists(posixpath.join(root, "lib64")))


def toolkit_version(host: Host, root: str, timeout_s: float) -> tuple[str | None, str | None, tuple[str, ...]]:
    """(version, where it came from, problems) for one toolkit root."""
    from gpudoctor.parsers.cuda_version_file import (
        parse_cuda_h_version,
        parse_cuda_version_json,
        parse_cuda_version_txt,
    )

    problems: list[str] = []
    for name, parser in (("version.json", parse_cuda_version_json), ("version.txt", parse_cuda_version_txt)):
        path = posixpath.join(root, name)
        try:
            text = host.read_text(path)
        except HostError as exc:
            if not exc.missing:
                problems.append(f"{path}: {exc.code}")
            continue
        try:
            version = parser(text).version
            if version:
                return version, name, tuple(problems)
        except ParseError as exc:
            problems.append(f"{path}: {exc.message}")
    try:
        for entry in host.list_dir(posixpath.join(root, "dist-info")):
            match = _DIST_INFO.match(entry)
            if match and match.group(1) == "nvcc":
                return match.group(2), "dist-info", tuple(problems)
    except HostError:
        pass
    try:
        for entry in host.list_dir(posixpath.join(root, "conda-meta")):
            match = _CONDA_NVCC.match(entry)
            if match:
                return match.group(1), "conda-meta", tuple(problems)
    except HostError:
        pass
    header = host.read_text_or_none(posixpath.join(root, "include/cuda.h"))
    if header:
        try:
            return parse_cuda_h_version(header), "cuda.h", tuple(problems)
        except ParseError:
            pass
    nvcc = posixpath.join(root, "bin/nvcc")
    refused = _refused(host, nvcc) if host.exists(nvcc) else None
    if refused:
        problems.append(refused)
    elif host.exists(nvcc):
        result = host.run([nvcc, "--version"], timeout_s)
        if result.ok:
            from gpudoctor.parsers.nvcc import parse_nvcc_version  # (only where nvcc answered: a version file usually does)

            try:
                return parse_nvcc_version(result.stdout).version, "nvcc", tuple(problems)
            except ParseError as exc:
                problems.append(f"{nvcc} --version: {exc.message}")
        elif result.timed_out:
            problems.append(f"{nvcc} --version timed out after {timeout_s:g} s")
        else:
            problems.append(f"{nvcc} --version failed: {(result.stderr or result.stdout).strip()[:200]}")
    return None, None, tuple(problems)


def _completeness(host: Host, root: str) -> tuple[bool, tuple[str, ...]]:
    missing = []
    if not host.exists(posixpath.join(root, "bin/nvcc")):
        missing.append("bin/nvcc")
    if not host.exists(posixpath.join(root, "include/cuda_runtime.h")):
        missing.append("include/cuda_runtime.h")
    libdirs = [posixpath.join(root, d) for d in ("lib64", "lib")]
    targets = posixpath.join(root, "targets")
    with contextlib.suppress(HostError):
        libdirs += [posixpath.join(targets, t, "lib") for t in host.list_dir(targets)]
    has_cudart = False
    for libdir in libdirs:
        try:
            if any(n.startswith("libcudart.so") for n in host.list_dir(libdir)):
                has_cudart = True
                break
        except HostError:
            continue
    if not has_cudart:
        missing.append("libcudart.so")
    return not missing, tuple(f"missing {m}" for m in missing)


def _nvcc_root(host: Host, nvcc: str) -> str | None:
    """The toolkit root an `nvcc` on PATH belongs to, through links and wrapper scripts."""
    real = host.realpath(nvcc)
    if real is None:
        return None
    root = posixpath.dirname(posixpath.dirname(real))
    if _looks_like_toolkit(host, root):
        return root
    # A wrapper script (`exec /usr/local/cuda-13.0/bin/nvcc "$@"`): follow it.
    try:
        text = host.read_text(real, max_bytes=16 * 1024)
    except HostError:
        return None
    match = _WRAPPED_NVCC.search(text)
    if match and match.group(1) != real:
        inner = host.realpath(match.group(1))
        if inner:
            return posixpath.dirname(posixpath.dirname(inner))
    return None


def probe_link(host: Host) -> CudaLink:
    info = host.stat(LINK)
    if info.kind == "link":
        resolved = host.realpath(LINK)
        return CudaLink(LINK, "link", info.target, resolved, (info.target or "").startswith("/etc/alternatives/"))
    if info.kind == "dir":
        return CudaLink(LINK, "dir", None, LINK)
    return CudaLink(LINK, "missing" if not info.exists else info.kind, None, None)


def _refused(host: Host, program: str) -> str | None:
    """The probe note when root must not run `program` (someone else can write it: gpudoctor.trust)."""
    from gpudoctor.trust import not_run_note, refuse_on_host

    why = refuse_on_host(host, program)
    return not_run_note(program, why) if why else None


def probe_toolkits(host: Host, timeout_s: float) -> ToolkitFacts:
    env = host.env()
    candidates: dict[str, list[str]] = {}
    problems: list[str] = []

    def add(path: str | None, via: str) -> str | None:
        if not path:
            return None
        real = host.realpath(path.rstrip("/") or "/")
        if real is None or not _looks_like_toolkit(host, real):
            return None
        vias = candidates.setdefault(real, [])
        if via not in vias:
            vias.append(via)
        return real

    link = probe_link(host)
    for base in _SEARCH_DIRS:
        try:
            names = host.list_dir(base)
        except HostError:
            continue
        for name in names:
            if _TOOLKIT_DIR.match(name):
                path = posixpath.join(base, name)
                add(path, f"{LINK} link" if path == LINK and link.kind == "link" else path)
    cuda_home = env.get("CUDA_HOME") or env.get("CUDA_PATH") or env.get("CUDA_ROOT")
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        if env.get(var) and add(env[var], var) is None:
            problems.append(f"{var}={env[var]} is not a CUDA toolkit")
    conda = env.get("CONDA_PREFIX")
    if conda and host.exists(posixpath.join(conda, "bin/nvcc")):
        add(conda, "CONDA_PREFIX")
    ld_roots: list[str] = []
    for entry in env.get("LD_LIBRARY_PATH", "").split(":"):
        if entry.rstrip("/").endswith(("/lib64", "/lib")) and "cuda" in entry:
            root = add(posixpath.dirname(entry.rstrip("/")), "LD_LIBRARY_PATH")
            if root and root not in ld_roots:
                ld_roots.append(root)

    nvcc_path = host.which("nvcc")
    nvcc_root = _nvcc_root(host, nvcc_path) if nvcc_path else None
    if nvcc_root:
        add(nvcc_root, "nvcc on PATH")

    toolkits = []
    for root, vias in candidates.items():
        version, source, tk_problems = toolkit_version(host, root, timeout_s)
        complete, missing = _completeness(host, root)
        nvcc = posixpath.join(root, "bin/nvcc")
        toolkits.append(
            Toolkit(
                root=root,
                version=version,
                version_source=source,
                found_via=tuple(vias),
                nvcc=nvcc if host.exists(nvcc) else None,
                complete=complete,
                problems=tk_problems + missing,
            )
        )
    toolkits.sort(key=lambda t: (t.version is None, t.root))

    nvcc_version = None
    by_root = {t.root: t for t in toolkits}
    if nvcc_root and by_root.get(nvcc_root) and by_root[nvcc_root].version:
        nvcc_version = by_root[nvcc_root].version
    else:
        # Not under a toolkit we could place (or a snapshot written by hand
        # that only holds `nvcc --version`): ask nvcc itself.
        refused = _refused(host, nvcc_path) if nvcc_path else None
        if refused:
            problems.append(refused)
        result = host.run(["nvcc", "--version"], timeout_s) if not refused else None
        if result is None:
            pass
        elif result.ok:
            from gpudoctor.parsers.nvcc import parse_nvcc_version

            try:
                nvcc_version = parse_nvcc_version(result.stdout).version
                nvcc_path = nvcc_path or "nvcc"
            except ParseError as exc:
                problems.append(f"nvcc --version: {exc.message}")
        elif result.timed_out:
            problems.append(f"nvcc --version timed out after {timeout_s:g} s")
    return ToolkitFacts(
        toolkits=tuple(toolkits),
        link=link,
        nvcc_on_path=nvcc_path,
        nvcc_on_path_version=nvcc_version,
        cuda_home=cuda_home,
        ld_library_path_toolkits=tuple(ld_roots),
        problems=tuple(problems),
    )


def path_toolkit(facts: ToolkitFacts) -> Toolkit | None:
    """The toolkit whose nvcc is the one on PATH, if it was placed."""
    for tk in facts.toolkits:
        if "nvcc on PATH" in tk.found_via:
            return tk
    return None
