"""The catalogue's family of containers beyond plain docker, and clusters (src/gpudoctor/parsers/catalogue.toml, its
block of that name): the NVIDIA device plugin and containerd's CRI on Kubernetes, CDI, docker's runtime registry,
Apptainer's --nv and Slurm's GRES. Each message leads to a finding where the paste decides it (CDI's missing spec,
docker's missing nvidia runtime) or to the asks that decide it, on the machine that answers them; a minimal paste and
the real example each, and a quiet twin where the same words are no failure."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.pipeline import CheckRequest, check

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = {tuple(map(str, a.command.argv)) + tuple(a.command.pipe) for a in ask_for(report.facts, report.findings)}
    errors = {e["kind"]: dict(e.get("values") or {}) for e in snapshot["pasted"]["errors"]}
    return errors, {f.code: f for f in report.findings}, asks


def _example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


def _argvs(finding) -> list[tuple]:
    return [tuple(map(str, c.argv)) + tuple(map(str, c.pipe)) for c in finding.remediation.commands if isinstance(c, Cmd)]


def _root(finding) -> set[tuple]:
    return {tuple(map(str, c.argv)) for c in finding.remediation.commands if isinstance(c, Cmd) and c.root}


# --- the NVIDIA device plugin and containerd's CRI ------------------------------------------------------------------

_PLUGIN_KLOG = (
    "$ kubectl logs -n kube-system nvidia-device-plugin-daemonset-x7z2q\n"
    "I0312 10:01:02.123456       1 main.go:256] Retreiving plugins.\n"
    "E0312 10:01:02.123456       1 factory.go:99] Failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND.\n"
    "E0312 10:01:02.123456       1 factory.go:100] If this is a GPU node, did you set the docker default runtime to "
    "`nvidia`?\n"
    "E0312 10:01:02.123456       1 main.go:132] error starting plugins: error creating plugin manager: unable to create "
    "plugin manager: nvml init failed: ERROR_LIBRARY_NOT_FOUND\n"
)
# the plugin since v0.15 (go-nvlib's platform detection): the pod got no libnvidia-ml.so.1 at all
_PLUGIN_NO_LIBRARY = (
    "I0312 10:01:02.123456       1 factory.go:107] Detected non-NVML platform: could not load NVML library: "
    "libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n"
    "E0312 10:01:02.123456       1 factory.go:115] Incompatible platform detected\n"
    "E0312 10:01:02.123456       1 factory.go:116] If this is a GPU node, did you configure the NVIDIA Container Toolkit?\n"
)
_PLUGIN_ASKS = {
    ("kubectl", "get", "nodes", "-o", "wide"),
    ("docker", "info", "--format", "{{.DefaultRuntime}}"),
    ("containerd", "config", "dump", "grep", "-n", "-E", "default_runtime_name|nvidia"),
}


def test_the_device_plugins_nvml_failure_asks_the_nodes_runtime_not_a_driver_fix():
    # The NVML failure is the plugin pod's: the node's driver is not shown failing, so no driver-unreachable (and no
    # reboot); the asks decide which runtime the node runs and whether nvidia is its default.
    for text in (_PLUGIN_KLOG, _PLUGIN_NO_LIBRARY):
        errors, codes, asks = _run(text)
        assert "device-plugin-no-nvml" in errors
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert asks >= _PLUGIN_ASKS and ("nvidia-smi",) in asks


_PLANS9 = Path(__file__).resolve().parents[1] / "blind/plans9/cases"
# https://github.com/NVIDIA/k8s-device-plugin/issues/182 (a comment, verbatim): nvidia already Docker's default runtime
# in daemon.json, and the plugin still without NVML (that cluster was microk8s, whose containerd ignores Docker's
# configuration): not the default-runtime cause Docker's fix would cure.
_ISSUE_182 = """I'm also seeing this error with my `microk8s` cluster. `/etc/docker/daemon.json`:

```
{
    "default-runtime": "nvidia",
    "runtimes": {
        "nvidia": {
            "path": "/usr/bin/nvidia-container-runtime",
            "runtimeArgs": []
        }
    }
}
```

