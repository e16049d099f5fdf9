"""docs/findings/container-no-gpu.md: a compose file pasted whose services request no GPU, beside the reporter's words
that the program does not use it (issues 27/28). Variants written here from the class, not from one thread: other
programs, other wordings, several services, an env file's GPU variable; the quiet twins are a service that requests
the GPU and a compose report about something else."""

from __future__ import annotations

from tests.spec.machine import argv_words, pasted_findings, pasted_report
from tests.spec.registry import FIRES, QUIET, states

_report = pasted_report
_codes = pasted_findings
_argv = argv_words


_WEBUI = """My stable diffusion container only uses the CPU, generation takes minutes.

docker-compose.yml:
```
services:
  webui:
    image: myorg/sd-webui:latest
    ports:
      - "7860:7860"
    volumes:
      - ./models:/app/models
```
"""

_TWO_SERVICES = """PyTorch in the app container cannot find the GPU (torch.cuda.is_available() is False in my script).
```yaml
services:
  db:
    image: postgres:16
  app:
    build: .
    depends_on:
      - db
    env_file:
      - .env
```
.env:
```
GPUS=all
POSTGRES_PASSWORD=example
```
"""

_REQUESTED = """My stable diffusion container only uses the CPU, generation takes minutes.
```
services:
  webui:
    image: myorg/sd-webui:latest
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
```
"""

_ELSEWHERE = """The web UI does not start: port 7860 is already in use.
```
services:
  webui:
    image: myorg/sd-webui:latest
    ports:
      - "7860:7860"
```
"""


@states("container-no-gpu", FIRES)
def test_a_compose_service_without_a_gpu_request_beside_words_that_the_gpu_is_unused_is_recreated_with_one():
    f = _codes(_WEBUI)["container-no-gpu"]
    assert f.severity.name == "ERROR" and f.remediation.where == "the host"
    assert _argv(f.remediation) == [
        ("docker", "compose", "up", "-d", "--force-recreate", "webui"),
        ("docker", "compose", "exec", "webui", "nvidia-smi"),
    ]
    # two services, neither requesting: which one failed is not said, so the service is left to fill in; the env file's
    # GPUS variable is read (and requests nothing)
    report = _report(_TWO_SERVICES)
    f = {x.code: x for x in report.findings}["container-no-gpu"]
    assert _argv(f.remediation)[0] == ("docker", "compose", "up", "-d", "--force-recreate", "<service>")
    said = {e.kind: e for e in report.facts.pasted.errors}
    assert said["gpus-variable-said"].get("name") == "GPUS"
    # other wordings of the same symptom
    for words in ("Ollama falls back to the CPU every time.", "The container doesn't detect my NVIDIA GPU at all."):
        text = _WEBUI.replace("My stable diffusion container only uses the CPU, generation takes minutes.", words)
        assert "container-no-gpu" in _codes(text), words


@states("container-no-gpu", QUIET)
def test_a_compose_service_that_requests_the_gpu_or_a_compose_report_about_something_else_is_not_given_the_request():
    # the service requests the GPU: the request is not what is missing
    assert "container-no-gpu" not in _codes(_REQUESTED)
    # a compose file in a report that is not about the GPU: nothing to judge, and no variable is read
    report = _report(_ELSEWHERE)
    assert "container-no-gpu" not in {f.code for f in report.findings}
    assert not {"gpu-unused-said", "gpus-variable-said"} & {e.kind for e in report.facts.pasted.errors}


def _asks(text: str) -> list[tuple[str, ...]]:
    from gpudoctor.pasted.ask import ask_for

    report = _report(text)
    return [
        (*(str(w) for w in a.command.argv), *(("|", *map(str, a.command.pipe)) if a.command.pipe else ()))
        for a in ask_for(report.facts, report.findings)
    ]


_NO_DEVICE_04 = (
    'time=2024-11-02T10:00:01.000Z level=INFO source=gpu.go:620 msg="no nvidia devices detected by library '
    '/usr/lib/x86_64-linux-gnu/libcuda.so.560.35.03"\n'
)
_NO_DEVICE_03 = (
    'time=2024-09-01T10:00:01.000Z level=INFO source=gpu.go:560 msg="no nvidia devices detected" '
    "library=/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01\n"
)


