"""NCCL's and the CUDA runtime's failures whose asks decide them (h219): error 802 in the form CuPy prints it, THC's own
'THCudaCheck FAIL' line of an unspecified launch failure, NCCL's P2P transport refusing two GPUs, and NCCL's topology
missing the GPU's PCI path in /sys (WSL 2). Each on the blind case that showed it, cited by path, and on another real
report; each with a quiet twin that must not fire."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = TESTS / "pasted" / "catalogue_examples"


def _case(prefix: str) -> str:
    return (next((TESTS / "blind" / "plans15" / "cases").glob(prefix + "-*")) / "input.txt").read_text(encoding="utf-8")


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = {tuple(map(str, a.command.argv)) + tuple(a.command.pipe) for a in ask_for(report.facts, report.findings)}
    kinds = {e["kind"] for e in snapshot["pasted"]["errors"]}
    return kinds, {f.code for f in report.findings}, asks


def _argvs(asks) -> set[tuple[str, ...]]:
    return {a[:4] for a in asks}


def test_system_not_ready_as_cupy_prints_it_asks_for_the_fabric_manager_not_cupy_again():
    # tests/blind/plans15/cases/1509-* (CuPy's show_config failing, its line cut at "system not"), and JAX's driver API
    # form (https://github.com/jax-ml/jax/issues/24866: "CUDA_ERROR_SYSTEM_NOT_READY: system not yet initialized")
    jax = (
        "2024-11-12 15:37:25.005059: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to cuInit: "
        "INTERNAL: CUDA error: Failed call to cuInit: CUDA_ERROR_SYSTEM_NOT_READY: system not yet initialized\n"
    )
    for text in (_case("1509"), jax):
        kinds, codes, asks = _run(text)
        assert "cuda-system-not-ready" in kinds
        assert "pasted-error-unexplained" in codes
        assert {("systemctl", "status", "nvidia-fabricmanager"), ("nvidia-smi", "topo", "-m")} <= _argvs(asks)
    # the command that failed is not asked for again: show_config makes the same refused CUDA call
    _, _, asks = _run(_case("1509"))
    assert not any("cupy.show_config()" in " ".join(a) for a in asks)


def test_the_error_name_in_a_programs_own_code_is_no_failure():
    kinds, _, asks = _run("if (err == cudaErrorSystemNotReady) { sleep(1); continue; }\n")
    assert "cuda-system-not-ready" not in kinds
    assert not any(a[:1] == ("systemctl",) for a in asks)


def test_thcudacheck_unspecified_launch_failure_asks_for_the_kernel_log_and_a_synchronous_run():
    # tests/blind/plans15/cases/1518-* (its traceback cut short), and Lua Torch's THC
    # (https://github.com/karpathy/neuraltalk2/issues/127, the same line after thousands of iterations)
    lua = (
        "THCudaCheck FAIL file=/tmp/luarocks_cutorch-scm-1-6961/cutorch/lib/THC/generic/THCStorage.c line=147 "
        "error=4 : unspecified launch failure\n"
    )
    for text in (_case("1518"), lua):
        kinds, codes, asks = _run(text)
        assert "cuda-launch-failure" in kinds
        assert "pasted-error-unexplained" in codes
        assert any(a[:2] == ("sudo", "dmesg") for a in asks)
    _, _, asks = _run(_case("1518"))
    assert ("export", "CUDA_LAUNCH_BLOCKING=1") in asks


def test_thcudacheck_of_another_error_is_not_a_launch_failure():
    kinds, _, _ = _run("THCudaCheck FAIL file=/pytorch/aten/src/THC/generic/THCStorage.cu line=58 error=2 : out of memory\n")
    assert "cuda-launch-failure" not in kinds


def test_nccl_p2p_transport_failure_asks_for_the_topology_and_a_run_without_p2p():
    # tests/blind/plans15/cases/1519-* (the WARN cut at "failed to ope") and the catalogue's example
    # (ray-project/ray_lightning issue 24: 217 peer access is not supported)
    example = (EXAMPLES / "ray-lightning-24-nccl-p2p-ipc-217-peer-access.txt").read_text(encoding="utf-8")
    for text in (_case("1519"), example):
        kinds, codes, asks = _run(text)
        assert "nccl-p2p-failed" in kinds
        assert {("nvidia-smi", "topo", "-m"), ("nvidia-smi", "topo", "-p2p", "r")} <= _argvs(asks)
        # (beside NCCL's "unhandled cuda error", whose own ask exports the same variable alone)
        assert any(a[:1] == ("export",) and "NCCL_P2P_DISABLE=1" in a for a in asks)


def test_nccls_p2p_channel_info_line_is_no_failure():
    line = "host:1:2 [0] NCCL INFO Channel 00 : 0[2d000] -> 1[2e000] via P2P/IPC\nhost:1:2 [0] NCCL INFO Connected all rings\n"
    kinds, _, asks = _run(line)
    assert "nccl-p2p-failed" not in kinds
    assert ("nvidia-smi", "topo", "-p2p", "r") not in asks


def test_nccl_topology_without_the_gpus_pci_path_asks_whether_this_is_wsl2():
    # tests/blind/plans15/cases/1524-* (NCCL 2.8.3 on WSL 2) and the catalogue's example (NVIDIA/nccl issue 573:
    # NCCL 2.7.8 on WSL 2)
    example = (EXAMPLES / "nccl-573-wsl2-nccl-278-could-not-find-real-path-pci-bus.txt").read_text(encoding="utf-8")
    for text in (_case("1524"), example):
        kinds, _, asks = _run(text)
        assert "nccl-gpu-pci-path-missing" in kinds
        assert {("uname", "-r"), ("ls", "-l", "/sys/class/pci_bus")} <= asks


def test_an_infiniband_devices_real_path_is_not_the_gpus():
    # NCCL's IB transport prints the same words for an HCA's sysfs path (src/transport/net_ib/init.cc): not the GPU's
    line = "node:1:2 [0] NCCL WARN Could not find real path of mlx5_0 (/sys/class/infiniband/mlx5_0/device)\n"
    kinds, _, _ = _run(line)
    assert "nccl-gpu-pci-path-missing" not in kinds


def _nccl_wsl_finding(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    return next((f for f in report.findings if f.code == "nccl-too-old"), None)


def test_an_nccl_older_than_its_wsl2_support_failing_in_wsl2_is_built_anew():
    # tests/blind/plans15/cases/1524-* (NCCL 2.8.3, nccl-tests) and NVIDIA/nccl issue 573 (NCCL 2.7.8, the example)
    example = (EXAMPLES / "nccl-573-wsl2-nccl-278-could-not-find-real-path-pci-bus.txt").read_text(encoding="utf-8")
    for text, version in ((_case("1524"), "2.8.3"), (example, "2.7.8")):
        f = _nccl_wsl_finding(text)
        assert f is not None and f.severity.name == "ERROR"
        assert version in f.title
        argvs = [tuple(map(str, c.argv)) for c in f.remediation.commands if hasattr(c, "argv")]
        assert ("git", "clone", "--branch", "v2.11.4-1", "--depth", "1", "https://github.com/NVIDIA/nccl.git") in argvs
        assert ("make", "-C", "nccl", "-j", "src.build", "CUDA_HOME=/usr/local/cuda") in argvs
        assert any(getattr(c, "name", None) == "LD_LIBRARY_PATH" for c in f.remediation.commands)


def test_an_nccl_with_wsl2_support_or_outside_wsl_is_not_judged_too_old():
    # the same failure beside a release that supports WSL 2, and an old release's failure on a Linux host (a container
    # or VM hiding /sys: the catalogue's asks decide it)
    case = _case("1524")
    newer = case.replace("NCCL version 2.8.3+cuda11.1", "NCCL version 2.11.4+cuda11.4")
    assert "2.8.3" not in newer
    assert _nccl_wsl_finding(newer) is None
    example = (EXAMPLES / "nccl-573-wsl2-nccl-278-could-not-find-real-path-pci-bus.txt").read_text(encoding="utf-8")
    host = example.split("\nI use wsl2")[0]
    assert "wsl" not in host.lower()
    assert _nccl_wsl_finding(host) is None


_FIND_LIBCUDA = ("find", "/", "-xdev", "-name", "libcuda.so*")


def test_cudnn_failing_to_open_the_unversioned_libcuda_asks_for_every_copy_on_the_machine():
    # tests/blind/plans15/cases/1521-* (Ubuntu 22.04, torch 1.12's cuDNN 8) and OpenTalker/SadTalker issue 323
    # (https://github.com/OpenTalker/SadTalker/issues/323: the same line, aborted with a core dump, on Linux)
    sadtalker = (
        "landmark Det::   0%|                                      | 0/1 [00:00<?, ?it/s]Could not load library "
        "libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file or directory\n"
        "Please make sure libcudnn_cnn_infer.so.8 is in your library path!\n"
    )
    for text in (_case("1521"), sadtalker):
        _, _, asks = _run(text)
        assert _FIND_LIBCUDA in asks
        assert ("ldconfig", "-p", "grep", "libcuda") in asks


def test_a_missing_libcuda_in_wsl2_or_another_missing_library_asks_no_search_for_libcuda():
    line = (
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such "
        "file or directory\n"
    )
    _, _, asks = _run("Ubuntu 22.04 on WSL2 (Windows 11)\n" + line)
    assert _FIND_LIBCUDA not in asks
    assert ("ls", "-l", "/usr/lib/wsl/lib") in asks  # WSL 2's libcuda is Windows', asked where it lives
    other = line.replace("Error: libcuda.so:", "Error: libcudnn_ops_infer.so.8:")
    _, _, asks = _run(other)
    assert _FIND_LIBCUDA not in asks


def test_no_fabric_manager_ask_where_every_gpu_shown_is_of_a_line_no_nvswitch_system_holds():
    # AlphaFold 3's thread (tests/blind/plans17/cases/1739-*): cuInit's CUDA_ERROR_NO_DEVICE on an RTX A5000 node; and
    # XLA's cuInit line (the form of tests/blind/pasted/cases/022-*) beside `nvidia-smi -L` naming a GeForce (written
    # here: no other recorded report pairs the two): no NVSwitch, no fabric manager
    text = (next((TESTS / "blind" / "plans17" / "cases").glob("1739-*")) / "input.txt").read_text(encoding="utf-8")
    _, _, asks = _run(text)
    assert ("printenv", "CUDA_VISIBLE_DEVICES") in asks
    assert not any("nvidia-fabricmanager" in a for a in asks)
    line = (
        "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to cuInit: INTERNAL: CUDA error: "
        "Failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )
    _, _, asks = _run("GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5f3c1c4e-1111-2222-3333-444455556666)\n" + line)
    assert not any("nvidia-fabricmanager" in a for a in asks)
    # quiet twin: the same line with no GPU shown, or beside an A100, keeps the ask (an HGX board may hold it)
    assert ("systemctl", "status", "nvidia-fabricmanager") in _run(line)[2]
    a100 = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5f3c1c4e-1111-2222-3333-444455556666)\n"
    assert ("systemctl", "status", "nvidia-fabricmanager") in _run(a100 + line)[2]
