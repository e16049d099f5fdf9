"""docs/findings: containers in pasted reports (issues 27/28). Where the text says the failing commands ran in a
container, NVML's failures are judged as a container's (the daemon-reload's Unknown Error, a container older than the
host's driver), and the container runtime's own messages name the layer the fix belongs to: the host, the image or
the container's options, never a driver inside the container."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.pasted.ask import ask_for
from tests.spec.machine import argv_words, pasted_findings, pasted_report
from tests.spec.registry import FIRES, QUIET, states

CASES = Path(__file__).resolve().parents[1] / "blind" / "plans2" / "cases"


_report = pasted_report
_codes = pasted_findings
_argv = argv_words


def _plans2(prefix: str) -> str:
    return next(CASES.glob(prefix + "-*")).joinpath("input.txt").read_text(encoding="utf-8")


UNKNOWN_IN_CONTAINER = (
    "After systemctl daemon-reload, inside the container:\n$ nvidia-smi\nFailed to initialize NVML: Unknown Error\n"
)


@states("driver-unreachable", FIRES)
def test_nvmls_unknown_error_in_a_container_the_text_names_is_the_daemon_reload_fix_on_the_host():
    f = _codes(UNKNOWN_IN_CONTAINER)["driver-unreachable"]
    assert f.remediation.where == "the host" and f.remediation.component == "container"
    assert _argv(f.remediation) == [
        ("docker", "info", "--format", "{{.CgroupDriver}} cgroup v{{.CgroupVersion}}"),
        ("nvidia-ctk", "system", "create-dev-char-symlinks", "--create-all"),
        ("echo", _UDEV_RULE),
        ("docker", "restart", "<container>"),
    ]
    # NVIDIA/nvidia-docker#1650: containerd under Kubernetes (its cri-containerd cgroup): containerd's own cgroup
    # driver is read, not Docker's, and the pod is deleted
    f = _codes(_plans2("105"))["driver-unreachable"]
    argv = _argv(f.remediation)
    assert argv[0] == ("grep", "-n", "SystemdCgroup", "/etc/containerd/config.toml")
    assert argv[-1] == ("kubectl", "delete", "pod", "<pod>")
    assert not any(a[0] in ("reboot", "dmesg", "docker") for a in argv)
    assert "native.cgroupdriver" not in f.remediation.summary and "SystemdCgroup = false" in f.remediation.summary


# NVIDIA's udev rule that keeps the /dev/char links (NVIDIA/nvidia-container-toolkit issue 48, "Workarounds")
_UDEV_RULE = (
    'ACTION=="add", DEVPATH=="/bus/pci/drivers/nvidia", RUN+="/usr/bin/nvidia-ctk system create-dev-char-symlinks --create-all"'
)
# https://github.com/NVIDIA/nvidia-docker/issues/1671 (a comment, verbatim): the container's own prompt (its id as the
# host name), nvidia-smi working, then failing in the same running container after a daemon-reload
_ISSUE_1671 = """docker run --gpus all --rm -it nvidia/cuda:11.4.2-base-ubuntu18.04 bash
root@098b49afe624:/# nvidia-smi
Fri Sep  2 21:54:31 2022
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 510.68.02    Driver Version: 510.68.02    CUDA Version: 11.6     |
|-------------------------------+----------------------+----------------------+

This works until you do `systemctl daemon-reload` either manually or automatically through the OS (I assume, since it eventually will fail).

(on host):
`systemctl daemon-reload`

