"""Pastes that state the deciding facts in a list or a sentence (issues 27 and 28): each short paste here is written
for the test, in the shape reporters use (a bullet list of versions, a conda list with the driver in prose, an issue
form that says there is no GPU), and the test asserts the finding's code, the fact read with its cited line, and the
plan's argv."""

from __future__ import annotations

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.pasted.provenance import unsourced


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    assert not unsourced(snapshot["pasted"]["read_from"]), unsourced(snapshot["pasted"]["read_from"])
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [" ".join(a.command.argv) for a in ask_for(report.facts, report.findings)]
    return snapshot, {f.code: f for f in report.findings}, asks


def _cited(snapshot, fact: str) -> list[int]:
    entry = next(e for e in snapshot["pasted"]["read_from"] if e["fact"] == fact)
    return [line["line"] for line in entry["lines"]]


# --- a torch version with PyTorch's local tag, in a list of the environment --------------------------------------


@pytest.mark.parametrize("said", ["- 2.8.0+cu128", "- torch 2.8.0+cu128", "PyTorch version: 2.8.0+cu128"])
def test_a_tagged_torch_version_in_a_list_is_read_and_judged_against_the_named_gpu(said):
    text = f"RuntimeError: CUDA error: no kernel image is available for execution on the device\n\n- GeForce GTX 1070\n- Windows 11\n{said}\n"
    snapshot, codes, _ = _run(text)
    assert snapshot["python"]["distributions"]["torch"] == "2.8.0+cu128"
    assert _cited(snapshot, "python.distributions.torch") == [5]
    f = codes["framework-arch-unsupported"]
    argv = f.remediation.commands[0].argv
    # the same release, the CUDA 12.6 variant (its arch list keeps sm_60, which runs on sm_61)
    assert "torch==2.8.0+cu126" in argv and argv[-1].endswith("/cu126")


def test_a_tagged_version_that_is_no_torch_release_is_not_read_as_torch():
    snapshot, codes, _ = _run("- GeForce GTX 1070\n- 0.23.0+cu128\n")
    assert "torch" not in (snapshot.get("python") or {}).get("distributions", {})
    assert "framework-arch-unsupported" not in codes


def test_a_tagged_version_inside_a_sentence_is_not_read_as_the_installed_torch():
    # xformers' "built for" names the torch it wants; "you have" is the installed one
    snapshot, _, _ = _run("xFormers was built for:\n    PyTorch 2.0.0+cu118 with CUDA 1108 (you have 2.0.0+cpu)\n")
    assert (snapshot.get("python") or {}).get("distributions", {}).get("torch") != "2.0.0+cu118"


def test_a_tagged_version_pip_took_away_is_not_the_installed_one():
    snapshot, _, _ = _run("Successfully uninstalled torch-2.8.0+cu128\n- GeForce GTX 1070\n")
    assert "torch" not in (snapshot.get("python") or {}).get("distributions", {})


# --- the driver named in prose beside a conda environment's CUDA runtime -----------------------------------------


CONDA_RUNTIME = """conda list
cudatoolkit               10.1.243             h74a9793_0
cudnn                     7.6.5                cuda10.1_0
My NVIDIA graphics driver 397.64 is installed.
  File "C:\\Users\\me\\miniconda3\\envs\\tf\\lib\\site-packages\\tensorflow\\python\\client\\session.py", line 1, in run
"""


def test_a_conda_cudatoolkit_newer_than_the_driver_named_in_prose():
    snapshot, codes, _ = _run(CONDA_RUNTIME)
    assert snapshot["nvml"]["driver_version"] == "397.64"
    assert _cited(snapshot, "nvml.driver_version") == [4]
    assert snapshot["python"]["distributions"]["cudatoolkit"] == "10.1.243"
    f = codes["framework-driver-too-old"]
    # CUDA 10.1.105 needs Windows driver >= 418.96 (compat_matrix/cuda_driver.toml, NVIDIA's release notes)
    assert "418.96" in f.title and f.remediation.component == "driver"


