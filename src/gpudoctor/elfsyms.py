"""A bounded reader of an ELF file's dynamic symbols: what it needs from other objects, what it exports.

gpudoctor.elf reads what the loader reads to find libraries; this reads what the loader reads to bind
symbols (glibc elf/dl-lookup.c): `.dynsym` with its string table, `.gnu.version` (which version of a
name each symbol wants), `.gnu.version_r` (the versions it needs, per library: GLIBCXX_3.4.30 from
libstdc++.so.6) and `.gnu.version_d` (the versions it defines). The tables are found through the
section headers, which every linker writes; a file stripped of them raises ElfError.

Used only for the extensions and companions that are installed (gpudoctor.probes.extensions), and for
the libraries of the torch they bind to. Every size and count from the file is bounded before use;
`keep` drops exported names the caller does not ask about, so libtorch_cpu.so's 100k exports cost one
pass and a small set.

Pure: it reads through `pread(offset, size) -> bytes`, as gpudoctor.elf does.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpudoctor.elf import ElfError

MAX_SHNUM = 4096
MAX_SYMBOLS = 2_000_000  # libtorch_cpu.so 2.x: about 150k dynamic symbols
MAX_TABLE_BYTES = 256 * 1024 * 1024  # its .dynstr: tens of MiB of mangled names
MAX_VERSION_ENTRIES = 4096
MAX_UNDEFINED_KEPT = 20_000  # an extension needs a few thousand; more is not an extension

SHT_DYNSYM, SHT_GNU_VERDEF, SHT_GNU_VERNEED, SHT_GNU_VERSYM = 11, 0x6FFFFFFD, 0x6FFFFFFE, 0x6FFFFFFF
STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 1, 2, 10


@dataclass(frozen=True)
class ElfSymbols:
    """`undefined`: (name, version or None) the object needs, weak ones left out (the loader lets them be
    missing); `defined`: exported names (those `keep` accepted); `needs`: library file -> the symbol
    versions needed from it; `versions`: the versions this object defines."""

    undefined: tuple[tuple[str, str | None], ...] = ()
    defined: frozenset[str] = frozenset()
    needs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    versions: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "undefined": [f"{n}@{v}" if v else n for n, v in self.undefined],
            "defined": sorted(self.defined),
            "needs": {k: list(v) for k, v in sorted(self.needs.items())},
            "versions": list(self.versions),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ElfSymbols:
        def strings(key: str) -> list[str]:
            raw = data.get(key) or []
            return [s for s in raw if isinstance(s, str)] if isinstance(raw, list) else []

        undefined = []
        for entry in strings("undefined")[:MAX_UNDEFINED_KEPT]:
            name, _, version = entry.partition("@")
            undefined.append((name, version or None))
        raw_needs = data.get("needs")
        needs = {
            str(k): tuple(str(x) for x in v if isinstance(x, str))
            for k, v in (raw_needs.items() if isinstance(raw_needs, dict) else ())
            if isinstance(v, list)
        }
        return cls(tuple(undefined), frozenset(strings("defined")), needs, tuple(strings("versions")))


def read_symbols(pread: Callable[[int, int], bytes], file_size: int, keep: Callable[[str], bool] | None = None) -> ElfSymbols:
    """The dynamic symbols of the ELF file `pread` reads. Raises ElfError."""
    head = pread(0, 64)
    if len(head) < 52 or head[:4] != b"\x7fELF":
        raise ElfError("not an ELF file")
    cls, data = head[4], head[5]
    if cls not in (1, 2) or data not in (1, 2):
        raise ElfError(f"unknown ELF class {cls} or data encoding {data}")
    end = "<" if data == 1 else ">"
    is64 = cls == 2
    if is64:
        if len(head) < 64:
            raise ElfError("truncated ELF header")
        shoff = struct.unpack_from(end + "Q", head, 40)[0]
        shentsize, shnum = struct.unpack_from(end + "HH", head, 58)
        sh_fmt = end + "IIQQQQIIQQ"
    else:
        shoff = struct.unpack_from(end + "I", head, 32)[0]
        shentsize, shnum = struct.unpack_from(end + "HH", head, 46)
        sh_fmt = end + "IIIIIIIIII"
    if shnum == 0 or shoff == 0:
        raise ElfError("no section headers (stripped of them): the symbol tables cannot be found")
    if shnum > MAX_SHNUM or shentsize < struct.calcsize(sh_fmt) or shoff + shnum * shentsize > file_size:
        raise ElfError(f"implausible section headers ({shnum} of {shentsize} bytes at {shoff})")
    table = pread(shoff, shnum * shentsize)
    if len(table) < shnum * shentsize:
        raise ElfError("truncated section headers")
    sections: list[tuple[int, int, int, int, int]] = []  # (type, offset, size, link, info)
    for i in range(shnum):
        f = struct.unpack_from(sh_fmt, table, i * shentsize)
        # 64: name type flags addr offset size link info align entsize; 32: the same order, 4-byte fields.
        sections.append((f[1], f[4], f[5], f[6], f[7]))

    def blob(index: int, what: str) -> bytes:
        if not 0 <= index < len(sections):
            raise ElfError(f"{what}: section {index} does not exist")
        _t, offset, size, _l, _i = sections[index]
        if size > MAX_TABLE_BYTES or offset + size > file_size:
            raise ElfError(f"implausible {what} ({size} bytes at {offset})")
        raw = pread(offset, size)
        if len(raw) < size:
            raise ElfError(f"truncated {what}")
        return raw

    dynsym = next((i for i, s in enumerate(sections) if s[0] == SHT_DYNSYM), None)
    if dynsym is None:
        return ElfSymbols()  # a static object exports and needs nothing dynamically
    syms = blob(dynsym, ".dynsym")
    strtab = blob(sections[dynsym][3], ".dynstr")
    step = 24 if is64 else 16
    count = len(syms) // step
    if count > MAX_SYMBOLS:
        raise ElfError(f"{count} dynamic symbols: more than {MAX_SYMBOLS}")

    def name_at(offset: int) -> str:
        if offset >= len(strtab):
            raise ElfError(f"symbol name {offset} is outside the string table")
        stop = strtab.find(b"\x00", offset)
        return strtab[offset : stop if stop >= 0 else len(strtab)].decode("utf-8", errors="replace")

    versym = next((i for i, s in enumerate(sections) if s[0] == SHT_GNU_VERSYM), None)
    indices = blob(versym, ".gnu.version") if versym is not None else b""
    version_names: dict[int, str] = {}
    needs: dict[str, list[str]] = {}
    for i, s in enumerate(sections):
        if s[0] == SHT_GNU_VERNEED:
            _verneed(blob(i, ".gnu.version_r"), min(s[4], MAX_VERSION_ENTRIES), end, name_at, version_names, needs)
    versions: list[str] = []
    for i, s in enumerate(sections):
        if s[0] == SHT_GNU_VERDEF:
            _verdef(blob(i, ".gnu.version_d"), min(s[4], MAX_VERSION_ENTRIES), end, name_at, version_names, versions)

    sym_fmt = end + ("IBBHQQ" if is64 else "IIIBBH")
    undefined: list[tuple[str, str | None]] = []
    defined: set[str] = set()
    for i in range(1, count):
        f = struct.unpack_from(sym_fmt, syms, i * step)
        st_name, info, other, shndx = (f[0], f[1], f[2], f[3]) if is64 else (f[0], f[3], f[4], f[5])
        if st_name == 0:
            continue
        bind = info >> 4
        if bind not in (STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE):
            continue
        version = None
        if len(indices) >= 2 * (i + 1):
            idx = struct.unpack_from(end + "H", indices, 2 * i)[0] & 0x7FFF
            version = version_names.get(idx)
        if shndx == 0:
            if bind != STB_WEAK and len(undefined) < MAX_UNDEFINED_KEPT:
                undefined.append((name_at(st_name), version))
        elif other & 3 in (0, 3):  # default or protected visibility: seen by other objects
            name = name_at(st_name)
            if keep is None or keep(name):
                defined.add(name)
    return ElfSymbols(tuple(undefined), frozenset(defined), {k: tuple(v) for k, v in needs.items()}, tuple(versions))


def _verneed(raw: bytes, count: int, end: str, name_at, names: dict[int, str], needs: dict[str, list[str]]) -> None:
    pos = 0
    for _ in range(count):
        if pos + 16 > len(raw):
            raise ElfError("truncated .gnu.version_r")
        _ver, cnt, file_off, aux, nxt = struct.unpack_from(end + "HHIII", raw, pos)
        wanted = needs.setdefault(name_at(file_off), [])
        apos = pos + aux
        for _ in range(min(cnt, MAX_VERSION_ENTRIES)):
            if apos + 16 > len(raw):
                raise ElfError("truncated .gnu.version_r entry")
            _hash, _flags, other, name_off, anext = struct.unpack_from(end + "IHHII", raw, apos)
            name = name_at(name_off)
            names[other & 0x7FFF] = name
            wanted.append(name)
            if anext == 0:
                break
            apos += anext
        if nxt == 0:
            break
        pos += nxt


def _verdef(raw: bytes, count: int, end: str, name_at, names: dict[int, str], versions: list[str]) -> None:
    pos = 0
    for _ in range(count):
        if pos + 20 > len(raw):
            raise ElfError("truncated .gnu.version_d")
        _ver, flags, ndx, cnt, _hash, aux, nxt = struct.unpack_from(end + "HHHHIII", raw, pos)
        if cnt and pos + aux + 8 <= len(raw):
            name = name_at(struct.unpack_from(end + "I", raw, pos + aux)[0])
            names[ndx & 0x7FFF] = name
            if not flags & 1:  # VER_FLG_BASE names the file itself, not a version
                versions.append(name)
        if nxt == 0:
            break
        pos += nxt


def read_symbols_file(path: str, keep: Callable[[str], bool] | None = None) -> ElfSymbols:
    """read_symbols on a local file (tests and bench). Raises OSError or ElfError."""
    import os

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        return read_symbols(lambda off, n: os.pread(fd, n, off), os.fstat(fd).st_size, keep)
    finally:
        os.close(fd)
