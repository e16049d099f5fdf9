"""Recognise known failure texts of nvidia-smi, NVML, CUDA, Docker and nvidia-container-cli, and name each with a stable code.

Matching is by fixed phrases (case-insensitive), so the texts may be wrapped in Docker/OCI hook error chains.
"""

from __future__ import annotations

import re

from gpudoctor.parsers._common import MAX_TEXT_CHARS

# code -> one-line meaning, for callers that render or document the codes.
ERROR_CODES: dict[str, str] = {
    "driver-library-mismatch": "the user-space NVML library and the loaded kernel module are different driver versions",
    "driver-unreachable": "nvidia-smi could not talk to the kernel driver (module not loaded or not built for this kernel)",
    "driver-not-loaded": "NVML reports the NVIDIA kernel driver is not loaded",
    "nvml-library-missing": "libnvidia-ml.so (the driver's user-space NVML library) cannot be found or loaded",
    "nvml-unknown-error": "NVML failed with 'Unknown Error' (in containers: device access lost, e.g. after a systemd daemon-reload)",
    "nvml-insufficient-permissions": "NVML lacks permission to open the /dev/nvidia* device nodes",
    "gpu-lost": "a GPU fell off the bus or stopped responding ('GPU is lost')",
    "no-devices-found": "the driver is loaded but reports no NVIDIA GPUs",
    "container-no-gpu-runtime": "Docker has no device driver for GPU requests (NVIDIA Container Toolkit not configured)",
    "container-unknown-runtime": "Docker was asked for a runtime it has not registered (e.g. --runtime=nvidia)",
    "cuda-driver-insufficient": "the CUDA runtime is newer than the installed driver supports",
    "cuda-no-device": "the CUDA runtime found no CUDA-capable device",
}

# Checked in order; the first matching code wins.  More specific causes come before the
# generic wrappers they appear inside (e.g. an OCI hook error that carries an NVML error).
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (code, re.compile(pattern, re.IGNORECASE))
    for code, pattern in (
        ("driver-library-mismatch", r"driver/library version mismatch"),
        (
            "nvml-library-missing",
            r"load library failed:\s*libnvidia-ml\.so"
            r"|libnvidia-ml\.so(?:\.\d+)?: cannot open shared object file"
            r"|couldn't find libnvidia-ml\.so"
            r"|NVML Shared Library Not Found",
        ),
        ("driver-unreachable", r"couldn't communicate with the NVIDIA driver"),
        ("driver-not-loaded", r"nvml error:\s*driver not loaded|NVML: Driver Not Loaded"),
        ("nvml-insufficient-permissions", r"NVML: Insufficient Permissions|nvml error:\s*insufficient permissions"),
        ("nvml-unknown-error", r"Failed to initialize NVML: Unknown Error|nvml error:\s*unknown error"),
        ("gpu-lost", r"GPU is lost"),
        ("no-devices-found", r"^\s*No devices were found\s*$|^\s*No devices found\.?\s*$"),
        ("container-no-gpu-runtime", r"could not select device driver \"[^\"\n]{0,200}\" with capabilities: \[\[gpu\]\]"),
        ("container-unknown-runtime", r"unknown or invalid runtime name"),
        ("cuda-driver-insufficient", r"CUDA driver version is insufficient for CUDA runtime version"),
        ("cuda-no-device", r"no CUDA-capable device is detected"),
    )
)

_NVML_VERSION_RE = re.compile(r"NVML library version:\s*(\d+(?:\.\d+)+)", re.IGNORECASE)


def _bounded(text: object) -> str | None:
    if not isinstance(text, str):
        return None
    return text[:MAX_TEXT_CHARS]


def classify_error_text(text: str) -> str | None:
    """The code (a key of ERROR_CODES) of the first known failure in `text`, else None.  Never raises."""
    bounded = _bounded(text)
    if bounded is None:
        return None
    for code, pattern in _PATTERNS:
        if pattern.search(bounded) if code != "no-devices-found" else _search_lines(pattern, bounded):
            return code
    return None


def _search_lines(pattern: re.Pattern[str], text: str) -> bool:
    return any(pattern.match(line) for line in text.splitlines())


def extract_nvml_library_version(text: str) -> str | None:
    """ "NVML library version: 550.144" (newer drivers add it to the mismatch message) -> "550.144"."""
    bounded = _bounded(text)
    if bounded is None:
        return None
    match = _NVML_VERSION_RE.search(bounded)
    return match.group(1) if match else None
