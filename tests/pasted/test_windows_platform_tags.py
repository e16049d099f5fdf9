"""What a Windows Python or package manager prints of its own platform names the platform of a pasted report (issue
27): a wheel's Windows platform tag, a conda package of a Windows subdirectory, Python's MSVC banner; and a line whose
every second character is a space (a wide console's output copied as bytes) is read back. Minimal pastes written
here; quiet twins where a Linux paste shows the same words."""

from __future__ import annotations

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.pasted.blocks import unspace


def _snap(text: str) -> dict:
    return validate_snapshot(read_pasted([Source("report.txt", text)]), "report")


@pytest.mark.parametrize(
    "text",
    [
        # a wheel named as pip fetched it, with and without .whl
        "`torch-2.6.0+cu126-cp312-cp312-win_amd64`\nbitsandbytes was compiled without GPU support",
        "Downloading onnxruntime_gpu-1.18.0-cp310-cp310-win_amd64.whl (180 MB)",
        # conda's plan for the running platform
        "The following NEW packages will be INSTALLED:\n  pytorch  pytorch/win-64::pytorch-2.0.1-py3.10_cpu_0",
        "  cudatoolkit        conda-forge/win-64::cudatoolkit-11.8.0-h09e9e62_12",
        # Python's banner for an MSVC build
        "Python 3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 64 bit (AMD64)] on win32",
    ],
)
def test_a_windows_platform_tag_names_windows(text):
    assert _snap(text)["platform"]["system"] == "Windows"


@pytest.mark.parametrize(
    "text",
    [
        # pip on Linux lists the tags it skipped: no file name, and Linux named
        "Skipping link: none of the wheel's tags (cp312-cp312-win_amd64) are compatible",
        "torch-2.6.0+cu126-cp312-cp312-win_amd64 is not a supported wheel on this platform (Ubuntu 22.04)",
        "  pytorch  pytorch/linux-64::pytorch-2.0.1-py3.10_cuda11.8_cudnn8.7.0_0",
        "Python 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] on linux",
        "nvidia_cublas_cu12-12.1.3.1-py3-none-manylinux1_x86_64.whl",
    ],
)
def test_linux_tags_or_linux_named_stay_linux(text):
    assert _snap(text)["platform"]["system"] == "Linux"


def _spaced(line: str) -> str:
    """A line as a wide console's copy shows it: each character followed by a space, the spaces themselves lost."""
    return " ".join(line.replace(" ", "")) + " "


def test_a_letter_spaced_line_is_read_back_and_the_rest_kept():
    text = (
        "onnxruntime-gpu: 1.20\n"
        + _spaced('load "C:\\Users\\me\\app\\.venv\\Lib\\site-packages\\x.dll"')
        + "\n- - - - - - - - - - - - - - - -\n"
    )
    back = unspace(text).split("\n")
    assert back[0] == "onnxruntime-gpu: 1.20"
    assert back[1] == 'load"C:\\Users\\me\\app\\.venv\\Lib\\site-packages\\x.dll"'
    assert back[2] == "- - - - - - - - - - - - - - - -"  # a ruler, no word in it
    assert len(back) == len(text.split("\n"))  # line numbers kept for provenance


@pytest.mark.parametrize(
    "text",
    [
        "| 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 |",  # no word
        "A B C",  # too short
        "N V I D I A  driver is fine",  # spaced words, not one character in two
    ],
)
def test_lines_that_are_not_letter_spaced_stay(text):
    assert unspace(text) == text


def test_an_onnxruntime_provider_dll_error_126_letter_spaced_in_a_venv_is_found_and_asked_in_that_venv():
    line = (
        "[E:onnxruntime:Default, provider_bridge_ort.cc:1862 onnxruntime::TryGetProviderInfo_CUDA] "
        '[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load '
        '"C:\\Users\\me\\proj\\.venv\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"'
    )
    snap = _snap("GPU: 4060 laptop\nonnxruntime-gpu: 1.20\n" + _spaced(line) + "\n")
    assert snap["platform"]["system"] == "Windows"
    report = diagnose(ReplayHost(snap))
    assert report.findings  # not "No problems found"
    asks = [a.command.words for a in ask_for(report.facts, report.findings)]
    pythons = {str(argv[0]) for argv in asks if "python" in str(argv[0]).lower()}
    assert pythons == {"C:\\Users\\me\\proj\\.venv\\Scripts\\python.exe"}
    assert not any(str(argv[0]) in ("ldconfig", "python3") for argv in asks)


