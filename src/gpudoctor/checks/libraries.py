"""Libraries beyond the frameworks whose builds are tied to one CUDA (and cuDNN) major, read from pasted reports:
onnxruntime-gpu, CTranslate2 (under faster-whisper), CuPy's distributions, CUDA Python's bindings.

Each check judges what the catalogue (gpudoctor/parsers/catalogue.toml) read and names the build that fits, where
the generic loader findings (gpudoctor.checks.reported) could only say a library is missing; `explained` tells
those findings which sonames and failures are judged here, so one cause gets one finding.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from gpudoctor.checks.base import Check, ev
from gpudoctor.cmdline import Cmd, Line, Output
from gpudoctor.facts import NO_PYTHON, Facts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.planner.where import in_tool
from gpudoctor.probed import Found
from gpudoctor.record import Record, record_class
from gpudoctor.versions import cuda_from_int, vkey

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gpudoctor.matrix.records import LibraryBuild

# cuDNN for CUDA 12 as NVIDIA's wheels, per cuDNN major: faster-whisper's README installs "nvidia-cudnn-cu12==9.*";
# 8.9.7.29 is the last cuDNN 8 wheel for CUDA 12 (tensorflow 2.16's [and-cuda] pin); both resolved with pip's
# --dry-run (tests/blind/plans2/pins-checked-B.txt).
_CUDNN_CU12 = {9: "nvidia-cudnn-cu12==9.*", 8: "nvidia-cudnn-cu12==8.9.7.29"}
# cuDNN 8 for CUDA 11, the only cuDNN CTranslate2's CUDA 11 builds (3.x) load: "==8.*" resolves on both platforms the
# index serves it for (pip --dry-run --no-deps, CPython 3.10, 2026-11-29: 8.9.6.50 on manylinux, 8.9.5.29 on win_amd64,
# where no 8.9.6 wheel exists; tests/blind/plans3's case 245 names 8.9.6.50 for Linux, plans12's pins-checked-B 8.9.5.29
# for Windows).
_CUDNN_CU11 = {8: "nvidia-cudnn-cu11==8.*"}


def _build(
    ctx: Context, package: str, *, version: str | None = None, cuda: int | None = None, cudnn: int | None = None
) -> LibraryBuild | None:
    """The matrix's build of `package`: the one `version` is, else the newest of that CUDA (and cuDNN) major."""
    if version:
        return ctx.matrix.library_build(package, version)
    fits = [
        b
        for b in ctx.matrix.library_builds_of(package)
        if (cuda is None or b.cuda == cuda) and (cudnn is None or b.cudnn == cudnn)
    ]
    return fits[-1] if fits else None


def _said(facts: Facts, kind: str) -> list:
    return facts.pasted.reported(kind) if facts.pasted.partial else []


def _python(facts: Facts) -> str | None:
    py = facts.frameworks.python
    return ".".join(py.value.version.split(".")[:2]) if isinstance(py, Found) and py.value.version else None


def _pip(facts: Facts, *args: str) -> Cmd:
    from gpudoctor.planner.remedy import pip

    return pip(facts, *args)


def _ct2(facts: Facts) -> tuple[list, str | None]:
    """The lines that show CTranslate2 at work, and its version where one shows it."""
    said = [e for e in _said(facts, "library-said") if (e.get("entry") or "").startswith("ctranslate2-")]
    py = facts.frameworks.python
    installed = py.value.distributions.get("ctranslate2") if isinstance(py, Found) else None
    version = installed or next((e.get("version") for e in said if e.get("version")), None)
    return said, version


def _faster_whisper_cuda11(facts: Facts, ctx: Context) -> str | None:
    """faster-whisper's last release that takes CTranslate2's CUDA 11 builds (3.x), where faster-whisper is installed
    or named: its 1.0 and later require ctranslate2>=4.0,<5 (its requirements.txt; compat_matrix/libraries.toml), so
    a ctranslate2 3.24.0 under them is a pair pip cannot satisfy, and the two move in one command."""
    py = facts.frameworks.python
    whisper = (isinstance(py, Found) and "faster-whisper" in py.value.distributions) or any(
        (e.get("library") or "").lower().replace("_", "-") == "faster-whisper" for e in _said(facts, "library-said")
    )
    fw = _build(ctx, "faster-whisper", cuda=11) if whisper else None
    return fw.pin_for(_python(facts)) if fw else None


def _ct2_sees_gpu(facts: Facts) -> Cmd:
    from gpudoctor.planner.remedy import python_exe

    return Cmd(
        (python_exe(facts), "-c", "import ctranslate2; print(ctranslate2.__version__, ctranslate2.get_cuda_device_count())"),
        note="the release installed, and how many GPUs its CUDA runtime sees: at least 1",
    )


def _driver_cuda(facts: Facts, ctx: Context) -> int | None:
    from gpudoctor.checks.driver import driver_cuda

    up_to, _ = driver_cuda(facts, ctx.matrix)
    return int(up_to.split(".")[0]) if up_to else None


# --- onnxruntime-gpu -------------------------------------------------------------------------------------------


def _ort_cuda11(facts: Facts, ctx: Context):
    """onnxruntime's provider that asks for a CUDA 11 library (not cuDNN): the CUDA 11 build, on a machine whose
    driver is not shown to stop at CUDA 11."""
    said = [
        e
        for e in _said(facts, "onnxruntime-provider-load-failed")
        if e.get("major") == "11"
        and re.match(r"lib(?:cublas|cublasLt|cudart|cufft|curand)\.", e.get("soname") or "")
        or re.match(r"libcudnn\.so\.8$", e.get("soname") or "")
        and _ort_said_cuda11(facts, ctx)
    ]
    if not said:
        return None
    driver = _driver_cuda(facts, ctx)
    return said[0] if driver is None or driver >= 12 else None


def _ort_said_cuda11(facts: Facts, ctx: Context) -> bool:
    """The onnxruntime release the text names (its issue form) is one of the package index's CUDA 11 builds: then its
    provider asking for cuDNN 8 is that build's, not a CUDA 12 one's missing its cuDNN."""
    versions = [e.get("version") for e in _said(facts, "library-said") if e.get("entry") == "onnxruntime-version"]
    build = _build(ctx, "onnxruntime-gpu", version=versions[0]) if versions and versions[0] else None
    return build is not None and build.cuda == 11


def _ort_cuda12_install(facts: Facts, ctx: Context, e) -> Cmd | None:
    """The install of onnxruntime-gpu's CUDA 12 build for a provider that asked for CUDA 11 libraries (`e`), with
    NVIDIA's cuDNN wheel where it asked for cuDNN 8: the machine has none of the new build's cuDNN either."""
    build = _build(ctx, "onnxruntime-gpu", cuda=12)
    if build is None:
        return None
    pin = build.pin_for(_python(facts))  # a Python its wheels do not cover: the range of the CUDA 12 builds
    spec = f"onnxruntime-gpu=={pin}" if pin else f"onnxruntime-gpu>={build.since}"
    return _pip(facts, "install", spec, *_ort_cudnn_wheel(e, build))


def _ort_cudnn_wheel(e, build: LibraryBuild) -> tuple[str, ...]:
    """NVIDIA's cuDNN wheel of the CUDA 12 build's cuDNN major, where the provider asked for a cuDNN library."""
    return (_CUDNN_CU12[build.cudnn],) if (e.get("soname") or "").startswith("libcudnn") and build.cudnn in _CUDNN_CU12 else ()


def _ort_of_the_program(facts: Facts, e) -> Finding:
    """onnxruntime's CUDA 11 provider failing in a program that is no Python, as its error shows (raised through the
    C++ API's Ort::Exception or the Java API's OrtException: a C++ build linked to the onnxruntime its CMake downloaded,
    a Java service's Maven package): pip reaches none of it (as for a compiled program's CTranslate2, above). The provider library of the program's own onnxruntime needs the CUDA 11 libraries on the
    loader's path (a CUDA 11 toolkit's lib64 beside the CUDA the machine has, with cuDNN 8), or the program rebuilt
    against onnxruntime's CUDA 12 GPU release (its maintainers on microsoft/onnxruntime#12540: ldd on the provider,
    then the libraries it lacks where the loader looks)."""
    from gpudoctor.cmdline import Placeholder, PrependPath

    soname = e.get("soname") or ""
    provider = Placeholder("providers-cuda-library")
    return Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"the program's own onnxruntime is a CUDA 11 build: its CUDA provider needs {soname}",
        f"onnxruntime said so ('Failed to load library libonnxruntime_providers_cuda.so with error: {soname}'), in a "
        "program that runs no Python: it carries its own onnxruntime library, built for CUDA 11, which loads CUDA 11's "
        "libraries by name. The CUDA installed beside it is another major, so its CUDA provider fails; pip's "
        "onnxruntime-gpu never reaches this program.",
        (ev("pasted", e.line),),
        Remediation(
            "Give the program's onnxruntime the CUDA 11 libraries it was built for: a CUDA 11.8 toolkit (user-level, "
            "toolkit only, no driver) with cuDNN 8 for CUDA 11 beside the CUDA installed, its lib64 put first on "
            "LD_LIBRARY_PATH in the shell that starts the program; or rebuild the program against onnxruntime's CUDA 12 "
            "GPU release (with the cuDNN that release was built with).",
            (
                Cmd(("ldd", provider), pipe=("grep", "-E", "not found|cublas|cudart|cudnn"), note="what the provider lacks"),
                Cmd(
                    ("ldconfig", "-p"),
                    pipe=("grep", "-E", "libcublasLt?\\.so\\.11|libcudart\\.so\\.11|libcudnn\\.so\\.8"),
                    note="CUDA 11 and cuDNN 8 libraries the loader knows already",
                ),
                PrependPath("LD_LIBRARY_PATH", (Placeholder("cuda-11-toolkit"), "/lib64")),
            ),
            component="environment",
        ),
    )


def check_onnxruntime_cuda11(facts: Facts, ctx: Context) -> Iterable[Finding]:
    e = _ort_cuda11(facts, ctx)
    if e is None:
        return
    py = facts.frameworks.python
    in_python = isinstance(py, Found) and any(n.startswith("onnxruntime") for n in py.value.distributions)
    if _said(facts, "onnxruntime-native-binding") and not in_python:
        yield _ort_of_the_program(facts, e)
        return
    build = _build(ctx, "onnxruntime-gpu", cuda=12)
    install = _ort_cuda12_install(facts, ctx, e)
    if build is None or install is None:
        return
    cudnn = _ort_cudnn_wheel(e, build)
    # Beside another onnxruntime distribution, all of them go first (check_onnxruntime_packages prints the same two
    # commands): installing over the CPU package's files would leave them mixed.
    packages = ort_packages(facts)
    commands = _ort_reinstall(facts, ctx, packages) if packages else (install,)
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"onnxruntime-gpu is a CUDA 11 build: its CUDA provider needs {e.get('soname')}",
        f"onnxruntime said so ('Failed to load library libonnxruntime_providers_cuda.so with error: {e.get('soname')}'): "
        f"the onnxruntime-gpu installed was built for CUDA 11 (the package index's builds before {build.since} are; "
        f"from {build.since} they are CUDA 12 with cuDNN {build.cudnn}), and without CUDA 11 libraries it falls back "
        "to the CPU. CUDA 11 libraries beside it would also do; the CUDA 12 build is what current PyTorch and NVIDIA's "
        "CUDA 12 wheels go with.",
        (ev("pasted", e.line),),
        Remediation(
            f"Install onnxruntime-gpu's CUDA 12 build ({build.since} and later from the package index; it needs cuDNN "
            f"{build.cudnn} loadable, as PyTorch 2.4+'s nvidia-cudnn-cu12 wheel provides)"
            + (f", with NVIDIA's cuDNN {build.cudnn} wheel beside it." if cudnn else "."),
            commands,
            component="environment",
        ),
    )


# NVIDIA's CUDA 12 wheels that hold what onnxruntime-gpu's CUDA 12 provider loads besides cuDNN: its `cuda` extra
# (onnxruntime-gpu 1.23.2's metadata: nvidia-cuda-nvrtc-cu12, nvidia-cuda-runtime-cu12, nvidia-cufft-cu12,
# nvidia-curand-cu12; pip --dry-run --no-deps, CPython 3.12, manylinux_2_28_x86_64, 2026-11-30) and cuBLAS, which its
# `cudnn` extra's nvidia-cudnn-cu12 pulls in; named here without the extras, which older CUDA 12 builds lack.
_ORT_CUDA12_WHEELS = ("nvidia-cuda-runtime-cu12", "nvidia-cublas-cu12", "nvidia-cufft-cu12", "nvidia-curand-cu12")
# Every lib folder of NVIDIA's wheels in the interpreter's site-packages (the nvidia namespace package), joined by ":".
_NVIDIA_WHEEL_DIRS = (
    'import glob, os, nvidia; print(":".join(sorted(glob.glob(os.path.join(list(nvidia.__path__)[0], "*", "lib")))))'
)


