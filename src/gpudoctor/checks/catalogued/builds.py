"""Catalogued messages of building CUDA code: no toolkit (or no nvcc on the shell's PATH) for a build, Python's or
cuDNN's headers missing, Triton's launcher without libcuda.so, CUDA's Visual Studio integration missing.

A build needs more than running does (the toolkit, headers, development links), so the fix is the piece the build
named, where the text shows the platform it is missing on.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Callable, Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.cmdline import Cmd, Output, Placeholder, PrependPath, SetEnv
from gpudoctor.facts import Facts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.parsers.library_lines import LINK
from gpudoctor.planner.context import Context
from gpudoctor.probed import Found

# The command that says where an interpreter's headers belong and whether Python.h is there (Triton's own lookup:
# sysconfig's include path, triton-lang/triton python/triton/runtime/build.py @15484adc).
_HEADERS_THERE = (
    "import os, sysconfig; p = sysconfig.get_paths()['include']; print(p, os.path.isfile(os.path.join(p, 'Python.h')))"
)


def check_python_headers(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Triton compiling its launcher without the interpreter's C headers (catalogue.toml: triton-python-h-missing), on
    Linux where the interpreter's X.Y is shown: a distribution's Python (Debian's and Ubuntu's, deadsnakes' too) ships
    Python.h in its python3.X-dev package. In an image (a compose service or docker run the text shows), a package
    installed in the running container is gone when it is recreated: a new image FROM it installs the headers. On the
    host, the distribution's package. An embedded Windows Python is another fix (its include folder): left to the ask."""
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import apt_install, family
    from gpudoctor.planner.where import python_exe

    said = _said(facts, "python-headers-missing")
    py = facts.frameworks.python
    version = py.value.version if isinstance(py, Found) and py.value.version else ""
    mm = ".".join(version.split(".")[:2])
    if not said or not re.fullmatch(r"3\.\d{1,2}", mm) or (facts.platform.system or "").lower().startswith("win"):
        return
    package = f"python{mm}-dev"
    python = python_exe(facts)
    why = (
        f"Triton compiles a small C launcher for its kernels with gcc against the running interpreter's headers, as the "
        f"text shows, and Python {version} here has no Python.h: a distribution's Python keeps its headers in a "
        f"separate development package ({package} on Debian and Ubuntu, deadsnakes' builds too). The GPU, the driver "
        "and PyTorch are not at fault."
    )
    workload = next((w for w in _said(facts, "workload-gpus") if w.get("image")), None)
    if workload is not None:
        image, name = workload.get("image") or "", workload.get("name") or ""
        # the new image's name: the image's own with "-pydev" on its tag (a name docker accepts), else to be chosen
        m = re.fullmatch(r"(?P<repo>[a-z0-9][a-z0-9._/-]{0,200})(?::(?P<tag>[\w][\w.-]{0,100}))?", image)
        derived: str | Placeholder = f"{m.group('repo')}:{m.group('tag') or 'latest'}-pydev" if m else Placeholder("new-image")
        dockerfile = "Dockerfile.pydev"
        run = f"RUN apt-get update && apt-get install -y --no-install-recommends {package} && rm -rf /var/lib/apt/lists/*"
        compose = workload.get("runtime") == "compose"
        steps = (
            *(
                (
                    Cmd(
                        ("docker", *(("compose",) if compose else ()), "exec", name, python, "-c", _HEADERS_THERE),
                        note="inside: False",
                    ),
                )
                if name
                else ()
            ),
            Cmd(("echo", f"FROM {image}"), pipe=("tee", dockerfile), note="on the host: a new image with the headers"),
            Cmd(("echo", run), pipe=("tee", "-a", dockerfile), note="for Debian and Ubuntu images; Red Hat's take python3-devel"),
            Cmd(("cat", dockerfile), pipe=("docker", "build", "-t", derived, "-")),
            *(
                (Cmd(("docker", "compose", "up", "-d", name), note="once the service's image: line names the new image"),)
                if compose and name
                else ()
            ),
        )
        rem = Remediation(
            f"Build a new image FROM {image} that installs {package}, the headers of the image's own Python {mm}, and run "
            "the "
            + ("service" if compose else "container")
            + " from it (an apt-get in the running container is lost when it is recreated); a later release of the "
            "image that installs them does the same.",
            steps,
            component="container",
            where="the image",
        )
    else:
        debian = family(facts) == "debian"
        rem = Remediation(
            f"Install the development headers of this Python {mm}: {package} on Debian and Ubuntu (deadsnakes' builds "
            "too), python3-devel on Fedora and Red Hat; then rerun. A conda or uv Python carries its headers: there, "
            "reinstall that interpreter.",
            (
                Cmd((python, "-c", _HEADERS_THERE), note="where the headers belong: False until they are installed"),
                *(apt_install(package) if debian else ()),
            ),
            requires_root=debian,
            component="environment",
        )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"Triton cannot compile its launcher: Python {mm} has no development headers (Python.h)",
        why,
        (ev("pasted", said[0].line),),
        rem,
    )


