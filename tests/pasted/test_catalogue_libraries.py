"""cuBLAS's and cuDNN's status codes as the frameworks print them, and PyTorch's own CUDA messages (the catalogue's
block in src/gpudoctor/parsers/catalogue.toml, issue 28): each message read from its line with the asks that decide
what it leaves open; the program's own faults read and never turned into an environment finding; the out-of-memory
message's figures decide whether something else holds the GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.parsers.catalogue import match
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [
        " ".join(map(str, a.command.argv)) + (" | " + " ".join(map(str, a.command.pipe)) if a.command.pipe else "")
        for a in ask_for(report.facts, report.findings)
    ]
    return snapshot, report, {f.code: f for f in report.findings}, asks


def _example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


def _entries(text: str) -> dict[str, str]:
    return {e.get("entry"): e.kind for e in match(text)}


def _kinds(snapshot) -> set[str]:
    return {e["kind"] for e in snapshot["pasted"]["errors"]}


def _alarms(report) -> list[str]:
    return [f.code for f in report.findings if f.severity >= Severity.WARNING]


# One minimal line per status, as PyTorch (or TensorFlow, Caffe, CTranslate2) prints it, with the ask that decides it.
STATUS_LINES = [
    (
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
        "cublas-status-not-initialized",
        "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
    ),
    (
        "E tensorflow/stream_executor/cuda/cuda_blas.cc:464] failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED",
        "cublas-status-not-initialized",
        "printenv LD_LIBRARY_PATH",
    ),
    (
        "[FT][ERROR] CUDA runtime error: CUBLAS_STATUS_ARCH_MISMATCH open_attention.h:171",
        "cublas-status-arch-mismatch",
        "nvidia-smi --query-gpu=name,compute_cap --format=csv",
    ),
    (
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k)`",
        "cublas-status-execution-failed",
        "nvidia-smi --query-gpu=name,compute_cap --format=csv",
    ),
    (
        "CTranslate2/src/cuda/primitives.cu:563: cuBLAS failed with status CUBLAS_STATUS_INVALID_VALUE",
        "cublas-status-invalid-value",
        "printenv LD_LIBRARY_PATH",
    ),
    (
        "RuntimeError: CUDA error: CUBLAS_STATUS_INTERNAL_ERROR when calling `cublasCreate(handle)`",
        "cublas-status-internal-error",
        "nvidia-smi",
    ),
    (
        "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",
        "cudnn-status-not-initialized",
        "printenv LD_LIBRARY_PATH",
    ),
    (
        "F0628 13:44:06.798274 24168 cudnn_conv_layer.cpp:53] Check failed: status == CUDNN_STATUS_SUCCESS (6 vs. 0)  CUDNN_STATUS_ARCH_MISMATCH",
        "cudnn-status-arch-mismatch",
        "nvidia-smi --query-gpu=name,compute_cap --format=csv",
    ),
    (
        "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED",
        "cudnn-status-execution-failed",
        "nvidia-smi --query-gpu=name,compute_cap,memory.used,memory.total --format=csv",
    ),
    (
        "OSError: (External) CUDNN error(7), CUDNN_STATUS_MAPPING_ERROR.",
        "cudnn-status-mapping-error",
        "nvidia-smi --query-gpu=name,compute_cap,memory.used,memory.total --format=csv",
    ),
    (
        "RuntimeError: CUDNN_BACKEND_TENSOR_DESCRIPTOR cudnnFinalize failed: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
        "cudnn-status-version-mismatch",
        "ldconfig -p | grep libcudnn",
    ),
    (
        "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR",
        "cudnn-status-internal-error",
        "printenv CUDA_VISIBLE_DEVICES",
    ),
]


@pytest.mark.parametrize(("line", "entry", "decider"), STATUS_LINES, ids=[f"{e}-{i}" for i, (_, e, _) in enumerate(STATUS_LINES)])
def test_a_status_is_read_and_asks_what_decides_it(line, entry, decider):
    assert _entries(line).get(entry) == "cuda-library-status"
    snapshot, _, codes, asks = _run(line + "\n")
    assert "cuda-library-status" in _kinds(snapshot)
    # No environment cause is named from the status alone: the failure is shown as unexplained, with its deciders.
    assert set(codes) == {"pasted-error-unexplained"}
    assert decider in asks


@pytest.mark.parametrize(
    "text",
    [
        # a program's own source listing the statuses (a switch over cublasStatus_t)
        '    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";\n'
        '    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";\n'
        '    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";\n',
        # cuDNN's header enum on one line: ALLOC_FAILED is a name there, not a failure before ARCH_MISMATCH
        "typedef enum { CUDNN_STATUS_SUCCESS = 0, CUDNN_STATUS_ALLOC_FAILED = 2, CUDNN_STATUS_ARCH_MISMATCH = 6 } cudnnStatus_t;\n",
        # a success logged
        "I0101 cublas_handle.cc:42] cublasCreate returned CUBLAS_STATUS_SUCCESS\n",
    ],
)
def test_status_names_where_nothing_failed_stay_quiet(text):
    assert not {k for k in _entries(text).values() if k in ("cuda-library-status", "gpu-memory-exhausted")}
    _, report, _, _ = _run(text)
    assert not _alarms(report)


def test_the_real_examples_ask_their_deciders_with_the_reporters_interpreter():
    _, _, codes, asks = _run(_example("llama2c-279-cublas-not-initialized-windows.txt"))
    assert set(codes) == {"pasted-error-unexplained"}
    exe = "C:\\Users\\user\\.conda\\envs\\llama\\python.exe"
    assert f"{exe} -c import torch; print(torch.__version__, torch.version.cuda, torch.cuda.device_count())" in asks
    _, _, _, asks = _run(_example("facerestore-cf-27-cudnn-sublibrary-version-mismatch.txt"))
    assert {"ldconfig -p | grep libcudnn", "printenv LD_LIBRARY_PATH"} <= set(asks)
    assert any(a.endswith("-m pip list | grep -i -E ^torch |nvidia-cudnn") for a in asks)
    nvrtc = _example("walk-these-ways-72-rtx4090-cu113-nvrtc-arch.txt")
    _, _, _, asks = _run(nvrtc)
    # "I am using RTX 4090": the GPU and its compute capability (the matrix's) are shown, so the entry's query of
    # them is not asked again (ask._gpu_query_answered); without that line it is.
    assert "nvidia-smi --query-gpu=name,compute_cap --format=csv" not in asks
    assert any(a.endswith("-c import torch; print(torch.__version__, torch.version.cuda)") for a in asks)
    _, _, _, asks = _run("\n".join(line for line in nvrtc.splitlines() if "RTX 4090" not in line))
    assert "nvidia-smi --query-gpu=name,compute_cap --format=csv" in asks
    _, _, _, asks = _run(_example("xinference-1439-cuda-call-failed-lazily.txt"))
    assert {"printenv CUDA_VISIBLE_DEVICES", "nvidia-smi -L"} <= set(asks)


PROGRAM_FAULTS = [
    ("dcp-30-device-side-assert.txt", "cuda-device-side-assert"),
    ("tegnas-19-illegal-memory-access.txt", "cuda-illegal-memory-access"),
    ("conceptexpress-5-tensors-on-two-devices.txt", "torch-tensors-on-two-devices"),
    ("pycls-183-cannot-reinitialize-cuda-forked.txt", "torch-cannot-reinitialize-cuda-forked"),
    ("mineru-1508-m40-bf16-cublas-not-supported.txt", "cublas-status-not-supported"),
    ("sknet-14-cudnn-not-supported-non-contiguous.txt", "cudnn-status-not-supported"),
    ("himp-gnn-7-received-0-items-of-ancdata.txt", "multiprocessing-fd-passing-failed"),
    ("lightning-7491-ddp-cpu-not-interactive-compatible.txt", "lightning-strategy-not-interactive"),
]


@pytest.mark.parametrize(("name", "entry"), PROGRAM_FAULTS)
def test_the_programs_own_faults_are_read_and_never_an_environment_finding(name, entry):
    text = _example(name)
    assert _entries(text).get(entry) == "program-fault"
    snapshot, report, _, asks = _run(text)
    assert _kinds(snapshot) == {"program-fault"}
    assert not _alarms(report)
    assert asks == []  # the driver's and the framework's outputs decide nothing about the program's bug


def test_the_ancdata_traceback_source_line_is_not_the_message():
    # the quiet twin: CPython's source line as a traceback prints it above the message (pytorch/pytorch#973's and
    # mmdetection#1520's tracebacks), with its format's %d: not a failure told
    assert "multiprocessing-fd-passing-failed" not in _entries("    raise RuntimeError('received %d items of ancdata' %\n")


def test_the_plans14_dataloader_case_reads_the_descriptor_limit():
    # tests/blind/plans14/cases/1402-*: kept numpy views of DataLoader batches on Linux, the environment fine
    text = (next((ROOT / "tests" / "blind" / "plans14" / "cases").glob("1402-*")) / "input.txt").read_text(encoding="utf-8")
    assert _entries(text).get("multiprocessing-fd-passing-failed") == "program-fault"
    _, report, _, _ = _run(text)
    assert not _alarms(report)


def test_lightnings_source_line_is_not_its_interactive_refusal():
    # the quiet twin: the f-string of Lightning's check as the 7491 traceback shows it, split before "environment"
    line = '    572                 f"Selected distributed backend {self._distrib_type} is not compatible with an interactive"\n'
    assert "lightning-strategy-not-interactive" not in _entries(line)


def test_the_plans14_notebook_case_reads_lightnings_refusal():
    # tests/blind/plans14/cases/1404-*: devices="auto" on two GPUs in a notebook cell; the environment fine
    text = (next((ROOT / "tests" / "blind" / "plans14" / "cases").glob("1404-*")) / "input.txt").read_text(encoding="utf-8")
    assert _entries(text).get("lightning-strategy-not-interactive") == "program-fault"
    _, report, _, asks = _run(text)
    assert not _alarms(report)
    assert asks == []


def test_the_blind_program_fault_controls_stay_quiet():
    # Set 7's 614 (bf16 on a compute capability 6.1 GPU: CUBLAS_STATUS_NOT_SUPPORTED) and set 4's 356 (a model larger
    # than its 8 GB GPU: PyTorch's out-of-memory message): both environments were fine.
    for case in ("plans7/cases/614-", "plans4/cases/356-"):
        folder, prefix = case.rsplit("/", 1)
        path = next((ROOT / "tests" / "blind" / folder).glob(prefix + "*")) / "input.txt"
        _, report, _, _ = _run(path.read_text(encoding="utf-8"))
        assert not _alarms(report), case


def test_a_program_fault_beside_an_environment_failure_keeps_the_environments_finding():
    text = "Failed to initialize NVML: Driver/library version mismatch\nRuntimeError: CUDA error: device-side assert triggered\n"
    _, _, codes, _ = _run(text)
    assert "driver-library-mismatch" in codes


@pytest.mark.parametrize(
    "text",
    [
        # the words in a program's own advice, not CUDA's error
        "INFO: set CUDA_LAUNCH_BLOCKING=1 when debugging a device-side assert triggered by bad labels\n",
        "note: an illegal memory access was encountered in the old release; fixed in 2.1\n",
    ],
)
def test_program_fault_words_outside_the_error_are_not_read(text):
    assert not _entries(text)


def _oom(snapshot) -> dict:
    return next(e["values"] for e in snapshot["pasted"]["errors"] if e["kind"] == "torch-oom")


def test_out_of_memory_figures_of_pytorch_2_1_are_read():
    snapshot, report, _, asks = _run(_example("echomimic-v2-115-torch-oom-new-format.txt"))
    values = _oom(snapshot)
    gib, mib = 1024**3, 1024**2
    assert values["total"] == str(int(15.69 * gib)) and values["free"] == str(int(3.71 * gib))
    assert values["reserved"] == str(int(10.14 * gib) + int(771.43 * mib))  # allocated plus reserved-but-unallocated
    assert values["unallocated"] == str(int(771.43 * mib))
    # The GPU holds little beyond PyTorch's own share: the program is too large, no environment finding.
    assert not _alarms(report)
    assert "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv" in asks


def test_this_process_listed_by_its_host_pid_is_not_another_process():
    # In a container NVML lists the program itself as "Process 20398 has 14.52 GiB": PyTorch's own figures hold it.
    snapshot, report, _, _ = _run(_example("generateu-10-torch-oom-own-process-listed.txt"))
    assert _oom(snapshot)["free"] == str(int(235.06 * 1024**2))
    assert not _alarms(report)


def test_memory_held_outside_pytorch_is_gpu_memory_held():
    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.65 "
        "GiB of which 9.06 MiB is free. Process 4242 has 20.50 GiB memory in use. Including non-PyTorch memory, this "
        "process has 3.10 GiB memory in use. Of the allocated memory 2.60 GiB is allocated by PyTorch, and 100.00 MiB "
        "is reserved by PyTorch but unallocated.\n"
    )
    snapshot, _, codes, _ = _run(text)
    gpu = snapshot["nvml"]["devices"][0]
    assert gpu["memory"]["used_bytes"] > 20 * 1024**3
    assert "gpu-memory-held" in codes


@pytest.mark.parametrize("name", ["qwen3-873-cublas-alloc-failed.txt", "iim-28-cuda-error-out-of-memory.txt"])
def test_cuda_library_alloc_failed_is_the_gpu_full_not_the_install(name):
    snapshot, report, _, asks = _run(_example(name))
    assert _kinds(snapshot) == {"gpu-memory-exhausted"}
    assert not _alarms(report)
    assert "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv" in asks


def test_cuda_driver_initialization_failed_asks_the_driver_and_its_device_nodes():
    snapshot, _, codes, asks = _run(_example("points2surf-17-cuda-driver-initialization-failed.txt"))
    assert _kinds(snapshot) == {"cuda-driver-init-failed"}
    assert set(codes) == {"pasted-error-unexplained"}
    assert {"nvidia-smi", "ls -l /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia0"} <= set(asks)


def test_deserialize_without_cuda_asks_which_torch_ran_unless_the_paste_shows_cuda_available():
    snapshot, _, codes, asks = _run(_example("person-find-3-deserialize-cuda-unavailable.txt"))
    assert "torch-load-no-cuda" in _kinds(snapshot)
    assert "pasted-error-unexplained" in codes
    assert "python3 -c import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())" in asks
    # Another interpreter printed CUDA available: the failing one is not shown, so nothing is claimed of it.
    _, report, _, _ = _run("CUDA available: True\n" + _example("person-find-3-deserialize-cuda-unavailable.txt"))
    assert "pasted-error-unexplained" not in {f.code for f in report.findings}


def test_the_allocators_nvml_assert_asks_whether_nvml_answers():
    snapshot, _, codes, asks = _run(_example("pytorch-112950-allocator-nvml-init-assert.txt"))
    assert _kinds(snapshot) == {"torch-allocator-nvml-failed"}
    assert set(codes) == {"pasted-error-unexplained"}
    assert {"nvidia-smi", "nvidia-smi -L", "printenv CUDA_VISIBLE_DEVICES"} <= set(asks)


@pytest.mark.parametrize(
    ("name", "kind", "decider"),
    [
        ("sygil-webui-1488-launch-timed-out-windows.txt", "cuda-launch-timeout", "nvidia-smi"),
        (
            "numba-4351-cuda-error-launch-timeout.txt",
            "cuda-launch-timeout",
            "nvidia-smi --query-gpu=name,display_active,display_mode --format=csv",
        ),
        ("yolox-1212-unspecified-launch-failure.txt", "cuda-launch-failure", "sudo dmesg | grep -i xid"),
    ],
)
def test_kernel_launch_failures_ask_the_watchdog_and_the_kernel_log(name, kind, decider):
    snapshot, _, codes, asks = _run(_example(name))
    assert _kinds(snapshot) == {kind}
    assert set(codes) == {"pasted-error-unexplained"}
    assert decider in asks


PLANS10 = ROOT / "tests" / "blind" / "plans10" / "cases"


def _case(prefix: str) -> str:
    return next(PLANS10.glob(prefix + "-*")).joinpath("input.txt").read_text(encoding="utf-8")


def _plan_argv(finding) -> list[tuple[str, ...]]:
    return [tuple(map(str, c.argv)) for c in finding.remediation.commands]


@pytest.mark.parametrize(
    "text",
    [
        # AUTOMATIC1111/stable-diffusion-webui#6790: a Windows venv's traceback (C:\Users\...\venv)
        _example("a1111-6790-windows-venv-launch-timed-out.txt"),
        # a Windows VM's vGPU; the reporter's paste cuts the message at "and was"
        _case("1036"),
    ],
)
def test_a_launch_timeout_on_windows_is_the_display_watchdog_and_raises_tdrdelay(text):
    _, report, codes, _ = _run(text)
    assert report.facts.platform.system == "Windows"
    assert "pasted-error-unexplained" not in codes
    tdr = codes["windows-tdr-timeout"]
    key = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers"
    assert _plan_argv(tdr) == [
        ("nvidia-smi", "--query-gpu=name,driver_model.current,display_active", "--format=csv"),
        ("reg", "query", key, "/v", "TdrDelay"),
        ("reg", "add", key, "/v", "TdrDelay", "/t", "REG_DWORD", "/d", "60", "/f"),
        ("shutdown", "/r", "/t", "0"),  # (a program cmd.exe and PowerShell both run: planner.remedy.reboot)
    ]


def test_a_launch_timeout_where_the_text_names_no_windows_gets_no_registry_plan():
    # Sygil-Dev/sygil-webui#1488 says "Windows" only as a form's answer gpudoctor does not read: the platform is
    # assumed Linux, where X's watchdog has no registry value; the asks stay (quiet twin)
    _, report, codes, asks = _run(_example("sygil-webui-1488-launch-timed-out-windows.txt"))
    assert report.facts.platform.system != "Windows"
    assert "windows-tdr-timeout" not in codes
    assert set(codes) == {"pasted-error-unexplained"}


@pytest.mark.parametrize(
    "text",
    [
        _example("pytorch-2567-thc-unspecified-launch-failure.txt"),  # pytorch/pytorch#2567, PyTorch 0.2's THC
        _case("1028"),  # PyTorch 0.2 from conda, mid-training
    ],
)
def test_thcs_cuda_runtime_error_4_is_the_launch_failure_and_asks_the_xid(text):
    snapshot, _, codes, asks = _run(text)
    assert _kinds(snapshot) == {"cuda-launch-failure"}
    assert set(codes) == {"pasted-error-unexplained"}
    assert {"sudo dmesg | grep -i xid", "nvidia-smi -q -d TEMPERATURE,POWER,ECC"} <= set(asks)


def test_thcs_other_runtime_errors_are_not_the_launch_failure():
    # the same THC form with another cudaError (6: the watchdog's timeout, pytorch/pytorch#10853) is not error 4
    line = (
        "RuntimeError: cuda runtime error (6) : the launch timed out and was terminated at "
        "/opt/conda/conda-bld/pytorch_1532582123400/work/aten/src/THC/generic/THCStorage.cpp:36"
    )
    assert _entries(line) == {"cuda-launch-timed-out": "cuda-launch-timeout"}
    # numba's name for another launch error (CUDA_ERROR_LAUNCH_FAILED, 719) is not the timeout
    assert "cuda-launch-timed-out" not in _entries(
        "numba.cuda.cudadrv.driver.CudaAPIError: [719] Call to cuMemcpyDtoH results in CUDA_ERROR_LAUNCH_FAILED"
    )


@pytest.mark.parametrize(
    "text",
    [
        _example("cudf-432-numba-cuinit-unknown-cuda-error.txt"),  # NVIDIA/cudf#432, numba in a RAPIDS container
        _case("1019"),  # numba -s, numba 0.48
    ],
)
def test_numbas_unnamed_cuinit_failure_asks_the_driver_its_modules_and_device_nodes(text):
    snapshot, _, codes, asks = _run(text)
    assert "cuinit-unmapped" in _kinds(snapshot)
    assert "cuinit-failed" not in _kinds(snapshot)
    assert set(codes) == {"pasted-error-unexplained"}
    assert {
        "nvidia-smi",
        "cat /proc/driver/nvidia/version",
        "ls -l /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia0",
        "lsmod | grep nvidia",
    } <= set(asks)


def test_numbas_named_cuinit_failure_is_not_the_unnamed_one():
    # NVIDIA/cudf#13388: numba names CUDA_ERROR_NO_DEVICE, which the cuinit-failed entry reads (quiet twin)
    snapshot, _, _, _ = _run(_example("cudf-13388-numba-cuinit-no-device.txt"))
    assert "cuinit-unmapped" not in _kinds(snapshot)
    assert "cuinit-failed" in _kinds(snapshot)
