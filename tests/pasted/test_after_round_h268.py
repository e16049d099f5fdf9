"""After-round h268: a library the loader missed, then the framework's own line that it opened a GPU device (Paddle's
"Please NOTE: device: 0, GPU Compute Capability: ...", TensorFlow's "Created device ... GPU:0 with N MB memory"): the
miss was a warning the program went on from (pasted.read's _reached_after_warning), read as
library-missing-gpu-reached and never a finding; a miss named after the device line, or another failure after it, still
fires (the quiet twins). Recorded pastes of different threads, expectations by hand."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.cli_json import blind_case, check, paste

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
BLOCKING = ("warning", "error", "critical")

# PaddlePaddle/Paddle#78917 (tests/blind/plans18/cases/1803-*), its glog lines: the W-level miss, then the device line.
_WARNED = (
    "W0508 21:40:15.979074  1551 dynamic_loader.cc:412] The third-party dynamic library (libcuda.so) that Paddle depends "
    "on is not configured correctly. (error code is libcuda.so: cannot open shared object file: No such file or "
    "directory)\n"
)
_READY = (
    "W0508 21:40:15.993314  1551 gpu_resources.cc:116] Please NOTE: device: 0, GPU Compute Capability: 12.0, Driver API "
    "Version: 13.2, Runtime API Version: 13.0\n"
)


def _kinds(doc: dict) -> dict[str, list[str | None]]:
    out: dict[str, list[str | None]] = {}
    for e in doc["facts"]["pasted"]["errors"]:
        out.setdefault(e["kind"], []).append(dict(e["values"]).get("soname"))
    return out


def _blocking(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in BLOCKING]


def test_paddle_missing_libcuda_then_its_device_line_is_a_warning_not_a_failure():
    # Paddle#78917 under WSL 2: the GPU benchmark ran 158x faster than the CPU one after the warning
    doc = check(blind_case("plans18/cases/1803"))
    kinds = _kinds(doc)
    assert kinds.get("library-missing-gpu-reached") == ["libcuda.so"]
    assert "library-missing" not in kinds and kinds.get("paddle-gpu-device-ready") == [None]
    assert _blocking(doc) == [] and doc["exit_code"] == 0
    assert "libcuda.so" not in doc["facts"]["pasted"]["missing"]


def test_the_same_miss_with_the_device_line_cut_off_is_still_a_failure(tmp_path):
    # what the reader went on from is the device line: without it the miss is all the text shows
    doc = paste(tmp_path, "Ubuntu under WSL2\n" + _WARNED)
    assert _kinds(doc).get("library-missing") == ["libcuda.so"]
    assert "framework-cuda-libs-missing" in _blocking(doc)


def test_a_miss_named_again_after_the_device_line_is_still_a_failure(tmp_path):
    # the same run failing on the library after it reached the GPU (the quiet twin)
    doc = paste(tmp_path, "Ubuntu under WSL2\n" + _WARNED + _READY + _WARNED.replace("21:40:15.979074", "21:40:16.101010"))
    assert _kinds(doc).get("library-missing") == ["libcuda.so"]
    assert "library-missing-gpu-reached" not in _kinds(doc)
    assert "framework-cuda-libs-missing" in _blocking(doc)


def test_a_raised_error_before_the_device_line_stays_a_failure(tmp_path):
    # Paddle raises the same words as PreconditionNotMet where the library is not optional: the run stopped there
    raised = "RuntimeError: (PreconditionNotMet) " + _WARNED.split("] ", 1)[1]
    doc = paste(tmp_path, "Ubuntu under WSL2\n" + raised + _READY)
    assert _kinds(doc).get("library-missing") == ["libcuda.so"]
    assert "framework-cuda-libs-missing" in _blocking(doc)


def test_paddle_device_line_then_the_cudnn_it_could_not_load_still_fires():
    # PaddlePaddle/Paddle#50195: the device line first, then libcudnn.so missed and the PreconditionNotMet it raised
    doc = check(EXAMPLES / "paddle-50195-cannot-load-cudnn-shared-library.txt")
    assert _kinds(doc).get("library-missing") == ["libcudnn.so"]
    assert "cudnn-missing" in _blocking(doc)


def test_a_miss_on_the_device_lines_own_line_is_not_after_it():
    # PaddlePaddle/Paddle#51060 (tests/blind/plans9/cases/910-*): the log flattened onto one line, the device line first
    # and cuDNN's missing libcublas.so.11 after it on the same line
    doc = check(blind_case("plans9/cases/910"))
    assert _kinds(doc).get("library-missing") == ["libcublas.so.11"]
    assert "framework-cuda-libs-missing" in _blocking(doc)


def test_a_windows_dll_missed_after_the_device_line_still_fires():
    # PaddlePaddle/Paddle#53484 (tests/blind/plans17/cases/1708-*): run_check's device line, then cudnn_ops_infer64_8.dll
    doc = check(blind_case("plans17/cases/1708"))
    assert _kinds(doc).get("library-missing") == ["cudnn_ops_infer64_8.dll"]
    assert "windows-dll-missing" in _blocking(doc)


def test_tensorflow_created_device_after_its_dso_warning_reads_the_miss_as_reached(tmp_path):
    # TensorFlow registers no GPU device where its CUDA libraries did not load (gpu_device.cc's "Cannot dlopen some GPU
    # libraries ... Skipping registering GPU devices"): a device created after a miss means the miss was not fatal
    text = (
        "2021-03-01 10:00:00.000001: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load "
        "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file "
        "or directory\n"
        "2021-03-01 10:00:02.000001: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1418] Created device "
        "/job:localhost/replica:0/task:0/device:GPU:0 with 9646 MB memory:  -> device: 0, name: NVIDIA GeForce RTX "
        "3080, pci bus id: 0000:01:00.0, compute capability: 8.6\n"
    )
    doc = paste(tmp_path, text)
    kinds = _kinds(doc)
    assert kinds.get("library-missing-gpu-reached") == ["libcudart.so.11.0"] and "library-missing" not in kinds
    assert _blocking(doc) == []
    # and a real failure after the device line still fires (the quiet twin)
    doc = paste(tmp_path, text + "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert "library-missing" not in _kinds(doc) and _blocking(doc)
