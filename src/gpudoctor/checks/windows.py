"""Checks only native Windows needs: the driver store, CUDA_PATH, the DLLs a framework loads, TCC mode.

Pure functions of the facts (gpudoctor.probes.windows gathers them). Commands are argv data rendered
by gpudoctor.cmdline, in PowerShell on a Windows machine. A published name from pnputil reaches a
command only after it matches gpudoctor.parsers.pnputil.PUBLISHED_NAME (oemNN.inf); the package in use
is never offered for deletion, and nothing is deleted where the one in use is not known.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.cmdline import Cmd
from gpudoctor.facts import NO_PYTHON, Facts
from gpudoctor.host import winpath
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.probed import Found
from gpudoctor.versions import vkey

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # types only: built by the Windows probe (gpudoctor.windows_facts)
    from gpudoctor.windows_facts import DllDir, WindowsFacts

# Which package each display device is bound to: the look before anything is deleted or installed.
LIST_BINDINGS = Cmd(("pnputil", "/enum-devices", "/class", "Display", "/drivers"), root=True)

# The directories Windows itself searches for a framework's dependent DLLs (the others are listed so a
# finding can say "installed there, but not searched").
SEARCHED = ("wheel", "python", "system", "conda", "PATH")
# Machine-level variables live here; the CUDA installer writes CUDA_PATH and CUDA_PATH_VX_Y there.
_MACHINE_ENV_KEY = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"


def _win(facts: Facts) -> WindowsFacts | None:
    return facts.windows


# --- the driver store -------------------------------------------------------------------------------


def check_driver_store(facts: Facts, ctx: Context) -> Iterable[Finding]:
    win = _win(facts)
    if win is None or not isinstance(win.driver_store, Found):
        return
    from gpudoctor.parsers.pnputil import PUBLISHED_NAME

    packages = list(win.driver_store.value)
    if len(packages) < 2:
        return
    running = _nvidia_number(facts.driver.version)
    in_use = [p for p in packages if running and p.nvidia_version == running]
    stale = [p for p in packages if p not in in_use]
    listing = tuple(
        ev(
            win.driver_store.source,
            f"{p.published_name or '?'} ({p.original_name or 'NVIDIA display'}): {p.version or '?'} = driver "
            f"{p.nvidia_version or '?'}, dated {p.date or '?'}" + (" (in use)" if p in in_use else ""),
        )
        for p in packages
    )
    versions = sorted({p.nvidia_version or "?" for p in packages})
    title = f"{len(packages)} NVIDIA display driver packages are in the driver store ({', '.join(versions)})"
    why = (
        "Windows keeps every NVIDIA display package ever installed (NVIDIA's installer, the PC maker's package, "
        "Windows Update) and may bind the GPU to an older one on the next hardware change or update, which is how "
        "a driver 'reverts' on its own or nvidia-smi and the CUDA runtime disagree."
    )
    if not in_use:
        reason = (
            "the running driver's version is not known here"
            if not running
            else f"none of them is the running driver {facts.driver.version}"
        )
        yield Finding(
            "windows-driver-store-stale",
            Severity.WARNING,
            "driver",
            title,
            f"{why} Which package is in use cannot be told ({reason}), so gpudoctor names none to delete.",
            listing,
            Remediation(
                "Find the package in use first: Device Manager > Display adapters > the NVIDIA GPU > Driver > "
                "Driver Details (or `pnputil /enum-devices /class Display /drivers`), then delete only the others "
                "with `pnputil /delete-driver oemNN.inf`. Never delete the one in use.",
                (LIST_BINDINGS,),
                requires_root=True,
                component="driver",
            ),
        )
        return
    # With two or more NVIDIA GPUs, another INF family (nv_dispwi.inf beside nv_dispi.inf, an OEM's nvltwi.inf)
    # can be what the other GPU is bound to, at another version: there only older copies of the family in use
    # are offered, and nothing where the listing has no original names (the Windows 7 layout). With one GPU
    # every other older package is offered (NVIDIA's own installer leaves older families behind: nvmd.inf beside
    # nvmdig.inf, github.com/lostindark/DriverStoreExplorer/issues/195); pnputil still refuses a package in use.
    families = {(p.original_name or "").lower() for p in in_use}
    # A package newer than the running driver is no leftover of an older install: a GPU NVML does not list
    # (disabled, or failed to start: code 31) may be bound to it, as on
    # tests/machines/windows-egpu-rtx5060ti-ada-laptop-two-nvidia-releases. It is never offered.
    newer = [p for p in stale if p.nvidia_version and running and vkey(p.nvidia_version) > vkey(running)]
    older = [p for p in stale if p not in newer]
    if len(facts.driver.gpus) <= 1:
        sure = older
    elif all(p.original_name for p in packages):
        sure = [p for p in older if (p.original_name or "").lower() in families]
    else:
        sure = []
    deletable = [p for p in sure if p.published_name and PUBLISHED_NAME.match(p.published_name)]
    keep = ", ".join(sorted({p.published_name or "?" for p in in_use}))
    commands = tuple(
        Cmd(("pnputil", "/delete-driver", p.published_name), root=True, note=f"driver {p.nvidia_version or '?'}")
        for p in deletable
        if p.published_name
    )
    held_back = [p for p in older if p not in sure]
    newer_names = ", ".join(f"{p.published_name or '?'} ({p.nvidia_version})" for p in newer)
    unnamed = len(sure) - len(deletable)
    if newer:
        summary = (
            f"KEEP {keep} (the driver in use) and the newer {newer_names}. See which package each display device "
            "uses (a device showing Problem Code 31 failed to start on its package), then install one NVIDIA "
            "release that supports every NVIDIA GPU here (nvidia.com/Download or the NVIDIA App, as an "
            "Administrator)"
            + (
                "; the older packages below are not in use. pnputil refuses to delete a package a device uses: "
                "leave any it refuses, and never add /force."
                if commands
                else "; afterwards gpudoctor names the packages left behind."
            )
        )
    else:
        summary = (
            f"Delete the stale packages from the driver store, in an Administrator PowerShell. KEEP {keep}: it is "
            "the driver in use. pnputil refuses to delete a package a device uses; if it answers 'One or more devices "
            "are presently installed' for an old one, a disconnected (ghost) device still names it: leave it, and "
            "never add /force."
        )
    yield Finding(
        "windows-driver-store-stale",
        Severity.WARNING,
        "driver",
        title,
        f"{why} The running driver {facts.driver.version} is {keep}; "
        f"{len(stale)} other package(s) are not it."
        + (f" {unnamed} of them had no valid oemNN.inf name and are not offered." if unnamed else "")
        + (
            f" Not offered: {', '.join(p.published_name or '?' for p in held_back)}: with several NVIDIA GPUs, "
            "another INF family may be what another GPU is bound to (check Device Manager first)."
            if held_back
            else ""
        )
        + (
            f" Not offered: {newer_names}: newer than the running driver, so no leftover: a GPU that NVML does not "
            "list (disabled, or failed to start: Device Manager code 31) may be bound to it. Windows loads one NVIDIA "
            "kernel driver (nvlddmkm.sys) for every NVIDIA GPU, so GPUs bound to two releases cannot both start."
            if newer
            else ""
        ),
        listing,
        Remediation(
            summary,
            ((LIST_BINDINGS,) if newer else ()) + commands,
            requires_root=True,
            component="driver",
        ),
    )


def _nvidia_number(version: str | None) -> str | None:
    """552.22 from a Windows driver version as NVML and nvidia-smi print it (552.22); None otherwise."""
    if not version:
        return None
    parts = version.split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return f"{int(parts[0])}.{parts[1]}"


# --- CUDA_PATH ------------------------------------------------------------------------------------


def _missing_dir(facts: Facts, path: str) -> bool:
    """Whether the machine has no folder at `path`: only judged where the Program Files listing was read."""
    win = _win(facts)
    if win is None or not winpath.is_windows_path(path):
        return False
    roots = {winpath.key(t.root) for t in win.toolkits}
    if winpath.key(path) in roots:
        return False
    # The toolkits' parent was listed: a vX.Y folder under it that is not in the listing does not exist.
    parent = winpath.key(winpath.parent(path))
    listed = any(winpath.key(winpath.parent(t.root)) == parent for t in win.toolkits)
    return listed and "nvidia gpu computing toolkit/cuda" in parent


def check_cuda_path(facts: Facts, ctx: Context) -> Iterable[Finding]:
    win = _win(facts)
    if win is None:
        return
    broken = []
    if win.cuda_path and _missing_dir(facts, win.cuda_path):
        broken.append(("CUDA_PATH", win.cuda_path))
    broken += [(k, v) for k, v in sorted(win.cuda_path_versions.items()) if _missing_dir(facts, v)]
    if not broken:
        return
    installed = [t for t in win.toolkits if t.nvcc]
    newest = installed[-1] if installed else None
    commands: list[Cmd] = []
    if any(name == "CUDA_PATH" for name, _ in broken):
        if newest is not None:
            commands.append(Cmd(("setx", "CUDA_PATH", winpath.to_native(newest.root), "/M"), root=True))
        else:
            commands.append(Cmd(("reg", "delete", _MACHINE_ENV_KEY, "/v", "CUDA_PATH", "/f"), root=True))
    for name, _ in broken:
        if name != "CUDA_PATH":
            commands.append(Cmd(("reg", "delete", _MACHINE_ENV_KEY, "/v", name, "/f"), root=True))
    names = ", ".join(f"{n} = {v}" for n, v in broken)
    yield Finding(
        "windows-cuda-path-missing",
        Severity.ERROR,
        "toolkit",
        f"{broken[0][0]} points at a CUDA toolkit that is not installed ({broken[0][1]})",
        f"{names}: no such toolkit folder; the installed toolkits are "
        + (", ".join(t.version for t in win.toolkits) or "none")
        + ". Uninstalling a toolkit leaves these variables behind; builds (CMake's FindCUDAToolkit, "
        "PyTorch extensions, llama.cpp, bitsandbytes) then look for nvcc and headers in a folder that is gone.",
        tuple(ev(f"env:{n}", v) for n, v in broken),
        Remediation(
            (
                f"Point CUDA_PATH at the installed CUDA {newest.version}"
                + (" and drop the variables of removed toolkits" if len(broken) > 1 else "")
                if newest is not None and broken[0][0] == "CUDA_PATH"
                else "Remove the variables of the removed toolkit" + ("" if installed else " (or install a toolkit again)")
            )
            + ", in an Administrator PowerShell; open a new terminal afterwards (running programs keep the old "
            "environment).",
            tuple(commands),
            requires_root=True,
            component="toolkit",
        ),
    )


# --- the DLLs a framework loads -----------------------------------------------------------------------

# TensorFlow's native-Windows GPU builds and the CUDA/cuDNN they load, from its tested build configurations
# (tensorflow.org/install/source_windows#gpu): 2.0 CUDA 10.0/cuDNN 7.4, 2.1-2.3 10.1/7.6, 2.4 11.0/8.0,
# 2.5-2.10 11.2/8.1. The DLL names follow NVIDIA's: cudart64_110.dll serves every CUDA 11.x.
_TF_WINDOWS = (((2, 0), "10.0", "7"), ((2, 1), "10.1", "7"), ((2, 4), "11.0", "8"), ((2, 5), "11.2", "8"))


def _tf_needs(version: str) -> tuple[str, str] | None:
    from gpudoctor.versions import vkey

    key = vkey(version)[:2]
    found = None
    for since, cuda, cudnn in _TF_WINDOWS:
        if key >= since:
            found = (cuda, cudnn)
    return found


def _cudart_dll(cuda: str) -> str:
    major, _, minor = cuda.partition(".")
    return f"cudart64_{major}0.dll" if int(major) >= 11 else f"cudart64_{major}{minor or '0'}.dll"


def _tf_load_failed(facts: Facts, wanted: list[str]) -> bool:
    """Whether the pasted text shows a load of one of these DLLs (or another CUDA/cuDNN DLL) failing."""
    names = {w.lower() for w in wanted}
    for e in facts.pasted.errors:
        soname = (e.get("soname") or "").lower()
        if e.kind == "library-missing" and (soname in names or _CUDA_DLL.fullmatch(soname) or _CUDNN_DLL.fullmatch(soname)):
            return True
    return False


def tensorflow_dlls_unshown(facts: Facts, ctx: Context) -> tuple[str, ...]:
    """The DLLs a native-Windows TensorFlow GPU build shown in a paste loads, where the paste lists no DLL folder and no
    failed load (so whether they are on PATH is unknown, not missing): where.exe decides, with cuBLAS of the same CUDA
    and, for cuDNN 8, its sub-libraries (cuDNN 8.3 and later also need zlibwapi.dll, which they do not ship: NVIDIA's
    cuDNN 8 installation guide for Windows). Empty where the check judges the DLLs itself or nothing applies."""
    win = _win(facts)
    found = facts.frameworks.tensorflow
    if win is None or not facts.pasted.partial or not isinstance(found, Found) or any(d.via in SEARCHED for d in win.dll_dirs):
        return ()
    tf = found.value
    if tf.distribution == "tensorflow-cpu" or tf.is_cuda_build is False:
        return ()
    row = ctx.matrix.tensorflow_release(tf.version)
    needs = _tf_needs(tf.version)
    if (row is not None and not row.windows_gpu) or needs is None:
        return ()
    cuda, cudnn = needs
    wanted = [_cudart_dll(cuda), f"cublas64_{cuda.split('.')[0]}.dll", f"cudnn64_{cudnn}.dll"]
    if _tf_load_failed(facts, wanted):
        return ()
    if cudnn == "8":
        wanted += ["cudnn_cnn_infer64_8.dll", "cudnn_ops_infer64_8.dll", "zlibwapi.dll"]
    return tuple(wanted)


def check_framework_dlls(facts: Facts, ctx: Context) -> Iterable[Finding]:
    found = list(_tensorflow_dlls(facts, ctx))
    yield from found
    if not found and facts.pasted.partial:
        runtime = _vc_runtime(facts)
        yield from (runtime,) if runtime is not None else _reported_dlls(facts, ctx)


# Windows' loader errors torch raises with ' Error loading "<dll>" or one of its dependencies.' that are no DLL missing
# from the search (catalogue.toml's Windows block): 127, a function missing (DLLs of two releases); 1114, a DLL's start-up
# failed; 193, a file of the other architecture or truncated; 1455, the commit limit; 4551, code integrity (Smart App
# Control) refusing an unsigned DLL. The number is read, as the system's text before it is in the machine's language;
# cuDNN 8 prints the number after its own words ("Could not load library <dll>. Error code 193": catalogue.toml's
# cudnn8-sublibrary-bad-image reads 193).
_NOT_MISSING = LazyPattern(r"\[WinError (?:127|193|1114|1455|4551)\]|\bError code 193\b")
# torch's first DLL, c10.dll, links only the C++ runtime and Windows' own DLLs (torch/__init__.py loads torch\lib's DLLs
# after checking vcruntime140.dll, msvcp140.dll and vcruntime140_1.dll): where it is not found (126) or does not start
# (1114), the Visual C++ runtime is missing or older than torch's build.
_C10 = LazyPattern(r"site-packages[\\/]+torch[\\/]+lib[\\/]+c10\.dll", re.IGNORECASE)
# ERROR_MOD_NOT_FOUND (126) as Windows words it after "DLL load failed": English and Chinese, the two the threads show
_NOT_FOUND_126 = LazyPattern(r"DLL load failed[^\n]{0,60}?: (?:The specified module could not be found|找不到指定的模块)")


def _vc_runtime(facts: Facts) -> Finding | None:
    """torch's warning that the Visual C++ runtime did not load, or Windows refusing torch's c10.dll (126, 1114): the
    Microsoft Visual C++ 2015-2022 Redistributable (x64) is installed, or updated, on Windows; no PATH or package fixes
    it (nagadomi/nunif issue 701: 1114 on c10.dll with torch 2.9, fixed by the latest redistributable)."""
    warned = facts.pasted.reported("vc-runtime-missing")
    c10 = [
        e
        for e in (*facts.pasted.reported("library-missing"), *facts.pasted.reported("windows-dll-init-failed"))
        if _C10.search(e.line) and not re.search(r"\[WinError (?!126\]|1114\])\d+\]", e.line)
    ]
    # torch's own extension (torch._C) not loading a DLL it needs, in a CPU build: the wheel carries every DLL of torch
    # and links no CUDA, so what it does not find is the Visual C++ runtime (PyTorch's Windows notes, "Import error":
    # the wheels do not pack the VS2017 redistributable; pytorch/pytorch issues 4518 and 9071). A CUDA build's import
    # can also miss a CUDA DLL, which the text then names: not judged here.
    t = facts.frameworks.torch
    if isinstance(t, Found) and t.value.build_known and not t.value.cuda and not t.value.hip:
        c10 += [
            e
            for e in facts.pasted.reported("extension-dll-load-failed")
            if (e.get("module") or "_C") == "_C" and _NOT_FOUND_126.search(e.line)
        ]
    if not warned and not c10:
        return None
    old = not warned and all("[WinError 1114]" in e.line for e in c10)
    lines = list(dict.fromkeys(e.line for e in (*warned, *c10)))[:2]
    return Finding(
        "windows-dll-missing",
        Severity.ERROR,
        "frameworks",
        "the Microsoft Visual C++ runtime torch needs is " + ("older than its build" if old else "not installed"),
        (
            "Windows found torch's c10.dll and its start-up failed (error 1114): c10.dll links only the Visual C++ "
            "runtime and Windows' own DLLs, so the installed Microsoft Visual C++ 2015-2022 runtime is older than the "
            "one this torch was built with."
            if old
            else "torch could not load the Visual C++ runtime (vcruntime140.dll, msvcp140.dll, vcruntime140_1.dll) "
            "that every DLL of it links, as the text shows: the Microsoft Visual C++ 2015-2022 Redistributable (x64) "
            "is not installed, or is a release before 2019, which lacks vcruntime140_1.dll. torch's own DLLs then fail "
            "to load, starting with c10.dll."
        )
        + " Neither PATH nor reinstalling torch changes it.",
        tuple(ev("pasted", line) for line in lines),
        Remediation(
            "Install the current Microsoft Visual C++ 2015-2022 Redistributable (x64) on Windows (winget upgrades an "
            "older one; its installer asks for an administrator's consent), then start the program again.",
            (
                Cmd(
                    ("winget", "install", "--id", "Microsoft.VCRedist.2015+.x64", "--exact"),
                    note="or Microsoft's installer: https://aka.ms/vs/17/release/vc_redist.x64.exe",
                ),
            ),
            component="platform",
            where="Windows",
        ),
    )


def _tensorflow_dlls(facts: Facts, ctx: Context) -> Iterable[Finding]:
    from gpudoctor.checks.driver import no_gpu_said

    win = _win(facts)
    found = facts.frameworks.tensorflow
    if win is None or not isinstance(found, Found) or no_gpu_said(facts) is not None:
        return  # (the reporter says there is no GPU: TensorFlow's "Could not load" is then its informational log)
    tf = found.value
    # On Windows the plain `tensorflow` package of 2.1-2.10 is the GPU build (tensorflow.org/install/pip:
    # "CPU and GPU support (Ubuntu and Windows)"); only tensorflow-cpu or a build_info saying so is not.
    if tf.distribution == "tensorflow-cpu" or tf.is_cuda_build is False:
        return
    row = ctx.matrix.tensorflow_release(tf.version)
    if row is not None and not row.windows_gpu:
        return  # framework-windows-native-gpu: no native GPU support at all
    needs = _tf_needs(tf.version)
    if needs is None:
        return
    cuda, cudnn = needs
    if tf.cuda and tf.cuda[:1].isdigit():
        cuda = tf.cuda
    if tf.cudnn and tf.cudnn[:1].isdigit():
        cudnn = tf.cudnn.split(".")[0]
    wanted = [_cudart_dll(cuda), f"cudnn64_{cudnn}.dll"]
    searched = [d for d in win.dll_dirs if d.via in SEARCHED]
    if not searched and facts.pasted.partial and not _tf_load_failed(facts, wanted):
        return  # a paste that lists no DLL folder and no failed load shows nothing missing: tensorflow_dlls_unshown asks
    missing = [dll for dll in wanted if not any(dll in d.dlls for d in searched)]
    if not missing:
        return
    elsewhere: dict[str, DllDir] = {}
    for dll in missing:
        for d in win.dll_dirs:
            if d.via not in SEARCHED and dll in d.dlls:
                elsewhere.setdefault(dll, d)
                break
    cudnn_missing = any(dll.startswith("cudnn") for dll in missing)
    label = "cuDNN" if cudnn_missing and len(missing) == 1 else "CUDA"
    detail = (
        f"TensorFlow {tf.version} loads {', '.join(wanted)} (built for CUDA {cuda}, cuDNN {cudnn}) through Windows' "
        "DLL search: the Python folder, System32, then PATH. "
        + "; ".join(
            f"{dll} is in {winpath.to_native(elsewhere[dll].path)}, which is not on PATH"
            if dll in elsewhere
            else f"{dll} is in none of the {len(searched)} searched folders"
            for dll in missing
        )
        + ". TensorFlow logs \"Could not load dynamic library '"
        + missing[0]
        + "'\" and runs on the CPU."
    )
    yield Finding(
        "windows-dll-missing",
        Severity.ERROR,
        "cudnn" if label == "cuDNN" else "frameworks",
        f"TensorFlow {tf.version} cannot find {', '.join(missing)} on this Windows machine",
        detail,
        tuple(ev("dll-search", f"{dll}: not found in the DLL search path") for dll in missing)
        + tuple(
            ev("dll-search", f"{dll}: found in {elsewhere[dll].path} ({elsewhere[dll].via}, not searched)") for dll in elsewhere
        ),
        _dll_remediation(facts, missing, elsewhere, cuda, cudnn),
    )


# The CUDA toolkit's DLLs by name and the CUDA major in it (cublas64_11.dll, cudart64_110.dll: CUDA 11), and cuDNN's.
_CUDA_DLL = LazyPattern(r"(?:cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvrtc|nvjpeg|nvJitLink)64_(\d{2})\d*\.dll")
_CUDNN_DLL = LazyPattern(r"cudnn\w*64_(\d+)\.dll")
# Python 3.8 changed the search for a compiled module's DLLs (docs.python.org/3/whatsnew/3.8.html, "Changes in the
# Python API": "Only the system paths, the directory containing the DLL or PYD file, and directories added with
# add_dll_directory() are searched for load-time dependencies. Specifically, PATH and the current working directory
# are no longer used"); a library loaded by name (Paddle's LoadLibrary, TensorRT's own PATH walk) still reads PATH.
# Where NVIDIA's CUDA installer puts a toolkit by default (one folder per version).
_TOOLKIT_DIR = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v"


def _reported_dlls(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A DLL the pasted text shows a program could not find (Paddle's error 126, TensorRT's "Is it on your PATH?"):
    Windows looks in the program's folder, System32 and PATH, so the folder that holds it goes on PATH. The
    libraries a framework's own check explains (ctranslate2's cuBLAS, a wheel's build) and onnxruntime's providers
    are theirs."""
    from gpudoctor.checks import cudnn_locate
    from gpudoctor.checks.driver import no_gpu_said
    from gpudoctor.checks.frameworks import check_cuda_libs
    from gpudoctor.checks.libraries import explained
    from gpudoctor.checks.reported import _TF_WARNING, _emits, _said, frameworks_named, other_vendor_gpu_only
    from gpudoctor.cmdline import Placeholder, PrependPath
    from gpudoctor.planner.remedy import keep_path

    if not facts.platform.system.lower().startswith("win") or no_gpu_said(facts) or other_vendor_gpu_only(facts):
        return
    judged, _ = explained(facts, ctx)
    # (TensorFlow's "W ... Could not load dynamic library" is a warning it goes on from, on the CPU: not a failure)
    failed = [e for e in _said(facts, "library-missing") if not _TF_WARNING.search(e.line) and not _NOT_MISSING.search(e.line)]
    dlls = [s for e in failed if (s := e.get("soname") or "").lower().endswith(".dll") and s not in judged]
    if not dlls or "onnxruntime" in frameworks_named(facts) or _emits(check_cuda_libs, facts, ctx, "framework-cuda-libs-missing"):
        return
    dll = dlls[0]
    line = next(e.line for e in failed if e.get("soname") == dll)
    if (m := _PACKAGE_DLL.search(line)) and m.group(2).lower() == dll.lower():
        yield _package_dll(facts, ctx, dll, m.group(1), line)
        return
    if (trt := _TENSORRT_DLL.fullmatch(dll)) and (found := _tensorrt_dll(facts, dll, trt.group(1), line)):
        yield found
        return
    if _CUDNN8_OWN_126.search(line):
        yield _cudnn8_sublibrary(facts, dll, line)
        return
    if (located := cudnn_locate.LOCATES.search(line)) and located.group("dll").lower() == dll.lower():
        # cuDNN's own "Could not locate <sub-library>": the text's facts decide between another major, another
        # CUDA build and a folder not searched (gpudoctor.checks.cudnn_locate)
        yield cudnn_locate.not_located(facts, ctx, dll, line)
        return
    if (cupy := _CUPY_TOOLKIT_DLL.search(line)) and cupy.group("dll") == dll:
        yield _cupy_toolkit_dll(dll, cupy.group("major"), line)
        return
    if (blas := _CUDNN8_LOCATES_CUBLAS.search(line)) and blas.group("dll").lower() == dll.lower():
        yield _cudnn8_asks_cublas(dll, blas.group("major"), line)
        return
    # (CUDA_PATH's value, where the text copies it, names the toolkit installed: its bin is the folder)
    said = [
        e.get("cuda") or ""
        for e in _said(facts, "cuda-runtime-said") + _said(facts, "cuda-toolkit-said") + _said(facts, "cuda-path-value")
    ]
    # (the toolkits the text says are installed, a runtime a program printed aside: none of the DLL's major among them,
    # and one of another major, is a toolkit of that major to install, not a folder to put on PATH)
    installed = [
        e.get("cuda") or ""
        for e in _said(facts, "cuda-toolkit-said") + _said(facts, "cuda-have-said") + _said(facts, "cuda-path-value")
    ]
    if (m := _CUDA_DLL.fullmatch(dll)) and (other := _other_major_only(m.group(1).lstrip("0"), [*installed, *said], installed)):
        yield _toolkit_of_major_missing(facts, dll, m.group(1).lstrip("0"), other, line)
        return
    parts: tuple = ()
    search: tuple[Cmd, ...] = ()
    if m := _CUDA_DLL.fullmatch(dll):
        version = next((v for v in said if v.split(".")[0] == m.group(1).lstrip("0")), "")
        where = f"the CUDA {version or m.group(1) + '.x'} toolkit's bin folder"
        parts = (_TOOLKIT_DIR + version + "\\bin",) if version else (Placeholder("cuda-toolkit-folder"), "\\bin")
    elif _CUDNN_DLL.fullmatch(dll):
        where = "cuDNN's bin folder (where its Windows zip was unpacked, or the CUDA toolkit's bin it was copied into)"
        parts = (Placeholder("cudnn-folder"), "\\bin")
    elif dll.lower() in _CUDNN8_NEEDS[:1]:
        # (zlibwapi.dll: cuDNN 8.3 to 8.9 load it and ship none; the list below, _CUDNN8_NEEDS, cites the guide)
        where = (
            "the folder that holds zlibwapi.dll (cuDNN 8.3 to 8.9 load it and do not ship it: NVIDIA's cuDNN 8 "
            "installation guide for Windows has zlib's x64 zlibwapi.dll put in a folder on PATH, such as the CUDA "
            "toolkit's bin)"
        )
        parts = (Placeholder("folder-holding-the-dll"),)
        search = _dll_search(facts, dll)
    else:
        where = f"the folder that holds {dll} (a zip's lib folder, such as TensorRT's)"
        parts = (Placeholder("folder-holding-the-dll"),)
        search = _dll_search(facts, dll)
    yield Finding(
        "windows-dll-missing",
        Severity.ERROR,
        "cudnn" if _CUDNN_DLL.fullmatch(dll) else "frameworks",
        f"{dll} is not found where Windows looks for it",
        f"The program could not load {dll}, as the text shows. Windows looks for a DLL in the program's folder, "
        "System32 and the folders on PATH (never LD_LIBRARY_PATH); since Python 3.8 the DLLs a compiled module "
        "needs are no longer searched on PATH either, only where os.add_dll_directory adds a folder. So the DLL is "
        f"not installed, or {where} is not on PATH in the process that ran: a PATH changed after the terminal or "
        "the IDE started is not seen there.",
        (ev("pasted", line),),
        Remediation(
            f"Put {where} first on PATH in the shell that starts the program, then start it again from there (where "
            "Python itself loads the DLL, os.add_dll_directory with that folder, before the import, does the same)."
            + keep_path(facts, windows=True),
            (*search, PrependPath("PATH", parts, note=f"the folder that holds {dll}")),
            component="environment",
        ),
    )