(inside same running container):
root@098b49afe624:/# nvidia-smi
Failed to initialize NVML: Unknown Error
"""
PLANS9 = Path(__file__).resolve().parents[1] / "blind" / "plans9" / "cases"


@states("driver-unreachable", FIRES)
def test_nvmls_unknown_error_from_a_docker_exec_is_the_containers_not_the_hosts_driver():
    # tests/blind/plans9 case 938 (ollama#14658): `docker exec -it ollama nvidia-smi` fails with Unknown Error, then
    # the host's own nvidia-smi lists the A30. What a docker exec prints is the container's state: the finding is the
    # container's lost device access, fixed on the host, and the container docker exec names is the one restarted.
    text = next(PLANS9.glob("938-*")).joinpath("input.txt").read_text(encoding="utf-8")
    f = _codes(text)["driver-unreachable"]
    assert f.remediation.where == "the host" and f.remediation.component == "container"
    argv = _argv(f.remediation)
    assert argv[0][:2] == ("docker", "info") and argv[-1] == ("docker", "restart", "ollama")
    assert ("nvidia-ctk", "system", "create-dev-char-symlinks", "--create-all") in argv
    assert "native.cgroupdriver=cgroupfs" in f.remediation.summary
    # nvidia-docker#1671: the container's id as its prompt's host name, the same fix
    f = _codes(_ISSUE_1671)["driver-unreachable"]
    assert ("nvidia-ctk", "system", "create-dev-char-symlinks", "--create-all") in _argv(f.remediation)
    assert _argv(f.remediation)[-1] == ("docker", "restart", "<container>")


@states("driver-unreachable", QUIET)
def test_a_failure_after_the_next_host_prompt_is_the_hosts_not_the_docker_execs():
    # the quiet twin: a docker exec that printed nothing wrong, then the host's own nvidia-smi failing: the host's
    # driver, not a container's lost devices (no nvidia-ctk, no docker restart)
    text = (
        "$ sudo docker exec -it ollama ls /usr/bin\nollama\n"
        "$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that "
        "the latest NVIDIA driver is installed and running.\n"
    )
    f = _codes(text).get("driver-unreachable")
    assert f is None or not any(a[0] in ("nvidia-ctk", "docker") for a in _argv(f.remediation))


@states("driver-unreachable", QUIET)
def test_nvmls_unknown_error_with_no_container_named_is_not_the_daemon_reload_fix():
    f = _codes("$ nvidia-smi\nFailed to initialize NVML: Unknown Error\n")["driver-unreachable"]
    assert not any(a[0] == "nvidia-ctk" for a in _argv(f.remediation))
    # a container only built or pulled is not where nvidia-smi ran
    text = "I built the docker image and pulled the container image.\n$ nvidia-smi\nFailed to initialize NVML: Unknown Error\n"
    f = _codes(text)["driver-unreachable"]
    assert not any(a[0] == "nvidia-ctk" for a in _argv(f.remediation))


@states("driver-library-mismatch", FIRES)
def test_a_mismatch_in_an_old_container_recreates_it_from_the_host():
    f = _codes(_plans2("113"))["driver-library-mismatch"]  # NVIDIA/nvidia-docker#737: 'Driver / library' spelled apart
    r = f.remediation
    assert r.where == "the host"
    assert [a[:2] for a in _argv(r)] == [("nvidia-smi",), ("docker", "commit"), ("docker", "rm"), ("docker", "run")]
    assert not any(a[0] in ("rmmod", "modprobe", "reboot") for a in _argv(r))
    assert r.alternative is not None and _argv(r.alternative)[-1] == ("reboot",)


@states("container-no-gpu", FIRES)
def test_an_image_that_ships_driver_libraries_is_rebuilt_without_them():
    f = _codes(_plans2("115"))["container-no-gpu"]  # NVIDIA/nvidia-container-toolkit#371
    assert "libnvidia-ml.so.1" in f.title and f.remediation.where == "the image"
    lib = "/usr/lib/x86_64-linux-gnu"
    # the universal fix: a new image FROM it without the driver files (whatever put them there), and the
    # default-runtime that copies them into images built or committed
    assert _argv(f.remediation) == [
        ("docker", "run", "--rm", "--runtime=runc", "--entrypoint", "ls", "<image>", "-l", lib),
        ("grep", "-i", "default-runtime", "/etc/docker/daemon.json"),
        ("echo", "FROM <image>"),
        ("echo", f"RUN rm -f {lib}/libnvidia-*.so* {lib}/libcuda.so*"),
        ("cat", "Dockerfile.nodriver"),
        ("docker", "run", "--rm", "--gpus", "all", "<new-image>", "nvidia-smi"),
    ]
    assert [tuple(str(w) for w in c.pipe) for c in f.remediation.commands][2:5] == [
        ("tee", "Dockerfile.nodriver"),
        ("tee", "-a", "Dockerfile.nodriver"),
        ("docker", "build", "-t", "<new-image>", "-"),
    ]
    # the image's own Dockerfile without the driver package, as the other way
    assert _argv(f.remediation.alternative) == [
        ("docker", "run", "--rm", "--runtime=runc", "--entrypoint", "dpkg", "<image>", "-S", f"{lib}/libnvidia-ml.so.1"),
        ("docker", "build", "--no-cache", "-t", "<image>", "."),
    ]


@states("container-no-gpu", QUIET)
def test_a_file_that_exists_but_is_no_driver_library_is_not_the_image_s_driver():
    text = (
        "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/x/merged/etc/foo.conf: file exists\n"
    )
    assert "container-no-gpu" not in _codes(text)


@states("container-no-gpu", FIRES)
def test_insufficient_driver_in_a_container_with_a_current_host_driver_passes_the_gpu_in():
    f = _codes(_plans2("159"))["container-no-gpu"]  # SYSTRAN/faster-whisper#1229: driver 565.77 on the host
    assert f.remediation.where == "the host"
    assert [a[:2] for a in _argv(f.remediation)] == [("docker", "run"), ("docker", "exec")]
    assert f.remediation.alternative is not None and f.remediation.alternative.component == "driver"


@states("container-no-gpu", QUIET)
def test_insufficient_driver_in_a_container_with_an_old_host_driver_is_the_driver():
    text = (
        "Running it inside a docker container.\nDriver Version: 470.82.01\n"
        "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version\n"
    )
    codes = _codes(text)
    # the wording is CTranslate2's (catalogue.toml: ctranslate2-cuda-failed), so the old driver is judged against its
    # CUDA 12 build (tests/spec/test_ctranslate2_by_its_message.py), not against a toolkit
    assert "container-no-gpu" not in codes and "framework-driver-too-old" in codes
    # the same message with the new driver but no container named stays the driver's
    assert "container-no-gpu" not in _codes(
        text.replace("Running it inside a docker container.\n", "").replace("470.82.01", "565.77")
    )


@states("toolkit-newer-than-driver", FIRES)
def test_an_images_cuda_requirement_offers_the_toolkits_switch_within_one_major_only():
    message = (
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>={cuda}, please update your driver to a "
        "newer version, or use an earlier cuda container: unknown.\n"
    )
    run = "$ docker run --gpus all nvidia/cuda:11.8.0-base-ubuntu22.04 nvidia-smi\n"
    report = _report(run + message.format(cuda="11.8"))
    (f,) = [f for f in report.findings if f.code == "toolkit-newer-than-driver"]
    assert f.remediation.where == "the host" and f.remediation.alternative is not None
    assert f.area == "driver"  # the host's driver falls short; the image brings its own CUDA, a host toolkit plays no part
    assert _argv(f.remediation.alternative) == [
        (
            "docker",
            "run",
            "-e",
            "NVIDIA_DISABLE_REQUIRE=true",
            "--gpus",
            "all",
            "nvidia/cuda:11.8.0-base-ubuntu22.04",
            "nvidia-smi",
        )
    ]
    # no host toolkit question: the image's CUDA is the image's
    assert ("nvcc", "--version") not in [a.command.argv for a in ask_for(report.facts, report.findings)]
    # cuda>=11.0 refused means a driver older than CUDA 11: skipping the check would fail inside (nvidia-docker#1442)
    f = _codes(_plans2("108"))["toolkit-newer-than-driver"]
    assert f.remediation.alternative is None
    # CUDA 10 has no minor-version compatibility: a 10.2 image on a 10.1 driver is not skipped either
    f = _codes(message.format(cuda="10.2"))["toolkit-newer-than-driver"]
    assert f.remediation.alternative is None


REQUIRE = (
    "nvidia-container-cli: requirement error: unsatisfied condition: cuda>={cuda}, please update your driver to a "
    "newer version, or use an earlier cuda container: unknown.\n"
)


def _smi(driver: str, cuda: str) -> str:
    """The host's nvidia-smi header, which states the driver's CUDA."""
    return f"| NVIDIA-SMI {driver}    Driver Version: {driver}    CUDA Version: {cuda}     |"


@pytest.mark.parametrize(
    ("cuda", "smi", "alternative"),
    [
        ("11.1", "", True),  # the first minor of the first major with minor-version compatibility
        ("11.8", _smi("470.57.02", "11.4"), True),
        ("12.4", _smi("525.60.13", "12.0"), True),
        ("12.4", "", True),
        ("13.1", _smi("580.65.06", "13.0"), True),
        ("10.2", "", False),  # before CUDA 11: no minor-version compatibility
        ("11.0", "", False),  # an X.0 image: only a driver of an older major refuses it
        ("12.0", "", False),
        ("12.0.1", "", False),
        ("12.4", _smi("470.57.02", "11.4"), False),  # another major
        ("13.1", _smi("570.86.10", "12.8"), False),
    ],
    ids=[
        "11.1",
        "11.8-on-11.4",
        "12.4-on-12.0",
        "12.4",
        "13.1-on-13.0",
        "10.2",
        "11.0",
        "12.0",
        "12.0.1",
        "12.4-on-11.4",
        "13.1-on-12.8",
    ],
)
@states("toolkit-newer-than-driver", FIRES)
def test_disable_require_is_offered_from_cuda_11_within_one_major_and_never_for_an_x_0_image(cuda, smi, alternative):
    """pasted.md: "from CUDA 11 on, within one CUDA major (not for an X.0 image, which only a driver of an older major
    refuses) the toolkit's `-e NVIDIA_DISABLE_REQUIRE=true` is the alternative": compared at the major (11 is in, 10 is
    out), at the minor (X.0 is out, X.1 in), and the driver's CUDA by its major only."""
    f = _codes(f"{smi}\n{REQUIRE.format(cuda=cuda)}")["toolkit-newer-than-driver"]
    assert f.remediation.where == "the host"
    alt = f.remediation.alternative
    argv = _argv(alt) if alt is not None else []
    assert bool(argv and argv[0][:4] == ("docker", "run", "-e", "NVIDIA_DISABLE_REQUIRE=true")) is alternative


