"""The head of the TensorFlow/JAX side (tests/pasted/head/tensorflow-jax.toml, issue 28): each most-reported message the
catalogue did not read is read from a real paste and leads to what its threads' resolution calls for (the asks that tell
its causes apart, or the finding the message decides), and each has a quiet twin that must not fire."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from tests.pasted.test_catalogue import _run
from tests.pasted.test_catalogue_tensorflow import SMI

HEAD = Path(__file__).resolve().parent / "head"
INPUTS = HEAD / "tensorflow-jax"
PROCESSES = "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"
GROWTH = "env TF_FORCE_GPU_ALLOW_GROWTH=true TF_CPP_MIN_LOG_LEVEL=0 python3 -c"


def _entries(snapshot) -> dict[str, str]:
    return {(e.get("values") or {}).get("entry"): e["kind"] for e in snapshot["pasted"]["errors"]}


@pytest.mark.parametrize(
    ("name", "entry", "kind", "asked", "growth_runs"),
    [
        # wrapped over three lines by the reporter's terminal (mozilla/DeepSpeech#2211): read joined
        ("tf-conv-algorithm-wrapped.txt", "tf-conv-algorithm-cudnn-failed", "cudnn-handle-failed", [PROCESSES], "tf.nn.conv2d"),
        ("tf-conv-algorithm-versions.txt", "tf-conv-algorithm-cudnn-failed", "cudnn-handle-failed", [PROCESSES], "tf.nn.conv2d"),
        ("tf-blas-gemm-launch-failed.txt", "tf-blas-launch-failed", "cublas-handle-failed", [PROCESSES], "tf.linalg.matmul"),
        ("tf-blas-xgemm-cublas-alloc.txt", "tf-blas-launch-failed", "cublas-handle-failed", [PROCESSES], None),
        ("tf-dnn-implementation.txt", "tf-dnn-implementation-not-found", "cudnn-handle-failed", [PROCESSES], "tf.nn.conv2d"),
    ],
)
def test_a_cudnn_or_cublas_start_failure_asks_who_holds_the_memory_and_a_rerun_with_growth(name, entry, kind, asked, growth_runs):
    snapshot, _, codes, asks = _run((INPUTS / name).read_text(encoding="utf-8"))
    assert _entries(snapshot).get(entry) == kind, _entries(snapshot)
    assert all(a in asks for a in asked), asks
    if growth_runs:  # (the xGEMM paste is from Windows, cublas64_10.dll: env is no Windows command, so not asked there)
        growth = [a for a in asks if a.startswith(GROWTH)]
        assert len(growth) == 1 and growth_runs in growth[0], asks
    # the paste alone does not say which cause: a failure named, never "No problems found", never a guessed fix
    assert set(codes) == {"pasted-error-unexplained"}, codes


def test_on_windows_the_convolution_failure_still_asks_who_holds_the_memory():
    snapshot, _, codes, asks = _run((INPUTS / "tf-conv-algorithm-windows.txt").read_text(encoding="utf-8"))
    assert _entries(snapshot).get("tf-conv-algorithm-cudnn-failed") == "cudnn-handle-failed"
    assert PROCESSES in asks and not any(a.startswith(("env ", "printenv ")) for a in asks), asks
    assert set(codes) == {"pasted-error-unexplained"}


def test_the_cudnn_version_shown_decides_instead_of_asking():
    """'Loaded runtime CuDNN library: 8.5.0 but source was compiled with: 8.6.0' beside the failure (jax-ml/jax#16901):
    cudnn-too-old is the finding, and the convolution failure's asks are not repeated (its `unless`)."""
    text = (
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:319] Loaded runtime CuDNN library: 7.0.5 but source was compiled "
        "with: 7.1.4.  CuDNN library major and minor version needs to match or have higher minor version in case of "
        "CuDNN 7.0 or later version.\n" + (INPUTS / "tf-conv-algorithm-windows.txt").read_text(encoding="utf-8")
    )
    _, _, codes, asks = _run(text)
    assert "cudnn-too-old" in codes and "pasted-error-unexplained" not in codes, codes
    assert not any(a.startswith(GROWTH) for a in asks), asks


