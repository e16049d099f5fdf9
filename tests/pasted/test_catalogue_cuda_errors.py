"""The CUDA runtime's and driver's error codes in the catalogue (catalogue.toml's cudaError_t / CUresult family): each
is read by the string cudaGetErrorString prints, in the forms frameworks wrap it, and asks what decides its cause; the
bare name in a program's own code or log is not an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pasted.test_catalogue import _run

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
PLANS7 = Path(__file__).resolve().parents[1] / "blind" / "plans7" / "cases"

FABRIC = ["systemctl status nvidia-fabricmanager", "nvidia-smi -q | grep -i -A2 fabric"]
COMPAT = ["printenv LD_LIBRARY_PATH", "ls /usr/local/cuda/compat"]
COMPUTE = [
    "nvidia-smi --query-gpu=index,uuid,compute_mode --format=csv",
    "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
]
VISIBLE = ["printenv CUDA_VISIBLE_DEVICES", "nvidia-smi -L"]
STUB = ["printenv LD_LIBRARY_PATH", "ldconfig -p | grep libcuda"]
OS_CALL = ["ls -l /dev | grep nvidia", "uname -r", "df -h /dev/shm"]
NOT_SUPPORTED = ["uname -r", "printenv PYTORCH_CUDA_ALLOC_CONF"]


@pytest.mark.parametrize(
    ("text", "entry", "kind", "asked"),
    [
        # PyTorch's warning from cudaGetDeviceCount, and XLA's cuInit failure with the string after the name
        (
            "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
            "functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet "
            "initialized (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)",
            "cuda-system-not-ready",
            "cuda-system-not-ready",
            FABRIC,
        ),
        (
            "cudaGetDeviceProperties returned 802\n-> system not yet initialized\n"
            'CUDA error at bandwidthTest.cu:256 code=802(cudaErrorSystemNotReady) "cudaSetDevice(currentDevice)"',
            "cuda-system-not-ready",
            "cuda-system-not-ready",
            FABRIC,
        ),
        (
            "RuntimeError: CUDA error: forward compatibility was attempted on non supported HW",
            "cuda-compat-not-supported-on-device",
            "cuda-compat-not-supported",
            ["nvidia-smi", *COMPAT],
        ),
        (
            "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
            "cuda-devices-unavailable",
            "cuda-devices-unavailable",
            COMPUTE,
        ),
        (
            'Error: DriverError(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "the provided PTX was compiled with an unsupported '
            'toolchain.") when loading is_u32_f32',
            "cuda-unsupported-ptx-version",
            "cuda-unsupported-ptx",
            ["nvidia-smi", "nvcc --version"],
        ),
        (
            "CUDA error: PTX JIT compiler library not found\n  current device: 0, in function ggml_cuda_compute_forward",
            "cuda-jit-compiler-not-found",
            "cuda-jit-compiler-missing",
            ["ldconfig -p | grep -E libcuda|ptxjitcompiler"],
        ),
        ("RuntimeError: CUDA error: invalid device ordinal", "cuda-invalid-device-ordinal", "cuda-invalid-device", VISIBLE),
        ("CUDA API Error at line 28: CUDA driver is a stub library", "cuda-stub-library", "cuda-stub-library", STUB),
        (
            "RuntimeError: CUDA error: API call is not supported in the installed CUDA driver",
            "cuda-call-requires-newer-driver",
            "cuda-api-not-in-driver",
            ["nvidia-smi", "printenv PYTORCH_CUDA_ALLOC_CONF"],
        ),
        (
            "CUDA runtime API error cudaErrorOperatingSystem (304):\nOS call failed or operation not supported on this OS",
            "cuda-operating-system",
            "cuda-os-call-failed",
            OS_CALL,
        ),
        (
            "CUDARuntimeError: cudaErrorNotSupported: operation not supported",
            "cuda-not-supported",
            "cuda-not-supported",
            NOT_SUPPORTED,
        ),
        (
            'called `Result::unwrap()` on an `Err` value: DriverError(CUDA_ERROR_NOT_SUPPORTED, "operation not supported")',
            "cuda-not-supported",
            "cuda-not-supported",
            NOT_SUPPORTED,
        ),
    ],
)
def test_each_cuda_error_string_is_read_and_asks_what_decides_it(text, entry, kind, asked):
    snapshot, _, _, asks = _run(text)
    said = {(e.get("values") or {}).get("entry"): e["kind"] for e in snapshot["pasted"]["errors"]}
    assert said.get(entry) == kind, said
    assert all(a in asks for a in asked), asks


@pytest.mark.parametrize(
    ("example", "asked"),
    [
        ("lisa-2823-nd96asr-v4-error-802-system-not-yet-initialized.txt", FABRIC),
        ("cusignal-398-cupy-compat-not-supported-on-device.txt", COMPAT),
        ("digits-2005-k40m-exclusive-process-error-46.txt", COMPUTE),
        ("cuda-memtest-31-cuda113-driver460-unsupported-toolchain.txt", ["nvcc --version"]),
        ("jax-9644-nix-ptx-jit-compiler-library-not-found.txt", ["ldconfig -p | grep -E libcuda|ptxjitcompiler"]),
        ("pick-pytorch-14-visible-devices-two-nproc-four-error-101.txt", VISIBLE),
        ("xmake-4686-wsl2-ld-library-path-stubs-libcuda.txt", STUB),
        ("fastertransformer-406-grid-t4-8c-api-not-supported.txt", ["printenv PYTORCH_CUDA_ALLOC_CONF"]),
        ("onnxruntime-20421-docker-centos7-cuda-failure-304.txt", OS_CALL),
        ("cudf-11382-wsl2-geforce-801-not-supported.txt", NOT_SUPPORTED),
    ],
)
def test_the_real_examples_ask_what_decides(example, asked):
    _, _, _, asks = _run((EXAMPLES / example).read_text(encoding="utf-8"))
    assert all(a in asks for a in asked), asks


@pytest.mark.parametrize(
    "text",
    [
        # a program's own code and its retry log name the error without it happening
        "    if (result == cudaErrorSystemNotReady || result == cudaErrorCompatNotSupportedOnDevice) {",
        "INFO 03-26 05:25:01 retrying while cuInit returns CUDA_ERROR_SYSTEM_NOT_READY (fabric manager starting)",
        "case CUDA_ERROR_DEVICE_UNAVAILABLE: return FI_ENOSYS;  // CUDA_ERROR_STUB_LIBRARY, CUDA_ERROR_INVALID_DEVICE too",
        # the kernel's EOPNOTSUPP, in a copy's and a socket's words, is not CUDA's 801
        "cp: cannot preserve ownership of '/mnt/c/data/x': Operation not supported",
        "setsockopt(SO_REUSEPORT): Operation not supported",
    ],
)
def test_names_alone_and_other_errors_are_quiet(text):
    snapshot, _, codes, asks = _run(text)
    family = {
        "cuda-system-not-ready",
        "cuda-compat-not-supported",
        "cuda-devices-unavailable",
        "cuda-unsupported-ptx",
        "cuda-jit-compiler-missing",
        "cuda-invalid-device",
        "cuda-stub-library",
        "cuda-api-not-in-driver",
        "cuda-os-call-failed",
        "cuda-not-supported",
    }
    assert not family & {e["kind"] for e in snapshot["pasted"]["errors"]}
    assert not set(FABRIC + COMPUTE + VISIBLE + OS_CALL + NOT_SUPPORTED) & set(asks)
    assert "pasted-error-unexplained" not in codes


def test_another_error_whose_name_starts_the_same_is_not_the_familys():
    # 98, an invalid device function (a build without the GPU's code): none of the family's kinds or asks; it is a failure
    # all the same, named as one no entry explains (gpudoctor.parsers.failure_lines: its error code the component)
    snapshot, _, codes, asks = _run("RuntimeError: CUDA error: cudaErrorInvalidDeviceFunction: invalid device function")
    assert [e["kind"] for e in snapshot["pasted"]["errors"]] == ["gpu-stack-failure"]
    assert not set(FABRIC + COMPUTE + VISIBLE + OS_CALL + NOT_SUPPORTED) & set(asks)
    assert "pasted-error-unexplained" in codes


def test_blind_set_7_fabric_manager_and_forward_compat_cases_now_ask_what_decides():
    # (the blind cases themselves are not examples; they show the family reaching reports it missed)
    fabric = next(PLANS7.glob("624-*")) / "input.txt"
    _, _, _, asks = _run(fabric.read_text(encoding="utf-8"))
    assert all(a in asks for a in FABRIC), asks
    # (649, error 804 inside "the baseline docker", is decided since: test_error_804_in_a_container_alone_decides_*)


PLANS = Path(__file__).resolve().parents[1] / "blind"


def _case(rel: str) -> str:
    return next(PLANS.glob(rel)).joinpath("input.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "case",
    [
        # vLLM's image run with docker run --runtime nvidia, driver and GPU not shown (vllm-project/vllm#4940)
        "plans16/cases/1623-*",
        # PyTorch in "the baseline docker" on an RTX 3090, the driver's "525" in prose only
        "plans7/cases/649-*",
    ],
)
def test_error_804_in_a_container_alone_decides_the_host_driver_older_than_the_images_cuda(case):
    # 804 has one documented cause (cudaErrorCompatNotSupportedOnDevice: forward compatibility on hardware that does not
    # support it): the image's CUDA is newer than the host's driver, on a GPU that is not a data-center part. The fix is
    # the host's driver (or an image for the driver's CUDA); with the driver not shown its first command reads it.
    _, _, codes, _ = _run(_case(case))
    assert "pasted-error-unexplained" not in codes
    f = codes["toolkit-newer-than-driver"]
    assert f.remediation.component == "driver" and f.remediation.where == "the host"
    argv = [c.argv for c in f.remediation.commands if hasattr(c, "argv")]
    assert argv[0] == ("nvidia-smi",)
    assert f.remediation.alternative is not None and f.remediation.alternative.component == "container"


@pytest.mark.parametrize(
    "text",
    [
        # the same paste on a data-center GPU, where forward compatibility is supported: 804 has another cause
        _case("plans16/cases/1623-*") + "\nI use two Tesla V100 GPUs.\n",
        # an image built on CUDA 10.2 (nvidia/cudagl:10.2) beside a driver 440 that supports it: the compat library
        # reached the loader otherwise
        _case("plans14/cases/1412-*"),
        # bare metal (cuSignal from conda): no image, LD_LIBRARY_PATH naming a compat directory is the other cause
        (EXAMPLES / "cusignal-398-cupy-compat-not-supported-on-device.txt").read_text(encoding="utf-8"),
    ],
)
def test_error_804_where_forward_compatibility_is_supported_or_no_image_runs_stays_asked(text):
    _, _, codes, asks = _run(text)
    assert "toolkit-newer-than-driver" not in codes
    assert "pasted-error-unexplained" in codes
    # (asked where the program runs: inside the image, as a docker run of it, where the paste names one)
    assert all(any(a.endswith(c) for a in asks) for c in (" LD_LIBRARY_PATH", " /usr/local/cuda/compat")), asks


def test_error_46_beside_the_tables_exclusive_process_cell_is_the_compute_mode():
    # the DIGITS report: the K40m's row reads "E. Process" on an HPC cluster, whose user has no root: the fix lists the
    # processes holding the GPU, and resetting the mode (root) is the administrators' (gpudoctor.planner.cluster)
    _, _, codes, _ = _run((EXAMPLES / "digits-2005-k40m-exclusive-process-error-46.txt").read_text(encoding="utf-8"))
    f = codes["gpu-compute-mode-restricted"]
    assert "Exclusive_Process" in f.title
    assert [c.argv for c in f.remediation.commands if hasattr(c, "argv")] == [
        ("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv")
    ]


_NUMBA_VISIBLE = (
    "import os, sys; print(sys.executable, os.environ.get('CUDA_VISIBLE_DEVICES')); from numba import cuda; cuda.detect()"
)
_NUMBA_NO_DEVICE_WITH_GPU = str(
    Path(__file__).resolve().parents[2]
    / (
        "tests/blind/plans10/cases/1025-numba5776-windows10-conda-pythongpu-gtx960m-numba-s-finds-gpu-script-cuinit-no-device-ask/"
        "input.txt"
    )
)


@pytest.mark.parametrize(
    ("path", "python"),
    [
        # RAPIDS on Linux (rapidsai/cudf#13388): cuInit NO_DEVICE under numba, the driver unshown
        (str(EXAMPLES / "cudf-13388-numba-cuinit-no-device.txt"), "python3"),
        # Windows, a conda prompt: numba -s lists the GTX 960M, the script's process gets NO_DEVICE
        (_NUMBA_NO_DEVICE_WITH_GPU, "python"),
    ],
)
def test_numba_no_device_asks_for_the_failing_process_visible_devices(path, python):
    """cuInit's NO_DEVICE under numba where a driver may well answer: what the failing process runs with decides it
    (CUDA_VISIBLE_DEVICES "-1" or empty hides every GPU), printed by the same interpreter, beside nvidia-smi."""
    _, _, _, asks = _run(Path(path).read_text(encoding="utf-8"))
    assert f"{python} -c {_NUMBA_VISIBLE}" in asks, asks
    assert "nvidia-smi" in asks


def test_numba_finding_its_gpu_asks_nothing_of_visible_devices():
    # The quiet twin: numba -s listing the GPU with no cuInit failure is no error of CUDA_VISIBLE_DEVICES.
    text = "__CUDA Information__\nFound 1 CUDA devices\nid 0     b'GeForce GTX 960M'                              [SUPPORTED]\n"
    _, _, _, asks = _run(text)
    assert not any("CUDA_VISIBLE_DEVICES" in a for a in asks), asks
