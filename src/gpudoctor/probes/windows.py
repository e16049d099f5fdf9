"""Probe what only native Windows has, through the host seam (so Linux CI replays it from snapshots).

- the driver store: `pnputil /enum-drivers /class Display`, else `pnputil /enum-drivers` (`pnputil -e` on
  Windows 7/8), NVIDIA display packages;
- each GPU's driver model (WDDM, TCC, MCDM) from `nvidia-smi -q -x`, or the plain table;
- CUDA toolkits under `<ProgramFiles>\\NVIDIA GPU Computing Toolkit\\CUDA\\vX.Y`, `CUDA_PATH`, `CUDA_PATH_VX_Y`;
- the directories Windows searches for a framework's dependent DLLs, in order, with the CUDA and cuDNN
  DLLs each holds: the Python installation, System32, PATH, the conda environment's Library\\bin, the
  cuDNN installer's folder and NVIDIA's pip wheels (which frameworks add with os.add_dll_directory).

Nothing here runs unless the platform is Windows. Every path is a Windows path in `C:/...` form
(gpudoctor.host.winpath); listings are bounded by MAX_PATH_DIRS.
"""

from __future__ import annotations

import re

from gpudoctor.host import CommandResult, Host, HostError, PythonEnv, winpath
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.probed import Absent, Found, Probed, Unknown

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:  # imported where built: only on native Windows (gpudoctor.windows_facts)
    from gpudoctor.windows_facts import DllDir, WindowsFacts, WindowsToolkit

TOOLKITS_DIR = "NVIDIA GPU Computing Toolkit/CUDA"
CUDNN_DIR = "NVIDIA/CUDNN"  # cuDNN 9's Windows installer: C:\Program Files\NVIDIA\CUDNN\vX.Y\bin\<cuda>
MAX_PATH_DIRS = 64
# The DLLs the doctor looks for: the CUDA runtime and libraries, cuDNN (and its zlib dependency of 8.3-8.9).
_DLL = LazyPattern(
    r"(cudart64_\d+|cublas64_\d+|cublaslt64_\d+|cufft64_\d+|curand64_\d+|cusolver64_\d+|cusparse64_\d+|"
    r"cudnn\w*64_\d+|nvcuda|zlibwapi)\.dll\Z",
    re.IGNORECASE,
)
_TOOLKIT_FOLDER = LazyPattern(r"v(\d+)\.(\d+)\Z", re.IGNORECASE)
_CUDA_PATH_V = LazyPattern(r"CUDA_PATH_V\d+_\d+\Z")


def is_windows(host: Host) -> bool:
    return host.platform().get("system") == "Windows"


def probe_windows(
    host: Host, timeout_s: float, python: PythonEnv | None = None, smi: CommandResult | None = None
) -> WindowsFacts | None:
    """`smi`: what the driver probe's nvidia-smi run printed, so nvidia-smi runs once."""
    if not is_windows(host):
        return None
    from gpudoctor.windows_facts import WindowsFacts

    env = host.env()
    program_files = env.get("ProgramFiles") or "C:/Program Files"
    if not winpath.is_windows_path(program_files):
        program_files = "C:/Program Files"
    system_root = env.get("SystemRoot") or "C:/Windows"
    if not winpath.is_windows_path(system_root):
        system_root = "C:/Windows"
    toolkits = _toolkits(host, winpath.join(program_files, TOOLKITS_DIR))
    return WindowsFacts(
        driver_store=probe_driver_store(host, timeout_s),
        driver_models=_driver_models(host, timeout_s, smi),
        cuda_path=env.get("CUDA_PATH") or None,
        cuda_path_versions={k: v for k, v in env.items() if _CUDA_PATH_V.match(k)},
        toolkits=toolkits,
        dll_dirs=_dll_dirs(host, env, python, system_root, program_files, toolkits),
        nvidia_smi=_nvidia_smi(host, system_root, program_files),
    )


def probe_driver_store(host: Host, timeout_s: float) -> Probed:
    from gpudoctor.parsers.pnputil import nvidia_display_packages, parse_enum_drivers

    # The Display class alone first: a short listing where the store holds hundreds of packages, and the
    # command people run and paste (tests/fixtures/windows/pnputil-enum-drivers-class-display_*). A pnputil
    # without /class fails or lists nothing: then the whole store, then Windows 7's -e. A timeout is final.
    result = host.run(["pnputil", "/enum-drivers", "/class", "Display"], timeout_s)
    if not result.timed_out and not (result.ok and parse_enum_drivers(result.stdout)):
        result = host.run(["pnputil", "/enum-drivers"], timeout_s)
        if not result.ok:
            legacy = host.run(["pnputil", "-e"], timeout_s)
            if legacy.ok:
                result = legacy
    if result.missing:
        return Absent("pnputil was not found", "cmd:pnputil")
    if result.timed_out:
        return Unknown("timeout", "pnputil did not answer in time", "cmd:pnputil")
    if not result.ok:
        why = (result.stderr or result.stdout).strip().splitlines()
        return Unknown("failed", why[0][:200] if why else f"exit status {result.rc}", "cmd:pnputil")
    return Found(tuple(nvidia_display_packages(parse_enum_drivers(result.stdout))), f"cmd:{result.key}")


