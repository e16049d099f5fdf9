"""Asks that can run and that apply (issues 27/28, task h224): an ask is not made where the paste shows it cannot run or
cannot answer, every ask says where it runs where the paste shows more than one place.

Each rule on whole recorded reports of the open blind sets (cited by path), with the near miss that must keep its asks.
Data is asserted (argv, notes, cues), never the prose."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.facts import NO_GPU_SAID, NO_PYTHON
from tests.pasted.test_asks_the_report_can_run import _check

BLIND = Path(__file__).resolve().parent.parent / "blind"


def _case(tmp_path, where: str) -> dict:
    (case,) = (BLIND / where.split("/")[0] / "cases").glob(f"{where.split('/')[1]}-*")
    return _check(tmp_path, (case / "input.txt").read_text(encoding="utf-8"))


def _asks(doc: dict) -> list[tuple[tuple[str, ...], str | None]]:
    return [(tuple(a["argv"]), a.get("note")) for a in doc["pasted"]["ask_for"]]


def _cues(doc: dict, cue: str) -> list[str]:
    return [c["means"] for c in doc["facts"]["pasted"]["cues"] if c["cue"] == cue]


def _runs_python(argv: tuple[str, ...]) -> bool:
    return argv[0].rsplit("/", 1)[-1].startswith(("python", "pip")) or argv[:2] == ("conda", "list")


# -- an application that is no Python program: nothing asked of an interpreter


def test_a_native_application_is_asked_nothing_of_python(tmp_path):
    # plans15/1537: Jellyfin in docker, cuInit CUDA_ERROR_NO_DEVICE, nothing of Python in the paste (the reviewers struck
    # `python3 -m pip list`: "Jellyfin runs no Python framework")
    doc = _case(tmp_path, "plans15/1537")
    assert any("Jellyfin" in m for m in _cues(doc, NO_PYTHON))
    assert doc["pasted"]["ask_for"]
    assert not [argv for argv, _ in _asks(doc) if _runs_python(argv)]


def test_a_native_application_beside_python_keeps_the_python_asks(tmp_path):
    # plans12/1244 (quiet twin): Ollama named, but the reporter's PyTorch program is in the paste too: Python is there
    doc = _case(tmp_path, "plans12/1244")
    assert not _cues(doc, NO_PYTHON)


# -- a machine said to have no GPU, and an import that died on the CPU's instructions


def test_a_cpu_only_machine_is_not_asked_for_the_driver_nor_the_crashed_import(tmp_path):
    # plans15/1502: "GPU model and memory: CPU install only", `import tensorflow` dies on SIGILL (no AVX): nvidia-smi has
    # no GPU to report and the TensorFlow probe dies the same way (the reviewers struck both)
    doc = _case(tmp_path, "plans15/1502")
    assert _cues(doc, NO_GPU_SAID)
    assert "framework-cpu-unsupported" in {f["code"] for f in doc["findings"]}
    asked = [argv for argv, _ in _asks(doc)]
    assert not [a for a in asked if "nvidia-smi" in a[0]]
    assert not [a for a in asked if any("import tensorflow" in w for w in a)]


def test_a_gpu_named_in_the_form_is_no_cpu_only_machine(tmp_path):
    # plans10/1017 (quiet twin): the same TensorFlow form's GPU field names an RTX 2070
    doc = _case(tmp_path, "plans10/1017")
    assert not _cues(doc, NO_GPU_SAID)


# -- where each ask runs, beside a container


def test_no_device_in_a_container_is_asked_inside_it_and_on_the_host(tmp_path):
    # plans15/1536: linuxserver/jellyfin run with --gpus all, cuInit finds no device: the reviewers' deciding asks are
    # the container's own nvidia-smi and device nodes (and not an `nvidia-smi -L` that "does not say where to run it")
    doc = _case(tmp_path, "plans15/1536")
    asks = _asks(doc)
    assert (("nvidia-smi", "-L"), "inside the container") in asks
    assert (("ls", "-l", "/dev"), "inside the container") in asks
    assert not [argv for argv, note in asks if argv[0] == "nvidia-smi" and not note]
    commands = [a["command"] for a in doc["pasted"]["ask_for"]]
    assert any(c.startswith("docker ps -a --filter ancestor=ghcr.io/linuxserver/jellyfin") for c in commands)


def test_no_device_outside_a_container_asks_no_container(tmp_path):
    # tests/blind/pasted/cases/032 (quiet twin): the same CUDA error under CUDA_VISIBLE_DEVICES=2, no container
    doc = _case(tmp_path, "pasted/032")
    # A note may name the environment the program ran in (its prompt's `(py35)`), never a container.
    assert not [argv for argv, note in _asks(doc) if argv[0] == "docker" or "container" in (note or "")]


def test_the_driver_is_asked_on_the_host_of_a_docker_container(tmp_path):
    # plans3/208: NVML failing in docker run: nvidia-smi reads the driver, the host's
    assert (("nvidia-smi",), "on the host") in _asks(_case(tmp_path, "plans3/208"))


def test_the_containers_host_under_wsl_is_wsl(tmp_path):
    # plans15/1505: `docker run ... nvcr.io/nvidia/k8s/cuda-sample` in WSL 2 (k8s a folder of the image's name, not a
    # cluster): the containers' host is WSL, its driver Windows' through /usr/lib/wsl/lib
    asks = _asks(_case(tmp_path, "plans15/1505"))
    assert (("nvidia-smi",), "in WSL") in asks
    assert (("ls", "-l", "/usr/lib/wsl/lib"), "in WSL") in asks


def test_the_driver_is_asked_on_the_node_of_a_pod(tmp_path):
    # plans4/303 (twin): a Kubernetes pod: the node's
    doc = _case(tmp_path, "plans4/303")
    assert _asks(doc) == [(("nvidia-smi",), "on the node that runs the pod")]


def test_one_shell_asks_without_a_place(tmp_path):
    # plans15/1502 (quiet twin): a plain VM's shell: no note
    assert all(note is None for _, note in _asks(_case(tmp_path, "plans15/1502")))


def test_a_machine_said_cpu_only_is_a_machine_without_a_gpu(tmp_path):
    # plans3/234: "my CPU-ONLY server" (a control: pip pulled CUDA wheels there, which is no fault): nothing of the driver
    doc = _case(tmp_path, "plans3/234")
    assert _cues(doc, NO_GPU_SAID)
    assert not [argv for argv, _ in _asks(doc) if "nvidia-smi" in argv[0]]


def test_a_cpu_only_build_is_no_cpu_only_machine(tmp_path):
    # plans9/949 (quiet twin): a CPU-only torch wheel named on a Jetson: the build, not the machine
    assert not _cues(_case(tmp_path, "plans9/949"), NO_GPU_SAID)