def check_build_toolkit_missing(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """torch.utils.cpp_extension's and DeepSpeed's op builder's "CUDA_HOME ..." (catalogue.toml: cuda-home-unset): a
    CUDA extension's build found no toolkit (CUDA_HOME unset, no nvcc on PATH, no /usr/local/cuda). A pip or conda
    PyTorch brings the CUDA runtime, not nvcc, so PyTorch itself runs on the GPU meanwhile. The fix is a toolkit of
    torch's CUDA version (torch.utils.cpp_extension refuses another major, DeepSpeed another version), named by
    CUDA_HOME; where the text shows torch's CUDA it is installed: into the conda environment that ran (conda's
    cuda-toolkit), else from NVIDIA's repository for this distribution. Otherwise what decides it is asked."""
    from gpudoctor.checks.toolkit import conda_install, toolkit_install
    from gpudoctor.cmdline import PrependPath
    from gpudoctor.versions import major_minor

    said = _said(facts, "cuda-home-unset")
    if not said or facts.toolkits.nvcc_on_path_version or "CUDA_HOME" in facts.platform.env:
        return  # a toolkit shown or named: not this cause (toolkit-torch-major-mismatch judges a toolkit of another major)
    torch = facts.frameworks.torch.value if isinstance(facts.frameworks.torch, Found) else None
    mm = major_minor(torch.cuda) if torch is not None and torch.cuda else None
    py = facts.frameworks.python
    env = py.value if isinstance(py, Found) else None
    rem = None
    windows = (facts.platform.system or "").lower().startswith("win") and not facts.platform.wsl
    if mm is not None and windows:
        # NVIDIA's Windows installer has no command line to give (its download is chosen by version on NVIDIA's site);
        # it installs each version side by side under C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\vX.Y and
        # sets CUDA_PATH (NVIDIA's CUDA installation guide for Windows), which torch.utils.cpp_extension reads after
        # CUDA_HOME (_find_cuda_home). The build's own terminal names it, so another version installed stays as it is.
        folder = f"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{mm}"
        rem = Remediation(
            f"Install NVIDIA's CUDA {mm} toolkit for Windows (torch's CUDA; the toolkit only, beside any other version), "
            "then in the terminal that runs the build point CUDA_HOME at it, with its bin first on PATH, and rerun the "
            "build there (a build of CUDA ops needs the MSVC compiler too: an x64 Native Tools Command Prompt for VS).",
            (
                Cmd(("where", "nvcc"), note="the toolkits on PATH, if any"),
                SetEnv("CUDA_HOME", folder),
                PrependPath("PATH", (f"{folder}\\bin",), note="its nvcc first on PATH, the rest kept"),
            ),
            component="toolkit",
            where="Windows",
        )
    elif mm is not None:
        # the environment that ran: its interpreter's bin/.. (PythonEnv.prefix may name the conda installation's base)
        exe = (env.executable or "") if env is not None and env.kind == "conda" else ""
        home = posixpath.dirname(posixpath.dirname(exe)) if posixpath.basename(posixpath.dirname(exe)) == "bin" else ""
        conda = conda_install(mm) if home else None
        if conda is not None:
            rem = Remediation(
                f"Install CUDA {mm}'s toolkit (torch's CUDA) into the conda environment that ran, and point CUDA_HOME "
                "at it; then rerun the build.",
                (
                    dataclasses.replace(conda, argv=(*conda.argv[:2], "-p", home, *conda.argv[2:])),
                    SetEnv("CUDA_HOME", home, note="the environment's nvcc is in its bin"),
                ),
                component="toolkit",
            )
        elif (install := toolkit_install(facts, ctx.matrix, mm)).commands:
            root = f"/usr/local/cuda-{mm}"
            rem = Remediation(
                f"Install CUDA {mm}'s toolkit (torch's CUDA; the toolkit only, not the driver) and point CUDA_HOME at "
                "it, with its nvcc first on PATH; then rerun the build." + (f" {install.says}" if install.says else ""),
                (
                    *install.commands,
                    SetEnv("CUDA_HOME", root),
                    PrependPath("PATH", (f"{root}/bin",), note="its nvcc first on PATH, the rest kept"),
                ),
                requires_root=True,
                component="toolkit",
            )
    e = said[0]
    yield Finding(
        "toolkit-missing-for-build",
        Severity.ERROR,
        "toolkit",
        "a CUDA extension's build found no CUDA toolkit (no nvcc, CUDA_HOME unset)"
        + (f": it needs CUDA {mm}'s, torch's" if mm else ""),
        "The build stopped because no CUDA compiler was found, as the text shows: CUDA_HOME is not set, and no nvcc "
        + ("is on PATH or under CUDA_PATH" if windows else "is on PATH or in /usr/local/cuda")
        + ". A pip or conda PyTorch carries the CUDA runtime libraries but not nvcc, "
        "so PyTorch runs on the GPU while building its extensions (DeepSpeed's ops, apex, custom ops) needs a toolkit "
        "of torch's CUDA version" + (f" ({mm})" if mm else "") + ". The driver and PyTorch need no change.",
        (ev("pasted", e.line),),
        rem,
    )


def check_shell_nvcc_not_found(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The shell a build ran nvcc from found none on PATH (catalogue.toml: shell-nvcc-not-found; make's recipes exit with
    127). NVIDIA's installers put the toolkit under /usr/local/cuda (a link to /usr/local/cuda-X.Y) and leave PATH to the
    user (the CUDA installation guide for Linux, post-installation actions), and sudo's secure_path drops the user's
    PATH: the toolkit is most often there, off PATH. Its nvcc is checked, its bin put first on PATH in the shell that
    runs the build, and the build rerun from there; where no toolkit is there, one is installed first."""
    from gpudoctor.cmdline import PrependPath
    from gpudoctor.planner.remedy import keep_path, kept

    said = _said(facts, "shell-nvcc-not-found")
    if not said or (facts.platform.system or "").lower().startswith("win"):
        return
    yield Finding(
        "toolkit-missing-for-build",
        Severity.ERROR,
        "toolkit",
        "the build's shell found no nvcc on its PATH",
        "The shell that ran the build's nvcc could not find it, as the text shows (exit status 127). A CUDA toolkit "
        "installed by NVIDIA's installers lives in /usr/local/cuda, whose bin is not on PATH until you put it there, and "
        "sudo runs commands with its own PATH; a toolkit that works in one terminal can be missing from the shell a build "
        "runs. The driver, cuDNN and the GPU are not involved.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Check that the toolkit's nvcc is in /usr/local/cuda/bin (if not, install the CUDA toolkit first), put that "
            "directory first on PATH in the shell that runs the build, and rerun the build from that shell (without sudo, "
            'or with sudo env PATH="$PATH": sudo resets PATH).' + keep_path(facts),
            kept(
                facts,
                (
                    Cmd(("ls", "-l", "/usr/local/cuda/bin/nvcc"), note="where NVIDIA's installers put nvcc"),
                    PrependPath("PATH", ("/usr/local/cuda/bin",), note="the rest of PATH kept"),
                    Cmd(("nvcc", "--version"), note="then rerun the build from this shell"),
                ),
            ),
            component="toolkit",
        ),
    )


def check_build_cudnn_headers(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """torch's ATen/cudnn/cudnn-wrapper.h not finding <cudnn.h> while an extension compiles against it (catalogue.toml:
    cpp-extension-cudnn-header-missing). torch.utils.cpp_extension puts CUDA_HOME/include on the include path, and
    cuDNN's include directory only from CUDNN_HOME or CUDNN_PATH (pytorch/pytorch torch/utils/cpp_extension.py
    @26e79290, include_paths): a cuDNN installed elsewhere (an environment module's root, a conda environment, NVIDIA's
    cuDNN wheel) is not seen, and CXXFLAGS set in the shell do not reach the nvcc lines of the build. The fix names
    that root in CUDNN_PATH and CUDNN_HOME in the shell that builds, and rebuilds with pip's --no-build-isolation (a
    build-isolated pip builds against a torch of its own). Quiet where the text shows CUDNN_PATH or CUDNN_HOME set: a
    root named and still no header is another cause (a root without include/, a runtime-only cuDNN)."""
    from gpudoctor.planner.where import python_step

    said = _said(facts, "cudnn-headers-missing")
    if not said or {"CUDNN_PATH", "CUDNN_HOME"} & set(facts.platform.env):
        return
    e = said[0]
    yield Finding(
        "cudnn-headers-missing-for-build",
        Severity.ERROR,
        "cudnn",
        "an extension's build found no cudnn.h: torch's cuDNN headers need cuDNN's include directory",
        "The compiler stopped in torch's ATen/cudnn headers, which include cudnn.h, as the text shows. "
        "torch.utils.cpp_extension adds cuDNN's include directory only from CUDNN_HOME or CUDNN_PATH (besides "
        "CUDA_HOME/include), so a cuDNN installed elsewhere (an environment module's root, a conda environment, "
        "NVIDIA's cuDNN wheel) is not seen, and CXXFLAGS set in the shell do not reach the build's nvcc lines. The "
        "driver, the toolkit and PyTorch need no change.",
        (ev("pasted", e.line),),
        Remediation(
            "Point the build at the cuDNN that is installed: export CUDNN_PATH and CUDNN_HOME to the cuDNN root whose "
            "include/ holds cudnn.h (the root variable an environment module sets, the conda environment's prefix, or "
            "site-packages/nvidia/cudnn of NVIDIA's cuDNN wheel of torch's CUDA major), in the same shell as the "
            "build, with the environment active; then rebuild with `python -m pip install --no-build-isolation` so "
            "the build uses this torch. Keep that cuDNN's lib directory on the loader's path where the extension runs.",
            (
                Cmd(("printenv",), pipe=("grep", "-i", "cudnn"), note="a cuDNN root that a module or an install set"),
                python_step(
                    facts,
                    "-c",
                    "import torch, torch.utils.cpp_extension as c; print(torch.__version__, torch.version.cuda, c.CUDA_HOME, c.CUDNN_HOME)",
                ),
            ),
            component="cudnn",
        ),
    )


def check_triton_libcuda(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Triton's "libcuda.so cannot found!" (triton/common/build.py, libcuda_dirs @0ad2a436): it links its launcher with
    -lcuda against the directories `ldconfig -p` lists for libcuda, and the linker needs the unversioned libcuda.so
    there. A driver installed without its development link has only libcuda.so.1: the driver works, and a symlink
    beside it (the message names the file) is the fix; no toolkit, driver or package reinstall is."""
    from gpudoctor.cmdline import Cmd

    said = _said(facts, "triton-libcuda-missing")
    if not said:
        return
    e = said[0]
    located = e.get("located") or ""
    lib_dir, _, name = located.rpartition("/")
    check = Cmd(("ldconfig", "-p"), pipe=("grep", "libcuda"), note="the driver's libcuda files the loader's cache lists")
    if lib_dir and name != "libcuda.so":
        summary = (
            f"Create libcuda.so beside the driver's {name} in {lib_dir} and refresh the loader's cache, then clear "
            "Triton's cache (~/.triton/cache) and rerun. (Triton releases that read TRITON_LIBCUDA_PATH also take a "
            "directory of your own holding such a symlink, without root.)"
        )
        commands: tuple = (
            check,
            Cmd(("ln", "-s", located, f"{lib_dir}/libcuda.so"), root=True),
            Cmd(("ldconfig",), root=True),
            # Triton keeps the launcher it failed to build for under ~/.triton/cache (its default TRITON_CACHE_DIR):
            # named from the home directory, so it is the same folder from anywhere (the quoting layer keeps ~/ bare).
            Cmd(("rm", "-rf", "~/.triton/cache")),
        )
    else:
        summary = (
            "Triton found no libcuda in the loader's cache: refresh the cache (the driver's library directory must be "
            "in /etc/ld.so.conf.d), check that libcuda.so.1 and libcuda.so are listed, then rerun."
        )
        commands = (Cmd(("ldconfig",), root=True), check)
    if facts.platform.wsl == 2:
        # WSL 2's libcuda.so is the Windows driver's, in /usr/lib/wsl/lib: gcc hands LIBRARY_PATH's folders to the
        # linker as -L, so the link finds it there whatever the cache lists (pytorch/pytorch#97501).
        commands = (*commands, _wsl_library_path(facts))
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        "Triton cannot link its launcher: no libcuda.so (the driver's unversioned link) where the loader's cache lists libcuda",
        # (the linker's own "cannot find -lcuda" under inductor's or Triton's frames: catalogue
        # triton-launcher-ld-cannot-find-lcuda, the releases before Triton's message)
        ("Triton said so" if e.get("entry") != "triton-launcher-ld-cannot-find-lcuda" else "The linker said so")
        + ", as the text shows: Triton compiles a small launcher with -lcuda against the directories of the "
        "driver's libcuda that `ldconfig -p` lists, and the linker needs the name libcuda.so there"
        + (f"; only {located} is there" if located else "")
        + ". The driver's library itself is installed; its development link is not. No CUDA toolkit, driver or "
        "package reinstall changes that.",
        (ev("pasted", e.line),),
        Remediation(summary, commands, requires_root=True, component="environment"),
    )


