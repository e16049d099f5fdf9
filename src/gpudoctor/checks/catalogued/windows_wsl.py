"""Catalogued messages of Windows and WSL: the TDR launch timeout, the paging file's commit limit, Triton and
libcuda on Windows and in WSL, CUDA_PATH naming a folder that is not there. (A GPU in TCC mode, live or from a
pasted Windows table, is gpudoctor.checks.windows' one check.)

Each is how Windows (or WSL's bridge to it) runs the GPU or finds its files: the driver model, the watchdog, the
commit limit, the folders of the toolkit and of libcuda; the fix is Windows' setting or where the program looks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import CUDA13_WINDOWS_TOOLKIT, Facts
from gpudoctor.lazypattern import LazyPattern  # compiled at first use: a bare check reads no paste
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.planner.remedy import library_dir, reboot

# Windows' display watchdog (Timeout Detection and Recovery) and the registry value that sets its limit: TdrDelay, in
# seconds, 2 by default, read at boot (MicrosoftDocs/windows-driver-docs, windows-driver-docs-pr/display/
# tdr-registry-keys.md @0af547090d0a2d8ad2b0d19794cdfe0769e03cb6: "This is effectively the timeout threshold. The
# default value is 2 seconds.").
_TDR_KEY = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers"


_TDR_SECONDS = "60"  # long enough for a model's longest kernels, short enough that a hung GPU still recovers


def check_windows_launch_timeout(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """cudaErrorLaunchTimeout on Windows: a GPU under the WDDM driver model (every GeForce, and a vGPU guest's) is a
    display adapter to Windows, whose watchdog resets it when one kernel runs past TdrDelay; the CUDA stack itself
    worked (it launched the kernel). Raising TdrDelay, then a restart, lets the kernel finish; nothing needs
    reinstalling. A GPU in TCC mode has no watchdog, but the text would then not print this. WSL 2 shares Windows'
    driver and its watchdog, yet its reports are judged elsewhere: only a Windows report is read here."""
    said = _said(facts, "cuda-launch-timeout")
    if not said or facts.platform.wsl or not (facts.platform.system or "").lower().startswith("win"):
        return
    yield Finding(
        "windows-tdr-timeout",
        Severity.ERROR,
        "driver",
        "Windows' display watchdog (TDR) stopped a CUDA kernel that ran longer than its limit",
        "The launch timed out and was terminated: on Windows a GPU under the WDDM driver model is a display adapter, "
        "and Windows resets it when one kernel runs longer than TdrDelay (2 seconds unless the registry says "
        "otherwise). The driver and the program's CUDA libraries work; the kernel was stopped, not refused. "
        "Reinstalling the driver or CUDA changes nothing.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Read the GPU's driver model and the watchdog's limit, raise the limit (as administrator), then restart "
            "Windows, which reads it at boot; run the same program again. An absent TdrDelay is the 2-second default.",
            (
                Cmd(
                    ("nvidia-smi", "--query-gpu=name,driver_model.current,display_active", "--format=csv"),
                    note="WDDM: the watchdog applies",
                ),
                Cmd(("reg", "query", _TDR_KEY, "/v", "TdrDelay")),
                Cmd(
                    ("reg", "add", _TDR_KEY, "/v", "TdrDelay", "/t", "REG_DWORD", "/d", _TDR_SECONDS, "/f"),
                    root=True,
                    note=f"{_TDR_SECONDS} seconds before Windows resets the GPU",
                ),
                *reboot(facts),  # the one restart per platform (planner.remedy)
            ),
            requires_root=True,
            component="driver",
        ),
    )


# Windows' commit limit read in any language (the two cmdlets' property names are not localized): the paging file's size
# and peak use, and the commit limit (TotalVirtualMemorySize) beside the RAM (TotalVisibleMemorySize), both in kB.
_PAGEFILE_READS = (
    Cmd(
        (
            "powershell",
            "-NoProfile",
            "-Command",
            "Get-CimInstance Win32_PageFileUsage | Format-List Name,AllocatedBaseSize,PeakUsage",
        ),
        note="the paging file: its size and peak use, in MB",
    ),
    Cmd(
        (
            "powershell",
            "-NoProfile",
            "-Command",
            "Get-CimInstance Win32_OperatingSystem | Format-List TotalVisibleMemorySize,TotalVirtualMemorySize,FreeVirtualMemory",
        ),
        note="the RAM and the commit limit, RAM plus paging file, in kB",
    ),
)


def check_windows_commit_limit(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Windows' ERROR_COMMITMENT_LIMIT (1455) as torch raises it loading a DLL of its own: mapping the DLL would pass the
    system's commit limit, RAM plus the paging file. Not a broken install: each process that imports torch (every
    DataLoader worker is one, started by spawn on Windows) maps its CUDA DLLs again, so many workers exhaust a small or
    fixed paging file (cszn/KAIR issue 127: fewer workers; pytorch/pytorch issue 59904: the paging file's size)."""
    said = _said(facts, "windows-commit-limit")
    if not said or not facts.platform.system.lower().startswith("win"):
        return
    dll = re.search(r"Error loading \\?\"[^\"\n]{0,300}?([\w.+-]{1,80}\.dll)", said[0].line)
    yield Finding(
        "windows-paging-file-too-small",
        Severity.ERROR,
        "platform",
        "Windows ran out of commit (RAM plus the paging file) loading " + (dll.group(1) if dll else "a DLL"),
        "Windows refused to map the DLL because the system's commit limit, the RAM plus the paging file, is used up "
        "(error 1455, 'The paging file is too small for this operation to complete'): the install is intact, and "
        "reinstalling changes nothing. Each process that imports torch maps its CUDA DLLs again, several GB of commit "
        "each: DataLoader workers (started anew on Windows), several programs at once, or a small or fixed paging file.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Read the paging file's size and the commit limit. Then, on Windows, let Windows manage the paging file on a "
            "drive with free space (System Properties > Advanced > Performance Settings > Advanced > Virtual memory > "
            "Change: 'Automatically manage paging file size for all drives', or a larger custom size), which applies "
            "after the next restart; or start fewer processes that load torch: a lower num_workers in the DataLoader "
            "(num_workers=0 loads in the main process).",
            _PAGEFILE_READS,
            component="platform",
            where="Windows",
        ),
    )


