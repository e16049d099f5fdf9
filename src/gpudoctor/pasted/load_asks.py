"""The asks that follow a library the loader could not load (issue 28: "asks driven by the evidence").

A load failure is decided by three answers: which copies of the library exist, which one the loader takes (its
search order), and, for a Python program, which interpreter ran it (so which package's copy was meant). The loader's
search (ldconfig's cache and LD_LIBRARY_PATH on Linux, where.exe over PATH on Windows) is asked by gpudoctor.pasted.ask
already; the blind sets' expectations (plans3-17, tools/ask_census_h250.md) also ask the first and the third, and
those are what this module adds, one table row per failure class, each ask with what its answer decides:

- linux-library: every copy of the library on the machine (a toolkit's lib64, the distribution's, a conda
  environment's lib, pip's nvidia-* wheels), beside the loader's cache that pasted.ask reads;
- windows-dll: the folder a package's own DLL failed from (the DLLs it brought), the copies of that DLL's family and
  major that PATH reaches (which Windows takes for its dependencies), and the interpreter with the folders of the
  PATH it searches, in order.

Asked where the program's own files are: not on a host's shell where the paste shows the program in a container or an
image (its copies are the image's: pasted.ask's container asks read those).
"""

from __future__ import annotations

import ntpath
import re
from dataclasses import dataclass

from gpudoctor.cmdline import Cmd
from gpudoctor.facts import NO_PYTHON, Facts
from gpudoctor.planner import where

# (an import of pasted.ask's Ask would close a circle: the caller wraps each row into its Ask)


@dataclass(frozen=True)
class LoadAsk:
    """One row's ask: the command and what its answer decides."""

    command: Cmd
    decides: str


# Failure class -> what each of its asks decides ({lib}, {folder}, {family} filled from the paste). The commands are
# built below, one function per row, so a row's words and its command stay together.
LOAD_FAILURE_ASKS: dict[str, dict[str, str]] = {
    "linux-library": {
        "copies": (
            "every copy of {lib} on the machine's root filesystem (a toolkit's lib64, the distribution's, a conda "
            "environment's lib, pip's nvidia-* wheels): none of the major the program needs decides an install; one "
            "the loader's cache and LD_LIBRARY_PATH do not reach decides the path to give it"
        ),
    },
    "windows-dll": {
        "folder": (
            "which DLLs {folder} holds: the failing DLL is the package's own, so the one it needs that is not there "
            "(a cuDNN or cuBLAS of its major) is what Windows looked for elsewhere"
        ),
        "family": (
            "which copies of {family} the search path reaches, first one first: another install's older copy found "
            "first is loaded in place of the package's own (error 127: a procedure it lacks)"
        ),
        "installed": (
            "which copies of {family} NVIDIA's installers put under Program Files (cuDNN 9's installer under "
            "NVIDIA\\CUDNN\\v9.x\\bin, an older cuDNN copied into the CUDA toolkit's bin): one there and not on PATH "
            "decides the PATH entry; none decides the install"
        ),
        "interpreter-path": (
            "which Python ran the program and the folders of its PATH in search order: the package and DLLs of that "
            "interpreter, and the folder whose copy Windows loads first"
        ),
    },
}


def _container(facts: Facts) -> bool:
    from gpudoctor.planner.remedy import container_said

    return bool(
        facts.platform.container
        or where.image(facts) is not None
        or where.program_image(facts) is not None
        or container_said(facts) is not None
    )


def linux_library_asks(facts: Facts, lib: str) -> list[LoadAsk]:
    """The copies of `lib` (a soname or its stem, "libcudnn_ops_infer.so.8") on the machine: `find` over the root
    filesystem (-xdev: not /proc, not a Windows drive mounted in WSL, not network mounts), by the stem and any version
    suffix, so every major shows."""
    stem = lib.split(".so", 1)[0]
    if not stem.startswith("lib") or _container(facts):
        return []
    row = LOAD_FAILURE_ASKS["linux-library"]
    return [LoadAsk(Cmd(("find", "/", "-xdev", "-name", f"{stem}.so*")), row["copies"].format(lib=stem))]


# A CUDA library DLL by its family and CUDA (or cuDNN) major: cudnn_cnn64_9.dll, cublasLt64_12.dll, cudart64_110.dll.
_FAMILY_DLL = re.compile(
    r"(?P<family>cudnn|cublas|cudart|cufft|curand|cusolver|cusparse|nvrtc|nvjitlink)\w*?64_(?P<major>\d+)", re.I
)
# A package's own folder in the loader's message (gpudoctor.checks.windows' _PACKAGE_DLL names the package and the DLL):
# the folder is the path up to the DLL's name, "..\" steps resolved as Windows does.
_DLL_PATH = re.compile(r"(?P<path>[A-Za-z]:\\[^\"'<>|?*\r\n]{1,400}?\\)(?P<dll>[\w.-]+\.dll)", re.I)


_PROGRAM_FILES = "C:\\Program Files"