def _driver_models(host: Host, timeout_s: float, smi: CommandResult | None = None) -> dict[int, str]:
    """GPU index -> driver model, from the XML nvidia-smi prints (or, pasted, its table)."""
    xml = smi if smi is not None and smi.argv[1:] == ("-q", "-x") else None
    if xml is None and (smi is None or not smi.ok):
        xml = host.run(["nvidia-smi", "-q", "-x"], timeout_s)
    models: dict[int, str] = {}
    if xml is not None and xml.ok:
        for i, match in enumerate(re.finditer(r"<current_dm>\s*([A-Za-z]+)\s*</current_dm>", xml.stdout)):
            models[i] = match.group(1).upper()
        if models:
            return models
    table = smi if smi is not None and smi.argv[1:] == () else host.run(["nvidia-smi"], timeout_s)
    if table.ok:
        # "|   0  Tesla P100-PCIE... TCC   | 00000000:04:00.0 Off |" (TCC/WDDM header) or the newer
        # "Driver-Model" column: the model is the last word before the first inner bar of a GPU row.
        for match in re.finditer(r"^\|\s+(\d+)\s+.*?\b(WDDM|TCC|MCDM)\s+\|", table.stdout, re.MULTILINE):
            models.setdefault(int(match.group(1)), match.group(2))
    return models


def _dlls(host: Host, directory: str) -> tuple[str, ...] | None:
    try:
        names = host.list_dir(directory)
    except HostError:
        return None
    return tuple(sorted(n.lower() for n in names if _DLL.match(n)))


def _toolkits(host: Host, base: str) -> tuple[WindowsToolkit, ...]:
    from gpudoctor.windows_facts import WindowsToolkit

    try:
        names = host.list_dir(base)
    except HostError:
        return ()
    out = []
    for name in names:
        match = _TOOLKIT_FOLDER.match(name)
        if not match:
            continue
        root = winpath.join(base, name)
        bin_dir = winpath.join(root, "bin")
        try:
            bin_names = {n.lower() for n in host.list_dir(bin_dir)}
        except HostError:
            bin_names = set()
        out.append(
            WindowsToolkit(
                root=root,
                version=f"{int(match.group(1))}.{int(match.group(2))}",
                nvcc="nvcc.exe" in bin_names,
                dlls=tuple(sorted(n for n in bin_names if _DLL.match(n))),
            )
        )
    return tuple(sorted(out, key=lambda t: tuple(int(p) for p in t.version.split("."))))


def _dll_dirs(
    host: Host,
    env,
    python: PythonEnv | None,
    system_root: str,
    program_files: str,
    toolkits: tuple[WindowsToolkit, ...],
) -> tuple[DllDir, ...]:
    """LoadLibrary's search for a dependent DLL: the application's folder (python.exe's), System32, the
    Windows folder, then PATH in order (docs: learn.microsoft.com/windows/win32/dlls/dynamic-link-library-search-order).
    Frameworks add NVIDIA's pip wheel folders themselves with os.add_dll_directory (torch/__init__.py,
    tensorflow's and jax's plugin loaders); those come first."""
    from gpudoctor.windows_facts import DllDir

    candidates: list[tuple[str, str]] = []
    if python is not None:
        for site in python.site_packages:
            if winpath.is_windows_path(site):
                for wheel in ("cudnn", "cuda_runtime", "cublas", "cufft", "curand", "cusolver", "cusparse"):
                    candidates.append((winpath.join(site, "nvidia", wheel, "bin"), "wheel"))
        if winpath.is_windows_path(python.executable):
            candidates.append((winpath.parent(python.executable), "python"))
    candidates.append((winpath.join(system_root, "System32"), "system"))
    conda = env.get("CONDA_PREFIX") or ""
    if winpath.is_windows_path(conda):
        candidates.append((winpath.join(conda, "Library", "bin"), "conda"))
    for entry in winpath.path_entries(env.get("PATH", ""))[:MAX_PATH_DIRS]:
        candidates.append((entry, "PATH"))
    # cuDNN's own installer folder is searched only where PATH names it; listed so the doctor can say
    # "cuDNN is installed there, but not on PATH".
    cudnn_base = winpath.join(program_files, CUDNN_DIR)
    try:
        for version in host.list_dir(cudnn_base):
            bin_dir = winpath.join(cudnn_base, version, "bin")
            candidates.append((bin_dir, "cudnn"))
            try:
                for sub in host.list_dir(bin_dir):
                    if re.match(r"\d+\.\d+\Z", sub):
                        candidates.append((winpath.join(bin_dir, sub), "cudnn"))
            except HostError:
                pass
    except HostError:
        pass
    for tk in toolkits:
        candidates.append((winpath.join(tk.root, "bin"), "toolkit"))
    seen: dict[str, DllDir] = {}
    for path, via in candidates:
        key = winpath.key(path)
        if key in seen:
            continue
        dlls = _dlls(host, path)
        if dlls is None:
            continue
        seen[key] = DllDir(winpath.canon(path), via, dlls)
    return tuple(seen.values())


def _nvidia_smi(host: Host, system_root: str, program_files: str) -> str | None:
    found = host.which("nvidia-smi")
    if found:
        return found
    for candidate in (
        winpath.join(system_root, "System32", "nvidia-smi.exe"),
        winpath.join(program_files, "NVIDIA Corporation", "NVSMI", "nvidia-smi.exe"),
    ):
        if host.stat(candidate).exists:
            return candidate
    return None