def _other_major_only(major: str, said: list[str], installed: list[str]) -> str:
    """The CUDA the text says is installed where it names no toolkit of the DLL's major at all ("" otherwise)."""
    if any(v.split(".")[0] == major for v in said):
        return ""
    return next((v for v in installed if v.split(".")[0].isdigit() and v.split(".")[0] != major), "")


def _toolkit_of_major_missing(facts: Facts, dll: str, major: str, other: str, line: str) -> Finding:
    """A program built for CUDA <major> could not load that CUDA's DLL, and the text says the toolkit installed is of
    another major. Each CUDA toolkit's DLLs carry its major in their names (cublasLt64_12.dll, cublasLt64_13.dll) and
    NVIDIA's Windows installer puts each version in a folder of its own (...\\CUDA\\v<major.minor>), so no folder on the
    machine holds the DLL: a toolkit of that major goes beside the other, and its bin on PATH (danielgatis/rembg#783 and
    deepbeepmeep/Wan2GP#1513: onnxruntime-gpu's CUDA 12 build with only CUDA 13 installed; the Wan2GP reporter installed
    CUDA 12.8 beside 13 and it ran). A driver runs the libraries of an older CUDA than the newest it supports (NVIDIA's
    CUDA Compatibility guide, docs.nvidia.com/deploy/cuda-compatibility); a newer one needs a driver that supports it."""
    from gpudoctor.cmdline import Placeholder, PrependPath
    from gpudoctor.planner.remedy import keep_path

    older = other.split(".")[0].isdigit() and int(major) < int(other.split(".")[0])
    return Finding(
        "windows-dll-missing",
        Severity.ERROR,
        "frameworks",
        f"{dll} is CUDA {major}'s, and the text says CUDA {other} is the toolkit installed",
        f"The program could not load {dll}, as the text shows: a DLL of CUDA {major}, which the program was built for. "
        f"The text says the CUDA toolkit installed is {other}, whose DLLs carry its own major in their names, and "
        "each toolkit version installs into a folder of its own: no folder on this machine holds a CUDA "
        f"{major} copy, and no PATH change finds one. "
        + (
            f"The driver that runs CUDA {other} runs CUDA {major}'s libraries too: it needs no change."
            if older
            else f"CUDA {major} needs a driver that supports it (nvidia-smi's 'CUDA Version')."
        ),
        (ev("pasted", line),),
        Remediation(
            f"Install a CUDA {major}.x toolkit beside CUDA {other} (NVIDIA's installer keeps both, each in its own "
            f"folder; for a Python program, NVIDIA's CUDA {major} library wheels in its environment do too), then put "
            f"its bin folder first on PATH in the shell that starts the program, and start it again from there."
            + keep_path(facts, windows=True),
            (
                Cmd(
                    ("where.exe", "/R", _TOOLKIT_DIR.removesuffix("\\v"), dll.split("64_", 1)[0] + "64_*.dll"),
                    note="each installed toolkit's copy: the folder names its version",
                ),
                PrependPath(
                    "PATH",
                    (Placeholder(f"cuda-{major}-toolkit-folder"), "\\bin"),
                    note=f"after installing CUDA {major}.x: the folder that holds {dll}",
                ),
            ),
            component="toolkit",
        ),
    )


