"""Containers in pasted reports: NCCL's shared memory in a pod or a docker container, docker's `--gpus 0`."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Placeholder
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

NCCL_SHM = (
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled "
    "system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
    "Last error:\n"
    "Error while creating shared memory segment /dev/shm/nccl-F9ffgB (size 9637888)\n"
)


def _codes(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return {f.code: f for f in report.findings}


def _argv(f) -> list[tuple]:
    return [tuple(str(a) if isinstance(a, Placeholder) else a for a in c.argv) for c in f.remediation.commands]


def test_nccl_shm_segment_in_a_pod_mounts_a_memory_emptydir_at_dev_shm():
    codes = _codes(
        NCCL_SHM + "When I check shm size in the deployment pod it only has 64MB:\nkubectl exec -it x -- df -h /dev/shm\n"
    )
    f = codes["shm-too-small"]
    argv = _argv(f)
    assert argv[0] == ("kubectl", "get", "pods", "-o", "wide")
    assert ("kubectl", "edit", "<workload>") in argv
    assert not any("docker" in a for a in argv)
    assert f.remediation.where == "the cluster"
    assert "pasted-error-unexplained" not in codes


# NCCL 2.9's form (src/include/shm.h): the segment named without its folder, after posix_fallocate's ENOSPC
NCCL29_SHM = (
    "[1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\n"
    "[1] NCCL INFO include/shm.h:41 -> 2\n"
    "[1] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-0a1b2c3d4e5f6071-1-0-1 "
    "(size 9637888)\n"
)


def test_nccl29_posix_fallocate_in_a_kubeflow_job_gives_the_pod_a_memory_dev_shm():
    f = _codes("Our PyTorchJob runs through Kubeflow on a node with 2 GPUs and fails:\n" + NCCL29_SHM)["shm-too-small"]
    argv = _argv(f)
    assert ("kubectl", "exec", "<pod>", "--", "df", "-h", "/dev/shm") in argv
    assert ("kubectl", "edit", "<workload>") in argv
    assert not any("docker" in a for a in argv)


def test_nccl29_posix_fallocate_in_docker_recreates_the_container_with_ipc_host():
    f = _codes("docker run --gpus all -it nvcr.io/nvidia/pytorch:21.06-py3 bash\n" + NCCL29_SHM)["shm-too-small"]
    assert _argv(f)[0][:3] == ("docker", "run", "--ipc=host")


def test_posix_fallocate_failing_on_another_path_is_not_nccls_shared_memory():
    codes = _codes("fallocate: posix_fallocate failed: No space left on device\nwriting /data/cache.bin\n")
    assert "shm-too-small" not in codes


def test_nccl_shm_segment_in_docker_recreates_the_reporters_container_with_ipc_host():
    codes = _codes(NCCL_SHM + "docker run --gpus all --rm -it video-diffusion /bin/bash\n")
    argv = _argv(codes["shm-too-small"])
    assert argv[0] == ("docker", "run", "--ipc=host", "--gpus", "all", "--rm", "-it", "video-diffusion", "/bin/bash")


def test_nccl_attaching_to_a_segment_is_not_read_as_dev_shm_too_small():
    # "attaching to" is a peer's segment gone (another cause, vllm-project/vllm#18831): not the size of /dev/shm.
    codes = _codes(
        "NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-glnlGK (size 14156128), error: No such "
        "file or directory (2)\n"
    )
    assert "shm-too-small" not in codes


def test_docker_run_gpus_0_asks_for_no_gpu_and_is_given_back_with_gpus_all():
    codes = _codes(
        'I run `docker run -it --rm --name app --gpus 0 -p 8188:8188 -e CLI_ARGS="" some/image:cu124 /bin/bash`\n'
        "and it says no NVIDIA GPU found\n"
    )
    f = codes["container-no-gpu"]
    argv = _argv(f)
    assert argv[0] == (
        "docker", "run", "-it", "--rm", "--name", "app", "--gpus", "all", "-p", "8188:8188", "-e", "CLI_ARGS=",
        "some/image:cu124", "/bin/bash",
    )  # fmt: skip
    assert argv[1] == ("docker", "exec", "<container>", "nvidia-smi")


def test_a_gpu_by_index_or_a_count_above_zero_is_not_read_as_zero_gpus():
    for gpus in ("--gpus '\"device=0\"'", "--gpus device=0", "--gpus 2", "--gpus=1", "--gpus all"):
        snapshot = read_pasted([Source("t", f"docker run --rm {gpus} nvidia/cuda:12.4.0-base nvidia-smi\n")])
        kinds = [e["kind"] for e in snapshot["pasted"]["errors"]]
        assert "docker-run-gpus-zero" not in kinds, gpus


def test_a_docker_run_with_shell_quoting_beyond_plain_values_is_not_given_back():
    # a quoted value with a space, or a single-quoted one, stays the reporter's to retype
    for line in ('docker run --gpus 0 -e "A=b c" img', "docker run --gpus 0 -e 'A=b' img"):
        snapshot = read_pasted([Source("t", line + "\n")])
        said = [e for e in snapshot["pasted"]["errors"] if e["kind"] == "docker-run-said"]
        assert said and not said[0].get("values", {}).get("args"), line


def test_slurm_nodevfiles_is_a_job_without_gres_fixed_by_asking_for_gpus():
    codes = _codes(
        "srun: error: node7: task 0: Exited with exit code 1\nValueError: invalid literal for int() with base 10: 'NoDevFiles'\n"
    )
    f = codes["cuda-visible-devices-hides-all"]
    assert _argv(f) == [
        ("scontrol", "show", "job", "<job-id>"),  # the allocation first: the job may not want GPUs
        ("srun", "--gres=gpu:1", "nvidia-smi", "-L"),
        ("sbatch", "--gres=gpu:1", "<job-script>"),
    ]
    assert "pasted-error-unexplained" not in codes


def test_a_script_testing_for_nodevfiles_is_not_a_job_without_gpus():
    for line in (
        'if [ "$CUDA_VISIBLE_DEVICES" == "NoDevFiles" ]; then unset CUDA_VISIBLE_DEVICES; fi',
        'if not value or value in {"-1", "NoDevFiles"}:',
    ):
        assert "cuda-visible-devices-hides-all" not in _codes(line + "\n"), line


def test_ffmpeg_without_the_nvenc_library_asks_for_the_containers_driver_capabilities():
    from gpudoctor.pasted.ask import ask_for

    text = "[h264_nvenc @ 0x55688b625f40] Cannot load libnvidia-encode.so.1\nConversion failed!\n"
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    asks = [(a.command.argv, a.command.pipe) for a in ask_for(report.facts, report.findings)]
    assert (("printenv", "NVIDIA_DRIVER_CAPABILITIES"), ()) in asks
    assert (("ldconfig", "-p"), ("grep", "-E", "libnvidia-encode|libnvcuvid")) in asks
    # named, never "No problems found"
    assert [f.code for f in report.findings] == ["pasted-error-unexplained"]


def _ask_pairs(text: str) -> tuple[list[str], list[tuple]]:
    from gpudoctor.pasted.ask import ask_for

    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    asks = [(tuple(str(w) for w in a.command.argv), a.command.pipe) for a in ask_for(report.facts, report.findings)]
    return [f.code for f in report.findings], asks


def test_nvenc_said_failing_in_a_container_asks_that_container_by_name_and_the_hosts_packages():
    codes, asks = _ask_pairs(
        "Since the update the NVENC encoder doesn't work in the media server anymore.\n"
        "```\nuser@box:~$ docker exec -it media nvidia-smi\n```\n"
    )
    assert codes == ["pasted-error-unexplained"]  # a failure said in words: never "No problems found"
    assert (("docker", "exec", "media", "printenv", "NVIDIA_DRIVER_CAPABILITIES"), ()) in asks
    grep = ("grep", "-E", "libnvidia-encode|libnvcuvid")
    assert (("docker", "exec", "media", "ldconfig", "-p"), grep) in asks
    assert (("dpkg", "-l"), grep) in asks  # the host's driver video packages
    assert (("grep", "-E", "^[[:space:]]*ldconfig", "/etc/nvidia-container-runtime/config.toml"), ()) in asks
    # asked in the container, never again on the host's shell
    assert (("printenv", "NVIDIA_DRIVER_CAPABILITIES"), ()) not in asks
    assert (("ldconfig", "-p"), grep) not in asks


def test_nvenc_named_without_a_failure_is_not_one():
    codes, _ = _ask_pairs("NVENC works fine now on the host, thanks.\nThe h264_nvenc encoder is fast.\n")
    assert "pasted-error-unexplained" not in codes


CGROUP_CONF = "```\n$ cat /etc/slurm/cgroup.conf\n###\n# Slurm cgroup support configuration file\n###\nCgroupAutomount=yes\nConstrainCores=yes\n{extra}```\n"
JOB = "```\nuser@node01:~$ echo $CUDA_VISIBLE_DEVICES\n2\n```\n/usr/bin/ls: cannot access '/dev/nvidia0': No such file or directory\n"


def test_slurm_cgroup_conf_without_constrain_devices_beside_a_jobs_gpu_index():
    # A user of the cluster has no root on its nodes (issue 27, kind 8): what needs it (sudo tee, the restart) is the
    # administrators' to run, in the summary; the user keeps what they can run (reading slurm.conf, a job).
    user = _argv(_codes(CGROUP_CONF.format(extra="") + JOB)["cuda-visible-devices-hides-all"])
    assert ("systemctl", "restart", "slurmd") not in user and ("echo", "ConstrainDevices=yes") not in user
    assert ("srun", "--gres=gpu:1", "printenv", "CUDA_VISIBLE_DEVICES") in user
    f = _codes("here is our cgroup.conf\n" + CGROUP_CONF.format(extra="") + JOB)["cuda-visible-devices-hides-all"]
    argv = _argv(f)
    assert ("systemctl", "restart", "slurmd") in argv
    tee = next(c for c in f.remediation.commands if c.pipe)
    # a line a person types, not printf's format escapes
    assert tee.argv == ("echo", "ConstrainDevices=yes")
    assert tee.pipe == ("sudo", "tee", "-a", "/etc/slurm/cgroup.conf")


def test_slurm_cgroup_conf_the_reporter_calls_ours_is_theirs_to_change():
    from gpudoctor.planner.cluster import ADMINISTRATORS

    # a user's paste: the root change is asked of the administrators
    asked = _codes(CGROUP_CONF.format(extra="") + JOB)["cuda-visible-devices-hides-all"].remediation
    assert asked.where == ADMINISTRATORS and not asked.requires_root
    # the administrator's own ("here is our cgroup.conf"): the change itself, with root
    own = _codes("here is our cgroup.conf (very minimal)\n" + CGROUP_CONF.format(extra="") + JOB)
    r = own["cuda-visible-devices-hides-all"].remediation
    assert r.where != ADMINISTRATORS and r.requires_root
    assert ("systemctl", "restart", "slurmd") in [c.argv for c in r.commands]


def test_slurm_cgroup_conf_constraining_devices_or_without_a_job_gpu_is_quiet():
    assert "cuda-visible-devices-hides-all" not in _codes(CGROUP_CONF.format(extra="ConstrainDevices=yes\n") + JOB)
    assert "cuda-visible-devices-hides-all" not in _codes(CGROUP_CONF.format(extra=""))


def _asks(text: str) -> list[tuple]:
    from gpudoctor.pasted.ask import ask_for

    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    return [tuple(str(a) for a in x.command.argv) for x in ask_for(report.facts, report.findings)]


def test_a_failure_in_a_logged_container_asks_about_that_container_not_one_named_in_prose():
    asks = _asks(
        "Other applications e.g. Ollama work with the GPU inside docker.\n"
        "immich_ml  | EP Error ... CUDA failure 100: no CUDA-capable device is detected ; GPU=-1\n"
        "immich_ml  | Falling back to ['CPUExecutionProvider'] and retrying.\n"
    )
    assert ("docker", "exec", "immich_ml", "nvidia-smi", "-L") in asks
    assert any(a[:3] == ("docker", "inspect", "immich_ml") for a in asks)
    assert not any(a[:2] == ("docker", "logs") or a[:1] == ("journalctl",) for a in asks)


def test_the_named_component_that_logs_keeps_its_own_asks_by_its_container_name():
    asks = _asks(
        'ollama  | time=2024 level=INFO msg="no compatible GPUs were discovered"\n'
        'ollama  | time=2024 level=INFO msg="inference compute" id=0 library=cpu\n'
    )
    assert ("docker", "logs", "ollama") in asks


def test_the_gpu_operators_driver_pod_in_crashloop_asks_for_its_log():
    asks = _asks("Enabling gpu, pod/nvidia-driver-daemonset restart many times at status CrashLoopBackOff\n")
    # the pod's namespace and name are not in the text: the listing names them (its log is asked once they are known)
    assert ("kubectl", "get", "pods", "-A", "-o", "wide") in asks
    assert not any(a[:2] == ("kubectl", "logs") for a in asks)


def test_a_pod_without_gpu_or_driver_asks_its_runtime_class_and_limits_in_its_namespace():
    codes = _codes(
        "no nvidia-smi in container (`kubectl -n team-a exec -it test-gpu-0 -- bash`)\n"
        "```\n~$ nvidia-smi\nbash: nvidia-smi: command not found\n```\n"
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver\n"
        "```\n:~$ cat /proc/driver/nvidia/version\n"
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023\n```\n"
    )
    argv = _argv(codes["container-no-gpu"])
    assert argv[0] == ("kubectl", "get", "runtimeclass")
    assert argv[1] == (
        "kubectl", "-n", "team-a", "get", "pod", "test-gpu-0", "-o",
        "jsonpath={.spec.runtimeClassName} {.spec.containers[*].resources}",
    )  # fmt: skip
    assert ("kubectl", "-n", "team-a", "exec", "<new-pod>", "--", "nvidia-smi") in argv
    # no owner shown: the pod's own manifest
    assert ("kubectl", "-n", "team-a", "apply", "-f", "<manifest>") in argv


_NO_DRIVER_IN_POD = (
    "no nvidia-smi in container\n```\n~$ nvidia-smi\nbash: nvidia-smi: command not found\n```\n"
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver\n"
    "```\n:~$ cat /proc/driver/nvidia/version\n"
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023\n```\n"
)
_PATCH = '[{"op": "add", "path": "/spec/template/spec/runtimeClassName", "value": "nvidia"}]'


def _pod_fix(describe: str, said: str = "") -> list[tuple]:
    return _argv(_codes(said + "`kubectl -n ml describe pod " + describe + _NO_DRIVER_IN_POD)["container-no-gpu"])


def test_a_pod_a_controller_owns_is_changed_in_its_owners_pod_template():
    # a StatefulSet's pod (its pod-index label), in Kubeflow's notebooks: the Notebook named like its StatefulSet
    argv = _pod_fix("nb-0`\nName: nb-0\nLabels:  app=nb\n  apps.kubernetes.io/pod-index=0\n", "Kubeflow notebooks\n")
    assert ("kubectl", "-n", "ml", "patch", "notebooks.kubeflow.org", "nb", "--type=json", "-p", _PATCH) in argv
    assert ("kubectl", "-n", "ml", "exec", "nb-0", "--", "nvidia-smi") in argv  # the same name when recreated
    assert not any("apply" in a for a in argv)
    # the same pod outside Kubeflow: its StatefulSet
    argv = _pod_fix("nb-0`\nName: nb-0\nLabels:  app=nb\n  apps.kubernetes.io/pod-index=0\n")
    assert ("kubectl", "-n", "ml", "patch", "statefulset", "nb", "--type=json", "-p", _PATCH) in argv
    # a Deployment's pod (describe's Controlled By its ReplicaSet): the Deployment; its new pod has a new name
    argv = _pod_fix("web-7d9f8b6c5d-x2x9q`\nName: web-7d9f8b6c5d-x2x9q\nControlled By:  ReplicaSet/web-7d9f8b6c5d\n")
    assert ("kubectl", "-n", "ml", "patch", "deployment", "web", "--type=json", "-p", _PATCH) in argv
    assert ("kubectl", "-n", "ml", "exec", "<new-pod>", "--", "nvidia-smi") in argv
    # the pod-template-hash label alone says the same
    argv = _pod_fix("web-7d9f8b6c5d-x2x9q`\nLabels:  app=web\n  pod-template-hash=7d9f8b6c5d\n")
    assert ("kubectl", "-n", "ml", "patch", "deployment", "web", "--type=json", "-p", _PATCH) in argv


def test_a_pod_whose_owner_is_not_shown_keeps_its_manifest():
    # a name ending in a number without the StatefulSet's label is no ordinal; a Job's pod is not patched
    for describe in ("gpu-test-1`\nName: gpu-test-1\nLabels: app=x\n", "train-abc12`\nControlled By:  Job/train\n"):
        argv = _pod_fix(describe)
        assert ("kubectl", "-n", "ml", "apply", "-f", "<manifest>") in argv, describe
        assert not any("patch" in a for a in argv)


TOPO = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \t{link}\t0-27\nGPU1\t{link}\t X \t0-27\n\n"


def test_p2p_hanging_behind_a_pcie_switch_and_cured_by_disabling_it_checks_acs():
    f = _codes(TOPO.format(link="PXB") + "all_reduce_perf hangs. Setting NCCL_P2P_DISABLE=1 did workaround.\n")[
        "nccl-transport-disabled"
    ]
    argv = _argv(f)
    assert argv[0] == ("sudo", "lspci", "-vvv")
    assert f.remediation.commands[0].pipe == ("grep", "-i", "acsctl")
    assert argv[-1][-2:] == ("-g", "2")


def test_p2p_over_nvlink_or_without_the_workaround_said_is_not_read_as_acs():
    assert "nccl-transport-disabled" not in _codes(TOPO.format(link="NV4") + "It hangs; NCCL_P2P_DISABLE=1 works.\n")
    assert "nccl-transport-disabled" not in _codes(TOPO.format(link="PIX") + "training is slow\n")


def test_nvenc_named_asks_for_the_video_capability_and_libraries():
    asks = _asks("After the update the NVENC encoder doesn't work in the jellyfin container; nvidia-smi works there.\n")
    assert ("printenv", "NVIDIA_DRIVER_CAPABILITIES") in asks
    assert ("ldconfig", "-p") in asks


_RAY_TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/home/u/.conda/envs/rl/lib/python3.7/site-packages/ray/utils.py", line 274, in get_cuda_visible_devices\n'
    '    return [int(i) for i in gpu_ids_str.split(",")]\n'
    "ValueError: invalid literal for int() with base 10: 'NoDevFiles'\n"
)


def test_slurm_nodevfiles_parsed_by_an_old_release_offers_its_fixed_release_beside_the_gres():
    r = _codes("srun: error: node7: task 0: Exited with exit code 1\n" + _RAY_TRACE)["cuda-visible-devices-hides-all"].remediation
    # the job's allocation first: whether it wants GPUs is not assumed
    assert r.commands[0].argv[:3] == ("scontrol", "show", "job")
    assert r.alternative is not None
    upgrade = r.alternative.commands[0].argv
    assert upgrade[0] == "/home/u/.conda/envs/rl/bin/python"
    assert upgrade[1:] == ("-m", "pip", "install", "--upgrade", "ray>=0.8.2")


def test_slurm_nodevfiles_without_a_program_failing_to_parse_it_offers_no_upgrade():
    # the value shown, no int() failure: nothing to upgrade
    r = _codes("srun: error: x\n```\n$ echo $CUDA_VISIBLE_DEVICES\nNoDevFiles\n```\nimport ray fails\n")
    assert r["cuda-visible-devices-hides-all"].remediation.alternative is None
    # another program's int() failure: no release of ray is prescribed
    other = _RAY_TRACE.replace("site-packages/ray/utils.py", "site-packages/mytool/gpus.py")
    assert _codes("srun: error: x\n" + other)["cuda-visible-devices-hides-all"].remediation.alternative is None


_NVINFER = "python3: error while loading shared libraries: libnvinfer.so.{n}: cannot open shared object file: No such file or directory\n"


def test_tensorrt_runtime_missing_where_a_plugin_built_in_its_image_runs_installs_that_major():
    f = _codes("I built the plugin in the TensorRT container and run it on the host.\n" + _NVINFER.format(n=8))[
        "framework-cuda-libs-missing"
    ]
    r = f.remediation
    assert r.commands[0].argv == ("python3", "-m", "pip", "install", "tensorrt==8.5.3.1")
    # its directory, and the CUDA libraries its wheel brings, on the loader's path
    sites = [c.parts[0].site_dir for c in r.commands[1:5]]
    assert sites == ["tensorrt", "nvidia/cublas/lib", "nvidia/cudnn/lib", "nvidia/cuda_runtime/lib"]
    assert all(c.name == "LD_LIBRARY_PATH" for c in r.commands[1:5])
    # a major without a checked wheel: named, without a pin
    r = _codes(_NVINFER.format(n=10))["framework-cuda-libs-missing"].remediation
    assert r.commands == () and "TensorRT 10" in r.summary


def test_other_libraries_or_tensorrts_own_loader_message_are_not_the_runtime_missing():
    codes = _codes(_NVINFER.replace("libnvinfer.so.{n}", "libcudart.so.11.0"))
    assert "framework-cuda-libs-missing" not in codes or "TensorRT" not in codes["framework-cuda-libs-missing"].title
    own = "[libLoader.h::DynamicLibrary::50] Error Code 6: Internal Error (Unable to load library: libnvinfer_builder_resource.so.8.4.2)\n"
    f = _codes(own)["framework-cuda-libs-missing"]
    assert f.title == "TensorRT cannot load its own libnvinfer_builder_resource.so.8.4.2"  # check_tensorrt_library's


def test_compose_runtime_nvidia_on_docker_desktop_requests_the_gpu_in_compose():
    text = (
        "PS C:\\work\\app> docker compose up -d api\n"
        "Error response from daemon: unknown or invalid runtime name: nvidia\n"
        "Windows 11, Docker Desktop 4.30\n"
    )
    f = _codes(text)["container-no-gpu"]
    argv = _argv(f)
    assert ("docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi") in argv
    assert ("docker", "compose", "up", "-d", "--force-recreate", "api") in argv
    assert not any(a[0] in ("sudo", "systemctl", "apt-get", "nvidia-ctk") for a in argv)
    assert not f.remediation.requires_root


def test_docker_run_runtime_nvidia_on_windows_runs_with_gpus_all():
    text = "C:\\> docker run --runtime=nvidia myimage\ndocker: Error response from daemon: unknown or invalid runtime name: nvidia.\n"
    argv = _argv(_codes("Windows 10\n" + text)["container-no-gpu"])
    assert ("docker", "run", "--rm", "--gpus", "all", "<image>") in argv
    assert not any("compose" in a for a in argv)


def test_unknown_runtime_nvidia_on_a_linux_host_still_registers_the_toolkit():
    text = "$ docker run --runtime=nvidia --rm nvidia/cuda:12.2.0-base-ubuntu22.04 nvidia-smi\n"
    text += "docker: Error response from daemon: unknown or invalid runtime name: nvidia.\nUbuntu 22.04\n"
    argv = _argv(_codes(text)["container-no-gpu"])
    assert any(a[:3] == ("nvidia-ctk", "runtime", "configure") for a in argv)


# jellyfin-archive/jellyfin-metapackages#41 (https://github.com/jellyfin-archive/jellyfin-metapackages/issues/41):
# Jellyfin's ffmpeg line, cut before the encoder is named, as stored copies of a log cut it.
_JELLYFIN_HWACCEL = (
    "/usr/lib/jellyfin-ffmpeg/ffmpeg -analyzeduration 5e+08 -init_hw_device cuda=cu:0 -filter_hw_device cu -hwaccel cuda "
    "-hwaccel_output_format cuda -hwaccel_flags +unsafe_output -threads 1 -autorotate 0 -canvas_size 1920x1080\n"
)


def test_ffmpeg_decoding_on_cuda_in_a_pod_asks_the_pod_for_the_video_capability():
    """FFmpeg's `-hwaccel cuda` (libavutil/hwcontext.c's name for its CUDA device type) is NVIDIA's decoder at work: the
    video capability and the codec libraries decide in a container. In the plans12 case 1242 the pod's events
    (the scheduler's "Successfully assigned NAMESPACE/POD to NODE") put it in a Kubernetes pod, so both are asked in it."""
    case = (
        Path(__file__).resolve().parents[1]
        / "blind/plans12/cases/1242-truecharts-1991-truenas-scale-k3s-jellyfin-chart-nvenc-cannot-load-libnvcuvid-video-capability/input.txt"
    )
    _, asks = _ask_pairs(case.read_text(encoding="utf-8"))
    assert (("printenv", "NVIDIA_DRIVER_CAPABILITIES"), ()) in asks
    assert (("ldconfig", "-p"), ("grep", "-E", "libnvidia-encode|libnvcuvid")) in asks
    snapshot = read_pasted([Source("t", case.read_text(encoding="utf-8"))])
    assert any("kubernetes" in (c.get("means") or "") for c in snapshot["pasted"]["cues"])
    # another real log line: the video capability and libraries asked
    _, asks = _ask_pairs(_JELLYFIN_HWACCEL)
    assert (("printenv", "NVIDIA_DRIVER_CAPABILITIES"), ()) in asks


def test_ffmpeg_on_another_vendors_hwaccel_asks_nothing_of_nvidias_video_libraries():
    # the quiet twin: the same line decoding on VA-API (Intel/AMD), and a filter named like CUDA's, are not NVDEC
    for line in (_JELLYFIN_HWACCEL.replace("cuda", "vaapi"), "ffmpeg -i in.mkv -vf hwupload_cuda out.mkv\n"):
        _, asks = _ask_pairs(line)
        assert (("printenv", "NVIDIA_DRIVER_CAPABILITIES"), ()) not in asks
