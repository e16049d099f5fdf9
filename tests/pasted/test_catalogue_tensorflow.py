"""TensorFlow's and XLA's (and JAX's, through XLA) messages about the GPU environment in the catalogue (catalogue.toml's
TensorFlow/XLA family): each is read, leads to the finding the paste decides or to the asks that tell its causes apart,
and the start-up lines every TensorFlow user sees are known as harmless, so they never become a finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pasted.test_catalogue import _run

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"

# nvidia-smi's header and GPU row as tensorflow/tensorflow#62328 shows them: an NVIDIA GPU the driver answers for
SMI = """+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.113.01             Driver Version: 535.113.01   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce GTX 1650        Off | 00000000:01:00.0  On |                  N/A |
| N/A   43C    P8               3W /  50W |    119MiB /  4096MiB |      7%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
"""
CUDART = (
    "2024-04-30 16:29:17.328463: I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, "
    "GPU will not be used.\n"
)
DRIVER = ["lsmod | grep nvidia", "nvidia-smi", "ls -l /dev | grep nvidia"]
STUB = ["printenv LD_LIBRARY_PATH", "ldconfig -p | grep libcuda"]
# (the nvcc wheel's `pip list | grep nvidia-cuda-nvcc` is folded into the whole `pip list` a JAX failure asks beside it:
# gpudoctor.pasted.ask._without_filtered_twice; its reason says what the filter looked for)
NVCC_WHEEL = ["printenv XLA_FLAGS", "python3 -m pip list"]


def _entries(snapshot) -> dict[str, str]:
    return {(e.get("values") or {}).get("entry"): e["kind"] for e in snapshot["pasted"]["errors"]}


def _pip_list(*rows: str) -> str:
    return "Package    Version\n---------- -------\n" + "".join(f"{r}\n" for r in rows)


@pytest.mark.parametrize(
    ("text", "entry", "kind", "asked"),
    [
        (
            "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:145] kernel driver does not appear to be running on "
            "this host (box): /proc/driver/nvidia/version does not exist",
            "tf-kernel-driver-not-running",
            "tf-driver-module-absent",
            DRIVER,
        ),
        (
            "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:198] kernel reported version is: Permission denied: "
            "could not open driver version path for reading: /proc/driver/nvidia/version",
            "tf-kernel-driver-not-running",
            "tf-driver-module-absent",
            DRIVER,
        ),
        (
            "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:163] no NVIDIA GPU device is present: /dev/nvidia0 "
            "does not exist",
            "tf-no-nvidia-device-node",
            "cuda-no-device-driver-loaded",
            ["ls -l /dev | grep nvidia", "nvidia-smi"],
        ),
        (
            "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:200] libcuda reported version is: Not found: was "
            "unable to find libcuda.so DSO loaded into this program",
            "tf-libcuda-not-loaded",
            "libcuda-not-loaded",
            ["ldconfig -p | grep libcuda", "nvidia-smi"],
        ),
        (
            "E tensorflow/stream_executor/cuda/cuda_driver.cc:313] failed call to cuInit: UNKNOWN ERROR (303)",
            "cuinit-unknown-error-code",
            "cuinit-unknown-code",
            ["lsmod | grep nvidia", "ls -l /dev | grep nvidia", "ldconfig -p | grep libcuda"],
        ),
        (
            "E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: UNKNOWN ERROR (34)",
            "cuinit-unknown-error-34",
            "cuda-stub-library",
            STUB,
        ),
        (
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
            "tf-could-not-create-cudnn-handle",
            "cudnn-handle-failed",
            ["nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"],
        ),
        (
            "tensorflow.python.framework.errors_impl.UnimplementedError: Graph execution error:\n\nDNN library is not "
            "found.\n\t [[{{node model/conv2d/Conv2D}}]]",
            "tf-dnn-library-not-found",
            "tf-dnn-library-missing",
            ["python3 -m pip list"],
        ),
        (
            "W external/xla/xla/service/gpu/nvptx_compiler.cc:679] Can't find libdevice directory ${CUDA_DIR}/nvvm/"
            "libdevice. This may result in compilation or runtime failures, if the program we try to run uses routines "
            "from libdevice.",
            "xla-libdevice-not-found",
            "xla-cuda-data-dir-missing",
            NVCC_WHEEL,
        ),
        (
            "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: libdevice not found at ./libdevice.10.bc",
            "xla-libdevice-not-found",
            "xla-cuda-data-dir-missing",
            NVCC_WHEEL,
        ),
        (
            "F external/org_tensorflow/tensorflow/compiler/xla/service/gpu/nvptx_compiler.cc:480] ptxas returned an "
            "error during compilation of ptx to sass: 'Internal: Failed to launch ptxas'",
            "xla-ptxas-launch-failed",
            "xla-ptxas-missing",
            ["which ptxas", *NVCC_WHEEL],
        ),
        (
            "RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU devices. (you may "
            "need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)",
            "xla-no-visible-gpu-devices",
            "xla-no-visible-gpu",
            ["printenv CUDA_VISIBLE_DEVICES", "nvidia-smi -L"],
        ),
        (
            "CUDA backend failed to initialize: Found cuSPARSE version 12103, but JAX was built against version 12200, "
            "which is newer. The copy of cuSPARSE that is installed must be at least as new as the version against "
            "which JAX was built. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
            "jax-cuda-library-older-than-built",
            "jax-cuda-library-older",
            ["python3 -m pip list", "printenv LD_LIBRARY_PATH"],
        ),
        (
            # jax 0.4.26 and later, the versions on their own lines
            "CUDA backend failed to initialize: Unable to use CUDA because of the following issues with CUDA components:"
            "\nOutdated cuSPARSE installation found.\nVersion JAX was built against: 12200\nMinimum supported: 12100\n"
            "Installed version: 12002\nThe local installation version must be no lower than 12100.",
            "jax-cuda-library-older-than-built",
            "jax-cuda-library-older",
            ["python3 -m pip list", "printenv LD_LIBRARY_PATH"],
        ),
    ],
)
def test_each_message_is_read_and_asks_what_decides_it(text, entry, kind, asked):
    snapshot, _, codes, asks = _run(text)
    assert _entries(snapshot).get(entry) == kind, _entries(snapshot)
    assert all(a in asks for a in asked), asks
    # the paste alone does not say which cause: a failure it cannot explain, never a guessed fix
    assert set(codes) == {"pasted-error-unexplained"}, codes


def test_the_cudnn_handle_ask_runs_a_convolution_with_memory_taken_as_needed():
    _, _, _, asks = _run("Could not create cudnn handle: CUDNN_STATUS_ALLOC_FAILED")
    growth = [a for a in asks if a.startswith("env TF_FORCE_GPU_ALLOW_GROWTH=true TF_CPP_MIN_LOG_LEVEL=0 python3 -c")]
    assert len(growth) == 1 and "tf.nn.conv2d" in growth[0], asks


def test_the_values_are_read():
    snapshot, _, _, _ = _run(
        "Outdated cuSOLVER installation found.\nVersion JAX was built against: 11600\nMinimum supported: 11500\n"
        "Installed version: 11405\n"
    )
    older = next(e for e in snapshot["pasted"]["errors"] if e["kind"] == "jax-cuda-library-older")
    assert (older["values"]["library_now"], older["values"]["built_now"], older["values"]["loaded_now"]) == (
        "cuSOLVER",
        "11600",
        "11405",
    )
    snapshot, _, _, _ = _run("failed call to cuInit: UNKNOWN ERROR (303)")
    assert next(e for e in snapshot["pasted"]["errors"] if e["kind"] == "cuinit-unknown-code")["values"]["code"] == "303"


def test_jax_cudnn_check_stays_error_texts_own():
    """JAX's cuDNN check is read by error_texts (cudnn-too-old, its versions parsed): this family does not read it."""
    snapshot, _, _, _ = _run(
        "CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8906, which is "
        "newer. The copy of cuDNN that is installed must be at least as new as the version against which JAX was built."
    )
    assert "jax-cuda-library-older-than-built" not in _entries(snapshot)
    assert "cudnn-version-mismatch" in {e["kind"] for e in snapshot["pasted"]["errors"]}


