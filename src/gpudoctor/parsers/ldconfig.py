"""`ldconfig -p`: the dynamic loader's cache, soname -> paths in cache order.

Accepts glibc's format (`\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/...`),
with or without the leading "N libs found in cache" line; and the cache file itself
(/etc/ld.so.cache, which is what `ldconfig -p` prints), in glibc's "glibc-ld.so.cache1.1" layout.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable

from gpudoctor.errors import ParseError
from gpudoctor.lazypattern import LazyPattern

_LINE = LazyPattern(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)\s*$")


def parse_ldconfig(text: str) -> dict[str, tuple[str, ...]]:
    cache: dict[str, list[str]] = {}
    matched = 0
    for line in text.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        matched += 1
        soname, flags, path = match.groups()
        if _wanted(flags):
            cache.setdefault(soname, []).append(path)
    if not matched and text.strip() and "libs found" not in text:
        raise ParseError("no ldconfig cache entries found")
    return {k: tuple(v) for k, v in cache.items()}


def _wanted(flags: str) -> bool:
    """Only 64-bit x86/ARM entries matter to a 64-bit Python; i386 copies would mislead."""
    return "x86-64" in flags or "AArch64" in flags or "64bit" in flags or flags.strip() == "libc6"


# glibc's elf/cache.c and sysdeps/generic/dl-cache.h: the header of a cache written by glibc 2.32 and
# later (magic, version, nlibs, len_strings, flags, padding, extension_offset, unused[3]), then nlibs
# entries (flags, key, value, osversion, hwcap) whose key and value are offsets of NUL-terminated
# strings from the start of the file. An older file (the "ld.so-1.7.0" format first) is not read here.
_MAGIC = b"glibc-ld.so.cache1.1"
_HEADER = struct.Struct("=20sIIB3sI12s")
_ENTRY = struct.Struct("=iIIIQ")
# What `ldconfig -p` prints in the parentheses (glibc's print_entry): the type, then the ABI the entry requires.
_TYPES = {0: "libc4", 1: "ELF", 2: "libc5", 3: "libc6"}
_REQUIRED = {  # the values glibc gives a 64-bit x86/ARM/POWER/s390/SPARC/MIPS system; others are refused
    0x0000: "",
    0x0100: ",64bit",
    0x0200: ",IA-64",
    0x0300: ",x86-64",
    0x0400: ",64bit",
    0x0500: ",64bit",
    0x0600: ",N32",
    0x0700: ",64bit",
    0x0800: ",x32",
    0x0900: ",hard-float",
    0x0A00: ",AArch64",
}


def parse_ld_so_cache(data: bytes, keep: Callable[[str], bool] | None = None) -> dict[str, tuple[str, ...]]:
    """/etc/ld.so.cache as `parse_ldconfig` reads `ldconfig -p`'s listing of it: the same entries, same order;
    with `keep`, only the sonames it keeps (a path is decoded only for those).

    Raises ParseError for anything but a well-formed "glibc-ld.so.cache1.1" file (an older layout, another
    byte order, an offset outside the file, an entry type `ldconfig -p` would print as "unknown"): the
    caller then runs `ldconfig -p`.
    """
    if len(data) < _HEADER.size or not data.startswith(_MAGIC):
        raise ParseError("not a glibc-ld.so.cache1.1 file")
    _, nlibs, _, _, _, _, _ = _HEADER.unpack_from(data)
    if _HEADER.size + nlibs * _ENTRY.size > len(data):
        raise ParseError("the cache's entries run past its end")

    encoding = sys.getfilesystemencoding()

    def string(offset: int) -> str:
        end = data.find(b"\0", offset)
        if offset >= len(data) or end < 0:
            raise ParseError("a string offset outside the cache")
        return data[offset:end].decode(encoding, "surrogateescape")

    # Whether an entry is wanted depends on its flags and on whether it has hwcap and OS ABI notes only: decided once
    # per combination (a cache holds a few among its hundreds of entries; each entry decided anew was most of a live
    # check's ldconfig probe, 6.5 M instructions for this machine's 570: bench/README.md h226).
    wanted: dict[tuple[int, bool, bool], bool] = {}
    cache: dict[str, list[str]] = {}
    for flags, key, value, osversion, hwcap in _ENTRY.iter_unpack(data[_HEADER.size : _HEADER.size + nlibs * _ENTRY.size]):
        seen = (flags, not hwcap, not osversion)
        if seen not in wanted:
            kind, required = _TYPES.get(flags & 0xFF), _REQUIRED.get(flags & 0xFF00)
            if kind is None or required is None:
                raise ParseError(f"an entry of flags {flags:#x}")
            # hwcap and OS ABI notes follow in the parentheses; they only matter to the bare "libc6" test.
            wanted[seen] = _wanted(kind + required + (", hwcap" if hwcap else "") + (", OS ABI" if osversion else ""))
        if wanted[seen]:
            soname = string(key)
            if keep is None or keep(soname):
                cache.setdefault(soname, []).append(string(value))
    return {k: tuple(v) for k, v in cache.items()}