def _ort_cuda12(facts: Facts, ctx: Context):
    """onnxruntime's provider that asks for a CUDA 12 library that is not cuDNN (libcublasLt.so.12, libcudart.so.12,
    libcufft.so.11, libcurand.so.10 under a CUDA 12 soname's failure): the CUDA 12 build, whose libraries neither its
    wheel nor the machine's loader path holds."""
    said = [
        e
        for e in _said(facts, "onnxruntime-provider-load-failed")
        if e.get("major") == "12" and re.match(r"lib(?:cublas|cublasLt|cudart|nvrtc)\.so\.12$", e.get("soname") or "")
    ]
    if not said or (facts.platform.system or "Linux") != "Linux":
        return None
    py = facts.frameworks.python
    in_python = isinstance(py, Found) and any(n.startswith("onnxruntime") for n in py.value.distributions)
    if _said(facts, "onnxruntime-native-binding") and not in_python:
        return None  # a C++ or Java program's own onnxruntime: pip's wheels never reach it
    driver = _driver_cuda(facts, ctx)
    return said[0] if driver is None or driver >= 12 else None


def check_onnxruntime_cuda12_libs(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The CUDA 12 build of onnxruntime-gpu missing its CUDA 12 libraries: pip's onnxruntime-gpu carries none of them
    (its `cuda` and `cudnn` extras name NVIDIA's wheels), and onnxruntime does not search those wheels by itself unless
    the program calls onnxruntime.preload_dlls() (1.21 and later), so their lib folders go on LD_LIBRARY_PATH where the
    program starts. No driver, toolkit or onnxruntime reinstall: the session falls back to the CPU until then."""
    from gpudoctor.planner.remedy import keep_path, kept, library_dir, python_exe

    e = _ort_cuda12(facts, ctx)
    build = _build(ctx, "onnxruntime-gpu", cuda=12) if e is not None else None
    if e is None or build is None or build.cudnn not in _CUDNN_CU12:
        return
    soname = e.get("soname") or ""
    commands: tuple[Line, ...] = (
        _pip(facts, "install", *_ORT_CUDA12_WHEELS, _CUDNN_CU12[build.cudnn]),
        library_dir(
            facts,
            (Output((python_exe(facts), "-c", _NVIDIA_WHEEL_DIRS)),),
            note="every NVIDIA wheel's lib folder first on LD_LIBRARY_PATH",
        ),
    )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"onnxruntime-gpu's CUDA 12 provider cannot load {soname}: the CUDA 12 libraries are not installed where it loads them",
        f"onnxruntime said so ('Failed to load library libonnxruntime_providers_cuda.so with error: {soname}'): the "
        f"onnxruntime-gpu installed is a CUDA 12 build (from {build.since} the package index's are, with cuDNN "
        f"{build.cudnn}), which loads CUDA 12's libraries by name and carries none of them; without them it falls back "
        "to the CPU, so the program still runs, slowly.",
        (ev("pasted", e.line),),
        Remediation(
            f"Install NVIDIA's CUDA 12 runtime, cuBLAS, cuFFT, cuRAND and cuDNN {build.cudnn} wheels into the program's "
            "Python (no root) and put their lib folders on LD_LIBRARY_PATH where the program starts; or install the "
            f"CUDA 12 libraries and cuDNN {build.cudnn} system-wide from NVIDIA's repository." + keep_path(facts),
            kept(facts, commands),
            component="environment",
        ),
    )


# The DLL names of the libraries onnxruntime's CUDA provider loads, per CUDA and cuDNN major (NVIDIA's Windows names:
# cudart64_110.dll serves every CUDA 11.x, cudart64_12.dll every 12.x).
_ORT_CUDA_DLLS = {
    11: ("cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll"),
    12: ("cudart64_12.dll", "cublas64_12.dll", "cublasLt64_12.dll"),
}


def _ort_version_said(facts: Facts) -> tuple[str, str] | None:
    """(package, release) of the onnxruntime GPU package the text names (its issue form, a package line, NuGet's)."""
    for e in _said(facts, "library-said"):
        if e.get("entry") in ("onnxruntime-gpu-package-version", "onnxruntime-version") and e.get("version"):
            return e.get("package") or "onnxruntime-gpu", e.get("version")
    py = facts.frameworks.python
    if isinstance(py, Found) and (v := py.value.distributions.get("onnxruntime-gpu")):
        return "onnxruntime-gpu", v
    return None


def check_onnxruntime_windows_provider(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """onnxruntime's CUDA provider DLL failed to load on Windows (LoadLibrary error 126: a DLL it depends on is not
    found) where the text names the GPU package's release, or the provider's warning names its build's majors: that
    build's CUDA and cuDNN majors (the matrix's rows, from onnxruntime.ai's requirements, or the warning's) are the DLLs
    that must be on PATH, whatever CUDA is installed beside them; where.exe over exactly those names shows which is
    missing. The NuGet package's CUDA major is the package index's only where
    both distributions agree (before 1.17 and from 1.19): between them the rows do not say."""
    if not (facts.platform.system or "").lower().startswith("win") or not _said(facts, "onnxruntime-cuda-provider-failed"):
        return
    said = _ort_version_said(facts)
    majors = _said(facts, "onnxruntime-build-majors")
    shown = None
    if majors and (majors[0].get("cuda") or "").isdigit() and (majors[0].get("cudnn") or "").isdigit():
        shown = (int(majors[0].get("cuda") or 0), int(majors[0].get("cudnn") or 0))
    if said is None:
        if shown is None or shown[0] not in _ORT_CUDA_DLLS:
            return
        # no release named, but the provider's warning names its build's majors: the DLLs are known
        said = ("onnxruntime-gpu", "")
    package, version = said
    build = _build(ctx, "onnxruntime-gpu", version=version) if version else None
    if version and (build is None or build.cuda not in _ORT_CUDA_DLLS):
        return
    nuget = package.lower().startswith("microsoft.")
    if nuget and (1, 17) <= vkey(version)[:2] < (1, 19):
        return
    from gpudoctor.cmdline import Placeholder, PrependPath
    from gpudoctor.planner.remedy import keep_path

    line = _said(facts, "onnxruntime-cuda-provider-failed")[0].line
    # The provider's own warning names the majors of the build that failed ("Require cuDNN 9.* and CUDA 12.*"): where
    # they are not the named release's, the text names another release (the one used before an upgrade, as
    # microsoft/onnxruntime#21769 shows: 1.18.1 named, 1.19.0 failing), and the one that failed is a build of those
    # majors. Going back to the named release (its build's majors, the matrix's) is then the cheap fix, pinned in
    # the interpreter that ran.
    back = None
    cuda, cudnn = (build.cuda, build.cudnn) if build is not None else shown or (0, 0)
    if build is not None and shown is not None and shown != (build.cuda, build.cudnn) and shown[0] in _ORT_CUDA_DLLS:
        cuda, cudnn = shown
        back = version
    who = (
        f"the installed {package} (a CUDA {cuda} build, not {version})"
        if back
        else f"{package} {version}"
        if version
        else f"the installed {package} (a CUDA {cuda} and cuDNN {cudnn} build, as its warning says)"
    )
    dlls = (*_ORT_CUDA_DLLS[cuda], f"cudnn64_{cudnn}.dll")
    where = Cmd(("where.exe", *dlls), note=f"the CUDA {cuda} and cuDNN {cudnn} DLLs PATH finds")
    # The pip package in a Python the text shows: its build's DLLs as NVIDIA's wheels into that Python, their bin folders
    # first on PATH, is the decided step (a C# or C++ program's NuGet or native onnxruntime is no pip user: it keeps the
    # toolkit route). It assumes where.exe finds some of them missing, which the error says.
    wheels = None
    # Only where the text names the release: with the provider's warning alone (an ask case: which DLL PATH lacks is
    # not shown, plans4/310, plans7/622) the reads decide first.
    if version and not back and not nuget and not _said(facts, "onnxruntime-native-binding"):
        from gpudoctor.checks.dll_wheels import install_words, windows_wheel_dlls

        dnn = {11: _CUDNN_CU11, 12: _CUDNN_CU12}.get(cuda, {}).get(cudnn)
        wheels = windows_wheel_dlls(
            facts, cuda, dnn, note=f"every NVIDIA wheel's bin folder, CUDA {cuda}'s and cuDNN {cudnn}'s DLLs, first on PATH"
        )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"{who}: its CUDA provider needs CUDA {cuda} and cuDNN {cudnn} DLLs on PATH"
        if back
        else f"{who}'s CUDA provider needs CUDA {cuda} and cuDNN {cudnn} DLLs on PATH",
        "Windows could not load onnxruntime_providers_cuda.dll (error 126: a DLL it depends on was not found). "
        + (
            f"The installed {package} is built for CUDA {cuda}.x and cuDNN {cudnn}.x, as its own warning says, unlike "
            f"{package} {back} the text names (CUDA {build.cuda}.x, cuDNN {build.cudnn}.x): "
            if back and build is not None
            else f"{package} {version} is built for CUDA {cuda}.x and cuDNN {cudnn}.x (onnxruntime.ai's CUDA execution "
            "provider requirements): "
            if version
            else f"The installed {package} is built for CUDA {cuda}.x and cuDNN {cudnn}.x, as its own warning says: "
        )
        + f"it loads {', '.join(dlls)}, and DLLs of another CUDA or cuDNN major do not count. A CUDA {cuda} toolkit's bin "
        f"folder and cuDNN {cudnn}'s bin folder on PATH, or a {package} release built for the CUDA installed, fix it.",
        (ev("pasted", line), *(ev("pasted", x.line) for x in majors[:1] if shown is not None and (back or build is None))),
        Remediation(
            (
                f"Go back to {package} {back}, the CUDA {build.cuda} and cuDNN {build.cudnn} build the text names, in the "
                f"same interpreter; or keep this release and put CUDA {cuda}.x's and cuDNN {cudnn}.x's bin folders on PATH "
                "(a new terminal or IDE sees them): where.exe shows which of its DLLs PATH finds."
            )
            if back and build is not None
            else f"See which of the DLLs {who} loads are on PATH (the step assumes some are missing, as the error says); "
            f"install them as {install_words(cuda, cudnn, dnn or '')} with the Python that runs the program (no toolkit, no "
            "administrator), put their bin folders first on PATH in the shell that starts the program, and start it "
            "again from there (a terminal or an IDE opened before the change does not see it)."
            + keep_path(facts, windows=True)
            + f" Or install {_ort_installs(cuda, cudnn)} with their bin folders on PATH; or move to the {package} "
            "release built for the CUDA and cuDNN installed."
            if wheels
            else f"See which of the DLLs {who} loads are on PATH; install what is missing: {_ort_installs(cuda, cudnn)}. "
            f"Then put cuDNN's bin folder first on PATH in the shell that starts the program, and start it again from "
            f"there (a terminal or an IDE such as Visual Studio opened before the change does not see it)."
            + keep_path(facts, windows=True)
            + f" Or move to the {package} release built for the CUDA and cuDNN installed.",
            (_pip(facts, "install", f"{package}=={back}"), where)
            if back
            else (where, *wheels)
            if wheels
            else (where, PrependPath("PATH", (Placeholder("cudnn-folder"), "\\bin"), note=f"cuDNN {cudnn}'s DLLs first")),
            component="environment",
        ),
    )


# The release of each CUDA and cuDNN major that a build of that major loads from PATH, named where the provider's DLLs
# are missing: CUDA 11.8 is the last CUDA 11 toolkit (NVIDIA's CUDA Toolkit Archive; onnxruntime.ai's CUDA execution
# provider requirements list it for 1.15 to 1.18), and every 11.x toolkit ships the same cudart64_110.dll and
# cublas64_11.dll names; cuDNN 8.9.7 is the last cuDNN 8, built for CUDA 11.x and for 12.x (NVIDIA's cuDNN Archive).
_ORT_TOOLKIT = {11: "11.8"}
_ORT_CUDNN = {8: "8.9.7"}


def _ort_installs(cuda: int, cudnn: int) -> str:
    toolkit = _ORT_TOOLKIT.get(cuda)
    kit = (
        f"the CUDA {toolkit} toolkit (the last CUDA {cuda}; NVIDIA's Windows installer puts it beside any other CUDA and "
        "its bin on PATH)"
        if toolkit
        else f"a CUDA {cuda}.x toolkit (NVIDIA's Windows installer puts it beside any other CUDA and its bin on PATH)"
    )
    dnn = _ORT_CUDNN.get(cudnn)
    zip_ = (
        f"cuDNN {dnn} for CUDA {cuda}.x (the last cuDNN {cudnn}; its Windows zip, unpacked to a folder of your choice)"
        if dnn
        else f"cuDNN {cudnn}.x for CUDA {cuda}.x (its Windows zip, unpacked to a folder of your choice)"
    )
    return f"{kit}, and {zip_}"


# --- CTranslate2 -----------------------------------------------------------------------------------------------


def _cudnn_missing(facts: Facts) -> tuple[str, int] | None:
    for m in facts.pasted.missing:
        found = re.match(r"libcudnn\w*\.so\.(\d+)$", m)
        if found:
            return m, int(found.group(1))
    return None


@record_class(frozen=True, eq=False, repr=False)
class _CudnnByName(Record):
    """A library that loads cuDNN by soname and does not search NVIDIA's pip wheels, with the soname it missed."""

    who: str  # "ctranslate2 4.5.0", "CTranslate2", "onnxruntime-gpu"
    soname: str
    major: int
    lines: tuple[str, ...]  # the pasted lines that show the library at work
    other: str | None  # the same library's build for the other cuDNN major, as words
    # The CUDA major of the build at work, None where the text does not decide it: builds of two CUDA majors load this
    # cuDNN major, and the text states a CUDA other than the one assumed (_ct2_cuda_open).
    cuda: int | None = 12


def _cuda_majors_said(facts: Facts) -> set[int]:
    """The CUDA majors the text states (an issue form's field, the reporter's words, a toolkit's library directory)."""
    kinds = ("cuda-version-said", "cuda-toolkit-said", "cuda-have-said", "cuda-lib-dir-said", "cuda-runtime-said")
    said = [(e.get("cuda") or "").split(".")[0] for kind in kinds for e in _said(facts, kind)]
    return {int(m) for m in said if m.isdigit()}


def cuda_majors_known(facts: Facts) -> set[int]:
    """The CUDA majors the text states or shows: its words and fields, the toolkits it shows, PyTorch's build."""
    from gpudoctor.checks.toolkit import torch_cuda_major

    torch = torch_cuda_major(facts)
    return _cuda_majors_said(facts) | _shown_cuda_majors(facts) | ({torch} if torch else set())


def _ct2_cuda_open(facts: Facts, ctx: Context, cudnn: int) -> bool:
    """CTranslate2's version not shown, and its CUDA major not decided by the cuDNN soname it missed: the matrix has
    builds of several CUDA majors for that cuDNN (3.x: CUDA 11 and 4.0-4.4: CUDA 12 both load cuDNN 8; OpenNMT/
    CTranslate2 CHANGELOG.md, compat_matrix/libraries.toml), and the text states a CUDA 11 and no CUDA 12. A pip
    install of that time may have brought either, so the CUDA 12 build assumed otherwise (faster-whisper 1.x's) is
    not the only reading: the installed version decides between CUDA 11's wheels and CUDA 12's."""
    cudas = {b.cuda for b in ctx.matrix.library_builds_of("ctranslate2") if b.cudnn == cudnn}
    said = _cuda_majors_said(facts)
    return len(cudas) > 1 and 11 in said and 12 not in said


def _cudnn_by_name(facts: Facts, ctx: Context) -> _CudnnByName | None:
    """CTranslate2 at work, or onnxruntime's CUDA provider naming a cuDNN soname, with a cuDNN of the major of a
    CUDA 12 build not loadable (Linux: on Windows the DLL checks judge it)."""
    missing = _cudnn_missing(facts)
    if missing is None or facts.platform.system.lower().startswith("win"):
        return None
    soname, major = missing
    said, version = _ct2(facts)
    if said:
        if version is None and _ct2_cuda_open(facts, ctx, major):
            return _CudnnByName("CTranslate2", soname, major, (said[0].line,), None, None)
        # Its version not shown: the CUDA 12 build of that cuDNN major (faster-whisper 1.x requires ctranslate2 4).
        build = _build(ctx, "ctranslate2", version=version, cuda=12, cudnn=major)
        if build is None or build.cudnn != major or build.cuda != 12:
            return None
        other = _build(ctx, "ctranslate2", cuda=12, cudnn=8 if major == 9 else 9)
        return _CudnnByName(
            f"ctranslate2 {version}" if version else "CTranslate2",
            soname,
            major,
            (said[0].line,),
            f"ctranslate2 {other.pin or f'{other.since} or later'} (cuDNN {other.cudnn})" if other else None,
        )
    ort = [e for e in _said(facts, "onnxruntime-provider-load-failed") if e.get("soname") == soname]
    if ort and _build(ctx, "onnxruntime-gpu", cuda=12, cudnn=major) is not None:
        return _CudnnByName("onnxruntime-gpu", soname, major, (ort[0].line,), None)
    return None


def _torch_cudnn(facts: Facts, ctx: Context) -> tuple[str, int] | None:
    """The environment's PyTorch, where it is a CUDA 12 build, and the cuDNN major it brings (compat_matrix/torch.toml:
    each variant's cuDNN; an untagged version is the release's build on the package index)."""
    t = facts.frameworks.torch
    if not isinstance(t, Found) or not t.value.version:
        return None
    variant = ctx.matrix.torch_variant(t.value.version, t.value.cuda or None)
    if variant is None or not variant.cudnn or not variant.cuda.startswith("12."):
        return None
    return t.value.version, int(variant.cudnn.split(".")[0])


def _ct2_of_torch_cudnn(facts: Facts, ctx: Context, found: _CudnnByName) -> Finding | None:
    """CTranslate2 asked for a cuDNN major other than the one the environment's PyTorch brings (torch 2.4 and later
    pin nvidia-cudnn-cu12 9.x, compat_matrix/torch.toml; CTranslate2 before 4.5 loads cuDNN 8). NVIDIA's cuDNN 8 and 9
    wheels are one distribution, nvidia-cudnn-cu12: installing 8.x for CTranslate2 replaces PyTorch's 9. One major for
    both is the fix: CTranslate2's CUDA 12 build of PyTorch's cuDNN (compat_matrix/libraries.toml; the fix reported
    in SYSTRAN/faster-whisper#1236: "Try CTranslate2==4.5.0")."""
    if not found.who.lower().startswith("ctranslate2"):
        return None
    torch = _torch_cudnn(facts, ctx)
    if torch is None or torch[1] == found.major:
        return None
    version, cudnn = torch
    build = _build(ctx, "ctranslate2", cuda=12, cudnn=cudnn)
    pin = build.pin_for(_python(facts)) if build else None
    if pin is None:
        return None
    from gpudoctor.planner.remedy import python_exe

    check = "import torch, ctranslate2; print(torch.__version__, torch.backends.cudnn.version(), ctranslate2.__version__, ctranslate2.get_cuda_device_count())"
    return Finding(
        "cudnn-missing",
        Severity.ERROR,
        "cudnn",
        f"{found.who} needs cuDNN {found.major}, and this environment's PyTorch {version} brings cuDNN {cudnn}",
        f"The loader could not open {found.soname}, as the text shows: the {found.who} at work is a cuDNN "
        f"{found.major} build, while PyTorch {version} in the same environment brings cuDNN {cudnn} (its "
        f"nvidia-cudnn-cu12 wheel). Two majors in one environment: NVIDIA's cuDNN {found.major} wheel is the same "
        f"distribution, nvidia-cudnn-cu12, and installing it would replace PyTorch's. The driver and the toolkit are "
        f"not at fault. ctranslate2 {pin} is the CUDA 12 build of cuDNN {cudnn}, PyTorch's own.",
        tuple(ev("pasted", line) for line in found.lines) + (ev("pasted", f"{found.soname}: cannot be loaded"),),
        Remediation(
            f"Install ctranslate2=={pin}, the build of PyTorch's cuDNN {cudnn}, with the environment's own Python "
            "(pip may warn that a package pins ctranslate2 below it, the cause of the split; faster-whisper 1.x takes "
            f"it); or keep the ctranslate2 installed and put a cuDNN {found.major} outside pip on the loader's path "
            "(the distribution's package), never NVIDIA's cuDNN wheel of that major into this environment.",
            (
                _pip(facts, "install", f"ctranslate2=={pin}"),
                Cmd((python_exe(facts), "-c", check), note="PyTorch's cuDNN, the release installed, and the GPUs it sees"),
            ),
            component="cudnn",
        ),
    )


def check_cudnn_by_name(facts: Facts, ctx: Context) -> Iterable[Finding]:
    found = _cudnn_by_name(facts, ctx)
    if found is None:
        return
    split = _ct2_of_torch_cudnn(facts, ctx, found)
    if split is not None:
        yield split
        return
    soname, major = found.soname, found.major
    from gpudoctor.planner.remedy import keep_path, kept, library_dir, python_exe, shown_library_dir

    if (shown := shown_library_dir(facts, [soname], "cudnn")) is not None:
        # the file is on disk, where the text lists it: whichever build asked for it, its directory is the fix
        yield Finding(
            "cudnn-missing",
            Severity.ERROR,
            "cudnn",
            f"{found.who} cannot load {soname}, which the text shows installed off the loader's path",
            f"The loader could not open {soname}, as the text shows, and the text lists that file on disk. "
            f"{found.who} loads cuDNN by soname and does not search NVIDIA's pip wheels itself: the directory that holds "
            "it must be on LD_LIBRARY_PATH in the environment the program starts in.",
            tuple(ev("pasted", line) for line in found.lines) + (ev("pasted", f"{soname}: cannot be loaded"),),
            shown,
        )
        return
    if found.cuda is None:
        yield _ct2_cuda_undecided(facts, ctx, found)
        return

    exe = python_exe(facts)

    def wheel_dir(lib: str) -> Output:
        program = f"import os, nvidia.{lib}.lib as m; print(os.path.dirname(m.__file__))"
        return Output((exe, "-c", program), site_dir=f"nvidia/{lib}/lib")

    commands: tuple[Line, ...] = (
        _pip(facts, "install", "nvidia-cublas-cu12", _CUDNN_CU12[major]),
        library_dir(facts, (wheel_dir("cublas"),), note="cuBLAS's wheel directory first on LD_LIBRARY_PATH"),
        library_dir(facts, (wheel_dir("cudnn"),), note="cuDNN's wheel directory first on LD_LIBRARY_PATH"),
    )
    yield Finding(
        "cudnn-missing",
        Severity.ERROR,
        "cudnn",
        f"{found.who} needs cuDNN {major} for CUDA 12, and the loader cannot find {soname}",
        f"The loader could not open {soname}, as the text shows, and the {found.who} that asks for it is built for "
        f"CUDA 12 and cuDNN {major}. It loads cuDNN by soname and does not search NVIDIA's pip wheels itself: the cuDNN "
        "wheel's directory (site-packages/nvidia/cudnn/lib) must be on LD_LIBRARY_PATH even where the wheel is "
        "installed (PyTorch finds its own copy; this library does not).",
        tuple(ev("pasted", line) for line in found.lines) + (ev("pasted", f"{soname}: cannot be loaded"),),
        Remediation(
            f"Install cuDNN {major} and cuBLAS for CUDA 12 as NVIDIA's wheels (no root) and put their directories on "
            "LD_LIBRARY_PATH where the program starts, as faster-whisper's README does"
            + (f"; or keep the cuDNN the machine has and install {found.other}." if found.other else ".")
            + keep_path(facts),
            kept(facts, commands),
            component="cudnn",
        ),
    )


def cudnn8_wheels_by_cuda(facts: Facts, ctx: Context, soname: str) -> Remediation | None:
    """A cuDNN 8 library (libcudnn.so.8 or one of its sub-libraries, libcudnn_ops_infer.so.8 ...) not loadable on Linux,
    by a program the text does not name with its CUDA: cuDNN 8 is built per CUDA major, and the one value that decides
    which is that program's CUDA major, read from the environment's package list. Each major's cuDNN 8 is one of
    NVIDIA's wheels: nvidia-cudnn-cu11 8.9.6.50 (`==8.*`, _CUDNN_CU11) and nvidia-cudnn-cu12 8.9.7.29 (_CUDNN_CU12),
    each requiring its major's cuBLAS wheel (pip install --dry-run --report --no-deps for CPython 3.10
    manylinux2014_x86_64, 2026-11-30: both wheels' metadata require nvidia-cublas-cuNN and nvidia-cuda-nvrtc-cuNN), whose
    directory the loader must find as well. A program that loads cuDNN by soname does not search the wheels: their lib directories
    go on LD_LIBRARY_PATH (faster-whisper's README, "GPU"). The CUDA 11 wheels are the step (their own distributions,
    beside anything of CUDA 12), the CUDA 12 ones the alternative: nvidia-cudnn-cu12 is one distribution for cuDNN 8
    and 9, so where PyTorch 2.4 or later's cuDNN 9 is installed, 8.x would replace it. None for another major or
    Windows (the DLL checks judge it)."""
    if not re.fullmatch(r"libcudnn(?:_[a-z_]+)?\.so\.8", soname) or facts.platform.system.lower().startswith("win"):
        return None
    from gpudoctor.planner.remedy import keep_path, kept, library_dir, python_exe

    exe = python_exe(facts)

    def wheels(cuda: int, cudnn: str) -> tuple[Line, ...]:
        def wheel_dir(lib: str) -> Output:
            program = f"import os, nvidia.{lib}.lib as m; print(os.path.dirname(m.__file__))"
            return Output((exe, "-c", program), site_dir=f"nvidia/{lib}/lib")

        # the read-back: the loader opens the very library the program could not, with the path just set (dlopen
        # resolves its own dependencies, cuBLAS among them, the same way)
        loads = Cmd(
            (exe, "-c", f'import ctypes; ctypes.CDLL("{soname}")'), note=f"the fix took if this loads {soname} without an error"
        )
        return (
            *kept(
                facts,
                (
                    _pip(facts, "install", f"nvidia-cublas-cu{cuda}", cudnn),
                    library_dir(facts, (wheel_dir("cublas"),), note="cuBLAS's wheel directory first on LD_LIBRARY_PATH"),
                    library_dir(facts, (wheel_dir("cudnn"),), note="cuDNN's wheel directory first on LD_LIBRARY_PATH"),
                ),
            ),
            loads,
        )

    # the libraries the matrix ties to cuDNN 8 and CUDA 11 (compat_matrix/libraries.toml), said as ranges of releases
    builds = [
        f"{b.package} {b.since} to before {b.until}" if b.until else f"{b.package} {b.since} and later"
        for b in ctx.matrix.library_builds
        if b.cudnn == 8 and b.cuda == 11
    ]
    listing = dataclasses.replace(
        _pip(facts, "list"),
        pipe=("grep", "-iE", "^(torch|ctranslate2|faster-whisper|onnxruntime-gpu|nvidia-cudnn-cu1[12]|nvidia-cublas-cu1[12]) "),
        note="read-only, with the Python that runs the program: the CUDA major of what loads cuDNN; a torch +cu11x"
        + "".join(f", {b}" for b in builds)
        + " is CUDA 11",
    )
    eleven = wheels(11, _CUDNN_CU11[8])
    first = dataclasses.replace(eleven[0], note="only where the program is a CUDA 11 build, with the Python that runs it")
    return Remediation(
        f"{soname} is cuDNN 8's, built per CUDA major: the program's CUDA major, in the list below, decides which. For "
        "a CUDA 11 program, install NVIDIA's cuDNN 8 and cuBLAS wheels for CUDA 11 in the same environment and put "
        "their directories on LD_LIBRARY_PATH where the program starts (it loads cuDNN by soname and does not search "
        "the wheels)." + keep_path(facts),
        (listing, first, *eleven[1:]),
        component="cudnn",
        alternative=Remediation(
            "for a CUDA 12 program, the CUDA 12 wheels of cuDNN 8 the same way, only where no nvidia-cudnn-cu12 9.x is "
            "listed (PyTorch 2.4 and later's): one distribution holds cuDNN 8 and 9, and 8.x would replace PyTorch's; "
            "there, a build of the program for cuDNN 9 instead (CTranslate2 4.5.0 or later).",
            wheels(12, _CUDNN_CU12[8]),
            component="cudnn",
        ),
    )


def _ct2_cuda_undecided(facts: Facts, ctx: Context, found: _CudnnByName) -> Finding:
    """CTranslate2 missed a cuDNN whose builds span two CUDA majors, on a machine the text says has CUDA 11: the cause
    is named, the fix is prose with no command (gpudoctor.planner.deciders gives it the report's asks: the pip list
    that shows the ctranslate2 installed, the loader's cache, LD_LIBRARY_PATH), for a command now would be a guess."""
    builds = [b for b in ctx.matrix.library_builds_of("ctranslate2") if b.cudnn == found.major]
    ways = "; ".join(
        f"{b.since}{f' to before {b.until}' if b.until else ' and later'} is built for CUDA {b.cuda}: NVIDIA's "
        f"nvidia-cublas-cu{b.cuda} and nvidia-cudnn-cu{b.cuda} wheels (cuDNN {found.major}) with their lib directories "
        "on LD_LIBRARY_PATH"
        for b in builds
    )
    stated = ", ".join(f"CUDA {m}" for m in sorted(_cuda_majors_said(facts)))
    return Finding(
        "cudnn-missing",
        Severity.ERROR,
        "cudnn",
        f"CTranslate2 cannot load {found.soname} (cuDNN {found.major}); its version decides which CUDA it needs",
        f"The loader could not open {found.soname}, as the text shows. CTranslate2 loads cuDNN by soname and does not "
        f"search NVIDIA's pip wheels itself. Its builds for cuDNN {found.major} are of more than one CUDA major, and "
        f"the text does not show which ctranslate2 is installed; it states {stated}, which a pip-installed CTranslate2 "
        "does not use unless it is its build's CUDA. The installed version decides the libraries it needs.",
        tuple(ev("pasted", line) for line in found.lines) + (ev("pasted", f"{found.soname}: cannot be loaded"),),
        Remediation(
            f"Put the cuDNN {found.major} and cuBLAS of the installed CTranslate2's CUDA where the loader finds them: "
            f"{ways}. The ctranslate2 version in the program's own Python decides which.",
            (),
            component="cudnn",
        ),
    )


def _ct2_driver(facts: Facts, ctx: Context):
    said, version = _ct2(facts)
    insufficient = _said(facts, "cuda-driver-insufficient")
    if not said or not insufficient:
        return None
    build = ctx.matrix.library_build("ctranslate2", version) if version else None
    if build is not None and build.cuda != 12:
        return None
    driver = _driver_cuda(facts, ctx)
    if driver is None or driver >= 12:
        return None  # which CUDA the driver stops at decides between the build and the driver: not guessed
    cuda11 = _build(ctx, "ctranslate2", cuda=driver)
    if cuda11 is None or cuda11.pin_for(_python(facts)) is None:
        return None  # no build for this driver's CUDA on this Python: the driver route stays
    return said, version, insufficient, cuda11


def check_ctranslate2_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CTranslate2 4.x is built for CUDA 12: on a driver that supports only CUDA 11 the CUDA runtime refuses it;
    its last CUDA 11 build (compat_matrix/libraries.toml: 3.24.0) keeps the driver."""
    found = _ct2_driver(facts, ctx)
    if found is None:
        return
    said, version, insufficient, build = found
    fw_pin = _faster_whisper_cuda11(facts, ctx)
    specs = ([f"faster-whisper=={fw_pin}"] if fw_pin else []) + [f"ctranslate2=={build.pin}"]
    fw_last = _build(ctx, "faster-whisper", cuda=11)
    yield Finding(
        "framework-driver-too-old",
        Severity.ERROR,
        "frameworks",
        f"{'ctranslate2 ' + version if version else 'CTranslate2 4.x'} is built for CUDA 12, newer than the driver supports",
        f"The CUDA runtime said the driver is insufficient, as the text shows: the driver supports CUDA up to "
        f"{_driver_cuda(facts, ctx)}.x, and CTranslate2 from 4.0 (what faster-whisper 1.x requires) is built for CUDA 12, "
        f"which needs driver R525 or newer. Its {build.pin} release is built for CUDA 11 and runs on the driver installed "
        "(faster-whisper's README names it for CUDA 11).",
        (ev("pasted", insufficient[0].line), ev("pasted", said[0].line)),
        Remediation(
            f"Install ctranslate2=={build.pin}, CTranslate2's last CUDA 11 build, keeping the driver"
            + (
                f", with faster-whisper=={fw_pin} in the same command (its 1.0 and later require ctranslate2 4)"
                if fw_pin
                else " (where faster-whisper is installed, add its last release that takes it, "
                f"faster-whisper=={fw_last.pin}: its 1.0 and later require ctranslate2 4)"
                if fw_last
                else ""
            )
            + "; or upgrade the NVIDIA driver to R525 or newer where that is possible, keeping CTranslate2 4.x.",
            # A plain install moves ctranslate2 down alone; --force-reinstall would also take the newest numpy and
            # pyyaml that its requirements allow.
            (_pip(facts, "install", *specs), _ct2_sees_gpu(facts)),
            component="environment",
        ),
    )


def _ct2_with_cudnn(
    facts: Facts, ctx: Context, exe: str, major: int, wheel: str, step: Line, windows: bool
) -> tuple[tuple[Line, ...], str]:
    """The cuBLAS wheel's install with its cuDNN companion, and the words that say so. CTranslate2's CUDA builds load
    cuDNN too, of the major its release was built for (compat_matrix/libraries.toml: 3.x cuDNN 8 for CUDA 11; 4.0-4.4
    cuDNN 8 and from 4.5 cuDNN 9 for CUDA 12). Its Windows wheels carry cuDNN's front DLL only (cudnn64_8.dll,
    cudnn64_9.dll: python/tools/prepare_build_environment_windows.sh @c95fd4e4, v3.24.0, and @26fa6414), so the
    sub-libraries come from PATH; on Linux it opens libcudnn from the loader's path. cuBLAS alone fails next on cuDNN
    (faster-whisper's README installs both wheels and puts both directories on the path). With the release shown
    its cuDNN comes along; where the major's builds all load one cuDNN, that one; else (CUDA 12 without the
    release) the newest build's, what PATH holds and the release read first."""
    from gpudoctor.planner.remedy import library_dir

    wheels = {11: _CUDNN_CU11, 12: _CUDNN_CU12}[major]

    def cudnn_dir(cudnn: int) -> Line:
        if windows:
            out = Output((exe, "-c", "import nvidia.cudnn as m; print(*m.__path__)"), site_dir="nvidia/cudnn")
            return library_dir(facts, (out, "\\bin"), windows=True, note=f"and cuDNN {cudnn}'s bin folder")
        out = Output(
            (exe, "-c", "import os, nvidia.cudnn.lib as m; print(os.path.dirname(m.__file__))"), site_dir="nvidia/cudnn/lib"
        )
        return library_dir(facts, (out,), note=f"and cuDNN {cudnn}'s directory")

    def with_cudnn(cudnn: int) -> tuple[Line, ...]:
        return (in_tool(facts, Cmd((exe, "-m", "pip", "install", wheel, wheels[cudnn]))), step, cudnn_dir(cudnn))

    version = _ct2(facts)[1]
    build = _build(ctx, "ctranslate2", version=version) if version else None
    if build is not None and build.cuda == major and build.cudnn in wheels:
        words = f" ctranslate2 {version} also loads cuDNN {build.cudnn}: its wheel comes along, its "
        return with_cudnn(build.cudnn), words + ("bin folder on PATH too." if windows else "directory on LD_LIBRARY_PATH too.")
    fits = [b for b in ctx.matrix.library_builds_of("ctranslate2") if b.cuda == major and b.cudnn in wheels]
    if not fits:
        return (in_tool(facts, Cmd((exe, "-m", "pip", "install", wheel))), step), ""
    cudnns = sorted({b.cudnn for b in fits})
    if len(cudnns) == 1:
        # every build of this CUDA major loads one cuDNN: nothing to read first
        return with_cudnn(cudnns[0]), (
            f" CTranslate2's CUDA {major} builds also load cuDNN {cudnns[0]}: its wheel ({wheels[cudnns[0]]}) comes "
            "along, its " + ("bin folder on PATH too." if windows else "directory on LD_LIBRARY_PATH too.")
        )
    # The release not shown: the set of the newest build (what pip installs today), read first, since cuBLAS alone
    # would fail next on cuDNN.
    newest = fits[-1]
    version_read = Cmd(
        (exe, "-c", "import ctranslate2; print(ctranslate2.__version__)"),
        note="; ".join(f"from {b.since}: cuDNN {b.cudnn}" for b in reversed(fits)),
    )
    if windows:
        dlls = (f"cublas64_{major}.dll", f"cublasLt64_{major}.dll", *(f"cudnn64_{m}.dll" for m in reversed(cudnns)))
        read_first: tuple[Line, ...] = (
            Cmd(("where.exe", *dlls), note=f"the CUDA {major} cuBLAS and the cuDNN that PATH holds, if any"),
            version_read,
        )
    else:
        read_first = (version_read,)
    others = [m for m in cudnns if m != newest.cudnn]
    return (*read_first, *with_cudnn(newest.cudnn)), (
        f" CTranslate2 for CUDA {major} also loads cuDNN, {newest.cudnn} from {newest.since}: its wheel comes along "
        "(the whole set, as faster-whisper's README installs it)"
        + (f"; where the release printed is older, cuDNN {others[-1]}'s instead ({wheels[others[-1]]})" if others else "")
        + "."
        + (" where.exe says whether a CUDA toolkit's bin on PATH holds them already." if windows else "")
    )


def check_ctranslate2_cublas(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CTranslate2's own message that it could not load cuBLAS (OpenNMT/CTranslate2 src/cuda/cublas_stub.cc): the
    name it tried carries the CUDA major it was built for, so its build is known without its version, and NVIDIA's
    cuBLAS wheel of that major provides the library (nvidia-cublas-cu11 and -cu12 resolve for CPython 3.10 on
    manylinux2014_x86_64 and 3.11 on win_amd64 with pip's --dry-run, 2026-11-28)."""
    said = _said(facts, "ctranslate2-cublas-missing")
    if not said:
        return
    e = said[0]
    soname, major = e.get("soname") or "", int(e.get("major") or 0)
    if major < 11:
        return  # CUDA 10 builds (CTranslate2 1.x) bundled cuBLAS in the wheel: no NVIDIA wheel of that major
    windows = soname.endswith(".dll")
    # The package index's builds: CUDA 11 before the first CUDA 12 build (4.0), CUDA 12 from it (the table's rows).
    first12 = next((b for b in ctx.matrix.library_builds_of("ctranslate2") if b.cuda == 12), None)
    last11 = _build(ctx, "ctranslate2", cuda=11)
    if first12 is None or last11 is None or major not in (11, 12):
        return
    built = f"before {first12.since}" if major == 11 else f"{first12.since} and later"
    if major == 12:
        # faster-whisper from 1.0 requires ctranslate2 4: the CUDA 11 build comes with its last release that takes 3.x
        fw = _build(ctx, "faster-whisper", cuda=11)
        other_words = f"; or, where only CUDA 11 is installed, ctranslate2=={last11.pin}, its last CUDA 11 build" + (
            f" (with faster-whisper=={fw.pin} where faster-whisper runs it: its 1.0 and later require ctranslate2 4)"
            if fw is not None and fw.pin
            else ""
        )
    else:
        other_words = f"; or, where the machine's CUDA is 12, upgrade to ctranslate2 {first12.since} or later, a CUDA 12 build"
    wheel = f"nvidia-cublas-cu{major}"
    from gpudoctor.planner.remedy import keep_path, kept, library_dir, python_exe

    if (pinned := _ct2_of_env_major(facts, ctx, major)) is not None:
        yield pinned
        return

    exe = "python" if windows and python_exe(facts) == "python3" else python_exe(facts)
    # The wheel's directory as the interpreter that installed it prints it (no quotes inside the program, so every
    # shell holds it); the Windows wheel keeps its DLLs in nvidia/cublas/bin, found on PATH.
    if windows:
        where = Output((exe, "-c", "import nvidia.cublas as m; print(*m.__path__)"), site_dir="nvidia/cublas")
        step = library_dir(
            facts, (where, "\\bin"), windows=True, note=f"the wheel's bin folder, which holds {soname}, first on PATH"
        )
        path = "PATH"
    else:
        where = Output(
            (exe, "-c", "import os, nvidia.cublas.lib as m; print(os.path.dirname(m.__file__))"), site_dir="nvidia/cublas/lib"
        )
        step = library_dir(facts, (where,), note=f"the wheel's directory, which holds {soname}, first on LD_LIBRARY_PATH")
        path = "LD_LIBRARY_PATH"
    keep = keep_path(facts, windows)
    commands, cudnn_words = _ct2_with_cudnn(facts, ctx, exe, major, wheel, step, windows)
    remedy = Remediation(
        f"Install cuBLAS for CUDA {major} as NVIDIA's wheel ({wheel}, no root) with the Python that runs CTranslate2, "
        f"and put its directory first on {path} where the program starts; a CUDA {major} toolkit does as well"
        + other_words
        + "."
        + cudnn_words
        + keep,
        kept(facts, commands),
        component="environment",
    )
    if any(c.get("cue") == NO_PYTHON for c in facts.pasted.cues):
        # A frozen or compiled program: no interpreter of its own that pip can reach, and no ctranslate2 to upgrade.
        remedy = Remediation(
            f"The program carries its own CTranslate2 (a frozen executable: pip reaches none of it). Put the cuBLAS "
            f"libraries of CUDA {major} ({soname} and its cuBLASLt) where it loads them: beside the program's "
            f"executable, or in a folder on {path} (a CUDA {major} toolkit's bin, which its installer puts there), "
            "as the program's own instructions say.",
            (),
            component="environment",
        )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"CTranslate2 is a CUDA {major} build and cannot load {soname}",
        f"CTranslate2 said so ('Library {soname} is not found or cannot be loaded'): it opens cuBLAS by the name of the "
        f"CUDA major it was built for, so the ctranslate2 installed is a CUDA {major} build (the package index's "
        f"ctranslate2 {built}), and no cuBLAS {major} is installed where it looks"
        + (
            " (the directories on PATH, and CUDA_PATH\\bin of a CUDA toolkit)."
            if windows
            else " (the loader's path: LD_LIBRARY_PATH, ldconfig's cache)."
        )
        + " CUDA libraries of another major do not count: the driver's CUDA version is not this library.",
        (ev("pasted", e.line),),
        remedy,
    )


def _shown_cuda_majors(facts: Facts) -> set[int]:
    """The CUDA majors of the toolkits the machine shows (Linux's roots and nvcc, Windows' CUDA_PATH toolkits)."""
    tk = facts.toolkits
    versions = [t.version for t in tk.toolkits] + [tk.nvcc_on_path_version]
    if facts.windows is not None:
        versions += [t.version for t in facts.windows.toolkits]
    return {int(v.split(".")[0]) for v in versions if v and v.split(".")[0].isdigit()}


def _ct2_of_env_major(facts: Facts, ctx: Context, major: int) -> Finding | None:
    """CTranslate2's CUDA 12 build asked for cuBLAS 12 in an environment whose GPU stack is CUDA 11 (its PyTorch is a
    cu11x build) and no CUDA 12 toolkit shown: the build that matches the environment is the answer, not a second
    CUDA beside it. CTranslate2's CUDA 11 builds end at 3.x (compat_matrix/libraries.toml), and faster-whisper from
    1.0 requires ctranslate2 4 (its requirements.txt), so where faster-whisper runs it is pinned to its last
    release that takes 3.x."""
    from gpudoctor.checks.toolkit import torch_cuda_major

    if major != 12 or torch_cuda_major(facts) != 11 or 12 in _shown_cuda_majors(facts):
        return None
    if any(c.get("cue") == NO_PYTHON for c in facts.pasted.cues):
        return None  # a frozen program: nothing pip can change
    ct2 = _build(ctx, "ctranslate2", cuda=11)
    pin = ct2.pin_for(_python(facts)) if ct2 else None
    if pin is None:
        return None
    said = _said(facts, "ctranslate2-cublas-missing")
    fw_pin = _faster_whisper_cuda11(facts, ctx)
    specs = ([f"faster-whisper=={fw_pin}"] if fw_pin else []) + [f"ctranslate2=={pin}"]
    torch = facts.frameworks.torch
    torch_words = f"PyTorch {torch.value.version}" if isinstance(torch, Found) else "its PyTorch"
    return Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"CTranslate2 is a CUDA 12 build in an environment whose CUDA is 11, and cannot load {said[0].get('soname')}",
        f"CTranslate2 said so ('Library {said[0].get('soname')} is not found or cannot be loaded'): the ctranslate2 "
        f"installed is a CUDA 12 build (4.0 and later), while this environment's GPU stack is CUDA 11 ({torch_words} "
        "brings CUDA 11 libraries only) and no CUDA 12 toolkit is shown. CTranslate2's last CUDA 11 build matches the "
        "environment; changing PyTorch does not help, and CUDA 11 libraries renamed do not count.",
        (ev("pasted", said[0].line),),
        Remediation(
            f"Install {' '.join(specs)} with the Python that runs CTranslate2 (its CUDA 11 build"
            + (", and faster-whisper's last release that takes it: 1.0 and later require ctranslate2 4" if fw_pin else "")
            + "), keeping PyTorch; or, to keep ctranslate2 4, put a CUDA 12 cuBLAS on the loader's path (a CUDA 12 "
            "toolkit, or NVIDIA's nvidia-cublas-cu12 wheel).",
            (_pip(facts, "install", *specs),),
            component="environment",
        ),
    )


# --- TensorRT --------------------------------------------------------------------------------------------------


def check_tensorrt_library(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """TensorRT's loader could not open one of its own libraries (NVIDIA/TensorRT#2218): a tar install's lib
    directory is what LD_LIBRARY_PATH must hold; the one the text names for that version is set, else it is asked."""

    said = _said(facts, "tensorrt-library-missing")
    if not said:
        return
    e = said[0]
    soname = e.get("soname") or ""
    version = re.search(r"\.so\.(\d+(?:\.\d+)*)$", soname)
    dirs = [d for d in _said(facts, "library-said") if d.get("entry") == "tensorrt-tar-lib-dir" and d.get("path")]
    # The directory of the same release (TensorRT-8.4.2.4 for ...so.8.4.2); another release's is no fix.
    lib = next(
        (d.get("path") for d in dirs if version and (d.get("version") or "").startswith(version.group(1))),
        None,
    )
    from gpudoctor.planner.remedy import keep_path, kept, library_dir

    commands: tuple[Line, ...] = ()
    if lib:
        commands = (
            Cmd(("ls", f"{lib}/{soname}"), note="the library is there"),
            Cmd(("printenv", "LD_LIBRARY_PATH"), note="no other TensorRT's lib directory may stay on it"),
            library_dir(facts, (lib,), note="first on LD_LIBRARY_PATH, the rest kept"),
        )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"TensorRT cannot load its own {soname}",
        f"TensorRT said so ('Unable to load library: {soname}'): it opens its builder and plugin libraries by soname "
        "at run time, and the loader did not find this one: the lib directory of that TensorRT (a tar install's "
        "TensorRT-<version>/lib) is not on LD_LIBRARY_PATH, or another TensorRT's directory comes first. The driver, "
        "CUDA and cuDNN are not at fault.",
        (ev("pasted", e.line),),
        Remediation(
            "Put the lib directory of the TensorRT in use first on LD_LIBRARY_PATH, where the program starts (shell "
            "profile, job script), and drop an older TensorRT's directory; or make it permanent with a file in "
            "/etc/ld.so.conf.d and sudo ldconfig."
            + (keep_path(facts) if lib else " Which directory holds it was not shown: see the ask-for list."),
            kept(facts, commands),
            component="environment",
        ),
    )


# TensorRT's runtime as NVIDIA's pip wheel, per major, where the pin was checked: tensorrt 8.5.3.1 is a binary wheel for
# CPython 3.8 and 3.10 on manylinux (pip install --dry-run --only-binary=:all:, tests/blind/plans5/pins-checked-A.txt),
# carrying libnvinfer.so.8 in its package directory and requiring nvidia-cuda-runtime-cu11, nvidia-cudnn-cu11 and
# nvidia-cublas-cu11 (its Requires-Dist).
_TENSORRT_WHEEL = {"8": "8.5.3.1"}
_TENSORRT_SONAME = LazyPattern(r"^libnv(?:infer(?:_plugin)?|onnxparser|parsers)\.so\.(?P<major>\d+)$")


# Where NVIDIA's TensorRT pip wheels put libnvinfer: from 8.6 on in a wheel of its own, tensorrt-libs (tensorrt-cuNN-libs
# from 10.0), whose package is tensorrt_libs ("package_name = "##TENSORRT_MODULE##_libs"", package_data "*.so*":
# NVIDIA/TensorRT python/packaging/libs_wheel/setup.py @147005ff), pulled in by the tensorrt package of that release;
# before 8.6, inside the tensorrt package itself (the 8.5.3.1 wheel above; nvidia-tensorrt, its earlier name, whose
# 99.0.0 is only a placeholder). Its __init__ loads them by path (ctypes.CDLL of each file, tensorrt_libs/__init__.py
# @1637a26e), so `import tensorrt` works while a program that opens the soname by name does not find them.
_TENSORRT_LIBS_WHEEL = LazyPattern(r"^tensorrt(?:-cu\d{2})?-libs$")
_TENSORRT_WHEEL_SPEC = LazyPattern(
    r"^(?P<name>(?:nvidia-)?tensorrt(?:-cu\d{2})?(?:-libs)?)==(?P<version>\d{1,2}\.\d[\w.]{0,20})$"
)


def _tensorrt_wheel_shown(facts: Facts, major: str) -> tuple[str, str, str, str] | None:
    """NVIDIA's TensorRT wheel of `major` the text shows installed, as (distribution, version, its package folder,
    the line that shows it): the environment's listing first, else a pip install the reporter ran (a notebook's too).
    None where neither names one (nvidia-tensorrt 99.0.0, a placeholder, names none)."""
    py = facts.frameworks.python
    shown: list[tuple[str, str, str]] = []
    if isinstance(py, Found):
        shown += [(name, version, "") for name, version in py.value.distributions.items()]
    for said in facts.pasted.reported("pip-install-said"):
        for word in (said.get("args") or "").split():
            if w := _TENSORRT_WHEEL_SPEC.match(word):
                shown.append((w.group("name"), w.group("version"), said.line))
    for name, version, line in shown:
        if version.split(".")[0] != major or not re.fullmatch(r"(?:nvidia-)?tensorrt(?:-cu\d{2})?(?:-libs)?", name):
            continue
        separate = _TENSORRT_LIBS_WHEEL.match(name) or (name != "nvidia-tensorrt" and vkey(version) >= (8, 6))
        return name, version, "tensorrt_libs" if separate else "tensorrt", line
    return None


def _tensorrt_wheel_off_path(facts: Facts, e, soname: str, major: str, wheel: tuple[str, str, str, str]) -> Finding:
    """TensorRT's wheel of the major the program needs is installed, and the loader still misses its soname: the wheel's
    folder is not where a program that opens the library by name looks (LD_LIBRARY_PATH, the ld.so cache, the default
    folders: ld.so(8)). That folder first on LD_LIBRARY_PATH is the fix; another TensorRT install is not."""
    from gpudoctor.planner.remedy import keep_path, kept, library_dir, python_exe

    name, version, folder, line = wheel
    exe = python_exe(facts)
    where = Output((exe, "-c", f"import os, {folder} as m; print(os.path.dirname(m.__file__))"), site_dir=folder)
    return Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"TensorRT {major}'s {soname} is installed ({name} {version}) but not where the loader looks",
        f"The loader could not find {soname}, as the text shows, yet the environment holds NVIDIA's TensorRT {major} "
        f"wheel ({name} {version}), which keeps its libraries in site-packages/{folder}. 'import tensorrt' loads them "
        f"from there by path; a program or plugin that opens {soname} by name (ONNX Runtime's TensorRT provider, a "
        "TensorRT plugin) searches only LD_LIBRARY_PATH, the loader's cache and the default folders, none of which "
        "holds that folder. The versions are not at fault: installing another TensorRT changes nothing.",
        (ev("pasted", e.line), *((ev("pasted", line),) if line else ())),
        Remediation(
            f"Put the wheel's folder ({folder} in the interpreter's site-packages) first on LD_LIBRARY_PATH in the "
            f"shell that starts the program, then check that {soname} loads by name and run the program again."
            + keep_path(facts),
            kept(
                facts,
                (
                    library_dir(facts, (where,), note=f"the folder that holds {soname}, first on LD_LIBRARY_PATH"),
                    Cmd((exe, "-c", f'import ctypes; ctypes.CDLL("{soname}")'), note="loads it by name, as the program does"),
                ),
            ),
            component="environment",
        ),
    )


def check_tensorrt_runtime_missing(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The loader cannot find TensorRT's runtime (libnvinfer.so.N) for a program or plugin built against TensorRT N (in
    NVIDIA's TensorRT image, typically) and run where no TensorRT N is installed: the runtime of that major goes on the
    machine, its directory on the loader's path. TensorRT's own loader message is check_tensorrt_library's."""
    if _said(facts, "tensorrt-library-missing"):
        return
    missing = [(e, m) for e in _said(facts, "library-missing") if (m := _TENSORRT_SONAME.match(e.get("soname") or ""))]
    if not missing:
        return
    e, m = missing[0]
    major, soname = m.group("major"), e.get("soname") or ""
    from gpudoctor.planner.remedy import keep_path, kept, library_dir, python_exe

    exe = python_exe(facts)
    wheel = _tensorrt_wheel_shown(facts, major)
    if wheel is not None:
        yield _tensorrt_wheel_off_path(facts, e, soname, major, wheel)
        return
    pin = _TENSORRT_WHEEL.get(major)
    commands: tuple[Line, ...] = ()
    if pin:

        def wheel_dir(module: str, site_dir: str) -> Output:
            return Output((exe, "-c", f"import os, {module} as m; print(os.path.dirname(m.__file__))"), site_dir=site_dir)

        commands = (
            _pip(facts, "install", f"tensorrt=={pin}"),
            *(
                library_dir(facts, (wheel_dir(module, site),), note=note)
                for module, site, note in (
                    ("tensorrt", "tensorrt", f"TensorRT's {soname} first on LD_LIBRARY_PATH"),
                    ("nvidia.cublas.lib", "nvidia/cublas/lib", "and the CUDA libraries its wheel brought"),
                    ("nvidia.cudnn.lib", "nvidia/cudnn/lib", ""),
                    ("nvidia.cuda_runtime.lib", "nvidia/cuda_runtime/lib", ""),
                )
            ),
            Cmd((exe, "-c", "import tensorrt; print(tensorrt.__version__)"), note=f"{pin}: then run the program as before"),
        )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"TensorRT {major}'s runtime ({soname}) is not installed where the program runs",
        f"The loader could not find {soname}, as the text shows: what runs was built against TensorRT {major} (a plugin "
        "or engine built in NVIDIA's TensorRT image carries that image's TensorRT), and this machine has no TensorRT "
        f"{major} on the loader's path. Moving the program's own libraries or running ldconfig does not add it; the "
        "driver is not at fault.",
        (ev("pasted", e.line),),
        Remediation(
            f"Install TensorRT {major}'s runtime where the program runs and put its directory on LD_LIBRARY_PATH"
            + (
                f": NVIDIA's pip wheel tensorrt=={pin} brings it with its CUDA libraries (no root), in the interpreter "
                "that runs the program." + keep_path(facts)
                if pin
                else f" (NVIDIA's TensorRT {major} tar or packages for the CUDA it was built with)."
            )
            + " Or run the program in the image it was built in.",
            kept(facts, commands),
            component="environment",
        ),
    )


# --- CuPy ------------------------------------------------------------------------------------------------------


def check_cupy_packages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CuPy's own warning: more than one of its distributions installed, all writing site-packages/cupy."""
    said = _said(facts, "cupy-packages-conflict")
    if not said:
        return
    e = said[0]
    packages = [p.strip() for p in (e.get("packages") or "").split(",") if p.strip()]
    built = [p for p in packages if re.fullmatch(r"cupy-cuda\d+x?", p)]
    keep = built[-1] if len(built) == 1 else None
    commands: tuple[Line, ...] = ()
    if keep is not None:
        # The packages share cupy/: uninstalling one takes files the other needs, so all go, then one comes back
        # (CuPy's own recipe); the wheel built for a CUDA major is the one kept, a source/conda `cupy` is not.
        commands = (_pip(facts, "uninstall", "-y", *packages), _pip(facts, "install", keep))
    elif len(built) > 1:
        # Two wheels built for different CUDA majors (cupy-cuda12x beside cupy-cuda13x, as an image that upgraded its
        # CUDA leaves them): every one still goes first, and the one of the CUDA major the rest of the stack uses comes
        # back; which major that is, the paste does not say, so torch's (the framework beside it) is read first.
        from gpudoctor.cmdline import Placeholder
        from gpudoctor.planner.where import python_exe

        python = python_exe(facts)
        commands = (
            Cmd(
                (python, "-c", "import torch; print(torch.version.cuda)"),
                note="the CUDA major the stack runs on: the CuPy wheel of that major is the one to keep",
            ),
            _pip(facts, "uninstall", "-y", *packages),
            Cmd(
                (python, "-m", "pip", "install", Placeholder("cupy-package-of-that-cuda-major")),
                note="one of: " + ", ".join(built),
            ),
        )
    yield Finding(
        "nvidia-wheels-conflict",
        Severity.WARNING,  # the code's severity (docs/findings/nvidia-wheels-conflict.md)
        "frameworks",
        f"{len(packages)} CuPy distributions are installed together: {', '.join(packages)}",
        "CuPy said so ('CuPy may not function correctly because multiple CuPy packages are installed'): each of them "
        "installs the same site-packages/cupy package, so one overwrote the other's files, and uninstalling one "
        "removes files the other needs.",
        (ev("pasted", e.line),),
        Remediation(
            "Uninstall every CuPy distribution listed, then install one for the CUDA major in use, as CuPy's message "
            "says (if conda installed `cupy`, `conda uninstall cupy` too; in a conda environment that provides cupy, "
            "remove the pip one and reinstall conda's)."
            + (
                ""
                if keep
                else " Which one to keep, the CUDA major torch runs on decides (the first command)."
                if len(built) > 1
                else " Which one to keep was not clear from the names: see the ask-for list."
            ),
            commands,
            component="environment",
        ),
    )


def check_cupy_module_incomplete(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """ "module 'cupy' has no attribute 'random'" (catalogue.toml: cupy-module-incomplete): the cupy/ directory is not one
    whole install. Every CuPy distribution installs it, so the cure is CuPy's own: list them, uninstall all of them, then
    install the one for the CUDA in use (cupy/cupy#7021). Where CuPy's own warning names the distributions, that check
    (check_cupy_packages) says it with the names."""
    from gpudoctor.cmdline import Placeholder
    from gpudoctor.planner.where import python_exe

    said = _said(facts, "cupy-module-incomplete")
    if not said or _said(facts, "cupy-packages-conflict"):
        return
    windows = (facts.platform.system or "").lower().startswith("win")
    python = python_exe(facts)
    listing = Cmd(
        (python, "-m", "pip", "list"),
        pipe=("findstr", "/i", "cupy") if windows else ("grep", "-i", "cupy"),
        note="every CuPy distribution in this Python",
    )
    uninstall = Cmd(
        (python, "-m", "pip", "uninstall", "-y", Placeholder("every-cupy-package-listed")),
        note="all of them, until the list shows none",
    )
    e = said[0]
    yield Finding(
        "nvidia-wheels-conflict",
        Severity.WARNING,  # the code's severity (docs/findings/nvidia-wheels-conflict.md)
        "frameworks",
        f"the cupy package has no '{e.get('attribute')}': its directory is not one whole CuPy install",
        "Every CuPy distribution (cupy, cupy-cudaNNN, cupy-cudaNNx) installs the same site-packages/cupy package; two of "
        "them installed together overwrite each other's files, and uninstalling one removes files the other needs, "
        "which leaves cupy without its own subpackages. CuPy's wheels carry them: the install, not the wheel, is at "
        "fault, and the driver and CUDA are not involved.",
        (ev("pasted", e.line),),
        Remediation(
            "List the CuPy distributions, uninstall every one of them, then install the single one for the CUDA "
            "toolkit in use (cupy-cudaNNN for CUDA N.N, cupy-cudaNNx for a CUDA major), as CuPy's maintainers advise; "
            "cupy.show_config() then runs.",
            (listing, Cmd(("nvcc", "--version"), note="the CUDA the one to install is built for"), uninstall),
            component="environment",
        ),
    )


# The names onnxruntime/__init__.py binds at import (microsoft/onnxruntime @014833fc: from the compiled binding
# onnxruntime.capi._pybind_state, and InferenceSession and its kin from onnxruntime_inference_collection). An
# AttributeError for one of them is no release's removal: the package directory lacks the files that define it.
ORT_INIT_NAMES = (
    "InferenceSession",
    "SessionOptions",
    "RunOptions",
    "GraphOptimizationLevel",
    "ExecutionMode",
    "ExecutionOrder",
    "get_available_providers",
    "get_all_providers",
    "get_device",
    "get_build_info",
    "get_version_string",
    "set_default_logger_severity",
    "set_default_logger_verbosity",
    "set_seed",
    "IOBinding",
    "OrtValue",
    "OrtDevice",
    "SparseTensor",
    "ModelMetadata",
    "NodeArg",
    "SessionIOBinding",
    "OrtMemoryInfo",
    "OrtMemType",
    "OrtArenaCfg",
    "OrtAllocatorType",
    "OrtSparseFormat",
    "create_and_register_allocator",
    "enable_telemetry_events",
    "disable_telemetry_events",
)


def _ort_missing_name(e) -> str | None:
    """The onnxruntime name the AttributeError names, where it is one __init__ binds; a name cut at the end of the
    paste (no closing quote: "has no attribute 'Se") where it begins exactly one such name's spelling."""
    name = e.get("attribute") or ""
    if name in ORT_INIT_NAMES:
        return name
    if not e.get("closed"):
        begun = [n for n in ORT_INIT_NAMES if n.startswith(name)]
        if begun and len(name) >= 2:
            return begun[0] if len(begun) == 1 else name + "..."
    return None


def check_onnxruntime_module_incomplete(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """ "module 'onnxruntime' has no attribute 'SessionOptions'" (catalogue.toml: onnxruntime-module-incomplete): the
    onnxruntime/ directory is not one whole install. Every onnxruntime distribution installs it, so all of them go and
    one comes back, as ONNX Runtime's own recipe has it. Where a listing shows two of them together,
    check_onnxruntime_packages says it with their names and versions."""
    from gpudoctor.planner.where import python_exe, python_step

    said = [(e, name) for e in _said(facts, "onnxruntime-module-incomplete") if (name := _ort_missing_name(e))]
    if not said or ort_packages(facts):
        return
    e, name = said[0]
    windows = (facts.platform.system or "").lower().startswith("win")
    python = python_exe(facts)
    where = dataclasses.replace(
        python_step(facts, "-c", "import onnxruntime, os; print(os.path.dirname(onnxruntime.__file__))"),
        note="the onnxruntime folder this Python imports: a site-packages one, not a folder of the same name in the "
        "working directory",
    )
    listing = Cmd(
        (python, "-m", "pip", "list"),
        pipe=("findstr", "/i", "onnxruntime") if windows else ("grep", "-i", "onnxruntime"),
        note="every onnxruntime distribution in this Python",
    )
    family = [n for n in _ORT_FAMILY if n != "onnxruntime-training"]
    uninstall = _pip(facts, "uninstall", "-y", *family)
    install = _pip(facts, "install", "--force-reinstall", "onnxruntime-gpu")
    yield Finding(
        "nvidia-wheels-conflict",
        Severity.WARNING,  # the code's severity (docs/findings/nvidia-wheels-conflict.md)
        "frameworks",
        f"the onnxruntime package has no '{name}': its directory is not one whole ONNX Runtime install",
        "onnxruntime's own __init__ defines this name, so a package without it is missing files: onnxruntime, "
        "onnxruntime-gpu and the other ONNX Runtime distributions all install the same site-packages/onnxruntime "
        "folder; installed together they overwrite each other's files, and uninstalling one deletes files the other "
        "needs. The GPU, the driver and CUDA are not involved: the import fails before any of them is used.",
        (ev("pasted", e.line),),
        Remediation(
            "Uninstall every ONNX Runtime distribution (pip skips those not installed), then install onnxruntime-gpu "
            "alone, in the Python that runs the program (onnxruntime-gpu has the CPU provider too; on a machine without "
            "an NVIDIA GPU install onnxruntime instead). If a requirement names `onnxruntime`, it pulls the CPU one "
            "back in on its next install: install onnxruntime-gpu after it.",
            (where, listing, uninstall, install, ort_verify(facts)),
            component="environment",
        ),
    )


# --- onnxruntime's distributions ------------------------------------------------------------------------------

# The distributions that all install site-packages/onnxruntime/: whichever pip or uv installs last overwrites the
# others' files, and the CPU package's onnxruntime_pybind11_state leaves only the CPU provider (qdrant/fastembed#608:
# "Both install to site-packages/onnxruntime/; the CPU onnxruntime_pybind11_state.so overwrites the GPU one"; from
# onnxruntime-gpu 1.20 its metadata no longer says Provides-Dist: onnxruntime, so a package that requires onnxruntime
# pulls the CPU one in beside it). The recipe is ONNX Runtime's own (microsoft/onnxruntime#27944: "pip uninstall
# onnxruntime onnxruntime-gpu -y" before installing onnxruntime-gpu) and NVIDIA's (earth2mip's troubleshooting page).
_ORT_FAMILY = ("onnxruntime", "onnxruntime-gpu", "onnxruntime-directml", "onnxruntime-openvino", "onnxruntime-training")


def installed_of(facts: Facts, family: tuple[str, ...]) -> list[tuple[str, str]]:
    """The distributions of `family` the interpreter holds ((name, version), in the family's order): the families whose
    distributions install one import package (onnxruntime's, faiss's, mmcv's), where two of them together conflict."""
    py = facts.frameworks.python
    dists = py.value.distributions if isinstance(py, Found) else {}
    return [(n, dists[n]) for n in family if n in dists]


def ort_packages(facts: Facts) -> tuple[tuple[str, str], ...]:
    """The onnxruntime distributions installed together with onnxruntime-gpu ((name, version), the GPU one first),
    or () where onnxruntime-gpu is alone or absent."""
    found = installed_of(facts, _ORT_FAMILY)
    if "onnxruntime-gpu" not in dict(found) or len(found) < 2:
        return ()
    return tuple(sorted(found, key=lambda nv: nv[0] != "onnxruntime-gpu"))


def _ort_reinstall(facts: Facts, ctx: Context, packages: tuple[tuple[str, str], ...]) -> tuple[Cmd, ...]:
    """Every onnxruntime distribution out, then onnxruntime-gpu back: its CUDA 12 build where its provider asked for
    CUDA 11 libraries (check_onnxruntime_cuda11's install), else the release that was installed."""
    cuda11 = _ort_cuda11(facts, ctx)
    install = _ort_cuda12_install(facts, ctx, cuda11) if cuda11 is not None else None
    if install is None:
        version = packages[0][1]
        install = _pip(
            facts, "install", f"onnxruntime-gpu=={version}" if re.fullmatch(r"[\w.+!]+", version) else "onnxruntime-gpu"
        )
    return (_pip(facts, "uninstall", "-y", *(n for n, _ in packages)), install)


def ort_verify(facts: Facts) -> Cmd:
    """The providers the onnxruntime that imports offers, in the interpreter that runs the program: CUDAExecutionProvider
    among them is the GPU build (onnxruntime's get_available_providers)."""
    from gpudoctor.planner.where import python_step

    step = python_step(facts, "-c", "import onnxruntime as ort; print(ort.__version__, ort.get_available_providers())")
    return dataclasses.replace(step, note="CUDAExecutionProvider listed: the GPU build is the one that imports")


def check_onnxruntime_packages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """onnxruntime-gpu installed beside another onnxruntime distribution: they share one package directory."""
    packages = ort_packages(facts)
    if not packages:
        return
    # (a paste may name the distributions without their versions: gpudoctor.pasted.variants)
    named = [f"{n} {v}".strip() for n, v in packages]
    yield Finding(
        "nvidia-wheels-conflict",
        Severity.WARNING,  # the code's severity (docs/findings/nvidia-wheels-conflict.md)
        "frameworks",
        f"{named[0]} is installed together with {', '.join(named[1:])}",
        "Each of these distributions installs the same site-packages/onnxruntime package: the one installed last "
        "overwrote the other's files, and with the CPU package's files onnxruntime lists only the CPU provider "
        "(CUDAExecutionProvider missing, no error). Uninstalling one of them deletes files the other needs. A package "
        "that requires `onnxruntime` by name pulls the CPU one back in on its next install or upgrade.",
        (ev("python", f"installed: {', '.join(named)}"),),
        Remediation(
            "Uninstall every onnxruntime distribution, then install onnxruntime-gpu alone, in the interpreter that runs "
            "the program (ONNX Runtime's own recipe; onnxruntime-gpu has the CPU provider too). If a requirement names "
            "`onnxruntime`, replace it with onnxruntime-gpu there (uv: `uv remove onnxruntime`), or it comes back.",
            (*_ort_reinstall(facts, ctx, packages), ort_verify(facts)),
            component="environment",
        ),
    )


# --- faiss's distributions ------------------------------------------------------------------------------------

# faiss-cpu and faiss-gpu (and the CUDA-named faiss-gpu-cu11 / -cu12 wheels) all install site-packages/faiss: the one
# installed last wins, and with faiss-cpu's files the Gpu* classes are gone. faiss's maintainers' fix
# (facebookresearch/faiss#2892: "delete faiss-cpu ... You only need to install faiss-gpu and you will have access to
# both cpu and gpu functionalities") is the GPU package alone.
_FAISS_FAMILY = ("faiss-gpu", "faiss-gpu-cu12", "faiss-gpu-cu11", "faiss-cpu")

# The families whose CPU and GPU builds are distributions of their own over one import package: what a paste names of
# them is read by gpudoctor.pasted.variants.
VARIANT_FAMILIES = {"onnxruntime": _ORT_FAMILY, "faiss": _FAISS_FAMILY}


def faiss_packages(facts: Facts) -> tuple[tuple[str, str], ...]:
    """faiss-cpu installed together with a GPU faiss ((name, version), the GPU one first), or ()."""
    found = installed_of(facts, _FAISS_FAMILY)
    return tuple(found) if "faiss-cpu" in dict(found) and len(found) > 1 else ()


def faiss_verify(facts: Facts) -> Cmd:
    """The GPUs the faiss that imports sees, in the interpreter that runs the program: 0 is still a CPU build."""
    from gpudoctor.planner.where import python_step

    step = python_step(facts, "-c", "import faiss; print(faiss.get_num_gpus())")
    return dataclasses.replace(step, note="the GPUs faiss sees: 0 means it is still the CPU build")


def check_faiss_packages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """faiss-cpu installed beside faiss-gpu: they share one package directory, and the CPU one hides the GPU classes."""
    packages = faiss_packages(facts)
    if not packages:
        return
    named = [f"{n} {v}".strip() for n, v in packages]
    gpu, version = packages[0]
    yield Finding(
        "nvidia-wheels-conflict",
        Severity.WARNING,  # the code's severity (docs/findings/nvidia-wheels-conflict.md)
        "frameworks",
        f"{named[0]} is installed together with {', '.join(named[1:])}",
        "Both install the same site-packages/faiss package: the one installed last overwrote the other's files, and "
        "with faiss-cpu's files faiss has no GPU classes (module 'faiss' has no attribute 'StandardGpuResources'). "
        "faiss-gpu holds the CPU indexes too.",
        (ev("python", f"installed: {', '.join(named)}"),),
        Remediation(
            "Uninstall both, then install the GPU package alone, in the interpreter that runs the program (faiss's "
            "maintainers' fix); take faiss-cpu out of the requirements that brought it, or it comes back. The package "
            "index's faiss-gpu ends at 1.7.2 for Python 3.10 (pip's dry run, tests/install_pins/pins-checked.txt); "
            "on a newer Python faiss-gpu comes from faiss's conda channel.",
            (
                _pip(facts, "uninstall", "-y", *(n for n, _ in packages)),
                _pip(facts, "install", f"{gpu}=={version}" if re.fullmatch(r"[\w.+!]+", version) else gpu),
                faiss_verify(facts),
            ),
            component="environment",
        ),
    )


# --- mmcv's distributions -------------------------------------------------------------------------------------

# OpenMMLab's mmcv is published under several distribution names that all install site-packages/mmcv: in the 1.x
# series `mmcv-full` (with the CUDA ops) and `mmcv` (lite), from 2.0 `mmcv` (with the ops, the name taken over) and
# `mmcv-lite`. mmcv's own installation notes say "Do not install both versions in the same environment, otherwise you
# may encounter errors like `ModuleNotFound`. You need to uninstall one before installing the other" (open-mmlab/mmcv
# README.md @00511027, 1.x; docs/en/get_started/installation.md @058a3e8c, 2.x), and its maintainers' recipe is every
# one uninstalled, then the full build alone (open-mmlab/mmcv#1226). Shown in open-mmlab/mmrotate#6 (pip list: mmcv
# 1.4.5 beside mmcv-full 1.4.5) and open-mmlab/mmdetection#11636 (mmcv 2.1.0 beside mmcv-full 1.7.2, mmdet asserting
# on the version the mixed folder reports).
_MMCV_FAMILY = ("mmcv-full", "mmcv", "mmcv-lite")


def mmcv_packages(facts: Facts) -> tuple[tuple[str, str], ...]:
    """Two or more of mmcv's distributions installed together ((name, version), the one to keep first), or ()."""
    found = installed_of(facts, _MMCV_FAMILY)
    if len(found) < 2:
        return ()
    return tuple(sorted(found, key=lambda nv: nv != _mmcv_keep(found)))


def _mmcv_keep(found: list[tuple[str, str]]) -> tuple[str, str]:
    """The distribution with the CUDA ops: `mmcv` from 2.0 (it took the full build's place), else `mmcv-full`, else
    the first one listed."""
    dists = dict(found)
    two = dists.get("mmcv", "")
    if (lead := re.match(r"\d+", two)) and int(lead.group()) >= 2:
        return ("mmcv", two)
    if "mmcv-full" in dists:
        return ("mmcv-full", dists["mmcv-full"])
    return found[0]


def check_mmcv_packages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Two of mmcv's distributions installed beside each other: they share one package directory."""
    packages = mmcv_packages(facts)
    if not packages:
        return
    from gpudoctor.planner.where import python_step

    named = [f"{n} {v}".strip() for n, v in packages]
    keep, version = packages[0]
    spec = f"{keep}=={version}" if re.fullmatch(r"[\w.+!]+", version) else keep
    verify = dataclasses.replace(
        python_step(facts, "-c", "import mmcv, mmcv.ops; print(mmcv.__version__)"),
        note="the version the imported mmcv reports, and its CUDA ops importing",
    )
    yield Finding(
        "nvidia-wheels-conflict",
        Severity.WARNING,  # the code's severity (docs/findings/nvidia-wheels-conflict.md)
        "frameworks",
        f"{named[0]} is installed together with {', '.join(named[1:])}",
        "These distributions all install the same site-packages/mmcv package: the one installed last overwrote the "
        "other's files, so the mmcv that imports is a mixture (its version string, its ops and the OpenMMLab packages' "
        "version checks may each see a different release). mmcv's installation notes say never to install two of them "
        "in one environment; uninstalling one deletes files the other needs.",
        (ev("python", f"installed: {', '.join(named)}"),),
        Remediation(
            f"Uninstall every mmcv distribution, then install {keep} alone (the build with the CUDA ops) with OpenMMLab's "
            "installer mim, which picks the prebuilt wheel made for the installed torch and CUDA, in the interpreter "
            "that runs the program (mmcv's own recipe). The OpenMMLab packages that check mmcv's version (mmdet, "
            "mmseg ...) must be releases that accept it.",
            (
                _pip(facts, "uninstall", "-y", *(n for n, _ in packages)),
                _pip(facts, "install", "-U", "openmim"),
                python_step(facts, "-m", "mim", "install", spec),
                verify,
            ),
            component="environment",
        ),
    )


# --- unofficial forks that install the same import package ---------------------------------------------------

# Forks published under a distribution name of their own whose wheels write the official package's import directory:
# beside the official distribution one overwrites the other's files, and uninstalling either removes files the other
# needs, so both go and the official release that fixes the fork's reason to exist comes back (the onnxruntime
# family's recipe above). Each row: the fork, the official distribution, the official requirement that replaces it,
# and the source.
#   bitsandbytes-windows: its 0.37.5 wheel (bitsandbytes_windows-0.37.5-py3-none-any.whl, Home-page
#   Keith-Hon/bitsandbytes-windows) holds the top-level bitsandbytes/ package, read from the wheel itself; official
#   Windows wheels start at bitsandbytes 0.43.0 (bitsandbytes-foundation/bitsandbytes CHANGELOG.md @a0ae4608, 0.43.0:
#   "Windows should be officially supported in bitsandbytes"), and pip picks the newest one the Python accepts (0.45.5
#   for CPython 3.8 on win_amd64, pip's --dry-run --report, 2026-11-29; compat_matrix's bnb-wheel-metadata).
_FORKS = {"bitsandbytes-windows": ("bitsandbytes", "bitsandbytes>=0.43.0")}


@record_class(frozen=True, eq=False, repr=False)
class Fork(Record):
    """An unofficial fork installed, its version, and the official distribution that replaces it."""

    fork: str
    version: str
    official: str
    official_version: str | None  # installed beside it, or None
    requirement: str


def fork_installed(facts: Facts) -> Fork | None:
    """An unofficial fork of _FORKS installed in the environment (with the official distribution beside it or not)."""
    py = facts.frameworks.python
    if not isinstance(py, Found):
        return None
    dists = py.value.distributions
    for fork, (official, requirement) in _FORKS.items():
        if fork in dists:
            return Fork(fork, dists[fork], official, dists.get(official), requirement)
    return None


def fork_replaced(facts: Facts, fork: Fork) -> tuple[Cmd, ...]:
    """The fork and the official distribution out (pip skips one that is not installed), the official release back,
    in the interpreter that runs the program."""
    return (_pip(facts, "uninstall", "-y", fork.fork, fork.official), _pip(facts, "install", fork.requirement))


def check_fork_packages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """An unofficial fork installed beside the official distribution it copies (both listed): they share one package
    directory. (A fork alone that fails says so in its own message: the check of that message plans the same.)"""
    fork = fork_installed(facts)
    if fork is None or fork.official_version is None:
        return
    yield Finding(
        "nvidia-wheels-conflict",
        Severity.WARNING,  # the code's severity (docs/findings/nvidia-wheels-conflict.md)
        "frameworks",
        f"{fork.fork} {fork.version} (an unofficial fork) is installed together with {fork.official} {fork.official_version}",
        f"Both install the same site-packages/{fork.official} package: the one installed last overwrote the other's "
        "files, and uninstalling one deletes files the other needs.",
        (ev("python", f"installed: {fork.fork} {fork.version}, {fork.official} {fork.official_version}"),),
        Remediation(
            f"Uninstall both, then install the official {fork.requirement} alone, in the interpreter that runs the program.",
            fork_replaced(facts, fork),
            component="environment",
        ),
    )


# --- CUDA Python (cuda-bindings) -------------------------------------------------------------------------------

# cuda-bindings 12.9.0 refuses drivers of CUDA 13 by a bug; 12.9.1 runs on them, and cuda-python 12.9.1 requires
# cuda-bindings~=12.9.1, so both move together and stay on 12 (what numba-cuda's cu12 stack asks for). Sources:
# NVIDIA/numba-cuda#369 (maintainer: "purely a bug in cuda.bindings 12.9.0 ... We will require >=12.9.1"),
# NVIDIA/cccl#5442 ("a bug in 12.9.0 prevented us from running on CUDA 13 driver": cuda-bindings>=12.9.1,<13.0.0);
# both releases resolved for CPython 3.12 on win_amd64 (tests/blind/plans2/pins-checked-101-139.txt).
_CUDA_BINDINGS_FIXED = ("cuda-bindings>=12.9.1,<13", "cuda-python>=12.9.1,<13")


def check_cuda_bindings_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """cuda-bindings' NotSupportedError for a CUDA 13 driver: the 12.9.0 release's bug, not the driver."""
    said = [e for e in _said(facts, "cuda-bindings-driver-refused") if int(e.get("driver_cuda") or 0) >= 13000]
    if not said:
        return
    e = said[0]
    n = int(e.get("driver_cuda") or 0)
    cuda = cuda_from_int(n)
    yield Finding(
        "cuda-bindings-too-old",
        Severity.ERROR,
        "frameworks",
        f"the installed cuda-bindings refuses the CUDA {cuda} driver",
        f"CUDA Python's bindings said so ('CUDA driver version {n} is not supported'): cuda-bindings 12.9.0 refuses "
        "drivers of CUDA 13 by a bug, and 12.9.1 runs on them (NVIDIA's maintainers, numba-cuda#369). The driver is "
        "fine: a CUDA 12 program runs on a newer driver.",
        (ev("pasted", e.line),),
        Remediation(
            "Upgrade cuda-bindings and cuda-python together to 12.9.1 or a later 12.x (cuda-python 12.9.1 requires "
            "cuda-bindings 12.9.1; 13.x would need the CUDA 13 stack of numba-cuda).",
            (_pip(facts, "install", "--upgrade", *_CUDA_BINDINGS_FIXED),),
            component="environment",
        ),
    )


def explained(facts: Facts, ctx: Context) -> tuple[set[str], bool]:
    """The sonames the checks here explain, and whether they explain the driver's "insufficient" message."""
    sonames: set[str] = set()
    if (e := _ort_cuda11(facts, ctx)) is not None:
        sonames.add(e.get("soname") or "")
    if (e := _ort_cuda12(facts, ctx)) is not None:
        sonames.add(e.get("soname") or "")
    if (c := _cudnn_by_name(facts, ctx)) is not None:
        sonames.add(c.soname)
    return sonames, _ct2_driver(facts, ctx) is not None


# TensorRT releases (x86_64 Linux and Windows) and the CUDA versions and cuDNN each supports, from NVIDIA's TensorRT
# Support Matrix, "Features for Platforms and Software": 8.2.x (archives/tensorrt-825/support-matrix: CUDA 10.2 and
# 11.0-11.5, cuDNN 8.2.1), 8.5.x (tensorrt-853: 10.2 and 11.0-11.8, cuDNN 8.6.0), 8.6.x (tensorrt-861: 11.0-11.8, 12.0,
# 12.1, cuDNN 8.9.0). Each release is built per CUDA (a zip or package per CUDA line), and loads the cuDNN major it names.
_TENSORRT_SUPPORT: dict[str, tuple[tuple[str, ...], str]] = {
    "8.2": (("10.2", "11.0", "11.1", "11.2", "11.3", "11.4", "11.5"), "8.2.1"),
    "8.5": (("10.2", "11.0", "11.1", "11.2", "11.3", "11.4", "11.5", "11.6", "11.7", "11.8"), "8.6.0"),
    "8.6": (("11.0", "11.1", "11.2", "11.3", "11.4", "11.5", "11.6", "11.7", "11.8", "12.0", "12.1"), "8.9.0"),
}


def check_tensorrt_support_matrix(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A TensorRT release stated beside a CUDA older than every CUDA it supports, or a cuDNN of an older major than it
    loads (_TENSORRT_SUPPORT): its DLLs and libraries then bind to a CUDA runtime or cuDNN without the entry points they
    import ('The specified procedure could not be found', undefined symbols). A stated "CUDA Version" may be the
    toolkit's or the driver's: below the oldest CUDA the release supports, both readings fail alike."""
    trt = _said(facts, "tensorrt-version-said")
    if not trt:
        return
    release = ".".join((trt[0].get("version") or "").split(".")[:2])
    if release not in _TENSORRT_SUPPORT:
        return
    cudas, cudnn = _TENSORRT_SUPPORT[release]
    cuda_said = next((e for e in _said(facts, "cuda-version-said") if e.get("cuda")), None)
    cudnn_said = next((e for e in _said(facts, "cudnn-version-said") if e.get("cudnn")), None)
    why, lines = [], [trt[0].line]
    if cuda_said is not None and vkey(cuda_said.get("cuda") or "0") < vkey(cudas[0]):
        why.append(f"CUDA {cuda_said.get('cuda')} (it supports {cudas[0]} to {cudas[-1]})")
        lines.append(cuda_said.line)
    if cudnn_said is not None and vkey(cudnn_said.get("cudnn") or "0")[:1] < vkey(cudnn)[:1]:
        why.append(f"cuDNN {cudnn_said.get('cudnn')} (it loads cuDNN {cudnn.split('.')[0]}, {cudnn} or later)")
        lines.append(cudnn_said.line)
    if not why:
        return
    windows = facts.platform.system.lower().startswith("win")
    nearest = next(
        (c for c in cudas if cuda_said is not None and c.split(".")[0] == (cuda_said.get("cuda") or "").split(".")[0]), None
    )
    target = nearest or cudas[-1]
    check = (
        Cmd(
            ("where.exe", "cudart64_*.dll", "cudnn64_*.dll", "nvinfer*.dll"),
            note="which CUDA runtime, cuDNN and TensorRT DLLs PATH holds: their names carry the majors",
        )
        if windows
        else Cmd(("ldconfig", "-p"), pipe=("grep", "-E", "libcudart|libcudnn|libnvinfer"))
    )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"TensorRT {release} is installed with {' and '.join(w.split(' (')[0] for w in why)}, which it does not support",
        f"The text states TensorRT {trt[0].get('version')} beside {'; '.join(why)}. NVIDIA's support matrix for TensorRT "
        f"{release} lists CUDA {', '.join(cudas)} and cuDNN {cudnn}: its libraries bind to a CUDA runtime and a cuDNN of "
        "those versions, and with older ones on the path they find libraries without the entry points they import "
        "(on Windows 'DLL load failed: The specified procedure could not be found'). The GPU and the driver are not "
        "the fault; CUDA and cuDNN DLLs renamed do not count.",
        tuple(ev("pasted", line) for line in lines),
        Remediation(
            f"Install the CUDA {target} toolkit and cuDNN {cudnn} for it (NVIDIA's downloads) and the TensorRT {release} "
            f"package built for CUDA {target}; put its lib folder and their bin folders first on "
            + ("PATH" if windows else "LD_LIBRARY_PATH")
            + ", then reinstall TensorRT's Python wheel from that package into the environment that imports it. Or "
            "keep the installed CUDA and cuDNN and use an older TensorRT release whose support matrix lists them.",
            (check,),
            component="environment",
        ),
    )


CHECKS = (
    Check("library-onnxruntime-cuda11", "frameworks", ("framework-cuda-libs-missing",), check_onnxruntime_cuda11, ("pasted",)),
    Check(
        "library-onnxruntime-cuda12-libs",
        "frameworks",
        ("framework-cuda-libs-missing",),
        check_onnxruntime_cuda12_libs,
        ("pasted",),
    ),
    Check(
        "library-onnxruntime-windows",
        "frameworks",
        ("framework-cuda-libs-missing",),
        check_onnxruntime_windows_provider,
        ("pasted",),
    ),
    Check("library-cudnn-by-soname", "cudnn", ("cudnn-missing",), check_cudnn_by_name, ("pasted",)),
    Check("library-ctranslate2-cublas", "frameworks", ("framework-cuda-libs-missing",), check_ctranslate2_cublas, ("pasted",)),
    Check("library-ctranslate2-driver", "frameworks", ("framework-driver-too-old",), check_ctranslate2_driver, ("pasted",)),
    Check("library-tensorrt", "frameworks", ("framework-cuda-libs-missing",), check_tensorrt_library, ("pasted",)),
    Check(
        "library-tensorrt-support",
        "frameworks",
        ("framework-cuda-libs-missing",),
        check_tensorrt_support_matrix,
        ("pasted",),
    ),
    Check(
        "library-tensorrt-runtime", "frameworks", ("framework-cuda-libs-missing",), check_tensorrt_runtime_missing, ("pasted",)
    ),
    Check("library-cupy-packages", "frameworks", ("nvidia-wheels-conflict",), check_cupy_packages, ("pasted",)),
    Check("library-cupy-incomplete", "frameworks", ("nvidia-wheels-conflict",), check_cupy_module_incomplete, ("pasted",)),
    Check("library-onnxruntime-packages", "frameworks", ("nvidia-wheels-conflict",), check_onnxruntime_packages),
    Check(
        "library-onnxruntime-incomplete",
        "frameworks",
        ("nvidia-wheels-conflict",),
        check_onnxruntime_module_incomplete,
        ("pasted",),
    ),
    Check("library-faiss-packages", "frameworks", ("nvidia-wheels-conflict",), check_faiss_packages),
    Check("library-fork-packages", "frameworks", ("nvidia-wheels-conflict",), check_fork_packages),
    Check("library-mmcv-packages", "frameworks", ("nvidia-wheels-conflict",), check_mmcv_packages),
    Check("library-cuda-bindings", "frameworks", ("cuda-bindings-too-old",), check_cuda_bindings_driver, ("pasted",)),
)
