"""After-round h276 (blind set 19, failing pastes read as "No problems found"): NeMo asked for on native Windows.

NeMo (nemo_toolkit) does not support native Windows; its maintainers send such installs to WSL 2 (NVIDIA-NeMo/Speech
#6960, #3449). Asked with pip (tests/pasted/cases/nemo-13419-*) or told in words with its extra (the blind case 1910),
it is framework-windows-native-gpu, whose plan installs WSL 2 and NeMo inside it; without Windows named, nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.test_corpus import run_cli

TESTS = Path(__file__).resolve().parent.parent


def _doc(path: Path) -> dict:
    code, out, err = run_cli("check", "--from", str(path), "--format", "json")
    doc = json.loads(out)
    assert code == doc["exit_code"], err
    return doc


@pytest.mark.parametrize(
    "path",
    [
        TESTS / "pasted/cases/nemo-13419-windows11-pip-nemo-toolkit-all-fasttext-build-use-wsl2/report.txt",
        next((TESTS / "blind/plans19/cases").glob("1910-*")) / "input.txt",
    ],
)
def test_nemo_on_native_windows_goes_to_wsl2(path):
    doc = _doc(path)
    (finding,) = [f for f in doc["findings"] if f["code"] == "framework-windows-native-gpu"]
    assert finding["severity"] == "error"
    assert [c["argv"] for c in finding["remediation"]["argv"]] == [["wsl", "--install", "-d", "Ubuntu"]]


def test_nemo_without_windows_named_is_no_windows_finding(tmp_path):
    paste = tmp_path / "paste.txt"
    paste.write_text("I am installing nemo_toolkit['all'] on Ubuntu 22.04 and it works.\n", encoding="utf-8")
    assert "framework-windows-native-gpu" not in [f["code"] for f in _doc(paste)["findings"]]


# llama.cpp's GPU offload option told as doing nothing (catalogue.toml's llama-cpp-gpu-layers-no-effect-said): in each
# thread a llama-cpp-python built without a GPU backend, rebuilt with CMAKE_ARGS for CUDA; "no effect on" a result is
# another question.
@pytest.mark.parametrize(
    "path",
    [
        TESTS / "pasted/catalogue_examples/llama-cpp-python-409-n-gpu-layers-does-nothing.txt",
        next((TESTS / "blind/plans18/cases").glob("1848-*")) / "input.txt",
    ],
)
def test_gpu_layers_told_as_doing_nothing_is_a_cpu_build(path):
    (finding,) = [f for f in _doc(path)["findings"] if f["code"] == "framework-cpu-build"]
    argv = [c["argv"] for c in finding["remediation"]["argv"] if "argv" in c]
    assert any(a[-1] == "llama-cpp-python" and "--no-cache-dir" in a for a in argv)


def test_gpu_layers_with_no_effect_on_a_result_is_no_cpu_build(tmp_path):
    paste = tmp_path / "paste.txt"
    paste.write_text("With llama-cpp-python on my RTX 4090, n_gpu_layers has no effect on the answers' quality.\n")
    assert "framework-cpu-build" not in [f["code"] for f in _doc(paste)["findings"]]


# onnxruntime's get_available_providers() answering the CPU package's own list (Azure and CPU) where the text wants the
# GPU: not a clean bill; the asks name the onnxruntime packages (microsoft/onnxruntime#23833 is plans8/805, whose
# packages listed decide it already). On a text that wants no GPU the same list is how the CPU package runs.
def test_the_cpu_packages_provider_list_is_not_a_clean_bill():
    doc = _doc(next((TESTS / "blind/plans11/cases").glob("1149-*")) / "input.txt")
    assert [f["code"] for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")] == [
        "pasted-error-unexplained"
    ]
    asks = [a["argv"] for a in doc["pasted"]["ask_for"]]
    assert any(a[-4:] == ["pip", "show", "onnxruntime", "onnxruntime-gpu"] for a in asks)


def test_the_cpu_packages_provider_list_without_a_gpu_wanted_is_quiet(tmp_path):
    paste = tmp_path / "paste.txt"
    paste.write_text("On my laptop onnxruntime prints:\n['AzureExecutionProvider', 'CPUExecutionProvider']\n")
    assert [f["code"] for f in _doc(paste)["findings"] if f["severity"] in ("warning", "error")] == []
