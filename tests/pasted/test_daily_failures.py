"""Issues 27/28: a failure message the stack prints every day never ends as "No problems found".

Each paste is one message as real reports print it (the catalogue's examples name the threads): it is named as a
finding, with the asks that decide what it leaves open, and `check --from` does not exit 0; where the message itself
decides the fix, the plan has the command. The same message printed where the text shows nothing wrong stays quiet.
"""

from __future__ import annotations

import json

import pytest

from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner.remedy import KEEP
from tests.hostile.test_corpus import run_cli


def _check(tmp_path, text: str) -> tuple[int, dict]:
    paste = tmp_path / "issue.txt"
    paste.write_text(text + "\n", encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    assert not err.strip() or "Traceback" not in err, err
    return code, json.loads(out)


def _asked(doc: dict) -> list[list[str]]:
    return [a["argv"] for a in doc["pasted"]["ask_for"]]


def _plan(doc: dict) -> list[dict]:
    return [c for step in doc["plan"]["steps"] for c in step["commands"]]


@pytest.mark.parametrize(
    ("line", "entry", "asks"),
    [
        ("RuntimeError: No CUDA GPUs are available", "torch-no-cuda-gpus", [["printenv", "CUDA_VISIBLE_DEVICES"]]),
        ("RuntimeError: NCCL Error 2: unhandled system error", "nccl-unhandled-system-error", [["df", "-h", "/dev/shm"]]),
        (
            "RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:839, unhandled system error, NCCL version 2.8.3",
            "nccl-unhandled-system-error",
            [["df", "-h", "/dev/shm"]],
        ),
        (
            "onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is set but CUDA wasn't able to be loaded. "
            "Please install the correct version of CUDA and cuDNN as mentioned in the GPU requirements page",
            "onnxruntime-cuda-path-not-loaded",
            # (onnxruntime's Windows build prints this line: a Windows cue, h245; there the interpreter is python)
            [["python", "-m", "pip", "show", "onnxruntime-gpu"]],
        ),
    ],
)
def test_a_lone_daily_failure_is_named_with_what_decides_it(tmp_path, line, entry, asks):
    code, doc = _check(tmp_path, line)
    assert code == doc["exit_code"] == 1
    assert [(f["code"], f["severity"]) for f in doc["findings"]] == [("pasted-error-unexplained", "warning")]
    assert [e["value"] for e in doc["findings"][0]["evidence"]] == [line]
    errors = read_pasted([Source("t", line)])["pasted"]["errors"]
    assert entry in {e.get("values", {}).get("entry") for e in errors}
    for argv in asks:
        assert argv in _asked(doc)


def test_nccl_asks_for_its_warn_line_from_the_all_reduce_pytorch_runs(tmp_path):
    _, doc = _check(tmp_path, "RuntimeError: NCCL Error 2: unhandled system error")
    (rerun,) = [a for a in _asked(doc) if a[:2] == ["env", "NCCL_DEBUG=INFO"]]
    assert rerun[2:4] == ["python3", "-c"] and "nccl.all_reduce" in rerun[4]


def test_no_cuda_gpus_where_the_same_script_printed_cuda_available_is_quiet(tmp_path):
    # The terminal reached the GPU (the script's own label, True on the next line); the program hid it: no environment fault.
    text = "CUDA AVAILABLE: \nTrue\n\nTraceback (most recent call last):\n    torch._C._cuda_init()\nRuntimeError: No CUDA GPUs are available"
    code, doc = _check(tmp_path, text)
    assert code == 0 and doc["findings"] == []


def test_insightface_on_the_cpu_provider_is_a_failure_only_where_the_gpu_is_wanted(tmp_path):
    applied = "Applied providers: ['CPUExecutionProvider'], with options: {'CPUExecutionProvider': {}}"
    code, doc = _check(tmp_path, "I only installed onnxruntime-gpu, but:\n" + applied)
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["pasted-error-unexplained"]
    assert ["python3", "-m", "pip", "show", "onnxruntime", "onnxruntime-gpu"] in _asked(doc)
    code, doc = _check(tmp_path, "face analysis on my laptop:\n" + applied)
    assert code == 0 and doc["findings"] == []


@pytest.mark.parametrize(
    ("build", "option"),
    [("", "GGML_CUDA"), ("main: build = 899 (41c6741)\n", "LLAMA_CUBLAS"), ("main: build = 3000 (1a2b3c4d)\n", "LLAMA_CUDA")],
)
def test_a_llama_cpp_binary_without_gpu_offload_is_rebuilt_with_cuda(tmp_path, build, option):
    text = (
        "$ ./main -m model.bin --n-gpu-layers 32\n"
        "warning: not compiled with GPU offload support, --n-gpu-layers option will be ignored\n"
        "warning: see main README.md for information on enabling GPU BLAS support\n" + build
    )
    code, doc = _check(tmp_path, text)
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["framework-cpu-build"]
    assert [c["argv"] for c in _plan(doc)] == [
        ["cmake", "-B", "build", f"-D{option}=ON"],
        ["cmake", "--build", "build", "--config", "Release"],
    ]


def test_blas_0_in_a_wrapped_sentence_about_llama_cpp_python_is_a_cpu_build(tmp_path):
    text = (
        "I ran \"MAKE_ARGS='-DGGML_CUBLAS=on' pip install --force-reinstall --no-cache-dir llama-cpp-python==0.2.89\"\n"
        "to which the server starts but still show BLAS=0 and nvidia-smi shows no GPU usage."
    )
    code, doc = _check(tmp_path, text)
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["framework-cpu-build"]
    commands = _plan(doc)
    assert {"set": "CMAKE_ARGS", "value": "-DGGML_CUDA=on"}.items() <= commands[0].items()
    assert commands[1]["argv"][-4:] == ["--force-reinstall", "--upgrade", "--no-cache-dir", "llama-cpp-python"]


def test_a_gpu_below_every_pytorch_build_is_told_the_cpu_or_another_gpu_with_nothing_to_install(tmp_path):
    # PyTorch's own words for a Fermi GPU (pytorch/pytorch's torch/cuda/__init__.py, "_check_capability").
    line = (
        "Found GPU0 GeForce GTX 670M which is of cuda capability 2.1.\n"
        "    PyTorch no longer supports this GPU because it is too old."
    )
    code, doc = _check(tmp_path, line)
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["framework-arch-unsupported"]
    (step,) = doc["plan"]["steps"]
    assert step["component"] == "gpu" and step["commands"] == []
    assert doc["pasted"]["ask_for"] == []  # nothing the machine prints changes that


@pytest.mark.parametrize(("said", "decided"), [("10.2", True), ("11.8", False)])
def test_a_missing_runtime_of_the_toolkit_said_installed_puts_its_lib64_on_the_loader_path(tmp_path, said, decided):
    text = (
        f"- OS/Platform : ubuntu 16.04\n- CUDA version : {said}\n>>> import cupy\n"
        "ImportError: libcudart.so.10.2: cannot open shared object file: No such file or directory"
    )
    code, doc = _check(tmp_path, text)
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["framework-cuda-libs-missing"]
    commands = _plan(doc)
    lib64 = {"prepend": "LD_LIBRARY_PATH", "parts": ["/usr/local/cuda-10.2/lib64"]}
    if decided:
        assert commands[:2] == [{"argv": ["ls", "/usr/local/cuda-10.2/lib64/libcudart.so.10.2"], "root": False}, lib64]
        line = 'export LD_LIBRARY_PATH=/usr/local/cuda-10.2/lib64"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"'
        assert commands[2:] == [  # kept for new shells: no Python of its own shown, so ~/.bashrc
            {
                "argv": ["python3", "-c", KEEP["bashrc"], line],
                "note": "keeps it in the .bashrc of your home folder, which each new bash reads",
                "root": False,
            }
        ]
    else:  # another toolkit said: which directory holds 10.2's runtime is not shown, so it is asked
        assert lib64 not in commands and ["printenv", "LD_LIBRARY_PATH"] in [c.get("argv") for c in commands]


def test_an_extension_build_in_conda_gets_pytorchs_own_cuda_toolkit_in_the_environment(tmp_path):
    text = (
        "Exception: >- DeepSpeed Op Builder: Installed CUDA version 12.1 does not match the version torch was compiled "
        "with 11.8, unable to compile cuda/cpp extensions without a matching cuda version.\n"
        "conda install pytorch torchvision torchaudio pytorch-cuda=11.8 -c pytorch -c nvidia"
    )
    code, doc = _check(tmp_path, text)
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["toolkit-torch-major-mismatch"]
    assert [c["argv"] for c in _plan(doc)] == [["conda", "install", "-c", "nvidia/label/cuda-11.8.0", "cuda-toolkit"]]
    # without conda at work the toolkit's source is not decided: the step asks
    code, doc = _check(tmp_path, text.splitlines()[0])
    assert ["conda", "install", "-c", "nvidia/label/cuda-11.8.0", "cuda-toolkit"] not in [c.get("argv") for c in _plan(doc)]


def test_a_paste_cut_inside_a_traceback_is_not_health(tmp_path):
    frames = (
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/home/u/.conda/envs/dl/lib/python3.6/site-packages/tensorflow/python/client/session.py", line 1511, in __init__\n'
        "    super"
    )
    code, doc = _check(tmp_path, frames)
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["pasted-error-unexplained"]
    assert [e["value"] for e in doc["findings"][0]["evidence"]] == ["super"]
    # the same frames with their error line: that line is what is judged, not the cut
    code, doc = _check(tmp_path, frames + "\nKeyboardInterrupt")
    assert code == 0 and doc["findings"] == []


def test_onnxruntime_form_naming_a_cuda_11_build_whose_provider_wants_cudnn_8_moves_to_the_cuda_12_build(tmp_path):
    failed = (
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
        "libcudnn.so.8: cannot open shared object file: No such file or directory"
    )
    code, doc = _check(tmp_path, failed + "\n\n### ONNX Runtime Version or Commit ID\n\n1.17.0\n")
    assert code == 1 and [f["code"] for f in doc["findings"]] == ["framework-cuda-libs-missing"]
    (install,) = _plan(doc)
    assert install["argv"][:4] == ["python3", "-m", "pip", "install"]
    assert install["argv"][4].startswith("onnxruntime-gpu==") and install["argv"][5] == "nvidia-cudnn-cu12==9.*"
    # a release of the CUDA 12 builds asking for cuDNN 8 is not that build's mistake: no move of onnxruntime
    code, doc = _check(tmp_path, failed + "\n\n### ONNX Runtime Version or Commit ID\n\n1.20.1\n")
    assert not any(str(c.get("argv", [""])[4:5]).startswith("['onnxruntime-gpu") for c in _plan(doc))
