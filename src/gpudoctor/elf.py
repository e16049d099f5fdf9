"""A small, bounded reader of an ELF file's dynamic section: DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH.

Only what the dynamic loader itself reads is read, the way it reads it (glibc elf/dl-load.c): the ELF
header, the program headers, the PT_DYNAMIC segment, and the few strings of the dynamic string table
its entries name (found through the PT_LOAD segment that maps DT_STRTAB). Section headers, symbol
tables and the rest of the file are never touched, so a 1 GiB libtorch_cuda.so costs a handful of
small reads. Every size and count taken from the file is bounded before it is used: a damaged or
hostile file raises ElfError (one line), never a huge read or a long loop.

Pure: it reads through a `pread(offset, size) -> bytes` callable; `gpudoctor.host` supplies one for
the live machine, and snapshots hold the result (docs/snapshot-format.md, "elf").
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# Hard bounds. Real libraries: < 16 program headers, < 100 dynamic entries, sonames and run paths of
# a few hundred bytes (libtorch_cuda.so 2.x: 11 program headers, ~60 dynamic entries).
MAX_PHNUM = 512
MAX_DYNAMIC_BYTES = 64 * 1024
MAX_STRING = 4096
MAX_NEEDED = 512

PT_LOAD, PT_DYNAMIC = 1, 2
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ, DT_SONAME, DT_RPATH, DT_RUNPATH = 0, 1, 5, 10, 14, 15, 29
DT_FLAGS_1 = 0x6FFFFFFB
DF_1_NODEFLIB = 0x800  # "-z nodeflib": the ldconfig cache and the default directories are not searched


class ElfError(ValueError):
    """Not an ELF file, or one whose dynamic section cannot be read within the bounds."""


@dataclass(frozen=True)
class ElfDynamic:
    """What the loader reads of one object. `rpath`/`runpath` are as stored: colon-separated, $ORIGIN unexpanded.

    glibc ignores DT_RPATH when DT_RUNPATH is present (elf/get-dynamic-info.h); both are kept here as
    written, and `gpudoctor.loader` applies that rule.
    """

    needed: tuple[str, ...] = ()
    soname: str | None = None
    rpath: str | None = None
    runpath: str | None = None
    nodeflib: bool = False
    bits: int = 64  # ELFCLASS32 or ELFCLASS64
    machine: int | None = None  # e_machine: 62 x86-64, 183 AArch64

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"needed": list(self.needed)}
        for key in ("soname", "rpath", "runpath"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.nodeflib:
            data["nodeflib"] = True
        data["bits"] = self.bits
        if self.machine is not None:
            data["machine"] = self.machine
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ElfDynamic:
        def text(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        needed = data.get("needed") or []
        bits = data.get("bits")
        machine = data.get("machine")
        return cls(
            needed=tuple(str(n) for n in needed if isinstance(n, str))[:MAX_NEEDED],
            soname=text("soname"),
            rpath=text("rpath"),
            runpath=text("runpath"),
            nodeflib=data.get("nodeflib") is True,
            bits=bits if bits in (32, 64) else 64,
            machine=machine if isinstance(machine, int) and not isinstance(machine, bool) else None,
        )


def read_dynamic(pread: Callable[[int, int], bytes], file_size: int) -> ElfDynamic:
    """The dynamic section of the ELF file `pread` reads. Raises ElfError.

    A static executable or a static archive member has no PT_DYNAMIC: it needs nothing, and reads as
    an ElfDynamic with no entries.
    """
    head = pread(0, 64)
    if len(head) < 16 or head[:4] != b"\x7fELF":
        raise ElfError("not an ELF file")
    cls, data = head[4], head[5]
    if cls not in (1, 2) or data not in (1, 2):
        raise ElfError(f"unknown ELF class {cls} or data encoding {data}")
    end = "<" if data == 1 else ">"
    is64 = cls == 2
    if len(head) < (64 if is64 else 52):
        raise ElfError("truncated ELF header")
    if is64:
        machine, phoff, phentsize, phnum = (
            struct.unpack_from(end + "H", head, 18)[0],
            struct.unpack_from(end + "Q", head, 32)[0],
            *struct.unpack_from(end + "HH", head, 54),
        )
        ph_fmt, dyn_fmt = end + "IIQQQQQQ", end + "qQ"
    else:
        machine, phoff, phentsize, phnum = (
            struct.unpack_from(end + "H", head, 18)[0],
            struct.unpack_from(end + "I", head, 28)[0],
            *struct.unpack_from(end + "HH", head, 42),
        )
        ph_fmt, dyn_fmt = end + "IIIIIIII", end + "iI"
    if phnum == 0:
        return ElfDynamic(bits=64 if is64 else 32, machine=machine)
    if phnum > MAX_PHNUM or phentsize < struct.calcsize(ph_fmt) or phoff + phnum * phentsize > file_size:
        raise ElfError(f"implausible program headers ({phnum} of {phentsize} bytes at {phoff})")
    table = pread(phoff, phnum * phentsize)
    if len(table) < phnum * phentsize:
        raise ElfError("truncated program headers")
    loads: list[tuple[int, int, int]] = []  # (vaddr, offset, filesz)
    dynamic: tuple[int, int] | None = None
    for i in range(phnum):
        fields = struct.unpack_from(ph_fmt, table, i * phentsize)
        if is64:
            p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = fields[:6]
        else:
            p_type, p_offset, p_vaddr, _paddr, p_filesz = fields[:5]
        if p_type == PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        return ElfDynamic(bits=64 if is64 else 32, machine=machine)
    offset, size = dynamic
    if size > MAX_DYNAMIC_BYTES or offset + size > file_size:
        raise ElfError(f"implausible dynamic segment ({size} bytes at {offset})")
    raw = pread(offset, size)
    step = struct.calcsize(dyn_fmt)
    entries: list[tuple[int, int]] = []
    for pos in range(0, len(raw) - step + 1, step):
        tag, val = struct.unpack_from(dyn_fmt, raw, pos)
        if tag == DT_NULL:
            break
        entries.append((tag, val))
    strtab = next((v for t, v in entries if t == DT_STRTAB), None)
    strsz = next((v for t, v in entries if t == DT_STRSZ), None)
    flags_1 = next((v for t, v in entries if t == DT_FLAGS_1), 0)
    wanted = [(t, v) for t, v in entries if t in (DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH)]
    if len(wanted) > MAX_NEEDED:
        raise ElfError(f"{len(wanted)} dynamic string entries: more than {MAX_NEEDED}")
    if wanted and (strtab is None or strsz is None):
        raise ElfError("dynamic section without a string table")
    base = _file_offset(loads, strtab) if wanted and strtab is not None else 0
    strings = _StringReader(pread, base, strsz or 0, file_size)
    needed: list[str] = []
    found: dict[int, str] = {}
    for tag, val in wanted:
        text = strings.at(val)
        if tag == DT_NEEDED:
            needed.append(text)
        else:
            found.setdefault(tag, text)
    return ElfDynamic(
        needed=tuple(needed),
        soname=found.get(DT_SONAME),
        rpath=found.get(DT_RPATH),
        runpath=found.get(DT_RUNPATH),
        nodeflib=bool(flags_1 & DF_1_NODEFLIB),
        bits=64 if is64 else 32,
        machine=machine,
    )


def _file_offset(loads: list[tuple[int, int, int]], vaddr: int) -> int:
    """Where the loaded address `vaddr` lies in the file: the PT_LOAD segment that maps it."""
    for p_vaddr, p_offset, p_filesz in loads:
        if p_vaddr <= vaddr < p_vaddr + p_filesz:
            return vaddr - p_vaddr + p_offset
    raise ElfError(f"the string table's address {vaddr:#x} is in no loaded segment")


class _StringReader:
    """NUL-terminated strings of the dynamic string table, read in small windows as they are asked for."""

    def __init__(self, pread: Callable[[int, int], bytes], base: int, size: int, file_size: int) -> None:
        self.pread, self.base, self.size, self.file_size = pread, base, size, file_size
        self.window_start, self.window = -1, b""

    def at(self, index: int) -> str:
        if index >= self.size or self.base + index >= self.file_size:
            raise ElfError(f"string {index} is outside the string table")
        rel = index - self.window_start
        if not (self.window_start >= 0 and rel >= 0 and self.window.find(b"\x00", rel) >= 0):
            # The strings a dynamic section names sit together near the table's start: one window of
            # MAX_STRING bytes usually answers all of them.
            length = min(MAX_STRING, self.size - index, self.file_size - self.base - index)
            self.window_start, self.window = index, self.pread(self.base + index, length)
            rel = 0
        stop = self.window.find(b"\x00", rel)
        if stop < 0:
            raise ElfError(f"string {index} is not terminated within {MAX_STRING} bytes")
        return self.window[rel:stop].decode("utf-8", errors="replace")


def read_dynamic_file(path: str) -> ElfDynamic:
    """read_dynamic on a local file (tests and bench). Raises OSError or ElfError."""
    import os

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        return read_dynamic(lambda off, n: os.pread(fd, n, off), os.fstat(fd).st_size)
    finally:
        os.close(fd)