@states("pasted-error-unexplained", FIRES)
def test_a_driver_library_that_loads_with_no_device_asks_what_the_container_was_given_on_the_host():
    # in a container the text names (docker run ... --name): how it was created, read on the host, then its devices
    text = "I started it with docker run -d --gpus=all --name llm ollama/ollama and it runs on the CPU:\n" + _NO_DEVICE_04
    assert "pasted-error-unexplained" in _codes(text)
    asks = _asks(text)
    inspect = next(a for a in asks if a[:2] == ("docker", "inspect"))
    assert inspect[2] == "llm" and "{{json .HostConfig.DeviceRequests}}" in inspect[4]
    assert ("docker", "exec", "llm", "ls", "-l", "/dev", "|", "grep", "nvidia") in asks
    assert not any(a[0] == "journalctl" for a in asks)
    # the 0.3 wording, deployed with docker in words: the container is left to fill in
    asks = _asks("I deployed the server with docker and it only uses the cpu.\n" + _NO_DEVICE_03)
    assert ("docker", "ps", "-a") in asks  # which container: its name is not in the text
    assert not any(a[:2] == ("docker", "exec") for a in asks)
    # on the host itself (no container named): its own devices and modules, nothing of docker
    text = "Ollama on Fedora runs on the CPU:\n" + _NO_DEVICE_04
    assert "pasted-error-unexplained" in _codes(text)
    asks = _asks(text)
    assert ("lsmod", "|", "grep", "nvidia") in asks and ("ls", "-l", "/dev", "|", "grep", "nvidia") in asks
    assert not any(a[0] == "docker" for a in asks)


@states("pasted-error-unexplained", QUIET)
def test_a_discovery_log_that_found_the_gpu_is_not_a_device_failure():
    text = (
        'time=2024-11-02T10:00:01.000Z level=INFO source=gpu.go:226 msg="looking for compatible GPUs"\n'
        'time=2024-11-02T10:00:02.000Z level=INFO source=types.go:123 msg="inference compute" id=GPU-1a2b3c4d '
        'library=cuda variant=v12 compute=8.6 driver=12.4 name="NVIDIA GeForce RTX 3090" total="23.7 GiB"\n'
        "I deployed it with docker and it works.\n"
    )
    assert "pasted-error-unexplained" not in _codes(text)
    assert not any(a[:2] == ("docker", "inspect") for a in _asks(text))


_TWO_HOSTS = """Training with DDP across two servers, each in its own docker container:
```
# on host A (MASTER_ADDR=192.168.1.10)
torchrun --nnodes=2 --node_rank=0 --master_addr=192.168.1.10 --master_port=29500 train.py
# on host B (node_rank 1, address 192.168.1.11)
torchrun --nnodes=2 --node_rank=1 --master_addr=192.168.1.10 --master_port=29500 train.py
```
RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, remote process exited or there was a network error, NCCL version 2.14.3
"""


@states("container-network-isolated", FIRES)
def test_an_nccl_failure_of_ranks_in_containers_on_two_hosts_recreates_them_on_the_hosts_network():
    f = _codes(_TWO_HOSTS)["container-network-isolated"]
    assert f.remediation.where == "the host" and f.remediation.component == "container"
    argv = _argv(f.remediation)
    assert argv[0] == ("export", "NCCL_DEBUG=INFO")
    assert argv[1][:2] == ("docker", "inspect") and "{{.HostConfig.NetworkMode}}" in argv[1][-1]
    assert argv[2][:4] == ("docker", "run", "--network=host", "--ipc=host")
    # the hosts in words and the reporter's own docker run, given back with the host's network
    text = (
        "We run the job on 2 nodes; each rank starts in a container with\n"
        "docker run --gpus all -v /data:/data trainer:latest python train.py\n"
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:272, unhandled system error\n"
    )
    argv = _argv(_codes(text)["container-network-isolated"].remediation)
    assert argv[2] == (
        "docker",
        "run",
        "--network=host",
        "--ipc=host",
        "--gpus",
        "all",
        "-v",
        "/data:/data",
        "trainer:latest",
        "python",
        "train.py",
    )