def test_a_gpu_below_tensorflows_minimum_is_the_gpus():
    _, _, codes, asks = _run((EXAMPLES / "tf-pose-estimation-387-k40c-tf-minimum-capability-37.txt").read_text())
    f = codes["framework-arch-unsupported"]
    assert f.severity.name == "ERROR" and f.remediation is not None
    assert f.remediation.component == "gpu" and f.remediation.commands == ()  # nothing installed fixes it
    assert "Tesla K40c" in f.title and "3.5" in f.title and "3.7" in f.title
    assert "pasted-error-unexplained" not in codes


def test_a_gpu_ignored_beside_one_tensorflow_uses_is_a_warning():
    text = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1700] Ignoring visible gpu device (device: 1, name: "
        "GeForce GT 730, pci bus id: 0000:02:00.0, compute capability: 3.5) with Cuda compute capability 3.5. The "
        "minimum required Cuda capability is 3.7.\n"
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device /job:localhost/replica:0/task:0/"
        "device:GPU:0 with 22282 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 3090, pci bus id: 0000:01:00.0, "
        "compute capability: 8.6\n"
    )
    _, _, codes, _ = _run(text)
    assert codes["framework-arch-unsupported"].severity.name == "WARNING"
    assert "GeForce GT 730" in codes["framework-arch-unsupported"].title


