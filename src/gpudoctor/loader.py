"""Which file the dynamic loader would load for a soname: pure, from probed directory listings.

The order is the one that decides for modern wheels, which carry a RUNPATH:
LD_LIBRARY_PATH first, then the framework's own directories (its bundled
lib/ and NVIDIA's wheels), then the ldconfig cache. A copy on
LD_LIBRARY_PATH therefore shadows the framework's own, which is the classic
"right library installed, wrong one loaded" failure.
"""

from __future__ import annotations

from gpudoctor.facts import LibDir, LibraryResolution


def resolve_library(
    soname: str,
    ld_library_path: tuple[LibDir, ...],
    own_dirs: tuple[LibDir, ...],
    ldconfig: dict[str, tuple[str, ...]] | None,
) -> LibraryResolution:
    found: list[tuple[str, str]] = []
    for libdir in ld_library_path + own_dirs:
        if soname in libdir.names:
            found.append((f"{libdir.path}/{soname}", libdir.via))
    for path in (ldconfig or {}).get(soname, ()):
        found.append((path, "ldconfig"))
    if not found:
        return LibraryResolution(soname, None, None)
    (path, via), rest = found[0], found[1:]
    return LibraryResolution(soname, path, via, tuple(p for p, _ in rest if p != path))


def available_sonames(
    prefix: str, *dir_groups: tuple[LibDir, ...], ldconfig: dict[str, tuple[str, ...]] | None = None
) -> set[str]:
    """Every soname starting with `prefix` ("libcudnn.so.") that any source offers."""
    names = {n for group in dir_groups for d in group for n in d.names if n.startswith(prefix)}
    names |= {n for n in (ldconfig or {}) if n.startswith(prefix)}
    return names
