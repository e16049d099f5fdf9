"""The head of PyTorch's side, closed by general means (tests/pasted/head/pytorch.toml): cuDNN's convolution search
that found nothing, the runtime's invalid device function and misaligned address, NCCL missing from the build and
NCCL's watchdog timeout read from their real pastes and asking what decides them; a program's own fault said as the
program's (the program-fault finding); each with the near miss that must stay quiet."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.model import Severity
from tests.pasted.test_catalogue import _run

HEAD = Path(__file__).resolve().parent / "head" / "pytorch"
HELD = "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"


def _read(name: str):
    return _run((HEAD / name).read_text(encoding="utf-8"))


def _kinds(snapshot) -> set[str]:
    return {e["kind"] for e in snapshot["pasted"]["errors"]}


@pytest.mark.parametrize(
    ("name", "kind", "asked"),
    [
        # every algorithm cuDNN v7's search tried failed (out of memory or a cuDNN error): the memory held decides
        ("cudnn-no-valid-algorithm.txt", "cudnn-no-algorithm", [HELD]),
        # cuDNN v8's frontend: no engine ran; the memory held and the cuDNN torch loads decide
        ("cudnn-no-engine.txt", "cudnn-no-algorithm", [HELD]),
        # a kernel with no code for this GPU: its capability against the build's arch list, in the program's own python
        (
            "invalid-device-function.txt",
            "cuda-invalid-device-function",
            [
                "nvidia-smi --query-gpu=name,compute_cap --format=csv",
                "/gpfsnyu/home/ks3286/.conda/envs/conda_root/bin/python -c import torch; "
                "print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list())",
            ],
        ),
        # a collective past its timeout: NCCL's own log, exported in the shell the job runs from
        ("nccl-watchdog-timeout.txt", "nccl-collective-timeout", ["export NCCL_DEBUG=INFO"]),
    ],
)
def test_head_message_is_read_and_asks_what_decides_it(name, kind, asked):
    snapshot, report, codes, asks = _read(name)
    assert kind in _kinds(snapshot)
    assert "pasted-error-unexplained" in codes  # a failure the paste alone cannot explain: never "No problems found"
    for a in asked:
        assert a in asks


@pytest.mark.parametrize(
    "name",
    [
        "device-side-assert.txt",  # Assertion `t >= 0 && t < n_classes`: the labels
        "illegal-memory-access.txt",
        "misaligned-address.txt",
        "forked-subprocess.txt",
        "tensors-two-devices.txt",
        "nccl-not-built-in.txt",  # on Windows (the traceback's H:\ and E:\ paths): gloo is PyTorch's backend there
    ],
)
def test_program_fault_is_said_as_the_programs_with_no_environment_repair(name):
    snapshot, report, codes, asks = _read(name)
    fault = codes["program-fault"]
    assert fault.severity == Severity.INFO and fault.remediation is None
    assert not [c for c, f in codes.items() if f.severity >= Severity.WARNING]
    assert asks == []  # the message decides it: nvidia-smi or the framework's build would add nothing


def test_out_of_memory_is_the_programs_and_still_asks_nothing_of_the_install():
    snapshot, report, codes, asks = _read("torch-oom.txt")
    assert "torch-oom" in _kinds(snapshot)
    assert set(codes) == {"program-fault"}
    assert codes["program-fault"].severity == Severity.INFO


def test_nccl_missing_on_windows_names_the_gloo_backend():
    snapshot, report, codes, asks = _read("nccl-not-built-in.txt")
    assert "backend='gloo'" in codes["program-fault"].detail


def test_quiet_twin_a_program_fault_beside_an_environment_fault_is_not_said_as_the_programs():
    # the same assert where nvidia-smi cannot reach the driver: the environment's finding is the report's
    text = (HEAD / "device-side-assert.txt").read_text(encoding="utf-8") + (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
        "driver is installed and running.\n"
    )
    snapshot, report, codes, asks = _run(text)
    assert "program-fault" not in codes and "driver-unreachable" in codes


def test_quiet_twin_nccl_missing_on_linux_is_the_builds_and_asks_for_it():
    # a Linux PyTorch without NCCL is a CPU-only (or custom) build: not the program's choice, and its build decides it
    text = (
        '  File "/home/u/venv/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 727, in '
        "_new_process_group_helper\nRuntimeError: Distributed package doesn't have NCCL built in\n"
    )
    snapshot, report, codes, asks = _run(text)
    assert "nccl-unavailable" in _kinds(snapshot)
    assert "program-fault" not in codes and "pasted-error-unexplained" in codes
    assert (
        "/home/u/venv/bin/python -c import torch, torch.distributed as dist; "
        "print(torch.__version__, torch.version.cuda, dist.is_nccl_available())"
    ) in asks


@pytest.mark.parametrize(
    "text",
    [
        "[I ProcessGroupNCCL.cpp:665] [Rank 0] NCCL watchdog thread started!\n",  # the watchdog at work, no timeout
        "warning: misaligned address in packed struct member 'x'\n",  # a compiler's word, not CUDA's error 716
    ],
)
def test_quiet_twin_the_words_elsewhere_are_no_failure(text):
    snapshot, report, codes, asks = _run(text)
    assert not _kinds(snapshot) and not codes


def test_quiet_twin_a_compilers_error_is_no_cuda_error_98():
    # nvcc's own "(invalid device function call)" is a compile error in the program's source, not CUDA's runtime error
    # 98 (invalid device function: no kernel for this GPU): no catalogue kind of the runtime's; the line is read as a
    # compiler's error that nothing explains (parsers/failure_lines, h222), so the paste is not called healthy
    text = "error: calling a __host__ function from a __global__ function is not allowed (invalid device function call)\n"
    snapshot, report, codes, asks = _run(text)
    assert _kinds(snapshot) == {"gpu-stack-failure"}
    assert set(codes) == {"pasted-error-unexplained"}


def test_a_git_hash_local_version_names_no_build_and_cpu_does():
    # NVIDIA's containers and source builds tag torch with a git hash (2.2.0a0+81ea7a4): nothing says CPU-only
    error = "RuntimeError: CUDA error: invalid device function\n"
    _, _, codes, _ = _run("torch                     2.2.0a0+81ea7a4\n" + error)
    assert "framework-cpu-build" not in codes
    # the twin: PyTorch's own CPU tag is a CPU-only build
    _, _, codes, _ = _run("torch                     2.1.0+cpu\n" + error)
    assert "framework-cpu-build" in codes


def test_cudnn_check_without_its_ld_library_path_clause_names_no_path():
    # torch/backends/cudnn/__init__.py @66a38d50 adds a clause naming LD_LIBRARY_PATH only where the variable is set: the
    # base message alone ("PyTorch already comes bundled with cuDNN ...") is a process without it, so the older cuDNN
    # came by the build's own search (another cuDNN package in the environment), and no path is prescribed
    snapshot, report, codes, asks = _read("cudnn-version-incompatibility.txt")
    rem = codes["cudnn-too-old"].remediation
    assert rem is not None and not rem.commands
    assert "python3 -m pip list" in asks  # the cuDNN packages of the environment (nvidia-cudnn-*) decide which loaded
    # the twin: with the clause, the directory comes off LD_LIBRARY_PATH
    _, _, codes, _ = _run(
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but found runtime "
        "version (8, 3, 3). PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure "
        "PyTorch can find the bundled cuDNN. Looks like your LD_LIBRARY_PATH contains incompatible version of cudnn. "
        "Please either remove it from the path or install cudnn (8, 5, 0)\n"
    )
    rem = codes["cudnn-too-old"].remediation
    assert rem is not None and any(getattr(c, "argv", None) == ("printenv", "LD_LIBRARY_PATH") for c in rem.commands)


def test_nvml_unknown_error_inside_all_the_running_containers_is_the_containers_lost_access():
    snapshot, report, codes, asks = _read("nvml-unknown-error-container.txt")
    assert codes["driver-unreachable"].title.startswith("inside the container")
    # the twin: containers named, nothing said to run in them (nvidia-smi may have run on the host)
    _, _, codes, _ = _run("I restarted all the running containers\nFailed to initialize NVML: Unknown Error\n")
    assert not codes["driver-unreachable"].title.startswith("inside the container")
