"""What a container's setup asked for, read from real reports (issues 27/28, blind set 13's containers family): an
image tag the registry does not hold, a Singularity container entered without --nv under PyTorch Lightning's
"your machine only has: []", a pod created without the video driver capability, the GPU Operator's driver container on a
kernel its distribution does not carry. Whole pastes, data asserted."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.spec.registry import FIRES, QUIET, states

TESTS = Path(__file__).resolve().parents[1]
PLANS13 = TESTS / "blind" / "plans13" / "cases"
EXAMPLES = TESTS / "pasted" / "catalogue_examples"


def _case(number: str) -> str:
    return next(PLANS13.glob(f"{number}-*")).joinpath("input.txt").read_text(encoding="utf-8")


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    report = diagnose(ReplayHost(snapshot))
    return {f.code: f for f in report.findings}, snapshot


def _argvs(finding) -> list[tuple[str, ...]]:
    return [tuple(map(str, c.argv)) + tuple(map(str, c.pipe)) for c in finding.remediation.commands if isinstance(c, Cmd)]


def _kinds(snapshot) -> list[str]:
    return [e["kind"] for e in snapshot["pasted"]["errors"]] if "pasted" in snapshot else []


TAG = "container-image-tag-missing"


@states(TAG, FIRES)
def test_a_short_cuda_tag_the_registry_no_longer_holds_is_run_again_on_its_full_tag():
    # tests/blind/plans13 case 1307 (nvidia/cuda:11.0-base on an Ubuntu 18.04 host) and NVIDIA/nvidia-docker#1735
    # (nvidia/cuda:11.0-base-ubuntu20.04, the catalogue's example): CUDA 11.0's last update is 11.0.3 (the matrix);
    # the host's Ubuntu release, or the OS the tag names, completes it
    cases = (
        (_case("1307"), "nvidia/cuda:11.0.3-base-ubuntu18.04"),
        (
            EXAMPLES.joinpath("nvidia-docker-1735-cuda-110-base-ubuntu2004-manifest-unknown.txt").read_text(encoding="utf-8"),
            "nvidia/cuda:11.0.3-base-ubuntu20.04",
        ),
    )
    for text, tag in cases:
        found, _ = _run(text)
        f = found[TAG]
        assert (f.remediation.component, f.remediation.where) == ("container", "the host")
        assert _argvs(f) == [("docker", "run", "--rm", "--gpus", "all", tag, "nvidia-smi")]
        # the setup never ran: no toolkit, driver or runtime finding beside it
        assert not {"container-no-gpu", "pasted-error-unexplained"} & set(found), found.keys()
    # kokkos/kokkos pull 5509 (its CI's line, verbatim): a Dockerfile's FROM, no run shown: the pull of the full tag
    found, _ = _run("manifest for nvidia/cuda:11.0-devel not found: manifest unknown: manifest unknown\n")
    assert _argvs(found[TAG]) == [("docker", "pull", "nvidia/cuda:11.0.3-devel-ubuntu20.04")]


@states(TAG, QUIET)
def test_podmans_words_for_a_missing_tag_are_not_judged_as_dockers():
    # NVIDIA/nvidia-docker#1768 (its description, verbatim): podman's build reading a CUDA 10.2 tag words the registry's
    # answer its own way ("reading manifest ... manifest unknown"), not docker's: not read as docker's
    podman = (
        "STEP 1/26: FROM docker.io/nvidia/cuda:10.2-cudnn7-devel-ubuntu18.04\n"
        "Trying to pull docker.io/nvidia/cuda:10.2-cudnn7-devel-ubuntu18.04...\n"
        "Error: error creating build container: initializing source docker://nvidia/cuda:10.2-cudnn7-devel-ubuntu18.04: "
        "reading manifest 10.2-cudnn7-devel-ubuntu18.04 in docker.io/nvidia/cuda: manifest unknown: manifest unknown\n"
    )
    for text in (podman,):
        found, _ = _run(text)
        assert TAG not in found, found.keys()


NO_GPU = "container-no-gpu"


@states(NO_GPU, FIRES)
def test_lightning_finding_no_gpu_in_a_singularity_shell_without_nv_adds_nv():
    # tests/blind/plans13 case 1338: `singularity shell nemo.sif`, then PyTorch Lightning's "You requested GPUs: [0] /
    # But your machine only has: []" (torch saw no CUDA device): the same command with --nv
    found, snapshot = _run(_case("1338"))
    assert "cuda-no-gpus" in _kinds(snapshot)
    f = found[NO_GPU]
    assert _argvs(f) == [
        ("nvidia-smi",),
        ("singularity", "exec", "--nv", "nemo.sif", "nvidia-smi"),
        ("singularity", "shell", "--nv", "nemo.sif"),
    ]


PLANS14 = TESTS / "blind" / "plans14" / "cases"


@states(NO_GPU, FIRES)
def test_a_job_line_quoted_as_inline_code_without_nv_under_dorados_no_devices_adds_nv():
    # tests/blind/plans14 case 1451 (an SGE job's `singularity exec --bind ... bash job.sh`, written as Markdown inline
    # code, then dorado's "CUDA device requested but no devices found."): the options after the verb are not the image
    # (its file is asked for), and the job's own command is repeated with --nv; nothing is installed
    text = next(PLANS14.glob("1451-*")).joinpath("input.txt").read_text(encoding="utf-8")
    found, snapshot = _run(text)
    assert "cuda-no-gpus" in _kinds(snapshot)
    f = found[NO_GPU]
    assert (f.remediation.component, f.remediation.where) == ("container", "the host")
    argvs = _argvs(f)
    assert argvs[:2] == [("nvidia-smi",), ("singularity", "exec", "--nv", "<sif-file>", "nvidia-smi")]
    assert argvs[2][:5] == ("singularity", "exec", "--nv", "--bind", "/path/to/my/folder:/mnt/path/to/dorado_v0.4.3.sif")
    assert argvs[2][-1] == "/mnt/path/dorado_v0.4.3.sh"  # the closing backtick is not the command's
    assert not any(a[0] in ("apt-get", "docker", "conda") for a in argvs)


@states(NO_GPU, QUIET)
def test_dorados_no_devices_without_a_container_or_with_nv_is_not_the_missing_flag():
    # the quiet twins: nanoporetech/dorado#589 (the catalogue's example): the same message from dorado run on a
    # cluster node with no container named, read as torch seeing no GPU, no container finding; and case 1451's job
    # line with --nv written in (by hand: the near miss), where the flag is there and is not the cause
    example = EXAMPLES.joinpath("dorado-589-cuda-device-requested-no-devices-found.txt").read_text(encoding="utf-8")
    found, snapshot = _run(example)
    assert "cuda-no-gpus" in _kinds(snapshot)
    assert NO_GPU not in found, found.keys()
    text = next(PLANS14.glob("1451-*")).joinpath("input.txt").read_text(encoding="utf-8")
    found, _ = _run(text.replace("`singularity exec --bind", "`singularity exec --nv --bind"))
    assert NO_GPU not in found, found.keys()


def test_lightning_with_no_gpu_at_all_is_read_and_an_index_past_the_gpus_is_not():
    # AntixK/PyTorch-VAE#81 (the catalogue's example): "only has: []", torch sees no GPU; its quiet twin,
    # AntixK/PyTorch-VAE#98 (the title, verbatim): "requested GPUs: [1] But your machine only has: [0]", an index
    # past the one GPU there, the program's configuration
    none = EXAMPLES.joinpath("pytorch-vae-81-lightning-requested-gpus-machine-has-none.txt").read_text(encoding="utf-8")
    _, snapshot = _run(none)
    assert "cuda-no-gpus" in _kinds(snapshot)
    past = "pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested GPUs: [1] But your machine only has: [0]\n"
    _, snapshot = _run(past)
    assert "cuda-no-gpus" not in _kinds(snapshot)


VIDEO = "container-video-capability-missing"


@states(VIDEO, FIRES)
def test_a_pod_without_the_video_capability_gets_it_in_its_pod_template():
    # tests/blind/plans13 case 1336: FFmpeg's "Cannot load libnvcuvid.so.1" in a pod on Kubernetes (the device plugin
    # allocating the GPU): the variable goes into the workload's pod template, not a docker run
    found, _ = _run(_case("1336"))
    f = found[VIDEO]
    assert (f.remediation.component, f.remediation.where) == ("container", "the cluster")
    argvs = _argvs(f)
    assert argvs[0] == ("kubectl", "exec", "<pod>", "--", "printenv", "NVIDIA_DRIVER_CAPABILITIES")
    assert argvs[1] == ("kubectl", "set", "env", "deployment/<deployment>", "NVIDIA_DRIVER_CAPABILITIES=compute,utility,video")
    assert argvs[2] == ("kubectl", "rollout", "status", "deployment/<deployment>")
    assert not any(a[0] in ("docker", "apt-get", "helm") for a in argvs)


@states(VIDEO, QUIET)
def test_a_pod_that_asked_for_video_is_not_the_capability():
    # the quiet twin: the same pod's report beside NVIDIA/nvidia-docker#766's words (the capability passed,
    # NVIDIA_DRIVER_CAPABILITIES=compute,utility,video): the node's driver without the library is what is left
    asked = (
        "and pass NVIDIA_DRIVER_CAPABILITIES=compute,utility,video as an environment variable, that nvidia-docker will "
        "mount the necessary libraries etc into my container\n"
    )
    found, _ = _run(_case("1336") + "\n" + asked)
    assert VIDEO not in found, found.keys()


KERNEL = "driver-container-kernel-unsupported"


@states(KERNEL, FIRES)
def test_the_operators_driver_container_on_a_kernel_outside_the_distribution_builds_on_the_node():
    # tests/blind/plans13 case 1313 (ELRepo's 5.4.124-1.el7.elrepo.x86_64 on CentOS 7.9, the driver pod in
    # CrashLoopBackOff) and NVIDIA/gpu-operator#155 (the catalogue's example: "Could not resolve Linux kernel version" on
    # CentOS 7.6 with kernel 4.19.12-1.el7)
    cases = (
        (_case("1313"), "5.4.124-1.el7.elrepo.x86_64"),
        (
            EXAMPLES.joinpath("gpu-operator-155-centos7-kernel-4-19-could-not-resolve-kernel-version.txt").read_text(
                encoding="utf-8"
            ),
            "4.19.12-1.el7",
        ),
    )
    for text, release in cases:
        found, _ = _run(text)
        f = found[KERNEL]
        assert (f.remediation.component, f.remediation.where) == ("driver", "the GPU node")
        argvs = _argvs(f)
        assert argvs[:3] == [("uname", "-r"), ("rpm", "-qf", f"/boot/vmlinuz-{release}"), ("nvidia-smi",)]
        # the operator keeps its release and turns its driver container off (the release and its namespace are not
        # shown: the plan lists them, gpudoctor.planner.deciders)
        assert argvs[3] == (
            "helm",
            "upgrade",
            "<helm-release>",
            "nvidia/gpu-operator",
            "-n",
            "<namespace>",
            "--reuse-values",
            "--set",
            "driver.enabled=false",
        )
        # never the distribution's kernel-headers of another kernel, never a reinstall of the operator
        assert not any(a[:2] in (("yum", "install"), ("helm", "install")) for a in argvs)


@states(KERNEL, QUIET)
def test_the_driver_container_on_the_distributions_own_kernel_is_left_to_the_asks():
    # the quiet twins: NVIDIA/gpu-operator#73 (its uname line, verbatim): CentOS 8's own 4.18.0 kernel (el8), beside the
    # driver pod's crash; and the catalogue's example of the crash loop alone (gpu-operator#130), no kernel shown
    uname = "Linux test-gpu-operator 4.18.0-193.14.2.el8_2.x86_64 #1 SMP Sun Jul 26 03:54:29 UTC 2020 x86_64 x86_64 x86_64 GNU/Linux\n"
    crash = EXAMPLES.joinpath("gpu-operator-130-driver-daemonset-crashloop.txt").read_text(encoding="utf-8")
    for text in (uname + crash, crash):
        found, _ = _run(text)
        assert KERNEL not in found, found.keys()


def test_ollama_ps_with_a_model_at_100_percent_cpu_beside_an_nvidia_driver_is_not_a_clean_bill():
    # tests/blind/plans14 case 1431 (Ollama in docker, `ollama ps` at "100% CPU", nvidia-smi's table of an RTX 3090) and
    # ollama/ollama#11676 (the catalogue's example: the same column beside nvidia-smi's header): the failure is named and
    # left open (Ollama's discovery log decides), asked from the container's log where docker runs it
    text = next(PLANS14.glob("1431-*")).joinpath("input.txt").read_text(encoding="utf-8")
    example = EXAMPLES.joinpath("ollama-11676-ps-100-percent-cpu-gpt-oss.txt").read_text(encoding="utf-8")
    for source in (text, example):
        found, snapshot = _run(source)
        assert "ollama-model-on-cpu" in _kinds(snapshot)
        assert "pasted-error-unexplained" in found, found.keys()
        assert not any(a[0] in ("apt-get", "pip", "docker") for f in found.values() if f.remediation for a in _argvs(f) if a)


def test_ollama_ps_on_the_gpu_or_on_a_machine_without_an_nvidia_gpu_is_quiet():
    # the quiet twins: ollama/ollama#10984 (its description: the model at "100% GPU"), not read; and the 100% CPU row
    # of #11676 alone, with no NVIDIA GPU or driver shown, which is how Ollama runs on a machine without one
    quiet = EXAMPLES.joinpath("ollama-10984-ps-100-percent-gpu.txt").read_text(encoding="utf-8")
    found, snapshot = _run(quiet)
    assert "ollama-model-on-cpu" not in _kinds(snapshot)
    row = "gpt-oss:120b    735371f916a9    69 GB    100% CPU     128000     Forever    \n"
    found, snapshot = _run(row)
    assert "ollama-model-on-cpu" in _kinds(snapshot)
    assert "pasted-error-unexplained" not in found, found.keys()


PLANS20 = TESTS / "blind" / "plans20" / "cases"


@states(KERNEL, FIRES)
def test_the_operators_driver_container_with_an_older_gcc_than_the_kernels_needs_an_image_with_the_kernels_gcc():
    # tests/blind/plans20 case 2006 (NVIDIA/gpu-operator#564): a 5.19.0-1030-gcp kernel built by gcc-12, the driver
    # container's build-essential GCC 11.3 (the kernel Makefile's "the compiler differs" in the driver container's log)
    text = next(PLANS20.glob("2006-*")).joinpath("input.txt").read_text(encoding="utf-8")
    found, snapshot = _run(text)
    assert {"kernel-compiler-differs", "gpu-driver-container-said"} <= set(_kinds(snapshot))
    f = found[KERNEL]
    assert (f.remediation.component, f.remediation.where) == ("driver", "the cluster")
    argvs = _argvs(f)
    # read the compiler's error, point the operator at an image built with the kernel's GCC, see it roll out
    assert argvs[0][:2] == ("kubectl", "logs") and "nvidia-driver-ctr" in argvs[0]
    assert argvs[1][:2] == ("helm", "upgrade") and "--reuse-values" in argvs[1]
    assert argvs[2][:3] == ("kubectl", "rollout", "status")
    assert argvs[3][-1] == "nvidia-smi"
    # never the check silenced, never the operator reinstalled unchanged
    assert not any("IGNORE_CC_MISMATCH" in " ".join(a) for a in argvs)
    assert not any(a[:2] == ("helm", "install") for a in argvs)


@states(KERNEL, QUIET)
def test_a_compiler_of_the_kernels_major_or_newer_or_a_hosts_own_build_is_not_the_driver_containers_fault():
    # the quiet twins: NVIDIA/gpu-operator#504 (the driver container's GCC 11.2 on a kernel built by 11.3: one major,
    # the warning's text only), kubernetes/kops#4971 (a driver container's nvidia-installer with gcc 7 on a kernel built
    # by gcc 4.9: newer) and pop-os/system76-driver#325 (a host's DKMS with GCC 13 on a GCC 14 kernel: no driver
    # container in the text)
    for name in (
        "gpu-operator-504-driver-container-same-gcc-major-compiler-differs.txt",
        "kops-4971-driver-container-ignoring-cc-version-mismatch.txt",
        "system76-driver-325-dkms-kernel-gcc14-cc13-compiler-differs.txt",
    ):
        found, snapshot = _run(EXAMPLES.joinpath(name).read_text(encoding="utf-8"))
        assert "kernel-compiler-differs" in _kinds(snapshot), name
        if name.startswith("gpu-operator-504"):
            assert "gpu-driver-container-said" in _kinds(snapshot)  # the container's log: quiet for the one major
        assert KERNEL not in found, (name, found.keys())
