"""Library names and paths a program printed, read from any line into typed facts, each with its line.

A program says which library it loaded, or failed to load, in its own words; what decides the fix is the same few
facts whatever printed them:

- the side: the LINK editor's search at build time (GNU ld's "cannot find -lNAME", "skipping incompatible PATH when
  searching for -lNAME": the -L directories and LIBRARY_PATH, through gcc; never LD_LIBRARY_PATH or the loader's cache,
  binutils ld/ldfiles.c ldfile_open_file_search) or the dynamic LOADER's at run time (glibc's "NAME: cannot open shared
  object file", elf/dl-load.c; Windows' LoadLibrary through ctypes' "Could not find module 'PATH'");
- the image: an ELF shared object (lib*.so[.N]) or a Windows DLL (searched on PATH, not LD_LIBRARY_PATH);
- the name and its major (libcudart.so.12 -> "12"; cublas64_12.dll -> "12");
- the path where the line names one, whether it is a CUDA toolkit's link-time stub (a .../stubs/ folder: libcuda.so
  there exists only to link against, every call answers CUDA_ERROR_STUB_LIBRARY, 34), and whose it is: WSL 2's driver
  folder (/usr/lib/wsl/lib), a toolkit (/usr/local/cuda-X.Y, CUDA\\vX.Y), a conda environment, Python packages
  (site-packages), or the system's library folders.

Pure and bounded: a line past _MAX_LINE characters is a flood, not a message; at most _MAX_FACTS facts. What each
fact decides is the checks' (checks.catalogued.builds for libcuda at link time, checks.catalogued.framework_builds for
the stub loaded); gpudoctor.parsers.error_texts reads its library-missing evidence's side from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.lazypattern import LazyPattern

_MAX_LINE = 2000
_MAX_FACTS = 64

LINK = "link"
LOAD = "load"
# What a library missing on the link side means, where no check decides it (checks.reported's unexplained finding).
LINK_MEANS = "the linker could not find a library its -lNAME option names, at build time (in its -L folders and LIBRARY_PATH, not the loader's search)"

_ELF = r"lib[\w+-][\w.+-]{0,100}?\.(?:so(?:\.\d{1,6}){0,4}|a)"
_DLL = r"[\w+-][\w.+-]{0,100}?\.dll"
# Each form: the side it is on, and a pattern naming `name` (or ld's -l `stem`) and, where the line holds one, `path`.
_FORMS: tuple[tuple[str, LazyPattern], ...] = (
    # GNU ld and gold (binutils ld/ldfile.c: "cannot find -l%s"; lld: "unable to find library -l%s").
    (
        LINK,
        LazyPattern(
            r"\b(?:ld(?:\.\w{1,8})?|collect2|lld): (?:error: )?(?:cannot find|unable to find library) -l(?P<stem>[\w+-]{1,60})"
        ),
    ),
    # ld skipping a file of another architecture on its way (ld/ldfile.c: "skipping incompatible %s when searching
    # for %s"): the file and the folder were there, the search went on.
    (
        LINK,
        LazyPattern(
            r"\bld(?:\.\w{1,8})?: skipping incompatible (?P<path>/[^\s:'\"]{0,300}/)(?P<name>" + _ELF + r") "
            r"when searching for -l(?P<stem>[\w+-]{1,60})"
        ),
    ),
    # glibc's loader: "[PATH/]NAME: cannot open shared object file" (dlopen's and the executable's own).
    (LOAD, LazyPattern(r"(?P<path>/[^\s:'\"()]{0,300}/)?(?P<name>" + _ELF + r"): cannot open shared object file")),
    # ctypes on Windows (Modules/_ctypes/callproc.c: "Could not find module '%.500S'"), torch's "Error loading PATH".
    (
        LOAD,
        LazyPattern(
            r"(?:Could not find module|Error loading) \\?['\"](?P<path>[^'\"\n]{0,300}?[\\/])?(?P<name>" + _DLL + r")\\?['\"]",
            re.I,
        ),
    ),
    # A DLL by name: cuDNN's "Could not load library X.dll", "Could not locate zlibwapi.dll", CTranslate2's "Library X
    # is not found or cannot be loaded", TensorFlow's "dlerror: X.dll not found", "cannot load library X.dll".
    (
        LOAD,
        LazyPattern(
            r"(?:Could not (?:load|locate)(?: library)?|cannot load library|Unable to load(?: library)?:?|\bLibrary) "
            r"(?P<name>" + _DLL + r"|" + _ELF + r")(?!\w|\.\w)|(?P<name2>" + _DLL + r") (?:is )?not found",
            re.I,
        ),
    ),
    # onnxruntime's provider bridge on Windows: 'LoadLibrary failed with error 126 "" when trying to load "PATH"'
    # (onnxruntime/core/platform/windows/env.cc, LoadDynamicLibrary): the DLL named is the one whose load failed, itself
    # or a DLL it needs (126: ERROR_MOD_NOT_FOUND), so the name is no proof it is the missing one.
    (
        LOAD,
        LazyPattern(
            r"LoadLibrary failed with error \d{1,6} [^\n]{0,40}?when trying to load \\?\"(?P<path>[^\"\n]{0,300}?[\\/])?(?P<name>"
            + _DLL
            + r")\\?\"",
            re.I,
        ),
    ),
    # A library the process mapped, by its path: numba's libs.test() ("Mapped libcuda.so paths:", then each path;
    # NVIDIA/numba-cuda numba_cuda/numba/cuda/cudadrv/libs.py @387ba841: print("\tMapped libcuda.so paths:")), ctypes'
    # "PATH: undefined symbol" (the file opened, then a name missing from it: the probe numba's maintainers ask for,
    # CDLL('libcuda.so')._undef, numba/numba#8985).
    (LOAD, LazyPattern(r"Mapped lib\w{1,40}\.so paths:[ \t]*(?P<path>/\S{0,300}/)(?P<name>" + _ELF + r")(?!\w|\.\w)")),
    (LOAD, LazyPattern(r"(?P<path>/[^\s:'\"]{0,300}/)(?P<name>" + _ELF + r"): undefined symbol")),
)
# The words every form holds, tried before any pattern: most lines of a pasted log hold none (tests/pasted/test_big_paste).
# (lowered: ".dll" is written in any case on Windows)
_PREFILTER = (
    "find -l",
    "find library -l",
    "skipping incompatible",
    "cannot open shared object",
    ".dll",
    "mapped lib",
    "undefined symbol",
    "load library",
    "could not load",
    "unable to load",
)
# numba prints the mapped paths one a line under its heading: the lines right after it are read as the heading's.
_MAPPED_HEADING = LazyPattern(r"Mapped lib\w{1,40}\.so paths:\s*$")
_MAPPED_PATH = LazyPattern(r"\s{0,40}(?P<path>/\S{0,300}/)(?P<name>" + _ELF + r")\s*$")

_TOOLKIT = LazyPattern(r"[\\/]cuda-(?P<v>\d{1,2}\.\d{1,2})[\\/]|[\\/]CUDA[\\/]v(?P<w>\d{1,2}\.\d{1,2})[\\/]", re.I)
_MAJOR = LazyPattern(r"\.so\.(?P<so>\d{1,4})|(?:64|_)(?P<dll>\d{1,3})(?:_\d{1,3})?\.dll$", re.I)


@dataclass(frozen=True)
class LibraryLine:
    """One library a line names: its name, the side of the search it failed or answered on, and where it was."""

    name: str  # the file name: libcudart.so.12, libcuda.so (ld's -lcuda), cublas64_12.dll
    side: str  # LINK or LOAD
    image: str  # "elf" or "dll"
    path: str  # the full path where the line gives one, else ""
    major: str  # the library's major where its name holds one (libcudnn.so.8 -> "8", cudnn64_9.dll -> "9")
    stub: bool  # the path is under a .../stubs/ folder (a toolkit's link-time stub)
    home: str  # "wsl", "toolkit", "conda", "python-packages", "system", or "" (no path, or none of those)
    toolkit: str  # the toolkit's version its path names (cuda-11.8 -> "11.8"), else ""
    failed: bool  # the line says the file was not found (not one mapped, opened or skipped)
    line: str  # the line it was read from, stripped and bounded


def home_of(path: str) -> str:
    """Whose folder a library path is: WSL 2's driver folder first (the only libcuda WSL runs), then a toolkit's, a
    conda environment's, Python packages', the system's."""
    p = path.replace("\\", "/").lower()
    if p.startswith("/usr/lib/wsl/"):
        return "wsl"
    if "site-packages/" in p or "dist-packages/" in p:
        return "python-packages"
    if _TOOLKIT.search(path) or p.startswith("/usr/local/cuda/") or "/nvidia gpu computing toolkit/" in p:
        return "toolkit"
    if re.search(r"/(?:ana|mini|micro)?conda\d?/|/(?:mamba|miniforge\d?|mambaforge)/|/envs/", p):
        return "conda"
    if re.match(r"/(?:usr/)?lib(?:64|32)?/", p) or p.startswith("c:/windows/system32/"):
        return "system"
    return ""


