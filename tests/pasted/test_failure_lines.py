"""Issues 28 and 31 (item 2): a failure line no catalogue entry knows is still named, with the asks of its component.

gpudoctor.parsers.failure_lines reads the failure lines of the GPU stack that neither the catalogue nor the fixed
extractors recognise (a loader's refusal, a CUDA error code, a pod's status, a module's exception), each with the
component that failed; checks.reported names it (pasted-error-unexplained, never "No problems found"), and
pasted.ask asks what decides that component. Every example is a real report's text: the blind sets' inputs (their
expect.toml names the thread), or the line as the thread printed it (named beside it). The quiet twins are a
program's own faults and lines that name no part of the GPU stack.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.parsers.failure_lines import KIND, read_failure_lines
from tests.pasted.cli_json import check

BLIND = Path(__file__).resolve().parent.parent / "blind"


def _case(path: str) -> dict:
    return check(BLIND / path / "input.txt")


def _unexplained(doc: dict) -> dict:
    (finding,) = [f for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")]
    assert finding["code"] == "pasted-error-unexplained"
    return finding


def _asked(doc: dict) -> list[list[str]]:
    return [a["argv"] for a in doc["pasted"]["ask_for"]]


def _values(line: str) -> dict[str, str]:
    (evidence,) = read_failure_lines([line])
    assert evidence.kind == KIND
    return dict(evidence.values)


# --- the forms, each on a real line ----------------------------------------------------------------------------------


def test_a_symbol_version_the_loaders_library_lacks_names_that_library_and_who_needs_it():
    # microsoft/onnxruntime#8594: a conda environment's libcublas.so.11 bound against another release's libcublasLt
    line = (
        "OSError: /home/gpu/anaconda3/envs/FXM/lib/python3.7/lib-dynload/../../libcublas.so.11: symbol free_gemm_select "
        "version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference"
    )
    v = _values(line)
    assert (v["form"], v["component"], v["component_kind"]) == ("symbol-version", "libcublasLt.so.11", "library")
    assert v["requirer"] == "/home/gpu/anaconda3/envs/FXM/lib/python3.7/lib-dynload/../../libcublas.so.11"


def test_a_cuda_error_code_is_the_component():
    # rapidsai/cudf#13112, as the reporter quoted it in prose
    line = (
        "I tried `import cudf`, it gives me `numba.cuda.cudadrv.runtime.CudaRuntimeAPIError: [35] Call to "
        "cudaRuntimeGetVersion results in cudaErrorUnknown.`"
    )
    v = _values(line)
    assert (v["form"], v["component"], v["component_kind"]) == ("cuda-error", "cudaErrorUnknown", "runtime")


def test_a_pod_row_in_crash_loop_names_the_pod():
    # NVIDIA/k8s-device-plugin#13: kubectl get pods, quoted
    v = _values("nvidia-device-plugin-daemonset-csjxw   0/1       CrashLoopBackOff   12         39m")
    assert (v["form"], v["component"], v["component_kind"]) == ("pod", "nvidia-device-plugin-daemonset-csjxw", "pod")


def test_a_warning_that_the_gpu_is_not_there_names_the_package_that_warned():
    # dmlc/xgboost#11482
    line = (
        "/home/builder/test/lib64/python3.9/site-packages/xgboost/core.py:158: UserWarning: [11:40:57] WARNING: "
        "/workspace/src/context.cc:43: No visible GPU is found, setting device to CPU."
    )
    v = _values(line)
    assert (v["form"], v["component"], v["component_kind"]) == ("gpu-unavailable-warning", "xgboost", "module")


def test_a_tensorrt_error_line_names_tensorrt():
    # NVIDIA/TensorRT#2041
    line = "[06/08/2022-15:28:47] [TRT] [E] 4: [runtime.cpp::deserializeCudaEngine::50] Error Code 4: Internal Error (Engine deserialization failed.)"
    v = _values(line)
    assert (v["form"], v["component"]) == ("tensorrt", "tensorrt")


def test_an_installers_failure_names_the_package():
    # NVIDIA/DALI#5749: NVIDIA's placeholder package on Windows, which has no wheel of it
    v = _values("The installation of nvidia-dali-cuda120 for version 1.44.0 failed.")
    assert (v["form"], v["component"], v["component_kind"]) == ("install-failed", "nvidia-dali-cuda120", "package")


def test_the_daemons_refusal_names_the_daemon():
    # NVIDIA/nvidia-docker#1410 (the catalogue knows this one: in a paste its entry reads it first)
    v = _values('docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].')
    assert (v["form"], v["component"], v["component_kind"]) == ("daemon", "docker", "daemon")


def test_nvcc_stopping_names_the_toolkit():
    # facebookresearch/detectron2#2225 (the catalogue knows this one too)
    v = _values("nvcc fatal: Unsupported gpu architecture 'compute_86'")
    assert (v["form"], v["component"], v["component_kind"]) == ("nvcc", "nvcc", "toolkit")


@pytest.mark.parametrize(
    "line",
    [
        # a program's own faults: memory, a data type the GPU lacks (vllm-project/vllm#1153), a device index it chose
        "RuntimeError: CUDA error: out of memory",
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has "
        "compute capability 7.5.",
        "RuntimeError: CUDA error: invalid device ordinal",
        # JAX logs every backend it tries (jax-ml/jax#12335): ROCm's absence on an NVIDIA machine is no failure
        "RuntimeError: Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered platform with name: "
        '"rocm". Available platform names are: Interpreter CUDA Host',
        # no part of the GPU stack named (pytorch/pytorch#131662's DLL is torch's OpenMP dependency)
        'OSError: [WinError 126] The specified module could not be found. Error loading "C:\\Users\\USER\\AppData\\Local'
        '\\Programs\\Python\\Python312\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
        "ModuleNotFoundError: No module named 'pandas'",
    ],
)
def test_quiet_twins_are_not_read(line):
    assert read_failure_lines([line]) == []


def test_a_line_read_already_is_not_read_again():
    line = "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory"
    assert read_failure_lines([line], frozenset({line})) == []
    assert _values(line)["component"] == "libcudnn.so.8"


# --- whole reports: the finding names the component, cites the line, and the asks follow it --------------------------


def test_a_library_of_another_release_asks_which_copies_exist_and_which_the_loader_takes():
    doc = _case("plans8/cases/813-ort8594-conda-py37-ort170-libcublas-so-11-symbol-version-libcublaslt-mismatch-ask")
    finding = _unexplained(doc)
    assert "libcublasLt.so.11" in finding["title"]
    assert [e["value"] for e in finding["evidence"]][0].startswith("OSError: /home/gpu/anaconda3/envs/FXM/lib/python3.7")
    asked = _asked(doc)
    assert ["ldconfig", "-p"] in asked and ["printenv", "LD_LIBRARY_PATH"] in asked
    assert ["ldd", "/home/gpu/anaconda3/envs/FXM/lib/python3.7/lib-dynload/../../libcublas.so.11"] in asked
    assert ["find", "/home/gpu/anaconda3/envs/FXM/lib", "-name", "libcublasLt.so*"] in asked
    (ldconfig,) = [a for a in doc["pasted"]["ask_for"] if a["argv"] == ["ldconfig", "-p"]][-1:]
    assert ldconfig["command"] == "ldconfig -p | grep -F libcublasLt"


def test_a_pod_in_crash_loop_asks_for_the_pods_description():
    doc = _case("plans7/cases/613-k8sdp13-k8s18-device-plugin-crashloop-docker-default-runtime-not-nvidia")
    assert "nvidia-device-plugin-daemonset-csjxw" in _unexplained(doc)["title"]
    assert ["kubectl", "describe", "pod", "nvidia-device-plugin-daemonset-csjxw"] in _asked(doc)


def test_a_package_that_found_no_gpu_asks_its_release_in_the_interpreter_that_ran():
    doc = _case("plans7/cases/643-tortoisettsfast9-windows-python310-user-install-cuda-not-available-ask")
    assert "torch" in _unexplained(doc)["title"]
    python = "C:\\Users\\Perkel\\AppData\\Local\\Programs\\Python\\Python310\\python.exe"
    assert [python, "-m", "pip", "show", "torch"] in _asked(doc)


def test_a_cuda_error_code_in_prose_is_named():
    doc = _case("plans6/cases/512-cudf13112-wsl2-cudf-cudaerrorunknown-compute-capability-ask")
    finding = _unexplained(doc)
    assert "cudaErrorUnknown" in finding["title"]


@pytest.mark.parametrize(
    "path",
    [
        "plans6/cases/533-vllm1153-ec2-t4-bfloat16-needs-sm80-dtype-half-control",
        "plans5/cases/415-jax12335-jax-platforms-gpu-means-cuda-or-rocm-v100",
    ],
)
def test_fine_controls_stay_quiet(path):
    doc = _case(path)
    assert [f["code"] for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")] == []


# --- failures any program prints, whatever they name (issues 28 and 31 item 2): never a clean bill over them ------------

_P15 = "plans15/cases/"
_CMAKE_CUDNN = _P15 + "1539-openpose-486-ubuntu-cuda80-install-cudnn-sh-done-cmake-cudnn-not-found-sm30-ask"


def _first(path: str) -> dict[str, str]:
    """What failure_lines reads first of a recorded paste, as a whole."""
    lines = (BLIND / path / "input.txt").read_text(encoding="utf-8").splitlines()
    return dict(read_failure_lines(lines)[0].values)


@pytest.mark.parametrize(
    "path, form, component, kind",
    [
        # OpenPose's CMake stops ("CMake Error at CMakeLists.txt:279") after its own "cuDNN not found" status lines
        (_CMAKE_CUDNN, "configure", "cudnn", "configure"),
        (
            _P15 + "1543-openpose-1097-ubuntu-cmake-gui-configures-leftover-cuda-75-though-cuda-80-installed-cudnn-not-found",
            "configure",
            "cudnn",
            "configure",
        ),
        # Triton's launcher build: "main.c:5:10: fatal error: Python.h: No such file or directory"
        (
            "plans10/cases/1009-sglang1117-docker-sglang-v0213-cu121-image-h100-triton-python-h-missing",
            "compiler",
            "Python.h",
            "header",
        ),
        # `import torch` ends "Segmentation fault (core dumped)"
        (
            "plans11/cases/1120-pt4101-ubuntu1710-py363-torch030-cu90-wheel-import-torch-segfault-gdb-ldd-ask",
            "segfault",
            "the program",
            "crash",
        ),
        # loading a 30B model under WSL 2 ends in the shell's "Killed"
        ("plans6/cases/539-textgen536-wsl2-killed-loading-30b-wsl-memory-limit", "killed", "the process", "killed"),
        # a flash-attn build's top: 571 MiB free and 86 MiB of cache left of 128,686 MiB, no swap
        (
            _P15 + "1510-fa389-docker-ngc-pytorch-2306-a100-flash-attn-source-build-ninja-jobs-exhaust-128gb-no-swap",
            "memory-exhausted",
            "the machine's memory",
            "memory",
        ),
        # text-generation-webui's own logger: "2023-07-13 06:39:48 ERROR:Could not find repositories/exllama/."
        (
            "plans12/cases/1240-textgen-3123-windows-one-click-install-server-py-run-with-system-python310-cpu-bitsandbytes-no-cuda-runtime",
            "log-error",
            "the program",
            "log",
        ),
        # the reporter's words: "Under Windows 10 WSL2, GPU cannot be used"
        (
            _P15 + "1540-llamafile-263-wsl2-windows10-rtx4080-driver-55131-ngl-9999-no-gpus-found-cpu-fallback-ask",
            "cpu-said",
            "the program",
            "said",
        ),
        # "but none of them works on pytorch cuda" (two images of the server tried)
        (
            _P15 + "1553-deepdetect-997-docker-platform-two-titan-xp-jupyter-dd-notebook-container-torch-cuda-false-ask",
            "fails-said",
            "torch",
            "said",
        ),
        # "The device choice is CPU only. Is it because the CUDA 12.2 is no supported?": the statement, not the question
        (
            _P15 + "1538-gpt4all-1615-windows11-rtx3090-cuda122-device-dropdown-offers-cpu-only-vulkan-ask",
            "cpu-said",
            "the program",
            "said",
        ),
    ],
)
def test_a_failure_any_program_prints_is_read_with_its_subject(path, form, component, kind):
    v = _first(path)
    assert (v["form"], v["component"], v["component_kind"]) == (form, component, kind)


def test_a_configure_that_stopped_is_not_decided_and_asks_where_its_search_looked():
    doc = _case(_CMAKE_CUDNN)
    finding = _unexplained(doc)
    assert finding["title"].startswith("NOT DECIDED") and doc["exit_code"] == 1
    assert "input.txt:24" in finding["detail"]  # the failing line, cited where it is
    assert [e["value"] for e in finding["evidence"]][0] == "CMake Error at CMakeLists.txt:279 (message):"
    asked = _asked(doc)
    assert ["grep", "-iE", "cuda|cudnn|nccl|tensorrt", "/home/ubuntu/openpose/CMakeCache.txt"] in asked
    assert ["find", "/usr", "/opt", "-name", "cudnn*.h"] in asked
    (ldconfig,) = [a["command"] for a in doc["pasted"]["ask_for"] if a["argv"] == ["ldconfig", "-p"]]
    assert ldconfig == "ldconfig -p | grep -F libcudnn"


def test_a_segmentation_fault_asks_the_kernels_log_of_it():
    doc = _case("plans11/cases/1120-pt4101-ubuntu1710-py363-torch030-cu90-wheel-import-torch-segfault-gdb-ldd-ask")
    assert _unexplained(doc)["title"].startswith("NOT DECIDED")
    (dmesg,) = [a for a in doc["pasted"]["ask_for"] if a["argv"] == ["dmesg"]]
    assert dmesg["command"] == "sudo dmesg | grep -i segfault"


def test_memory_run_out_during_a_build_asks_the_oom_killers_log_not_the_memory_shown():
    doc = _case(_P15 + "1510-fa389-docker-ngc-pytorch-2306-a100-flash-attn-source-build-ninja-jobs-exhaust-128gb-no-swap")
    assert _unexplained(doc)["title"].startswith("NOT DECIDED")
    commands = [a["command"] for a in doc["pasted"]["ask_for"]]
    assert "sudo dmesg | grep -iE 'out of memory|killed process'" in commands
    assert "free -h" not in commands  # (top's own line shows the memory)


@pytest.mark.parametrize(
    "line",
    [
        # questions and fixes told: nothing failed that the line says
        "Does it use the GPU?",
        "Why is the GPU not used?",
        "The GPU was not used before; after reinstalling the driver it works now.",
        "Would this cause a segmentation fault?",
        # a comparison, not a failure
        "I tried three schedulers with torch on the GPU; none of them works better than the default.",
        # an optional package CMake looks for and goes on without (FindPackageHandleStandardArgs' status line)
        "-- Could NOT find CUDNN (missing: CUDNN_INCLUDE_DIR CUDNN_LIBRARY)",
        # top with memory to spare (the near miss of 1510's line)
        "MiB Mem : 128686.2 total,  90571.3 free,  30028.8 used,   8086.1 buff/cache",
        # a log line below error level, and a program's code that prints the word
        "2023-07-13 06:39:48 INFO:Loading airoboros-13B-gpt4-1.4-GPTQ...",
        'if (status != 0) fprintf(stderr, "error: %s\\n", msg);',
    ],
)
def test_quiet_twins_of_the_program_forms_are_not_read(line):
    assert read_failure_lines([line]) == []


@pytest.mark.parametrize(
    "path",
    [
        # "GPU is not used at all." beside the program's own device="gpu" (not "cuda"): its program fault stays the report
        "plans5/cases/437-whispergui13-device-passed-as-gpu-not-cuda-control",
    ],
)
def test_controls_whose_program_failed_for_its_own_reason_stay_quiet(path):
    doc = _case(path)
    assert [f["code"] for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")] == []