# The folder of the driver's libcuda.so.1 as the loader resolves it: loaded, then read from the process's own map (a
# fixed program, never text from the paste; it fails loudly where no driver's libcuda loads).
_DRIVER_LIBCUDA_DIR = (
    'import ctypes, os; ctypes.CDLL("libcuda.so.1"); '
    'print(next(os.path.dirname(l.split()[-1]) for l in open("/proc/self/maps") if "/libcuda.so" in l))'
)


def _wsl_library_path(facts: Facts) -> PrependPath:
    from gpudoctor.planner.remedy import notebook_said

    return PrependPath(
        "LIBRARY_PATH",
        ("/usr/lib/wsl/lib",),
        note="WSL's libcuda.so from the Windows driver, first where the linker looks; the rest kept",
        notebook=notebook_said(facts),
    )


def _link_libcuda(facts: Facts) -> Iterable[Finding]:
    """The linker's own "cannot find -lcuda" at a build (parsers.library_lines: the link side, not the loader's): a
    program, extension or JIT launcher links against libcuda.so, which GNU ld looks for in the -L folders and in
    LIBRARY_PATH (gcc passes it as -L; binutils ld/ldfile.c), never in LD_LIBRARY_PATH or the loader's cache. The
    driver's folder goes on LIBRARY_PATH: WSL 2's /usr/lib/wsl/lib, elsewhere the folder the driver's libcuda.so.1
    loads from. Triton's launcher under inductor's frames is check_triton_libcuda's own reading, above; the caller,
    check_link_cuda_libraries, leaves it that one."""
    from gpudoctor.planner.remedy import notebook_said
    from gpudoctor.planner.where import python_exe

    said = _link_failures(facts, lambda soname: soname == "libcuda.so")
    if not said:
        return
    e = said[0]
    check = Cmd(("ldconfig", "-p"), pipe=("grep", "libcuda"), note="libcuda.so (the unversioned link) beside libcuda.so.1")
    if facts.platform.wsl == 2:
        where = "WSL 2's /usr/lib/wsl/lib, where the Windows driver puts libcuda.so,"
        commands: tuple = (Cmd(("ls", "-l", "/usr/lib/wsl/lib/libcuda.so")), _wsl_library_path(facts))
    else:
        where = "the folder the driver's libcuda.so.1 loads from"
        commands = (
            check,
            PrependPath(
                "LIBRARY_PATH",
                (Output((python_exe(facts), "-c", _DRIVER_LIBCUDA_DIR)),),
                note="the driver's libcuda folder, first where the linker looks; the rest kept",
                notebook=notebook_said(facts),
            ),
        )
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        "the linker cannot find libcuda.so (-lcuda) at build time: the driver's folder is not where the linker looks",
        "The linker said so, as the text shows: a build links against the driver's libcuda.so by -lcuda, and the "
        "linker looks for it in its -L folders and LIBRARY_PATH only, not in LD_LIBRARY_PATH or the loader's cache. "
        "This is the build's link, not a program failing to load the driver: the driver, the toolkit and the framework "
        "are not at fault.",
        (ev("pasted", e.line),),
        Remediation(
            f"Put {where} first on LIBRARY_PATH in this shell, then run the build again from it. Where the folder "
            "holds only libcuda.so.1, its unversioned libcuda.so link is missing (the driver's development link).",
            commands,
            component="environment",
        ),
    )


# The folder that holds each library named (argv), first found under the active conda environment, then CUDA_HOME, then
# NVIDIA's default toolkit link /usr/local/cuda: lib, lib64 and the toolkit's targets/<arch>/lib (where conda's
# cuda-* packages and the runfile put them). Printed joined by ":", each folder once; where none holds one it fails, so
# the `&&` after it sets nothing (an empty entry would mean the current folder).
_LINK_LIBRARY_DIRS = (
    'import glob, os, sys; roots = [r for r in (os.environ.get("CONDA_PREFIX"), os.environ.get("CUDA_HOME"), '
    '"/usr/local/cuda") if r]; found = [next((os.path.dirname(p) for r in roots for p in sorted(glob.glob(os.path.join('
    'r, "lib*", n)) + glob.glob(os.path.join(r, "targets", "*", "lib", n)))), "") for n in sys.argv[1:]]; '
    'dirs = ":".join(dict.fromkeys(d for d in found if d)); print(dirs) if dirs else sys.exit("not found: " + " ".join('
    "sys.argv[1:]))"
)


def check_link_cuda_libraries(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The linker's "cannot find -lcurand" (-lcublas, -lcudart ...) at a build: an extension built on first use (a
    torch JIT op such as DeepSpeed's cpu_adam) links a CUDA library by -lNAME, and GNU ld looks for libNAME.so in its -L
    folders and in LIBRARY_PATH only (gcc passes LIBRARY_PATH's folders as -L; GCC's manual, "Environment Variables"),
    never in LD_LIBRARY_PATH or the loader's cache (ld.so(8)). The library is most often installed (the conda
    environment's lib, the toolkit's lib64) where the build does not pass -L, so the fix is that folder on LIBRARY_PATH
    for the link and on LD_LIBRARY_PATH for the module's load, then the same build again; nothing is reinstalled. The
    driver's libcuda (-lcuda) is _link_libcuda's, where Triton's own reading (check_triton_libcuda) has not taken it."""
    from gpudoctor.planner.remedy import notebook_said
    from gpudoctor.planner.where import python_exe

    if not _said(facts, "triton-libcuda-missing"):
        yield from _link_libcuda(facts)
    said = _link_failures(facts, lambda soname: bool(_CUDA_LINK_NAME.match(soname)))
    if not said:
        return
    names = list(dict.fromkeys(e.get("soname") or "" for e in said))
    folder = Output((python_exe(facts), "-c", _LINK_LIBRARY_DIRS, *names))
    flags = ", ".join(f"-l{n[3:-3]}" for n in names)
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        f"the linker cannot find {', '.join(names)} ({flags}) at build time: its folder is not where the linker looks",
        "The linker said so, as the text shows: the build links the CUDA library by -l, and the linker looks for it in "
        "its -L folders and LIBRARY_PATH only, not in LD_LIBRARY_PATH or the loader's cache. This is the build's link, "
        "not a program failing to load a library: the library is usually installed (the conda environment's lib, the "
        "CUDA toolkit's lib64) where the build passes no -L.",
        tuple(ev("pasted", e.line) for e in said[:1]),
        Remediation(
            "Put the folder that holds it (the active conda environment's lib, else the CUDA toolkit's) first on "
            "LIBRARY_PATH for the link and on LD_LIBRARY_PATH for the module's load, in the shell that runs the build, "
            "then run the same command again: a JIT-built op is linked again on its next use. Nothing needs "
            "reinstalling.",
            (
                # One lookup, its answer on both: the linker's list and the loader's (PrependPath.also).
                PrependPath(
                    "LIBRARY_PATH",
                    (folder,),
                    note="the folder that holds it, first where the linker looks and where the built module loads it; "
                    "the rest kept",
                    notebook=notebook_said(facts),
                    also=("LD_LIBRARY_PATH",),
                ),
            ),
            component="environment",
        ),
    )


