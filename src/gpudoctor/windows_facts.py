"""What only a native Windows machine has, as the probes read it: its CUDA toolkits, the directories it searches for a
framework's DLLs, and the driver store, driver models and CUDA_PATH (gpudoctor.facts.Facts.windows). Apart from
gpudoctor.facts because only a check on Windows builds them, and every check imports that module (each frozen
dataclass costs a check about 1 ms of CPU to create: bench/README.md)."""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor.probed import Probed


@dataclass(frozen=True)
class WindowsToolkit:
    """A CUDA toolkit under Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\vX.Y (Windows paths, C:/ form)."""

    root: str
    version: str  # from the folder name, vX.Y
    nvcc: bool
    dlls: tuple[str, ...]  # CUDA and cuDNN DLLs in its bin, lower-case


@dataclass(frozen=True)
class DllDir:
    """A directory Windows searches for a framework's DLLs, and the CUDA/cuDNN DLLs it holds (lower-case)."""

    path: str
    via: str  # PATH, toolkit, conda, wheel, cudnn
    dlls: tuple[str, ...]


@dataclass(frozen=True)
class WindowsFacts:
    """What only a Windows machine has: the driver store, driver models, CUDA_PATH, the DLL search path.

    `driver_store` is Found[tuple[DriverPackage, ...]] of NVIDIA display packages (pnputil), Absent where
    pnputil is not there (some images), Unknown where it failed or timed out (listing needs no rights).
    """

    driver_store: Probed
    driver_models: dict[int, str]  # GPU index -> WDDM, TCC, MCDM (nvidia-smi)
    cuda_path: str | None
    cuda_path_versions: dict[str, str]  # CUDA_PATH_V12_1 -> its value
    toolkits: tuple[WindowsToolkit, ...]
    dll_dirs: tuple[DllDir, ...]  # in Windows' search order for a framework's dependent DLLs
    nvidia_smi: str | None  # where nvidia-smi.exe was found