def test_the_same_error_with_its_spaces_still_matches():
    line = (
        'LoadLibrary failed with error 126 "" when trying to load '
        '"C:\\Users\\me\\proj\\.venv\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"'
    )
    report = diagnose(ReplayHost(_snap(line)))
    assert report.findings


# --- CTranslate2's CUDA 12 build in an environment whose CUDA is 11 --------------------------------------------------


def _plan(text: str):
    from gpudoctor.cmdline import Cmd, shell_for_os
    from gpudoctor.planner.prescribe import build

    report = diagnose(ReplayHost(_snap(text)))
    plan = build(report.findings, shell_for_os(report.facts.platform.system))
    return report, [c.words for s in plan.steps for c in s.commands if isinstance(c, Cmd)]


_FW_TRACE = (
    "Traceback (most recent call last):\n"
    '  File "{site}{sep}faster_whisper{sep}transcribe.py", line 629, in encode\n'
    "    return self.model.encode(features, to_cpu=to_cpu)\n"
    "RuntimeError: Library {lib} is not found or cannot be loaded\n"
)


@pytest.mark.parametrize(
    ("text", "python"),
    [
        # Windows conda env, torch named in prose
        (
            _FW_TRACE.format(site="D:\\conda\\envs\\asr\\lib\\site-packages", sep="\\", lib="cublas64_12.dll")
            + "\nIn this env pytorch2.1.2+cu118 works; only faster whisper fails.\n",
            "D:\\conda\\envs\\asr\\python.exe",
        ),
        # Linux venv, torch and faster-whisper listed as pip prints them
        (
            _FW_TRACE.format(site="/home/u/app/venv/lib/python3.10/site-packages", sep="/", lib="libcublas.so.12")
            + "\nPackage    Version\n---------- ------------\ntorch      2.0.1+cu118\nctranslate2 4.0.0\nfaster-whisper 1.0.3\n",
            "/home/u/app/venv/bin/python",
        ),
    ],
)
def test_ct2_cuda12_in_a_cuda11_env_pins_the_cuda11_builds_in_that_env(text, python):
    report, steps = _plan(text)
    assert [f.code for f in report.findings] == ["framework-cuda-libs-missing"]
    assert steps[0] == (python, "-m", "pip", "install", "faster-whisper==0.10.1", "ctranslate2==3.24.0")


def test_ct2_alone_in_a_cuda11_env_pins_ctranslate2_only():
    text = (
        "import ctranslate2\ntorch 2.0.1+cu118\n"
        "RuntimeError: Library cublas64_12.dll is not found or cannot be loaded\n"
        'File "C:\\app\\venv\\Lib\\site-packages\\ctranslate2\\models.py", line 3, in run\n'
    )
    _, steps = _plan(text)
    assert steps[0][-3:] == ("pip", "install", "ctranslate2==3.24.0")


@pytest.mark.parametrize(
    "extra",
    [
        "torch 2.3.0+cu121",  # the environment is CUDA 12: the cuBLAS 12 it lacks is the answer
        "torch 2.0.1+cu118\nnvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.4, V12.4.131",
        "",  # the environment's CUDA not shown
    ],
)
def test_ct2_cuda12_elsewhere_keeps_the_cuda12_cublas_route(extra):
    text = _FW_TRACE.format(site="C:\\app\\venv\\Lib\\site-packages", sep="\\", lib="cublas64_12.dll") + "\n" + extra + "\n"
    report, steps = _plan(text)
    assert "framework-cuda-libs-missing" in [f.code for f in report.findings]
    # The CUDA 12 cuBLAS wheel is installed (after the where.exe ask that shows which DLLs are found, h95).
    assert any("nvidia-cublas-cu12" in s for s in steps)
    assert not any("ctranslate2==3.24.0" in s for s in steps)