def _link_failures(facts: Facts, named: Callable[[str], bool]) -> list:
    """The linker's "cannot find -lNAME" lines of a Linux build (parsers.library_lines' link side) whose library
    `named` accepts (its unversioned soname, libNAME.so)."""
    if (facts.platform.system or "Linux") != "Linux":
        return []
    return [e for e in _said(facts, "library-missing") if e.get("side") == LINK and named(e.get("soname") or "")]


# The CUDA toolkit's libraries a build links by -l (the link side names them unversioned: libcurand.so).
_CUDA_LINK_NAME = LazyPattern(r"^lib(?:cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvrtc|nvJitLink|cudnn)\.so$")


# The VCTargetsPath folder of a Visual Studio instance by its year (pytorch/pytorch's
# .ci/pytorch/windows/internal/cuda_install.bat @33c040b5 copies the CUDA integration into 2019's v160 and 2022's v170).
_VC_TARGETS = {"2019": "v160", "2022": "v170"}


def check_cuda_vs_integration(facts: Facts, ctx: Context) -> Iterable[Finding]:
    r"""CMake's "No CUDA toolset found." (Modules/CMakeDetermineCompilerId.cmake @f3163189): the Visual Studio generator
    compiles CUDA through the toolkit's MSBuild integration, "CUDA X.Y.props" and ".targets" imported from
    $(VCTargetsPath)\BuildCustomizations. The CUDA installer puts them there only for the Visual Studio instances it
    finds (its Visual Studio Integration component), so a Visual Studio or Build Tools installed after CUDA has none,
    while CMake finds the toolkit itself. The files are in the toolkit's extras\visual_studio_integration\MSBuildExtensions;
    copied into the instance's BuildCustomizations (as PyTorch's own Windows CI does), the build goes through."""
    said = _said(facts, "cuda-vs-toolset-missing")
    if not said:
        return
    found = _said(facts, "cmake-cudatoolkit-found")
    instances = _said(facts, "visual-studio-instance-said")
    root = found[0].get("root").replace("/", "\\") if found and found[0].get("root") else None
    version = found[0].get("version") if found else None
    source = f"{root}\\extras\\visual_studio_integration\\MSBuildExtensions" if root else None
    inst = instances[0] if instances else None
    target = (
        f"{inst.get('instance').replace('/', chr(92))}\\MSBuild\\Microsoft\\VC\\{_VC_TARGETS[inst.get('year')]}\\BuildCustomizations"
        if inst is not None and inst.get("instance") and inst.get("year") in _VC_TARGETS
        else None
    )
    commands: list = []
    if source:
        commands.append(
            Cmd(("dir", source), note=f"CUDA {version}.props, .targets, .xml and Nvda.Build.CudaTasks.v{version}.dll")
        )
    commands.append(
        Cmd(
            (
                "xcopy",
                "/Y",
                f"{source}\\*" if source else Placeholder("msbuildextensions-files"),
                target or Placeholder("buildcustomizations-folder"),
            ),
            root=True,
            note=""
            if target and source
            else "from the toolkit's extras, visual_studio_integration, MSBuildExtensions folder into the Visual Studio "
            "instance's MSBuild, Microsoft, VC, v170 folder for 2022, v160 for 2019, its BuildCustomizations",
        )
    )
    yield Finding(
        "toolkit-missing-for-build",
        Severity.ERROR,
        "toolkit",
        "CMake's Visual Studio generator found no CUDA toolset: the CUDA toolkit's Visual Studio integration is missing"
        + (f" (CUDA {version})" if version else ""),
        "The build stopped at enable_language(CUDA) with 'No CUDA toolset found.'"
        + (f", after CMake had found CUDA {version}'s toolkit" if version else "")
        + ". With a Visual Studio generator CMake compiles CUDA through the toolkit's MSBuild integration (CUDA X.Y.props "
        "and .targets in Visual Studio's BuildCustomizations folder), which the CUDA installer adds only to the Visual "
        "Studio instances present when it ran: a Visual Studio or Build Tools installed later, or an installation "
        "without the Visual Studio Integration component, has none. The driver and the toolkit need no change.",
        tuple(ev("pasted", e.line) for e in (said[:1] + found[:1])),
        Remediation(
            "Copy the toolkit's MSBuild integration into the Visual Studio instance that builds (an Administrator "
            "shell), or rerun the CUDA installer with only its Visual Studio Integration component; then run the build "
            "again in the same shell, with the same options.",
            tuple(commands),
            requires_root=True,
            component="toolkit",
        ),
    )


# CMake's cache entry naming the architectures a CUDA target is compiled for (Kitware/CMake
# Help/variable/CMAKE_CUDA_ARCHITECTURES.rst @d837f8b6: it initialises every target's CUDA_ARCHITECTURES; "Users are
# encouraged to override this"). Its entries are numbers with an optional -real or -virtual suffix.
_CUDA_ARCHS = "CMAKE_CUDA_ARCHITECTURES"


def _configure_options(args: str, system: str | None) -> tuple[str, ...] | None:
    """The -D options (NAME=VALUE, NAME:TYPE=VALUE) of a shown CMake configure command, in order, as CMake reads
    them (Help/manual/OPTIONS_BUILD.txt @6d68aab2: "-D <var>=<value>" or "-D<var>=<value>"); None where the line is
    not a plain command (a substitution, an unbalanced quote): then nothing of it is carried into a command."""
    from gpudoctor.cmdline import shell_for_os, split_plain

    words = split_plain(args, shell_for_os(system))
    if words is None:
        return None
    out: list[str] = []
    for i, w in enumerate(words):
        value = words[i + 1] if w == "-D" and i + 1 < len(words) else w[2:] if w.startswith("-D") and len(w) > 2 else ""
        if re.fullmatch(r"[A-Za-z_][\w.+-]{0,100}(?::[A-Z]{1,10})?=[^\n]{0,300}", value):
            out.append(value)
    return tuple(out)


