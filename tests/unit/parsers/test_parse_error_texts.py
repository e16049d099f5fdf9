"""Known failure texts map to stable codes; the NVML library version is pulled out of mismatches."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.parsers.error_texts import ERROR_CODES, classify_error_text, extract_nvml_library_version

FIXTURES = Path(__file__).parents[2] / "fixtures"
ERRORS_DIR = FIXTURES / "errors"

EXPECTED = {
    "docker_could-not-select-device-driver-empty-gpu.txt": ("container-no-gpu-runtime", None),
    "docker_could-not-select-device-driver-nvidia-gpu_compose.txt": ("container-no-gpu-runtime", None),
    "docker_oci-hook_nvidia-container-cli_nvml-driver-not-loaded.txt": ("driver-not-loaded", None),
    "nvidia-container-cli_info_nvml-driver-not-loaded.txt": ("driver-not-loaded", None),
    "nvidia-container-cli_load-library-failed_libnvidia-ml.txt": ("nvml-library-missing", None),
    "nvidia-smi_couldnt-communicate-with-driver.txt": ("driver-unreachable", None),
    "nvml_driver-library-version-mismatch_nvml-550.144.txt": ("driver-library-mismatch", "550.144"),
    "nvml_driver-library-version-mismatch_nvml-570.124.txt": ("driver-library-mismatch", "570.124"),
    "nvml_unknown-error_container-after-daemon-reload.txt": ("nvml-unknown-error", None),
}

ERROR_FILES = sorted(p.name for p in ERRORS_DIR.iterdir())


def test_every_error_fixture_has_expectations() -> None:
    assert set(ERROR_FILES) == set(EXPECTED)


@pytest.mark.parametrize("name", ERROR_FILES)
def test_error_fixture_codes(name: str) -> None:
    text = (ERRORS_DIR / name).read_text(encoding="utf-8")
    code, nvml = EXPECTED[name]
    assert classify_error_text(text) == code
    assert code in ERROR_CODES
    assert extract_nvml_library_version(text) == nvml


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Failed to initialize NVML: Insufficient Permissions", "nvml-insufficient-permissions"),
        ("Unable to determine the device handle for GPU0000:01:00.0: GPU is lost.  Reboot the system", "gpu-lost"),
        ("No devices were found", "no-devices-found"),
        ("docker: Error response from daemon: unknown or invalid runtime name: nvidia.", "container-unknown-runtime"),
        ("CUDA driver version is insufficient for CUDA runtime version", "cuda-driver-insufficient"),
        ("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system.", "nvml-library-missing"),
        (
            "stderr: nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.",
            "driver-library-mismatch",
        ),
    ],
)
def test_more_known_texts(text: str, code: str) -> None:
    assert classify_error_text(text) == code


@pytest.mark.parametrize("name", sorted(p.name for p in (FIXTURES / "nvidia-smi-text").iterdir()))
def test_healthy_outputs_are_not_errors(name: str) -> None:
    assert classify_error_text((FIXTURES / "nvidia-smi-text" / name).read_text(encoding="utf-8")) is None


def test_odd_inputs() -> None:
    assert classify_error_text("") is None
    assert classify_error_text(None) is None  # type: ignore[arg-type]
    assert extract_nvml_library_version("Failed to initialize NVML: Driver/library version mismatch") is None


def test_windows_entry_point_not_found_is_an_undefined_symbol():
    # NTSTATUS 0xC0000139's text, as Windows' loader dialog and a traceback print it; a retyped copy keeps its parts.
    from gpudoctor.parsers.error_texts import extract_evidence

    text = (
        "ImportError: The procedure entry point ?element_size@TensorIteratorBase@at@@QEBA_JH@Z could not be located\n"
        "in the dynamic link library C:\\env\\lib\\site-packages\\xformers\\_C.pyd.\n"
    )
    got = [(e.kind, e.get("symbol"), e.get("object")) for e in extract_evidence(text)]
    assert (
        "undefined-symbol",
        "?element_size@TensorIteratorBase@at@@QEBA_JH@Z",
        "C:\\env\\lib\\site-packages\\xformers\\_C.pyd",
    ) in got
    retyped = (
        "the procedure entry point\nelement size@x@at@QEBA_JH@Z\ncould not be locate in the dynamic link library\nk:\\e\\_C.pyd."
    )
    assert [(e.kind, e.get("symbol")) for e in extract_evidence(retyped)] == [("undefined-symbol", "element size@x@at@QEBA_JH@Z")]
