"""Issue 31, item 2: `check --from` never calls thin evidence healthy.

A paste that holds a recognised failure and nothing to judge its cause by names the failure
(pasted-error-unexplained, or the cause when the message itself says it), asks for what would
decide it, and does not exit 0; the text view is headed as pasted text, not a replayed snapshot.
"""

from __future__ import annotations

import json

import pytest

from tests.hostile.test_corpus import run_cli

# Each line as real reports print it: PyTorch's RuntimeError, a bare cudaCheckError (CSAILVision/unifiedparsing#6),
# llama.cpp's "CUDA error 209 at ..." (ggml-org/llama.cpp#4215).
NO_KERNEL = [
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "cudaCheckError() failed : no kernel image is available for execution on the device",
    "CUDA error 209 at /home/user/llama.cpp/ggml-cuda.cu:6701: no kernel image is available for execution on the device",
]


def _check(tmp_path, text: str, *extra: str) -> tuple[int, dict, str]:
    paste = tmp_path / "issue.txt"
    paste.write_text(text + "\n", encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json", *extra)
    return code, json.loads(out), err


@pytest.mark.parametrize("line", NO_KERNEL)
def test_a_lone_no_kernel_image_is_named_with_the_asks_and_fails(tmp_path, line):
    code, doc, err = _check(tmp_path, line)
    assert code == doc["exit_code"] == 1, err
    assert doc["status"] == "warning"
    (finding,) = doc["findings"]
    assert (finding["code"], finding["severity"]) == ("pasted-error-unexplained", "warning")
    assert [e["value"] for e in finding["evidence"]] == [line]
    asked = [a["argv"] for a in doc["pasted"]["ask_for"]]
    assert ["nvidia-smi"] in asked  # the GPU and the driver decide which build runs


def test_the_driver_message_alone_names_its_cause(tmp_path):
    line = "RuntimeError: The NVIDIA driver on your system is too old (found version 11040)."
    code, doc, _ = _check(tmp_path, line)
    assert code == 1 and doc["status"] == "error"
    assert [f["code"] for f in doc["findings"]] == ["framework-driver-too-old"]
    assert doc["facts"]["driver"]["nvml_cuda_version"] == "11.4"
    assert doc["pasted"]["ask_for"], "what was not shown is asked for"


def test_fail_on_error_still_does_not_call_it_healthy(tmp_path):
    code, doc, _ = _check(tmp_path, NO_KERNEL[0], "--fail-on", "error")
    assert code == 0 and doc["status"] == "warning" and doc["findings"]


def test_text_that_fails_nothing_stays_quiet(tmp_path):
    # TensorFlow's warning-level log of a CUDA runtime it could not load: it goes on on the CPU (google/lightweight_mmm#23).
    line = (
        "2022-06-22 15:44:53.578885: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
        "dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    )
    code, doc, _ = _check(tmp_path, line)
    assert "pasted-error-unexplained" not in [f["code"] for f in doc["findings"]]


def test_the_text_view_is_headed_as_pasted_text(tmp_path):
    paste = tmp_path / "issue.txt"
    paste.write_text(NO_KERNEL[0] + "\n", encoding="utf-8")
    code, out, _ = run_cli("check", "--from", str(paste))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "gpudoctor check (pasted text)"
    assert "No problems found." not in out
    assert any(line.startswith("Read from pasted text: 0 block(s), 1 error line(s)") for line in lines)


def test_a_false_answered_elsewhere_is_not_this_environments_failure(tmp_path):
    """collect_env answered 'Is CUDA available: True' for the environment it ran in: a False the reporter saw (told
    in prose, or as a REPL answer) came from another interpreter, so it is no unexplained failure of this one
    (pytorch/pytorch#51858, a fine case in tests/pasted/cases)."""
    collect_env = "PyTorch version: 2.0.1+cu117\nIs debug build: False\nCUDA used to build PyTorch: 11.7\nIs CUDA available: True"
    told = "my script says torch.cuda.is_available() returns False"
    code, doc, err = _check(tmp_path, collect_env + "\n\n" + told)
    assert "pasted-error-unexplained" not in [f["code"] for f in doc["findings"]], err
    code, doc, err = _check(tmp_path, told)  # the same words alone: a failure nothing shown explains
    assert [f["code"] for f in doc["findings"]] == ["pasted-error-unexplained"] and code == 1, err


def test_no_kernel_image_with_torch_at_work_but_neither_gpu_nor_build_shown_picks_no_build(tmp_path):
    """PyTorch's own suffix under the error puts torch at work, so the finding names the build's missing kernels; but
    with neither the GPU nor the build shown, which build has kernels for it is unknown: no install is printed (a pick
    would be a guess, issue 27 kind 5), and the GPU and the build are asked (tests/blind/plans3/cases/237-*: a vLLM image,
    where the asks run in that image). Its twin: the same lines beside a collect_env naming the build keep
    the install step."""
    text = NO_KERNEL[0] + (
        "\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be"
        " incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1"
    )
    code, doc, _ = _check(tmp_path, text)
    (finding,) = [f for f in doc["findings"] if f["code"] == "framework-arch-unsupported"]
    assert finding["remediation"] is None and not doc["plan"]["steps"]
    asked = [a["argv"] for a in doc["pasted"]["ask_for"]]
    assert ["nvidia-smi"] in asked and ["python3", "-m", "torch.utils.collect_env"] in asked  # the GPU; the build
    code, doc, _ = _check(tmp_path, text + "\nPyTorch version: 1.7.1+cu101\nCUDA used to build PyTorch: 10.1")
    (finding,) = [f for f in doc["findings"] if f["code"] == "framework-arch-unsupported"]
    assert finding["remediation"] is not None and doc["plan"]["steps"]