```
$ kubectl -n kube-system logs nvidia-device-plugin-daemonset-sbqjz
2020/10/14 18:04:53 Loading NVML
2020/10/14 18:04:53 Failed to initialize NVML: could not load NVML library.
2020/10/14 18:04:53 If this is a GPU node, did you set the docker default runtime to `nvidia`?
2020/10/14 18:04:53 You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin#prerequisites
2020/10/14 18:04:53 You can learn how to set the runtime at: https://github.com/NVIDIA/k8s-device-plugin#quick-start
```
"""


def test_the_plugins_nvml_failure_on_a_docker_node_makes_nvidia_dockers_default_runtime():
    # The plugin's pod found no NVML where the node runs Docker: nvidia-docker2 named (k8s-device-plugin#23, the older
    # plugin's line without its advice: tests/blind/plans9 case 901), or docker version's banner beside the plugin's
    # advice (k8s-device-plugin#303). Kubernetes cannot pick Docker's runtime per pod: nvidia must be the default.
    case = next(_PLANS9.glob("901-*")) / "input.txt"
    for text in (case.read_text(encoding="utf-8"), _example("k8s-device-plugin-303-nvml-docker-default-runtime.txt")):
        errors, codes, asks = _run(text)
        assert "device-plugin-no-nvml" in errors and errors["default-runtime-not-nvidia"]["runtime"] == "docker"
        assert set(codes) == {"container-no-gpu"}, set(codes)
        argvs = _argvs(codes["container-no-gpu"])
        assert argvs[:3] == [
            ("docker", "info", "grep", "-i", "runtime"),
            ("nvidia-ctk", "runtime", "configure", "--runtime=docker", "--set-as-default"),
            ("systemctl", "restart", "docker"),
        ]
        assert argvs[3][:3] == ("kubectl", "delete", "pod")
        assert not any("containerd" in a for a in argvs)
        # the node's runtime is decided: the catalogue's asks between docker and containerd are not repeated
        assert not asks & _PLUGIN_ASKS


def test_the_plugins_nvml_failure_with_nvidia_already_dockers_default_only_asks():
    # the quiet twin: daemon.json already makes nvidia the default (k8s-device-plugin#182); and containerd as the node's
    # runtime (kubectl get nodes' CONTAINER-RUNTIME column) is not Docker's fix either
    containerd_node = (
        "NAME   STATUS   ROLES    AGE   VERSION   INTERNAL-IP   OS-IMAGE   KERNEL-VERSION   CONTAINER-RUNTIME\n"
        "gpu1   Ready    <none>   3d    v1.26.1   10.0.0.5      Ubuntu 22.04.2 LTS   5.15.0-60-generic   containerd://1.6.18\n"
        "I have installed nvidia-docker2 on the node.\n"
    )
    for text in (_ISSUE_182, containerd_node + _PLUGIN_KLOG):
        errors, codes, asks = _run(text)
        assert "device-plugin-no-nvml" in errors and "default-runtime-not-nvidia" not in errors
        assert "container-no-gpu" not in codes
        assert ("kubectl", "get", "nodes", "-o", "wide") in asks


def test_the_plugin_that_found_no_devices_asks_the_node():
    for text in (
        "I0612 09:21:25.000000       1 main.go:416] No devices found. Waiting indefinitely.\n",
        _example("k8s-device-plugin-414-no-devices-waiting.txt"),
    ):
        errors, codes, asks = _run(text)
        assert "device-plugin-no-devices" in errors
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert ("kubectl", "get", "nodes", "-o", "wide") in asks and ("nvidia-smi",) in asks


def test_a_plugin_that_registered_is_quiet():
    text = (
        "2017/12/08 06:41:44 Loading NVML\n"
        "2017/12/08 06:41:45 Starting to serve on /var/lib/kubelet/device-plugins/nvidia.sock\n"
        "2017/12/08 06:41:45 Registered device plugin with Kubelet\n"
    )
    errors, codes, _ = _run(text)
    assert not errors and not codes


def test_containerd_without_the_nvidia_handler_asks_its_config_and_the_toolkit_pod():
    for text in (
        "Warning  FailedCreatePodSandBox  12s  kubelet  Failed to create pod sandbox: rpc error: code = Unknown desc = "
        'failed to get sandbox runtime: no runtime for "nvidia" is configured\n',
        _example("gpu-operator-730-no-runtime-for-nvidia.txt"),
    ):
        errors, codes, asks = _run(text)
        assert errors["cri-runtime-handler-missing"]["handler"] == "nvidia"
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert ("containerd", "config", "dump", "grep", "-n", "nvidia") in asks
        assert ("kubectl", "get", "pods", "-A", "-o", "wide", "grep", "-E", "nvidia-container-toolkit|gpu-operator") in asks


# --- CDI (podman, docker with CDI) ----------------------------------------------------------------------------------

_CDI = "$ podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L\nError: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n"


def test_an_unresolvable_cdi_device_generates_the_spec_on_the_host():
    errors, codes, _ = _run(_CDI)
    assert errors["cdi-device-unresolved"]["devices"] == "nvidia.com/gpu=all"
    f = codes["container-no-gpu"]
    cmds = _argvs(f)
    generate = ("nvidia-ctk", "cdi", "generate", "--output=/etc/cdi/nvidia.yaml")
    assert generate in _root(f)
    assert cmds.index(generate) < cmds.index(("nvidia-ctk", "cdi", "list"))
    # NVIDIA's check of the spec, with the engine the text shows, last
    # (label=disable as NVIDIA's CDI guide runs it: SELinux hosts keep the device files from the container otherwise)
    assert cmds[-1] == (
        "podman",
        "run",
        "--rm",
        "--device",
        "nvidia.com/gpu=all",
        "--security-opt=label=disable",
        "ubuntu",
        "nvidia-smi",
        "-L",
    )
    assert f.remediation.where == "the host"


def test_the_real_cdi_report_installs_the_toolkit_first_and_reruns_the_reporters_command():
    _, codes, _ = _run(_example("fasterliveportrait-116-podman-cdi-unresolvable.txt"))
    cmds = _argvs(codes["container-no-gpu"])
    generate = cmds.index(("nvidia-ctk", "cdi", "generate", "--output=/etc/cdi/nvidia.yaml"))
    # the toolkit is not shown installed: its install comes before the spec (the distribution is not shown: asked first)
    assert ("cat", "/etc/os-release") in cmds[:generate]
    assert cmds[-1][:2] == ("docker", "run") and "--gpus=all" in cmds[-1]


def test_a_toolkit_shown_installed_generates_without_installing():
    text = "$ nvidia-ctk --version\nNVIDIA Container Toolkit CLI version 1.14.3\n" + _CDI
    _, codes, _ = _run(text)
    cmds = _argvs(codes["container-no-gpu"])
    assert cmds[0] == ("nvidia-ctk", "cdi", "generate", "--output=/etc/cdi/nvidia.yaml")


def test_a_spec_that_lists_the_device_is_not_regenerated_it_is_asked():
    # nvidia-ctk lists the device, and the engine still cannot resolve it: where it reads, or who reads, decides
    text = "$ sudo nvidia-ctk cdi list\nINFO[0000] Found 2 CDI devices\nnvidia.com/gpu=0\nnvidia.com/gpu=all\n" + _CDI
    for paste in (text, _example("ctk-146-podman-cdi-listed-still-unresolvable.txt")):
        errors, codes, asks = _run(paste)
        assert errors["cdi-devices-listed"]["count"] == "2"
        assert "container-no-gpu" not in codes and "pasted-error-unexplained" in codes
        assert ("ls", "-l", "/etc/cdi", "/var/run/cdi") in asks


# --- docker's runtime registry -------------------------------------------------------------------------------------

_UNKNOWN = (
    "$ docker run --rm --runtime=nvidia nvidia/cuda:12.2.0-base-ubuntu22.04 nvidia-smi\n"
    "docker: Error response from daemon: unknown or invalid runtime name: nvidia.\n"
)


def test_docker_without_the_nvidia_runtime_registers_it_on_the_host():
    for text in (_UNKNOWN, _example("3dgrut-71-docker-unknown-runtime-nvidia.txt")):
        _, codes, _ = _run(text)
        f = codes["container-no-gpu"]
        cmds = _argvs(f)
        configure = ("nvidia-ctk", "runtime", "configure", "--runtime=docker")
        assert {configure, ("systemctl", "restart", "docker")} <= _root(f)
        assert cmds.index(configure) < cmds.index(("systemctl", "restart", "docker"))
        assert f.remediation.where == "the host"
    # Ubuntu named: NVIDIA's apt route installs the toolkit first
    _, codes, _ = _run(_example("3dgrut-71-docker-unknown-runtime-nvidia.txt"))
    assert ("apt-get", "install", "-y", "nvidia-container-toolkit") in _root(codes["container-no-gpu"])


def test_another_runtime_name_is_not_this_fix():
    other = "docker: Error response from daemon: unknown or invalid runtime name: oci.\n"
    assert "container-no-gpu" not in _run(other)[1]


def test_docker_desktop_on_windows_gets_no_linux_toolkit():
    text = (
        "D:\\ai369\\HeyGem.ai\\deploy>docker-compose up -d\nError response from daemon: unknown or invalid runtime name: nvidia\n"
    )
    _, codes, _ = _run(text)
    # Docker Desktop registers no runtime named nvidia: the compose file requests the GPU instead (no Linux toolkit,
    # no daemon restart, nothing as root)
    fix = codes["container-no-gpu"].remediation
    argvs = [tuple(map(str, c.argv)) for c in fix.commands]
    assert not fix.requires_root
    assert not any(a[0] in ("sudo", "systemctl", "apt-get", "nvidia-ctk", "dnf", "yum") for a in argvs)
    assert ("docker", "compose", "up", "-d", "--force-recreate", "<service>") in argvs


# --- Apptainer / Singularity ---------------------------------------------------------------------------------------


def test_apptainer_without_nv_files_asks_the_machine_that_ran_it():
    for text in (
        "$ apptainer exec --nv pytorch.sif python -c 'import torch; print(torch.cuda.is_available())'\n"
        "WARNING: Could not find any nv files on this host!\nFalse\n",
        _example("nixpkgs-334853-apptainer-no-nv-files.txt"),
    ):
        errors, codes, asks = _run(text)
        assert "apptainer-nv-files-missing" in errors
        assert "pasted-error-unexplained" in codes
        assert ("nvidia-smi",) in asks and ("ldconfig", "-p", "grep", "-E", "libnvidia-ml|libcuda") in asks


def test_apptainer_on_a_cpu_job_that_wants_no_gpu_is_quiet():
    text = "$ singularity exec opmreleases_latest.sif which flow\nINFO:    Could not find any nv files on this host!\n/usr/bin/flow\n"
    errors, codes, _ = _run(text)
    assert "apptainer-nv-files-missing" not in errors and not codes


# --- Slurm ---------------------------------------------------------------------------------------------------------


def test_a_job_no_node_can_take_asks_the_partitions():
    for text in (
        "sbatch: error: Batch job submission failed: Requested node configuration is not available\n",
        _example("scicomp-docs-26-sinteractive-node-config-unavailable.txt"),
    ):
        errors, codes, asks = _run(text)
        assert "slurm-node-config-unavailable" in errors
        assert "pasted-error-unexplained" in codes
        assert ("sinfo", "-o", "%P %N %G %c %m") in asks and ("scontrol", "show", "partition") in asks


def test_a_node_drained_for_fewer_gpus_asks_its_administrator_for_slurmds_view():
    errors, codes, asks = _run(_example("magic-castle-361-gres-gpu-count-lower.txt"))
    assert errors["slurm-node-gpus-fewer"] == {
        "entry": "slurm-gres-count-lower",
        "gres": "gres/gpu",
        "found": "3",
        "configured": "4",
    }
    assert "pasted-error-unexplained" in codes
    assert {("nvidia-smi", "-L"), ("slurmd", "-G")} <= asks


def test_slurmd_stopped_on_a_missing_device_file_asks_whether_the_driver_is_loaded():
    for text in (
        "slurmd: fatal: can't stat gres.conf file /dev/nvidia3: No such file or directory\n",
        _example("bibigrid-705-slurmd-cant-stat-dev-nvidia0.txt"),
    ):
        errors, codes, asks = _run(text)
        assert errors["slurm-gres-device-missing"]["file"].startswith("/dev/nvidia")
        assert "pasted-error-unexplained" in codes
        assert {("lsmod", "grep", "nvidia"), ("ls", "-l", "/dev", "grep", "nvidia")} <= asks


# --- libnvidia-container's hook, on the host ------------------------------------------------------------------------


def test_the_hook_without_nvml_asks_the_host_for_its_driver_and_loader_cache():
    for text in (
        "$ docker run --rm --gpus all ubuntu nvidia-smi\ndocker: Error response from daemon: failed to create task for "
        "container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container "
        "process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , "
        "stderr: Auto-detected mode as 'legacy'\nnvidia-container-cli: initialization error: load library failed: "
        "libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown.\n",
        _example("libnvidia-container-231-rocky-load-library-failed.txt"),
    ):
        errors, codes, asks = _run(text)
        assert errors["container-hook-no-nvml"]["library"] == "libnvidia-ml.so.1"
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert {("nvidia-smi",), ("ldconfig", "-p", "grep", "libnvidia-ml")} <= asks
        # the hook's loader on the host, not a program's: neither its wheels nor a shell's LD_LIBRARY_PATH decide it
        assert "library-missing" not in errors
        assert ("printenv", "LD_LIBRARY_PATH") not in asks and not any("pip" in a for a in asks)


def test_the_hooks_driver_not_loaded_asks_whether_the_host_built_the_module():
    # the hook's line alone is the host's driver unreachable; beside docker's refusal of the container, whose host the
    # text does not show, the asks decide (either way: whether the module is loaded and built for the running kernel)
    for text, code in (
        ("stderr: nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.\n", "driver-unreachable"),
        (_example("apollo-perception-20-hook-driver-not-loaded.txt"), "pasted-error-unexplained"),
    ):
        errors, codes, asks = _run(text)
        assert "container-hook-driver-not-loaded" in errors
        assert set(codes) == {code}, set(codes)
        assert {("lsmod", "grep", "nvidia"), ("modinfo", "-F", "filename", "nvidia"), ("uname", "-r")} <= asks


def test_inside_wsl_the_hooks_driver_not_loaded_asks_no_kernel_module():
    text = (
        "user@DESKTOP-1:~$ uname -r\n5.4.72-microsoft-standard-WSL2\n"
        "stderr: nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.\n"
    )
    errors, _, asks = _run(text)
    assert "container-hook-driver-not-loaded" in errors
    assert not any(a[0] in ("lsmod", "dkms") for a in asks), asks
    assert ("ls", "-l", "/usr/lib/wsl/lib") in asks


def test_the_hooks_missing_devices_cgroup_asks_its_release_and_the_hosts_cgroup_version():
    for text in (
        "stderr: nvidia-container-cli: container error: cgroup subsystem devices not found: unknown.\n",
        _example("dalle-playground-105-compose-cgroup-devices-not-found.txt"),
    ):
        errors, codes, asks = _run(text)
        assert "container-hook-cgroup-v2" in errors
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert {("nvidia-container-cli", "--version"), ("stat", "-fc", "%T", "/sys/fs/cgroup")} <= asks


def test_the_hooks_missing_ldconfig_asks_which_the_host_has_and_which_the_config_names():
    for text in (
        "nvidia-container-cli: ldcache error: open failed: /sbin/ldconfig.real: no such file or directory: unknown\n",
        _example("conf-net-5-ldcache-ldconfig-real-missing.txt"),
    ):
        errors, codes, asks = _run(text)
        assert errors["container-hook-ldconfig-missing"]["ldconfig"] == "/sbin/ldconfig.real"
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert ("grep", "-n", "ldconfig", "/etc/nvidia-container-runtime/config.toml") in asks
    # ldconfig itself failing (it ran) is another cause: not this entry
    errors, _, _ = _run("nvidia-container-cli: ldcache error: process /sbin/ldconfig.real failed with error code: 1: unknown\n")
    assert "container-hook-ldconfig-missing" not in errors


def test_enroot_without_the_container_cli_asks_a_gpu_node_of_the_job():
    for text in (
        "[ERROR] Command not found: nvidia-container-cli, see https://github.com/NVIDIA/libnvidia-container\n",
        _example("pyxis-110-enroot-nvidia-container-cli-not-found.txt"),
    ):
        errors, codes, asks = _run(text)
        assert "enroot-container-cli-missing" in errors
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert ("srun", "--gres=gpu:1", "which", "nvidia-container-cli") in asks


def test_a_tres_slurm_does_not_track_asks_the_job_scripts_gpu_lines_and_the_partitions():
    for text in (
        "srun: error: Unable to allocate resources: Invalid Trackable RESource (TRES) specification\n",
        _example("relion-877-empty-gres-invalid-tres.txt"),
    ):
        errors, codes, asks = _run(text)
        assert "slurm-tres-invalid" in errors
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert ("sinfo", "-o", "%P %N %G") in asks
        # the job script's name is the person's, and no command lists it: its grep is not printed with a placeholder
        assert not [a for a in asks if "<job-script>" in a], asks


def test_a_job_refused_at_submission_is_not_asked_for_its_allocation():
    # no job exists: neither scontrol show job nor the job's environment can answer
    for name in ("relion-877-empty-gres-invalid-tres.txt", "scicomp-docs-26-sinteractive-node-config-unavailable.txt"):
        _, _, asks = _run(_example(name))
        assert not any(a[:3] == ("scontrol", "show", "job") for a in asks), asks
        assert ("env", "grep", "-E", "VISIBLE_DEVICES|GPU_DEVICE_ORDINAL") not in asks
    # a step refused inside a running job still has its job
    _, _, asks = _run(
        "$ srun --gres=gpu:a100:1 python train.py\n"
        "srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) specification\n"
    )
    assert ("printenv", "SLURM_JOB_ID") in asks  # the job's id, which `scontrol show job` needs, from its own environment


def test_the_operators_driver_validation_waiting_asks_its_driver_pod_and_the_nodes_own_driver():
    for text in (
        'driver-validation time="2024-10-24T09:25:53Z" level=warning msg="failed to validate the driver, retrying after 5 '
        'seconds\\n"\n',
        _example("gpu-operator-378-driver-validation-chroot-no-nvidia-smi.txt"),
    ):
        errors, codes, asks = _run(text)
        assert "gpu-operator-driver-not-ready" in errors
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        # the driver pod's namespace and name are not in the paste: the listing of the NVIDIA pods names them
        assert ("kubectl", "get", "pods", "-A", "-o", "wide", "grep", "-E", "nvidia-driver|operator-validator") in asks
        assert not [a for a in asks if a[:2] == ("kubectl", "logs")], asks
        assert ("nvidia-smi",) in asks
    # a chroot that runs nvidia-smi and prints its table is no failure
    errors, codes, _ = _run("running command chroot with args [/run/nvidia/driver nvidia-smi]\n")
    assert not errors and not codes


def test_the_kubelets_admission_without_healthy_gpus_asks_the_node_and_the_plugins_unhealthy_log():
    for text in (
        "  Warning  UnexpectedAdmissionError  10s  kubelet  Allocate failed due to no healthy devices present; cannot "
        "allocate unhealthy devices nvidia.com/gpu, which is unexpected\n",
        _example("kubernetes-96519-allocate-failed-devices-unavailable.txt"),
    ):
        errors, codes, asks = _run(text)
        assert "kubelet-gpu-admission-failed" in errors
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert ("kubectl", "describe", "nodes", "grep", "-E", "^Name:|nvidia.com/gpu") in asks
        # the device plugin's pod is not named in the paste: the pods are listed, its log asked once it is known
        assert ("kubectl", "get", "pods", "-A", "-o", "wide") in asks
    errors, _, _ = _run(_example("kubernetes-96519-allocate-failed-devices-unavailable.txt"))
    said = errors["kubelet-gpu-admission-failed"]
    assert (said["resource"], said["requested"], said["available"]) == ("gpu", "1", "0")
    # another vendor's resource is not the NVIDIA device plugin's
    errors, _, _ = _run("Allocate failed due to no healthy devices present; cannot allocate unhealthy devices amd.com/gpu\n")
    assert "kubelet-gpu-admission-failed" not in errors


def test_the_hooks_driver_timeout_asks_the_hosts_persistence_mode():
    for text in (
        'stderr: nvidia-container-cli: initialization error: driver error: timed out\\\\n\\""": unknown.\n',
        _example("ctk-202-driver-rpc-timed-out-persistence.txt"),
    ):
        errors, codes, asks = _run(text)
        assert "container-hook-driver-timeout" in errors
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert {
            ("nvidia-smi", "--query-gpu=index,name,persistence_mode", "--format=csv"),
            ("systemctl", "status", "nvidia-persistenced"),
        } <= asks