@states("container-no-gpu", FIRES)
def test_the_toolkit_setup_ends_with_the_reporters_own_run_and_asks_the_distribution_first():
    f = _codes(_plans2("127"))["container-no-gpu"]  # NVIDIA/nvidia-docker#1642
    argv = _argv(f.remediation)
    # (first the read that says whether the toolkit is there at all: dockerd registers its GPU driver from its hook)
    assert argv[:3] == [
        ("command", "-v", "nvidia-container-runtime-hook"),
        ("cat", "/etc/os-release"),
        ("snap", "list", "docker"),
    ]
    # (its nvidia/cuda:11.0-base is a tag NVIDIA took down: the same check runs on the toolkit's sample image, ubuntu)
    assert argv[-1] == ("docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi")
    # a run line with the shell's own syntax is not given back
    text = '$ docker run --gpus all -v "$(pwd)":/x img\ndocker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
    assert _argv(_codes(text)["container-no-gpu"].remediation)[-1] == ("docker", "run", "--gpus", "all", "<image>")


@states("gpu-none", FIRES)
def test_no_nvidia_gpu_asks_no_nvidia_smi_and_no_docker_run_the_reporter_never_typed():
    report = _report(_plans2("162"))  # fboulnois/stable-diffusion-docker#82: ./build.sh starts the container
    codes = {f.code: f for f in report.findings}
    assert "gpu-none" in codes and _argv(codes["container-no-gpu"].remediation) == []
    assert not [a for a in ask_for(report.facts, report.findings) if a.command.argv[0] == "nvidia-smi"]


