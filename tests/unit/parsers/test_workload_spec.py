"""parsers/workload_spec.py: compose services and pod containers in pasted YAML fragments, and the GPUs each asks."""

from __future__ import annotations

from gpudoctor.parsers.workload_spec import parse_workloads

# The device plugin's example pod (NVIDIA/k8s-device-plugin README): two containers of two GPUs each.
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: gpu-pod
spec:
  containers:
    - name: cuda-container
      image: nvidia/cuda:9.0-devel
      resources:
        limits:
          nvidia.com/gpu: 2 # requesting 2 GPUs
    - name: digits-container
      image: nvidia/digits:6.0
      resources:
        limits:
          nvidia.com/gpu: 2 # requesting 2 GPUs
"""


def test_pod_containers_and_their_gpu_limits():
    got = [(w.kind, w.name, w.image, w.gpus, w.complete) for w in parse_workloads(POD.splitlines())]
    assert got == [
        ("kubernetes", "cuda-container", "nvidia/cuda:9.0-devel", "2", True),
        ("kubernetes", "digits-container", "nvidia/digits:6.0", "2", True),
    ]


def test_a_container_cut_mid_value_is_not_complete():
    cut = [
        "containers:",
        "  - name: vllm",
        "    image: vllm/vllm-openai:latest",
        "    args:",
        "      - |",
        "        vllm serve \\",
    ]
    (w,) = parse_workloads(cut)
    assert (w.name, w.gpus, w.complete) == ("vllm", None, False)


def test_a_compose_service_without_services_above_it():
    text = ["faster-whisper:", "    image: lscr.io/linuxserver/faster-whisper:gpu-legacy", "    restart: unless-stopped"]
    (w,) = parse_workloads(text)
    assert (w.kind, w.name, w.image, w.gpus) == (
        "compose",
        "faster-whisper",
        "lscr.io/linuxserver/faster-whisper:gpu-legacy",
        None,
    )


def test_compose_gpu_requests():
    reserved = ["services:", "  app:", "    image: x", "    deploy:", "      resources:", "        reservations:",
                "          devices:", "            - driver: nvidia", "              count: 1",
                "              capabilities: [gpu]"]  # fmt: skip
    runtime = ["app:", "  image: x", "  runtime: nvidia"]
    assert [w.gpus for w in parse_workloads(reserved)] == ["1"]
    assert [w.gpus for w in parse_workloads(runtime)] == ["all"]


def test_mappings_without_an_image_are_not_services():
    assert parse_workloads(["metadata:", "  name: gpu-pod", "  labels:", "    app: x"]) == []


def test_a_ci_job_with_an_image_is_not_a_compose_service():
    gitlab = ["train:", "  image: nvidia/cuda:12.4.1-runtime-ubuntu22.04", "  stage: test", "  script:", "    - python train.py"]
    assert parse_workloads(gitlab) == []