# CuPy's message where a CUDA toolkit library it loads is not found (cupy/cupy cupy_backends/cuda/_softlink.pyx
# @ff8d2b96: f'CuPy failed to load {libname}: {type(e).__name__}: {e}'), with the toolkit's DLL names on Windows (NVRTC's
# carries the CUDA major and minor: nvrtc64_120_0.dll is CUDA 12's, nvrtc64_112_0.dll 11.2's).
_CUPY_TOOLKIT_DLL = LazyPattern(
    r"CuPy failed to load (?P<dll>(?:nvrtc|cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvJitLink)64_"
    r"(?P<major>\d{2})\d{0,2}(?:_\d)?\.dll)"
)


def _cupy_toolkit_dll(dll: str, major: str, line: str) -> Finding:
    """CuPy on Windows could not load a CUDA toolkit DLL. Its wheels (cupy-cuda11x, cupy-cuda12x) carry none of the
    toolkit's libraries: on import CuPy adds the bin folder of the toolkit CUDA_PATH names (else the nvcc on PATH) to the
    DLL search (cupy/cupy cupy/_environment.py @3a2a047c: os.environ.get('CUDA_PATH', ''), os.add_dll_directory), and
    torch's or pip's copies of the same libraries are not searched. So a CUDA toolkit of the wheel's major must be
    installed, and CUDA_PATH name it (NVIDIA's Windows installer sets it); the maintainers' answer in the threads
    (98mxr/GMFSS_Fortuna issue 6: "Cupy requires a local installation of the CUDA runtime, not like pytorch")."""
    toolkit = f"CUDA {major.lstrip('0')}.x"
    return Finding(
        "windows-dll-missing",
        Severity.ERROR,
        "toolkit",
        f"CuPy finds no {toolkit} toolkit's {dll}",
        f"CuPy could not load {dll}, as the text shows. CuPy's Windows wheels do not carry the CUDA toolkit's "
        "libraries: it loads them from the bin folder of the toolkit CUDA_PATH names, not from the CUDA libraries "
        f"torch or other packages installed. So no {toolkit} toolkit is installed, or CUDA_PATH names another one "
        "(the installer of each toolkit sets it to that toolkit's folder).",
        (ev("pasted", line),),
        Remediation(
            f"Look for the {toolkit} toolkit's {dll.split('64_', 1)[0]} DLL under NVIDIA's toolkit folder and read "
            f"CUDA_PATH; none there: install the {toolkit} toolkit (its installer sets CUDA_PATH), then start the "
            "program from a new shell, which reads the new CUDA_PATH.",
            (
                Cmd(
                    ("where.exe", "/R", _TOOLKIT_DIR.removesuffix("\\v"), dll.split("64_", 1)[0] + "64_*.dll"),
                    note="each toolkit's copy: the folder names its version",
                ),
                Cmd(
                    ("reg", "query", _MACHINE_ENV_KEY, "/v", "CUDA_PATH"),
                    note=f"the toolkit CuPy loads from, as the installer set it: it must be a {toolkit} folder",
                ),
            ),
            component="toolkit",
        ),
    )