BUS_ERROR = "RuntimeError: DataLoader worker (pid 37) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\n"


@states("shm-too-small", FIRES)
def test_a_dataloader_worker_killed_by_sigbus_in_docker_recreates_the_container_with_more_shared_memory():
    example = Path(__file__).resolve().parents[1] / "pasted" / "catalogue_examples"
    text = (example / "mmdetection-1997-docker-dataloader-bus-error.txt").read_text(encoding="utf-8")
    f = _codes(text)["shm-too-small"]  # open-mmlab/mmdetection#1997: its docker run has $(pwd): not given back
    assert f.remediation.where == "the host" and f.remediation.component == "container"
    assert _argv(f.remediation) == [
        ("docker", "run", "--ipc=host", "--gpus", "all", "<image>"),
        ("docker", "exec", "<container>", "df", "-h", "/dev/shm"),
    ]
    # the reporter's own plain docker run, with --ipc=host and without --gpus added
    f = _codes("$ docker run -it pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime python train.py\n" + BUS_ERROR)["shm-too-small"]
    assert _argv(f.remediation)[0] == (
        "docker",
        "run",
        "--ipc=host",
        "-it",
        "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime",
        "python",
        "train.py",
    )
    # the worker's own words, with no container shown: the size of /dev/shm where it runs is what is asked
    text = "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n"
    f = _codes(text)["shm-too-small"]
    assert f.remediation.where != "the host" and _argv(f.remediation) == [("df", "-h", "/dev/shm")]


