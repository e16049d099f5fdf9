"""Which file the dynamic loader loads for a soname: pure, from ELF records and directory listings.

Two answers, one module:

- `resolve_for`: the loader's own order, from the ELF record of the object that needs the soname
  (gpudoctor.elf), as glibc's ld.so searches (elf/dl-load.c, _dl_map_object; ld.so(8),
  https://man7.org/linux/man-pages/man8/ld.so.8.html):
    0. an object already loaded with that soname: the LD_PRELOAD objects (loaded before all others);
    1. DT_RPATH of the object that needs it, then of each object that loaded that one, up to the
       executable: only when the needing object has no DT_RUNPATH (and an object with DT_RUNPATH
       has no DT_RPATH: glibc ignores it, elf/get-dynamic-info.h);
    2. LD_LIBRARY_PATH;
    3. DT_RUNPATH of the needing object alone (not of its loaders);
    4. the ldconfig cache (/etc/ld.so.cache); for an object linked -z nodefaultlib (DF_1_NODEFLIB) only
       its entries outside the default directories (elf/dl-load.c drops those "from any of these directories");
    5. the default directories (Debian's multiarch /lib/<triplet>, /usr/lib/<triplet>, then /lib,
       /usr/lib; elsewhere /lib64, /usr/lib64 on 64-bit), unless -z nodeflib.
  `$ORIGIN` (and `${ORIGIN}`) is the directory of the object whose run path it is, as named, links
  not resolved (glibc's l_origin). Not modelled, and said where it matters: hardware-capability
  subdirectories (glibc-hwcaps/x86-64-v3, tls/...), searched before each directory but absent from
  every CUDA install; `$LIB` and `$PLATFORM` (entries holding them are skipped); empty entries (the
  current directory); secure (setuid) mode.
  A library a framework dlopen()s by name (TensorFlow's CUDA libraries, JAX's plugins) is searched
  the same way with the calling object as the needing one.

- `resolve_library`: the fixed order used where no ELF record was read (snapshots from before, or
  written without one): LD_LIBRARY_PATH, the framework's own directories (bundled lib/, NVIDIA's
  wheels: modern wheels reach them through their run path), then the ldconfig cache.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping

from gpudoctor.facts import ElfObject, Facts, LibDir, LibraryCopy, LibraryResolution, absence_known
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.probed import Found
from gpudoctor.record import Record, record_class

_ORIGIN = LazyPattern(r"\$(ORIGIN\b|\{ORIGIN\})")
_MULTIARCH = {
    "x86_64": "x86_64-linux-gnu",
    "amd64": "x86_64-linux-gnu",
    "aarch64": "aarch64-linux-gnu",
    "arm64": "aarch64-linux-gnu",
}


def default_dirs(machine: str, debian: bool) -> tuple[str, ...]:
    """glibc's compiled-in system directories: Debian's multiarch layout, else the 64-bit lib64 pair."""
    triplet = _MULTIARCH.get((machine or "").lower())
    if debian and triplet:
        return (f"/lib/{triplet}", f"/usr/lib/{triplet}", "/lib", "/usr/lib")
    if (machine or "").lower() in ("x86_64", "amd64", "aarch64", "arm64", "ppc64le", "s390x"):
        return ("/lib64", "/usr/lib64")
    return ("/lib", "/usr/lib")


MAX_RUN_PATH_DIRS = 64  # real run paths name a dozen; a hostile one cannot make the probe list thousands


def expand(entries: str | None, origin: str) -> tuple[str, ...]:
    """A run path as the loader splits and expands it: `$ORIGIN` is `origin`; relative, empty and
    $LIB/$PLATFORM entries are dropped (see the module's notes); at most MAX_RUN_PATH_DIRS."""
    out: list[str] = []
    for entry in (entries or "").split(":")[:MAX_RUN_PATH_DIRS]:
        entry = _ORIGIN.sub(lambda _m: origin, entry)
        if not entry.startswith("/") or "$" in entry:
            continue
        path = posixpath.normpath(entry)
        if path not in out:
            out.append(path)
    return tuple(out)


def split_path_list(value: str | None) -> tuple[str, ...]:
    """LD_LIBRARY_PATH / LD_PRELOAD entries: glibc splits on ':' and ';' (LD_PRELOAD on spaces too)."""
    return tuple(p for p in re.split(r"[:; ]", value or "") if p.startswith("/"))


@record_class(frozen=True, eq=False, repr=False)
class LoaderEnv(Record):
    """What the loader consults besides the objects themselves, as probed."""

    ld_library_path: tuple[str, ...]
    ldconfig: Mapping[str, tuple[str, ...]] | None
    listings: Mapping[str, frozenset[str]]  # directory -> the file names in it that were listed
    default_dirs: tuple[str, ...] = ()
    preload: tuple[ElfObject, ...] = ()  # LD_PRELOAD objects, with their sonames where read


def search_order(obj: ElfObject, chain: tuple[ElfObject, ...], env: LoaderEnv) -> list[tuple[str, str]]:
    """(directory, how it is searched) in the order ld.so tries them for a soname `obj` needs.

    `chain`: the objects that loaded `obj`, nearest first, ending with the executable.
    """
    order: list[tuple[str, str]] = []
    if not obj.runpath:
        for o in (obj, *chain):
            if o.rpath and not o.runpath:
                order += [(d, f"RPATH of {posixpath.basename(o.path)}") for d in expand(o.rpath, posixpath.dirname(o.path))]
    order += [(d, "LD_LIBRARY_PATH") for d in env.ld_library_path]
    if obj.runpath:
        order += [(d, f"RUNPATH of {posixpath.basename(obj.path)}") for d in expand(obj.runpath, posixpath.dirname(obj.path))]
    return order


def resolve_for(soname: str, obj: ElfObject, chain: tuple[ElfObject, ...], env: LoaderEnv) -> LibraryResolution:
    """The copy of `soname` ld.so loads for `obj`, every other copy it can see, and the way each is reached."""
    found: list[tuple[str, str]] = []
    for pre in env.preload:
        # ld.so matches a loaded object by its DT_SONAME (or the name it was opened by, a path for a preload);
        # a preload whose headers could not be read is taken at its file name.
        if soname == (pre.soname or posixpath.basename(pre.path)):
            found.append((pre.path, "LD_PRELOAD"))
    for directory, via in search_order(obj, chain, env):
        if soname in env.listings.get(directory, ()):
            found.append((posixpath.join(directory, soname), via))
    cached = (env.ldconfig or {}).get(soname, ())
    if obj.nodeflib:
        cached = tuple(p for p in cached if not any(p.startswith(d.rstrip("/") + "/") for d in env.default_dirs))
    if cached:
        found.append((cached[0], "ldconfig"))
    if not obj.nodeflib:
        for directory in env.default_dirs:
            if soname in env.listings.get(directory, ()):
                found.append((posixpath.join(directory, soname), "default"))
    copies: list[LibraryCopy] = []
    for path, via in found:
        if all(c.path != path for c in copies):
            copies.append(LibraryCopy(path, via))
    if not copies:
        return LibraryResolution(soname, None, None, needed_by=obj.path)
    first = copies[0]
    return LibraryResolution(
        soname, first.path, first.via, tuple(c.path for c in copies[1:]), needed_by=obj.path, copies=tuple(copies)
    )


def resolve_library(
    soname: str,
    ld_library_path: tuple[LibDir, ...],
    own_dirs: tuple[LibDir, ...],
    ldconfig: Mapping[str, tuple[str, ...]] | None,
) -> LibraryResolution:
    """The fixed order, for frameworks whose libraries were not read (see the module's notes)."""
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
    prefix: str, *dir_groups: tuple[LibDir, ...], ldconfig: Mapping[str, tuple[str, ...]] | None = None
) -> set[str]:
    """Every soname starting with `prefix` ("libcudnn.so.") that any source offers."""
    names = {n for group in dir_groups for d in group for n in d.names if n.startswith(prefix)}
    names |= {n for n in (ldconfig or {}) if n.startswith(prefix)}
    return names