def test_compose_without_the_nvidia_runtime_ends_with_the_restart_not_a_docker_run():
    # compose's `runtime: nvidia` on a Linux host: the same registration; compose, not a docker run, starts it again
    text = (
        "$ docker compose up -d\n[+] Running 0/1\n - Container app-ollama-1  Creating\n"
        "Error response from daemon: unknown or invalid runtime name: nvidia\n"
    )
    _, codes, _ = _run(text)
    cmds = _argvs(codes["container-no-gpu"])
    assert cmds[-1] == ("systemctl", "restart", "docker")


# --- Apptainer/Singularity without --nv -------------------------------------------------------------------------------

# https://github.com/CaiLiLab/MuRaL/issues/6 (its report, verbatim): the container started without --nv; pynvml finds
# no libnvidia-ml.so.1 inside
_MURAL_6 = """The run:
singularity exec  ~/software/mural_v1.1.0.sif  mural_train --ref_genome data/seq.fa --train_data data/training.sorted.bed --experiment_name example1  > test1.out 2> test1.err

 cat test1.err
Traceback (most recent call last):
  File "/opt/conda/lib/python3.8/site-packages/pynvml/nvml.py", line 1478, in _LoadNvmlLibrary
    nvmlLib = CDLL("libnvidia-ml.so.1")
  File "/opt/conda/lib/python3.8/ctypes/__init__.py", line 373, in __init__
    self._handle = _dlopen(self._name, mode)
OSError: libnvidia-ml.so.1: cannot open shared object file: No such file or directory
"""
# https://github.com/apptainer/singularity/issues/4783 (its report, verbatim): --nv given (after a global option), and
# libcuda.so.1 still missing: another cause, not the missing flag
_SINGULARITY_4783 = """singularity -s exec --nv /cvmfs/cms-ib.cern.ch/docker/cmssw/cc7:amd64 bash
source /cvmfs/cms.cern.ch/cmsset_default.sh
./test/slc7_amd64_gcc820/test_detid
./test/slc7_amd64_gcc820/test_detid: error while loading shared libraries: libcuda.so.1: cannot open shared object file: No such file or directory
"""