def test_a_conda_cudatoolkit_the_driver_supports_is_no_finding():
    snapshot, codes, _ = _run(CONDA_RUNTIME.replace("397.64", "431.02"))
    assert snapshot["nvml"]["driver_version"] == "431.02"
    assert "framework-driver-too-old" not in codes and "toolkit-newer-than-driver" not in codes


# --- the reporter says there is no GPU ----------------------------------------------------------------------------


NO_GPU = """**System information**
- OS Platform and Distribution: Windows 10
- TensorFlow version: 2.3.0
- GPU model and memory: None

2021-01-05 10:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:59] Could not load dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found
"""


def test_a_gpu_build_on_a_machine_the_reporter_says_has_no_gpu_is_quiet():
    _, codes, asks = _run(NO_GPU)
    assert not codes, list(codes)
    assert "nvidia-smi" not in asks


@pytest.mark.parametrize("said", ["I don't have GPU access on this box yet", "I do not have GPU problems on Linux"])
def test_a_sentence_about_something_else_of_the_gpu_is_no_statement_of_none(said):
    _, codes, _ = _run(NO_GPU.replace("- GPU model and memory: None\n", "") + said + "\n")
    assert "windows-dll-missing" in codes


def test_without_the_statement_the_same_log_is_still_judged():
    _, codes, _ = _run(NO_GPU.replace("- GPU model and memory: None\n", ""))
    assert "windows-dll-missing" in codes


def test_a_gpu_shown_beside_the_statement_wins():
    _, codes, _ = _run(NO_GPU + "My GeForce RTX 3060 is not found, as if I don't have a GPU.\n")
    assert "windows-dll-missing" in codes


# --- the driver's JIT refusing PTX of a newer ISA ----------------------------------------------------------------


PTX = """Traceback (most recent call last):
  File "/home/u/venv/lib/python3.12/site-packages/numba_cuda/numba/cuda/cudadrv/driver.py", line 2800, in add_ptx
numba.cuda.cudadrv.driver.LinkerError: [222] Call to cuLinkAddData results in CUDA_ERROR_UNSUPPORTED_PTX_VERSION
ptxas application ptx input, line 9; fatal   : Unsupported .version 8.5; current version is '8.3'
"""


def test_ptx_of_a_newer_isa_than_the_driver_loads_is_a_toolkit_newer_than_the_driver():
    snapshot, codes, asks = _run(PTX)
    # (the line itself and where it is, `at`, are the reader's provenance, tested in test_provenance)
    assert {k: v for k, v in snapshot["pasted"]["errors"][0].items() if k not in ("line", "at")} == {
        "kind": "ptx-newer-than-driver",
        "values": {"entry": "ptxas-jit-unsupported-ptx-version", "ptx": "8.5", "loads": "8.3"},
    }
    f = codes["toolkit-newer-than-driver"]
    # ISA 8.5 is CUDA 12.5, whose toolkit driver is 555.42.02 on Linux; ISA 8.3 is CUDA 12.3 (compat_matrix ptx rows)
    assert "CUDA 12.5" in f.title and "CUDA 12.3" in f.title
    assert f.remediation.component == "driver" and "555.42.02" in f.remediation.summary
    assert f.remediation.alternative is not None and f.remediation.alternative.component == "toolkit"
    assert "nvidia-smi" in asks
    assert "pasted-error-unexplained" not in codes


def test_a_standalone_ptxas_refusing_its_file_is_not_read_as_the_driver():
    # an old toolkit's ptxas on PATH names the file it reads: another cause (that toolkit is older than the compiler)
    _, codes, _ = _run("ptxas /tmp/k.ptx, line 9; fatal   : Unsupported .version 8.5; current version is '7.5'\n")
    assert "toolkit-newer-than-driver" not in codes


