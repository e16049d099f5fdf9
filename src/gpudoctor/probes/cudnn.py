"""cuDNN: headers, libraries and NVIDIA's pip wheels, each with its version.

Headers: cudnn_version.h (cuDNN 8+), cudnn.h (7 and older carry the version
macros there), and Debian's alternatives-managed cudnn_version_v8.h/_v9.h.
Libraries: libcudnn.so.N[.x.y] in toolkit directories, LD_LIBRARY_PATH and
the ldconfig cache; the full version, where there is one, is in the file name.
"""

from __future__ import annotations

import posixpath

from gpudoctor.errors import ParseError
from gpudoctor.facts import CudnnInstall, LibDir, ToolkitFacts
from gpudoctor.host import Host, HostError
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.probes.common import lib_dir
from gpudoctor.versions import major

_LIB = LazyPattern(r"^libcudnn\.so\.(\d+(?:\.\d+)*)$")
_WHEEL = LazyPattern(r"^nvidia-cudnn-cu(\d+)$")
_HEADER_DIRS = ("/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu")
_HEADERS = ("cudnn_version.h", "cudnn_version_v9.h", "cudnn_version_v8.h", "cudnn.h", "cudnn_v7.h")


def _header_versions(host: Host, include_dirs: list[str]) -> list[CudnnInstall]:
    from gpudoctor.parsers.cudnn_header import parse_cudnn_header

    found = []
    for directory in include_dirs:
        for name in _HEADERS:
            path = posixpath.join(directory, name)
            try:
                text = host.read_text(path)
            except HostError:
                continue
            try:
                version = parse_cudnn_header(text)
            except ParseError:
                continue  # cudnn.h of cuDNN 8+ has no version macros; cudnn_version.h answers
            if version:
                found.append(CudnnInstall(version, major(version), "header", path))
                break
    return found


def _libraries(dirs: list[LibDir], ldconfig: dict[str, tuple[str, ...]] | None) -> list[CudnnInstall]:
    found: dict[str, CudnnInstall] = {}
    paths: list[tuple[str, str]] = []
    for d in dirs:
        paths += [(posixpath.join(d.path, n), n) for n in d.names]
    for soname, locations in (ldconfig or {}).items():
        paths += [(p, posixpath.basename(p)) for p in locations if soname.startswith("libcudnn.so")]
    for path, name in paths:
        match = _LIB.match(name)
        if not match:
            continue
        version = match.group(1)
        directory = posixpath.dirname(path)
        # Keep the most specific file name per directory: libcudnn.so.8.9.7 over libcudnn.so.8.
        key = f"{directory}:{major(version)}"
        if key not in found or len(version) > len(found[key].version or ""):
            found[key] = CudnnInstall(version, major(version), "library", path)
    return list(found.values())


def probe_cudnn(
    host: Host,
    toolkits: ToolkitFacts,
    ld_library_path: tuple[LibDir, ...],
    ldconfig: dict[str, tuple[str, ...]] | None,
    distributions: dict[str, str],
    conda_prefix: str | None,
) -> tuple[CudnnInstall, ...]:
    roots = [tk.root for tk in toolkits.toolkits]
    include_dirs = [posixpath.join(r, "include") for r in roots] + list(_HEADER_DIRS)
    if conda_prefix:
        include_dirs.append(posixpath.join(conda_prefix, "include"))
    installs = _header_versions(host, include_dirs)
    lib_dirs = list(ld_library_path)
    for root in roots:
        for sub in ("lib64", "lib"):
            d = lib_dir(host, posixpath.join(root, sub), "toolkit")
            if d is not None and d not in lib_dirs:
                lib_dirs.append(d)
    installs += _libraries(lib_dirs, ldconfig)
    for name, version in sorted(distributions.items()):
        match = _WHEEL.match(name)
        if match:
            installs.append(CudnnInstall(version, major(version), "wheel", f"dist:{name}", int(match.group(1))))
    return tuple(installs)