def test_an_apptainer_container_started_without_nv_is_given_the_same_command_with_nv():
    # tests/blind/plans9 case 931 (alphafold#873): `singularity exec IMAGE python ...` and libcuda.so.1 missing under
    # /.singularity.d/libs; MuRaL#6: the same verb, and libnvidia-ml.so.1 missing. The image is under ~, which no
    # shell expands quoted: it is named from the home directory, and the program's own command is not repeated there.
    case = next(_PLANS9.glob("931-*")) / "input.txt"
    for text, image in (
        (case.read_text(encoding="utf-8"), "./01.Biosoft/03.Sif/alphafold.simg"),
        (_MURAL_6, "./software/mural_v1.1.0.sif"),
    ):
        errors, codes, _ = _run(text)
        assert errors["workload-without-gpu"]["runtime"] == "singularity"
        f = codes["container-no-gpu"]
        assert _argvs(f)[:2] == [("nvidia-smi",), ("singularity", "exec", "--nv", image, "nvidia-smi")]
        assert not _root(f)
    # an image named by its own path: the command shown comes back whole, with --nv after the verb
    errors, codes, _ = _run(
        "$ apptainer run /scratch/img/af.sif python run.py --out=/scratch/o &\n"
        "Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such "
        "file or directory; LD_LIBRARY_PATH: /.singularity.d/libs\n"
    )
    assert _argvs(codes["container-no-gpu"])[-1] == (
        "apptainer",
        "run",
        "--nv",
        "/scratch/img/af.sif",
        "python",
        "run.py",
        "--out=/scratch/o",
    )


def test_an_apptainer_container_with_nv_or_without_a_gpu_symptom_is_not_told_to_add_nv():
    # the quiet twins: --nv already given (singularity#4783), and a container without --nv whose program wanted no GPU
    for text in (
        _SINGULARITY_4783,
        "$ singularity exec ~/tools/samtools.sif samtools view -h in.bam\n@HD\tVN:1.6\tSO:coordinate\n",
    ):
        errors, codes, _ = _run(text)
        assert "container-no-gpu" not in codes, codes


# --- a node whose Capacity lists no GPU -------------------------------------------------------------------------------

# https://github.com/NVIDIA/k8s-device-plugin/issues/285 (its report's node description, verbatim, and its title): the
# plugin started, and the node's Capacity lists no nvidia.com/gpu
_PLUGIN_285 = """nvidia-device-plugin is starting but still no gpu-device in node description and gpu-pod FailedScheduling
```
Capacity:
  cpu:                12
  ephemeral-storage:  959863856Ki
  hugepages-1Gi:      0
  hugepages-2Mi:      0
  memory:             16325228Ki
  pods:               110
Allocatable:
  cpu:                12
  ephemeral-storage:  959863856Ki
  hugepages-1Gi:      0
  hugepages-2Mi:      0
  memory:             16325228Ki
  pods:               110
```
"""
# https://github.com/Deepomatic/shared-gpu-nvidia-k8s-device-plugin/issues/15 (verbatim): the node lists nvidia.com/gpu
_DEEPOMATIC_15 = """```Allocatable:
  cpu:                        8
  deepomatic.com/shared-gpu:  0
  ephemeral-storage:          137289078148
  memory:                     7912776Ki
  nvidia.com/gpu:             1
  pods:                       110
```
If i use nvidia.com/gpu it shows 1 GPU but not in the case of deepomatic.com/shared-gpu, i.e.showing '0'
"""
_NODE_ASKS = {
    ("kubectl", "get", "pods", "-A", "-o", "wide", "grep", "-i", "nvidia"),
    ("kubectl", "get", "nodes", "-o", "wide"),
    ("kubectl", "get", "runtimeclass"),
    ("containerd", "config", "dump", "grep", "-n", "-E", "default_runtime_name|nvidia"),
}


def test_a_node_without_gpu_capacity_beside_its_working_gpu_asks_for_the_plugin_and_the_runtime():
    # tests/blind/plans9 case 913 (k8s-device-plugin#834): the node's Capacity without nvidia.com/gpu and nvidia-smi
    # listing the P4; k8s-device-plugin#285: the same Capacity, the plugin named. No clean bill, no driver fix: the
    # plugin's pod, its log and the node's runtime decide.
    case = next(_PLANS9.glob("913-*")) / "input.txt"
    for text in (case.read_text(encoding="utf-8"), _PLUGIN_285):
        errors, codes, asks = _run(text)
        assert "node-gpu-capacity-missing" in errors
        assert set(codes) == {"pasted-error-unexplained"}, set(codes)
        assert asks >= _NODE_ASKS


def test_a_node_that_lists_nvidia_gpus_or_names_no_gpu_is_not_asked_about_the_plugin():
    # the quiet twins: the plugin's registration shown (nvidia.com/gpu listed, at any count), and a CPU node's Capacity
    cpu_node = "Capacity:\n  cpu:                4\n  memory:             16325228Ki\n  pods:               110\n"
    for text in (_DEEPOMATIC_15, cpu_node):
        errors, codes, asks = _run(text)
        assert "node-gpu-capacity-missing" not in errors
        assert not asks & _NODE_ASKS


# NVIDIA/k8s-device-plugin#1228 (https://github.com/NVIDIA/k8s-device-plugin/issues/1228): the node's status with
# nvidia.com/gpu at 0 in both allocatable and capacity while the plugin's pod runs.
_PLUGIN_1228 = (
    "At a certain point in time, both the `allocatable` and `capacity` fields for `nvidia.com/gpu` in the node's "
    "`node.status` show 0 (note that it is 0, not that the resource is missing).\n"
    '  allocatable:\n    .......\n    nvidia.com/gpu: "0"\n    ....\n  capacity:\n    .......\n    nvidia.com/gpu: "0"\n'
)
# NVIDIA/k8s-device-plugin#58 (https://github.com/NVIDIA/k8s-device-plugin/issues/58): capacity 16, allocatable 0 (the
# GPUs registered, then unhealthy): the plugin found GPUs, so not a plugin that serves none.
_PLUGIN_58 = (
    '    status:\n      allocatable:\n        cpu: "48"\n        memory: 263412492Ki\n        nvidia.com/gpu: "0"\n'
    '        pods: "110"\n      capacity:\n        cpu: "48"\n        memory: 263514892Ki\n        nvidia.com/gpu: "16"\n'
)


