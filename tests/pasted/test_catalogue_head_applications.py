"""The head of the applications' side, closed by general means (tests/pasted/head/applications.toml): Ollama's GPU
discovery read by the CUDA number that decides it, 802 (an NVSwitch server's fabric manager) and 3 (the kernel module
could not bring the GPU up: its log says why), each from its real paste and asking what decides it, with the near
misses that must stay quiet (another number, Ollama's healthy discovery)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pasted.test_catalogue import _run

HEAD = Path(__file__).resolve().parent / "head" / "applications"


def _kinds(snapshot) -> set[str]:
    return {e["kind"] for e in snapshot["pasted"]["errors"]}


@pytest.mark.parametrize(
    ("name", "kind", "asked"),
    [
        # ollama/ollama#12173: 8x H100 (NVSwitch), Ollama in Docker: the host's fabric manager decides
        ("ollama-cuda-driver-init-802.txt", "cuda-system-not-ready", ["systemctl status nvidia-fabricmanager"]),
        # ollama/ollama#11593: an RTX PRO 6000 Blackwell on driver 570: the kernel log and the module's flavour decide
        (
            "ollama-cudart-init-failure-blackwell.txt",
            "cuda-init-driver-state",
            ["sudo dmesg | grep -E NVRM|Xid", "cat /proc/driver/nvidia/version"],
        ),
    ],
)
def test_ollama_discovery_number_asks_what_decides_it(name, kind, asked):
    snapshot, _report, codes, asks = _run((HEAD / name).read_text(encoding="utf-8"))
    kinds = _kinds(snapshot)
    assert kind in kinds and "cudart-init-failure" in kinds  # (the generic entry still reads the driver's answer)
    assert "pasted-error-unexplained" in codes
    for a in asked:
        assert a in asks


@pytest.mark.parametrize(
    "line",
    [
        # another number: 35 (the driver older than Ollama's runtime) and 999 (unknown) are the generic entry's
        'time=2024-03-30T15:05:41.304Z level=INFO source=gpu.go:340 msg="Unable to load cudart CUDA management library '
        '/tmp/ollama4102197452/runners/cuda_v11/libcudart.so.11.0: cudart init failure: 35"',
        'time=2025-01-28T16:57:57.000Z level=INFO source=gpu.go:630 msg="Unable to load cudart library '
        '/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14: cuda driver library init failure: 999"',
        # a number that only starts with 3 or 802
        "cudart init failure: 30",
        "cuda driver library init failure: 8020",
    ],
)
def test_other_numbers_are_not_these(line):
    snapshot, _report, _codes, asks = _run(line + "\n")
    kinds = _kinds(snapshot)
    assert "cudart-init-failure" in kinds
    assert "cuda-system-not-ready" not in kinds and "cuda-init-driver-state" not in kinds
    assert "systemctl status nvidia-fabricmanager" not in asks


def test_healthy_discovery_is_quiet():
    # Ollama's discovery that found the GPU (its INFO lines at start): no failure read, no ask about the driver's state
    log = (
        'time=2025-01-16T20:58:45.361+08:00 level=INFO source=gpu.go:226 msg="looking for compatible GPUs"\n'
        'time=2025-01-16T20:58:45.451+08:00 level=INFO source=types.go:131 msg="inference compute" '
        "id=GPU-1c625a84-5d45-2274-8fa9-69f73d8ce165 library=cuda variant=v12 compute=8.9 driver=12.4 "
        'name="NVIDIA GeForce RTX 4090" total="23.6 GiB" available="21.6 GiB"\n'
    )
    snapshot, _report, _codes, asks = _run(log)
    kinds = _kinds(snapshot)
    assert not kinds & {"cudart-init-failure", "cuda-system-not-ready", "cuda-init-driver-state"}
    assert not any("fabricmanager" in a or "dmesg" in a for a in asks)


# --- an application on a machine without an NVIDIA GPU -------------------------------------------------------------


def test_webui_without_an_nvidia_gpu_is_its_own_cpu_mode():
    # AUTOMATIC1111/stable-diffusion-webui#17038: a CUDA torch's "Found no NVIDIA driver" inside the web UI's memory
    # monitor warning, the reporter asking "What when I have no nvidia GPU?": the web UI's own CPU options, in its file
    snapshot, _report, codes, _asks = _run((HEAD / "a1111-no-nvidia-gpu.txt").read_text(encoding="utf-8"))
    assert "torch-no-driver" in _kinds(snapshot)
    f = codes["gpu-none"]
    assert [c.argv for c in f.remediation.commands] == [("webui-user.bat",)]
    assert "set COMMANDLINE_ARGS=--use-cpu all --precision full --no-half --skip-torch-cuda-test" in (
        f.remediation.commands[0].note
    )
    assert "pasted-error-unexplained" not in codes


def test_another_program_without_an_nvidia_gpu_keeps_the_cpu_device():
    # the same words from a program no catalogue names: the finding, with the program's CPU device (no command to invent)
    text = (
        "I have no NVIDIA GPU, this is a laptop.\n"
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
        "driver from http://www.nvidia.com/Download/index.aspx\n"
    )
    _snapshot, _report, codes, _asks = _run(text)
    assert codes["gpu-none"].remediation.commands == ()


@pytest.mark.parametrize(
    "text",
    [
        # "no NVIDIA GPU" said, and nothing failed: no finding on a machine that runs fine on its CPU
        "I have no NVIDIA GPU, so I run the web UI with --use-cpu all and it works.\n",
        # PyTorch found no driver and nobody says there is no GPU: the driver is the question (asked), not the GPU
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
        "driver from http://www.nvidia.com/Download/index.aspx\n",
        # "I have no GPU issues": not a machine without a GPU
        "I have no GPU issues with the old release.\nRuntimeError: Found no NVIDIA driver on your system. Please check "
        "that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n",
    ],
)
def test_no_gpu_finding_needs_both_the_words_and_the_failure(text):
    _snapshot, _report, codes, _asks = _run(text)
    assert "gpu-none" not in codes


# --- a standalone executable's DLLs --------------------------------------------------------------------------------

_CUDNN126 = (
    "Could not load library cudnn_ops_infer64_8.dll. Error code 126\n"
    "Please make sure cudnn_ops_infer64_8.dll is in your library path!\n"
)


def test_standalone_faster_whisper_takes_the_dlls_beside_its_exe():
    # Purfview/whisper-standalone-win#57: the frozen whisper-faster.exe (no Python inside reach): the DLLs go beside the
    # executable (the maintainer: "in the same folder where exe is"), never a pip wheel into some Python
    snapshot, _report, codes, asks = _run((HEAD / "whisper-standalone-cudnn-ops-infer.txt").read_text(encoding="utf-8"))
    f = codes["windows-dll-missing"]
    argvs = [c.argv for c in f.remediation.commands]
    assert argvs[0] == ("where.exe", "/R", "C:\\", "whisper-faster.exe")
    assert argvs[1][:4] == ("where.exe", "/R", "C:\\", "cudnn_ops_infer64_8.dll")
    assert not any("pip" in " ".join(a) for a in argvs)
    assert not any("pip" in a or "python" in a for a in asks)  # (no interpreter to ask about)


def test_the_same_message_from_a_python_program_keeps_the_wheels():
    # the same cuDNN line from a Python program (faster-whisper in a venv): NVIDIA's wheels into that Python
    text = "C:\\proj\\venv\\Scripts\\python.exe transcribe.py\n" + _CUDNN126
    _snapshot, _report, codes, _asks = _run(text)
    argvs = [" ".join(map(str, c.argv)) for c in codes["windows-dll-missing"].remediation.commands if hasattr(c, "argv")]
    assert any("-m pip install nvidia-cublas-cu11" in a for a in argvs)
    assert not any(a.startswith("where.exe /R C:\\ whisper-faster.exe") for a in argvs)


# --- text-generation-inference's Flash Attention import ------------------------------------------------------------


def test_tgi_without_cuda_asks_the_container_and_the_host():
    # huggingface/text-generation-inference#1377: TGI 1.3 in docker --gpus all, "CUDA is not available" inside it
    snapshot, _report, codes, asks = _run((HEAD / "tgi-flash-attention-cuda-unavailable.txt").read_text(encoding="utf-8"))
    assert "cuda-unavailable" in _kinds(snapshot)
    assert "pasted-error-unexplained" in codes
    assert "nvidia-smi" in asks and "nvidia-smi -L" in asks  # (the host, and the program's own container)


@pytest.mark.parametrize(
    "line",
    [
        # a TGI built without the kernels (huggingface/text-generation-inference#1778's form): no CUDA question
        "2024-04-20T07:20:49.339061Z  WARN text_generation_launcher: Could not import Flash Attention enabled models: "
        "Flash Attention is not installed.",
        # a GPU below the kernels' floor, which the rest of TGI serves (the old check's own words)
        "WARN text_generation_launcher: Could not import Flash Attention enabled models: GPU with CUDA capability 7 0 is "
        "not supported",
    ],
)
def test_tgi_other_reasons_are_not_cuda_unavailable(line):
    snapshot, _report, _codes, _asks = _run(line + "\n")
    assert "cuda-unavailable" not in _kinds(snapshot)