@pytest.mark.parametrize(
    ("version", "pin"),
    [
        # pins checked: pip install --dry-run --report - --isolated --python-version 3.11 --platform
        # manylinux_2_17_x86_64 --only-binary=:all: --no-deps tensorflow==2.16.1 / ==2.15.0.post1 (both resolve)
        ("2.16.1", "tensorflow[and-cuda]==2.16.1"),
        # 2.15.0's [and-cuda] extra does not resolve; its re-release's does (pick_tensorflow.AND_CUDA_REPLACED)
        ("2.15.0", "tensorflow[and-cuda]==2.15.0.post1"),
    ],
)
def test_no_cuda_runtime_beside_a_gpu_installs_tensorflows_own_cuda_wheels(version, pin):
    _, _, codes, _ = _run(SMI + _pip_list(f"tensorflow {version}", "numpy 1.26.4") + CUDART)
    f = codes["framework-cuda-libs-missing"]
    assert [c.argv for c in f.remediation.commands] == [("python3", "-m", "pip", "install", pin)]
    assert f.remediation.requires_root is False  # user-level: never root apt CUDA for a pip TensorFlow


def test_no_cuda_runtime_before_and_cuda_names_no_guessed_pin():
    _, _, codes, _ = _run(SMI + _pip_list("tensorflow 2.13.1") + CUDART)
    f = codes["framework-cuda-libs-missing"]
    assert f.remediation.commands == ()  # 2.13 has no [and-cuda] extra: the text says what to install, no pin


def test_no_cuda_runtime_with_the_templates_cuda_stated_and_no_gpu_read_fires():
    """tensorflow/tensorflow#66750 (catalogue_examples): TensorFlow 2.13.1, the issue template's "CUDA/cuDNN version"
    heading says CUDA 12.4 and the GPU named is no model gpudoctor knows ("GTX 4090"): the stated CUDA says the GPU is
    wanted. 2.13 has no [and-cuda] extra, so no pin is made up."""
    _, _, codes, _ = _run((EXAMPLES / "tensorflow-66750-tf2131-could-not-find-cuda-drivers.txt").read_text(encoding="utf-8"))
    f = codes["framework-cuda-libs-missing"]
    assert f.remediation.commands == ()
    assert "CUDA 11.8" in f.detail  # 2.13.1's build, not the 12.4 the reporter has


def test_no_cuda_runtime_on_wsl_with_the_cuda_field_filled_installs_the_and_cuda_extra():
    """tests/blind/plans10 case 1014 (its thread is named only there): pip TensorFlow 2.15.1 in WSL 2, the template's
    CUDA field "CUDA Version: 11.4", no GPU row: the extra of the same release, in the interpreter that ran."""
    path = (
        Path(__file__).resolve().parents[2]
        / "tests/blind/plans10/cases/1014-tf70960-wsl2-ubuntu2204-py3119-pip-tf2151-no-cuda12-libs-driver-cuda-114/input.txt"
    )
    _, _, codes, _ = _run(path.read_text(encoding="utf-8"))
    f = codes["framework-cuda-libs-missing"]
    assert [c.argv for c in f.remediation.commands] == [("python3", "-m", "pip", "install", "tensorflow[and-cuda]==2.15.1")]


def test_no_cuda_runtime_without_a_gpu_is_quiet():
    """TensorFlow prints it at import on a CPU-only machine too: no finding where the text shows no GPU."""
    _, _, codes, _ = _run(_pip_list("tensorflow 2.16.1") + CUDART)
    assert "framework-cuda-libs-missing" not in codes and "pasted-error-unexplained" not in codes, codes


@pytest.mark.parametrize(
    "example",
    [
        "microwakeword-8-tf-startup-factories-trt.txt",
        "tensorflow-30912-numa-negative-dso-opened.txt",
        "honnotate-34-created-tensorflow-device-then-oom.txt",
        "tensorflow-37689-no-gpu-machine-tf-trt-libnvinfer.txt",
    ],
)
def test_tensorflows_startup_lines_are_harmless(example):
    snapshot, report, codes, asks = _run((EXAMPLES / example).read_text(encoding="utf-8"))
    assert not [f for f in report.findings if f.severity.name in ("WARNING", "ERROR")], codes
    # TF-TRT's libnvinfer is optional: not a missing CUDA library, and no loader asks for it
    assert "libnvinfer.so.6" not in snapshot["pasted"].get("missing", [])
    assert not [a for a in asks if a.startswith("ldconfig")], asks