def test_a_node_advertising_zero_gpus_asks_for_the_plugin_and_the_runtime():
    """A node whose nvidia.com/gpu stays at 0: the device plugin registered and its pod found no GPU (the kubelet counts
    what the plugin lists). Read on the plans12 case 1210 (containerd with runc as its default; the count quoted in
    prose) and on NVIDIA/k8s-device-plugin#1228 (the node's YAML): no clean bill, and the plugin's pod, the node's
    runtime and containerd's default runtime asked."""
    case = _PLANS9.parent.parent / "plans12/cases/1210-k8sdp107-containerd-default-runc-device-plugin-zero-gpus/input.txt"
    for text in (case.read_text(encoding="utf-8"), _PLUGIN_1228):
        errors, codes, asks = _run(text)
        assert errors["node-gpu-capacity-missing"] == {"count": "0"}
        assert "pasted-error-unexplained" in codes
        assert asks >= _NODE_ASKS


def test_a_node_with_gpus_registered_and_none_allocatable_is_not_the_plugin_serving_none():
    errors, _, asks = _run(_PLUGIN_58)
    assert "node-gpu-capacity-missing" not in errors
    assert not asks & _NODE_ASKS


# the ask `singularity exec --nv <sif-file> nvidia-smi`, its image file asked for first by the command that lists them
_SIF_LISTER = ("find", ".", "-maxdepth", "3", "-name", "*.sif", "-o", "-name", "*.simg")


def _whys(text: str) -> list[str]:
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    return [a.why for a in ask_for(report.facts, report.findings)]


def test_a_container_run_by_apptainer_without_its_command_shown_asks_for_nvidia_smi_inside_with_nv():
    # tests/blind/plans9 case 943 (alphafold_singularity#41): a Slurm job's Singularity run failing on CUDA, no command
    # shown; singularity#4783: --nv given and libcuda.so.1 still missing. Whether the container gets the GPU with --nv,
    # on the machine that runs it, is asked (the image file listed to fill it in).
    case = next(_PLANS9.glob("943-*")) / "input.txt"
    for text in (case.read_text(encoding="utf-8"), _SINGULARITY_4783):
        _, _, asks = _run(text)
        assert _SIF_LISTER in asks
        assert any("singularity exec --nv <sif-file> nvidia-smi" in why for why in _whys(text))


def test_an_apptainer_command_shown_without_nv_is_not_asked_again():
    # the quiet twin: the command itself shows no --nv (plans9 931, MuRaL#6): the finding's plan runs nvidia-smi with --nv
    case = next(_PLANS9.glob("931-*")) / "input.txt"
    for text in (case.read_text(encoding="utf-8"), _MURAL_6):
        _, _, asks = _run(text)
        assert _SIF_LISTER not in asks


def test_the_hook_refused_its_device_rules_sets_no_cgroups_where_docker_runs():
    # docker inside a Proxmox LXC container on cgroup v2 (the catalogue's example: NVIDIA/libnvidia-container issue 154,
    # https://github.com/NVIDIA/libnvidia-container/issues/154), and Portainer's compose stack inside another
    # (tests/blind/plans10/cases/1052-frigate8652-proxmox-lxc-nested-docker-gpus-all-bpf-cgroup-device-not-permitted)
    for text in (
        _example("libnvidia-container-154-lxc-docker-bpf-prog-query-not-permitted.txt"),
        (
            Path(__file__).resolve().parents[1]
            / "blind/plans10/cases/1052-frigate8652-proxmox-lxc-nested-docker-gpus-all-bpf-cgroup-device-not-permitted"
            / "input.txt"
        ).read_text(encoding="utf-8"),
    ):
        errors, codes, _ = _run(text)
        assert "container-hook-cgroup-not-permitted" in errors
        assert "pasted-error-unexplained" not in codes
        finding = codes["container-no-gpu"]
        argvs = _argvs(finding)
        assert ("sed", "-i", "s/^#\\?no-cgroups = .*/no-cgroups = true/", "/etc/nvidia-container-runtime/config.toml") in (
            _root(finding)
        )
        run = next(a for a in argvs if a[:2] == ("docker", "run"))
        assert {"/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"} <= set(run)
    # quiet twin: runc's own query failing on a kernel without BPF cgroup support is no NVIDIA hook and no LXC
    errors, codes, _ = _run(
        "docker: Error response from daemon: OCI runtime create failed: runc create failed: unable to start container "
        "process: error during container init: error setting cgroup config for procHooks process: "
        "bpf_prog_query(BPF_CGROUP_DEVICE) failed: function not implemented: unknown.\n"
    )
    assert "container-hook-cgroup-not-permitted" not in errors
    assert "container-no-gpu" not in codes


def test_a_rootless_daemons_hook_denied_devices_allow_sets_no_cgroups_and_restarts_the_user_daemon():
    # rootless docker on cgroup v1: the container stays in the user's session cgroup (user.slice), whose devices.allow
    # the hook may not open (https://github.com/moby/moby/issues/38729, the catalogue's example; and
    # tests/blind/plans11/cases/1101-nvdocker1155-rootless-docker-nvidia-container-cli-cgroup-devices-allow-permission-denied)
    case = (
        _BLIND_DIR
        / "plans11/cases/1101-nvdocker1155-rootless-docker-nvidia-container-cli-cgroup-devices-allow-permission-denied"
        / "input.txt"
    )
    config = "/etc/nvidia-container-runtime/config.toml"
    for text, rerun in (
        (_example("moby-38729-rootless-docker-hook-devices-allow-denied.txt"), None),
        # (the reporter's own check, quoted inline before the sentence's full stop: given back with the toolkit's sample
        # image, since NVIDIA took the nvidia/cuda:10.0-base tag down: h257's planner.remedy._gone_cuda_image_check)
        (case.read_text(encoding="utf-8"), ("docker", "run", "--gpus", "all", "ubuntu", "nvidia-smi")),
    ):
        errors, codes, _ = _run(text)
        assert errors["container-hook-devices-allow-denied"]["path"] == "/sys/fs/cgroup/devices/user.slice/devices.allow"
        assert "pasted-error-unexplained" not in codes
        finding = codes["container-no-gpu"]
        argvs = _argvs(finding)
        assert _root(finding) == {("sed", "-i", "s/^#\\?no-cgroups = .*/no-cgroups = true/", config)}
        restart = argvs.index(("systemctl", "--user", "restart", "docker"))
        assert argvs.index(("sed", "-i", "s/^#\\?no-cgroups = .*/no-cgroups = true/", config)) < restart
        run = next(a for a in argvs if a[:2] == ("docker", "run"))
        assert argvs.index(run) > restart
        assert "--device" not in run  # (a rootless container has no device cgroup to pass the nodes through)
        if rerun is not None:
            assert run == rerun
    # quiet twin: enroot's hook in a Slurm step (https://github.com/NVIDIA/libnvidia-container/issues/313) is denied
    # the same file of the step's cgroup; no rootless docker daemon is there, so no docker plan
    errors, codes, _ = _run(_example("libnvidia-container-313-enroot-slurm-devices-allow-denied.txt"))
    assert "container-hook-devices-allow-denied" in errors
    assert "container-no-gpu" not in codes


def test_the_gpu_operators_validator_crashing_asks_which_validation_fails_and_the_nodes_containerd_config():
    # the validator's init containers failing: the kubelet's table on RKE2 (https://github.com/NVIDIA/gpu-operator/issues/545,
    # the catalogue's example) and the reporter's words after a power loss (tests/blind/plans11/cases/1118-gpuop1982-
    # rke2-rhel89-after-power-loss-operator-validator-toolkit-validation-crashloop-ask)
    case = (
        _BLIND_DIR
        / "plans11/cases/1118-gpuop1982-rke2-rhel89-after-power-loss-operator-validator-toolkit-validation-crashloop-ask"
    )
    for text in (
        _example("gpu-operator-545-rke2-operator-validator-init-crashloop.txt"),
        (case / "input.txt").read_text(encoding="utf-8"),
    ):
        errors, _, asks = _run(text)
        assert "gpu-operator-validator-crashing" in errors
        assert ("kubectl", "describe", "pods", "-A", "-l", "app=nvidia-operator-validator") in asks
        assert ("ls", "/run/nvidia/validations") in asks
        assert any(
            a[:3] == ("grep", "-n", "nvidia") and "/var/lib/rancher/rke2/agent/etc/containerd/config.toml" in a for a in asks
        )
    # quiet twin: the operator's driver pod crashing (gpu-operator issue 130, its catalogue example) is the driver's
    # entry; no validator is named crashing there
    errors, _, asks = _run(_example("gpu-operator-130-driver-daemonset-crashloop.txt"))
    assert "gpu-operator-driver-crashing" in errors and "gpu-operator-validator-crashing" not in errors


