"""The driver and nvcc as reporters write them outside their tools' blocks, and CUDA error 222 judged with both.

pasted.read: "Driver==515.86.01" / "driver: 535.54.03" (error_texts' driver-version-said), nvcc's build tag
("Build cuda_11.8.r11.8/compiler.31833905_0", "nvcc==cuda_12.1.r12.1/...") and "nvcc 12.4" in prose are read, each
with its source line; pip's pin form for the stack's own parts names no distribution. checks.catalogued.compilers'
check_ptx_toolchain_newer_than_driver: error 222 beside a driver older than the compiler's CUDA is
toolkit-newer-than-driver, not an unexplained failure (issues 27/28). Minimal pastes written for the class."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

_E222 = "CUDA error 222 at /src/app/kernels.cu:88: the provided PTX was compiled with an unsupported toolchain.\n"


def _run(text: str):
    snap = read_pasted([Source("report.txt", text)])
    report = diagnose(ReplayHost(validate_snapshot(snap, "report")))
    return snap, report, ask_for(report.facts, report.findings)


def _read(snap, fact: str):
    return next(e for e in snap["pasted"]["read_from"] if e["fact"] == fact)


@pytest.mark.parametrize(
    ("text", "driver", "nvcc"),
    [
        # pip's pin form, as a reporter lists the stack ("sdk version:" with python, nvcc and the driver)
        ("python==3.9.11\nnvcc==cuda_11.8.r11.8/compiler.31833905_0\nDriver==515.86.01\n", "515.86.01", "11.8"),
        # nvcc's last line alone, the driver in running text
        ("driver: 470.57.02\nBuild cuda_11.6.r11.6/compiler.31057947_0\n", "470.57.02", "11.6"),
        # both in prose
        ("I have nvcc 12.4 installed, the nvidia driver version is 535.54.03\n", "535.54.03", "12.4"),
    ],
)
def test_the_driver_and_nvcc_said_in_common_forms_are_read_with_their_lines(text, driver, nvcc):
    snap, report, asks = _run(text + _E222)
    assert report.facts.driver.version == driver
    assert report.facts.toolkits.nvcc_on_path_version == nvcc
    assert _read(snap, "nvml.driver_version")["lines"]
    assert _read(snap, "commands.nvcc --version")["lines"]
    assert "driver" not in snap["python"]["distributions"] if snap.get("python") else True
    assert not [a for a in asks if a.command.argv in (("nvidia-smi",), ("nvcc", "--version"))]


@pytest.mark.parametrize(
    "text",
    [
        "python==3.9.11\nnvcc==cuda_11.8.r11.8/compiler.31833905_0\nDriver==515.86.01\n",
        "I have nvcc 12.4 installed, the nvidia driver version is 535.54.03\n",
        "driver: 470.57.02\nBuild cuda_11.6.r11.6/compiler.31057947_0\n",
    ],
)
def test_error_222_with_a_compiler_newer_than_the_driver_is_the_toolkit_newer_than_the_driver(text):
    _, report, _ = _run(text + _E222)
    errors = [f for f in report.findings if f.severity >= Severity.ERROR]
    assert [f.code for f in errors] == ["toolkit-newer-than-driver"]
    rem = errors[0].remediation
    assert rem.component == "driver" and rem.alternative is not None and rem.alternative.component == "toolkit"
    assert "pasted-error-unexplained" not in {f.code for f in report.findings}


def test_error_222_with_a_compiler_no_newer_than_the_driver_blames_neither():
    # Quiet twin: nvcc 11.7 on a driver of CUDA 11.7 wrote nothing too new; the PTX came from elsewhere.
    _, report, _ = _run("nvcc==cuda_11.7.r11.7/compiler.31442593_0\nDriver==515.86.01\n" + _E222)
    assert "toolkit-newer-than-driver" not in {f.code for f in report.findings}


def test_a_driver_and_nvcc_said_without_a_ptx_error_raise_nothing():
    # Quiet twin: minor version compatibility runs CUDA 11.8 programs on 515; only PTX needs the newer driver.
    _, report, _ = _run("python==3.9.11\nnvcc==cuda_11.8.r11.8/compiler.31833905_0\nDriver==515.86.01\nIt works.\n")
    assert not [f for f in report.findings if f.severity >= Severity.ERROR]


def test_the_stacks_own_parts_in_pin_form_are_no_distributions():
    snap = read_pasted([Source("r", "```\ntorch==2.1.0\npython==3.10.4\nnvcc==cuda_12.1.r12.1/compiler.1_0\n```\n")])
    dists = snap["python"]["distributions"]
    assert dists.get("torch") == "2.1.0"
    assert not {"python", "nvcc", "driver"} & set(dists)
    assert snap["python"]["version"] == "3.10.4"


def test_nvcc_with_a_fatal_message_or_an_option_is_no_version():
    snap = read_pasted([Source("r", "nvcc fatal   : Unsupported gpu architecture 'compute_89'\nnvcc -arch=sm_86 x.cu\n")])
    assert "nvcc --version" not in snap["commands"]


def test_the_plan_step_is_a_command_or_the_driver_upgrade_prose():
    _, report, _ = _run("Driver==515.86.01\nnvcc==cuda_11.8.r11.8/compiler.31833905_0\n" + _E222)
    (f,) = [f for f in report.findings if f.code == "toolkit-newer-than-driver"]
    assert "520.61.05" in f.remediation.summary
    assert all(isinstance(c, Cmd) for c in f.remediation.commands)


@pytest.mark.parametrize(
    ("said", "cuda"),
    [
        ('"nvidia-smi" reports that the CUDA version is 12.8', "12.8"),
        ("nvidia-smi shows CUDA 12.4 and my GPU", "12.4"),
        ("`nvidia-smi` says CUDA Version: 11.7", "11.7"),
    ],
)
def test_nvidia_smis_cuda_quoted_in_prose_is_the_drivers(said, cuda):
    snap, report, _ = _run(f"I have an RTX 3060. {said}.\n")
    assert report.facts.driver.cuda_version == cuda
    assert _read(snap, "nvml.cuda_driver_version")["lines"]


def test_nvidia_smi_named_without_its_cuda_states_nothing():
    _, report, _ = _run("nvidia-smi shows no processes running, CUDA 12.1 is what I installed.\n")
    assert report.facts.driver.cuda_version is None


def test_the_drivers_cuda_and_the_gpu_stated_are_not_asked_again_and_the_failing_library_is():
    text = (
        'I have an RTX 5080. "nvidia-smi" reports that the CUDA version is 12.8 and "nvcc --version" says the release '
        "is 12.8.\nTraceback (most recent call last):\n"
        '  File "/home/me/venv/lib/python3.12/site-packages/cupy/_core/_kernel.pyx", line 920, in __call__\n'
        "cupy.cuda.compiler.CompileException: nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
    )
    _, report, asks = _run(text)
    argvs = [a.command.argv for a in asks]
    assert report.facts.toolkits.nvcc_on_path_version == "12.8"
    assert not [a for a in argvs if a[:1] == ("nvidia-smi",)]
    assert ("/home/me/venv/bin/python", "-c", "import cupy; cupy.show_config()") in argvs
    assert not [a for a in argvs if "torch.utils.collect_env" in a]
