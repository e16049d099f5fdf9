"""docs/findings/app-image-cpu-variant.md on whole real reports: a GPU application run from one of its image tags
without NVIDIA GPU libraries, while its GPU part is asked for, is told the application's GPU tag (its JetPack tag on a
Jetson); the application's GPU tag, a CPU tag with no GPU part asked for, and a program outside an application image
are not (gpudoctor.checks.catalogued.containers.check_app_image_variant, gpudoctor/planner/apps.toml)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Placeholder
from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
CODE = "app-image-cpu-variant"
CASES = ROOT / "tests/pasted/cases"
BLIND = ROOT / "tests/blind/plans11/cases"
# blakeblackshear/frigate#8228: the compose file's plain :stable image, the TensorRT detector configured
FRIGATE = CASES / "frigate-8228-compose-stable-image-tensorrt-detector/report.txt"
# plans11/1140 (frigate#7457): ":stable image" said in prose, the trt-models mounted for the detector
FRIGATE_PROSE = BLIND / "1140-frigate7457-portainer-docker-stable-image-not-tensorrt-quadro-m2000-tensorrt-detector/input.txt"
# plans11/1151 (ultralytics#2025): latest-arm64 run with --runtime nvidia on an Orin NX, l4t-pytorch r35.1.0 working
ORIN = BLIND / "1151-ultralytics2025-jetson-orin-nx-docker-latest-arm64-image-pypi-cpu-torch-no-gpu/input.txt"
# ultralytics#1981: latest-arm64 on a Jetson, its L4T release not shown
JETSON = CASES / "ultralytics-1981-jetson-latest-arm64-image-cuda-false/report.txt"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@states(CODE, FIRES)
def test_frigates_plain_image_with_the_tensorrt_detector_gets_its_tensorrt_tag():
    for path in (FRIGATE, FRIGATE_PROSE):
        f = pasted_findings(_read(path))[CODE]
        assert argv_of(f) == [("docker", "pull", "ghcr.io/blakeblackshear/frigate:stable-tensorrt")]
        assert f.remediation.component == "container" and f.remediation.where == "the host"


@states(CODE, FIRES)
def test_a_release_tag_keeps_its_version():
    text = _read(FRIGATE).replace("frigate:stable", "frigate:0.12.1")
    assert argv_of(pasted_findings(text)[CODE]) == [("docker", "pull", "ghcr.io/blakeblackshear/frigate:0.12.1-tensorrt")]


@states(CODE, FIRES)
def test_ultralytics_arm64_image_on_a_jetson_gets_the_jetpack_tag_of_its_l4t_release():
    f = pasted_findings(_read(ORIN))[CODE]
    assert argv_of(f) == [
        ("docker", "pull", "ultralytics/ultralytics:latest-jetson-jetpack5"),
        ("docker", "run", "--rm", "-it", "--runtime", "nvidia", "ultralytics/ultralytics:latest-jetson-jetpack5"),
    ]


@states(CODE, FIRES)
def test_on_a_jetson_of_unknown_release_the_release_is_read_before_the_tag():
    f = pasted_findings(_read(JETSON))[CODE]
    assert argv_of(f) == [("cat", "/etc/nv_tegra_release"), ("docker", "pull", Placeholder("jetson-image"))]


@states(CODE, QUIET)
def test_the_applications_gpu_tag_is_not_the_fault():
    # frigate#6666: the stable-tensorrt image, its models built by a TensorRT container too old for the GPU
    stable_tensorrt = (
        "I have a 4060ti and couldn't get tensorrt with yolo models to work in frigate's stable-tensorrt image.\n"
        "### Version\n\n0.12.0-DA3E197 Stable-tensorrt\n"
    )
    assert CODE not in pasted_findings(stable_tensorrt)
    for text in (
        _read(FRIGATE).replace("frigate:stable", "frigate:stable-tensorrt"),
        _read(ORIN).replace(":latest-arm64", ":latest-jetson-jetpack5"),
    ):
        assert CODE not in pasted_findings(text)


@states(CODE, QUIET)
def test_a_cpu_tag_with_no_gpu_part_asked_for_is_what_was_meant():
    # Frigate's plain image decodes video on an NVIDIA GPU (preset-nvidia): only the TensorRT detector needs the tag
    decode_only = "\n".join(
        ln for ln in _read(FRIGATE).splitlines() if not any(w in ln for w in ("tensorrt", "trt-models", "detector", "device: 0"))
    )
    assert "hwaccel_args: preset-nvidia" in decode_only and "frigate:stable" in decode_only
    assert CODE not in pasted_findings(decode_only)


@states(CODE, QUIET)
def test_the_same_cpu_torch_outside_an_application_image_is_not_an_image_variant():
    # the same failure in a plain venv on a Jetson: no application image named, so no tag to offer
    venv = (
        "$ source ~/venv/bin/activate\n"
        "$ python3 -c 'import torch; print(torch.cuda.is_available())'\n"
        "False\n"
        "Jetson Orin NX, L4T R35.4.1\n"
    )
    assert CODE not in pasted_findings(venv)


# Immich's own compose file (immich-app/immich docker/docker-compose.yml @4cff61e0), its machine learning given the GPU
# through hwaccel.ml.yml's cuda service but left on the CPU image
IMMICH = """\
  immich-machine-learning:
    container_name: immich_machine_learning
    image: ghcr.io/immich-app/immich-machine-learning:${IMMICH_VERSION:-release}
    extends:
      file: hwaccel.ml.yml
      service: cuda
    volumes:
      - model-cache:/cache
