"""After-round h293 (set 21, ask cases read as healthy or asked the wrong thing): RPM Fusion's boot message that the
NVIDIA kernel module is missing, asked about Secure Boot, akmods and the module; PyTorch's cudaGetDeviceCount "Error 2:
out of memory" at CUDA's start, never a clean bill; "I am running on Windows" and "is_available() is showing as False"
read as what they say. Each rule is shown by two real threads. Expectations by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.parsers.catalogue import match
from gpudoctor.pasted import cues, workloads
from tests.pasted.cli_json import asked, blind_case, check

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"
CASES = Path(__file__).resolve().parent / "cases"
BLOCKING = ("warning", "error", "critical")


def _codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in BLOCKING]


def _entries(text: str) -> set[str]:
    return {e.get("entry") for e in match(text)}


# --- "NVIDIA kernel module missing. Falling back to nouveau" (RPM Fusion's nvidia-fallback.service) ----------------


@pytest.mark.parametrize(
    "text",
    [
        (EXAMPLES / "envycontrol-121-fedora-nvidia-fallback-service.txt").read_text(encoding="utf-8"),
        blind_case("plans21/cases/2168").read_text(encoding="utf-8"),  # gridhead/nvidia-auto-installer...#64
    ],
)
def test_the_fallback_message_is_read(text: str):
    assert "nvidia-fallback-to-nouveau" in _entries(text)


def test_the_module_missing_at_boot_asks_secure_boot_akmods_and_the_module():
    doc = check(blind_case("plans21/cases/2168"))
    argv = asked(doc)
    assert "pasted-error-unexplained" in _codes(doc)
    assert ["mokutil", "--sb-state"] in argv
    assert ["modinfo", "-F", "version", "nvidia"] in argv
    assert any(a[:2] == ["rpm", "-qa"] for a in argv)
    assert any(a[:3] == ["sudo", "journalctl", "-b"] and "akmods" in a for a in argv)
    # a driver from RPM packages: no pip question
    assert not any("pip" in a for a in argv)


# --- cudaGetDeviceCount's "Error 2: out of memory" -------------------------------------------------------------------


def test_cuda_init_out_of_memory_is_read_in_both_threads():
    assert "torch-cuda-init-out-of-memory" in _entries(
        (EXAMPLES / "vllm-8432-collect-env-cudagetdevicecount-error-2.txt").read_text(encoding="utf-8")
    )
    assert "torch-cuda-init-out-of-memory" in _entries(blind_case("plans21/cases/2104").read_text(encoding="utf-8"))


def test_cuda_init_out_of_memory_is_no_clean_bill_and_asks_libcuda_and_memory():
    doc = check(blind_case("plans21/cases/2104"))
    argv = asked(doc)
    assert "pasted-error-unexplained" in _codes(doc)
    assert any(a[:2] == ["ldconfig", "-p"] for a in argv)
    assert ["free", "-h"] in argv


def test_other_cudagetdevicecount_codes_keep_their_own_entries():
    # 500 has its own entry; 803 and 804 are read by the extractors: the Error 2 entry takes none of them
    for case in ("plans5/cases/419", "plans4/cases/342", "plans7/cases/649"):
        assert "torch-cuda-init-out-of-memory" not in _entries(blind_case(case).read_text(encoding="utf-8"))


# --- the platform and the symptom in the reporter's own sentence ------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "I am running on Windows, with CUDA toolkit 13 installed, and the latest nvidia drivers.",  # pytorch#167042
        "I'm running on Windows 11 with a RTX 3070,",  # plans4/337 (Purfview/whisper-standalone-win#169)
    ],
)
def test_running_on_windows_is_read(sentence: str):
    assert cues._WINDOWS_PROSE.search(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "`torch.cuda.is_available()` is showing as False. Is it safe to assume",  # pytorch#167042
        "torch.cuda.is_available() returning False.",  # BayesWatch/nas-without-training#2
    ],
)
def test_is_available_false_in_the_ing_form_is_read(sentence: str):
    assert workloads._GPU_UNUSED_SAID.search(sentence)


def test_windows_said_in_prose_asks_with_windows_python():
    doc = check(blind_case("plans21/cases/2123"))
    argv = asked(doc) + [c["argv"] for s in doc["plan"]["steps"] for c in s.get("commands", []) if "argv" in c]
    assert doc["facts"]["platform"]["system"] == "Windows"
    assert "pasted-error-unexplained" in _codes(doc)
    assert not any(a and a[0] == "python3" for a in argv)
    assert any(a[:2] == ["python", "-c"] and "torch.version.cuda" in a[2] for a in argv)


# --- TensorRT's Python package failing to load on Windows (a zip install: its DLLs on PATH by hand) ----------------


@pytest.mark.parametrize(
    "case",
    [
        "plans21/cases/2110",  # NVIDIA/TensorRT#3367: "from .tensorrt import * ImportError: DLL load failed" (cut)
        "plans6/cases/517",  # NVIDIA/TensorRT#1620: "DLL load failed: The specified procedure could not be found."
    ],
)
def test_a_tensorrt_dll_load_failure_asks_the_wheel_and_the_dlls_on_path(case: str):
    doc = check(blind_case(case))
    argv = asked(doc)
    assert "extension-dll-load-failed" in {e.get("kind") for e in doc["facts"]["pasted"]["errors"]}
    assert any(a[1:4] == ["-m", "pip", "show"] and a[-1] == "tensorrt" for a in argv)
    where = next(a for a in argv if a[0] == "where.exe")
    assert "nvinfer*.dll" in where and "cudnn64_*.dll" in where


def test_tensorrt_named_by_a_framework_alone_asks_nothing_of_its_own(tmp_path):
    # TF-TRT's warning names TensorRT; no TensorRT package was imported: no TensorRT asks
    from tests.pasted.cli_json import paste

    doc = paste(
        tmp_path,
        "W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT\n"
        'Traceback (most recent call last):\n  File "C:\\\\app\\\\run.py", line 1, in <module>\n'
        "    import tensorflow\nImportError: DLL load failed while importing _pywrap_tensorflow_internal: "
        "The specified module could not be found.\n",
    )
    assert not any(a[0] == "where.exe" and "nvinfer*.dll" in a for a in asked(doc))


# --- a Nextflow pipeline: its configuration decides the container's --nv and the GPU node -----------------------------


@pytest.mark.parametrize(
    "case",
    [
        "plans21/cases/2141",  # nf-core/proteinfold#102: libcuda.so.1 missing in an Apptainer task
        "plans14/cases/1443",  # nanoporetech/dorado#319: dorado under Nextflow and Apptainer on Slurm
    ],
)
def test_a_nextflow_pipeline_asks_its_gpu_configuration(case: str):
    argv = asked(check(blind_case(case)))
    grep = next(a for a in argv if a[:2] == ["grep", "-rnE"] and "nextflow.config" in a)
    assert "containerOptions" in grep[2] and "runOptions" in grep[2]