@states("container-network-isolated", QUIET)
def test_ranks_on_the_hosts_network_or_outside_containers_or_on_one_host_are_not_the_bridge():
    # the containers already run on the host's network
    assert "container-network-isolated" not in _codes(_TWO_HOSTS + "Both containers run with --network=host.\n")
    # no container: a multi-node NCCL error stays unexplained, with NCCL's log asked
    bare = _TWO_HOSTS.replace(", each in its own docker container", "")
    codes = _codes(bare)
    assert "container-network-isolated" not in codes and "pasted-error-unexplained" in codes
    assert any(a[:2] == ("export", "NCCL_DEBUG=INFO") for a in _asks(bare))
    # one host, one container: shared memory, not the network
    one = (
        "In my docker container, 4 GPUs on one machine:\n"
        "NCCL WARN Error while creating shared memory segment /dev/shm/nccl-abc (size 9637888)\n"
        "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error\n"
    )
    codes = _codes(one)
    assert "container-network-isolated" not in codes and "shm-too-small" in codes


_WSL_GPUS_REFUSED = (
    "$ uname -r\n5.15.90.1-microsoft-standard-WSL2\n"
    "$ docker run --gpus all nvidia/cuda:12.2.0-base-ubuntu22.04 nvidia-smi\n"
    'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
)


@states("container-no-gpu", FIRES)
def test_gpus_refused_inside_wsl_by_docker_desktops_daemon_is_fixed_in_docker_desktop_not_in_the_distribution():
    for said in (
        "I use Docker Desktop 4.20.2 on Windows 11.\n",
        "$ sudo systemctl restart docker\nSystem has not been booted with systemd as init system (PID 1). Can't operate.\n",
    ):
        f = _codes(said + _WSL_GPUS_REFUSED)["container-no-gpu"]
        argv = _argv(f.remediation)
        assert argv[0] == ("docker", "version", "--format", "{{.Server.Platform.Name}} {{.Server.Version}}"), said
        assert argv[-1] == ("docker", "run", "--gpus", "all", "nvidia/cuda:12.2.0-base-ubuntu22.04", "nvidia-smi")
        assert not any(a[0] in ("systemctl", "nvidia-ctk", "apt-get") for a in argv), said
        assert not f.remediation.requires_root
    # a Docker Desktop 2.x release (four-part, before GPU support) is read as its version
    report = _report("Docker Desktop 2.4.0.0 is installed on the Windows side.\n" + _WSL_GPUS_REFUSED)
    said = {e.kind: e for e in report.facts.pasted.errors}
    assert said["docker-desktop-said"].get("version") == "2.4.0.0"


@states("container-no-gpu", QUIET)
def test_gpus_refused_by_an_engine_in_the_distribution_or_outside_wsl_keeps_the_toolkit_route():
    # an engine of the distribution's own answers (its service restarts): the toolkit is set up there
    argv = _argv(
        _codes("$ sudo service docker restart\n * Restarting Docker: docker\n" + _WSL_GPUS_REFUSED)[
            "container-no-gpu"
        ].remediation
    )
    assert any(a[:3] == ("nvidia-ctk", "runtime", "configure") for a in argv)
    # Docker Desktop named on a Linux host (no WSL): not the WSL integration's daemon
    text = _WSL_GPUS_REFUSED.replace("5.15.90.1-microsoft-standard-WSL2", "6.5.0-35-generic")
    argv = _argv(_codes("Docker Desktop is not installed here.\n" + text)["container-no-gpu"].remediation)
    assert any(a[:3] == ("nvidia-ctk", "runtime", "configure") for a in argv)


_DDP_CUT = """Training with torchrun --nproc_per_node=4 train.py on 4 GPUs fails:
Traceback (most recent call last):
  File "/workspace/train.py", line 40, in <module>
    model = DistributedDataParallel(model, device_ids=[rank])
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/parallel/distributed.py", line 795, in __init__
    _verify_param_shape_across_processes(self.process_group, parameters)
"""