def _family(dll: str) -> str | None:
    """The where.exe pattern of a CUDA library DLL's family at its major: cudnn_cnn64_9.dll -> cudnn*64_9.dll (cuDNN 9's
    sub-libraries load each other, so a copy of any of them from another install breaks the set)."""
    m = _FAMILY_DLL.match(dll)
    return f"{m.group('family')}*64_{m.group('major')}.dll" if m is not None else None


def _folder(line: str, dll: str) -> str | None:
    """The folder `dll` failed from in the loader's `line`, its "..\\" steps folded as Windows folds them (ntpath, whatever
    system reads the paste, as pasted.cues folds a prompt's relative paths)."""
    for m in _DLL_PATH.finditer(line):
        if m.group("dll").lower() == dll.lower():
            return ntpath.normpath(m.group("path"))
    return None


# A Python program's marks on the failure's own line: its exceptions, its packages' folder, a script.
_PYTHON_LINE = re.compile(
    r"site-packages|Traceback|\b(?:OSError|ImportError|ModuleNotFoundError|RuntimeError):|\.py\b|python", re.I
)


def python_failed(facts: Facts, python_named: bool) -> bool:
    """Whether the failure the paste shows is a Python program's: a Python framework or component named
    (`python_named`), or a failing line Python wrote (its exception's name, a site-packages path). An interpreter's
    version alone (an issue form's "Python Version (if applicable)") is not: the program may be a compiled tool
    (trtexec), whose failure no interpreter's ask decides (tools/ask_strikes.py, not-python); nor anything where the
    paste says it is a compiled program (facts.NO_PYTHON)."""
    if any(c.get("cue") == NO_PYTHON for c in facts.pasted.cues):
        return False
    return python_named or any(_PYTHON_LINE.search(e.line) for e in facts.pasted.errors if e.kind == "library-missing")


# The Windows system error a load failure names ("[WinError 126]", "error 127"): 126 a module not found, 127 a
# procedure not found in the one loaded, 193 not a valid Win32 application (Microsoft's System Error Codes 0-499). Each
# is a question of which copies exist and which one the search takes; another (1455, the paging file too small) is not.
_WIN_ERROR = re.compile(r"(?:WinError|error(?: code)?)\s*(\d+)", re.I)
_COPY_ERRORS = frozenset({"126", "127", "193"})


def about_copies(line: str) -> bool:
    return (m := _WIN_ERROR.search(line)) is None or m.group(1) in _COPY_ERRORS


def windows_dll_asks(facts: Facts, dlls: list[str], own: set[str], python_named: bool = False) -> list[LoadAsk]:
    """For each DLL the text shows failing (`dlls`, facts.pasted.missing's, not a warning a program runs on): where it is a package's own (`own`,
    gpudoctor.checks.windows.package_own_dlls), the listing of its folder and the copies of its family's major on PATH;
    and, for a Python program (python_failed), the interpreter with its PATH's folders in order. Only for the errors
    that are about copies (_COPY_ERRORS, or none named)."""
    row = LOAD_FAILURE_ASKS["windows-dll"]
    out: list[LoadAsk] = []
    lines = {
        (e.get("soname") or "").lower(): e.line for e in facts.pasted.errors if e.kind == "library-missing" and e.get("soname")
    }
    dlls = [d for d in dlls if about_copies(lines.get(d.lower(), ""))]
    cudnn = sorted(
        {f for d in dlls[:3] if d.lower() not in own and d.lower().startswith("cudnn") and (f := _family(d)) is not None}
    )
    for family in cudnn[:1]:
        # cuDNN 9's Windows installer puts its DLLs in C:\Program Files\NVIDIA\CUDNN\v9.x\bin\<CUDA major>.x and
        # adds nothing to PATH ("Installing cuDNN Backend on Windows", docs.nvidia.com/deeplearning/cudnn/installation/
        # windows.html); cuDNN 8 and older came as a zip whose bin\cudnn*.dll the guide copies into the toolkit's
        # C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\vX.Y\bin (cuDNN Installation Guide DU-08670-001_v07,
        # "Installing cuDNN on Windows"). where.exe /R walks one folder's tree: Program Files holds both.
        out.append(LoadAsk(Cmd(("where.exe", "/R", _PROGRAM_FILES, family)), row["installed"].format(family=family)))
    for dll in dlls[:3]:
        if dll.lower() not in own:
            continue
        if (folder := _folder(lines.get(dll.lower(), ""), dll)) is not None:
            out.append(LoadAsk(Cmd(("dir", folder)), row["folder"].format(folder=folder)))
        if (own_family := _family(dll)) is not None:
            out.append(LoadAsk(Cmd(("where.exe", own_family)), row["family"].format(family=own_family)))
    if dlls and python_failed(facts, python_named):
        out.append(
            LoadAsk(
                where.python_step(
                    facts, "-c", "import os, sys; print(sys.executable); print(*os.environ['PATH'].split(os.pathsep), sep='\\n')"
                ),
                row["interpreter-path"],
            )
        )
    return out