# --------------------------------------------------------------------------- what a framework's process would miss
# Asked by the checks (a library missing for a framework) and by the planner (a build whose libraries
# would be missing here), from the facts alone.


def ld_dirs(facts: Facts) -> tuple[LibDir, ...]:
    return facts.ld_library_path


def ldconfig_cache(facts: Facts) -> dict[str, tuple[str, ...]] | None:
    return facts.ldconfig.value if isinstance(facts.ldconfig, Found) else None


def _has_bundled(dirs: tuple[LibDir, ...], stem: str) -> bool:
    return any(n.startswith(stem) for d in dirs if d.via == "bundled" for n in d.names)


def elf_resolution(facts: Facts, key: str | None, soname: str) -> LibraryResolution | None:
    """How `soname` loads for the framework `key`, from its own libraries (gpudoctor.probes.loading); None
    where they were not read, or (PyTorch) where none of them needs it: the matrix's list decides then.

    TensorFlow and JAX dlopen() by name: every soname offered anywhere was resolved, so one that is not
    in their entry is nowhere the loader or gpudoctor can see (a resolution without a path)."""
    fl = facts.loading.of(key) if facts.loading is not None and key else None
    if fl is None:
        return None
    for res in fl.loads:
        if res.soname == soname:
            return res
    return LibraryResolution(soname, None, None) if key in ("tensorflow", "jax") else None


def missing_sonames(facts: Facts, sonames: Iterable[str], own: tuple[LibDir, ...], key: str | None = None) -> list[str]:
    """The sonames the loader finds no copy of: from the framework's own libraries (`key`, when they were
    read: gpudoctor.loader.resolve_for), else the fixed order over its directories."""
    cache = ldconfig_cache(facts)
    out = []
    for soname in sonames:
        elf = elf_resolution(facts, key, soname)
        if elf is not None:
            if elf.path is None:
                out.append(soname)
            continue
        stem = soname.split(".so", 1)[0]
        if _has_bundled(own, stem + "-") or _has_bundled(own, soname):
            continue
        if resolve_library(soname, ld_dirs(facts), own, cache).path is None and absence_known(facts, soname):
            out.append(soname)
    return out