def test_the_ptx_table_follows_nvidias_release_history():
    from gpudoctor.matrix import load_matrix

    m = load_matrix()
    assert [(r.ptx, r.cuda) for r in m.ptx_isas if r.ptx in ("7.8", "8.0", "8.5", "8.6", "8.7")] == [
        ("7.8", "11.8"),
        ("8.0", "12.0"),
        ("8.5", "12.5"),
        ("8.6", "12.7"),
        ("8.7", "12.8"),
    ]
    assert all(r.source == ("ptx-isa-release-history",) for r in m.ptx_isas)


# --- llama.cpp built without a GPU backend ------------------------------------------------------------------------


def test_blas_0_named_with_llama_cpp_python_and_the_gpu_is_a_cpu_build_with_a_rebuild_plan():
    text = "After pip install -U llama-cpp-python the GPU is idle again, llama-cpp-python prints BLAS = 0 at load.\n"
    _, codes, asks = _run(text)
    f = codes["framework-cpu-build"]
    steps = [c.to_json() for c in f.remediation.commands]
    assert steps[0] == {"set": "CMAKE_ARGS", "value": "-DGGML_CUDA=on", "note": steps[0]["note"]}
    assert steps[1]["argv"][1:] == [
        "-m",
        "pip",
        "install",
        "--force-reinstall",
        "--upgrade",
        "--no-cache-dir",
        "llama-cpp-python",
    ]
    assert "nvcc --version" in asks


def test_blas_0_on_a_cpu_only_run_is_no_finding():
    line = "AVX = 1 | AVX2 = 1 | FMA = 1 | F16C = 1 | BLAS = 0 | SSE3 = 1 | VSX = 0 |\nllama_print_timings: eval time = 10 ms\n"
    snapshot, codes, _ = _run(line)
    assert not codes, list(codes)  # no cause and no unexplained failure: a CPU build asked for nothing else
    assert not snapshot["pasted"]["errors"]


# --- the CUDA toolkit the reporter installed, beside a TensorFlow of another CUDA major -----------------------------


STATED_TOOLKIT = """- OS Platform and Distribution: Ubuntu 22.04
- TensorFlow version: 2.15.0

tf.config.list_physical_devices('GPU') returns []. I installed CUDA 11.8 and cuDNN 8.6 from NVIDIA's site.
"""


def test_a_toolkit_of_another_major_than_tensorflows_build_is_its_libraries_missing():
    _, codes, _ = _run(STATED_TOOLKIT)
    f = codes["framework-cuda-libs-missing"]
    # TensorFlow 2.15's tested build is CUDA 12.2 / cuDNN 8.9 (compat_matrix/tensorflow.toml); from 2.14 [and-cuda]
    assert "CUDA 12.2" in f.title and "CUDA 11.8" in f.title
    # (2.15.0's [and-cuda] extra does not resolve, its re-release 2.15.0.post1's does: tests/install_pins/pins-checked.txt)
    assert f.remediation.commands[0].argv[1:] == ("-m", "pip", "install", "tensorflow[and-cuda]==2.15.0.post1")


@pytest.mark.parametrize("stated", ["12.2", "12.0", "12.4", "12.2.1"])
def test_a_toolkit_of_tensorflows_own_major_is_no_finding(stated):
    # check_stated_toolkit_for_tensorflow: TensorFlow loads "the sonames of its own major": any 12.x serves a build
    # of CUDA 12.2, whatever its minor or patch; 11.8 and 13.0 do not.
    _, codes, _ = _run(STATED_TOOLKIT.replace("CUDA 11.8", f"CUDA {stated}"))
    assert "framework-cuda-libs-missing" not in codes


def test_a_toolkit_of_the_next_major_is_its_libraries_missing_too():
    _, codes, _ = _run(STATED_TOOLKIT.replace("CUDA 11.8", "CUDA 13.0"))
    f = codes["framework-cuda-libs-missing"]
    assert "CUDA 12.2" in f.title and "CUDA 13.0" in f.title


def test_a_framework_build_named_with_cuda_is_not_a_toolkit():
    _, codes, _ = _run(STATED_TOOLKIT.replace("I installed CUDA 11.8 and cuDNN 8.6", "I installed torch with CUDA 11.8"))
    assert "framework-cuda-libs-missing" not in codes