@pytest.mark.parametrize(
    ("name", "entry"),
    [
        ("tf-oom-when-allocating.txt", "tf-oom-when-allocating-tensor"),
        ("xla-resource-exhausted.txt", "xla-resource-exhausted-oom"),
    ],
)
def test_out_of_memory_is_the_programs_and_asks_who_else_holds_the_gpu(name, entry):
    """As PyTorch's out-of-memory: a program too large for the free memory is no environment finding; the ask says
    whether another process holds it."""
    snapshot, _, codes, asks = _run((INPUTS / name).read_text(encoding="utf-8"))
    assert _entries(snapshot).get(entry) == "gpu-memory-exhausted"
    assert PROCESSES in asks, asks
    assert not [c for c, f in codes.items() if f.severity.name in ("WARNING", "ERROR", "CRITICAL")], codes


def test_jaxlib_older_than_jax_needs_is_the_pair_mismatched():
    _, _, codes, asks = _run((INPUTS / "jaxlib-older-than-jax-needs.txt").read_text(encoding="utf-8"))
    f = codes["jax-plugin-mismatch"]
    assert f.severity.name == "ERROR" and "0.1.69" in f.title and "0.1.74" in f.title
    # jax's own version was not shown: no command claims it; pip list, in the interpreter that failed, decides it
    assert f.remediation is not None and f.remediation.commands == () and f.remediation.component == "jax"
    assert "python3 -m pip list | grep -i jax" in asks, asks


def test_jaxlib_newer_than_jax_stays_the_version_checks():
    """The other half of jax's import check names both versions: check_jax_versions judges the pair, once."""
    _, _, codes, _ = _run(
        "RuntimeError: jaxlib version 0.4.1 is newer than and incompatible with jax version 0.3.25. Please update your "
        "jax and/or jaxlib packages."
    )
    assert "jax-plugin-mismatch" in codes and "0.1.74" not in codes["jax-plugin-mismatch"].title


@pytest.mark.parametrize(
    "text",
    [
        # ROCm's build prints the same sentence for MIOpen (tensorflow-upstream's conv_ops.cc): not cuDNN's
        "Unknown: Failed to get convolution algorithm. This is probably because MIOpen failed to initialize, so try "
        "looking to see if a warning log message was printed above.",
        # TensorFlow's allocator retrying: "not a failure" in its own words (tensorflow/tensorflow#52123)
        (INPUTS / "tf-bfc-not-a-failure.txt").read_text(encoding="utf-8"),
        # a healthy start: cuBLAS opened, the GPU device created with its memory
        "2019-01-30 22:54:20.030160: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device "
        "(/job:localhost/replica:0/task:0/device:GPU:0 with 6309 MB memory) -> physical GPU (device: 0, name: GeForce "
        "RTX 2070, pci bus id: 0000:01:00.0, compute capability: 7.5)\n"
        "2019-07-21 23:23:06.136829: I tensorflow/stream_executor/platform/default/dso_loader.cc:42] Successfully opened "
        "dynamic library libcublas.so.10",
    ],
    ids=["miopen", "bfc-not-a-failure", "healthy-start"],
)
def test_quiet_twins_do_not_fire(text):
    snapshot, _, codes, _ = _run(text)
    new = {
        "tf-conv-algorithm-cudnn-failed",
        "tf-blas-launch-failed",
        "tf-dnn-implementation-not-found",
        "tf-oom-when-allocating-tensor",
        "xla-resource-exhausted-oom",
        "jaxlib-older-than-jax-needs",
    }
    assert not new & set(_entries(snapshot)), _entries(snapshot)
    assert not [c for c, f in codes.items() if f.severity.name in ("WARNING", "ERROR", "CRITICAL")], codes


def test_a_matching_jax_pair_is_no_mismatch():
    # (a pip listing of jax and jaxlib at one version, the CPU build: framework-cpu-build is its own finding)
    snapshot, _, codes, _ = _run("Package    Version\n---------- -------\njax        0.4.7\njaxlib     0.4.7\n")
    assert "jaxlib-older-than-jax-needs" not in _entries(snapshot) and "jax-plugin-mismatch" not in codes, codes


