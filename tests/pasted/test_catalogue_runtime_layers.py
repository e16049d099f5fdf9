"""The catalogue's runtime layers under the frameworks (src/gpudoctor/parsers/catalogue.toml, h140, issue 28):
onnxruntime's execution providers, TensorRT's engine files, cuFFT's status, NCCL's plugin, verbs and P2P lines, the
container toolkit's hook and device selection, Apptainer's --nv, Slurm's NVML autodetection. Each entry is read on
its real example (the thread named beside it) and asks what decides it; each has a quiet twin, a near line that must
not read as it."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = {
        " ".join(map(str, a.command.argv)) + (" | " + " ".join(map(str, a.command.pipe)) if a.command.pipe else "")
        for a in ask_for(report.facts, report.findings)
    }
    errors = {e["kind"]: dict(e.get("values") or {}) for e in snapshot["pasted"]["errors"]}
    codes = {f.code for f in report.findings if f.severity >= Severity.WARNING}
    return errors, codes, asks


def _example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


# --- onnxruntime ----------------------------------------------------------------------------------------------------


def test_cuda_provider_not_created_asks_for_the_onnxruntime_packages():
    # microsoft/onnxruntime#13264: onnxruntime-gpu 1.12.0 on CentOS 7, the pre-1.19 warning with its requirements link
    errors, codes, asks = _run(_example("ort-13264-centos-ort1120-create-cuda-provider-failed.txt"))
    assert errors["onnxruntime-cuda-provider-not-created"]["entry"] == "onnxruntime-cuda-provider-create-failed"
    assert "pasted-error-unexplained" in codes
    assert "python3 -m pip show onnxruntime onnxruntime-gpu" in asks


def test_the_1_19_warning_naming_its_majors_is_not_the_generic_one():
    # onnxruntime-gpu 1.19's wording names its build's majors: read by onnxruntime-cuda-provider-requires alone
    line = "Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*, and the latest MSVC runtime.\n"
    errors, _, _ = _run(line)
    assert "onnxruntime-cuda-provider-not-created" not in errors
    assert errors["onnxruntime-build-majors"] == {"cudnn": "9", "cuda": "12", "entry": "onnxruntime-cuda-provider-requires"}


def test_tensorrt_provider_not_created_asks_for_tensorrt_where_it_runs():
    # Lednik7/CLIP-ONNX#2: both providers refused, each warning wrapped by the terminal mid-word
    errors, codes, asks = _run(_example("clip-onnx-2-ort-tensorrt-and-cuda-providers-not-created.txt"))
    assert {"onnxruntime-tensorrt-provider-failed", "onnxruntime-cuda-provider-not-created"} <= set(errors)
    assert "pasted-error-unexplained" in codes
    assert "ldconfig -p | grep -i libnvinfer" in asks
    # onnxruntime 1.19's wording (RegisterTensorRTPluginsAsCustomOps in onnxruntime_pybind_state.cc)
    line = (
        "Please install TensorRT libraries as mentioned in the GPU requirements page, make sure they're in the PATH "
        "or LD_LIBRARY_PATH, and that your GPU is supported.\n"
    )
    assert "onnxruntime-tensorrt-provider-failed" in _run(line)[0]


def test_a_build_without_the_cuda_provider_asks_which_onnxruntime_packages_are_installed():
    line = (
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available "
        "providers: 'AzureExecutionProvider, CPUExecutionProvider'\n"
    )
    errors, codes, asks = _run(line)
    assert errors["onnxruntime-no-cuda-provider"]["available"] == "AzureExecutionProvider, CPUExecutionProvider"
    assert "pasted-error-unexplained" in codes
    assert "python3 -m pip show onnxruntime onnxruntime-gpu onnxruntime-directml" in asks


def test_both_onnxruntime_packages_shown_are_the_conflict_not_an_unexplained_warning():
    # s9roll7/animatediff-cli-prompt-travel#206: pip show lists onnxruntime 1.16.1 beside onnxruntime-gpu 1.16.1
    errors, codes, _ = _run(_example("animatediff-206-windows-ort-cpu-and-gpu-both-installed.txt"))
    assert "onnxruntime-no-cuda-provider" in errors
    assert "nvidia-wheels-conflict" in codes and "pasted-error-unexplained" not in codes


def test_another_providers_warning_is_not_a_missing_cuda_provider():
    line = (
        "UserWarning: Specified provider 'OpenVINOExecutionProvider' is not in available provider names.Available "
        "providers: 'AzureExecutionProvider, CPUExecutionProvider'\n"
    )
    errors, codes, _ = _run(line)
    assert "onnxruntime-no-cuda-provider" not in errors and not codes


# --- TensorRT -------------------------------------------------------------------------------------------------------


def test_an_engine_of_another_tensorrt_release_names_both_releases():
    # RootKit-Org/AI-Aimbot#109: an engine built by TensorRT 8.5.3.1, loaded by 8.5.1.7 on Windows
    errors, codes, asks = _run(_example("ai-aimbot-109-windows-trt-engine-8531-on-8517.txt"))
    said = errors["tensorrt-engine-mismatch"]
    assert (said["running"], said["engine"]) == ("8.5.1.7", "8.5.3.1")
    # the engine names its cause (checks/catalogued/engines.py): no longer unexplained, and its asks stay
    assert codes == {"tensorrt-engine-not-portable"}
    assert "python -c import sys, tensorrt; print(sys.executable, tensorrt.__version__, tensorrt.__file__)" in asks


def test_tensorrt_8_and_10_word_it_as_a_version_tag():
    # yuvraj108c/ComfyUI-Dwpose-Tensorrt#5: TensorRT 10's kSERIALIZATION_VERSION assertion, tags 237 and 239
    errors, _, _ = _run(_example("comfyui-dwpose-trt-5-engine-version-tag-237-239.txt"))
    said = errors["tensorrt-engine-mismatch"]
    assert (said["running"], said["engine"], said["entry"]) == ("237", "239", "tensorrt-serialization-version-tag")
    # TensorRT 7's header check (seanavery/yolov5-tensorrt#7)
    line = "[TensorRT] ERROR: coreReadArchive.cpp (38) - Serialization Error in verifyHeader: 0 (Version tag does not match)\n"
    assert "tensorrt-engine-mismatch" in _run(line)[0]


def test_an_engine_built_on_another_gpu_asks_which_gpu_runs_it():
    # NVIDIA/TensorRT#564: an engine built on compute capability 7.5, loaded on a GTX 1060 notebook (6.1)
    errors, codes, asks = _run(_example("tensorrt-564-gtx1060-engine-built-on-compute-75.txt"))
    said = errors["tensorrt-engine-other-gpu"]
    assert (said["running"], said["engine"]) == ("6.1", "7.5")
    # the engine names its cause (checks/catalogued/engines.py): no longer unexplained, and its asks stay
    assert codes == {"tensorrt-engine-not-portable"}
    assert {"nvidia-smi --query-gpu=index,name,compute_cap --format=csv", "printenv CUDA_VISIBLE_DEVICES"} <= asks


def test_an_engine_loaded_is_no_failure():
    errors, codes, _ = _run("[06/26/2023-14:33:11] [TRT] [I] Loaded engine size: 15 MiB\n")
    assert "tensorrt-engine-mismatch" not in errors and not codes


# --- cuFFT ----------------------------------------------------------------------------------------------------------


def test_cufft_internal_error_asks_the_gpus_architecture_and_the_frameworks_cuda():
    # pytorch/pytorch#88038: torch 2.1 nightly built for CUDA 11.7 on an RTX 4090 (compute capability 8.9) under WSL 2
    errors, codes, asks = _run(_example("pytorch-88038-wsl-rtx4090-torch-cu117-cufft-internal-error.txt"))
    assert errors["cuda-library-status"]["status"] == "CUFFT_INTERNAL_ERROR"
    assert "pasted-error-unexplained" in codes
    assert "nvidia-smi --query-gpu=name,compute_cap,memory.used,memory.total --format=csv" in asks


def test_cusolver_handle_failing_asks_the_gpus_memory_and_the_frameworks_cuda():
    # JIA-Lab-research/UVTR#13: torch 1.10.1 (CUDA 11.3), torch.inverse; jaxlib's wording (google-deepmind/alphafold#306)
    errors, codes, asks = _run(_example("uvtr-13-torch1101-cusolver-create-internal-error.txt"))
    assert errors["cuda-library-status"] == {"status": "CUSOLVER_STATUS_INTERNAL_ERROR", "entry": "cusolver-handle-failed"}
    assert "pasted-error-unexplained" in codes
    assert "nvidia-smi --query-gpu=name,compute_cap,memory.used,memory.total --format=csv" in asks
    line = "RuntimeError: jaxlib/cusolver_kernels.cc:44: operation cusolverDnCreate(&handle) failed: cuSolver internal error\n"
    assert _run(line)[0]["cuda-library-status"]["entry"] == "cusolver-handle-failed"
    # a solver's own numerical result is no library failure
    assert "cuda-library-status" not in _run("torch.linalg.solve: The solver failed because the input matrix is singular.\n")[0]


def test_a_programs_own_status_table_is_not_a_cufft_failure():
    errors, codes, _ = _run('    case CUFFT_INTERNAL_ERROR:\n      return "CUFFT_INTERNAL_ERROR";\n')
    assert "cuda-library-status" not in errors and not codes


# --- NCCL -----------------------------------------------------------------------------------------------------------


def test_nccls_plugin_line_is_no_missing_library_beside_the_real_failure():
    # NVIDIA/nccl#1231: NCCL 2.19's "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file ..." (harmless,
    # the maintainers answer) beside the run's real failure, CUDA 802 (an NVSwitch system's fabric manager)
    errors, _, asks = _run(_example("nccl-1231-dlerror-plugin-line-beside-cuda-802.txt"))
    assert "nccl-plugin-absent" in errors and "cuda-system-not-ready" in errors
    assert "library-missing" not in errors
    assert "printenv LD_LIBRARY_PATH" not in asks


def test_a_run_whose_only_nccl_lines_are_info_is_quiet():
    # NCCL 2.18's and 2.21's spellings (NVIDIA/nccl-tests#188, sgl-project/sglang#4289), in a run that completed
    text = (
        "user:852750:852750 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot "
        "open shared object file: No such file or directory\n"
        "node17-2:36748:36748 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared "
        "object file: No such file or directory : when loading libnccl-net.so\n"
        "user:852750:852794 [0] NCCL INFO comm 0x55d2c1a0 rank 0 nranks 8 cudaDev 0 busId 7000 - Init COMPLETE\n"
    )
    errors, codes, _ = _run(text)
    assert "nccl-plugin-absent" in errors and "library-missing" not in errors
    assert not codes


def test_verbs_refusing_to_pin_memory_asks_for_the_locked_memory_limit():
    # NVIDIA/nccl-tests#206: ibv_reg_mr_iova2 failed with ENOMEM; `ulimit -l` was 8192
    errors, codes, asks = _run(_example("nccl-tests-206-ibv-reg-mr-iova2-cannot-allocate-memory.txt"))
    assert errors["nccl-ib-memlock"]["call"] == "ibv_reg_mr_iova2"
    assert "pasted-error-unexplained" in codes
    assert {"sh -c ulimit -l", "grep -r memlock /etc/security/limits.conf /etc/security/limits.d"} <= asks


def test_a_bad_address_from_verbs_is_not_the_memlock_limit():
    # GPUDirect RDMA's registration refused (EFAULT: no peer memory module), a different fault
    line = "misc/ibvwrap.cc:153 NCCL WARN Call to ibv_reg_mr failed with error Bad address\n"
    assert "nccl-ib-memlock" not in _run(line)[0]


def test_p2p_disabled_between_nvlink_gpus_asks_for_the_links_and_the_fabric_manager():
    # NVIDIA/nccl#2329
    errors, codes, asks = _run(_example("nccl-2329-p2p-disabled-nvlink-connected.txt"))
    assert (errors["nccl-p2p-disabled-nvlink"]["gpu"], errors["nccl-p2p-disabled-nvlink"]["other"]) == ("1", "0")
    assert "pasted-error-unexplained" in codes
    assert {"nvidia-smi topo -m", "nvidia-smi nvlink --status", "systemctl status nvidia-fabricmanager"} <= asks


def test_p2p_disabled_over_pcie_is_an_info_line():
    # pytorch/pytorch#130113's INFO lines: NCCL goes on through shared memory
    line = (
        "node155:3052669:3052713 [1] NCCL INFO P2P is disabled between connected GPUs 2 and 1. You can repress this "
        "message with NCCL_IGNORE_DISABLED_P2P=1.\n"
    )
    errors, codes, _ = _run(line)
    assert "nccl-p2p-disabled-nvlink" not in errors and not codes


def test_c10ds_own_reading_of_the_system_error_is_read_alone():
    # NVIDIA/nccl#975: only c10d's second line, "ncclSystemError: System call (e.g. socket, malloc) ..."; before
    # PyTorch 1.13 "(socket, malloc, munmap, etc) failed" (rstrudel/segmenter#60)
    errors, codes, asks = _run(_example("nccl-975-h800-ncclsystemerror-alone.txt"))
    assert errors["nccl-system-error"]["entry"] == "nccl-unhandled-system-error"
    assert "pasted-error-unexplained" in codes and "df -h /dev/shm" in asks
    assert "nccl-system-error" in _run("ncclSystemError: System call (socket, malloc, munmap, etc) failed.\n")[0]
    assert "nccl-system-error" not in _run("ncclInternalError: Internal check failed.\n")[0]


# --- the container toolkit, Apptainer, Slurm ------------------------------------------------------------------------


def test_a_gpu_the_host_lacks_asks_for_the_hosts_gpus():
    # NVIDIA/nvidia-docker#1283: `docker run --gpus 2` on a machine with one GPU
    errors, codes, asks = _run(_example("nvidia-docker-1283-gpus-2-on-one-gpu-unknown-device.txt"))
    assert errors["container-device-unknown"]["device"] == "1"
    assert "pasted-error-unexplained" in codes and "nvidia-smi -L" in asks


def test_a_gpu_entry_the_driver_lacks_asks_for_the_drivers_entries_and_the_clis_release():
    # NVIDIA/nvidia-docker#1316: an Azure VM whose GPU sits at 03f8cfdd:00:00.0, looked for at cfdd:00:00.0
    errors, codes, asks = _run(_example("nvidia-docker-1316-azure-gpu-entry-domain-truncated.txt"))
    assert errors["container-gpu-entry-missing"]["path"] == "/proc/driver/nvidia/gpus/cfdd:00:00.0"
    assert "pasted-error-unexplained" in codes
    assert {"ls /proc/driver/nvidia/gpus", "nvidia-container-cli --version"} <= asks
    # the image shipping the driver's libraries is another mount error, its own entry's
    line = (
        "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/1f2e/merged/usr/lib/"
        "x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown\n"
    )
    assert "container-gpu-entry-missing" not in _run(line)[0]


def test_the_hooks_debug_lines_are_no_unknown_device():
    line = "I0318 10:12:53.220661 11514 nvc_info.c:853] requesting device information with ''\n"
    assert "container-device-unknown" not in _run(line)[0]


def test_the_runtime_hook_missing_asks_which_toolkit_packages_are_installed():
    # NVIDIA/nvidia-docker#958: docker run --runtime=nvidia with no nvidia-container-runtime-hook on PATH
    errors, codes, asks = _run(_example("nvidia-docker-958-runtime-hook-not-in-path.txt"))
    assert "container-hook-missing" in errors and "pasted-error-unexplained" in codes
    assert {"dpkg -l | grep -i nvidia-container", "which nvidia-container-runtime-hook nvidia-ctk"} <= asks


def test_a_program_missing_inside_the_container_is_not_the_hook():
    # NVIDIA/nvidia-docker#457: the image has no nvidia-smi of its own
    line = 'container_linux.go:262: starting container process caused "exec: \\"nvidia-smi\\": executable file not found in $PATH".\n'
    assert "container-hook-missing" not in _run(line)[0]


def test_apptainer_and_singularity_word_the_libraries_apart():
    # sylabs/singularity#776: Singularity 3.x's "Could not find any NVIDIA libraries on this host!"
    errors, codes, asks = _run(_example("singularity-776-nvidia-libraries-not-found.txt"))
    assert "apptainer-nv-files-missing" in errors and "pasted-error-unexplained" in codes
    assert "ldconfig -p | grep -E libnvidia-ml|libcuda" in asks
    # Apptainer's own (internal/pkg/runtime/launch/launcher_linux.go); its 32-bit libraries (--compat32) are another matter
    assert "apptainer-nv-files-missing" in _run("WARNING: Could not find any nv libraries on this host!\nno GPU found\n")[0]
    assert "apptainer-nv-files-missing" not in _run("WARNING: Could not find any 32-bit nv libraries on this host!\n")[0]


def test_slurm_without_nvml_asks_the_administrator_for_the_plugin_and_the_library():
    # NVIDIA/deepops#1214: gres.conf's AutoDetect=nvml with a Slurm built without NVML
    errors, codes, asks = _run(_example("deepops-1214-autodetect-nvml-slurm-built-without.txt"))
    assert "slurm-nvml-unavailable" in errors and "pasted-error-unexplained" in codes
    assert "ldconfig -p | grep libnvidia-ml" in asks
    # AMD's counterpart in the same function of src/interfaces/gpu.c is not NVML's
    assert "slurm-nvml-unavailable" not in _run("slurmd: Configured with rsmi, but that lib wasn't found.\n")[0]