def check_cmake_arch_list(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """ggml's "no kernel image is available for execution on the device" where ggml's own device line gives the GPU's
    compute capability (catalogue.toml: ggml-cuda-device-capability): the ggml that runs was compiled without that
    architecture. A CMake build compiles the architectures CMAKE_CUDA_ARCHITECTURES lists, a project default where the
    configure named none (llama.cpp's and ggml's lists of 2023 started at 52: an sm_50 GPU got no kernels, as
    ggml-org/ggml#465's reporter found), so the fix is a build that names the GPU's architecture, not a driver or a
    toolkit. The options of a configure the text shows are kept, in a new build folder; without one, the build folder
    it was configured in keeps its options in CMakeCache.txt and only the list changes. A configure whose list already
    holds the architecture is another cause: quiet."""
    from gpudoctor.cmdline import Line
    from gpudoctor.planner.context import gpu_cc

    failed = _said(facts, "no-kernel-image")
    # ggml's own NO_DEVICE_CODE line (catalogue.toml: ggml-cuda-no-device-code) names the build's architecture list
    # itself; the GPU is then ggml's device line or the one nvidia-smi showed.
    nodevice = [e for e in _said(facts, "ggml-no-device-code") if e.get("compiled")]
    devices = [e for e in _said(facts, "cuda-device-capability-said") if e.get("capability")]
    if not failed and nodevice:
        failed = nodevice
    if not failed:
        return
    if devices:
        device_line = devices[0].line
        cc, gpu = devices[0].get("capability") or "", devices[0].get("gpu") or "this GPU"
    elif failed is nodevice and facts.driver.gpus and (cc := gpu_cc(facts.driver.gpus[0], ctx) or ""):
        device_line, gpu = None, facts.driver.gpus[0].name or "this GPU"
    else:
        return
    arch = cc.replace(".", "")
    compiled = [int(a) for a in (nodevice[0].get("compiled") or "").split(",") if a.isdigit()] if nodevice else []
    major, minor = (int(x) for x in cc.split(".")[:2])
    whole = major * 100 + minor * 10  # as __CUDA_ARCH__ writes it: 8.6 is 860
    # A cubin runs on GPUs of its major at or above its minor (CUDA C++ Programming Guide, "Binary Compatibility"): a
    # list holding one is a build that has code for this GPU, and the kernel is missing for another reason.
    if any(a // 100 == major and a <= whole for a in compiled):
        return
    configures = _said(facts, "cmake-configure-said")
    options = _configure_options(configures[0].get("args") or "", facts.platform.system) if configures else None
    listed = [o.split("=", 1)[1] for o in options or () if o.split("=", 1)[0].split(":")[0] == _CUDA_ARCHS]
    if any(arch in {a.strip().split("-")[0] for a in value.split(";")} for value in listed):
        return  # the build was asked for this architecture: the kernel is missing for another reason
    kept = tuple(o for o in options or () if o.split("=", 1)[0].split(":")[0] != _CUDA_ARCHS)
    target = ctx.matrix.cc_target(cc)
    nvcc = facts.toolkits.nvcc_on_path_version
    can = ctx.matrix.cuda_can_target(nvcc, cc) if nvcc else None
    span = ""
    if target is not None and (target.first_cuda or target.last_cuda):
        span = (
            f"CUDA {target.first_cuda or '8.0'} "
            + (f"to {target.last_cuda}" if target.last_cuda else "and newer")
            + f" compile for compute capability {cc}"
        )
    commands: list[Line] = []
    if span:
        commands.append(Cmd(("nvcc", "--version"), note=span))
    folder: str | Placeholder
    if kept:
        folder = f"build-sm{arch}"
        commands.append(
            Cmd(
                ("cmake", "-B", folder, *(f"-D{o}" for o in kept), f"-D{_CUDA_ARCHS}={arch}"),
                note="in the source folder: a new build folder, with the options it was configured with",
            )
        )
    else:
        folder = Placeholder("build-folder")
        commands.append(
            Cmd(
                ("cmake", "-B", folder, f"-D{_CUDA_ARCHS}={arch}"),
                note="in the source folder, on the build folder it was configured in: its other options stay in its "
                "CMakeCache.txt",
            )
        )
    commands.append(Cmd(("cmake", "--build", folder, "--config", "Release"), note="then run the program from this build"))
    lacks = f"its list ({'; '.join(listed)}) lacks {arch}" if listed else "its configure named no architecture list"
    shown = ", ".join(f"sm_{a // 10}" for a in compiled)
    said_failure = (
        f"a kernel stopped with ggml's 'no device code compatible' error: the build was compiled for {shown} only"
        if compiled
        else "its first kernel failed with 'no kernel image is available for execution on the device'"
    )
    yield Finding(
        "framework-arch-unsupported",
        Severity.ERROR,
        "frameworks",
        f"the ggml build that runs has no CUDA kernels for the {gpu} (compute capability {cc}, sm_{arch})",
        f"ggml runs on the {gpu}, of compute capability {cc}, and {said_failure}: the build carries no code for this "
        f"architecture. A CMake build compiles the architectures {_CUDA_ARCHS} lists, and "
        + (lacks if configures or not compiled else "a build that names none compiles nvcc's or the project's default")
        + f", so the list compiled does not hold {arch}. The driver and the CUDA toolkit are not at fault"
        + (f" (nvcc {nvcc} cannot compile for {cc}, though: a toolkit that can is needed first)" if can is False else "")
        + f"; a build configured with {_CUDA_ARCHS}={arch} runs on it.",
        (
            *((ev("pasted", device_line),) if device_line else ()),
            ev("pasted", failed[0].line),
            *((ev("pasted", configures[0].line),) if configures else ()),
        ),
        Remediation(
            f"Configure the build again with {_CUDA_ARCHS}={arch} (the GPU's architecture; a list such as "
            f'"{arch};61;70" keeps others too), build it, and run the program from that build.'
            + (f" {span}: nvcc --version shows which compiles." if span else ""),
            tuple(commands),
            component="toolkit",
        ),
    )


def check_extension_kernel_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A project's own CUDA extension printing "no kernel image is available" from its launch check (catalogue.toml:
    extension-cuda-kernel-failed-no-image, extension-error-in-kernel-no-image: PointNet++'s "CUDA kernel failed : ...",
    the neural renderer's "Error in forward_face_index_map_1: ...") where the text names the GPU (in words or a tool's
    list): the extension's binary carries no code for that GPU's compute capability. It was compiled for others (a
    prebuilt package, another machine's GPU, an arch list without it), and the driver, PyTorch or another toolkit does
    not change a binary already compiled: the extension is built again from source for that capability (torch's
    extension builder compiles what TORCH_CUDA_ARCH_LIST names), with a toolkit that can target it. Without a named GPU
    the catalogue's asks stand (which capability is unknown)."""
    from gpudoctor.checks.extensions import build_toolchain
    from gpudoctor.planner.context import gpu_cc
    from gpudoctor.planner.remedy import python_exe

    failed = _said(facts, "extension-kernel-no-image")
    if not failed or not facts.driver.gpus:
        return
    ccs = sorted({cc for g in facts.driver.gpus if (cc := gpu_cc(g, ctx))}, key=lambda c: tuple(int(x) for x in c.split(".")))
    if not ccs:
        return
    gpu = facts.driver.gpus[0].name or "this GPU"
    archs = ";".join(ccs)
    span = ""
    target = ctx.matrix.cc_target(ccs[-1])
    if target is not None and target.first_cuda:
        span = f"a CUDA toolkit of {target.first_cuda} or newer compiles for compute capability {ccs[-1]}"
    windows = (facts.platform.system or "").lower().startswith("win")
    source = Placeholder("extension-source-folder")
    cmds: list = [build_toolchain(facts)]
    if span:
        cmds.append(Cmd(("nvcc", "--version"), note=span))
    cmds.append(SetEnv("TORCH_CUDA_ARCH_LIST", archs))
    cmds.append(
        Cmd(
            (python_exe(facts), "-m", "pip", "install", "--no-build-isolation", "--force-reinstall", "--no-deps", source),
            note="in the extension's source checkout (its setup.py), its old build folder removed first",
        )
    )
    where = (
        "in a Visual Studio developer shell (x64 Native Tools Command Prompt or Developer PowerShell for VS: the MSVC "
        "compiler nvcc needs on Windows) with the environment that runs the program activated"
        if windows
        else "with the interpreter that runs the program"
    )
    yield Finding(
        "framework-arch-unsupported",
        Severity.ERROR,
        "frameworks",
        f"the project's compiled CUDA extension has no kernels for the {gpu} (compute capability {', '.join(ccs)})",
        "The extension's own launch check printed 'no kernel image is available for execution on the device' (not "
        f"PyTorch's error): its binary was compiled for other architectures than {', '.join(ccs)}, as a prebuilt "
        "package, a build made on another machine or an arch list without it is. A driver, PyTorch or CUDA toolkit "
        "installed afterwards does not change a binary already compiled; a build from source for this capability does.",
        (ev("pasted", failed[0].line),),
        Remediation(
            f"Build the extension again from its source, {where}, with TORCH_CUDA_ARCH_LIST={archs} (the GPU's compute "
            "capability; torch's extension builder compiles what it names) against the installed torch, after removing "
            "the source folder's old build folder (objects left there would be linked again); then run the program "
            "again." + (f" {span[0].upper() + span[1:]}: nvcc --version shows the toolkit the build uses." if span else ""),
            tuple(cmds),
            component="toolkit",
        ),
    )


# The ops DeepSpeed's own Windows build turns off before it builds (build_win.bat @edaa7221) that older releases, which
# abort on an incompatible op asked for, still try under DS_BUILD_OPS=1 (Windows' default): async_io needs libaio and gds
# cuFile, neither of which exists for Windows, and sparse_attn a Triton there is none of.
_DS_WINDOWS_OFF = ("DS_BUILD_AIO", "DS_BUILD_GDS", "DS_BUILD_SPARSE_ATTN")
# The libaio development package per distribution family (DeepSpeed's check_for_libaio_pkg, op_builder/async_io.py
# @edaa7221: libaio-dev with apt, libaio-devel with yum, libaio with pacman).
_LIBAIO_DEV = {"debian": ("apt-get", "libaio-dev"), "rhel": ("yum", "libaio-devel"), "arch": ("pacman", "libaio")}


def _deepspeed_reinstall(facts: Facts) -> Cmd:
    """The install the text shows the reporter ran (pip's own words), run again; else DeepSpeed's from the index."""
    from gpudoctor.planner.remedy import pip

    for said in _said(facts, "pip-install-said"):
        args = tuple((said.get("args") or "").split())  # space-separated plain words (error_texts._pip_args)
        if any("deepspeed" in a.lower() or a in (".", "./") for a in args):
            return pip(facts, "install", *args)
    return pip(facts, "install", "deepspeed")


def check_deepspeed_aio(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """DeepSpeed's async_io op and libaio (catalogue.toml: deepspeed-*-aio-*, deepspeed-precompile-async-io-failed).

    The op builder's warning alone ("requires the dev libaio .so object and headers") is a note: async_io serves NVMe
    offload only, and every op report and every rank's start-up prints it where libaio is missing (blind set 11's 1121,
    a control). An install that stopped at "Unable to pre-compile async_io" (DeepSpeed before 0.15.1 under
    DS_BUILD_OPS=1, Windows' default) is the failure. On Windows there is no libaio: the install runs again without the
    ops DeepSpeed's own Windows build turns off; the LNK1181 lines of its link test are printed by every Windows build,
    a good one too (blind set 12's 1223), so they only say Windows. On Linux the distribution's libaio development
    package is the fix where the family is known, DS_BUILD_AIO=0 (DeepSpeed's own words) where NVMe offload is not
    wanted, and the one offered where the family is not known."""
    from gpudoctor.planner.remedy import family
    from gpudoctor.planner.where import python_exe

    failed = _said(facts, "deepspeed-op-precompile-failed")
    warned = _said(facts, "deepspeed-aio-unavailable")
    if not failed and not warned:
        return
    windows = (facts.platform.system or "").lower().startswith("win") or bool(_said(facts, "deepspeed-windows-link-test"))
    tool, package = _LIBAIO_DEV.get(family(facts), ("", ""))
    if not failed:
        yield Finding(
            "extension-not-built",
            Severity.INFO,
            "frameworks",
            "DeepSpeed's async_io op cannot be built here (libaio not found): only NVMe offload needs it",
            "DeepSpeed's op builder found no libaio headers and shared object to build its async_io op with, as the text "
            "shows. async_io serves ZeRO-Infinity's NVMe offload (and DeepNVMe) only; the other ops and training "
            "without NVMe offload are not concerned, and the warning repeats at every start-up. "
            + (
                "libaio does not exist for Windows: NVMe offload needs Linux (WSL 2 included)."
                if windows
                else "Where NVMe offload is wanted, the distribution's libaio development package ("
                + (package or "libaio-dev on Debian and Ubuntu, libaio-devel on Red Hat's family")
                + ") installs it; libaio built elsewhere is named by CFLAGS (-I) and LDFLAGS (-L)."
            ),
            (ev("pasted", warned[0].line),),
        )
        return
    e = failed[0]
    reinstall = _deepspeed_reinstall(facts)
    if windows:
        python = python_exe(facts)
        rem = Remediation(
            "Build DeepSpeed without the ops that cannot be built on Windows, as DeepSpeed's own build_win.bat does "
            "(async_io needs Linux's libaio, gds NVIDIA's cuFile, sparse_attn Triton): set DS_BUILD_AIO=0, DS_BUILD_GDS=0 "
            "and DS_BUILD_SPARSE_ATTN=0 in the shell that runs the install, then run it again. The CUDA ops compile "
            "against the installed torch, which must be a CUDA build (first command).",
            (
                *(
                    ()
                    if isinstance(facts.frameworks.torch, Found) and facts.frameworks.torch.value.cuda
                    else (
                        Cmd(
                            (
                                python,
                                "-c",
                                "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())",
                            ),
                            note="a CUDA build of torch: a '+cpu' version or None is replaced by one before CUDA ops build",
                        ),
                    )
                ),
                *(SetEnv(name, "0") for name in _DS_WINDOWS_OFF),
                reinstall,
            ),
            component="torch",
        )
    else:
        off = Remediation(
            "Build DeepSpeed without async_io (DS_BUILD_AIO=0, DeepSpeed's own advice), where NVMe offload is not used, "
            "and run the install again.",
            (SetEnv("DS_BUILD_AIO", "0"), reinstall),
            component="torch",
        )
        rem = (
            Remediation(
                f"Install libaio's development package ({package}), which async_io builds against, then run the install "
                "again; where NVMe offload is not used, building without async_io does as well.",
                (
                    Cmd(
                        (tool, "install", "-y", package) if tool != "pacman" else (tool, "-S", "--noconfirm", package), root=True
                    ),
                    reinstall,
                ),
                requires_root=True,
                component="torch",
                alternative=off,
            )
            if package
            else off
        )
    yield Finding(
        "extension-not-built",
        Severity.ERROR,
        "frameworks",
        f"DeepSpeed's install stopped: its {e.get('op') or 'async_io'} op cannot be built "
        + ("on Windows" if windows else "without libaio"),
        "DeepSpeed's setup.py was asked to pre-compile every op (DS_BUILD_OPS=1, the default on Windows before 0.15.1) "
        f"and aborted on {e.get('op') or 'async_io'}, which links "
        + (
            "Linux's libaio (gds: NVIDIA's cuFile): neither exists for Windows, so that op is never built there."
            if windows
            else "libaio, whose headers and shared object were not found."
        )
        + " DeepSpeed 0.15.1 and later skip such an op by themselves. The GPU, the driver and the toolkit are not at fault.",
        (ev("pasted", e.line),),
        rem,
    )


def check_build_needs_torch_first(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A package's build that imports torch, run by pip where there is no torch (catalogue.toml:
    pip-legacy-setup-no-torch, pip-isolated-build-no-torch): in the interpreter itself (pip's legacy setup.py path), or
    in pip's isolated build environment, which never holds the environment's torch (flash-attention's README @0251105a:
    "pip install flash-attn --no-build-isolation", after packaging and ninja). On the legacy path, pip prepares every package of a command before it installs any, so a torch listed in
    the same requirements file is not there yet when flash-attn's (mamba-ssm's, causal-conv1d's) setup.py runs. torch
    goes in first, on its own; the package then builds against it with --no-build-isolation (an isolated build would
    fetch a torch of its own, or none). Where the text does not show torch installed, whether it answers is read
    first: which torch (a CUDA build, from PyTorch's index for this GPU) is the reporter's choice the text does not make."""
    from gpudoctor.planner.remedy import pip
    from gpudoctor.planner.where import python_exe

    said = [e for e in _said(facts, "build-needs-torch-first") if e.get("package")]
    if not said:
        return
    e = said[0]
    package = e.get("package") or ""
    isolated = e.get("isolated") == "yes"  # pip's isolated build (pip-isolated-build-no-torch), not its legacy path
    shown = isinstance(facts.frameworks.torch, Found)
    yield Finding(
        "extension-not-built",
        Severity.ERROR,
        "frameworks",
        f"{package} could not be built: its build imports torch, which "
        + ("pip's isolated build environment does not hold" if isolated else "was not installed where pip ran it"),
        (
            f"pip built {package} in its isolated build environment, and its build imports torch to compile its CUDA "
            "extension: that environment holds only the build requirements the package declares, never the torch "
            "installed beside it, as the text shows."
            if isolated
            else f"pip ran {package}'s setup.py, which imports torch to build its CUDA extension, and that interpreter "
            "had no torch, as the traceback shows. pip prepares every package of one command before it installs any, "
            "so a torch listed beside it (in the same requirements file) is not installed yet."
        )
        + " The GPU, the driver and the toolkit are not at fault.",
        (ev("pasted", e.line),),
        Remediation(
            f"Install torch first, on its own (a CUDA build for this GPU), where it is not installed yet; then {package} "
            "with --no-build-isolation, which builds it against that torch (its build tools installed too, such as "
            "packaging and ninja, which flash-attention's README lists); the rest of the requirements after.",
            (
                *(
                    ()
                    if shown
                    else (
                        Cmd(
                            (python_exe(facts), "-c", "import torch; print(torch.__version__, torch.version.cuda)"),
                            note="torch must answer here before the build: where it does not, install it first",
                        ),
                    )
                ),
                pip(facts, "install", "--no-build-isolation", package),
            ),
            component="torch",
        ),
    )


# The driver release that runs CUDA 12.0 (NVIDIA's CUDA toolkit release notes, Table 3: CUDA 12.0 GA >= 525.60.13):
# below it, the cubins CUDA 12's ptxas assembles are refused. Triton's wheels bundle a CUDA 12 ptxas (its
# path_to_ptxas() answering '12.3' in pytorch/pytorch#119054; 2.2.0 on driver 470.57.02 in triton-lang/triton#3001).
_CUDA12_DRIVER = "525.60.13"
_CUDA12 = "12.0"


def check_triton_ptxas_newer_than_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Triton's "device kernel image is invalid" on a driver below CUDA 12: the ptxas Triton bundles is CUDA 12's,
    whose images such a driver cannot load. Pointing Triton at a CUDA 11 ptxas (TRITON_PTXAS_PATH, the toolkit's own)
    makes images the driver loads, once the cache of refused ones is cleared; a driver of the 525 series or newer is
    the other fix. Quiet where the driver runs CUDA 12 (another cause: the cache's kernels from another GPU) or is not
    shown."""
    from gpudoctor.versions import vkey

    said = _said(facts, "triton-image-invalid")
    cuda, driver = facts.driver.cuda_version, facts.driver.version
    if not said or not (cuda or driver):
        return
    if (vkey(cuda) >= vkey(_CUDA12)) if cuda else (vkey(driver or "") >= vkey(_CUDA12_DRIVER)):
        return
    shown = " ".join(x for x in (driver, f"(CUDA {cuda})" if cuda else "") if x)
    yield Finding(
        "toolkit-newer-than-driver",
        Severity.ERROR,
        "toolkit",
        f"Triton's bundled ptxas (CUDA 12) is newer than the driver {shown} can load",
        "Triton assembles each kernel with the ptxas in its wheel, CUDA 12's, and this driver, which runs CUDA 11 at "
        "most, refuses what it makes ('device kernel image is invalid'); the framework's own kernels still run. A "
        "CUDA 11 ptxas makes kernels this driver loads.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Point Triton at a CUDA 11 ptxas, the toolkit's own (its --version must say release 11.x), in the shell "
            "that starts the program, after clearing Triton's cache of the refused kernels. "
            "Or upgrade the host's driver to the 525 series or newer, which loads CUDA 12's kernels.",
            (
                Cmd(("rm", "-rf", "~/.triton/cache"), note="the kernels the driver refused"),
                Cmd(("/usr/local/cuda/bin/ptxas", "--version"), note="release 11.x: its kernels load on this driver"),
                SetEnv("TRITON_PTXAS_PATH", "/usr/local/cuda/bin/ptxas", note="Triton assembles with it from now on"),
            ),
            component="toolkit",
        ),
    )


def check_extension_source_integer_widths(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvcc refusing an extension's own call with a 64-bit integer and a `long` where a template takes one type
    (catalogue.toml: nvcc-template-integer-widths). Under MSVC long is 32 bits (LLP64), so source written where long
    and int64_t are the same type fails on Windows; the build found CUDA and ran nvcc, so neither the toolkit, the
    driver nor torch is at fault. The fix is in the source: both arguments cast to one type (torchvision's pull request
    1485 for the same error), which a newer checkout of the extension may already hold; then a rebuild against the
    torch installed (--no-build-isolation: the build imports it)."""
    from gpudoctor.planner.where import python_exe

    said = _said(facts, "extension-source-integer-widths")
    if not said:
        return
    e = said[0]
    function, types = e.get("function") or "a template", e.get("types") or ""
    windows = (facts.platform.system or "").lower().startswith("win")
    yield Finding(
        "extension-not-built",
        Severity.ERROR,
        "frameworks",
        f"the extension's own source does not compile: {function} is called with ({types}), two integer types where it takes one",
        "nvcc ran and refused the extension's source, as the text shows: the call passes two integer types of "
        + (
            "different width under MSVC, where long is 32 bits (LLP64) while int64_t is long long, so code written "
            "for Linux, where both are 64 bits, does not compile on Windows."
            if windows
            else "different type where the template deduces one."
        )
        + " The toolkit, the driver and torch are not at fault: the source is, and is fixed by casting both arguments "
        "to one type.",
        (ev("pasted", e.line),),
        Remediation(
            "Build a source of the extension that casts both arguments to one type: a newer checkout where its "
            "maintainers fixed it, or the cast made by hand at the line the compiler names; then build it again in the "
            "same environment, against the torch installed.",
            (
                # (typed in the extension's source folder, which the compiler's paths do not always name: a path
                # relative to it, as mmdetection's build printed, names none)
                Cmd(
                    ("git", "pull"),
                    note="in the extension's source folder: a checkout after the fix, else the cast made by hand",
                ),
                Cmd(
                    (python_exe(facts), "-m", "pip", "install", "--no-build-isolation", "--no-cache-dir", "-e", "."),
                    note="in the same folder: rebuilt against the torch installed, in the environment that runs it",
                ),
            ),
            component="torch",
        ),
    )


def check_mmcv_ext_missing(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """mmcv's ops found no compiled extension (catalogue.toml: mmcv-ext-missing): the mmcv installed is a build without
    its CUDA ops (1.x's `mmcv`, 2.x's `mmcv-lite`, or a source build made without MMCV_WITH_OPS). mmcv's own recipe is
    every one of its distributions uninstalled, then the full build alone through OpenMMLab's installer mim, which picks
    the prebuilt wheel made for the installed torch and CUDA (or builds it with its ops), as check_mmcv_packages plans
    for two of them installed (gpudoctor.checks.libraries: open-mmlab/mmcv#1226). Decided with its assumption named
    (issue 27, kind 9) where the text shows which series it is: the version installed (1.x: mmcv-full of it; 2.x: mmcv
    of it), else torch's release (mmcv's wheel table, open-mmlab/mmcv docs/en/_static/version.json @05e84ada: a 2.x
    release is built for torch 1.8 and newer, an older torch only has 2.0.0 release candidates, so there it is the 1.x
    series, mmcv-full; with a torch 2.x it is taken as the 2.x series, the one OpenMMLab's 2.0 packages for it ask
    for, whose `mmcv` carries the ops). Neither shown: the asks
    decide it (the OpenMMLab package that runs chooses the series)."""
    from gpudoctor.checks.libraries import _MMCV_FAMILY, installed_of
    from gpudoctor.planner.remedy import pip
    from gpudoctor.planner.where import python_step
    from gpudoctor.versions import vkey

    said = _said(facts, "mmcv-ext-missing")
    if not said:
        return
    installed = installed_of(facts, _MMCV_FAMILY)
    torch = facts.frameworks.torch.value.version if isinstance(facts.frameworks.torch, Found) else None
    version = next((v for n, v in installed if n in ("mmcv", "mmcv-full") and re.fullmatch(r"\d+(?:\.\d+){1,2}", v)), "")
    # An open-mmlab package's own range for mmcv, from its assertion in the same text (catalogue.toml:
    # mmcv-version-incompatible, "Please install mmcv>=1.2.4, <=1.3."): the full build inside it is what that package runs.
    ranged = next(
        (
            m
            for e in _said(facts, "mmcv-version-incompatible")
            if (m := re.match(r"(\d+(?:\.\d+){1,2}),\s*<=\s*(\d+(?:\.\d+){0,2})\b", e.get("range") or ""))
        ),
        None,
    )
    if ranged is not None and vkey(ranged.group(1)) <= vkey(ranged.group(2)):
        low, high = ranged.group(1), ranged.group(2)
        spec = f"{'mmcv' if vkey(low)[:1] >= (2,) else 'mmcv-full'}>={low},<={high}"
        assumes = f"the newest release from {low} to {high}, the range the open-mmlab package asks for, with its ops"
    elif version:
        spec = f"{'mmcv' if vkey(version)[:1] >= (2,) else 'mmcv-full'}=={version}"
        assumes = f"the mmcv release installed, {version}, with its ops"
    elif any(n == "mmcv-lite" for n, _ in installed) or (torch and vkey(torch)[:1] >= (2,)):
        spec, assumes = "mmcv", "the 2.x series, whose mmcv carries the ops (if pip list shows mmcv 1.x, mmcv-full instead)"
    elif torch and vkey(torch)[:2] < (1, 8):
        spec, assumes = "mmcv-full", f"the 1.x series, the only one for torch {torch}, whose mmcv-full carries the ops"
    else:
        return  # the series is the OpenMMLab package's choice, which the text does not show: the asks decide it
    if not version and ranged is None:
        # the newest of the series: an OpenMMLab package asserting a narrower range says so at its import, and names it
        assumes += ". If the program then asks for another range of mmcv, install a release in it the same way"
    remove = sorted({"mmcv", "mmcv-full", "mmcv-lite"})
    yield Finding(
        "extension-not-built",
        Severity.ERROR,
        "frameworks",
        "the installed mmcv has no compiled ops (mmcv._ext): it is a build without them",
        "mmcv's ops load the compiled extension mmcv._ext, which only its full build carries (1.x: mmcv-full; 2.x: mmcv); "
        "1.x's `mmcv` and 2.x's `mmcv-lite` are built without it, as is a source build made without MMCV_WITH_OPS. The "
        "GPU, the driver and torch are not at fault.",
        (ev("pasted", said[0].line),),
        Remediation(
            f"Uninstall every mmcv distribution (they share one package directory), then install {spec} alone with "
            "OpenMMLab's installer mim, which picks the prebuilt wheel made for the installed torch and CUDA, in the "
            f"interpreter that runs the program (mmcv's own recipe). Assumes {assumes}.",
            (
                pip(facts, "uninstall", "-y", *remove),
                pip(facts, "install", "-U", "openmim"),
                dataclasses.replace(
                    python_step(facts, "-m", "mim", "install", spec),
                    note=f"assumes {assumes}",
                ),
                dataclasses.replace(
                    python_step(facts, "-c", "import mmcv, mmcv.ops; print(mmcv.__version__)"),
                    note="its compiled ops import",
                ),
            ),
            component="torch",
        ),
    )


# A pip install the reporter typed, as the REPORTER_COMMAND cue holds it: its arguments after "install".
_PIP_INSTALL_TYPED = re.compile(r"^(?:\S*python\S*\s+-m\s+)?(?:\S*/)?pip3?\s+install\s+(?P<args>[^|;&<>\n]{1,400})$")


def check_isolated_build_other_torch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """torch.utils.cpp_extension's "The detected CUDA version (X) mismatches the version that was used to compile
    PyTorch (Y)" where the installed torch's own tag names another CUDA major than Y (the cue ISOLATED_BUILD_TORCH,
    gpudoctor.pasted.isolated_build): the build imported the torch pip's isolated build environment installed for the
    package's build requirement (from the default index, its release's default CUDA variant), not the installed one.
    Neither the toolkit nor the installed torch is to move when nvcc is of the installed torch's CUDA major: the build
    goes again with --no-build-isolation, against the installed torch (vLLM's own source-build instructions for an
    existing torch, and flash-attention's README, say the same: build tools installed first, then
    --no-build-isolation)."""
    from gpudoctor.facts import ISOLATED_BUILD_TORCH, REPORTER_COMMAND
    from gpudoctor.planner.remedy import pip
    from gpudoctor.planner.where import python_exe
    from gpudoctor.versions import vkey

    cue = next((c for c in facts.pasted.cues if c.get("cue") == ISOLATED_BUILD_TORCH), None) if facts.pasted.partial else None
    if cue is None:
        return
    own, _, theirs = (cue.get("means") or "").partition("|")
    torch = facts.frameworks.torch
    version = torch.value.version if isinstance(torch, Found) else "?"
    nvcc = facts.toolkits.nvcc_on_path_version or ""
    # nvcc of another major than the installed torch too: the toolkit is also to move, which the toolkit's own check
    # says; the isolated torch is still the one the message named
    nvcc_fits = not nvcc or vkey(nvcc)[:1] == vkey(own)[:1]
    typed = next(
        (
            m.group("args").split()
            for c in facts.pasted.cues
            if c.get("cue") == REPORTER_COMMAND
            if (m := _PIP_INSTALL_TYPED.match((c.get("means") or "").strip()))
        ),
        None,
    )
    args = [a for a in typed if a != "--no-build-isolation"] if typed else ["-e", "."]
    if not any(a in ("-e", "--editable") or not a.startswith("-") for a in args):
        args = ["-e", "."]
    rebuild = pip(facts, "install", "--no-build-isolation", *args)
    rebuild = dataclasses.replace(
        rebuild,
        note="in the package's source folder where it builds from a checkout: the build now imports the installed torch",
    )
    yield Finding(
        "extension-not-built",
        Severity.ERROR,
        "frameworks",
        f"the build compiled against another torch (CUDA {theirs}) than the installed {version} (CUDA {own})",
        f"torch.utils.cpp_extension compared nvcc with the torch the build imported, built for CUDA {theirs}; the torch "
        f"installed is the CUDA {own} build. pip builds a package in an isolated environment and installs the "
        "package's build requirement torch there from the default index (that release's default CUDA build), never "
        "the torch installed beside it, so reinstalling the installed torch changes nothing."
        + (
            f" nvcc {nvcc} is of the installed torch's CUDA major: neither it nor the NVIDIA driver is at fault."
            if nvcc and nvcc_fits
            else ""
        ),
        (ev("pasted", cue.get("line") or ""),),
        Remediation(
            "Build against the installed torch: install the package's build tools in this environment (the ones its "
            "pyproject.toml lists under build-system requires, other than torch: setuptools, wheel, packaging and "
            "ninja for most), then run the same install with --no-build-isolation.",
            (
                Cmd(
                    (python_exe(facts), "-c", "import torch; print(torch.__version__, torch.version.cuda)"),
                    note=f"the torch the build will use: the CUDA {own} build",
                ),
                pip(facts, "install", "setuptools", "wheel", "packaging", "ninja"),
                rebuild,
            ),
            component="torch",
        ),
    )