# cuDNN 8's own line where it cannot load the cuBLAS it links lazily on first use: "Could not locate cublasLt64_10.dll.
# Please make sure it is in your library path!" (the wording cuDNN 8 prints for zlibwapi.dll too: catalogue.toml's
# cudnn-zlibwapi-not-found; the threads: hacksider/Deep-Live-Cam#1338 and #1063, iFayens/ComfyUI-PuLID-Flux2#5,
# lightvector/KataGo#751). cuDNN is closed source: the line is read as the threads quote it. The major in the name is the
# CUDA the loaded cuDNN was built for (cuDNN 8's Windows packages for CUDA 10.2 link cublas64_10.dll and
# cublasLt64_10.dll, those for CUDA 11.x the _11 names, those for CUDA 12.x the _12 ones).
_CUDNN8_LOCATES_CUBLAS = LazyPattern(
    r"Could not locate (?P<dll>cublas(?:Lt)?64_(?P<major>\d{2})\.dll)\. Please make sure it is in your library path"
)
# The cuDNN 8 DLLs that link cuBLAS (the main one and its inference sub-libraries: cudnn64_8.dll loads the others), and
# cuDNN 9's main DLL, whose copy found first says which cuDNN the process loads.
CUDNN_FIRST_FOUND = ("cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_cnn_infer64_8.dll", "cudnn64_9.dll")