"""


@states(CODE, FIRES)
def test_immichs_compose_tag_variable_gets_the_cuda_tag_of_its_default():
    f = pasted_findings(IMMICH)[CODE]
    assert argv_of(f) == [("docker", "pull", "ghcr.io/immich-app/immich-machine-learning:release-cuda")]


@states(CODE, QUIET)
def test_immich_without_the_gpu_given_is_quiet_whatever_onnxruntime_asks_for():
    # immich-app/immich#2865: Immich 1.62 asked onnxruntime for the CUDA provider on a server without a GPU
    cpu = IMMICH.replace("service: cuda", "service: cpu") + (
        "immich_machine_learning  | UserWarning: Specified provider 'CUDAExecutionProvider' is not in available "
        "provider names.Available providers: 'CPUExecutionProvider'\n"
    )
    assert CODE not in pasted_findings(cpu)


def _asks(text: str) -> list[tuple[str, ...]]:
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted import Source, read_pasted
    from gpudoctor.pipeline import CheckRequest, check

    checked = check(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")), CheckRequest())
    return [tuple(str(w) for w in a.command.argv) for a in checked.asks]


def _image_asked(argv: tuple[str, ...]) -> bool:
    return argv[:1] == ("docker",) and ("{{.Config.Image}}" in argv or argv[1:2] == ("ps",))


def test_the_application_named_in_a_container_without_its_image_asks_for_the_image():

    # plans11/1149 (imagegenius/docker-immich#679): onnxruntime without the CUDA provider in the immich container,
    # the tag not said
    path = BLIND / "1149-dockerimmich679-imagegenius-immich-container-onnxruntime-cpu-providers-only-which-tag-ask/input.txt"
    assert CODE not in pasted_findings(_read(path))
    assert ("docker", "inspect", "immich", "--format", "{{.Config.Image}}") in _asks(_read(path))
    # the same words outside a container: no image to ask about
    bare = _read(path).replace("docker exec -it immich bash -c ", "")
    assert not any(_image_asked(a) for a in _asks(bare))


def test_an_image_whose_gpu_package_shows_is_not_asked_about():
    # plans5/445 (immich-app/immich#14808): onnxruntime lists the CUDA provider (the -cuda image) and finds no device in
    # a vGPU VM: the image is not the question
    path = ROOT / "tests/blind/plans5/cases/445-immich14808-vm-a100-mig-vgpu-ml-container-no-cuda-device-ask/input.txt"
    assert not any(_image_asked(a) for a in _asks(_read(path)))
