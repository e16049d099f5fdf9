"""The data-science GPU libraries' own messages (catalogue.toml's h212 block), each beside its quiet twin: the sibling
line that must not fire. Expectations written by hand from the threads in tools/mined/h212.md."""

from pathlib import Path

import pytest

from gpudoctor.parsers import catalogue

EXAMPLES = Path(__file__).parent / "catalogue_examples"


def _entries(text: str) -> set[str]:
    return {e.get("entry") for e in catalogue.match(text)}


@pytest.mark.parametrize(
    ("example", "entry"),
    [
        ("lightgbm-586-no-opencl-device-found.txt", "lightgbm-no-opencl-device"),
        ("lightgbm-1998-v100-container-no-opencl-device.txt", "lightgbm-no-opencl-device"),
        ("lightgbm-6199-colab-no-opencl-device.txt", "lightgbm-no-opencl-device"),
        ("catboost-410-cant-load-gpu-learning-library-driver.txt", "catboost-gpu-learning-library"),
        ("xgboost-4355-jetson-nano-not-compiled-with-gpu.txt", "xgboost-not-compiled-with-gpu"),
        ("xgboost-8787-macos-arm64-not-compiled-with-gpu.txt", "xgboost-not-compiled-with-gpu"),
        ("mxnet-2837-please-compile-with-cuda-enabled.txt", "mxnet-compiled-without-cuda"),
    ],
)
def test_each_thread_of_a_meaning_is_read_by_its_entry(example, entry):
    assert entry in _entries((EXAMPLES / example).read_text())


def test_lightgbm_finding_its_device_is_quiet():
    assert "lightgbm-no-opencl-device" not in _entries(
        (EXAMPLES / "lightgbm-2221-windows-using-gpu-device-quiet.txt").read_text()
    )


@pytest.mark.parametrize(
    "text",
    [
        'fprintf(stderr, "No OpenCL device found -- skipping GPU build test.\\n");',  # another program's sibling line
        "CUDA driver library cannot be found or no CUDA enabled devices are present.",  # numba -s: either
        "Detectron2 is not compiled with GPU support!",  # detectron2's, not XGBoost's
    ],
)
def test_sibling_lines_do_not_fire_the_data_science_entries(text):
    assert not _entries(text) & {
        "lightgbm-no-opencl-device",
        "numba-driver-library-not-found",
        "xgboost-not-compiled-with-gpu",
    }


def test_xgboosts_line_is_not_detectron2s():
    found = _entries("xgboost.core.XGBoostError: [07:02:59] common.h:174: XGBoost version not compiled with GPU support.")
    assert "xgboost-not-compiled-with-gpu" in found
    assert not any((e or "").startswith("detectron2") for e in found)