# The libraries of the CUDA toolkit, cuDNN, NCCL and TensorRT by their family word (libcublasLt.so.11, cudnn64_9.dll,
# libnvJitLink.so.12; libcuda is the driver's, never an environment's package): pip's nvidia-* wheels (nvidia-cublas-cu12, nvidia-cudnn-cu12 ...) and conda's cuda-*/cudnn/nccl
# packages carry them, so a listing filtered by the family word and "nvidia" shows each copy an environment holds. A
# library of any other name is a package's own (libcudf.so: rapidsai's libcudf wheel; libcuml.so: cuML's), listed by
# its stem.
_CUDA_FAMILY = re.compile(
    r"(?:lib)?(?P<family>cudart|cublas|cudnn|cufft|curand|cusolver|cusparse|nvrtc|nvjitlink|nvinfer|nccl|cupti|"
    r"nvtoolsext|npp)",
    re.I,
)
_OWN_LIB = re.compile(r"lib(?P<stem>[A-Za-z][A-Za-z0-9]{1,60})")


def listed_words(packages: list[str], libraries: list[str]) -> list[str]:
    """The words a package listing is filtered by: each package whose import or native part failed, and for each
    library that failed to load its family word and "nvidia" (a CUDA library) or its stem (a package's own)."""
    words: list[str] = []
    for lib in libraries:
        name = ntpath.basename(lib.replace("/", "\\"))
        if (m := _CUDA_FAMILY.match(name)) is not None:
            family = m.group("family").lower()
            # (TensorRT's libnvinfer comes in pip's tensorrt, tensorrt-libs and tensorrt-cu12-libs wheels, conda's
            # tensorrt and libnvinfer packages: NVIDIA's TensorRT installation guide, "Python Package Index Installation")
            words += [family, "tensorrt" if family == "nvinfer" else "nvidia"]
        elif (m := _OWN_LIB.match(name)) is not None:
            words.append(m.group("stem").lower())
    words = [p.lower() for p in packages] + words
    # (a word another contains is matched by that one's filter too: "cudf" finds pylibcudf and libcudf-cu12 alike)
    return [w for w in dict.fromkeys(words) if not any(o != w and o in w for o in words)]


def listing_filter(words: list[str], windows: bool) -> tuple[str, ...]:
    """The filter a package listing is piped through: any of `words`, case aside. A listing names a distribution as
    its metadata does (transformer_engine, torch-tensorrt, torch_tensorrt), so an import name's "_" matches either
    separator: grep -E's "." on Linux; on Windows, whose findstr takes space-separated words as alternatives
    (findstr's documentation, Microsoft's Windows Commands), the name's first part before it."""
    if windows:
        return ("findstr", "/i", " ".join(dict.fromkeys(w.split("_", 1)[0] for w in words)))
    return ("grep", "-iE", "|".join(w.replace("_", ".") for w in words))


def _conda_prefix(py: str) -> str | None:
    """The environment's prefix a conda interpreter's path names: <prefix>/bin/python on Linux and macOS,
    <prefix>\\python.exe on Windows (conda's own layout); None for a bare name."""
    if "\\" in py and py.lower().endswith("python.exe"):
        return ntpath.dirname(py)
    if "/" in py and (m := re.match(r"(?P<prefix>/.+)/bin/python[\d.]*$", py)) is not None:
        return m.group("prefix")
    return None


def package_listing(facts: Facts, py: str, words: list[str], conda: bool, windows: bool) -> LoadAsk:
    """The environment's own package listing, filtered by `words`, from the installer that put its packages there: a
    conda environment's `conda list` (which lists its pip-installed packages too, channel pypi) where the paste shows the
    program's Python is conda's (`conda`); elsewhere the interpreter's own pip (a venv, a system or user-site Python, an
    image's), never conda, which manages none of them. grep -iE on Linux; findstr /i (any of the space-separated words:
    findstr's documentation, Microsoft's Windows Commands) in cmd.exe and PowerShell, which have no grep."""
    pipe = listing_filter(words, windows)
    named = ", ".join(words)
    if conda:
        prefix = _conda_prefix(py)
        cmd = Cmd(("conda", "list", *(("-p", prefix) if prefix else ())), pipe=pipe)
        return LoadAsk(
            cmd,
            f"the packages of the program's conda environment matching {named}, with their versions, builds and "
            "channels (pip's installs there too, as pypi): which package holds the library that failed to load, and "
            "whether its release and CUDA build match the others",
        )
    cmd = where.python_step(facts, "-m", "pip", "list")
    return LoadAsk(
        Cmd(cmd.argv, root=cmd.root, pipe=pipe, note=cmd.note),
        f"the distributions the program's own interpreter holds matching {named}, with their versions: whether the "
        "one that ships the library that failed to load is installed at all, and of the same release and CUDA major as "
        "the package that loads it",
    )