def check_triton_windows_cuda(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """triton-windows' "Failed to find CUDA.": Triton compiles its kernels at run time and needs a CUDA 12 toolkit
    (ptxas.exe, cuda.h, cuda.lib) where it looks: CUDA_PATH or CUDA_HOME, NVIDIA's pip wheels, the conda env's Library,
    else C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12* (triton-lang/triton-windows windows_utils.py
    @8c21d8a9, find_cuda). A CUDA 11 toolkit there is not taken; torch's own CUDA libraries do not count."""
    from gpudoctor.cmdline import Cmd

    said = _said(facts, "triton-windows-no-cuda")
    if not said or not facts.platform.system.lower().startswith("win"):
        return
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "toolkit",
        "Triton on Windows finds no CUDA 12 toolkit to compile its kernels with",
        "triton-windows said so ('Failed to find CUDA.'): it compiles kernels at run time with a CUDA 12 toolkit's "
        "ptxas.exe, cuda.h and cuda.lib, found through CUDA_PATH (or CUDA_HOME), NVIDIA's pip wheels, the conda "
        "environment or a v12.x folder under C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA; a CUDA 11 toolkit "
        "(a cudatoolkit 11.x in the environment, a CUDA_PATH naming v11.x) is not taken. torch itself runs on its own "
        "CUDA libraries, so torch.cuda.is_available() can be True meanwhile; the driver and torch need no change.",
        (ev("pasted", said[0].line),),
        Remediation(
            "See which toolkit the environment shows Triton (CUDA_PATH and nvcc), then install NVIDIA's CUDA 12.x "
            "toolkit of torch's CUDA major (its Windows installer, the toolkit only; it sets CUDA_PATH to its v12.x "
            "folder), and open a new terminal; or upgrade to a triton-windows release that bundles its own CUDA (the "
            "later wheels look in their own bundle first), of the release line that fits the installed torch.",
            (
                Cmd(("dir", _WINDOWS_TOOLKIT_ROOT.removesuffix("\\v")), note="the toolkits installed: one vX.Y folder each"),
                Cmd(("where", "nvcc"), note="the toolkit first on PATH; CUDA_PATH must name a v12.x folder"),
            ),
            component="toolkit",
        ),
    )


# The line of triton-windows (the community's Triton for native Windows) each PyTorch minor works with, from its
# README's table (triton-lang/triton-windows README.md @16153a263bb79821a1c7e8ea3a826d3a6135f38f, "Each PyTorch minor
# version is only guaranteed to work with a specific Triton minor version"; "PyTorch 2.3 and older are not supported").
# The bound is the next Triton minor, as that README pins it ('pip install -U "triton-windows<3.3"' for 3.2).
_TRITON_WINDOWS_FOR_TORCH = {
    "2.4": "3.1",
    "2.5": "3.1",
    "2.6": "3.2",
    "2.7": "3.3",
    "2.8": "3.4",
    "2.9": "3.5",
    "2.10": "3.6",
}