def cudnn_asks_cublas_where(dll: str, note: bool = True) -> Cmd:
    """where.exe over the cuDNN DLLs and each CUDA major's copy of a cuBLAS DLL a Windows program could not find: the
    first cuDNN PATH holds and the majors of the cuBLAS copies name the CUDA each was built for. A cuBLAS DLL asked for by
    a program built for another CUDA comes from the cuDNN found first (KataGo#751: a CUDA 11.2 build asking for CUDA 10's
    cublasLt64_10.dll), so where the copies are decides, not where the one asked for is."""
    stem = dll.split("64_", 1)[0]
    majors = dict.fromkeys((dll, *(f"{stem}64_{m}.dll" for m in ("11", "12"))))
    return Cmd(
        ("where.exe", *CUDNN_FIRST_FOUND, *majors),
        note=f"which cuDNN PATH finds first, and each CUDA major's {stem} copy: the majors name the CUDA each was built for"
        if note
        else "",
    )


def cublas_asked_by_cudnn(facts: Facts) -> set[str]:
    """The cuBLAS DLLs (lower case) the text shows cuDNN 8 itself could not find: their CUDA major is the cuDNN's, not
    necessarily the program's, so no toolkit of that major is asked to be installed for them."""
    return {m.group("dll").lower() for e in facts.pasted.errors if (m := _CUDNN8_LOCATES_CUBLAS.search(e.line))}


def _cudnn8_asks_cublas(dll: str, major: str, line: str) -> Finding:
    """cuDNN 8 printed that it cannot find the cuBLAS of the CUDA it was built for: the cuDNN the process loaded is a
    build for CUDA <major>. A program built for that CUDA lacks that CUDA's cuBLAS on PATH; a program built for another
    CUDA (onnxruntime-gpu's, KataGo's, TensorFlow's CUDA 11 and 12 builds) loaded a stray cuDNN of that major found first
    on PATH (a zip copied into another toolkit's bin, another program's folder). Which one the reads say: installing the
    CUDA the message names only feeds a stray cuDNN (KataGo#751: CUDA 10 installed, then zlibwapi.dll, then a crash).
    cuDNN 8's packages for CUDA 10.2 (cuDNN 8.4.0's support matrix, docs.nvidia.com/deeplearning/cudnn/archives/
    cudnn-840) are the source of the _10 names: no cuDNN 9 and no cuDNN 8.9 is built for CUDA 10."""
    cuda = major.lstrip("0")
    return Finding(
        "windows-dll-missing",
        Severity.ERROR,
        "cudnn",
        f"cuDNN asks for {dll}: the cuDNN this program loaded is a build for CUDA {cuda}",
        f"'Could not locate {dll}' is cuDNN 8's own line as it loads cuBLAS, which it links from the CUDA it was built "
        f"for: so the cuDNN the process loaded is a build for CUDA {cuda} (its CUDA 11 and 12 builds ask for "
        f"{dll.split('64_', 1)[0]}64_11.dll and _12.dll). Where the program is built for CUDA {cuda}, that CUDA's "
        f"cuBLAS is not on PATH. Where it is built for another CUDA, a stray cuDNN for CUDA {cuda} is found first on "
        "PATH (a cuDNN zip copied into a CUDA folder or beside another program), and installing "
        f"CUDA {cuda} only feeds that wrong cuDNN. The driver is not the cause.",
        (ev("pasted", line),),
        Remediation(
            "Read which cuDNN PATH finds first and the CUDA majors of the cuBLAS copies (where.exe), and the CUDA "
            f"the program is built for. Built for another CUDA than {cuda}: take the folder of that cuDNN off PATH (or "
            "delete the stray cudnn*64_8.dll copies there) and put the cuDNN built for the program's CUDA in its place "
            "(with zlibwapi.dll beside it for cuDNN 8.3 to 8.9). Built for CUDA "
            f"{cuda}: put that CUDA toolkit's bin folder, which holds {dll}, first on PATH. Then start the program "
            "again from a new window.",
            (cudnn_asks_cublas_where(dll),),
            component="environment",
        ),
    )


def _dll_search(facts: Facts, dll: str) -> tuple[Cmd, ...]:
    """Where a DLL of no known installer was unpacked (a zip's lib folder): where.exe /R searches a folder tree for a
    file name and prints each full path (Microsoft's `where` reference: /R Dir Pattern), so its answer is the folder the
    PATH step needs, which nothing in the text decides. The drive of the interpreter the text shows run is searched
    first (a project and its zips are often unpacked beside it), then the system drive."""
    drives = []
    python = facts.frameworks.python
    exe = python.value.executable if isinstance(python, Found) else ""
    if m := _DRIVE.match(exe or ""):
        drives.append(m.group(1).upper() + ":\\")
    drives.append("C:\\")
    return tuple(
        Cmd(("where.exe", "/R", d, dll), note=f"the folders on drive {d[:2]} that hold {dll}: the one to put on PATH")
        for d in dict.fromkeys(drives)
    )


_DRIVE = LazyPattern(r"([A-Za-z]):[\\/]")


# cuDNN 8's own message where it cannot load one of its sub-libraries (cudnn_ops_infer64_8.dll and the others it loads on
# first use): "Could not load library <dll>. Error code <n>", printed by cudnn64_8.dll, so cuDNN's main DLL was found.
# 126 is ERROR_MOD_NOT_FOUND, said as well where the sub-library is found and a DLL it links is not.
_CUDNN8_OWN_126 = LazyPattern(r"Could not load library cudnn_(?:ops|cnn|adv)_(?:infer|train)64_8\.dll\.? Error code 126\b")
# What cuDNN 8's sub-libraries link on Windows besides cuDNN's own DLLs: cuBLAS and cuBLASLt of the CUDA major the zip
# was built for (cudnn-windows-x86_64-8.x_cuda11-archive: cublas64_11.dll; the cuda12 builds of 8.9: cublas64_12.dll),
# and zlibwapi.dll from 8.3 on, which cuDNN does not ship (NVIDIA's cuDNN 8 installation guide, Windows, "Installing
# Zlib": zlibwapi.dll into a folder on PATH).
_CUDNN8_NEEDS = ("zlibwapi.dll", "cublas64_11.dll", "cublasLt64_11.dll", "cublas64_12.dll", "cublasLt64_12.dll")


def _standalone(facts: Facts):
    """The catalogued standalone application the paste is (gpudoctor/planner/apps.toml [[standalone]]), or None."""
    from gpudoctor.facts import STANDALONE_APP
    from gpudoctor.planner.apps import standalone

    said = next((c for c in facts.pasted.cues if c.get("cue") == STANDALONE_APP), None) if facts.pasted.partial else None
    return standalone(said.get("means") or "") if said is not None else None


