"""Messages that state their own fix (src/gpudoctor/parsers/catalogue.toml, the after-round block of h215;
gpudoctor.checks.catalogued.stated): the library's guard names the variable it wants and the plan sets it, as a
variable of a fixed name and value. Each on real reports (a catalogue example, a recorded blind case) with a quiet
twin where the same words are no such failure."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "pasted" / "catalogue_examples"
# blind set 15's recorded cases (their first run is evidence already): the report as its reporter pasted it
CASE_1542 = next((ROOT / "tests/blind/plans15/cases").glob("1542-*")) / "input.txt"
CASE_1526 = next((ROOT / "tests/blind/plans15/cases").glob("1526-*")) / "input.txt"


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    kinds = {e["kind"] for e in snapshot["pasted"]["errors"]}
    return kinds, {f.code: f for f in report.findings}


def _set(finding) -> list[tuple[str, str | None]]:
    return [(c.name, c.value) for c in finding.remediation.commands if isinstance(c, SetEnv)]


# --- accelerate's guard on GeForce RTX 40-series cards ------------------------------------------------------------


def test_accelerates_p2p_ib_guard_sets_both_variables_it_names():
    # https://github.com/cocktailpeanut/fluxgym/issues/283: the whole message, several RTX 4090s
    kinds, codes = _run((EXAMPLES / "fluxgym-283-accelerate-rtx4000-p2p-ib-guard.txt").read_text(encoding="utf-8"))
    assert "accelerate-p2p-ib-refused" in kinds
    f = codes["nccl-transport-disabled"]
    assert f.severity is Severity.WARNING
    assert _set(f) == [("NCCL_P2P_DISABLE", "1"), ("NCCL_IB_DISABLE", "1")]
    assert "pasted-error-unexplained" not in codes


def test_accelerates_guard_quoted_as_a_title_alone_is_read():
    # the guard's first sentence as an issue's title over an environment template (blind set 15's case 1542)
    kinds, codes = _run(CASE_1542.read_text(encoding="utf-8"))
    assert "accelerate-p2p-ib-refused" in kinds
    assert _set(codes["nccl-transport-disabled"]) == [("NCCL_P2P_DISABLE", "1"), ("NCCL_IB_DISABLE", "1")]


def test_the_variables_said_without_accelerates_guard_are_not_it():
    # quiet twin: the variables set by a reporter on a hang, without the guard, are NCCL's own matter
    text = (
        "Training hangs at the first all_reduce on two RTX 4090s.\n"
        "export NCCL_P2P_DISABLE=1\nexport NCCL_IB_DISABLE=1\n"
        "With these set it trains.\n"
    )
    kinds, codes = _run(text)
    assert "accelerate-p2p-ib-refused" not in kinds
    assert not any(("NCCL_IB_DISABLE", "1") in _set(f) for f in codes.values() if f.remediation)


# --- TCPStore without libuv ---------------------------------------------------------------------------------------


def test_tcpstore_without_libuv_on_windows_sets_use_libuv_0():
    # https://github.com/cocktailpeanut/fluxgym/issues/302: torch 2.5.1 on Windows, torchrun's static rendezvous
    text = (EXAMPLES / "fluxgym-302-windows-torch251-static-rendezvous-tcpstore-without-libuv.txt").read_text(encoding="utf-8")
    kinds, codes = _run(text)
    assert "tcpstore-libuv-missing" in kinds
    f = codes["framework-windows-native-gpu"]
    assert _set(f) == [("USE_LIBUV", "0")]
    assert "pasted-error-unexplained" not in codes


def test_tcpstore_without_libuv_on_a_github_runner():
    # blind set 15's case 1526: the rendezvous's traceback on a hosted Windows runner, nothing else
    _, codes = _run(CASE_1526.read_text(encoding="utf-8"))
    assert _set(codes["framework-windows-native-gpu"]) == [("USE_LIBUV", "0")]


def test_tcpstores_deprecation_of_the_argument_is_not_the_failure():
    # quiet twin: torch's warning that the use_libuv argument is ignored (torch/distributed/elastic/utils/
    # distributed.py) names libuv too, on a Linux run that goes on
    text = (
        "/usr/lib/python3.10/site-packages/torch/distributed/elastic/utils/distributed.py:40: UserWarning: argument "
        'use_libuv is deprecated and ignored. Set USE_LIBUV environment variable to "0" to disable libuv, or "1" to '
        "enable it. If the env var is not set, libuv will be used by default.\n"
    )
    kinds, codes = _run(text)
    assert "tcpstore-libuv-missing" not in kinds
    assert "framework-windows-native-gpu" not in codes


def test_tcpstore_without_libuv_off_windows_is_no_windows_finding():
    # quiet twin: the same words from a Linux build of one's own: not what every Windows wheel lacks
    text = (
        '  File "/home/u/pytorch/torch/distributed/rendezvous.py", line 189, in _create_c10d_store\n'
        "    return TCPStore(\n"
        "RuntimeError: use_libuv was requested but PyTorch was build without libuv support\n"
    )
    kinds, codes = _run(text)
    assert "tcpstore-libuv-missing" in kinds
    assert "framework-windows-native-gpu" not in codes


# --- CUDA in a forked child, where the library that forks has its own start method -------------------------------

CASE_1503 = next((ROOT / "tests/blind/plans15/cases").glob("1503-*")) / "input.txt"


def _program_fault(text: str):
    _, codes = _run(text)
    f = codes["program-fault"]
    assert f.severity is Severity.INFO and f.remediation is None  # the program's step, no environment repair
    return f


def test_vllms_forked_workers_are_told_its_own_start_method():
    # https://github.com/vllm-project/vllm/issues/7077: the workers' log, vLLM's paths in it
    f = _program_fault((EXAMPLES / "vllm-7077-vllm-worker-forked-cannot-reinitialize-cuda.txt").read_text(encoding="utf-8"))
    assert "VLLM_WORKER_MULTIPROC_METHOD=spawn" in f.detail
    assert "multiprocessing.set_start_method('spawn')" not in f.detail


def test_vllm_named_by_its_version_line_is_enough():
    # blind set 15's case 1503: "vllm version: ..." and the error, set_start_method tried already
    assert "VLLM_WORKER_MULTIPROC_METHOD=spawn" in _program_fault(CASE_1503.read_text(encoding="utf-8")).detail


def test_a_fork_without_vllm_keeps_pythons_start_method():
    # quiet twin: the same error from a program's own DataLoader workers (pycls's catalogue example)
    f = _program_fault((EXAMPLES / "pycls-183-cannot-reinitialize-cuda-forked.txt").read_text(encoding="utf-8"))
    assert "VLLM_WORKER_MULTIPROC_METHOD" not in f.detail
    assert "set_start_method('spawn')" in f.detail


# --- an invalid device ordinal under CUDA_VISIBLE_DEVICES: the program's index, counted in the machine's numbering ----

CASE_1534 = next((ROOT / "tests/blind/plans15/cases").glob("1534-*")) / "input.txt"


def _snapshot(text: str):
    return validate_snapshot(read_pasted([Source("t", text)]), "t")


def test_an_index_beyond_the_mask_is_the_programs_own():
    # blind set 15's case 1534: CUDA_VISIBLE_DEVICES=5 in the script and on its command line, the script asks for 5
    text = CASE_1534.read_text(encoding="utf-8")
    assert _snapshot(text)["env"]["CUDA_VISIBLE_DEVICES"] == "5"
    _, codes = _run(text)
    assert codes["program-fault"].severity is Severity.INFO and codes["program-fault"].remediation is None
    assert "pasted-error-unexplained" not in codes


def test_a_mask_set_in_the_programs_own_environ_is_read():
    # https://github.com/InternLM/InternLM-XComposer/issues/361: os.environ["CUDA_VISIBLE_DEVICES"] = "0" on two GPUs
    text = (EXAMPLES / "internlm-xcomposer-361-os-environ-visible-devices-0-two-gpus-invalid-ordinal.txt").read_text(
        encoding="utf-8"
    )
    assert _snapshot(text)["env"]["CUDA_VISIBLE_DEVICES"] == "0"
    _, codes = _run(text)
    assert "program-fault" in codes and "pasted-error-unexplained" not in codes


def test_an_invalid_ordinal_without_a_mask_stays_open():
    # quiet twin: nothing shows how many GPUs the process sees; the cause is not decided
    _, codes = _run("RuntimeError: CUDA error: invalid device ordinal\n")
    assert "program-fault" not in codes and "pasted-error-unexplained" in codes


def test_a_mask_naming_a_gpu_the_machine_lacks_is_the_environments():
    # quiet twin: two GPUs listed, the mask names a sixth: the variable is wrong, not the program's index
    text = (
        "$ nvidia-smi -L\n"
        "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n"
        "GPU 1: NVIDIA GeForce RTX 3090 (UUID: GPU-6e6cb1e7-e44e-3c3d-635e-0f4e9e3c9b88)\n"
        "$ CUDA_VISIBLE_DEVICES=5 python train.py\n"
        "RuntimeError: CUDA error: invalid device ordinal\n"
    )
    _, codes = _run(text)
    assert "program-fault" not in codes


# --- "no GPU found" beside the program's own backend listing the device it initialised -----------------------------

CASE_1554 = next((ROOT / "tests/blind/plans15/cases").glob("1554-*")) / "input.txt"
_GGML_FOUND = "ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"


def test_a_wrappers_no_cuda_beside_ggml_finding_the_gpu_is_no_failure():
    # blind set 15's case 1554: the reporter says the local model does not find CUDA; ggml_cuda_init lists the RTX 4090
    _, codes = _run(CASE_1554.read_text(encoding="utf-8"))
    assert "pasted-error-unexplained" not in codes
    assert not any(f.severity >= Severity.WARNING for f in codes.values())


def test_llamacpps_no_usable_gpu_beside_its_own_cuda_backend_is_no_failure():
    # https://github.com/ggml-org/llama.cpp/issues/22748: the warning printed before the backends load, the RTX 5060 listed
    text = (EXAMPLES / "llamacpp-22748-no-usable-gpu-warning-while-ggml-cuda-finds-rtx5060.txt").read_text(encoding="utf-8")
    kinds, codes = _run(text)
    assert "llama-cpp-no-gpu-device" in kinds
    assert "pasted-error-unexplained" not in codes


def test_the_gpu_unused_beside_ggml_finding_it_stays_open():
    # quiet twin: found, but the reporter says it is not used (layers not offloaded, a setting): not decided here
    _, codes = _run("llama.cpp does not use my GPU, everything runs on the CPU.\n" + _GGML_FOUND)
    assert "pasted-error-unexplained" in codes


def test_not_found_without_the_backends_device_line_stays_open():
    # quiet twin: the same words, and no line of the program's backend listing a device
    _, codes = _run("The local model does not find CUDA after I built llama.cpp with CUDA.\n")
    assert "pasted-error-unexplained" in codes