def check_inductor_triton_windows(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """torch.compile's "Cannot find a working triton installation" on native Windows: inductor generates Triton kernels
    for CUDA tensors, and PyTorch's CUDA wheels require triton only on Linux (the triton package publishes no Windows
    wheel), so on Windows nothing is broken and nothing of PyTorch's own provides it. The choices are eager (or a
    backend that generates no Triton code), WSL 2's Linux wheels, or the community's triton-windows of torch's line.
    WSL and Linux are not judged here: there a missing triton is a broken install, which the versions decide.

    Sources: PyTorch's wheel builds add triton with "platform_system == 'Linux' and platform_machine == 'x86_64'"
    (pytorch/pytorch .circleci/scripts/binary_populate_env.sh, TRITON_CONSTRAINT, the index's stored copy); pip's dry
    run for win_amd64 finds no version of triton at all (for manylinux x86_64 it lists 3.3.0 to 3.9.0), and resolves
    triton-windows<3.3 for cp312 win_amd64 to triton_windows-3.2.0.post21."""
    from gpudoctor.planner.where import package_step, python_step
    from gpudoctor.probed import Found
    from gpudoctor.versions import vkey

    said = _said(facts, "triton-missing")
    if not said or facts.platform.wsl or not (facts.platform.system or "").lower().startswith("win"):
        return
    t = facts.frameworks.torch
    torch = t.value if isinstance(t, Found) else None
    minor = ".".join(torch.version.split("+")[0].split(".")[:2]) if torch else None
    line = _TRITON_WINDOWS_FOR_TORCH.get(minor or "")
    if torch is not None and torch.cuda is None and torch.build_known:
        return  # a CPU build: inductor compiles C++ there, so this message has another cause
    if line is None and minor and vkey(minor) < vkey("2.4"):
        community = f"triton-windows supports PyTorch 2.4 and newer only, so with torch {minor} it is eager or WSL 2."
        steps: tuple[Cmd, ...] = ()
    else:
        community = (
            f"Or install the community's Triton for Windows, triton-windows {line}.x, the line for torch {minor} "
            "(its wheels bundle the CUDA compiler and a C compiler since 3.2.0.post13)."
            if line
            else "Or install the community's Triton for Windows, triton-windows, of the line for the installed torch "
            "(its README's table: torch 2.6 takes 3.2, 2.7 takes 3.3, 2.8 takes 3.4)."
        )
        if line:
            major, minor_t = line.split(".")
            steps = (package_step(facts, "install", f"triton-windows<{major}.{int(minor_t) + 1}"),)
        else:
            steps = (python_step(facts, "-m", "pip", "show", "torch"),)  # its version chooses the line
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        "torch.compile needs Triton for GPU kernels, and PyTorch ships no Triton for native Windows",
        "torch.compile's default backend, inductor, generates Triton kernels for CUDA tensors. PyTorch's CUDA wheels "
        "require the triton package on Linux only, and triton publishes no Windows wheel, so on native Windows inductor "
        "finds none and stops. torch itself, the driver and CUDA are not at fault: the same model runs eagerly.",
        (ev("pasted", said[0].line),),
        Remediation(
            'Run the model eagerly on Windows: drop the torch.compile call, or compile with backend="aot_eager", which '
            "generates no Triton code. For inductor's speed-up, run the same program under WSL 2, where the Linux CUDA "
            "wheel of torch installs its matching triton. " + community,
            (
                python_step(
                    facts,
                    "-c",
                    "import torch, importlib.util; print(torch.__version__, torch.cuda.is_available(), "
                    "importlib.util.find_spec('triton'))",
                ),
                *steps,
            ),
            component="torch",
            where="Windows",
        ),
    )


