"""A container started without GPU access, read from the loader's own error (libcuda.so.1 or libnvidia-ml.so.1 not
found: the NVIDIA Container Toolkit mounts the driver's libraries only into a container that asks for a GPU), and the
closing check of a container plan moved off an nvidia/cuda tag NVIDIA has taken down. Real reports, read as pasted
(tests/blind/plans*/cases, tests/pasted/cases: the frozen inputs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, shell_for_os
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.planner.deciders import with_docker_root
from gpudoctor.planner.prescribe import build

TESTS = Path(__file__).resolve().parent.parent


def _report(glob: str):
    (path,) = [*TESTS.glob(glob)]
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), path.parent.name)))


def _step(report, code: str):
    findings = with_docker_root(report.findings, report.facts)
    (step,) = [s for s in build(findings, shell_for_os(report.facts.platform.system)).steps if code in s.codes]
    return [c.words for c in step.commands if isinstance(c, Cmd)]


# (the report, the reporter's docker run as it shows it, without its `docker run`)
WITHOUT_GPUS = [
    # sd.cpp's CUDA image: the loader's "error while loading shared libraries: libcuda.so.1" (1846)
    ("blind/plans18/cases/1846-*/input.txt", ("-it", "--rm", "ghcr.io/leejet/stable-diffusion.cpp:master-cuda")),
    # a TensorFlow GPU image: its import's "ImportError: libcuda.so.1" (ufoym/deepo#112)
    ("pasted/cases/deepo-112-*/report.txt", ("-it", "ufoym/deepo:tensorflow-py36-cu90")),
]


@pytest.mark.parametrize(("glob", "words"), WITHOUT_GPUS)
def test_a_driver_library_missing_after_a_run_without_gpus_is_the_container_without_gpu(glob, words):
    report = _report(glob)
    assert [e.get("soname") for e in report.facts.pasted.errors if e.kind == "library-missing"] == ["libcuda.so.1"]
    assert "container-no-gpu" in {f.code for f in report.findings}
    # the fix is the reporter's own run with --gpus all, nothing installed in the image
    assert _step(report, "container-no-gpu")[-1] == ("docker", "run", "--gpus", "all", *words)
    # the image's own loader cache, asked without --gpus, would only show the absence again
    asked = [a.command.words for a in ask_for(report.facts, list(report.findings))]
    assert asked and not [w for w in asked if "ldconfig" in w or "LD_LIBRARY_PATH" in w]


# docker's 'could not select device driver' under a check run on a tag NVIDIA took down (nvidia/cuda:9.0-base in 1867,
# 11.0-base in plans2's 127): the toolkit's sample workload checks the same without a tag to pick for the driver.
@pytest.mark.parametrize("glob", ["blind/plans18/cases/1867-*/input.txt", "blind/plans2/cases/127-*/input.txt"])
def test_the_closing_check_on_a_gone_cuda_tag_runs_the_toolkits_sample_image(glob):
    last = _step(_report(glob), "container-no-gpu")[-1]
    assert last[:2] == ("docker", "run") and last[-2:] == ("ubuntu", "nvidia-smi")
    assert not any(w.startswith("nvidia/cuda") for w in last) and "--gpus" in last


def test_a_run_on_the_programs_own_image_keeps_its_image():
    """Only an nvidia-smi check moves to the sample image: a program's own image (1846) is run as the reporter wrote."""
    last = _step(_report("blind/plans18/cases/1846-*/input.txt"), "container-no-gpu")[-1]
    assert "ghcr.io/leejet/stable-diffusion.cpp:master-cuda" in last and "ubuntu" not in last


# A pod left Pending, as `kubectl get pods` shows it: the scheduler's reason is asked, not guessed (k8s-device-plugin
# #176, set 18's 1807; #301 is the catalogue's example).
@pytest.mark.parametrize(
    ("glob", "pod"),
    [
        ("blind/plans18/cases/1807-*/input.txt", "gpu-pod"),
        ("pasted/catalogue_examples/k8s-device-plugin-301-cuda-vector-add-pending.txt", "cuda-vector-add"),
    ],
)
def test_a_pending_pod_asks_for_the_schedulers_reason(glob, pod):
    report = _report(glob)
    (said,) = [e for e in report.facts.pasted.errors if e.kind == "kubernetes-pod-pending"]
    assert said.get("pod") == pod
    asked = [a.command.words for a in ask_for(report.facts, list(report.findings))]
    assert ("kubectl", "get", "events", "-A", "--field-selector", "reason=FailedScheduling") in asked


# A project's own CUDA op failing its launch check with "no kernel image" (CaDDN's pcdet ops, set 18's 1847;
# Vote2Cap-DETR's PointNet++ op): the GPU's capability and the toolkit that rebuilds it are asked where it runs.
@pytest.mark.parametrize(
    "glob",
    [
        "blind/plans18/cases/1847-*/input.txt",
        "pasted/catalogue_examples/vote2cap-detr-22-pointnet2-cuda-kernel-failed-no-kernel-image.txt",
    ],
)
def test_an_extensions_own_no_kernel_image_asks_for_the_capability_and_the_toolkit(glob):
    report = _report(glob)
    assert [e.kind for e in report.facts.pasted.errors if e.kind == "extension-kernel-no-image"]
    asked = [a.command.words for a in ask_for(report.facts, list(report.findings))]
    assert any(w[-1] == "--version" and "nvcc" in w for w in asked)


def test_inside_the_container_the_capability_is_asked_of_its_interpreter():
    report = _report("blind/plans18/cases/1847-*/input.txt")
    asked = [a.command.words for a in ask_for(report.facts, list(report.findings))]
    assert any(w[0] == "python3" and any("get_device_capability" in x for x in w) for w in asked)