def _cudnn8_sublibrary(facts: Facts, dll: str, line: str) -> Finding:
    """cuDNN 8 loaded and one of its sub-libraries did not (error 126). cuDNN's main DLL printed it, from cuDNN's own
    folder or from a program's package that carries it alone: CTranslate2's Windows wheels ship cudnn64_8.dll and none
    of its sub-libraries (OpenNMT/CTranslate2 python/tools/prepare_build_environment_windows.sh @c95fd4e4, v3.24.0:
    'cp "$CUDA_ROOT/bin/cudnn64_8.dll" python/ctranslate2/'). So the sub-library itself, or what it links (zlibwapi.dll,
    the cuBLAS of the CUDA major the cuDNN was built for), is not on PATH; where.exe reads which first. Where a Python
    environment runs the program, NVIDIA's wheels of cuDNN 8 and cuBLAS for CUDA 11 (the builds that load cuDNN 8 on
    Windows: CTranslate2 3.x, onnxruntime-gpu before 1.19, TensorFlow up to 2.10) bring every DLL into it, without a
    toolkit (faster-whisper's README installs the two wheels and puts their folders on the path); a compiled program
    takes CUDA 11.8's toolkit."""
    from gpudoctor.checks.libraries import _CUDNN_CU11
    from gpudoctor.cmdline import Output, PrependPath
    from gpudoctor.planner.remedy import keep_path, python_exe
    from gpudoctor.planner.where import in_tool

    where = Cmd(("where.exe", dll, *_CUDNN8_NEEDS), note="which of cuDNN 8's own dependencies PATH holds")
    compiled = any(c.get("cue") == NO_PYTHON for c in facts.pasted.cues)
    steps: tuple
    if (frozen := _standalone(facts)) is not None:
        # A standalone executable (a frozen program, no Python to install wheels into): Windows loads a DLL by name
        # from the executable's own folder first, never from a subfolder, and the project publishes the DLLs to put there.
        route = (
            f"put {frozen.libs} into the folder that holds {frozen.exe} itself (not a bin subfolder: Windows looks in "
            "the executable's own folder, then PATH); no pip, conda or toolkit install is needed"
        )
        steps = (
            Cmd(("where.exe", "/R", "C:\\", frozen.exe), note=f"the folder of {frozen.exe}: where the DLLs go"),
            Cmd(
                ("where.exe", "/R", "C:\\", dll, *_CUDNN8_NEEDS),
                note="the copies on drive C: (a bin subfolder beside the executable among them): copy them beside it",
            ),
        )
    elif compiled:
        route = (
            "where cublas64_11.dll is missing, install the CUDA 11.8 toolkit (or only its cuBLAS component) beside the "
            "CUDA 12 one and put its bin folder on PATH (or move to a cuDNN, and a program, built for CUDA 12)"
        )
        steps = (
            where,
            PrependPath(
                "PATH",
                (_TOOLKIT_DIR + "11.8\\bin",),
                note="where cublas64_11.dll was missing: after installing CUDA 11.8 or its cuBLAS",
            ),
        )
    else:
        exe = "python" if python_exe(facts) == "python3" else python_exe(facts)

        def bin_of(package: str, what: str) -> PrependPath:
            out = Output((exe, "-c", f"import nvidia.{package} as m; print(*m.__path__)"), site_dir=f"nvidia/{package}")
            return PrependPath("PATH", (out, "\\bin"), note=what)

        route = (
            f"with the Python that runs the program, install NVIDIA's wheels of cuBLAS and cuDNN 8 for CUDA 11 "
            f"(nvidia-cublas-cu11, {_CUDNN_CU11[8]}: every DLL cuDNN 8 loads, no toolkit, no root) and put both bin "
            "folders first on PATH; for a program built for CUDA 12 (CTranslate2 4.0 to 4.4), their -cu12 wheels "
            "(nvidia-cudnn-cu12==8.9.7.29) instead; or install the CUDA 11.8 toolkit (or its cuBLAS) and cuDNN 8 for "
            "CUDA 11 with their bin folders on PATH"
        )
        steps = (
            where,
            in_tool(facts, Cmd((exe, "-m", "pip", "install", "nvidia-cublas-cu11", _CUDNN_CU11[8]))),
            bin_of("cublas", "the cuBLAS wheel's bin folder, which holds cublas64_11.dll, first on PATH"),
            bin_of("cudnn", f"and cuDNN 8's, which holds {dll}"),
        )
    return Finding(
        "windows-dll-missing",
        Severity.ERROR,
        "cudnn",
        f"cuDNN 8 loaded, and its {dll} did not: it, or a DLL it needs in turn, is not found",
        f"cuDNN said 'Could not load library {dll}. Error code 126': cuDNN's main DLL (cudnn64_8.dll) printed it, "
        "loaded from cuDNN's folder or from a program's own package that carries it alone (CTranslate2's Windows "
        "wheels do). Windows' error 126 means the sub-library or a DLL it links is not found: zlibwapi.dll (cuDNN 8.3 "
        "and later on Windows need it and do not ship it), or cuBLAS of the CUDA major the cuDNN was built for "
        "(cublas64_11.dll and cublasLt64_11.dll for cuDNN 8 for CUDA 11: a CUDA 12 toolkit has only "
        "cublas64_12.dll). The driver is not the cause.",
        (ev("pasted", line),),
        Remediation(
            (
                "Find where the DLLs are and where the executable is (where.exe); then "
                + route
                + ", with zlibwapi.dll beside them where NVIDIA's cuDNN 8 zip is their source (cuDNN 8.3 and later need "
                "it and do not ship it). Start the program again."
            )
            if frozen is not None
            else "Find which of them PATH lacks (where.exe); then "
            + route
            + ". Put zlibwapi.dll (NVIDIA's zlib package that cuDNN's Windows install guide names) into a folder on "
            "PATH where where.exe finds none. Start the program from the same window." + keep_path(facts, windows=True),
            steps,
            component="environment",
        ),
    )


# TensorRT's own DLLs: nvinfer.dll, nvinfer_plugin.dll, nvonnxparser.dll up to TensorRT 8; from 10 the major in the name
# (nvinfer_10.dll, nvinfer_plugin_10.dll: the LIBRARIES list of NVIDIA/TensorRT python/packaging/bindings_wheel/tensorrt/
# __init__.py @a892d222, "nvinfer_plugin_##TENSORRT_MAJOR##.dll").
_TENSORRT_DLL = LazyPattern(
    r"nv(?:infer(?:_plugin|_lean|_dispatch|_builder_resource)?|onnxparser|parsers)(?:_(\d+))?\.dll", re.IGNORECASE
)
# What TensorRT's DLLs load in turn: the CUDA runtime and cuBLAS of the CUDA major the release was built for (any major
# here: where.exe lists each copy PATH holds, and the major in the names says which CUDA that is).
_TENSORRT_NEEDS = ("cudart64_*.dll", "cublas64_*.dll", "cublasLt64_*.dll")


def _tensorrt_dll(facts: Facts, dll: str, major: str | None, line: str) -> Finding | None:
    """A TensorRT DLL that did not load on Windows, by who said so. TensorRT's Python package walks PATH for its DLLs
    only where its libraries wheel (tensorrt_libs, which loads the DLLs from its own folder) did not import
    (python/packaging/bindings_wheel/tensorrt/__init__.py @a892d222): for TensorRT 10's pip install, whose DLLs come in
    tensorrt-cuNN-libs, that wheel is what is missing or of another version than the bindings. trtexec and the samples
    (samples/common/common.h, DynamicLibrary) print no reason on Windows: the DLL, or one it loads, is not found, and
    only where.exe shows which. A TensorRT 8 zip's lib folder on PATH stays _reported_dlls' answer."""
    from gpudoctor.planner.remedy import pip

    python_package = "Could not find:" in line
    if python_package and not major:
        return None  # TensorRT 8 and older on Windows came as a zip: its lib folder goes on PATH
    core = f"nvinfer_{major}.dll" if major else "nvinfer.dll"  # the core library every other TensorRT DLL loads
    where = Cmd(
        ("where.exe", dll, *((core,) if dll.lower() != core else ()), *_TENSORRT_NEEDS),
        note=f"which folders on PATH hold {dll} and the CUDA DLLs it loads: their major names the CUDA",
    )
    if python_package:
        # TensorRT 10's wheels per CUDA major (tensorrt-cu12-libs ...): the major the text says, else both
        said = {
            (e.get("cuda") or "").split(".")[0]
            for e in facts.pasted.errors
            if e.kind in ("cuda-version-said", "cuda-toolkit-said", "cuda-runtime-said")
        }
        majors = [c for c in ("12", "11") if c in said] or ["12", "11"]
        wheels = [f"tensorrt-cu{c}-{part}" for c in majors for part in ("libs", "bindings")]
        commands: tuple[Cmd, ...] = (
            pip(facts, "show", "tensorrt", *wheels),
            where,
        )
        detail = (
            f"TensorRT's Python package could not find {dll}, as the text shows. It looks for its DLLs on PATH only "
            f"when its libraries wheel (tensorrt_libs, installed as tensorrt-cuNN-libs for TensorRT {major}) did not "
            "import: so that wheel is not installed in this environment, or not at the version of the bindings "
            "(tensorrt-cuNN-bindings) beside it. Installing the bindings alone leaves the DLLs out; CUDA and the "
            "driver are not at fault."
        )
        fix = (
            "Read which TensorRT wheels this environment holds, then install tensorrt-cuNN-libs at the same version as "
            "tensorrt-cuNN-bindings (NN: the CUDA major, 12 or 11), or the tensorrt-cuNN package of that version, which "
            "brings both, in the environment that runs the program (the version the program's own requirements pin)."
        )
    else:
        commands = (where,)
        detail = (
            f"TensorRT could not open {dll}, as the text shows ('Unable to open library'; on Windows it prints no "
            "reason). Windows looks for it in the program's folder, System32 and PATH: where the DLL sits there, one "
            "it loads is what is missing, TensorRT's nvinfer or the CUDA runtime and cuBLAS of the CUDA major that "
            "TensorRT release was built for (not another CUDA's)."
        )
        fix = (
            "Find which DLL is missing (where.exe lists the copies PATH holds), then put the folder that holds it (the "
            "TensorRT lib folder, the bin folder of the CUDA toolkit of the TensorRT build's major) first on PATH in "
            "the shell that starts the program."
        )
    return Finding(
        "windows-dll-missing",
        Severity.ERROR,
        "frameworks",
        f"TensorRT's {dll} could not be loaded",
        detail,
        (ev("pasted", line),),
        Remediation(fix, commands, component="environment"),
    )


# A DLL inside an installed package's own folder (site-packages\\torch\\lib\\fbgemm.dll): the package loads it by its
# full path after adding its folder to the search (torch/__init__.py, os.add_dll_directory on torch\\lib), so the
# folder is searched already and what Windows could not find is a DLL *it* needs (error 126 names only the one loaded).
_PACKAGE_DLL = LazyPattern(r"site-packages[\\/]+([A-Za-z_]\w*)[\\/]+(?:[\w.-]+[\\/]+)*([\w.-]+\.dll)", re.IGNORECASE)


def package_own_dlls(facts: Facts) -> set[str]:
    """The DLLs (lower case) the text shows failing from an installed package's own folder: that folder is searched
    already, so where PATH holds a copy decides nothing (pasted.ask leaves them out of its where.exe)."""
    own = set()
    for e in facts.pasted.errors:
        if (
            e.kind == "library-missing"
            and (m := _PACKAGE_DLL.search(e.line))
            and m.group(2).lower() == (e.get("soname") or "").lower()
        ):
            own.add(m.group(2).lower())
    return own


