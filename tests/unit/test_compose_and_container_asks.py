"""A program that ran in a container the report shows only by how it was started (a compose project brought up, a
compose file deployed, Chinese "in docker"), and the asks placed there: the program's Python, its loader's cache, the
/dev/shm it was given, a variable set for its interpreter. Asserted on cues and argv, never the prose."""

from __future__ import annotations

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.facts import CONTAINER_SAID
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.composed import CUE
from gpudoctor.pasted.read import Source


def _report(text: str):
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("issue.txt", text)]), "pasted text")))


def _cues(report, cue: str) -> list[str]:
    return [c.get("means", "") for c in report.facts.pasted.cues if c.get("cue") == cue]


def _asks(report) -> list[tuple[tuple[str, ...], str]]:
    from gpudoctor.pasted.ask import ask_for

    return [(a.command.words, a.command.note) for a in ask_for(report.facts, report.findings) if isinstance(a.command, Cmd)]


# HeartMuLa issue 25 (plans20/2041): the app brought up with docker-compose, its torch failing with no kernel image.
COMPOSE_UP = (
    "After `docker-compose up -d` I went to a http://localhost:8000 and saw this error message:\n"
    "`Failed to load model: CUDA error: no kernel image is available for execution on the device`\n"
)
# ragflow issue 1643 (plans20/2075): a compose file deployed, NCCL failing mid-answer.
COMPOSE_FILE = (
    'When deploying docker-compose-gpu-CN.yml, the error "NCCL Error 2: unhandled system error (run with '
    'NCCL_DEBUG=INFO for details)" occurred.\n'
)


def test_a_compose_project_started_puts_the_program_in_its_container():
    for text in (COMPOSE_UP, COMPOSE_FILE):
        report = _report(text)
        assert _cues(report, CUE) == ["run inside a docker container (a docker compose project it started)"], text
        python = [(w, note) for w, note in _asks(report) if "python3" in w]
        assert python and all(note.startswith("inside the container") for _, note in python), python


def test_docker_refusing_to_start_the_service_keeps_the_questions_on_the_host():
    # dalle-playground issue 104 (tests/pasted/cases/dalle-playground-104): the runtime hook failed, nothing ran inside
    text = (
        "I get the following error when doing a `docker-compose up`:\n"
        "ERROR: for dalle-backend  Cannot start service dalle-backend: failed to create shim: OCI runtime create failed: "
        "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown\n"
    )
    assert not _cues(_report(text), CUE)
    # plans8/834: the daemon knows no nvidia runtime
    assert not _cues(_report("docker compose up\nError response from daemon: unknown or invalid runtime name: nvidia\n"), CUE)


def test_the_shared_memory_and_a_variable_for_the_interpreter_are_the_containers():
    asks = _asks(_report(COMPOSE_FILE))
    shm = next((w, note) for w, note in asks if w[:1] == ("df",))
    assert shm == (("df", "-h", "/dev/shm"), "inside the container")
    # the variable NCCL reads is set for the interpreter inside, never for the host's docker client
    nccl = next((w, note) for w, note in asks if "NCCL_DEBUG=INFO" in w)
    assert nccl[0][:2] == ("env", "NCCL_DEBUG=INFO") and nccl[0][2] == "python3" and nccl[1] == "inside the container"


def test_a_variable_for_a_pods_interpreter_is_set_inside_the_pod():
    from gpudoctor.pasted.ask import _env_where_run

    argv = ("kubectl", "exec", "p", "--", "python3", "-c", "x")
    assert _env_where_run(("env", "NCCL_DEBUG=INFO"), argv, 2) == (
        "kubectl",
        "exec",
        "p",
        "--",
        "env",
        "NCCL_DEBUG=INFO",
        "python3",
        "-c",
        "x",
    )
    image = ("docker", "run", "--rm", "--entrypoint", "python3", "img", "-c", "x")
    assert _env_where_run(("env", "A=1"), image, 2) == (
        "docker",
        "run",
        "-e",
        "A=1",
        "--rm",
        "--entrypoint",
        "python3",
        "img",
        "-c",
        "x",
    )
    # on the host the words stay in front
    assert _env_where_run(("env", "A=1"), ("python3", "-c", "x"), 2) == ("env", "A=1", "python3", "-c", "x")


def test_in_docker_said_in_chinese_is_a_container_and_its_loader_is_asked_inside():
    # ragflow issue 905 (plans21/2142) and PaddlePaddle issue 10416 (plans19/1921)
    for text in (
        "我在docker中采用命令 pip install onnxruntime-gpu 安装了onnxruntime-gpu，但是代码执行过程中为什么会去找libcublasLt.so.11的库文件\n",
        "paddle:latest-dev官方docker里cuda和driver版本不匹配\nimport paddle\nCUDA driver version is insufficient for CUDA runtime version\n",
    ):
        report = _report(text)
        assert _cues(report, CONTAINER_SAID), text
        loader = [(w, note) for w, note in _asks(report) if w[:1] == ("ldconfig",)]
        assert loader and all(note == "inside the container" for _, note in loader), (text, loader)
    # a document's language is no place
    assert not _cues(_report("参考docker中文文档\nRuntimeError: No CUDA GPUs are available\n"), CONTAINER_SAID)


def test_entering_the_container_places_what_follows_in_it():
    # NVIDIA/nvidia-docker issue 1679 (plans21/2111); in Chinese, xinnan-tech/xiaozhi-esp32-server#1166 (tests/pasted)
    text = (
        "I pulled the image named nvidia/cuda:11.5.1-base-ubuntu20.04 and torch.cuda.is_available() was False. When I "
        "enter the container cli and input nvidia-smi, it answered that nvidia-smi is not supported.\n"
    )
    report = _report(text)
    assert _cues(report, CONTAINER_SAID)
    asks = _asks(report)
    # whether the container was given the GPU is asked of docker on the host
    assert (("docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi"), "on the host") in asks
    assert _cues(_report("进入docker内部，发现torch 的cuda.is_available() 为false。\n"), CONTAINER_SAID)
    # a container's toolkit entered in a form is no place
    assert not _cues(
        _report("I entered the container toolkit version in the form.\nRuntimeError: No CUDA GPUs are available\n"),
        CONTAINER_SAID,
    )


def test_dalis_video_reader_asks_for_the_video_capability():
    # NVIDIA/DALI issue 3390 (plans20/2010): the reader named in prose, in an enroot container on a Slurm cluster
    text = (
        "NVIDIA-DALI Capabilities issue\nI am running enroot container on slurm cluster and I am getting an error.\n"
        "when running a video reader pipeline in a container, you need to explicitly enable all the capabilities\n"
    )
    words = [w for w, _ in _asks(_report(text))]
    assert ("printenv", "NVIDIA_DRIVER_CAPABILITIES") in words
    assert any(w[:2] == ("ldconfig", "-p") for w in words)
    # a video reader without DALI (torchvision's, decord's on the CPU) asks nothing of the driver's video libraries
    other = [w for w, _ in _asks(_report("torchvision.io.VideoReader fails\nRuntimeError: No CUDA GPUs are available\n"))]
    assert ("printenv", "NVIDIA_DRIVER_CAPABILITIES") not in other