def test_the_head_list_is_well_formed():
    """Every message of the list names its threads (2 or more) and inputs that exist; every input is one listed."""
    head = tomllib.loads((HEAD / "tensorflow-jax.toml").read_text(encoding="utf-8"))
    listed = set()
    for m in head["message"]:
        assert len(set(m["threads"])) >= 1 and m["first"] in ("right", "partly", "missed"), m["id"]
        assert m["after"] in ("right", "partly", "missed"), m["id"]
        for i in m["inputs"]:
            assert (HEAD / i["file"]).is_file() and i["from"] in m["threads"], i
            listed.add(i["file"].split("/", 1)[1])
    assert listed == {p.name for p in INPUTS.glob("*.txt")}


def test_xla_dnn_initialisation_asks_the_wheels_and_the_loader_path_in_the_interpreter_that_failed():
    """JAX's 'DNN library initialization failed' (srush/annotated-s4#75): the driver, the wheels installed in the conda
    environment the traceback names, and LD_LIBRARY_PATH; with the cuDNN version line shown, cudnn-too-old decides."""
    snapshot, _, codes, asks = _run((INPUTS / "xla-dnn-library-init-failed.txt").read_text(encoding="utf-8"))
    assert _entries(snapshot).get("xla-dnn-library-init-failed") == "cudnn-handle-failed"
    assert set(codes) == {"pasted-error-unexplained"}, codes
    assert "/home/user/anaconda3/envs/JAX-GPU/bin/python -m pip list" in asks and "printenv LD_LIBRARY_PATH" in asks, asks
    _, _, codes, asks = _run((INPUTS / "xla-dnn-init-cudnn-older.txt").read_text(encoding="utf-8"))
    assert "cudnn-too-old" in codes and "pasted-error-unexplained" not in codes, codes


def test_configuring_the_gpus_too_late_is_the_programs_order():
    snapshot, _, codes, _ = _run((INPUTS / "tf-physical-devices-initialized.txt").read_text(encoding="utf-8"))
    assert _entries(snapshot).get("tf-physical-devices-initialized") == "program-fault"
    assert not [c for c, f in codes.items() if f.severity.name in ("WARNING", "ERROR", "CRITICAL")], codes


def test_jax_falling_back_to_the_cpu_is_a_failure_where_the_text_shows_the_gpu():
    # nvidia-smi's table with its GPU row (tensorflow/tensorflow#62328's), then JAX on the CPU: the failure named
    snapshot, _, codes, asks = _run(
        SMI + "WARNING:absl:No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n"
    )
    assert _entries(snapshot).get("jax-no-gpu-tpu-found") == "jax-cpu-backend-only"
    assert set(codes) == {"pasted-error-unexplained"}, codes
    assert "python3 -m pip list | grep -i jax" in asks, asks
    assert "env TF_CPP_MIN_LOG_LEVEL=0 python3 -c import jax; print(jax.devices())" in asks, asks


def test_jax_falling_back_to_the_cpu_with_only_a_driver_stated_asks_but_finds_nothing():
    """whisper-jax#30's form names the GPU in words and the driver's version, no GPU row: as TensorFlow's cudart line,
    the fallback is a failure only with a GPU shown (a reporter quoting it from before a fix, tests/blind/pasted 005,
    shows the driver too); the asks are listed."""
    _, _, codes, asks = _run((INPUTS / "jax-no-gpu-tpu-found-3090.txt").read_text(encoding="utf-8"))
    assert not [c for c, f in codes.items() if f.severity.name in ("WARNING", "ERROR", "CRITICAL")], codes
    assert "python3 -m pip list | grep -i jax" in asks, asks


def test_jax_falling_back_to_the_cpu_with_no_gpu_shown_asks_but_finds_nothing():
    """CPU notebooks and docs print it too (the quiet twin): with no NVIDIA GPU or driver shown it is no failure; the asks
    that decide it are still listed (kuprel/min-dalle#22, where only the reporter's words say a GPU is there)."""
    _, _, codes, asks = _run((INPUTS / "jax-no-gpu-tpu-found.txt").read_text(encoding="utf-8"))
    assert not [c for c, f in codes.items() if f.severity.name in ("WARNING", "ERROR", "CRITICAL")], codes
    assert "nvidia-smi" in asks and "python3 -m pip list | grep -i jax" in asks, asks
    _, _, codes, _ = _run(
        "```python\njnp.arange(10)\n```\n\n    WARNING:absl:No GPU/TPU found, falling back to CPU. (Set "
        "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n\n    DeviceArray([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], dtype=int32)\n"
    )
    assert not codes, codes
