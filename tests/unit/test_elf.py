"""gpudoctor.elf: the dynamic section of libraries the C compiler built, of hand-assembled ELF images
(32-bit, big-endian), and of damaged ones, which must fail in one line within the reader's bounds."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from gpudoctor.elf import MAX_NEEDED, MAX_PHNUM, ElfDynamic, ElfError, read_dynamic, read_dynamic_file
from gpudoctor.host import HostError
from gpudoctor.host.live import LiveHost
from gpudoctor.host.replay import RecordingHost, ReplayHost
from gpudoctor.host.snapshot import validate_snapshot

CC = shutil.which("cc") or shutil.which("gcc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc) to build test libraries with")


def _cc(tmp: Path, *args: str) -> None:
    assert CC is not None
    done = subprocess.run([CC, *args], cwd=tmp, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture
def built(tmp_path):
    """libdep.so, and libtop.so needing it, with a static archive linked in, in RPATH and RUNPATH flavours."""
    (tmp_path / "dep.c").write_text("int dep(void) { return 1; }\n")
    _cc(tmp_path, "-shared", "-fPIC", "-Wl,-soname,libdep.so.3", "-o", "libdep.so", "dep.c")
    (tmp_path / "st.c").write_text("int st(void) { return 2; }\n")
    _cc(tmp_path, "-c", "-fPIC", "-o", "st.o", "st.c")
    subprocess.run(["ar", "rcs", "libst.a", "st.o"], cwd=tmp_path, check=True, timeout=60)
    (tmp_path / "top.c").write_text("int dep(void); int st(void); int top(void) { return dep() + st(); }\n")
    for name, dtags in (("rpath", "--disable-new-dtags"), ("runpath", "--enable-new-dtags")):
        _cc(
            tmp_path,
            "-shared",
            "-fPIC",
            f"-Wl,-soname,libtop-{name}.so",
            "-o",
            f"libtop-{name}.so",
            "top.c",
            "-L.",
            "-ldep",
            "-lst",
            f"-Wl,{dtags}",
            "-Wl,-rpath,$ORIGIN/../nvidia/cudnn/lib:/opt/x",
        )
    return tmp_path


@needs_cc
def test_reads_what_the_link_editor_wrote(built):
    rpath = read_dynamic_file(str(built / "libtop-rpath.so"))
    runpath = read_dynamic_file(str(built / "libtop-runpath.so"))
    for d in (rpath, runpath):
        assert "libdep.so.3" in d.needed  # the soname, not the file name it was linked as
        assert not any("st" in n for n in d.needed)  # the archive is inside: nothing to find at run time
        assert not d.nodeflib and d.bits == 64
    assert (rpath.rpath, rpath.runpath) == ("$ORIGIN/../nvidia/cudnn/lib:/opt/x", None)
    assert (runpath.rpath, runpath.runpath) == (None, "$ORIGIN/../nvidia/cudnn/lib:/opt/x")
    assert rpath.soname == "libtop-rpath.so"
    assert read_dynamic_file(str(built / "libdep.so")).soname == "libdep.so.3"


@needs_cc
@pytest.mark.parametrize(
    "z, nodeflib",
    [
        (("nodefaultlib",), True),
        (("nodefaultlib", "now", "origin"), True),  # DF_1_NOW | DF_1_ORIGIN | DF_1_NODEFLIB = 0x809
        (("now", "origin"), False),
        ((), False),
    ],
)
def test_nodeflib_is_its_bit_of_the_flags_whatever_else_is_set(tmp_path, z, nodeflib):
    """elf.py: "DF_1_NODEFLIB = 0x800  # "-z nodeflib": the ldconfig cache and the default directories are not
    searched" - one bit of DT_FLAGS_1, which holds the object's other -z flags beside it (GNU ld spells it
    nodefaultlib)."""
    (tmp_path / "f.c").write_text("int f(void) { return 1; }\n")
    _cc(tmp_path, "-shared", "-fPIC", "-o", "libf.so", "f.c", *(f"-Wl,-z,{flag}" for flag in z))
    assert read_dynamic_file(str(tmp_path / "libf.so")).nodeflib is nodeflib


@needs_cc
def test_agrees_with_readelf(built):
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("binutils' readelf is not installed")
    out = subprocess.run([readelf, "-d", str(built / "libtop-runpath.so")], capture_output=True, text=True, timeout=60).stdout
    needed = [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]
    assert list(read_dynamic_file(str(built / "libtop-runpath.so")).needed) == needed


@needs_cc
def test_live_recorded_and_replayed_alike(built):
    path = str(built / "libtop-rpath.so")
    recording = RecordingHost(LiveHost())
    live = recording.elf(path)
    with pytest.raises(HostError) as exc:
        recording.elf(str(built / "dep.c"))
    assert exc.value.code == "ENOEXEC"
    snapshot = validate_snapshot(recording.snapshot)
    replay = ReplayHost(snapshot)
    assert replay.elf(path) == live
    with pytest.raises(HostError) as exc:
        replay.elf(str(built / "dep.c"))
    assert exc.value.code == "ENOEXEC"
    with pytest.raises(HostError) as exc:
        replay.elf("/nowhere/libx.so")
    assert exc.value.missing


def test_live_refuses_what_is_not_a_regular_file(tmp_path):
    host = LiveHost()
    with pytest.raises(HostError) as exc:
        host.elf(str(tmp_path))
    assert exc.value.code == "EISDIR"
    with pytest.raises(HostError) as exc:
        host.elf(str(tmp_path / "missing.so"))
    assert exc.value.missing


def test_hand_written_record_round_trips():
    record = {"needed": ["libcudnn.so.9", "libcudart.so.12"], "runpath": "$ORIGIN/../nvidia/cudnn/lib", "soname": "x.so"}
    d = ElfDynamic.from_json(record)
    assert d.needed == ("libcudnn.so.9", "libcudart.so.12") and d.runpath == "$ORIGIN/../nvidia/cudnn/lib"
    assert ElfDynamic.from_json(d.to_json()) == d


# --- hand-assembled images: other classes and byte orders, and damage ------------------------------


def _image(bits: int, big: bool, strings: list[tuple[int, str]], *, phnum: int | None = None, strsz: int | None = None) -> bytes:
    """A minimal shared object: header, PT_LOAD covering the file, PT_DYNAMIC, a dynamic section, a string table."""
    e = ">" if big else "<"
    is64 = bits == 64
    ehsize, phentsize = (64, 56) if is64 else (52, 32)
    dyn_fmt = e + ("qQ" if is64 else "iI")
    strtab = b"\x00"
    offsets = []
    for _, text in strings:
        offsets.append(len(strtab))
        strtab += text.encode() + b"\x00"
    dyn_off = ehsize + 2 * phentsize
    entries = [(tag, off) for (tag, _), off in zip(strings, offsets, strict=True)]
    entries += [(5, 0), (10, strsz if strsz is not None else len(strtab)), (0, 0)]  # DT_STRTAB (patched), DT_STRSZ, DT_NULL
    dyn_size = len(entries) * struct.calcsize(dyn_fmt)
    str_off = dyn_off + dyn_size
    vaddr_base = 0x400000
    entries[-3] = (5, vaddr_base + str_off)
    dynamic = b"".join(struct.pack(dyn_fmt, t, v) for t, v in entries)
    total = str_off + len(strtab)
    ident = b"\x7fELF" + bytes([2 if is64 else 1, 2 if big else 1, 1]) + b"\x00" * 9
    if is64:
        header = ident + struct.pack(e + "HHIQQQIHHHHHH", 3, 62, 1, 0, ehsize, 0, 0, ehsize, phentsize, phnum or 2, 64, 0, 0)
        load = struct.pack(e + "IIQQQQQQ", 1, 5, 0, vaddr_base, vaddr_base, total, total, 0x1000)
        dyn = struct.pack(e + "IIQQQQQQ", 2, 6, dyn_off, vaddr_base + dyn_off, vaddr_base + dyn_off, dyn_size, dyn_size, 8)
    else:
        header = ident + struct.pack(e + "HHIIIIIHHHHHH", 3, 20, 1, 0, ehsize, 0, 0, ehsize, phentsize, phnum or 2, 40, 0, 0)
        load = struct.pack(e + "IIIIIIII", 1, 0, vaddr_base, vaddr_base, total, total, 5, 0x1000)
        dyn = struct.pack(e + "IIIIIIII", 2, dyn_off, vaddr_base + dyn_off, vaddr_base + dyn_off, dyn_size, dyn_size, 6, 4)
    image = header + load + dyn + dynamic + strtab
    assert len(image) == total
    return image


def _read(image: bytes) -> ElfDynamic:
    return read_dynamic(lambda off, n: image[off : off + n], len(image))


@pytest.mark.parametrize(("bits", "big"), [(64, False), (64, True), (32, False), (32, True)])
def test_every_class_and_byte_order(bits, big):
    d = _read(_image(bits, big, [(1, "libcudnn.so.8"), (1, "libc.so.6"), (14, "libx.so"), (15, "$ORIGIN"), (29, "/opt/l")]))
    assert d == ElfDynamic(("libcudnn.so.8", "libc.so.6"), "libx.so", "$ORIGIN", "/opt/l", False, bits, 62 if bits == 64 else 20)


def test_damage_is_one_error_within_bounds():
    good = _image(64, False, [(1, "libcudnn.so.8")])
    with pytest.raises(ElfError, match="not an ELF file"):
        _read(b"#!/bin/sh\n")
    with pytest.raises(ElfError):
        _read(good[:40])  # truncated header
    with pytest.raises(ElfError, match="program headers"):
        _read(_image(64, False, [(1, "a")], phnum=MAX_PHNUM + 1))
    with pytest.raises(ElfError, match="outside the string table"):
        _read(_image(64, False, [(1, "libcudnn.so.8")], strsz=1))
    unterminated = good[:-1] + b"x"  # the last string loses its NUL
    with pytest.raises(ElfError, match="not terminated"):
        _read(unterminated)
    # A reader that is asked for a huge span would be a bug: every read is small.
    asked = []

    def pread(off: int, n: int) -> bytes:
        asked.append(n)
        return good[off : off + n]

    read_dynamic(pread, len(good))
    assert max(asked) <= 64 * 1024 and len(asked) <= 4


def test_snapshot_elf_records_are_checked_where_loaded():
    from gpudoctor.errors import SnapshotError

    good = {"format": "gpudoctor-snapshot/1", "elf": {"/x/lib.so": {"needed": ["a.so"], "runpath": "$ORIGIN"}}}
    assert validate_snapshot(good)["elf"]
    for bad in ({"rel/lib.so": {"needed": []}}, {"/x.so": {"needed": "a.so"}}, {"/x.so": {"rpath": 3}}):
        with pytest.raises(SnapshotError):
            validate_snapshot({"format": "gpudoctor-snapshot/1", "elf": bad})


def test_a_fifo_or_device_where_a_library_should_be_is_refused_not_read(tmp_path):
    fifo = tmp_path / "libtorch_cuda.so"
    os.mkfifo(fifo)  # opening it for reading would block without O_NONBLOCK
    for path in (str(fifo), "/dev/zero"):
        with pytest.raises(HostError) as exc:
            LiveHost().elf(path)
        assert exc.value.code == "ENOTREG"


def test_up_to_max_needed_string_entries_are_read_and_one_more_is_refused():
    # MAX_NEEDED (512): a dynamic section naming 512 strings is read whole; 513 is damage, one ElfError.
    assert MAX_NEEDED == 512
    names = [(1, f"lib{i}.so") for i in range(511)] + [(14, "self.so")]
    d = _read(_image(64, False, names))
    assert (len(d.needed), d.needed[-1], d.soname) == (511, "lib510.so", "self.so")
    with pytest.raises(ElfError, match="513 dynamic string entries"):
        _read(_image(64, False, [*names, (1, "one-more.so")]))