_BLIND_DIR = Path(__file__).resolve().parents[1] / "blind"
_BLIND = Path(__file__).resolve().parents[1] / "blind"


def test_error_804_in_a_container_beside_the_hosts_driver_is_the_images_cuda_newer_than_the_driver():
    # llama.cpp's server-cuda image on a GTX 1080 Ti with driver 550 (tests/blind/plans10/cases/1033-llamacpp24418-
    # debian13-docker-server-cuda-image-driver-550-error-804-gtx1080ti), and crackq's container whose nvidia-smi says
    # CUDA 12.3 on a 535.129.03 host (https://github.com/f0cker/crackq/issues/43, the catalogue's example)
    llama = (
        _BLIND / "plans10/cases/1033-llamacpp24418-debian13-docker-server-cuda-image-driver-550-error-804-gtx1080ti"
    ) / "input.txt"
    for text, image, supports in (
        (llama.read_text(encoding="utf-8"), "ghcr.io/ggml-org/llama.cpp:server-cuda", "12.4"),
        (_example("crackq-43-docker-driver-535-image-cuda-123-error-804.txt"), "<image>", "12.2"),
    ):
        errors, codes, asks = _run(text)
        assert "cuda-compat-not-supported" in errors
        assert "pasted-error-unexplained" not in codes
        finding = codes["toolkit-newer-than-driver"]
        assert finding.remediation.where == "the host"
        inspect = _argvs(finding)[0]
        assert inspect[:4] == ("docker", "image", "inspect", image)
        assert f"CUDA {supports}" in finding.remediation.alternative.summary
        assert ("nvcc", "--version") not in asks  # no toolkit builds anything here
    # quiet twin: on bare metal (the catalogue's cuSignal example) a compat library on LD_LIBRARY_PATH is the other
    # cause. (The same error in a container with no driver shown is decided too since, its fix reading the driver
    # first: tests/pasted/test_catalogue_cuda_errors.py, test_error_804_in_a_container_alone_decides_*.)
    for text in (_example("cusignal-398-cupy-compat-not-supported-on-device.txt"),):
        errors, codes, _ = _run(text)
        assert "cuda-compat-not-supported" in errors
        assert "toolkit-newer-than-driver" not in codes


def test_error_804_in_an_image_built_on_a_cuda_the_driver_supports_is_not_the_images_cuda():
    # tests/blind/plans14 case 1412: an image built from nvidia/cudagl:10.2-devel-ubuntu18.04 on a host whose driver
    # 440.33.01 supports CUDA 10.2: the image's CUDA is not newer, so no driver upgrade is ordered; the compat library
    # on the loader's path is asked for instead (the twins that still fire: the test above, an image of no CUDA tag,
    # the llama.cpp server, and crackq's CUDA 12.3 image on a 12.2 driver)
    case = next((_BLIND / "plans14" / "cases").glob("1412-*")) / "input.txt"
    errors, codes, asks = _run(case.read_text(encoding="utf-8"))
    assert "cuda-compat-not-supported" in errors
    assert "toolkit-newer-than-driver" not in codes
    assert "pasted-error-unexplained" in codes
    assert {("printenv", "LD_LIBRARY_PATH"), ("ls", "/usr/local/cuda/compat")} <= asks
    assert not any(f.remediation and f.remediation.component == "driver" for f in codes.values())


def test_a_components_asks_in_a_pod_ask_its_runtime_class_and_put_the_driver_asks_on_the_node():
    # Jellyfin's NVENC in a K3s pod (tests/blind/plans10/cases/1041-jellyfin9620-k3s-device-plugin-rtx-a2000-nvenc-
    # transcode-buffers-no-error-ask), Ollama in a pod (tests/blind/plans7/cases/650-ollama3211-kubernetes-pod-no-nvml-
    # discovered-node-works-ask): the pod's runtime class and GPU limit decide whether any driver library reaches it
    pods = (
        "plans10/cases/1041-jellyfin9620-k3s-device-plugin-rtx-a2000-nvenc-transcode-buffers-no-error-ask",
        "plans7/cases/650-ollama3211-kubernetes-pod-no-nvml-discovered-node-works-ask",
    )
    for case in pods:
        report = _report((_BLIND / case / "input.txt").read_text(encoding="utf-8"))
        asks = ask_for(report.facts, report.findings)
        limits = [
            a for a in asks if a.command.argv[:3] == ("kubectl", "get", "pods") and "runtimeClassName" in a.command.argv[-1]
        ]
        assert len(limits) == 1, case
    report = _report((_BLIND / pods[0] / "input.txt").read_text(encoding="utf-8"))
    notes = {a.command.argv[0]: a.command.note for a in ask_for(report.facts, report.findings)}
    assert notes["dpkg"] == notes["grep"] == "on the node that runs the pod"
    # quiet twin: the same component in a podman container (tests/blind/plans10/cases/1040-jellyfin11003-rocky8-podman-
    # p2000-ffmpeg-video-copy-remux-no-gpu-needed-control): the host's asks, no kubectl
    case = "plans10/cases/1040-jellyfin11003-rocky8-podman-p2000-ffmpeg-video-copy-remux-no-gpu-needed-control"
    report = _report((_BLIND / case / "input.txt").read_text(encoding="utf-8"))
    asks = ask_for(report.facts, report.findings)
    assert not [a for a in asks if a.command.argv[:1] == ("kubectl",)]
    assert {a.command.note for a in asks if a.command.argv[:1] == ("dpkg",)} == {"on the host"}