# The torch 2.4.0 Windows wheels' fbgemm.dll needs libomp140.x86_64.dll (LLVM's OpenMP) and did not ship it: "import
# torch" fails with error 126 on fbgemm.dll where no Visual Studio install put it on the machine. A regression fixed in
# 2.4.1, which bundles it (pytorch/pytorch issue 131662, labelled "module: regression", closed with 2.4.1).
_TORCH_DLL_REGRESSION = {"2.4.0": "2.4.1"}
_FBGEMM = "fbgemm.dll"
# What a torch DLL links besides torch's own and the C++ runtime, from torch's build, with the DLLs where.exe reads:
# caffe2_nvrtc.dll links caffe2::nvrtc, which is CUDA::nvrtc and caffe2::cuda (pytorch/pytorch cmake/public/cuda.cmake
# @3c678a49), and on MSVC delay-loads the driver's nvcuda.dll, "so we can import torch compiled with cuda on a CPU-only
# machine" (caffe2/CMakeLists.txt, the caffe2_nvrtc target's -DELAYLOAD:nvcuda.dll). A pip wheel carries the NVRTC and
# CUDA runtime DLLs in torch\\lib; a conda build takes them from the environment's Library\\bin (threads:
# innnky/so-vits-svc#162, an Anaconda base; Comfy-Org/ComfyUI#989, a user site-packages).
_TORCH_DLL_LINKS = {
    "caffe2_nvrtc.dll": (
        " caffe2_nvrtc.dll links CUDA's NVRTC and runtime DLLs (nvrtc64_*.dll, cudart64_*.dll: in torch\\lib for a pip "
        "wheel, in the environment's Library\\bin for a conda build) and loads the driver's nvcuda.dll only when first "
        "used: a torch\\lib or an environment without them, or a copy of another CUDA found first, is what fails.",
        ("nvrtc64*.dll", "cudart64*.dll", "nvcuda.dll"),
    ),
}


def _package_dll(facts: Facts, ctx: Context, dll: str, package: str, line: str) -> Finding:
    from gpudoctor.planner.pick_torch import COMPANIONS, companion_specs
    from gpudoctor.planner.remedy import pip

    torch = facts.frameworks.torch
    version = torch.value.version if isinstance(torch, Found) and package == "torch" else ""
    # (the 2.4.0 regression is fbgemm.dll's own dependency: torch\\lib's DLLs load in name order, so another one failing
    # is either before fbgemm.dll, never reached, or after it, loaded with its libomp: not that regression)
    fbgemm = dll.lower() == _FBGEMM
    fixed = _TORCH_DLL_REGRESSION.get(version.split("+", 1)[0]) if fbgemm else None
    detail = (
        f"The program could not load {dll} or a DLL it needs, as the text shows. {dll} is {package}'s own, in its "
        "installed folder, which the package adds to the DLL search itself: so a dependency of it is what Windows "
        "could not find, and putting the folder on PATH changes nothing."
    )
    if package == "torch" and fixed:
        tag = version.partition("+")[2]
        index = ("--index-url", f"https://download.pytorch.org/whl/{tag}") if tag.startswith("cu") or tag == "cpu" else ()
        # The companions the text shows installed move in the same line, each to its release for the new torch.
        py = facts.frameworks.python
        dists = dict(py.value.distributions) if isinstance(py, Found) else {}
        shown = {n: dists[n] for n in COMPANIONS if n in dists}
        moved = companion_specs(ctx.matrix, shown, fixed, tag if index else None)
        return Finding(
            "windows-dll-missing",
            Severity.ERROR,
            "frameworks",
            f"PyTorch {version}'s {dll} needs a DLL that release did not ship",
            detail + f" PyTorch {version.split('+', 1)[0]}'s Windows wheels need libomp140.x86_64.dll (LLVM's OpenMP) beside "
            f"fbgemm.dll and did not ship it (pytorch/pytorch issue 131662, a regression); {fixed} ships it.",
            (ev("pasted", line), ev("framework", f"torch {version}")),
            Remediation(
                f"Upgrade PyTorch to {fixed}, the same build (from the same index), in this environment; upgrade "
                "torchvision and torchaudio with it where they are installed (each release pins its torch). Never "
                "take the DLL from a DLL-download site.",
                (pip(facts, "install", "--upgrade", f"torch=={fixed}", *moved, *index),),
                component="torch",
            ),
        )
    # Reads only, no install: _vc_runtime answered the runtime already where the text shows it missing (torch's own
    # warning that vcruntime140.dll, msvcp140.dll or vcruntime140_1.dll did not load) or c10.dll failing. Here neither:
    # torch/__init__.py loads torch\\lib's DLLs after that check, and c10.dll, which links the runtime, before the one
    # that failed, so installing the runtime is a guess before the deciding facts (the release, the listing of the
    # folder the ask shows). Microsoft's documented read of the installed 2015-2022 runtime is its registry value
    # (learn.microsoft.com/cpp/windows/redistributing-visual-cpp-files, "HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\
    # VisualStudio\\14.0\\VC\\Runtimes\\x64", value Version).
    ask = (
        pip(facts, "show", package),
        Cmd(
            ("reg", "query", "HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64", "/v", "Version"),
            note="the version of the Visual C++ 2015-2022 runtime installed; where it is missing or older than the "
            "package's build, install the current one",
        ),
    )
    return Finding(
        "windows-dll-missing",
        Severity.ERROR,
        "frameworks",
        f"{dll}, {package}'s own DLL, could not load: a DLL it needs is missing",
        detail
        + (
            (
                " With PyTorch the version decides: 2.4.0's Windows wheels did not ship libomp140.x86_64.dll, which "
                "fbgemm.dll needs (pytorch/pytorch issue 131662; 2.4.1 ships it). Otherwise the release and the DLLs its "
                "folder holds decide"
                if fbgemm
                else " The release and the DLLs its folder holds decide"
            )
            + (
                # torch/__init__.py loads glob(torch\\lib\\*.dll), a folder's listing in name order on NTFS
                ": torch loaded c10.dll, which needs the Visual C++ runtime, before this one."
                if dll.lower() > "c10.dll"
                else ", and the Visual C++ runtime installed."
            )
            + (_TORCH_DLL_LINKS[dll.lower()][0] if dll.lower() in _TORCH_DLL_LINKS else "")
            if package == "torch"
            else " The package's release and the Visual C++ runtime installed decide which."
        ),
        (ev("pasted", line),),
        Remediation(
            f"Read which {package} release is installed in this environment and which Visual C++ runtime Windows "
            "holds"
            + (
                ", and which copies of the DLLs it links PATH finds (where.exe)"
                if package == "torch" and dll.lower() in _TORCH_DLL_LINKS
                else ""
            )
            + ": "
            + ("with torch 2.4.0 upgrade it to 2.4.1 from the same index; " if package == "torch" and fbgemm else "")
            + "install the current Microsoft Visual C++ Redistributable (x64) only where it is missing or old.",
            ask
            + (
                (Cmd(("where.exe", *_TORCH_DLL_LINKS[dll.lower()][1]), note=f"the copies of what {dll} links"),)
                if package == "torch" and dll.lower() in _TORCH_DLL_LINKS
                else ()
            ),
            component="torch" if package == "torch" else "environment",
        ),
    )


def _dll_remediation(facts: Facts, missing: list[str], elsewhere: dict[str, DllDir], cuda: str, cudnn: str) -> Remediation:
    from gpudoctor.cmdline import SetEnv
    from gpudoctor.planner.remedy import library_dir

    if all(d in elsewhere for d in missing):
        folders = list(dict.fromkeys(winpath.to_native(elsewhere[d].path) for d in missing))
        current = facts.platform.env.get("PATH", "")
        return Remediation(
            "Put the folder(s) holding these DLLs on PATH: for this PowerShell session with the line below, and for "
            "good in Settings > System > About > Advanced system settings > Environment Variables > Path.",
            # Computed from PATH's value where the text shows it; else each folder put first, PATH's value kept.
            (SetEnv("PATH", ";".join([*folders, current])),)
            if current
            else tuple(library_dir(facts, (f,), windows=True) for f in reversed(folders)),
            component="cudnn" if all(d.startswith("cudnn") for d in missing) else "environment",
        )
    conda = facts.platform.env.get("CONDA_PREFIX")
    if conda:
        return Remediation(
            f"Install CUDA {cuda} and cuDNN {cudnn} into this conda environment, as TensorFlow's own Windows "
            "instructions do; conda puts their DLLs in Library\\bin, which the activated environment has on PATH.",
            (
                Cmd(
                    (
                        "conda",
                        "install",
                        "-c",
                        "conda-forge",
                        f"cudatoolkit={'11.2' if cuda.startswith('11') else cuda}",
                        f"cudnn={'8.1.0' if cudnn == '8' else cudnn}",
                    )
                ),
            ),
            component="cudnn",
        )
    runtime_missing = any(not d.startswith("cudnn") for d in missing if d not in elsewhere)
    toolkit = (
        f"Install the CUDA {cuda} toolkit (NVIDIA's Windows installer; it puts its bin folder on PATH), then "
        if runtime_missing
        else ""
    )
    return Remediation(
        toolkit
        + f"{'i' if toolkit else 'I'}nstall cuDNN {cudnn} for CUDA {cuda} (NVIDIA's cuDNN archive, the Windows zip) and copy "
        f"its bin\\*.dll into the CUDA {cuda} toolkit's bin folder, or put its bin folder on PATH; or create a conda "
        "environment and install cudatoolkit and cudnn there, as TensorFlow's Windows instructions do.",
        component="toolkit" if runtime_missing else "cudnn",
    )