@states("pasted-error-unexplained", FIRES)
def test_a_distributed_run_whose_failure_was_cut_off_asks_nccls_log_and_the_shared_memory():
    assert "pasted-error-unexplained" in _codes(_DDP_CUT)
    asks = _asks(_DDP_CUT)
    assert ("df", "-h", "/dev/shm") in asks and ("export", "NCCL_DEBUG=INFO") in asks  # then the same command again
    assert not any(a[:2] == ("docker", "inspect") for a in asks)
    # in a container the text names: what it was created with, on the host
    asks = _asks("Inside the docker container:\n" + _DDP_CUT)
    assert ("docker", "ps", "-a") in asks  # the container is not named: its inspect waits for the name


def test_a_cut_traceback_of_a_single_process_or_a_whole_distributed_error_asks_no_shared_memory():
    single = _DDP_CUT.replace("torchrun --nproc_per_node=4 train.py", "python train.py").replace(
        "model = DistributedDataParallel(model, device_ids=[rank])", "model = build(model)"
    )
    assert ("df", "-h", "/dev/shm") not in _asks(single)
    whole = _DDP_CUT + "RuntimeError: CUDA error: out of memory\n"
    assert ("env", "NCCL_DEBUG=INFO", "<failing-command>") not in _asks(whole)


_TWO_PYTHONS = """On one node the job trains; with the hostfile of two nodes the other node finds no GPU.
$ cat hostfile
worker-1 slots=8
worker-2 slots=8
$ deepspeed --hostfile hostfile train.py
In train.py I print sys.executable: /opt/venvs/train/bin/python on worker-1, /usr/bin/python3 on worker-2.
"""


@states("ranks-python-differs", FIRES)
def test_remote_ranks_of_an_ssh_launcher_beside_the_systems_python_get_the_environment_exported():
    f = _codes(_TWO_PYTHONS.replace("two nodes", "multiple nodes"))["ranks-python-differs"]
    argv = _argv(f.remediation)
    assert argv[0][:2] == ("ssh", "<other-node>") and argv[0][2].startswith("which python;")
    assert argv[1] == ("sh", "-c", 'echo "PATH=$PATH" >> ~/.deepspeed_env')
    assert argv[2][:2] == ("deepspeed", "--hostfile")
    # mpirun across two hosts by address, a conda environment
    text = (
        "mpirun -np 2 -H 10.0.0.1,10.0.0.2 python train.py\n"
        "rank 0 on host 10.0.0.1 runs /home/me/miniconda3/envs/gpu/bin/python, rank 1 on host 10.0.0.2 runs /usr/bin/python\n"
    )
    argv = _argv(_codes(text)["ranks-python-differs"].remediation)
    assert argv[1] == ("mpirun", "-x", "PATH", "-x", "LD_LIBRARY_PATH", "<your-arguments>")


@states("ranks-python-differs", QUIET)
def test_one_node_or_a_launcher_per_node_or_one_python_is_not_the_remote_shells_python():
    # one node: no hosts shown
    one = "$ deepspeed train.py\nsys.executable is /opt/venvs/train/bin/python, and /usr/bin/python3 is the system's.\n"
    assert "ranks-python-differs" not in _codes(one)
    # torchrun started on each node by hand: no ssh launcher
    per_node = _TWO_PYTHONS.replace("multiple nodes", "two nodes").replace(
        "$ deepspeed --hostfile hostfile train.py", "$ torchrun --nnodes=2 train.py"
    )
    assert "ranks-python-differs" not in _codes(per_node)
    # only the environment's python shown
    assert "ranks-python-differs" not in _codes(_TWO_PYTHONS.replace(", /usr/bin/python3 on worker-2", ""))


_WSL_NVML = (
    "I run Ubuntu 22.04 in WSL2 on {}.\n$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system\n"
)


def test_nvml_failing_in_wsl_on_windows_10_asks_the_windows_build():
    ver = ("cmd.exe", "/c", "ver")
    assert ver in _asks(_WSL_NVML.format("Windows 10 Pro"))
    # Windows 11 gives every build GPU access; a build already shown is not asked again
    assert ver not in _asks(_WSL_NVML.format("Windows 11"))
    shown = _WSL_NVML.format("Windows 10") + "C:\\> ver\nMicrosoft Windows [Version 10.0.19045.3570]\n"
    assert ver not in _asks(shown)
