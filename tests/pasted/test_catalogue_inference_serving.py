"""Inference runtimes and serving (h210, issues 27/28): TensorRT's CUDA check by its error number, the NGC images'
driver floor, and the serving engines' own words for a GPU whose memory or compute capability falls short (vLLM, TGI,
ggml under llama.cpp and Ollama). Whole pastes from the threads (tests/pasted/catalogue_examples), data asserted; each
rule beside its quiet twin."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _run(name: str):
    text = EXAMPLES.joinpath(name).read_text(encoding="utf-8")
    snapshot = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    report = diagnose(ReplayHost(snapshot))
    kinds = [e["kind"] for e in snapshot.get("pasted", {}).get("errors", [])]
    return {f.code: f for f in report.findings}, kinds, report


def _entries(report) -> set[str]:
    return {e.get("entry") for e in report.facts.pasted.errors if e.get("entry")}


@pytest.mark.parametrize(
    "name",
    [
        "tensorrt-2879-cuda-initialization-failure-35.txt",  # TensorRT 8.6: "with error: 35."
        "tensorrt-inference-173-cuda-initialization-failure-35.txt",
        "onnx-tensorrt-91-cuda-initialization-failure-35-2018.txt",  # TensorRT 5: "Cuda ... with error 35."
    ],
)
def test_tensorrts_cuda_check_with_error_35_is_the_driver_older_than_its_cuda(name):
    found, kinds, _ = _run(name)
    assert "cuda-driver-insufficient" in kinds
    f = found["toolkit-newer-than-driver"]
    assert f.remediation.component == "driver"
    assert "pasted-error-unexplained" not in found


def test_tensorrts_cuda_check_with_another_number_is_not_read_as_the_driver():
    # wang-xinyu/tensorrtx#804: "error 2" (cudaErrorMemoryAllocation since CUDA 10.1, another error before): unread
    found, kinds, _ = _run("tensorrtx-804-cuda-initialization-failure-2.txt")
    assert "cuda-driver-insufficient" not in kinds
    assert "toolkit-newer-than-driver" not in found


def test_tensorrts_error_100_and_222_ask_what_decides_them():
    # 100 (no device) and 222 (PTX newer than the driver) with nothing else shown: named, and the asks print
    for name, entry in (
        ("tensorrt-149-cuda-initialization-failure-100.txt", "tensorrt-cuda-init-no-device"),
        ("tensorrt-1052-cuda-initialization-failure-222.txt", "tensorrt-cuda-init-unsupported-ptx"),
    ):
        found, _, report = _run(name)
        assert entry in _entries(report)
        assert "toolkit-newer-than-driver" not in found


@pytest.mark.parametrize(
    ("name", "needs", "found_driver"),
    [
        ("triton-server-1838-ngc-container-driver-440-needs-450.txt", "450.36", "440.100"),
        ("triton-server-2225-ngc-container-driver-440-titan-xp.txt", "450.51", "440.64.00"),
    ],
)
def test_an_ngc_images_driver_floor_is_the_hosts_driver_to_upgrade(name, needs, found_driver):
    found, kinds, report = _run(name)
    assert "container-driver-floor" in kinds
    said = next(e for e in report.facts.pasted.errors if e.kind == "container-driver-floor")
    assert (said.get("needs"), said.get("found")) == (needs, found_driver)
    f = found["toolkit-newer-than-driver"]
    assert (f.remediation.component, f.remediation.where, f.remediation.requires_root) == ("driver", "the host", True)
    assert "pasted-error-unexplained" not in found


def test_an_ngc_image_run_in_minor_version_compatibility_is_not_the_driver_floor():
    # triton-inference-server/server#5197: "CUDA Minor Version Compatibility mode ENABLED": the container runs
    _, kinds, _ = _run("triton-server-5197-ngc-minor-version-compatibility-enabled.txt")
    assert "container-driver-floor" not in kinds


@pytest.mark.parametrize(
    ("name", "entry", "asks"),
    [
        (
            "vllm-23192-free-memory-below-utilization.txt",
            "vllm-free-memory-below-utilization",
            ("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv"),
        ),
        (
            "vllm-10439-no-available-memory-cache-blocks.txt",
            "vllm-no-cache-blocks",
            ("nvidia-smi", "--query-gpu=index,name,memory.total,memory.used", "--format=csv"),
        ),
        (
            "tgi-755-warmup-not-enough-memory-prefill-tokens.txt",
            "tgi-not-enough-memory-prefill",
            ("nvidia-smi", "--query-gpu=index,name,memory.total,memory.used", "--format=csv"),
        ),
        (
            "tgi-710-not-enough-memory-total-tokens.txt",
            "tgi-not-enough-memory-prefill",
            ("nvidia-smi", "--query-gpu=index,name,memory.total,memory.used", "--format=csv"),
        ),
        (
            "llama-cpp-20431-cudamalloc-failed-out-of-memory.txt",
            "ggml-cuda-malloc-out-of-memory",
            ("nvidia-smi", "--query-gpu=index,name,memory.total,memory.used", "--format=csv"),
        ),
        (
            "vllm-2418-max-seq-len-larger-than-kv-cache.txt",
            "vllm-max-model-len-beyond-kv-cache",
            ("nvidia-smi",),
        ),
        (
            "faster-whisper-442-ctranslate2-cuda-failed-out-of-memory.txt",
            "ctranslate2-cuda-out-of-memory",
            ("nvidia-smi", "--query-gpu=index,name,memory.total,memory.used", "--format=csv"),
        ),
        (
            "ollama-8597-unable-to-allocate-cuda0-buffer.txt",
            "ggml-cuda-malloc-out-of-memory",
            ("nvidia-smi", "--query-gpu=index,name,memory.total,memory.used", "--format=csv"),
        ),
    ],
)
def test_a_serving_engines_gpu_memory_falling_short_is_the_runs_size_never_an_install(name, entry, asks):
    found, kinds, report = _run(name)
    assert "gpu-memory-exhausted" in kinds and entry in _entries(report)
    assert found["program-fault"].severity is Severity.INFO
    # nothing to install or upgrade: no environment finding beside it
    assert not {c for c, f in found.items() if f.severity is Severity.ERROR}
    argvs = [tuple(map(str, a.command.argv)) for a in ask_for(report.facts, report.findings)]
    assert asks in argvs


@pytest.mark.parametrize(
    "name",
    [
        "miaai-47-vllm-startup-memory-check-passed.txt",  # vLLM's own start-up lines where the check passed
        "tgi-832-max-batch-total-tokens-set.txt",  # TGI's warm-up result, a fine start
        "llama-cpp-9629-pinned-host-memory-invalid-argument.txt",  # pinned host memory: not the GPU's
    ],
)
def test_a_serving_engines_memory_lines_of_a_fine_start_or_of_host_memory_are_not_read_as_the_gpu_full(name):
    _, kinds, _ = _run(name)
    assert "gpu-memory-exhausted" not in kinds


@pytest.mark.parametrize(
    ("name", "entry", "needs", "capability"),
    [
        ("vllm-4327-fp8-min-capability-90-current-86.txt", "vllm-quantization-gpu-too-old", "90", "86"),
        ("vllm-14040-quantization-scheme-min-capability-80-current-75.txt", "vllm-compressed-tensors-gpu-too-old", "80", "75"),
    ],
)
def test_vllms_quantization_floor_is_the_checkpoints_choice_not_the_environment(name, entry, needs, capability):
    found, _, report = _run(name)
    said = next(e for e in report.facts.pasted.errors if e.get("entry") == entry)
    assert (said.kind, said.get("needs"), said.get("capability")) == ("program-fault", needs, capability)
    assert "pasted-error-unexplained" not in found
    assert not {c for c, f in found.items() if f.severity is Severity.ERROR}


def test_mpi4pys_missing_libmpi_asks_where_mpi_is_and_which_mpi4py_loads():
    # NVIDIA/TensorRT-LLM#167: `import tensorrt_llm` through mpi4py, libmpi.so.12 not found: the MPI installed (or not)
    # and the mpi4py imported decide it; nothing is prescribed before they are known
    found, kinds, report = _run("tensorrt-llm-167-libmpi-so-12-not-found.txt")
    assert "mpi-library-missing" in kinds
    argvs = [tuple(map(str, a.command.argv)) + tuple(map(str, a.command.pipe)) for a in ask_for(report.facts, report.findings)]
    assert ("ldconfig", "-p", "grep", "libmpi") in argvs
    assert any(a[-4:] == ("-m", "pip", "show", "mpi4py") for a in argvs)
    assert not {c for c, f in found.items() if f.severity is Severity.ERROR}