@states("shm-too-small", QUIET)
def test_a_dataloader_traceback_without_the_bus_error_or_another_signal_is_not_shared_memory():
    assert "shm-too-small" not in _codes(_plans2("128"))  # pytorch/pytorch#5040: the paste stops before the error
    text = "RuntimeError: DataLoader worker (pid 12) is killed by signal: Segmentation fault.\n"
    assert "shm-too-small" not in _codes(text)


_UNREQUESTED = "When working on a notebook with no GPUs assigned I still see all GPUs (4 in total) with nvidia-smi.\n"


@states("container-gpus-unrequested", FIRES)
def test_a_workload_given_no_gpu_that_sees_them_all_reads_its_variable_and_the_runtimes_setting():
    f = _codes(_UNREQUESTED)["container-gpus-unrequested"]
    argv = _argv(f.remediation)
    # a pod (GPUs assigned to a notebook are a spawner's): the variable in it, its spec, the node's runtime setting
    assert argv[0][-4:] == ("--", "printenv", "NVIDIA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")
    assert argv[0][:2] == ("kubectl", "-n")
    assert argv[2][:3] == ("grep", "-E", "accept-nvidia-visible-devices|default_runtime_name")
    assert f.remediation.commands[3].pipe == ("grep", "-iE", "DEVICE_LIST_STRATEGY|deviceListStrategy")
    assert not any(c[0] == "docker" for c in argv)
    # the finding's steps are the asks: no generic nvidia-smi / collect_env beside it
    assert ask_for(_report(_UNREQUESTED).facts, _report(_UNREQUESTED).findings) == []
    # docker named: the container's variable and docker's default runtime
    f = _codes("I ran the container with docker run, no GPU requested, yet nvidia-smi in it shows all GPUs.\n")[
        "container-gpus-unrequested"
    ]
    argv = _argv(f.remediation)
    assert argv[0] == ("docker", "exec", "<container>", "printenv", "NVIDIA_VISIBLE_DEVICES")
    assert ("docker", "info", "--format", "{{.DefaultRuntime}}") in argv
    # a pod spec said in words
    assert "container-gpus-unrequested" in _codes("Pods without nvidia.com/gpu limits still see all 8 GPUs.\n")


@states("container-gpus-unrequested", FIRES)
def test_a_gpu_not_requested_said_with_dont_and_every_gpu_exposed_is_the_leak_too():
    # "even though I don't allocate any GPU resource in YAML spec, I can still see all the GPUs in the pod container"
    # (tests/blind/plans11/cases/1115-k8sdp87-k8s-docker-nvidia-default-runtime-pod-without-gpu-limit-sees-all-gpus-
    # cuda-image-env), and the device plugin's README as NVIDIA/k8s-device-plugin#61 quotes it, "if you don't request
    # GPUs ... all the GPUs on the machine will be exposed inside your container"
    # (https://github.com/NVIDIA/k8s-device-plugin/issues/61, the catalogue example)
    case = next((CASES.parents[1] / "plans11" / "cases").glob("1115-*")) / "input.txt"
    example = CASES.parents[2] / "pasted" / "catalogue_examples" / "k8s-device-plugin-61-no-request-all-gpus-exposed.txt"
    for path in (case, example):
        f = _codes(path.read_text(encoding="utf-8"))["container-gpus-unrequested"]
        assert any(
            w[:2] == ("grep", "-E") and "accept-nvidia-visible-devices|default_runtime_name" in w for w in _argv(f.remediation)
        )
    # the Kubernetes report (its pod and YAML spec) reads the pod and the device plugin's device list strategy
    f = _codes(case.read_text(encoding="utf-8"))["container-gpus-unrequested"]
    assert any(w[:1] == ("kubectl",) and "exec" in w for w in _argv(f.remediation))


@states("container-gpus-unrequested", QUIET)
def test_a_workload_that_sees_what_it_requested_or_nothing_is_not_a_leak():
    for text in (
        "With a single GPU assigned, nvidia-smi shows one GPU as expected.\n",
        "My pod with no GPU assigned shows nothing in nvidia-smi, as expected.\n",
        "The node has 4 GPUs and nvidia-smi on the host lists all GPUs.\n",
        # "don't request" said where every workload sees only what it asked for
        "I don't request any GPU for the CPU pods, and the GPU pods see the GPUs they asked for.\n",
    ):
        assert "container-gpus-unrequested" not in _codes(text), text