# --- JAX's CUDA build on native Windows -------------------------------------------------------------------


def check_jax_windows(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A JAX CUDA build (jax[cuda12], a jax-cudaNN plugin, a +cuda jaxlib) asked for on native Windows: JAX publishes
    its CUDA builds for Linux only (the matrix's jax-install-docs; planner.pick_jax refuses every CUDA build off Linux),
    so pip falls back to the CPU jaxlib or finds nothing. The GPU route is WSL 2, where the Linux builds run on the
    Windows driver; the other is the CPU."""
    from gpudoctor.facts import JAX_CUDA_SAID
    from gpudoctor.planner.remedy import pip

    if not facts.pasted.partial or facts.platform.system.lower() != "windows":
        return
    cue = next((c for c in facts.pasted.cues if c.get("cue") == JAX_CUDA_SAID), None)
    if cue is None:
        return
    major = cue.get("means") or "12"
    yield Finding(
        "framework-windows-native-gpu",
        Severity.ERROR,
        "frameworks",
        f"JAX's CUDA {major} build was asked for on native Windows, where JAX publishes none",
        "JAX publishes its CUDA builds (the jax-cudaNN plugins and CUDA jaxlibs) for Linux only; on native Windows pip "
        "installs the CPU jaxlib or finds no matching distribution, whatever the driver and CUDA installed. WSL 2 runs "
        "the Linux builds on the Windows driver (no Linux driver is installed in it).",
        (ev("pasted", cue.get("line") or ""),),
        _wsl2_route(
            "jax",
            f"--upgrade 'jax[cuda{major}]'",
            "import jax; print(jax.devices())",
            "jax",
            Remediation(
                "Stay on native Windows with JAX on the CPU.", (pip(facts, "install", "--upgrade", "jax"),), component="jax"
            ),
        ),
        ("jax-install-docs",),
    )


# --- a Linux-only package on native Windows ---------------------------------------------------------------


def _wsl2_route(env: str, spec: str, verify: str, component: str, alternative: Remediation | None = None) -> Remediation:
    """The route of a package that publishes Linux GPU builds only, from native Windows: WSL 2 with Ubuntu (installed
    from an administrator PowerShell), then, inside it, a venv ~/ENV with the package (`pip install SPEC`) and its check
    (`python -c VERIFY`). Inside WSL the Windows driver serves the GPU; no Linux driver is installed there. The steps
    inside Ubuntu are prose: they run in another system than the one this plan's commands are written for. A new
    distribution's package index is empty, so apt-get install there comes after apt-get update (as every apt-get install
    of a plan does: gpudoctor.planner.needs)."""
    from gpudoctor.cmdline import Cmd

    return Remediation(
        "Install WSL 2 with Ubuntu (an administrator PowerShell; restart Windows when it asks), then inside Ubuntu: "
        f"nvidia-smi (the Windows driver's GPU), sudo apt-get update; sudo apt-get install -y python3-venv; "
        f"python3 -m venv ~/{env}; "
        f"~/{env}/bin/python -m pip install {spec}; ~/{env}/bin/python -c '{verify}'.",
        (Cmd(("wsl", "--install", "-d", "Ubuntu"), root=True, note="restart Windows when it asks"),),
        requires_root=True,
        component=component,
        where="Windows",
        alternative=alternative,
    )


def check_linux_only_windows(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """pip asked on native Windows for a package that supports Linux only (gpudoctor.facts.LINUX_ONLY_SAID). vLLM's
    requirements say "OS: Linux" and "vLLM does not support Windows natively" (vllm-project/vllm
    docs/getting_started/installation/gpu.md @4487edc6), so pip builds its source distribution, which fails or is
    unsupported whatever the driver, the toolkit and torch. NeMo (nemo_toolkit) "does not natively support windows"
    (its maintainer, NVIDIA-NeMo/Speech#6960, #3449): its extras need Linux-only dependencies (pynini's OpenFst,
    kylebgorman/pynini#91), which fail to build there and leave NeMo's collections out. The route on that PC is WSL 2,
    where the Linux wheels run on the Windows driver."""
    from gpudoctor.facts import LINUX_ONLY_SAID

    if not facts.pasted.partial or facts.platform.system.lower() != "windows":
        return
    cue = next((c for c in facts.pasted.cues if c.get("cue") == LINUX_ONLY_SAID), None)
    if cue is None:
        return
    asked = cue.get("means") or "vllm"
    package = asked.split("[")[0]
    if package.lower().startswith("nemo"):
        # (NeMo's README installs torch before nemo_toolkit; the module it imports is nemo)
        module, spec, name = "nemo", f"torch '{asked.replace('-', '_')}'", "NeMo (nemo_toolkit)"
        why = (
            "NeMo does not support native Windows (its maintainers point to WSL 2): its extras need Linux-only "
            "dependencies (pynini's OpenFst, mecab-python3), whose wheels fail to build there, and what installs without "
            "them lacks NeMo's collections (No module named 'nemo.collections'), whatever the driver, the toolkit and "
            "torch installed on Windows. WSL 2 runs the Linux wheels on the Windows driver (no Linux driver is installed "
            "in it)."
        )
    else:
        module, spec, name = package, package, package
        why = (
            f"{package} publishes Linux wheels only and does not support Windows natively: pip falls back to building "
            "its source distribution, which fails or gives an unsupported build, whatever the driver, the toolkit and "
            "torch installed on Windows. WSL 2 runs the Linux wheel on the Windows driver (no Linux driver is installed "
            "in it); the wheel brings the CUDA torch it was built with."
        )
    yield Finding(
        "framework-windows-native-gpu",
        Severity.ERROR,
        "frameworks",
        f"{name} was asked for on native Windows, "
        + ("which it does not support" if module == "nemo" else "for which it publishes no build"),
        why,
        (ev("pasted", cue.get("line") or ""),),
        # the step moves the package to another system, WSL 2's Linux: the platform's step
        _wsl2_route(
            f"{package.replace('_', '-')}-env",
            spec,
            f"import {module}, torch; print({module}.__version__, torch.cuda.is_available())",
            "platform",
        ),
    )


# --- TCC mode -------------------------------------------------------------------------------------------


def _tcc_gpus(facts: Facts) -> tuple[list[int], str, bool]:
    """The GPUs in TCC mode, where that was read, and whether the reader is inside WSL 2: this machine's own Windows
    (nvidia-smi -q -x), or the Windows nvidia-smi table pasted into a WSL 2 report (the only place a WSL user sees it)."""
    win = _win(facts)
    if win is not None:
        return sorted(i for i, model in win.driver_models.items() if model == "TCC"), "cmd:nvidia-smi -q -x", False
    if facts.pasted.partial and facts.platform.wsl == 2:
        models = {int(k): str(v) for k, v in (facts.pasted.windows_side.get("driver_models") or {}).items()}
        return sorted(i for i, model in models.items() if model == "TCC"), "pasted", True
    return [], "", False


def check_tcc(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A GPU in TCC mode. Native Windows CUDA uses it, so on Windows it is a note; from inside WSL 2 the GPU does not
    exist (WSL 2 passes only WDDM GPUs), so there it is the error the WSL user meets ("GPU access blocked")."""
    from gpudoctor.planner.remedy import reboot

    tcc, source, in_wsl = _tcc_gpus(facts)
    if not tcc:
        return
    names = {g.index: g.name for g in facts.driver.gpus}
    which = ", ".join(f"GPU {i} ({names[i]})" if names.get(i) else f"GPU {i}" for i in tcc)
    yield Finding(
        "windows-tcc-mode",
        Severity.ERROR if in_wsl else Severity.INFO,
        "driver",
        f"{which} run{'s' if len(tcc) == 1 else ''} in TCC mode: native CUDA only, invisible to WSL 2",
        "TCC (Tesla Compute Cluster) takes a GPU out of the Windows display stack: native Windows CUDA programs use "
        "it, but WSL 2 passes only WDDM GPUs into Linux (NVIDIA's CUDA on WSL guide), and DirectX cannot use it. "
        "Inside WSL 2 such a GPU does not exist.",
        tuple(ev(source, f"GPU {i}: driver model TCC") for i in tcc),
        Remediation(
            ("To" if in_wsl else "Only to")
            + " use the GPU from WSL 2: switch it to WDDM in an Administrator PowerShell, then restart Windows.",
            (
                *(Cmd(("nvidia-smi", "-g", str(i), "-dm", "0"), root=True, note="0 = WDDM") for i in tcc),
                *reboot(facts, where="Windows"),  # the driver model changes at the next start
            ),
            requires_root=True,
            component="driver",
            where="Windows",
        ),
    )


CHECKS = (
    Check("windows-driver-store", "driver", ("windows-driver-store-stale",), check_driver_store),
    Check("windows-cuda-path", "toolkit", ("windows-cuda-path-missing",), check_cuda_path),
    Check("windows-dlls", "frameworks", ("windows-dll-missing",), check_framework_dlls),
    Check("windows-tcc", "driver", ("windows-tcc-mode",), check_tcc),
    Check("windows-jax", "frameworks", ("framework-windows-native-gpu",), check_jax_windows),
    Check("windows-linux-only", "frameworks", ("framework-windows-native-gpu",), check_linux_only_windows),
)
