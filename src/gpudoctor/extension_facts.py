"""What was read of the packages built on top of a framework (gpudoctor.probes.extensions) and of a
running process's mappings (gpudoctor.probes.process): plain data, kept beside gpudoctor.facts."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExtensionObject:
    """One compiled extension of a companion, as its ELF says.

    `unresolved`: torch names (gpudoctor.symbols) it needs that none of torch's libraries exports;
    `cxx11abi`: the C++ ABI its torch names were compiled with (None where none shows it);
    `glibcxx`/`glibc`: the newest symbol versions it needs from libstdc++ and libc."""

    path: str
    needed_cuda: tuple[str, ...] = ()
    unresolved: tuple[str, ...] = ()
    torch_symbols: int = 0
    cxx11abi: bool | None = None
    glibcxx: str | None = None
    glibc: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class Companion:
    """An installed package tied to one torch: its metadata and its extensions' ELF."""

    name: str
    version: str
    site: str
    requires: tuple[str, ...] = ()  # Requires-Dist entries without an extra (torch==2.3.1, ...)
    metadata: str | None = None  # where they were read; None when no METADATA was found
    objects: tuple[ExtensionObject, ...] = ()


@dataclass(frozen=True)
class ExtensionFacts:
    """The installed torch as extensions bind to it, and every companion found."""

    torch_version: str | None
    torch_cuda: str | None
    torch_cxx11abi: bool | None  # from its exported names; None when its libraries were not read
    torch_libs: tuple[str, ...]  # the torch libraries whose exports were read
    torch_requires: tuple[str, ...]  # torch's own Requires-Dist (its NCCL and triton pins)
    companions: tuple[Companion, ...]
    system_glibcxx: str | None = None  # the newest GLIBCXX_ the libstdc++.so.6 the loader finds defines
    system_glibc: str | None = None  # the newest GLIBC_ the libc.so.6 it finds defines
    runtime_paths: tuple[str, ...] = ()  # the libstdc++.so.6 and libc.so.6 read for them
    unread: tuple[str, ...] = ()


@dataclass(frozen=True)
class MappedLibrary:
    """One CUDA library in a running process' /proc/PID/maps: the file name as mapped and its path."""

    soname: str  # the file name as mapped (libcudart.so.12 or libcudart.so.12.1.105)
    path: str


@dataclass(frozen=True)
class ProcessFacts:
    """The CUDA libraries a running process has mapped (/proc/PID/maps), or why they could not be read."""

    pid: int
    mapped: tuple[MappedLibrary, ...] = ()
    error: str | None = None
    # What the static loader model predicts: (framework, soname, the real file its copy leads to).
    predicted: tuple[tuple[str, str, str], ...] = ()
