"""/etc/ld.so.cache read directly says what `ldconfig -p` says (gpudoctor.parsers.ldconfig.parse_ld_so_cache).

The live check reads the loader's cache file instead of starting `ldconfig -p`; on a machine with both,
the two readings are compared entry for entry, in order. Cache files built here cover the entries a
64-bit Python must skip (i386, x32, hwcap copies) and files the reader must refuse (the caller then runs
the command).
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess

import pytest

from gpudoctor.errors import ParseError
from gpudoctor.host.live import LiveHost
from gpudoctor.parsers.ldconfig import parse_ld_so_cache, parse_ldconfig
from gpudoctor.probes.python import probe_ldconfig


def cache_file(entries: list[tuple[int, str, str, int]], magic: bytes = b"glibc-ld.so.cache1.1") -> bytes:
    """A cache in glibc's layout: a 48-byte header, 24-byte entries (flags, key, value, osversion, hwcap),
    then the strings, offsets counted from the start of the file."""
    header_size, entry_size = 48, 24
    strings = b""
    offsets = []
    base = header_size + entry_size * len(entries)
    for _, key, value, _ in entries:
        k = base + len(strings)
        strings += key.encode() + b"\0"
        v = base + len(strings)
        strings += value.encode() + b"\0"
        offsets.append((k, v))
    out = struct.pack("=20sIIB3sI12s", magic, len(entries), len(strings), 0, b"\0" * 3, 0, b"\0" * 12)
    for (flags, _, _, hwcap), (k, v) in zip(entries, offsets, strict=True):
        out += struct.pack("=iIIIQ", flags, k, v, 0, hwcap)
    return out + strings


LIBC6, X86_64, X32, AARCH64 = 0x0003, 0x0300, 0x0800, 0x0A00


def test_the_64_bit_entries_in_cache_order():
    data = cache_file(
        [
            (LIBC6 | X86_64, "libcudart.so.12", "/usr/local/cuda/lib64/libcudart.so.12", 0),
            (LIBC6, "libcudart.so.12", "/usr/lib/i386-linux-gnu/libcudart.so.12", 0),  # "(libc6)": kept, as in -p
            (LIBC6 | X32, "libcudart.so.12", "/usr/libx32/libcudart.so.12", 0),  # x32: skipped
            (LIBC6, "libcuda.so.1", "/usr/lib/glibc-hwcaps/libcuda.so.1", 1),  # "(libc6, hwcap: ...)": skipped
            (LIBC6 | AARCH64, "libcudnn.so.9", "/usr/lib/aarch64-linux-gnu/libcudnn.so.9", 0),
        ]
    )
    assert parse_ld_so_cache(data) == {
        "libcudart.so.12": ("/usr/local/cuda/lib64/libcudart.so.12", "/usr/lib/i386-linux-gnu/libcudart.so.12"),
        "libcudnn.so.9": ("/usr/lib/aarch64-linux-gnu/libcudnn.so.9",),
    }
    assert parse_ld_so_cache(data, lambda soname: soname.startswith("libcudnn")) == {
        "libcudnn.so.9": ("/usr/lib/aarch64-linux-gnu/libcudnn.so.9",)
    }


@pytest.mark.parametrize(
    "data, why",
    [
        (b"ld.so-1.7.0" + b"\0" * 64, "not a glibc-ld.so.cache1.1"),
        (cache_file([(LIBC6 | X86_64, "libc.so.6", "/lib/libc.so.6", 0)])[:60], "run past its end"),
        (cache_file([(LIBC6 | 0x1300, "libc.so.6", "/lib/libc.so.6", 0)]), "flags 0x1303"),
        (cache_file([(LIBC6 | X86_64, "libc.so.6", "/lib/libc.so.6", 0)])[:-3], "outside the cache"),
    ],
)
def test_a_file_it_does_not_know_is_refused(data, why):
    with pytest.raises(ParseError, match=why):
        parse_ld_so_cache(data)


ldconfig = shutil.which("ldconfig") or ("/sbin/ldconfig" if os.path.exists("/sbin/ldconfig") else None)


@pytest.mark.skipif(ldconfig is None or not os.path.isfile("/etc/ld.so.cache"), reason="no glibc ldconfig here")
def test_this_machines_cache_reads_as_ldconfig_p_prints_it():
    listed = subprocess.run([str(ldconfig), "-p"], capture_output=True, text=True, timeout=60, check=True).stdout
    with open("/etc/ld.so.cache", "rb") as fh:
        data = fh.read()
    try:
        direct = parse_ld_so_cache(data)
    except ParseError as exc:
        pytest.skip(f"this machine's cache is in a layout the reader leaves to ldconfig: {exc}")
    assert list(direct.items()) == list(parse_ldconfig(listed).items())
    assert direct  # a real cache lists libc at least

    # The probe: the same outcome read from the file as through the command.
    class CommandOnly(LiveHost):
        ld_so_cache = None

    assert probe_ldconfig(LiveHost(), 30.0) == probe_ldconfig(CommandOnly(), 30.0)
