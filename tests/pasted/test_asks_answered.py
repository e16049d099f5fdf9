"""Asks never repeat what the paste answers, and follow the library that failed (issues 27/28, the reviewers' kind 9).

pasted.ask: collect_env is not asked where every failing line is another library's (TensorRT, ONNX Runtime, CuPy)
and none names torch; a form's field answered N/A names no framework (pasted.cues.without_unanswered); nvidia-smi is
not asked where the driver's branch and the GPU are both stated. Minimal pastes written for each rule, with quiet
twins where the ask is still the right one."""

from __future__ import annotations

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from tests.pasted.cli_json import blind_case


def _asks(text: str) -> list[tuple[str, ...]]:
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    return [a.command.argv for a in ask_for(report.facts, report.findings)]


def _collect_env(asks) -> bool:
    return any("torch.utils.collect_env" in argv for argv in asks)


_TRT = (
    "IBuilder::buildSerializedNetwork: Error Code 6: API Usage Error (Unable to load library: "
    "libnvinfer_builder_resource.so.10.1.0: cannot open shared object file: No such file or directory)\n"
)
_ORT = (
    "[E:onnxruntime:Default, provider_bridge_ort.cc:1548 TryGetProviderInfo_CUDA] Failed to load library "
    "libonnxruntime_providers_cuda.so with error: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
)
_CUPY = "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is insufficient\n"


@pytest.mark.parametrize("failure", [_TRT, _ORT, _CUPY])
def test_torch_installed_beside_another_librarys_failure_is_not_asked_about(failure):
    asks = _asks("- PyTorch Version (if applicable): 2.3.1\n- OS: Ubuntu 22.04\n" + failure)
    assert not _collect_env(asks)


@pytest.mark.parametrize(
    "failure",
    [
        # the failing line names torch: PyTorch is at work
        '  File "/usr/lib/python3/site-packages/torch/cuda/__init__.py", line 293\nRuntimeError: torch CUDA error\n',
        # a library PyTorch loads, with no other library named: collect_env still decides
        "OSError: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory\n",
    ],
)
def test_torch_at_work_or_unnamed_failures_keep_the_collect_env_ask(failure):
    asks = _asks("- PyTorch Version (if applicable): 2.3.1\n- OS: Ubuntu 22.04\n" + failure)
    assert _collect_env(asks)


def test_a_framework_field_answered_na_names_no_framework():
    text = "PyTorch Version (if applicable): N/A\nOperating System: Ubuntu 22.04\n" + _ORT
    snap = read_pasted([Source("report.txt", text)])
    assert not any(c["cue"] == "a component named" and c["means"] == "torch" for c in snap["pasted"]["cues"])
    assert "torch" not in snap["pasted"].get("frameworks", [])
    assert not _collect_env(_asks(text))


def test_a_framework_field_answered_with_a_version_names_it():
    snap = read_pasted([Source("report.txt", "PyTorch Version (if applicable): 2.1.0\n" + _TRT)])
    assert any(c["cue"] == "a component named" and c["means"] == "torch" for c in snap["pasted"]["cues"])


def test_a_driver_branch_and_a_gpu_stated_are_not_asked_again():
    asks = _asks("**NVIDIA GPU**: RTX 4090\n**NVIDIA Driver Version**: 550\nOperating System: Ubuntu 22.04\n" + _TRT)
    assert not [a for a in asks if a[:1] == ("nvidia-smi",)]


def test_a_driver_branch_without_a_gpu_still_asks_nvidia_smi():
    asks = _asks("**NVIDIA Driver Version**: 550\nOperating System: Ubuntu 22.04\n" + _TRT)
    assert ("nvidia-smi",) in asks


def test_a_driver_branch_said_is_no_failure():
    text = "**NVIDIA GPU**: RTX 4090\n**NVIDIA Driver Version**: 550\nOperating System: Ubuntu 22.04\nIt works.\n"
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    assert "pasted-error-unexplained" not in {f.code for f in report.findings}


# transformers' `transformers-cli env` block as issue reporters paste it, with TensorFlow and Flax not importable: each
# printed "not installed" with its availability's placeholder, "(NA)" (huggingface/transformers,
# src/transformers/commands/env.py @026b0db8). From https://github.com/huggingface/transformers/issues/32019 (the
# reporter's System Info, as posted).
_HF_ENV_TF_ABSENT = """### System Info

- `transformers` version: 4.42.4
- Platform: Linux-5.15.0-94-generic-x86_64-with-glibc2.35
- Python version: 3.10.12
- Huggingface_hub version: 0.23.5
- Safetensors version: 0.4.3
- Accelerate version: 0.32.1
- Accelerate config:    not found
- PyTorch version (GPU?): 2.3.1+cu121 (True)
- Tensorflow version (GPU?): not installed (NA)
- Flax version (CPU?/GPU?/TPU?): not installed (NA)
- Jax version: not installed
- JaxLib version: not installed
- Using distributed or parallel set-up in script?: No
- Using GPU in script?: Yes
- GPU type: NVIDIA A100-SXM4-80GB
"""

# The same template where TensorFlow is installed (https://github.com/huggingface/transformers/issues/7893, as posted):
# the quiet twin, a framework the reporter has.
_HF_ENV_TF_SAID = """## Environment info

- `transformers` version:
- Platform:
- Python version: 3.7.4
- PyTorch version (GPU?): yes
- Tensorflow version (GPU?): 2.2.0
- Using GPU in script?: yes
- Using distributed or parallel set-up in script?: 
"""


def _tf_probe(asks) -> bool:
    return any(any("tensorflow" in part for part in argv) for argv in asks)


@pytest.mark.parametrize(
    "text", [_HF_ENV_TF_ABSENT, blind_case("plans14/cases/1409").read_text(encoding="utf-8")], ids=["hf32019", "plans14-1409"]
)
def test_transformers_env_not_installed_na_names_no_framework(text):
    snap = read_pasted([Source("report.txt", text)])
    frameworks = snap["pasted"].get("frameworks", [])
    assert "tensorflow" not in frameworks and "jax" not in frameworks
    assert not _tf_probe(_asks(text))


def test_transformers_env_with_tensorflow_installed_names_it():
    snap = read_pasted([Source("report.txt", _HF_ENV_TF_SAID)])
    assert "tensorflow" in snap["pasted"].get("frameworks", [])
    assert _tf_probe(_asks(_HF_ENV_TF_SAID))