def check_wsl_libcuda(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """In WSL 2 the driver's libcuda comes from Windows, in /usr/lib/wsl/lib; a program that dlopens the unversioned
    libcuda.so (cuDNN 8's sublibraries, bitsandbytes) fails where that directory is not on the loader's path. Where the
    text shows the CUDA toolkit's stub libcuda answering instead (CUDA error 34, CUDA_ERROR_STUB_LIBRARY: a link to
    lib64/stubs/libcuda.so, or the stubs directory on LD_LIBRARY_PATH, made to get past the first error), that link
    or entry goes too: the stub's cuInit always fails."""
    from gpudoctor.cmdline import Cmd

    if not facts.pasted.partial or facts.platform.wsl != 2:
        return
    # (the loader's failure only: the linker's -lcuda at a build is checks.catalogued.builds' _link_libcuda)
    said = [
        e
        for e in _said(facts, "library-missing")
        if re.fullmatch(r"libcuda\.so(?:\.1)?", e.get("soname") or "") and e.get("side") != "link"
    ]
    stub = _said(facts, "cuda-stub-library")
    if not (said or stub):
        return
    e = said[0] if said else stub[0]
    wanted = e.get("wanted") if said else None
    soname = e.get("soname") if said else "libcuda.so.1"
    prepend = library_dir(facts, ("/usr/lib/wsl/lib",), note="first on LD_LIBRARY_PATH, the rest kept")
    if stub:
        title = "the CUDA toolkit's stub libcuda is loaded in WSL 2 instead of the driver's (/usr/lib/wsl/lib)"
        detail = (
            "cuInit answered CUDA error 34 (CUDA_ERROR_STUB_LIBRARY) as the text shows: the libcuda loaded is the CUDA "
            "toolkit's link-time stub (lib64/stubs/libcuda.so), whose every call fails, put in place of the driver's "
            "(a libcuda.so.1 link to it, or its stubs directory on LD_LIBRARY_PATH). In WSL 2 the driver is Windows' "
            "and its libcuda lives in /usr/lib/wsl/lib. The CUDA and cuDNN versions are not at fault, and no Linux "
            "driver belongs in WSL."
        )
        summary = (
            "Remove the link made to the stub libcuda and take the stubs directory off LD_LIBRARY_PATH (shell profile, "
            "~/.bashrc), then put /usr/lib/wsl/lib first on the loader's path, the rest kept."
        )
        commands: tuple = (
            Cmd(
                ("find", "/", "-xdev", "-name", "libcuda.so*", "-lname", "*stubs*"),
                note="links to the stub libcuda: remove each one it lists with rm",
            ),
            Cmd(("printenv", "LD_LIBRARY_PATH"), note="a directory ending in stubs must not be on it"),
            Cmd(("ls", "-l", "/usr/lib/wsl/lib/libcuda.so.1"), note="the libcuda of the Windows driver"),
            prepend,
        )
    else:
        title = f"{soname} (the WSL driver's library, in /usr/lib/wsl/lib) is not on the loader's path"
        detail = (
            f"The loader could not open {soname}"
            + (f", which {wanted} needs," if wanted else "")
            + " as the text shows. In WSL 2 the driver is Windows' and its libcuda lives in /usr/lib/wsl/lib; programs "
            "that load the unversioned libcuda.so find it only through the loader's cache or LD_LIBRARY_PATH. Nothing "
            "is missing from the CUDA or cuDNN install, and no Linux driver belongs in WSL."
        )
        summary = (
            "Put /usr/lib/wsl/lib on the loader's path (ahead of any directories already on LD_LIBRARY_PATH), after "
            "checking that WSL's libcuda is there."
        )
        commands = (Cmd(("ls", "-l", "/usr/lib/wsl/lib/libcuda.so")), prepend)
    yield Finding(
        "framework-cuda-libs-missing",
        Severity.ERROR,
        "frameworks",
        title,
        detail,
        tuple(ev("pasted", x.line) for x in (stub[:1] + said[:1])),
        Remediation(summary, commands, component="environment"),
    )


# Where NVIDIA's Windows installer puts each toolkit (one vX.Y folder per version); CUDA_PATH names one of them.
_WINDOWS_TOOLKIT_ROOT = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v"


def check_cuda_path_folder(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """`[WinError 3] The system cannot find the path specified: '...\\CUDA\\11.2\\bin'` from os.add_dll_directory: a
    program (llama-cpp-python, CuPy) added CUDA_PATH's bin to the DLL search and that folder is not there, so CUDA_PATH
    names a toolkit that is not installed. The user variable is repointed at the installed toolkit (a user variable of
    the same name overrides the machine's); the machine's own check (checks.windows) says it where the folders were read."""
    from gpudoctor.checks.windows import check_cuda_path
    from gpudoctor.cmdline import Cmd, Placeholder

    said = _said(facts, "cuda-path-folder-missing")
    if not said or any(True for _ in check_cuda_path(facts, ctx)):
        return
    e = said[0]
    folder = (e.get("folder") or "").lstrip("vV")
    stated = [
        x.get("cuda") or ""
        for x in _said(facts, "cuda-toolkit-said") + _said(facts, "cuda-version-said") + _said(facts, "cuda-have-said")
    ]
    toolkit = facts.toolkits.nvcc_on_path_version or ""
    # (a version with its minor: a toolkit's folder is named by both, and a major alone names none)
    installed = next((v for v in [toolkit, *stated] if "." in v and v.split(".")[:2] != folder.split(".")[:2]), "")
    installed = ".".join(installed.split(".")[:2])
    target = (_WINDOWS_TOOLKIT_ROOT + installed,) if installed else (Placeholder("installed-cuda-toolkit-folder"),)
    yield Finding(
        "windows-cuda-path-missing",
        Severity.ERROR,
        "toolkit",
        f"CUDA_PATH names a CUDA toolkit folder that is not there ({folder or 'see the line'})"
        + (f"; CUDA {installed} is the one installed" if installed else ""),
        "The program added CUDA_PATH's folder to the DLL search (os.add_dll_directory, as llama-cpp-python and CuPy do "
        "on Windows) and Windows answered that the folder does not exist: CUDA_PATH still names a toolkit that was "
        "removed or never installed"
        + (f", while CUDA {installed} is installed" if installed else "")
        + ". Uninstalling a toolkit leaves the variable behind; a user variable of the same name overrides the "
        "machine's.",
        (ev("pasted", e.line),),
        Remediation(
            "Check the value (echo %CUDA_PATH% in cmd, $env:CUDA_PATH in PowerShell) and the folders under "
            "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA, then point your user's CUDA_PATH at the installed "
            "toolkit's folder and open a new terminal (running programs keep the old environment).",
            (
                # (cmd.exe's dir and PowerShell's alias of Get-ChildItem alike: the vX.Y folders installed)
                Cmd(("dir", _WINDOWS_TOOLKIT_ROOT.removesuffix("\\v")), note="the toolkits installed: one vX.Y folder each"),
                Cmd(("setx", "CUDA_PATH", *target), note="your user's variable; a new terminal sees it"),
            ),
            component="toolkit",
        ),
    )


# The toolkit's own DLLs by their names (bare, as a program falls back to when its search found none, or versioned):
# NVVM, NVRTC, nvJitLink and the runtime libraries.
_TOOLKIT_DLL = LazyPattern(
    r"^(?:nvvm|nvrtc|nvrtc-builtins|nvJitLink|cudart|cublas|cublasLt|cufft|curand|cusparse|cusolver)(?:64)?(?:_\d+){0,3}\.dll$",
    re.IGNORECASE,
)


def check_cuda13_dll_folder(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A CUDA 13 toolkit on Windows whose DLLs a program did not find: CUDA 13.0 moved the toolkit's DLLs from bin to
    bin\\x64 (NVVM's from nvvm\\bin to nvvm\\bin\\x64), and programs written for CUDA 12 search only the old folders
    ("Since CUDA 13.0, cuda dll have been moved to %CUDA_PATH%\\bin\\x64", shader-slang/slang-rhi#564; numba-cuda's
    CUDA_HOME search, NVIDIA/numba-cuda#397, which its later releases fixed by looking in x64, NVIDIA/numba-cuda#699).
    The driver and the toolkit are fine; the program's search is not. Not said without a CUDA 13 folder in the text (a
    CUDA 12 toolkit's missing DLL is another matter) nor in WSL (the Linux toolkit's layout)."""
    cue = next((c for c in facts.pasted.cues if c.get("cue") == CUDA13_WINDOWS_TOOLKIT), None)
    if cue is None or facts.platform.wsl or not (facts.platform.system or "").lower().startswith("win"):
        return
    failing = [e for e in _said(facts, "windows-module-not-found") if _TOOLKIT_DLL.match(e.get("soname") or "")]
    failing += _said(facts, "toolkit-library-not-found")
    if not failing:
        return
    folder = cue.get("means") or ""
    yield Finding(
        "cuda13-dll-folder",
        Severity.ERROR,
        "toolkit",
        "a program did not find the CUDA 13 toolkit's DLLs, which CUDA 13 keeps in bin\\x64",
        f"The text shows the CUDA 13 toolkit at {folder}, and the program could not load its DLLs. From CUDA 13.0 "
        "the Windows toolkit keeps them in bin\\x64 (NVVM's in nvvm\\bin\\x64), where releases of programs written for "
        "CUDA 12 do not look: they search bin and nvvm\\bin, find nothing and fall back to the bare DLL name, which "
        "Windows cannot resolve. The driver and the toolkit are fine; reinstalling either changes nothing.",
        tuple(ev("pasted", e.line) for e in failing[:2]) + (ev("pasted", cue.get("line") or folder),),
        Remediation(
            "Look where the DLLs are, then point the program at a CUDA 12.x toolkit installed beside this one "
            "(CUDA_HOME and CUDA_PATH; setx writes them for new windows), or upgrade the program's package to a "
            "release that searches bin\\x64, and run it again in a new window.",
            (
                Cmd(("where.exe", "/R", folder, "nvvm*.dll", "nvrtc*.dll"), note="CUDA 13 keeps them in the x64 subfolders"),
                Cmd(("setx", "CUDA_HOME", Placeholder("cuda12-toolkit-folder"))),
                Cmd(("setx", "CUDA_PATH", Placeholder("cuda12-toolkit-folder"))),
            ),
            component="toolkit",
        ),
    )


# A POSIX shell's assignment as the reporter typed it before a command (`CUDA_VISIBLE_DEVICES=0 python x.py`), or after
# `export`: a variable's name, `=`, its value (split_plain already took its quotes off).
_ASSIGNMENT = LazyPattern(r"(?P<name>[A-Za-z_][A-Za-z0-9_]{0,60})=(?P<value>.{0,200})", re.DOTALL)


def _typed_assignments(typed: tuple[str, ...] | None) -> dict[str, str]:
    """The assignments before the program in the reporter's command (after `export`, every word that is one)."""
    words = list(typed or ())
    if words[:1] == ["export"]:
        words = words[1:]
    out: dict[str, str] = {}
    for word in words:
        if not (m := _ASSIGNMENT.fullmatch(word)):
            break
        out.setdefault(m.group("name"), m.group("value"))
    return out


def _set_line(name: str, value: str) -> tuple:
    """The assignment as the plan's shells write it, or nothing where no shell of Windows holds the value literally
    (the quoting layer refuses it: a `%`, a `$`, a double quote): the finding then says it in words."""
    from gpudoctor.cmdline import SetEnv, Unrenderable, render

    line = SetEnv(name, value, note="on its own line, before the command")
    try:
        render(line, "cmd")
        render(line, "powershell")
    except Unrenderable:
        return ()
    return (line,)


def check_shell_posix_syntax(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A line written for a POSIX shell, typed in cmd.exe or PowerShell: `NAME=value command` (neither has that
    prefix: cmd.exe and PowerShell take NAME for a program's name), `export` (cmd.exe has none) or a single-quoted pip
    requirement (cmd.exe passes the quotes on). Nothing ran: the variable was never set, the install never started. The
    fix is the line in the shell's own syntax (cmd.exe's `set NAME=value`, PowerShell's `$env:NAME = "value"`, on its
    own line; double quotes), then the same command without the prefix (planner.resume drops it), in the same shell;
    no GPU, driver or package is at fault (abetlen/llama-cpp-python issue 2068's answer; MIC-DKFZ/nnUNet issue 1393's:
    "set the environment variables differently in windows")."""
    from gpudoctor.planner.remedy import pip
    from gpudoctor.planner.resume import shown_command

    said = _said(facts, "shell-posix-syntax")
    if not said or facts.platform.wsl:
        return
    typed = _typed_assignments(shown_command(facts))
    values: dict[str, str] = {}  # each variable never set, and the value meant where the text shows it ("" if not)
    requirements: list[str] = []
    for e in said:
        name = e.get("name") or ""
        if requirement := e.get("requirement"):
            from packaging.requirements import InvalidRequirement, Requirement

            try:
                parsed = Requirement(requirement)
            except InvalidRequirement:
                continue  # (not one requirement once its quotes are off: the text is not read further)
            if parsed.url or parsed.marker:
                continue  # a URL or an environment marker from a paste is never printed as a command to run
            requirements.append(requirement)
            continue
        if name == "export":
            # the assignment after export as the text shows it before the error (a prompt's line), else as typed
            at_prompt = {str(e.get("typed")): e.get("value") or e.get("bare") or ""} if e.get("typed") else {}
            for var, value in {**typed, **at_prompt}.items():
                values[var] = values.get(var) or value
            if not (typed or at_prompt):
                values.setdefault("export", "")
            continue
        # The value as the text shows it: PowerShell's error names it; cmd.exe's only where the typed line is shown
        # before it (the same name) or quoted after it; else the reporter's command as the paste shows it.
        before = (e.get("value") or e.get("bare")) if e.get("typed") in (None, name) else None
        values[name] = values.get(name) or before or e.get("after") or e.get("after_bare") or typed.get(name) or ""
    if not values and not requirements:
        return
    lines: list = []
    unknown: list[str] = []
    for var, value in values.items():
        said_as = _set_line(var, value) if value and var != "export" else ()
        lines.extend(said_as)
        if not said_as:
            unknown.append("the variables after export" if var == "export" else var)
    lines += [pip(facts, "install", r) for r in dict.fromkeys(requirements)]
    variables = [v for v in values if v != "export"]
    never = [f"{v} was never set" for v in variables] + (["export ran nothing"] if "export" in values else [])
    never += [f"pip received '{r}' with its single quotes" for r in dict.fromkeys(requirements)]
    why = (
        (
            "The command line sets a variable the way a POSIX shell (bash, zsh) does, NAME=value before the command or "
            "with export; cmd.exe and PowerShell have neither, take the assignment for a program's name and stop: the "
            "variable was never set and the command after it never ran. "
            if values
            else ""
        )
        + (
            "cmd.exe passes single quotes on to the program as they are (a POSIX shell and PowerShell take them off), "
            "so pip read the quotes as part of the requirement and installed nothing. "
            if requirements
            else ""
        )
        + "Nothing about the GPU, the driver or the packages is shown to be wrong."
    )
    fill = (
        f" Set {', '.join(unknown)} the same way, with the value you meant (the text does not show it"
        + ("; for CUDA_VISIBLE_DEVICES, the GPU's index as nvidia-smi -L lists it" if "CUDA_VISIBLE_DEVICES" in unknown else "")
        + ")."
        if unknown
        else ""
    )
    if "CUDA_VISIBLE_DEVICES" in unknown:
        lines.append(Cmd(("nvidia-smi", "-L"), note="the index of each GPU: the value CUDA_VISIBLE_DEVICES takes"))
    yield Finding(
        "windows-shell-syntax",
        Severity.ERROR,
        "platform",
        "the command was written for a POSIX shell and cmd.exe or PowerShell refused it: " + "; ".join(never),
        why,
        tuple(ev("pasted", e.line) for e in said[:3]),
        Remediation(
            "Write the line in this shell's own syntax: each variable set on its own line (cmd.exe: set NAME=value; "
            'PowerShell: $env:NAME = "value"), a requirement in double quotes, then run the same command again '
            "without the NAME=value before it, in the same window (a variable set there holds for that window only)." + fill,
            tuple(lines),
            component="environment",
        ),
    )


# An absolute Windows path to a script (a drive letter): the only kind run again as it is, whatever folder the new
# prompt is in.
_ABSOLUTE_PS1 = LazyPattern(r"[A-Za-z]:[\\/][^\n\"'<>|%$`]{1,300}\.ps1")


def check_powershell_script_policy(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """PowerShell's execution policy refused a script (Restricted, Windows' default on client editions, runs no .ps1):
    an environment's Activate.ps1 did not activate it, so the python and pip typed next are whatever PATH finds first
    (the system's, the Store's alias), and what they install goes there. The fix is the policy for the user
    (RemoteSigned runs local scripts, and a downloaded one only signed; no administrator needed), then the script again
    (Microsoft's about_Execution_Policies; microsoft/vscode-python issue 2559's answer: `Set-ExecutionPolicy
    -ExecutionPolicy RemoteSigned -Scope CurrentUser`). Or no activation at all: the environment's own python.exe by its
    path needs no script."""
    said = _said(facts, "powershell-scripts-disabled")
    if not said:
        return
    script = next((e.get("script") for e in said if e.get("script")), "") or ""
    again = (Cmd((script,), note="the script again, in a new window"),) if _ABSOLUTE_PS1.fullmatch(script) else ()
    activate = script.lower().endswith("activate.ps1")
    yield Finding(
        "windows-script-policy",
        Severity.ERROR,
        "platform",
        "PowerShell's execution policy refused to run "
        + ("the environment's Activate.ps1: the environment was not activated" if activate else "a script"),
        "PowerShell runs no script under the Restricted policy, Windows' default: "
        + (
            "Activate.ps1 never ran, so the prompt is not in the environment and python and pip are whichever PATH finds "
            "first (the system's, or the Microsoft Store's alias): what they install or run is not the environment's. "
            if activate
            else "the script never ran. "
        )
        + "Nothing about the GPU, the driver or the packages is shown to be wrong.",
        tuple(ev("pasted", e.line) for e in said[:2]),
        Remediation(
            "Allow local scripts for your user (RemoteSigned: a script made on this machine runs, a downloaded one only "
            "signed; no administrator needed), then run the script again in a new PowerShell window. For this window "
            "only: Set-ExecutionPolicy -Scope Process -ExecutionPolicy Bypass. Or skip activation: run the environment's "
            "own Scripts\\python.exe by its path.",
            (
                Cmd(("Set-ExecutionPolicy", "-Scope", "CurrentUser", "-ExecutionPolicy", "RemoteSigned")),
                *again,
            ),
            component="environment",
        ),
    )


# NCCL's first release for WSL 2: its 2.10.3 release notes, "Added WSL2 support (single GPU only)"
# (https://docs.nvidia.com/deeplearning/nccl/release-notes/rel_2-10-3.html); the maintainers before it, "WSL2 is not
# supported by NCCL 2.7.6. You may want to try NCCL 2.10" (NVIDIA/nccl issue 511).
_NCCL_WSL_FLOOR = "2.10.3"
# The release the fix builds: 2.11.4, the one NVIDIA's CUDA on WSL user guide names for WSL 2 (as pytorch/pytorch issue
# 68165 quotes it: "Only NCCL 2.11.4+ supports WSL2"); its tag v2.11.4-1 is NVIDIA/nccl @e11238b3.
_NCCL_WSL_TAG = "v2.11.4-1"


def check_wsl_nccl_too_old(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """An NCCL older than its first WSL 2 release, failing in WSL 2 where its topology detection looks for the GPU's
    PCI device in /sys (WSL 2 has none: the GPU is reached through the Windows driver). The NCCL the program loads is
    too old for the platform; the driver, CUDA and the GPU are not at fault. Decided only where the text shows both
    that failure and NCCL's own version line, in a WSL 2 distribution: elsewhere the same failure is a container or VM
    hiding /sys, which the catalogue's asks decide."""
    from gpudoctor.cmdline import Output
    from gpudoctor.versions import at_least

    if facts.platform.wsl != 2:
        return
    failed = _said(facts, "nccl-gpu-pci-path-missing")
    versions = [e for e in _said(facts, "nccl-version-said") if e.get("version")]
    if not failed or not versions or len({e.get("version") for e in versions}) != 1:
        return  # (two NCCL releases in one text: which one failed is unsaid)
    version = versions[0].get("version")
    if at_least(version, _NCCL_WSL_FLOOR) is not False:
        return
    yield Finding(
        "nccl-too-old",
        Severity.ERROR,
        "frameworks",
        f"NCCL {version} does not support WSL 2 (its first release for WSL 2 is {_NCCL_WSL_FLOOR})",
        f"NCCL {version} looked for the GPU's PCI device under /sys/class/pci_bus to build its topology and stopped "
        "(unhandled system error), as the text shows: in WSL 2 the GPU is reached through the Windows driver and has no "
        f"PCI device in the distribution's /sys. NCCL supports WSL 2 from release {_NCCL_WSL_FLOOR}; the driver, the "
        "CUDA toolkit and the GPU are not at fault, and no Linux driver belongs in WSL.",
        tuple(ev("pasted", x.line) for x in (failed[0], versions[0])),
        Remediation(
            f"Inside the WSL 2 distribution, build NCCL {_NCCL_WSL_TAG[1:].split('-')[0]} from its release tag with the "
            "CUDA toolkit already installed there, put its library first on the loader's path, then rebuild the program "
            "that links NCCL against it (nccl-tests: make NCCL_HOME=<that nccl/build>) and run it again: NCCL's INFO "
            "line then names the new version.",
            (
                Cmd(
                    ("git", "clone", "--branch", _NCCL_WSL_TAG, "--depth", "1", "https://github.com/NVIDIA/nccl.git"),
                    note="inside WSL 2: NCCL's source at the release tag",
                ),
                Cmd(
                    ("make", "-C", "nccl", "-j", "src.build", "CUDA_HOME=/usr/local/cuda"),
                    note="builds nccl/build/lib/libnccl.so.2 with the toolkit in /usr/local/cuda",
                ),
                library_dir(facts, (Output(("pwd",)), "/nccl/build/lib"), note="the new NCCL first, the rest kept"),
            ),
            component="environment",
        ),
    )


# Windows gives WSL 2 the GPU (GPU paravirtualisation: /dev/dxg, the driver's libcuda in /usr/lib/wsl/lib) from
# Windows 10 version 21H2, build 19044, and Windows 11 ("Windows 11 and Windows 10, version 21H2 support running existing
# ML tools ... that use NVIDIA CUDA for GPU hardware acceleration inside a WSL 2 instance": Microsoft's "Enable NVIDIA
# CUDA on WSL 2", learn.microsoft.com/en-us/windows/ai/directml/gpu-cuda-in-wsl); before 21H2 only Insider builds from
# 20145 had it (NVIDIA's CUDA on WSL User Guide). Build 19044 is Microsoft's number for 21H2.
_WSL_GPU_BUILD = 19044
_WSL_GPU_INSIDER = (20000, 20145)  # the Insider builds before GPU support came to them


def wsl_windows_build_too_old(facts: Facts) -> tuple[int, str] | None:
    """The Windows build a WSL 2 report states, and its line, where that build gives WSL 2 no GPU; else None."""
    if not facts.pasted.partial or facts.platform.wsl != 2 or facts.driver.gpus:
        return None  # (GPUs listed by nvidia-smi in the distribution: Windows does give it the GPU)
    for e in _said(facts, "windows-build"):
        build = int(e.get("build") or 0)
        if build and (build < _WSL_GPU_BUILD or _WSL_GPU_INSIDER[0] <= build < _WSL_GPU_INSIDER[1]):
            return build, e.line
    return None


def check_wsl_windows_build(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A WSL 2 report on a Windows build that gives WSL 2 no GPU: whatever the driver and the packages inside the
    distribution, no libcuda and no nvidia-smi reach it; Windows itself must be updated."""
    found = wsl_windows_build_too_old(facts)
    if found is None:
        return
    build, line = found
    yield Finding(
        "wsl-windows-too-old",
        Severity.ERROR,
        "platform",
        f"Windows build {build} gives WSL 2 no GPU (GPU access in WSL 2 needs Windows 10 21H2, build 19044, or Windows 11)",
        "In WSL 2 the GPU comes from Windows: its GPU paravirtualisation projects the Windows driver's libcuda and "
        "nvidia-smi into /usr/lib/wsl/lib. Windows builds before 10.0.19044 (21H2) have none of it (only Insider builds "
        "from 20145 had it before), so libcuda.so.1 is missing in the distribution and every CUDA program fails there, "
        "whatever driver is installed on Windows. Nothing installed inside Linux can replace it; a Linux NVIDIA driver "
        "in WSL breaks it further.",
        (ev("pasted", line),),
        Remediation(
            "Update Windows to Windows 10 21H2 (build 19044) or later, or Windows 11, through Windows Update (in "
            "Windows PowerShell), install the current NVIDIA driver for Windows, then update WSL's kernel and restart "
            "WSL; nvidia-smi inside the distribution then shows the GPU.",
            (
                Cmd(("cmd.exe", "/c", "ver"), note="the build: 10.0.19044 or later is needed"),
                Cmd(("Start-Process", "ms-settings:windowsupdate"), note="install the feature update to 21H2 or later"),
                Cmd(("wsl", "--update")),
                Cmd(("wsl", "--shutdown")),
                Cmd(("wsl", "nvidia-smi"), note="the GPU seen from the distribution"),
            ),
            component="platform",
            where="Windows",
        ),
    )