def major_of(name: str) -> str:
    """The major a library's name holds: an ELF soname's first number after .so; a CUDA DLL's suffix, which before
    CUDA 11.1 was the major and minor run together (cudart64_101.dll is 10.1, cudart64_92.dll 9.2, cudart64_110.dll
    11.0) and is the major alone after (cublas64_12.dll, cudnn64_8.dll)."""
    m = _MAJOR.search(name)
    if not m:
        return ""
    if m.group("so"):
        return m.group("so")
    digits = m.group("dll")
    return digits[:-1] if len(digits) == 3 or (len(digits) == 2 and int(digits) >= 20) else digits


def _fact(side: str, name: str, path: str, failed: bool, line: str) -> LibraryLine:
    full = path + name if path else ""
    toolkit = _TOOLKIT.search(full) if full else None
    return LibraryLine(
        name=name,
        side=side,
        image="dll" if name.lower().endswith(".dll") else "elf",
        path=full,
        major=major_of(name),
        stub="/stubs/" in full.replace("\\", "/"),
        home=home_of(full) if full else "",
        toolkit=(toolkit.group("v") or toolkit.group("w")) if toolkit else "",
        failed=failed,
        line=line.strip()[:300],
    )


def read_library_lines(text: str) -> tuple[LibraryLine, ...]:
    """Every library fact the text's lines state, in order, each (name, side, path) once. Never raises."""
    out: list[LibraryLine] = []
    seen: set[tuple[str, str, str]] = set()

    def add(fact: LibraryLine) -> None:
        key = (fact.name, fact.side, fact.path)
        if key not in seen and len(out) < _MAX_FACTS:
            seen.add(key)
            out.append(fact)

    lines = text.splitlines() if isinstance(text, str) else []
    heading = -10
    read: set[str] = set()
    for number, line in enumerate(lines):
        # (a line read before says nothing new, except a path under numba's heading, read by its place)
        if len(line) > _MAX_LINE or (line in read and number - heading > 4):
            continue
        read.add(line)
        if number - heading <= 4 and (m := _MAPPED_PATH.match(line)):
            add(_fact(LOAD, m.group("name"), m.group("path"), False, line))
            heading = number  # (the next path under the same heading)
            continue
        lowered = line.lower()
        if not any(word in lowered for word in _PREFILTER):
            continue
        if _MAPPED_HEADING.search(line):
            heading = number
        for side, pattern in _FORMS:
            for m in pattern.finditer(line):
                groups = m.groupdict()
                name = groups.get("name") or groups.get("name2") or ""
                stem = groups.get("stem")
                skipped = "skipping incompatible" in m.group(0)
                if stem and not skipped:
                    name = f"lib{stem}.so"
                if not name:
                    continue
                failed = not skipped and not any(w in m.group(0) for w in ("Mapped", "undefined symbol"))
                add(_fact(side, name, groups.get("path") or "", failed, line))
    return tuple(out)


def stub_libcuda_loaded(facts: tuple[LibraryLine, ...]) -> LibraryLine | None:
    """The first libcuda the process mapped, opened or would load from a toolkit's stubs folder: the link-time stub in
    the driver's place (a stubs file a listing names, `find` or `ls`, is no such fact: every toolkit holds one)."""
    return next((f for f in facts if f.side == LOAD and f.stub and not f.failed and f.name.startswith("libcuda.so")), None)