def _report(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return report


def test_the_plugins_invalid_discovery_strategy_asks_the_nodes_containerd_and_toolkit():
    # NVIDIA/k8s-device-plugin#1469 (the catalogue's example: the error alone, Helm's 0.18.0) and tests/blind/plans14
    # case 1410 (the static manifest's pod log on a containerd node, its default runtime said to be nvidia): the plugin's
    # auto discovery found no NVML in its pod; open, with the node's runtime, containerd's table and the toolkit asked
    case = next((EXAMPLES.parents[1] / "blind" / "plans14" / "cases").glob("1410-*")) / "input.txt"
    for text in (_example("k8s-device-plugin-1469-helm-0180-invalid-device-discovery-strategy.txt"), case.read_text("utf-8")):
        errors, found, asks = _run(text)
        assert "device-plugin-no-nvml" in errors
        assert "pasted-error-unexplained" in found, found.keys()
        assert ("kubectl", "get", "nodes", "-o", "wide") in asks
        assert ("nvidia-ctk", "--version") in asks
        assert any(a[:3] == ("containerd", "config", "dump") for a in asks), asks
        # no driver is installed and no reboot ordered before the node answers
        assert not any(a[0] in ("apt-get", "reboot", "helm") for f in found.values() if f.remediation for a in _argvs(f))


def test_the_discovery_strategy_flags_help_is_not_the_plugins_failure():
    # the quiet twin: Project-HAMi/HAMi#1940 (its pasted help text, verbatim): the flag that names the strategies, in a
    # plugin's usage, is no failure
    text = (
        "--device-discovery-strategy value the strategy to use to discover devices: 'auto', 'nvml', or 'tegra' "
        '(default: "auto") [$DEVICE_DISCOVERY_STRATEGY]\n'
    )
    errors, found, _ = _run(text)
    assert "device-plugin-no-nvml" not in errors
    assert "pasted-error-unexplained" not in found


# --- h211: requests refused before a GPU is reached (compose, docker's CLI and daemon, podman, CDI, NVIDIA's banner) ---


def test_an_old_docker_compose_refusing_the_gpu_reservation_runs_the_file_with_compose_v2():
    for name in (
        "docker-compose-8142-compose-1171-reservations-devices-unexpected.txt",
        "gpu-jupyter-46-compose-reservations-devices-unexpected.txt",
    ):
        errors, codes, _ = _run(_example(name))
        assert errors["compose-gpu-option-unknown"]["option"] == "devices", name
        cmds = _argvs(codes["container-no-gpu"])
        assert cmds[0] == ("docker", "compose", "version"), name
        assert cmds[-1] == ("docker", "compose", "up", "-d"), name
    # the reporter's own docker-compose command shown: the same command, its file and options kept, by Compose v2; and
    # the plan does not end by running the old docker-compose again (it would refuse the file as before)
    errors, codes, _ = _run(_example("instant-ngp-929-compose-reservations-devices-no-regex.txt"))
    assert errors["compose-gpu-option-unknown"]["option"] == "devices"
    own = ("docker", "compose", "-f", ".devcontainer/docker-compose.yml", "build", "instant-ngp")
    assert _argvs(codes["container-no-gpu"])[-1] == own
    plan = check(
        ReplayHost(
            validate_snapshot(
                read_pasted([Source("t", _example("instant-ngp-929-compose-reservations-devices-no-regex.txt"))]), "t"
            )
        ),
        CheckRequest(),
    ).plan
    assert [tuple(map(str, c.argv)) for s in plan.steps for c in s.commands if isinstance(c, Cmd)][-1] == own


def test_swarm_refusing_the_reservation_is_not_an_old_docker_compose():
    # docker stack deploy's own words: swarm has no Compose Specification GPU reservation, whatever compose is installed
    errors, codes, _ = _run(_example("docker-cli-3051-stack-deploy-reservations-devices-not-allowed.txt"))
    assert "compose-gpu-option-unknown" not in errors
    assert "container-no-gpu" not in codes


def test_an_old_docker_compose_refusing_runtime_brings_the_file_up_with_compose_v2():
    errors, codes, _ = _run(_example("frigate-767-compose-unsupported-runtime.txt"))
    assert errors["compose-gpu-option-unknown"] == {
        "entry": "compose-runtime-unsupported",
        "option": "runtime",
        "service": "frigate",
        "since": "1.27.0",
    }
    assert _argvs(codes["container-no-gpu"])[-1] == ("docker", "compose", "up", "-d")
    # two services refused (the paste keeps one line of a message): every service comes up, not the first named alone
    _, codes, _ = _run(_example("sirf-superbuild-587-compose-unsupported-runtime.txt"))
    assert ("docker", "compose", "up", "-d") in _argvs(codes["container-no-gpu"])


def test_docker_2010s_unknown_runtime_specified_registers_the_nvidia_runtime():
    for name in (
        "nvidia-docker-578-unknown-runtime-specified-nvidia.txt",
        "nvidia-docker-1236-unknown-runtime-specified-nvidia.txt",
        "flightmare-112-unknown-runtime-specified-nvidia.txt",
    ):
        errors, codes, _ = _run(_example(name))
        assert errors["container-unknown-runtime"]["runtime"] == "nvidia", name
        f = codes["container-no-gpu"]
        assert ("nvidia-ctk", "runtime", "configure", "--runtime=docker") in _root(f), name
        assert ("systemctl", "restart", "docker") in _root(f), name


def test_a_docker_client_before_1903_without_gpus_shows_the_client_release_first():
    for name in (
        "nvidia-docker-1199-unknown-flag-gpus-client-1712.txt",
        "pytorch-serve-627-unknown-flag-gpus.txt",
        "gpu-monitoring-tools-112-unknown-flag-gpus.txt",
    ):
        errors, codes, _ = _run(_example(name))
        assert "docker-cli-before-gpus" in errors, name
        assert _argvs(codes["container-no-gpu"])[0] == ("docker", "version"), name
    _, codes, _ = _run(_example("nvidia-docker-1199-unknown-flag-gpus-client-1712.txt"))
    # (nvidia/cuda:9.0-base is a tag NVIDIA took down: the closing check runs the toolkit's sample image instead)
    assert _argvs(codes["container-no-gpu"])[-1] == ("docker", "run", "--gpus", "all", "ubuntu", "nvidia-smi")


def test_gpus_all_handed_over_as_one_argument_is_not_an_old_client():
    # pflag names the whole argument ("--gpus all"): the caller joined the option and its value; the old-client entry
    # stays quiet, and the fix is the request as an argument docker reads (the planner asks the client's release first)
    errors, codes, _ = _run(_example("vscode-remote-release-2366-unknown-flag-gpus-all-one-argument.txt"))
    assert "docker-cli-before-gpus" not in errors
    assert errors["docker-gpus-one-argument"]["value"] == "all"
    cmds = _argvs(codes["container-no-gpu"])
    assert cmds == [("docker", "run", "--rm", "--gpus=all", "ubuntu", "nvidia-smi", "-L")]


def test_podman_taking_a_cdi_name_for_a_path_asks_its_release_and_checks_the_device():
    for name, device in (
        ("nvidia-container-toolkit-63-podman-301-stat-nvidia-com-gpu.txt", "nvidia.com/gpu=0"),
        ("podman-20257-podman-344-stat-nvidia-com-gpu.txt", "nvidia.com/gpu=0"),
        ("podman-24474-podman-344-stat-nvidia-com-gpu-all.txt", "nvidia.com/gpu=all"),
    ):
        errors, codes, _ = _run(_example(name))
        assert errors["podman-cdi-device-as-path"]["device"] == device, name
        cmds = _argvs(codes["container-no-gpu"])
        assert cmds[0] == ("podman", "--version"), name
        assert cmds[-1][:5] == ("podman", "run", "--rm", "--device", device), name


def test_a_cdi_spec_naming_a_render_node_gone_is_generated_again():
    errors, codes, _ = _run(_example("nvidia-container-toolkit-885-cdi-host-device-renderd129.txt"))
    assert errors["cdi-host-device-missing"]["device"] == "/dev/dri/renderD129"
    f = codes["container-no-gpu"]
    cmds = _argvs(f)
    assert cmds[0] == ("ls", "-l", "/etc/cdi", "/var/run/cdi")
    assert ("nvidia-ctk", "cdi", "generate", "--output=/etc/cdi/nvidia.yaml") in _root(f)
    assert cmds[-1][:2] == ("podman", "run")


def test_a_cdi_spec_naming_a_missing_uvm_node_asks_instead_of_regenerating():
    # /dev/nvidia-uvm is made when the nvidia-uvm module loads: a stale spec or a module not loaded, the asks decide
    text = (
        "$ podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi\n"
        'Error: setting up CDI devices: failed to inject devices: failed to stat CDI host device "/dev/nvidia-uvm": '
        "no such file or directory\n"
    )
    errors, codes, asks = _run(text)
    assert errors["cdi-host-device-missing"]["device"] == "/dev/nvidia-uvm"
    assert "container-no-gpu" not in codes
    assert ("ls", "-l", "/dev/dri", "/dev/nvidia-uvm") in asks


def test_nvidias_banner_after_a_docker_run_without_gpus_is_a_container_without_the_gpu():
    errors, codes, _ = _run(_example("panoptic-segmentation-20-ngc-banner-docker-run-without-gpus.txt"))
    assert "image-driver-not-detected" in errors
    assert "container-no-gpu" in codes


def test_nvidias_banner_beside_a_run_with_gpus_all_asks_rather_than_says_started_without():
    # the banner's own advice ("Use 'nvidia-docker run' ...") is no docker run without GPUs; WSL 2 printed the banner
    # with the GPU working (nvidia-docker#1548): the image started with --gpus all decides
    errors, codes, asks = _run(_example("nvidia-docker-1548-wsl-ngc-banner-with-gpus-all.txt"))
    assert "image-driver-not-detected" in errors and "docker-run-without-gpus" not in errors
    assert "container-no-gpu" not in codes
    assert ("docker", "run", "--rm", "--gpus", "all", "nvcr.io/nvidia/tensorflow:20.03-tf2-py3", "nvidia-smi") in asks


def test_a_pyxis_container_finding_no_driver_sets_nvidia_visible_devices_for_the_step():
    errors, codes, _ = _run(_example("enroot-205-pyxis-srun-image-without-nvidia-visible-devices.txt"))
    assert errors["pyxis-container-started"]["image"] == "myimage"
    f = codes["container-no-gpu"]
    envs = {(c.name, c.value) for c in f.remediation.commands if isinstance(c, SetEnv)}
    assert envs == {("NVIDIA_VISIBLE_DEVICES", "all"), ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility")}
    # the step itself asks for the GPU: the cluster's plain GPU request (which would drop the variables) does not replace it
    assert _argvs(f)[-1] == ("srun", "--gpus=1", "--container-image=myimage", "nvidia-smi", "-L")


def test_a_pyxis_container_on_a_node_without_nvidia_container_cli_is_not_the_image():
    # enroot's hook names the missing CLI: the node's administrator installs it; the image's environment is not asked
    text = (
        "srun --gpus=1 --container-image=nvcr.io#nvidia/pytorch:23.10-py3 python -c 'import torch'\n"
        + _example("pyxis-110-enroot-nvidia-container-cli-not-found.txt")
        + "RuntimeError: Found no NVIDIA driver on your system.\n"
    )
    errors, codes, _ = _run(text)
    assert "pyxis-container-started" in errors and "enroot-container-cli-missing" in errors
    assert not any(
        isinstance(c, SetEnv) and c.name == "NVIDIA_VISIBLE_DEVICES"
        for f in codes.values()
        if f.remediation
        for c in f.remediation.commands
    )


def test_a_mig_mode_pending_behind_a_held_gpu_frees_resets_and_checks_it():
    errors, codes, _ = _run(_example("gpu-operator-118-mig-pending-disable-in-use-persistenced.txt"))
    assert errors["mig-mode-pending"] == {"entry": "nvidia-smi-mig-mode-pending", "state": "disable", "bus": "00000000:C1:00.0"}
    f = codes["mig-enabled"]
    cmds = _argvs(f)
    reset = ("nvidia-smi", "--gpu-reset", "-i", "00000000:C1:00.0")
    assert reset in _root(f)
    # the daemon that held the GPU in the thread is stopped before the reset and started after it
    assert cmds.index(("systemctl", "stop", "nvidia-persistenced")) < cmds.index(reset)
    assert cmds.index(reset) < cmds.index(("systemctl", "start", "nvidia-persistenced"))
    assert [tuple(map(str, c.argv)) for c in f.remediation.alternative.commands] == [("reboot",)]


def test_mig_instances_listed_are_not_a_pending_mode():
    # nvidia-smi -L with MIG devices: MIG is on and in effect; nothing waits for a reset
    text = (
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n"
        "  MIG 3g.20gb     Device  0: (UUID: MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f)\n"
    )
    errors, codes, _ = _run(text)
    assert "mig-mode-pending" not in errors
    assert "mig-enabled" not in codes or "pending" not in codes["mig-enabled"].title


def test_a_bind_of_the_hosts_run_over_the_persistenced_socket_is_taken_out_of_the_run():
    # the hook creates /run/nvidia-persistenced/socket in the container before binding the host's socket onto it;
    # the run's own bind of the host's socket (nvidia-docker#885), or of the whole /var/run (the blind case
    # tests/blind/plans15/cases/1520-*), makes that path a live socket: the fix is the run without that bind
    errors, codes, _ = _run(_example("nvidia-docker-885-persistenced-socket-bound-into-container.txt"))
    assert errors["container-persistenced-socket-bound"]["path"].endswith("/merged/run/nvidia-persistenced/socket")
    cmds = _argvs(codes["container-no-gpu"])
    assert cmds == [
        ("docker", "run", "--runtime=nvidia", "-it", "-e", "NVIDIA_VISIBLE_DEVICES=all", "ubuntu:16.04", "bash"),
        ("nvidia-smi",),
    ]
    text = (
        "$ docker run --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=all --volume=/run:/run -it debian bash\n"
        "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/abc/merged/run/"
        "nvidia-persistenced/socket: no such device or address: unknown.\n"
    )
    _, codes, _ = _run(text)
    assert _argvs(codes["container-no-gpu"])[0] == (
        "docker",
        "run",
        "--runtime=nvidia",
        "-e",
        "NVIDIA_VISIBLE_DEVICES=all",
        "-it",
        "debian",
        "bash",
    )


def test_the_persistenced_socket_error_without_a_bind_shown_asks_for_the_binds():
    # quiet twin (nvidia-docker#1300): the run the text shows binds nothing under /run; what the container binds,
    # and whether the daemon runs, are asked, and no run is rewritten
    errors, codes, asks = _run(_example("nvidia-docker-1300-persistenced-socket-no-bind-shown.txt"))
    assert "container-persistenced-socket-bound" in errors
    assert "container-no-gpu" not in codes
    assert ("systemctl", "is-active", "nvidia-persistenced") in asks
    # a bind elsewhere (a data directory) is no bind over the socket either
    text = (
        "$ docker run --gpus all -v /data/run:/data/run ubuntu nvidia-smi\n"
        "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/abc/merged/run/"
        "nvidia-persistenced/socket: no such device or address: unknown.\n"
    )
    _, codes, _ = _run(text)
    assert "container-no-gpu" not in codes


# --- blind set 21's container and cluster misses (helper h290) ------------------------------------------------------


def test_go_nvlibs_nvml_not_detected_asks_the_runtime_the_pods_really_get():
    """The plugin since v0.15 says its dlopen failure through go-nvlib's HasNvml: the node's runtime gave its pod no
    driver; asked on the node through the CRI that runs the pods (K3s and k0s run their own containerd), never a driver."""
    for text in (
        _example("k8s-device-plugin-826-k0s-non-nvml-platform.txt"),
        "I0117 15:43:15.907336 1 factory.go:107] Detected non-NVML platform: could not load NVML library: "
        "libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n",
    ):
        errors, findings, asks = _run(text)
        assert "device-plugin-no-nvml" in errors
        assert ("kubectl", "get", "runtimeclass") in asks
        assert ("crictl", "info", "grep", "-i", "-E", "defaultRuntimeName|nvidia") in asks
        assert not any(f.remediation and f.remediation.component == "driver" for f in findings.values())


def test_pyxis_options_the_command_does_not_know_ask_for_the_plugin_not_the_job():
    """srun or sbatch rejecting --container-image: pyxis's SPANK plugin is not loaded there (or too old for sbatch); no
    job ran, so the job's allocation is not asked, the plugin stack is."""
    for text in (
        _example("pyxis-58-sbatch-unrecognized-container-image.txt"),
        "srun: unrecognized option '--container-image'\nTry \"srun --help\" for more information\n",
    ):
        errors, _findings, asks = _run(text)
        assert "pyxis-not-loaded" in errors
        assert ("srun", "--help", "grep", "-i", "container-image") in asks
        assert not any(a[:2] == ("scontrol", "show") for a in asks)


def test_an_unparsable_container_requirement_skips_it_not_the_driver():
    """libnvidia-container's "requirement error: invalid expression" is the container's NVIDIA_REQUIRE_* unreadable: the
    fix is NVIDIA_DISABLE_REQUIRE=true (or no GPU for a CPU image), on docker or on the cluster's workload."""
    _errors, findings, _asks = _run(_example("localai-4789-docker-requirement-invalid-expression.txt"))
    f = findings["container-no-gpu"]
    assert ("docker", "run", "-e", "NVIDIA_DISABLE_REQUIRE=true", "--gpus", "all", "<image>") in _argvs(f)
    assert f.remediation.component == "container"
    alt = [tuple(map(str, c.argv)) for c in f.remediation.alternative.commands if isinstance(c, Cmd)]
    assert ("docker", "run", "-e", "NVIDIA_VISIBLE_DEVICES=void", "<image>") in alt
    pod = (
        "Deploying it on Kubernetes, the pod never starts:\n"
        "Error: container create failed: runc create failed: error running hook #0: error running hook: exit status 1, "
        "stdout: , stderr: nvidia-container-cli.real: requirement error: invalid expression\n"
    )
    _errors, findings, _asks = _run(pod)
    argvs = _argvs(findings["container-no-gpu"])
    # (the workload by KIND/NAME, as kubectl set env takes it: plans21/2150)
    assert ("kubectl", "set", "env", "deployment/<deployment>", "NVIDIA_DISABLE_REQUIRE=true") in argvs
    assert "driver" not in {f.remediation.component for f in findings.values() if f.remediation}


def test_a_satisfied_or_unsatisfied_requirement_is_not_an_invalid_one():
    errors, findings, _asks = _run(
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver\n"
    )
    assert "container-require-invalid" not in errors


_OLLAMA_PS_CPU = (
    "root@d50a3f8d8474:/# ollama ps\n"
    "NAME                              ID              SIZE      PROCESSOR    UNTIL\n"
    "llama3.2:3b                       a80c4f17acd5    3.1 GB    100% CPU     4 minutes from now\n"
)


def test_a_model_on_the_cpu_after_ollamas_installer_found_the_driver_is_not_a_clean_bill():
    """`ollama ps` at 100% CPU is Ollama's way on a machine without a GPU; its installer's "NVIDIA GPU installed." (the
    driver's nvidia-smi found, scripts/install.sh) says the GPU was meant: not decided, never "no problems"."""
    installer = _example("ollama-4395-install-nvidia-gpu-installed.txt")
    errors, findings, _asks = _run(installer + "\n" + _OLLAMA_PS_CPU)
    assert "ollama-install-nvidia-said" in errors
    assert "pasted-error-unexplained" in findings
    # the installer's line alone is no failure, nor the CPU run alone (a machine without an NVIDIA GPU)
    for text in (installer, _OLLAMA_PS_CPU):
        _errors, findings, _asks = _run(text)
        assert "pasted-error-unexplained" not in findings
