"""Issues 27/28: containers, Kubernetes, Slurm and WSL as the paste shows them, and the driver's own version facts.

Each test is a minimal paste, its lines as the tools print them, and asserts data: finding codes, argv, fields.
"""

from __future__ import annotations

import json

from tests.hostile.test_corpus import run_cli


def _check(tmp_path, text: str) -> dict:
    paste = tmp_path / "issue.txt"
    paste.write_text(text + "\n", encoding="utf-8")
    _, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    return json.loads(out)


def _codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"]]


def _argv(doc: dict) -> list[list[str]]:
    return [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"]]


def _asked(doc: dict) -> list[list[str]]:
    return [a["argv"] for a in doc["pasted"]["ask_for"]]


# --- the driver's two versions, as the mismatch message states them --------------------------------------------

# TensorFlow's cuda_diagnostics prints both halves as three numbers ("515.48.7" is the driver 515.48.07).
LIBCUDA_OLDER = "kernel version 515.48.7 does not match DSO version 510.73.5 -- cannot find working devices in this configuration"


def test_libcuda_mismatch_states_both_versions_and_which_side_is_stale(tmp_path):
    doc = _check(tmp_path, LIBCUDA_OLDER)
    (finding,) = [f for f in doc["findings"] if f["code"] == "driver-library-mismatch"]
    assert finding["detail"].startswith("Kernel module 515.48.07, library 510.73.05: the libraries are older")
    # the module is the newer side: a reboot alone is not the fix, the module on disk is compared first
    assert ["modinfo", "-F", "version", "nvidia"] in _argv(doc)
    # the message named the loaded module: /proc/driver/nvidia/version is not asked again
    assert ["cat", "/proc/driver/nvidia/version"] not in _asked(doc)


def test_image_own_libcuda_is_fixed_in_the_image_not_on_the_host(tmp_path):
    # nvidia-smi inside the container answers with the host's 440.36 (the toolkit mounted the host's NVML), while
    # the libcuda that failed is 440.33.01: a copy the image carries.
    text = "\n".join(
        (
            "inside the container:",
            "E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_diagnostics.cc:313] kernel version 440.36.0 "
            "does not match DSO version 440.33.1 -- cannot find working devices in this configuration",
            "(base) [docker@4d16b48b1a22 ~]$ nvidia-smi",
            "+-----------------------------------------------------------------------------+",
            "| NVIDIA-SMI 440.36       Driver Version: 440.36       CUDA Version: 10.2     |",
            "|-------------------------------+----------------------+----------------------+",
        )
    )
    doc = _check(tmp_path, text)
    (finding,) = [f for f in doc["findings"] if f["code"] == "driver-library-mismatch"]
    assert finding["detail"].startswith("Kernel module 440.36, library 440.33.01:")
    assert finding["remediation"]["where"] == "the image"
    argv = _argv(doc)
    assert ["find", "/", "-xdev", "-name", "libcuda.so*"] in argv
    assert not any("reboot" in a for a in argv) and not any(a[:2] == ["docker", "commit"] for a in argv)


# --- a compose service or pod given no GPU ------------------------------------------------------------------------

INSUFFICIENT = "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version"
COMPOSE_NO_GPU = """\
services:
  whisper:
    image: lscr.io/linuxserver/faster-whisper:gpu
    environment:
      - PUID=1000
    restart: unless-stopped
"""
COMPOSE_GPU = COMPOSE_NO_GPU.replace(
    "    restart: unless-stopped\n",
    "    deploy:\n      resources:\n        reservations:\n          devices:\n            - driver: nvidia\n"
    "              count: all\n              capabilities: [gpu]\n",
)


def test_compose_service_without_gpu_request_is_fixed_in_the_compose_file(tmp_path):
    doc = _check(tmp_path, COMPOSE_NO_GPU + "\n" + INSUFFICIENT)
    assert _codes(doc) == ["container-no-gpu"]
    (step,) = doc["plan"]["steps"]
    assert step["component"] == "container"
    assert _argv(doc) == [
        ["docker", "compose", "up", "-d", "--force-recreate", "whisper"],
        ["docker", "compose", "exec", "whisper", "nvidia-smi"],
    ]
    assert "capabilities: [gpu]" in doc["findings"][0]["remediation"]["summary"]


def test_compose_service_with_a_gpu_request_is_not_called_gpu_less(tmp_path):
    doc = _check(tmp_path, COMPOSE_GPU + "\n" + INSUFFICIENT)
    assert "container-no-gpu" not in _codes(doc)


def test_compose_log_prefix_says_the_service_has_no_gpu_while_the_host_driver_works(tmp_path):
    text = "\n".join(
        (
            "ollama  | 2023/12/22 00:17:24 routes.go:915: warning: gpu support may not be enabled, check that you have "
            "installed GPU drivers: nvidia-smi command failed",
            "ollama  | 2023/12/22 00:13:33 llama.go:407: skipping accelerated runner because num_gpu=0",
            "$ nvidia-smi",
            "| NVIDIA-SMI 545.29.04              Driver Version: 546.17       CUDA Version: 12.3     |",
        )
    )
    doc = _check(tmp_path, text)
    assert _codes(doc) == ["container-no-gpu"]
    assert ["docker", "compose", "up", "-d", "--force-recreate", "ollama"] in _argv(doc)


POD_NO_GPU = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  containers:
    - name: trainer
      image: nvcr.io/nvidia/pytorch:24.05-py3
      command: ["python", "train.py"]
  restartPolicy: Never
"""


def test_pod_container_without_gpu_limit_is_fixed_in_the_pod_spec(tmp_path):
    doc = _check(tmp_path, POD_NO_GPU + "\nRuntimeError: CUDA error: no CUDA-capable device is detected")
    assert _codes(doc) == ["container-no-gpu"]
    (finding,) = doc["findings"]
    assert "nvidia.com/gpu: 1" in finding["remediation"]["summary"]
    argv = _argv(doc)
    # the manifest's file and the new pod's name are the person's: the apply and exec are prose, the pods are listed
    assert argv == [["kubectl", "get", "pods", "-A", "-o", "wide"]]
    assert "kubectl apply -f <manifest>" in finding["remediation"]["summary"]


def test_pod_said_in_words_with_a_new_host_driver_and_insufficient_is_the_gpu_request(tmp_path):
    text = "\n".join(
        (
            "I'm running the faster-whisper:gpu container within my k8s cluster.",
            INSUFFICIENT,
            " NVIDIA-SMI 550.144.03             Driver Version: 550.144.03     CUDA Version: 12.4 ",
        )
    )
    doc = _check(tmp_path, text)
    assert _codes(doc) == ["container-no-gpu"]
    argv = _argv(doc)
    assert argv == [["kubectl", "get", "runtimeclass"], ["kubectl", "get", "pods", "-A", "-o", "wide"]]
    assert not any("apt-get" in a or "reboot" in a for a in argv)


# --- a Kubernetes node whose containerd default runtime is runc -------------------------------------------------

CONTAINERD = """\
$ kubectl describe node srv02 | grep Capacity -A 3
Capacity:
  cpu:                48
  pods:               110
$ lspci | grep -i nvidia
3b:00.0 3D controller: NVIDIA Corporation TU104GL [Tesla T4] (rev a1)
$ sudo cat /etc/containerd/config.toml
    [plugins."io.containerd.cri.v1.runtime".containerd]
      default_runtime_name = "runc"
        [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia]
          runtime_type = "io.containerd.runc.v2"
"""


def test_containerd_default_runtime_runc_on_a_kubernetes_node_is_set_to_nvidia(tmp_path):
    doc = _check(tmp_path, CONTAINERD)
    # lspci alone shows the GPU on the bus, not a missing driver: nothing of the driver was pasted
    assert _codes(doc) == ["container-no-gpu"]
    (step,) = doc["plan"]["steps"]
    # nothing shows the NVIDIA Container Toolkit's release, and containerd's configure needs 1.14 (planner/tool_floors.py)
    assert [c["argv"] for c in step["commands"]][:3] == [
        ["nvidia-ctk", "--version"],
        ["nvidia-ctk", "runtime", "configure", "--runtime=containerd", "--set-as-default"],
        ["systemctl", "restart", "containerd"],
    ]
    assert doc["findings"][0]["remediation"]["where"] == "the node"


def test_containerd_default_nvidia_is_quiet(tmp_path):
    doc = _check(tmp_path, CONTAINERD.replace('"runc"', '"nvidia"'))
    assert "container-no-gpu" not in _codes(doc) and "driver-missing" not in _codes(doc)


# --- WSL 2: libcuda loaded from a Linux driver package's directory ---------------------------------------------


def test_wsl_libcuda_from_a_linux_driver_package_path_is_removed_with_its_package(tmp_path):
    text = "\n".join(
        (
            "Cuda works fine in PyTorch on my WSL 2 (Windows 11 + 22.04.2 LTS) install but it doesn't work for numba.",
            "numba.cuda.cudadrv.driver.CudaAPIError: [100] Call to cuInit results in CUDA_ERROR_NO_DEVICE",
            "AttributeError: /lib/x86_64-linux-gnu/libcuda.so: undefined symbol: undef",
        )
    )
    doc = _check(tmp_path, text)
    assert _codes(doc) == ["wsl-linux-driver-installed"]
    argv = _argv(doc)
    # the package's name is what `dpkg -S` says of the file the text names (or `dpkg -l` lists): its removal (and the
    # cache's refresh after it) is prose until then
    assert argv == [["dpkg", "-S", "/lib/x86_64-linux-gnu/libcuda.so"], ["dpkg", "-l"]]
    (finding,) = doc["findings"]
    assert "apt-get remove --purge <package>" in finding["remediation"]["summary"]


def test_wsl_libcuda_from_wsl_lib_is_not_called_a_linux_driver(tmp_path):
    text = "\n".join(
        (
            "I'm on WSL 2 with Ubuntu 22.04.",
            "AttributeError: /usr/lib/wsl/lib/libcuda.so: undefined symbol: undef",
        )
    )
    assert "wsl-linux-driver-installed" not in _codes(_check(tmp_path, text))


# --- the scheduler finds no node with the GPUs a pod asks for ---------------------------------------------------

POD_FOUR_GPUS = """\
It always output 0/3 nodes are available: 3 insufficient nvidia.com/gpu!
apiVersion: v1
kind: Pod
spec:
  containers:
    - name: cuda-container
      image: nvidia/cuda:9.0-devel
      resources:
        limits:
          nvidia.com/gpu: 2
    - name: digits-container
      image: nvidia/digits:6.0
      resources:
        limits:
          nvidia.com/gpu: 2
"""


def test_insufficient_nvidia_gpu_asks_what_the_nodes_advertise_and_prescribes_nothing(tmp_path):
    doc = _check(tmp_path, POD_FOUR_GPUS)
    assert _codes(doc) == ["pasted-error-unexplained"]  # the paste cannot decide: no driver, no container-no-gpu
    assert doc["plan"]["steps"] == []
    assert ["kubectl", "describe", "nodes"] in [a[:3] for a in _asked(doc)]
    gpus = [dict(e["values"]) for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "workload-gpus"]
    assert [g["gpus"] for g in gpus] == ["2", "2"]


# --- a Slurm job that requests fewer GPUs than its program asks ---------------------------------------------------

SLURM = """\
pytorch_lightning.utilities.exceptions.MisconfigurationException:
pl.Trainer(gpus=2, num_nodes=1, accelerator="ddp")
#!/bin/bash
#SBATCH --gres=gpu:p6000:1
#SBATCH --ntasks-per-node=2
srun python slurm_test.py
"""


def test_slurm_job_requesting_fewer_gpus_than_the_trainer_is_fixed_in_the_job_script(tmp_path):
    doc = _check(tmp_path, SLURM)
    assert _codes(doc) == ["requirement-unmet"]
    argv = _argv(doc)
    # the job script's file is not named: sbatch and the check after it are prose, the job's questions are asked
    assert argv == [["nvidia-smi"], ["printenv", "SLURM_JOB_ID"], ["env"]]
    assert "sbatch <job-script>" in doc["findings"][0]["remediation"]["summary"]
    assert "#SBATCH --gres=gpu:p6000:2" in doc["findings"][0]["remediation"]["summary"]


def test_slurm_job_with_enough_gpus_is_quiet(tmp_path):
    doc = _check(tmp_path, SLURM.replace("p6000:1", "p6000:2"))
    assert "requirement-unmet" not in _codes(doc)


def test_a_deployment_pods_prompt_with_no_device_asks_the_pod_spec_by_its_name(tmp_path):
    text = "\n".join(
        (
            "root@test2222-7dcd6b94b7-wl6w4:/vllm-workspace# python3 -c 'import torch; torch.cuda.init()'",
            "RuntimeError: CUDA error: no CUDA-capable device is detected",
        )
    )
    doc = _check(tmp_path, text)
    assert _codes(doc) == ["container-no-gpu"]
    argv = _argv(doc)
    assert argv[0] == ["kubectl", "get", "runtimeclass"]
    assert argv[1][:4] == ["kubectl", "get", "pod", "test2222-7dcd6b94b7-wl6w4"]
    assert argv[2] == ["kubectl", "get", "pods", "-A", "-o", "wide"]  # the new pod's name, for the exec after it


def test_an_ordinary_host_name_is_not_a_pod(tmp_path):
    text = "\n".join(
        (
            "user@gpu-server-01:~$ python3 -c 'import torch; torch.cuda.init()'",
            "RuntimeError: CUDA error: no CUDA-capable device is detected",
        )
    )
    assert "container-no-gpu" not in _codes(_check(tmp_path, text))


# --- where a service's log is: the container's, the job's, or its systemd unit's ---------------------------------


def test_a_service_in_a_container_is_asked_for_its_container_log_not_its_systemd_unit(tmp_path):
    text = "I run ollama via docker image with the gpus-all flag on WSL. Still it does not utilise my Nvidia GPU."
    asked = _asked(_check(tmp_path, text))
    assert ["docker", "ps", "-a"] in asked  # the container's name, which its log needs, is not in the text
    assert not any(a[:1] == ["journalctl"] for a in asked)


def test_a_slurm_job_is_asked_every_variable_that_selects_gpus_and_no_systemd_unit(tmp_path):
    text = "\n".join(
        (
            "$ srun -p gpu --gres=gpu:1 ./start_ollama.sh",
            "SLURM Job ID: 540347",
            "load_backend: loaded CPU backend from /usr/lib/ollama/libggml-cpu-haswell.so (ollama never uses CUDA)",
        )
    )
    asked = _asked(_check(tmp_path, text))
    assert ["env"] in asked  # piped through grep -E 'VISIBLE_DEVICES|GPU_DEVICE_ORDINAL'
    assert ["printenv", "CUDA_VISIBLE_DEVICES"] not in asked
    assert not any(a[:1] == ["journalctl"] for a in asked)


# --- GKE: the node's driver libraries under /usr/local/nvidia/lib64 ---------------------------------------------


def test_gke_pod_with_error_803_puts_the_nodes_driver_libraries_on_the_path(tmp_path):
    text = "\n".join(
        (
            "I am deploying a model with vllm on GKE. My node is running driver 575.57.08.",
            "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 803: system has "
            "unsupported display driver / cuda driver combination",
        )
    )
    doc = _check(tmp_path, text)
    assert _codes(doc) == ["driver-library-mismatch"]
    (step,) = doc["plan"]["steps"]
    argv = [c["argv"] for c in step["commands"]]
    # the deployment's name is not in the text: the deployments are listed, the kubectl set env is prose
    assert argv[1] == ["kubectl", "get", "deployments", "-A"]
    assert "kubectl set env <deployment> LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib" in step["summaries"][0]
    assert step["alternatives"] == [] and not any("reboot" in a for a in argv)


# --- WSL 2: a container whose CUDA sees no device while nvidia-smi works ---------------------------------------


def test_wsl_container_cut_mid_command_is_asked_in_its_image_and_which_libcuda_it_resolves(tmp_path):
    text = "\n".join(
        (
            "Ubuntu 22.04 on WSL2",
            "When running in a container, tensorflow reports no GPU is found.",
            "$ docker run -it --rm --gpus all tensorflow/tensorflow:latest-gpu \\",
            '    python -c \'import tensorflow as tf; gpus = tf.config.list_physical_devices("GPU"); prin',
            "it still reports the same error CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
        )
    )
    doc = _check(tmp_path, text)
    (finding,) = doc["findings"]
    assert finding["code"] == "pasted-error-unexplained"
    assert "no CUDA-capable device" in finding["title"]
    asked = _asked(doc)
    assert [
        "docker",
        "run",
        "--rm",
        "--gpus",
        "all",
        "--entrypoint",
        "ldconfig",
        "tensorflow/tensorflow:latest-gpu",
        "-p",
    ] in asked
    # TensorFlow is never asked about in the WSL distribution's python3 (in its image it is the general probe of the
    # build, the first left out past the cap: gpudoctor.pasted.ask._capped, tests/pasted/test_asks_decide_once.py)
    assert not [a for a in asked if a[0] in ("python", "python3")]


def test_a_compose_file_where_another_service_has_the_gpu_is_not_called_gpu_less(tmp_path):
    both = COMPOSE_GPU + "  db:\n    image: postgres:16\n"
    assert "container-no-gpu" not in _codes(_check(tmp_path, both + "\n" + INSUFFICIENT))


def test_wsl_linux_driver_package_in_backticks_is_removed_by_its_name(tmp_path):
    text = "I'm on WSL 2. I ran `sudo apt install nvidia-utils-510` and now nvidia-smi fails: GPU access blocked by the operating system"
    doc = _check(tmp_path, text)
    assert "wsl-linux-driver-installed" in _codes(doc)
    assert ["apt-get", "remove", "--purge", "nvidia-utils-510"] in _argv(doc)
