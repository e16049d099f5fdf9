"""Catalogued messages of the compilers: PTX newer than the driver (ptxas, the toolchain, Triton's own ptxas), nvcc
refusing an architecture, a host compiler newer than the toolkit supports.

Each message names what was refused (the PTX ISA, the architecture, the host compiler), so the finding reads it
and judges it against the release that compiled or loads it (the nvcc, the driver, Triton's ptxas) the text shows.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.versions import vkey

TYPE_CHECKING = False
if TYPE_CHECKING:  # (types only: a bare check imports neither the matrix package nor the architecture reader)
    from gpudoctor.matrix.records import CcTarget
    from gpudoctor.parsers.arch_flags import ArchRefusal


def check_ptxas_messages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """What ptxas said: PTX newer than the driver's JIT loads, or an architecture the ptxas Triton ran does not know."""
    yield from check_ptx_newer_than_driver(facts, ctx)
    yield from check_ptx_toolchain_newer_than_driver(facts, ctx)
    yield from check_triton_ptxas_arch(facts, ctx)


def check_ptx_toolchain_newer_than_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA error 222 ("the provided PTX was compiled with an unsupported toolchain") beside the driver and the nvcc
    that built the program, both shown: PTX written by a compiler of a newer CUDA than the driver's cannot be JIT-
    compiled by it, minor version compatibility or not (NVIDIA's CUDA Compatibility guide: PTX JIT needs a driver of at
    least the toolkit's version). The driver goes up to the compiler's CUDA, or the program is built with a toolkit no
    newer than the driver's."""
    from gpudoctor.checks.frameworks import _driver_upgrade
    from gpudoctor.checks.toolkit import check_newer_than_driver, os_name

    said = _said(facts, "cuda-unsupported-ptx")
    d, nvcc = facts.driver, facts.toolkits.nvcc_on_path_version
    # (the driver's CUDA as nvidia-smi heads it, else its branch's by the compatibility matrix: a version said alone)
    driver_cuda = (d.cuda_version or ctx.matrix.smi_cuda_for_driver(d.version)) if d.version else None
    if not said or not d.version or not driver_cuda or not nvcc:
        return
    built = ".".join(nvcc.split(".")[:2])
    if vkey(built) <= vkey(driver_cuda):
        return  # a compiler no newer than the driver: something else wrote the PTX (a prebuilt binary's own)
    if any(f.severity >= Severity.ERROR for f in check_newer_than_driver(facts, ctx)):
        return  # the toolkit's own check says it already
    verdict = ctx.matrix.driver_supports_cuda(d.version, built, os_name(facts))
    needed = ctx.matrix.min_driver_for_cuda(built, os_name(facts)) or verdict.needed
    if needed is None:
        return
    upgrade = _driver_upgrade(facts, ctx, needed)
    yield Finding(
        "toolkit-newer-than-driver",
        Severity.ERROR,
        "toolkit",
        f"the program was built by nvcc of CUDA {built}; the driver {d.version} JIT-compiles PTX only up to CUDA {driver_cuda}",
        f"CUDA error 222 said so: the PTX in the program was written by the CUDA {built} compiler, and the driver "
        f"{d.version} (CUDA {driver_cuda}) cannot JIT-compile PTX newer than its own CUDA. Minor version "
        "compatibility lets the runtime start on this driver, but not PTX: the first kernel launched fails.",
        (ev("pasted", said[0].line), ev("pasted", f"nvcc: CUDA {nvcc}"), ev("pasted", f"driver {d.version}")),
        dataclasses.replace(
            upgrade,
            alternative=Remediation(
                f"Keep the driver and rebuild the program with a CUDA toolkit no newer than {driver_cuda} (its nvcc "
                "first on PATH, CUDA_HOME at it), or for the GPU's own compute capability only (real code, no PTX to "
                "JIT-compile: CMAKE_CUDA_ARCHITECTURES=<cc>-real, nvcc -arch=sm_<cc>).",
                (),
                component="toolkit",
            ),
        ),
        verdict.source,
    )


def check_triton_ptxas_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Triton compiles with the ptxas it ships (triton/backends/nvidia/bin) unless TRITON_PTXAS_PATH names another
    (triton-lang/triton python/triton/knobs.py @689edabd, env_nvidia_tool: the variable TRITON_{binary}_PATH, the default
    beside the package). A GPU newer than that ptxas (`Value 'sm_121a' is not defined for option 'gpu-name'`) is
    compiled for by an installed toolkit's ptxas of a CUDA release that knows it: Triton is pointed at that one."""
    said, triton = _said(facts, "ptxas-arch-unknown"), _said(facts, "triton-ptxas-failed")
    if not said or not triton:
        return  # another program's ptxas (an old toolkit's nvcc): not Triton's copy
    arch = said[0].get("arch") or ""
    roots = sorted((t for t in facts.toolkits.toolkits if t.version), key=lambda t: vkey(t.version or ""))
    ptxas = posixpath.join(roots[-1].root if roots else "/usr/local/cuda", "bin", "ptxas")
    yield Finding(
        "toolkit-arch-unsupported",
        Severity.ERROR,
        "toolkit",
        f"the ptxas Triton ships does not know {arch}, the GPU's architecture",
        f"ptxas said `Value '{arch}' is not defined for option 'gpu-name'` while Triton compiled a kernel: the ptxas in "
        f"Triton's package (triton/backends/nvidia/bin) is of a CUDA release older than the GPU. A toolkit's ptxas of a "
        f"release that knows {arch} compiles it; Triton uses the one TRITON_PTXAS_PATH names.",
        tuple(ev("pasted", e.line) for e in (said[0], triton[0])),
        Remediation(
            f"Point Triton at the installed toolkit's ptxas ({ptxas}) once its --version reports a CUDA release that "
            f"knows {arch} (`ptxas --help` lists the architectures it accepts); nothing is reinstalled.",
            (
                Cmd((ptxas, "--version"), note=f"a release that knows {arch}"),
                SetEnv("TRITON_PTXAS_PATH", ptxas, note="Triton compiles with this ptxas instead of its own"),
            ),
            component="toolkit",
        ),
    )


def check_host_compiler(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvcc's host-compiler check (crt/host_config.h, an #error per compiler whose limits each CUDA release moves) refusing
    the build's gcc, clang or MSVC: the message itself names the limit of the nvcc that compiled (CUDA 12.6's copy: gcc up
    to 13, clang below 19, _MSC_VER 1910 to 1949). A host compiler inside the limit, named to nvcc, or a CUDA release that
    accepts this one, fixes it; -allow-unsupported-compiler only skips the check."""
    from gpudoctor.checks.toolkit import active_toolkit, nvcc_only_toolkit

    said = _said(facts, "nvcc-host-compiler-unsupported")
    if not said:
        return
    e = said[0]
    tk = active_toolkit(facts) or nvcc_only_toolkit(facts)
    release = f"CUDA {tk.version}'s nvcc" if tk is not None and tk.version else "the nvcc that compiled"
    skip = (
        " The nvcc flag -allow-unsupported-compiler skips the check instead, at your own risk (the message says the build "
        "may then fail or run incorrectly)."
    )
    if compiler := e.get("compiler"):
        # torch.utils.cpp_extension's own table, checked before nvcc runs (it passes CC to nvcc as -ccbin)
        bound = e.get("bound") or ""
        title = f"PyTorch's extension build refuses {compiler} {e.get('host_version') or ''} for CUDA {e.get('cuda') or ''}" + (
            f": it accepts {bound}" if bound else ""
        )
        fix = (
            "Build with a gcc inside that range: install it beside the system's gcc where it is missing and name it for the "
            "build with CC and CXX (torch.utils.cpp_extension passes CC to nvcc as -ccbin), or use a CUDA toolkit of "
            "PyTorch's CUDA major that accepts this gcc. TORCH_DONT_CHECK_COMPILER_ABI=1 skips PyTorch's check, not nvcc's."
        )
    elif host := e.get("host"):
        title = f"{release} refuses the host compiler {host} (version {e.get('host_version') or '?'})"
        fix = (
            "Build with a host compiler this CUDA release accepts (nvcc -ccbin; CMake projects read CUDAHOSTCXX), or use "
            "a CUDA release that accepts this one."
        )
    elif gcc := e.get("gcc_max"):
        from gpudoctor.facts import SETUPTOOLS_NVCC

        title = f"{release} refuses the host gcc: it accepts gcc {gcc} and older"
        # a Python package's build names its compilers by CC and CXX (torch.utils.cpp_extension: CC to nvcc as -ccbin)
        named = (
            f"CC=gcc-{gcc} CXX=g++-{gcc} for the rerun of the same pip install, which PyTorch's extension build hands to nvcc"
            if any(c.get("cue") == SETUPTOOLS_NVCC for c in facts.pasted.cues)
            else f"nvcc -ccbin g++-{gcc}; CMake projects read CUDAHOSTCXX"
        )
        fix = (
            f"Build with a gcc of version {gcc} or older as nvcc's host compiler ({named}), installing it beside the "
            "system's gcc where it is missing, or use a CUDA release that accepts this gcc (a newer toolkit; for a PyTorch "
            "extension, of PyTorch's CUDA major)." + skip
        )
    elif clang := e.get("clang_below"):
        title = f"{release} refuses the host clang: it accepts clang below {clang}"
        fix = (
            f"Build with a clang older than {clang} (or a gcc this release accepts) as nvcc's host compiler (nvcc -ccbin; "
            "CMake projects read CUDAHOSTCXX), or use a CUDA release that accepts this clang." + skip
        )
    else:
        title = f"{release} refuses the Visual Studio (MSVC) toolset that compiles: it accepts {e.get('supported') or 'others'}"
        fix = (
            "Install an MSVC toolset this CUDA release accepts beside the current one (Visual Studio Installer, Individual "
            "components: an older MSVC v143 build tools version) and build from a prompt set up for it (vcvars64.bat "
            "-vcvars_ver=<that version>), or use a CUDA release that accepts the installed toolset (the toolkit alone; for "
            "a PyTorch extension, of PyTorch's CUDA major)." + skip
        )
    yield Finding(
        "host-compiler-unsupported",
        Severity.ERROR,
        "toolkit",
        title,
        "nvcc checks the host compiler's version before it compiles anything (crt/host_config.h): each CUDA release "
        "accepts a range of gcc, clang and MSVC versions, and this build's compiler is outside it. The GPU, the driver and "
        "the framework are not involved.",
        (ev("pasted", e.line),),
        Remediation(fix, _older_gcc_steps(facts, e.get("gcc_max") or ""), component="toolkit"),
    )


def _older_gcc_steps(facts: Facts, gcc: str) -> tuple:
    """The commands of nvcc's gcc limit where they are known: which gcc-N are installed, the distribution's gcc-N and
    g++-N where it is a Debian one (their package names, as Debian and Ubuntu ship one per major), and for a Python
    package's build (setuptools ran nvcc: SETUPTOOLS_NVCC) CC and CXX set for the rerun of the same install in this
    shell, which torch.utils.cpp_extension hands to nvcc as -ccbin (pytorch/pytorch torch/utils/cpp_extension.py
    @26e79290, unix_cuda_flags: _ccbin = os.getenv("CC") ... cflags.extend(["-ccbin", _ccbin])). () for another host
    compiler, on Windows, or where neither is known (the asks decide it)."""
    from gpudoctor.facts import SETUPTOOLS_NVCC
    from gpudoctor.planner.remedy import apt_install, family, reporters_pip_install

    debian = family(facts) == "debian"
    python_build = any(c.get("cue") == SETUPTOOLS_NVCC for c in facts.pasted.cues)
    if not gcc.isdigit() or (facts.platform.system or "").lower().startswith("win") or not (debian or python_build):
        return ()  # nothing the asks do not already decide
    steps: list = [Cmd(("ls", "/usr/bin"), pipe=("grep", "-E", "^g(cc|\\+\\+)-[0-9]+$"), note=f"gcc-{gcc} or older there?")]
    if debian:
        steps += apt_install(f"gcc-{gcc}", f"g++-{gcc}")
    if python_build:
        # the reporter's own install run again where the text shows it (planner.remedy.reporters_pip_install), not
        # left as a comment (issue 27, kind 9: plans10 1032)
        rerun = reporters_pip_install(facts)
        steps += [
            SetEnv("CC", f"gcc-{gcc}", note="torch.utils.cpp_extension passes CC to nvcc as -ccbin"),
            SetEnv(
                "CXX",
                f"g++-{gcc}",
                note="" if rerun else "then rerun the same pip install in this shell, with the same python",
            ),
            *((rerun,) if rerun else ()),
        ]
    return tuple(steps)


def _refusal(facts: Facts):
    """The compiler's refusal of an architecture the text shows, typed (parsers.arch_flags): nvcc's, or ptxas's where it
    is a toolkit's (Triton's own ptxas is check_triton_ptxas_arch's), with its catalogue entry; (None, None) where none."""
    from gpudoctor.parsers.arch_flags import read_refusal

    said = _said(facts, "nvcc-arch-unsupported")
    # (Triton compiles with the ptxas it ships: a ptxas refusal among Triton's errors or paths is that copy's, whatever
    # the toolkit; tests/blind/plans6/cases/501-*)
    errors = facts.pasted.errors if facts.pasted.partial else ()
    if not any(e.kind.startswith("triton") or "triton" in e.line.lower() for e in errors):
        said = said + _said(facts, "ptxas-arch-unknown")
    for e in said:
        refusal = read_refusal(e.line)
        if refusal is not None and refusal.arch.cc is not None:
            return e, refusal
    return None, None


def check_nvcc_arch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvcc (or a toolkit's ptxas) refusing the architecture a build asked for ("Unsupported gpu architecture
    'compute_86'", "Value 'sm_89' is not defined for option 'gpu-architecture'"), judged against the release the text
    shows: each architecture, its lettered variants (sm_90a, sm_120f) included, has the CUDA releases that compile for it
    (compat_matrix gpu_arch.toml cc: first_cuda or a_first_cuda / f_first_cuda, last_cuda). A release older than the
    first needs a newer toolkit; one past the last dropped it (the build's list names it); one that compiles it is
    not the nvcc that ran: two toolkits, and which one the build finds is asked, never a reinstall."""
    from gpudoctor.checks.reported import check_stated_cuda_arch
    from gpudoctor.checks.toolkit import active_toolkit, check_arch, nvcc_only_toolkit

    said, refusal = _refusal(facts)
    if said is None or refusal is None:
        return
    tk = active_toolkit(facts) or nvcc_only_toolkit(facts)
    target = ctx.matrix.cc_target(refusal.arch.cc or "")
    first = target.first_for(refusal.arch.suffix) if target is not None else None
    if target is None or (refusal.arch.suffix and first is None):
        return  # an architecture (or a variant: sm_86a) no CUDA release has: not judged against one
    arch, cc = refusal.arch.text, target.cc
    stated = [e for e in _said(facts, "cuda-version-said") if e.get("cuda")]
    if tk is None or not tk.version:
        if stated and _compiles(ctx, stated[-1].get("cuda") or "", first, target.last_cuda):
            yield _two_toolkits(facts, said, refusal, target, first, stated[-1].get("cuda") or "", stated[-1].line)
        elif tk is None and not stated:
            yield from _nvcc_older_than_arch(facts, ctx, said, refusal, target, first)
        return
    if any(True for _ in check_arch(facts, ctx)) or any(True for _ in check_stated_cuda_arch(facts, ctx)):
        return  # the GPU is shown: the toolkit's own check names it (one finding per cause)
    cuda = ".".join(tk.version.split(".")[:2])
    if _compiles(ctx, cuda, first, target.last_cuda):
        yield _two_toolkits(facts, said, refusal, target, first, cuda, f"nvcc: CUDA {tk.version}", tk.root)
        return
    sm = cc.replace(".", "")
    if first and vkey(cuda) < vkey(first):
        title = f"nvcc of CUDA {cuda} cannot compile for {arch} (compute capability {cc}: CUDA {first} or newer)"
        why = (
            f"{refusal.by} refused {arch}: the toolkit that compiles is CUDA {cuda}, older than the architecture, which "
            f"CUDA {first} introduced. A toolkit of CUDA {first} or newer compiles for it (for a PyTorch extension, of "
            "the same CUDA major as the installed PyTorch's)."
        )
        fix = (
            f"Install a CUDA {first} or newer toolkit (the toolkit alone, no driver change) and build with its "
            "nvcc (PATH, or CUDA_HOME for a PyTorch extension); `nvcc --list-gpu-arch` then lists "
            f"compute_{sm}{refusal.arch.suffix}."
        )
    elif target.last_cuda and vkey(cuda) > vkey(target.last_cuda):
        title = f"nvcc of CUDA {cuda} no longer compiles for {arch} (compute capability {cc}: up to CUDA {target.last_cuda})"
        why = (
            f"{refusal.by} refused {arch}: CUDA {cuda} dropped that architecture (the last release that compiles for it "
            f"is {target.last_cuda}). The build's architecture list names it (a project's -arch, "
            "CMAKE_CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST), usually a default older than the toolkit."
        )
        fix = (
            f"Take {arch} out of the build's architecture list and build for the GPU's own compute capability "
            "(`nvidia-smi --query-gpu=compute_cap --format=csv`); only a GPU of compute capability "
            f"{cc} itself needs a toolkit of CUDA {target.last_cuda} or older."
        )
    else:
        return
    yield Finding(
        "toolkit-arch-unsupported",
        Severity.ERROR,
        "toolkit",
        title,
        why,
        (ev("pasted", said.line), ev("pasted", f"nvcc: CUDA {tk.version}")),
        Remediation(fix, component="toolkit"),
        target.source,
    )


def _compiles(ctx: Context, cuda: str, first: str | None, last: str | None) -> bool:
    """Whether CUDA `cuda` (a release the matrix knows) compiles an architecture of releases `first` to `last`."""
    if ctx.matrix.cuda_can_target(cuda, "9.0") is None:
        return False  # (not a CUDA release the matrix knows: "CUDA 1.2" of a paste is no evidence)
    return (not first or vkey(cuda) >= vkey(first)) and (not last or vkey(cuda) <= vkey(last))


def _two_toolkits(
    facts: Facts, said, refusal: ArchRefusal, target: CcTarget, first: str | None, cuda: str, shown: str, root: str | None = None
) -> Finding:
    """The text shows CUDA `cuda`, which compiles the refused architecture: the compiler that refused it is another,
    older one the build found first (an nvcc earlier on PATH, a distribution's nvidia-cuda-toolkit in /usr/bin, the
    nvcc CMake cached as CMAKE_CUDA_COMPILER at the first configure, CUDA_HOME for a PyTorch extension). What decides
    it is which nvcc the build runs; another install of the same toolkit changes nothing."""
    windows = (facts.platform.system or "").lower().startswith("win")
    arch = refusal.arch.text
    cache_grep = (
        Cmd(("findstr", "CMAKE_CUDA_COMPILER", "CMakeCache.txt"), note="in the build folder: the nvcc CMake cached")
        if windows
        else Cmd(("grep", "CMAKE_CUDA_COMPILER", "CMakeCache.txt"), note="in the build folder: the nvcc CMake cached")
    )
    # (the compiler's path where the text shows the toolkit's folder; else its name, as a placeholder would read)
    nvcc = f"{root.rstrip('/')}/bin/nvcc" if root and not windows else "<its bin folder>/nvcc" + (".exe" if windows else "")
    return Finding(
        "toolkit-arch-unsupported",
        Severity.ERROR if root else Severity.WARNING,  # (a stated release may be the driver's: the asks tell)
        "toolkit",
        f"{refusal.by} refused {arch}, which CUDA {cuda} ({'shown' if root else 'stated'}) compiles: the build ran "
        f"another, older CUDA's {refusal.by}",
        f"Every CUDA release from {first or '8.0'} on compiles for {arch} (compute capability {target.cc}), and the "
        f"text {'shows' if root else 'states'} CUDA {cuda}"
        + ("" if root else " (a form's CUDA may be the driver's; the asks tell)")
        + f"; so the {refusal.by} that refused it is of another, older toolkit the build found "
        "first: an nvcc earlier on PATH (a distribution's nvidia-cuda-toolkit in /usr/bin), the compiler CMake cached "
        "as CMAKE_CUDA_COMPILER at the first configure, or CUDA_HOME for a PyTorch extension. Installing CUDA "
        f"{cuda} again changes nothing.",
        (ev("pasted", said.line), ev("pasted", shown)),
        Remediation(
            f"Find the nvcc the build runs (every nvcc on PATH, and the one CMake cached); then build with CUDA {cuda}'s: "
            f"its bin folder first on PATH, or (CMake) configure an empty build folder with -DCMAKE_CUDA_COMPILER={nvcc}.",
            (
                Cmd(("where", "nvcc") if windows else ("which", "-a", "nvcc"), note="every nvcc on PATH, in order"),
                Cmd(
                    ("nvcc", "--version"),
                    note=f"the first on PATH: older than {first} if it is the one that ran" if first else "the first on PATH",
                ),
                cache_grep,
            ),
            component="toolkit",
        ),
        target.source,
    )


def _nvcc_older_than_arch(
    facts: Facts, ctx: Context, said, refusal: ArchRefusal, target: CcTarget, first: str | None
) -> Iterable[Finding]:
    """nvcc refused an architecture that every CUDA release since its first still compiles for (gpu_arch.toml: a
    first release for the variant named, and no last_cuda: compute_120 from CUDA 12.8, compute_120a from 12.8,
    compute_121f from 12.9), and the text shows neither a toolkit nor a stated CUDA release: the nvcc that ran is
    older than that first release, whatever else is installed (plans16 1655). A stated release is _two_toolkits's or
    nothing (plans10 1016: "CUDA9.0" beside compute_70, which 9.0 compiles). The toolkit is installed for the platform
    the text shows: NVIDIA's package of the distribution (cuda-toolkit-X-Y) with this shell's PATH on Linux, NVIDIA's
    installer on Windows; then the build is configured again in an empty folder (CMake keeps the compiler it found
    first in its cache), with the options of the configure the text shows."""
    from gpudoctor.checks.toolkit import _use_commands, os_name, toolkit_install

    arch, cc = refusal.arch.text, target.cc
    if not first or target.last_cuda:
        return
    windows = (facts.platform.system or "").lower().startswith("win")
    install: tuple = ()
    if os_name(facts) == "linux":
        got = toolkit_install(facts, ctx.matrix, first)
        install = got.commands + (_use_commands(facts, first, None)[0] if got.commands else ())
    yield Finding(
        "toolkit-arch-unsupported",
        Severity.ERROR,
        "toolkit",
        f"the nvcc that compiles is older than CUDA {first}, the first release that compiles for {arch} (compute "
        f"capability {cc})",
        f"{refusal.by} refused {arch}, as the text shows: every CUDA toolkit from {first} on compiles for it, so the "
        f"{refusal.by} the build ran is of an older CUDA. A fresh build folder does not change that; a toolkit of "
        f"CUDA {first} or newer does (the driver of a GPU of compute capability {cc} already supports it).",
        (ev("pasted", said.line),),
        Remediation(
            f"Check the release of the nvcc the build finds; install a CUDA {first} or newer toolkit (the toolkit "
            + (
                "alone, no driver change: NVIDIA's Windows installer, with its Visual Studio integration"
                if windows
                else "alone, no driver change"
            )
            + "), open a new shell so that its nvcc comes first on PATH, and configure the build again in an empty "
            "build folder (CMake keeps the compiler it found first in its cache).",
            (
                Cmd(("nvcc", "--version"), note=f"older than {first} here"),
                Cmd(("where", "nvcc") if windows else ("which", "-a", "nvcc"), note="every nvcc on PATH, in order"),
                *install,
                *_reconfigure(facts, first),
            ),
            component="toolkit",
        ),
        target.source,
    )


def _reconfigure(facts: Facts, cuda: str) -> tuple:
    """The build configured again in a new, empty folder with the options of the CMake configure the text shows
    (builds._configure_options: none where it shows none, or not as a plain command), then built: the first configure
    of a folder finds the nvcc and caches it (CMAKE_CUDA_COMPILER), so the old folder keeps the old compiler."""
    from gpudoctor.checks.catalogued.builds import _configure_options

    configures = _said(facts, "cmake-configure-said")
    options = _configure_options(configures[0].get("args") or "", facts.platform.system) if configures else None
    if not options:
        return ()
    folder = "build-cuda" + cuda.replace(".", "")
    return (
        Cmd(
            ("cmake", "-B", folder, *(f"-D{o}" for o in options)),
            note="in the source folder, from a new shell: a new build folder",
        ),
        Cmd(("cmake", "--build", folder, "--config", "Release")),
    )


def check_ptx_newer_than_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The driver's JIT (ptxas in libcuda, or nvJitLink) refusing PTX of a newer ISA than it loads: "Unsupported .version
    8.7; current version is '8.4'". Each PTX ISA belongs to a CUDA release (compat_matrix/cuda_driver.toml ptx, NVIDIA's
    PTX release history): the program compiled with CUDA 12.8's compiler for a driver of CUDA 12.4. Either the driver
    goes up to the compiler's CUDA, or the program compiles with a toolkit no newer than the driver's."""
    from gpudoctor.checks.frameworks import _driver_upgrade
    from gpudoctor.checks.toolkit import os_name
    from gpudoctor.versions import vkey

    said = _said(facts, "ptx-newer-than-driver")
    if not said:
        return
    e = said[0]
    wrote, loads = ctx.matrix.ptx_isa(e.get("ptx") or ""), ctx.matrix.ptx_isa(e.get("loads") or "")
    if wrote is None or loads is None or vkey(wrote.cuda) <= vkey(loads.cuda):
        return
    # The driver that loads the compiler's PTX: its toolkit's driver, else (12.7, no toolkit) the first branch reporting it.
    needed = ctx.matrix.min_driver_for_cuda(wrote.cuda, os_name(facts)) or next(
        (f"R{b.branch}" for b in ctx.matrix.driver_branches if vkey(b.cuda) >= vkey(wrote.cuda)), None
    )
    if needed is None:
        return
    d = facts.driver
    upgrade = _driver_upgrade(facts, ctx, needed)
    yield Finding(
        "toolkit-newer-than-driver",
        Severity.ERROR,
        "toolkit",
        f"the program compiles PTX with CUDA {wrote.cuda} (ISA {wrote.ptx}); the driver's JIT loads PTX up to CUDA "
        f"{loads.cuda} (ISA {loads.ptx})",
        f"ptxas said so: the PTX the program generated is ISA {wrote.ptx}, written by a CUDA {wrote.cuda} compiler (the "
        "toolkit's NVVM or NVRTC the program found), and the driver"
        + (f" {d.version}" if d.version else "")
        + f" JIT-compiles PTX only up to ISA {loads.ptx} (CUDA {loads.cuda}). The toolkit the program compiles with is "
        "newer than the driver: kernels it compiles at run time cannot load.",
        (ev("pasted", e.line),),
        _conda_toolkit_first(facts, wrote.cuda, loads.cuda, upgrade)
        or dataclasses.replace(
            upgrade,
            alternative=Remediation(
                f"Compile with a CUDA toolkit no newer than {loads.cuda}, the driver's: point CUDA_HOME (or the "
                f"environment's CUDA packages, e.g. conda's cuda-version={loads.cuda}) at one, so that the program's "
                "compiler writes PTX this driver loads.",
                (),
                component="toolkit",
            ),
        ),
        wrote.source,
    )


def _conda_toolkit_first(facts: Facts, wrote: str, loads: str, upgrade: Remediation) -> Remediation | None:
    """In a conda environment, the cheaper fix first: the environment's CUDA packages taken back to the driver's CUDA,
    by the user, with no driver change and no reboot; the driver upgrade stays beside it (`alternative`). A program
    compiling kernels at run time in a conda environment takes the environment's compiler before CUDA_HOME's and the
    system's (numba/numba numba/cuda/cuda_paths.py @5340f052: _get_nvvm_path_decision lists 'Conda environment' first),
    so the PTX follows the package: cudatoolkit up to CUDA 11 (one package held the NVVM then), and for 12 the
    cuda-version metapackage, which holds the environment's cuda-* packages (cuda-nvcc, cuda-nvrtc) to its release
    (conda-forge/cuda-version-feedstock). A constraint below the driver's next minor, not one release: conda takes the
    newest package it has under it (CUDA 9.1's driver gets cudatoolkit 9.0 where no 9.1 package exists). None outside
    a conda environment, and where the two CUDA releases straddle 12 (the packages change names there: the
    environment is rebuilt, not pinned)."""
    from gpudoctor.planner.where import conda

    if not conda(facts):
        return None
    major, _, minor = loads.partition(".")
    if not (major.isdigit() and minor.isdigit()) or (int(major) >= 12) != (vkey(wrote) >= vkey("12")):
        return None
    package = "cuda-version" if int(major) >= 12 else "cudatoolkit"
    below = f"{major}.{int(minor) + 1}"
    return Remediation(
        f"In the conda environment the program runs in (activated), take its CUDA packages back to CUDA {loads} or "
        f"older, the driver's: the program compiles its kernels with the environment's own CUDA {wrote} compiler, so "
        "its PTX then loads on this driver, with no driver change and no reboot. Then run the program again.",
        (
            Cmd(("conda", "list", package), note=f"the {package} the environment holds now: CUDA {wrote}"),
            Cmd(("conda", "install", f"{package}<{below}"), note=f"the newest {package} conda has below {below}"),
        ),
        component="toolkit",
        alternative=upgrade,
    )
