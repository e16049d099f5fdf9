"""After-round h231 (containers and clusters, plans16): a CUDA error number printed by the TensorRT plugins' CHECK macro
read for what it is, and a plan whose fix is the reporter's command with an option added ending there. Recorded
pastes, expectations by hand; each rule with the near miss that must not fire."""

from __future__ import annotations

from gpudoctor.cmdline import Cmd
from gpudoctor.parsers.catalogue import match
from gpudoctor.planner.resume import _same_run
from tests.pasted.cli_json import ROOT, blind_case, check

EXAMPLE = ROOT / "tests/pasted/catalogue_examples/tensorrt-demos-547-yolo-layer-cuda-failure-35.txt"


def _entries(text: str) -> list[tuple[str | None, str]]:
    return [(e.get("entry"), e.kind) for e in match(text)]


def test_the_check_macros_35_is_the_driver_older_than_the_programs_cuda():
    # jkjung-avt/tensorrt_demos#547 (the example; "line 51:35" with no space) and a container image building its
    # TensorRT engine with the same plugin: tests/blind/plans16/cases/1647-* ("line 51: 35")
    for path in (EXAMPLE, blind_case("plans16/cases/1647")):
        doc = check(path)
        codes = {f["code"] for f in doc["findings"]}
        assert "toolkit-newer-than-driver" in codes, (path, codes)
        assert ["nvidia-smi"] in [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"]]


def test_another_number_from_the_same_macro_is_not_the_driver():
    # the near miss: the macro's own format with cudaErrorMemoryAllocation (2), and 350 (no such number is 35); the
    # macro's number is read by gpudoctor.parsers.cuda_errors (h238), which replaced this entry
    from gpudoctor.parsers.cuda_errors import evidence, read

    for line in ("Cuda failure in file 'yolo_layer.cu' line 51: 2", "Cuda failure in file 'yolo_layer.cu' line 51: 350"):
        assert "cuda-driver-insufficient" not in [e.kind for e in evidence(read(line))]
        assert "cuda-driver-insufficient" not in [kind for _, kind in _entries(line)]


def test_a_plan_that_runs_the_command_with_the_missing_option_does_not_run_it_again_without():
    # tests/blind/plans16/cases/1658-*: `singularity run IMAGE cellbender ...` without --nv; the fix runs the same
    # command with --nv, and a last step running it as typed would fail as before
    doc = check(blind_case("plans16/cases/1658"))
    last = doc["plan"]["steps"][-1]["commands"][-1]["argv"]
    assert last[:3] == ["singularity", "run", "--nv"] and last[-2:] == ["--output", "test.h5"]
    assert all("--nv" in c["argv"] for s in doc["plan"]["steps"] for c in s["commands"] if c["argv"][0] == "singularity")


def test_a_command_with_an_option_added_is_a_rerun_and_another_argument_is_not():
    # tests/blind/plans13/cases/1338-*: `singularity shell nemo.sif`, the plan's `singularity shell --nv nemo.sif`
    typed = Cmd(("singularity", "shell", "nemo.sif"))
    assert _same_run(typed, Cmd(("singularity", "shell", "--nv", "nemo.sif")))
    # near misses: another image, another program, and a word that is not an option
    assert not _same_run(typed, Cmd(("singularity", "shell", "--nv", "other.sif")))
    assert not _same_run(typed, Cmd(("apptainer", "shell", "--nv", "nemo.sif")))
    assert not _same_run(typed, Cmd(("singularity", "shell", "nemo.sif", "extra")))


HEADERS = EXAMPLE.parent / "gpu-operator-190-openshift-47-driver-container-kernel-devel-no-match.txt"


def _asks(doc: dict) -> list[list[str]]:
    return [a["argv"] for a in doc["pasted"]["ask_for"]]


def test_the_driver_containers_missing_kernel_headers_ask_the_cluster_not_nvidia_smi():
    # NVIDIA/gpu-operator#190 (the example: kernel-devel on OpenShift 4.7.9) and tests/blind/plans16/cases/1603-*
    # (kernel-headers on OpenShift 4.7.21): the pods, the nodes' entitlement and the repositories' kernel-headers
    for path in (HEADERS, blind_case("plans16/cases/1603")):
        doc = check(path)
        asks = _asks(doc)
        assert ["ls", "-l", "/etc/pki/entitlement"] in asks, asks
        assert ["dnf", "list", "--showduplicates", "kernel-headers"] in asks, asks
        assert ["nvidia-smi"] not in asks  # the node has no driver until this container builds it


def test_a_hosts_own_dnf_without_the_driver_container_is_not_read_as_it():
    # the near miss: the same dnf answer to a person's own install on a Fedora host, no driver container's echo before it
    line = "$ sudo dnf install kernel-devel-5.14.10-300.fc35.x86_64\nError: Unable to find a match: kernel-devel-5.14.10-300.fc35.x86_64"
    assert all(entry != "gpu-driver-container-kernel-headers-unavailable" for entry, _ in _entries(line))


COMPAT_LS = ["ls", "/usr/local/cuda/compat"]


def test_the_compat_folder_is_listed_in_the_image_that_ran():
    # error 804 from a container: tests/blind/plans16/cases/1623-* (vllm/vllm-openai:latest) and
    # tests/blind/plans10/cases/1033-* (ghcr.io/ggml-org/llama.cpp:server-cuda): the compat libcuda is the image's
    for rel, image in (
        ("plans16/cases/1623", "vllm/vllm-openai:latest"),
        ("plans10/cases/1033", "ghcr.io/ggml-org/llama.cpp:server-cuda"),
    ):
        asks = _asks(check(blind_case(rel)))
        assert ["docker", "run", "--rm", "--gpus", "all", "--entrypoint", "ls", image, "/usr/local/cuda/compat"] in asks
        assert COMPAT_LS not in asks


def test_the_compat_folder_is_listed_where_the_program_runs_without_a_container():
    # the near miss: CuPy on a host (rapidsai/cusignal#398, the catalogue's example): the host's folder is the program's
    assert COMPAT_LS in _asks(check(EXAMPLE.parent / "cusignal-398-cupy-compat-not-supported-on-device.txt"))


def _commands(doc: dict) -> list[list[str]]:
    return [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"]]


def test_the_named_container_that_holds_nvidia_uvm_is_stopped_before_the_reload_and_started_after():
    # tests/blind/plans16/cases/1608-*: `nvidia-docker run ... --name TensorFlow IMAGE` (nvidia-docker 1: no --gpus),
    # CUDA_ERROR_UNKNOWN after a suspend; rmmod refuses nvidia_uvm while the container holds it
    cmds = _commands(check(blind_case("plans16/cases/1608")))
    assert cmds.index(["docker", "stop", "TensorFlow"]) < cmds.index(["rmmod", "nvidia_uvm"])
    assert cmds.index(["modprobe", "nvidia_uvm"]) < cmds.index(["docker", "start", "TensorFlow"])


def test_no_container_is_stopped_where_the_program_ran_on_the_host():
    # the near miss: pytorch/pytorch#88639 (the catalogue's example), a program on the host after suspend
    cmds = _commands(check(EXAMPLE.parent / "pytorch-88639-cuda-unknown-error-after-suspend.txt"))
    assert ["rmmod", "nvidia_uvm"] in cmds
    assert not any(c[:1] in (["docker"], ["podman"]) for c in cmds)


def test_a_driver_from_nvidias_debian_repository_adds_that_repository_first():
    # tests/blind/plans16/cases/1654-*: Debian 11 with Debian's driver 470 and an image needing 520.56.06;
    # cuda-drivers-520 is only in NVIDIA's debian11 repository (tests/cli/test_check_cli_ci.py: a Debian 12 machine)
    cmds = _commands(check(blind_case("plans16/cases/1654")))
    keyring = ["dpkg", "-i", "cuda-keyring_1.1-1_all.deb"]
    wget = [c for c in cmds if c[:1] == ["wget"]]
    assert wget == [
        ["wget", "https://developer.download.nvidia.com/compute/cuda/repos/debian11/x86_64/cuda-keyring_1.1-1_all.deb"]
    ]
    assert cmds.index(keyring) < cmds.index(["apt-get", "install", "-y", "cuda-drivers-520"])