@pytest.mark.parametrize(
    "line",
    [
        "2023-10-01 12:00:00.000000: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not "
        "find TensorRT",
        "2019-09-18 17:49:26.342297: I tensorflow/core/platform/cpu_feature_guard.cc:142] Your CPU supports "
        "instructions that this TensorFlow binary was not compiled to use: AVX2 FMA",
        "E0000 00:00:1764833020.571581    9063 cuda_dnn.cc:8579] Unable to register cuDNN factory: Attempting to "
        "register factory for plugin cuDNN when one has already been registered",
        "I external/local_xla/xla/stream_executor/cuda/cuda_executor.cc:901] successful NUMA node read from SysFS had "
        "negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero.",
        "I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library libcudart.so.11.0",
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device /job:localhost/replica:0/task:0/"
        "device:GPU:0 with 22282 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 3090, pci bus id: 0000:01:00.0",
        "2020-03-18 08:16:50.221103: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load "
        "dynamic library 'libnvinfer.so.6'; dlerror: libnvinfer.so.6: cannot open shared object file: No such file "
        "or directory",
        # the ptxas version check alone is a warning TensorFlow goes on after (the driver compiles the PTX)
        "2023-03-08 18:50:37.138811: W tensorflow/stream_executor/gpu/asm_compiler.cc:80] Couldn't get ptxas version "
        "string: INTERNAL: Couldn't invoke ptxas --version",
    ],
)
def test_each_harmless_line_alone_is_no_finding(line):
    _, report, codes, _ = _run(line)
    assert not [f for f in report.findings if f.severity.name in ("WARNING", "ERROR")], codes


@pytest.mark.parametrize(
    ("example", "asked"),
    [
        ("tensorflow-57764-pod-cuinit-34-kernel-driver-not-running.txt", [*STUB, "lsmod | grep nvidia"]),
        ("cartoonize-22-dev-nvidia0-does-not-exist.txt", ["ls -l /dev | grep nvidia"]),
        # (the image the paste ran with --gpus: its loader's cache, where the runtime puts the driver's libcuda)
        (
            "tensorflow-40874-docker-libcuda-dso-not-found.txt",
            ["docker run --rm --gpus all --entrypoint ldconfig tensorflow/tensorflow:latest-gpu -p | grep libcuda"],
        ),
        ("chiron-99-libcuda-missing-cuinit-303.txt", ["lsmod | grep nvidia", "ldconfig -p | grep libcuda"]),
        (
            "urlnet-7-could-not-create-cudnn-handle.txt",
            ["nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"],
        ),
        ("tensorflow-tpu-970-dnn-library-not-found.txt", ["python3 -m pip list"]),
        # (tensorflow-60790-libdevice-not-found.txt is explained now: its searched roots name the build's CUDA 11.8,
        # whose nvcc wheel is the fix, tests/pasted/test_xla_libdevice_wheel.py)
        ("jax-7239-couldnt-invoke-ptxas.txt", ["which ptxas", *NVCC_WHEEL]),
        ("alpa-452-backend-gpu-no-visible-gpu-devices.txt", ["printenv CUDA_VISIBLE_DEVICES", "nvidia-smi -L"]),
        ("jax-18009-found-cusolver-older-than-built.txt", ["python3 -m pip list", "printenv LD_LIBRARY_PATH"]),
    ],
)
def test_the_real_examples_ask_what_decides(example, asked):
    _, _, codes, asks = _run((EXAMPLES / example).read_text(encoding="utf-8"))
    assert all(a in asks for a in asked), asks
    assert "pasted-error-unexplained" in codes  # named as a failure, never a clean bill of health


@pytest.mark.parametrize(
    "text",
    [
        # the words inside a program's own code are not the message printed
        'raise RuntimeError("DNN library is not found. Please install cuDNN")',
        'msg = "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"',
        # a tutorial's prose about the message, not the log line: no "Ignoring visible gpu device (" with its device
        "TensorFlow may print that it is ignoring a visible gpu device whose compute capability is below its minimum.",
    ],
)
def test_the_words_in_code_or_prose_are_quiet(text):
    _, _, codes, _ = _run(text)
    assert not codes, codes


def test_startup_lines_do_not_hide_a_traceback_the_paste_cuts_off():
    """TensorFlow's start-up lines print before anything fails: a paste that ends inside a traceback after them is
    still a failure it cannot explain (the error line was cut), never a clean bill of health."""
    text = (
        ">>> sess = tf.Session()\n"
        "2018-10-25 12:10:00.651103: I tensorflow/core/platform/cpu_feature_guard.cc:141] Your CPU supports instructions "
        "that this TensorFlow binary was not compiled to use: SSE4.1 SSE4.2 AVX AVX2 FMA\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/home/u/.conda/envs/dl/lib/python3.6/site-packages/tensorflow/python/client/session.py", line 1511, '
        "in __init__\n"
        "    super\n"
    )
    snapshot, _, codes, _ = _run(text)
    assert "traceback-cut" in {e["kind"] for e in snapshot["pasted"]["errors"]}
    assert "pasted-error-unexplained" in codes
