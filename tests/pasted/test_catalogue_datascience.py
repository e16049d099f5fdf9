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


def _findings(text: str) -> dict:
    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted import Source, read_pasted

    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return {f.code: f for f in report.findings}


def _argvs(finding) -> list[tuple[str, ...]]:
    return [tuple(map(str, c.argv)) for c in finding.remediation.commands if hasattr(c, "argv")]


def test_a_local_cuda_jax_loading_an_older_cudnn_takes_jaxs_own_cuda_extra():
    # jax[cuda12_local] with the machine's cuDNN 9.0.0 under a jaxlib built with 9.1.1 (the jax-ml/jax#24180 report, a
    # blind case of set 14): jax's own cuda12 extra brings the cuDNN wheel its release needs.
    root = Path(__file__).resolve().parents[1] / "blind" / "plans14" / "cases"
    text = next(root.glob("1423-*")).joinpath("input.txt").read_text(encoding="utf-8")
    found = _findings(text)
    assert ("python3", "-m", "pip", "install", "-U", "jax[cuda12]") in _argvs(found["cudnn-too-old"])


def test_a_cudnn_too_old_without_the_local_extra_still_asks():
    # jaxlib==0.1.65+cuda112 named by its version, no _local extra (a blind case of set 2, cited by its path): nothing
    # names the route, so no reinstall is printed; the fix its thread confirms was a newer system cuDNN.
    root = Path(__file__).resolve().parents[1] / "blind" / "plans2" / "cases"
    found = _findings(next(root.glob("110-*")).joinpath("input.txt").read_text(encoding="utf-8"))
    assert not any("install" in argv for argv in _argvs(found["cudnn-too-old"]))


@pytest.mark.parametrize(
    "example", ["lightgbm-3696-gpu-tree-learner-not-enabled.txt", "lightgbm-2070-windows-gpu-tree-learner-bytes.txt"]
)
def test_lightgbm_without_its_gpu_learner_is_a_cpu_build(example):
    found = _findings((EXAMPLES / example).read_text(encoding="utf-8"))
    assert "framework-cpu-build" in found and "pasted-error-unexplained" not in found


def test_cudf_refusing_a_pascal_gpu_names_the_gpu_it_detected():
    found = _findings((EXAMPLES / "cudf-15053-unsupported-cuda-error-p100-volta-required.txt").read_text(encoding="utf-8"))
    assert "framework-arch-unsupported" in found
    assert "Tesla P100-SXM2-16GB" in found["framework-arch-unsupported"].title


def test_cudfs_old_pascal_warning_and_a_gpu_trainer_that_started_are_quiet():
    # cuDF 0.14's warning on a K80 (rapidsai/cudf#5776 asks whether it matters) is another message; a GPU trainer that
    # started prints no refusal
    text = (
        "UserWarning: You will need a GPU with NVIDIA Pascal™ or newer architecture\n[LightGBM] [Info] This is the GPU trainer!!"
    )
    assert not _entries(text) & {"cudf-gpu-below-required", "lightgbm-tree-learner-not-enabled"}


def test_xgboost_falling_back_to_the_cpu_asks_its_build_and_the_devices():
    text = (EXAMPLES / "xgboost-11840-dgx-spark-device-changed-gpu-to-cpu.txt").read_text(encoding="utf-8")
    assert "xgboost-device-changed-to-cpu" in _entries(text)
    # XGBoost's warning that the data sits on another device than training is the sibling line: the GPU was found
    sibling = "WARNING: XGBoost is running on: cuda:0, while the input data is on: cpu."
    assert "xgboost-device-changed-to-cpu" not in _entries(sibling)
