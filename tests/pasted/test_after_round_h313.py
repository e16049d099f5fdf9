"""After-round h313 (set 23, Python packages and extensions): three reading rules, each shown by two real threads.

- onnxruntime's package without a name its own __init__ binds ("module 'onnxruntime' has no attribute 'SessionOptions'",
  cut or whole): every ONNX Runtime distribution out, onnxruntime-gpu alone back (rembg#501 in set 23;
  cubiq/ComfyUI_IPAdapter_plus#273).
- torch.utils.cpp_extension's PyTorch CUDA of another major than the installed torch's own tag: the torch pip's
  isolated build fetched, so the build goes again with --no-build-isolation and no toolkit moves (vllm#3332 and
  vllm#1548, both in set 23).
- torch's dispatcher table under "Could not run 'torchvision::nms' ... 'CUDA' backend" with a CPU row and no CUDA row:
  a torchvision without CUDA (ultralytics#8296 in set 23; ltdrdata/ComfyUI-Inspire-Pack#106).
Expectations by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.parsers.catalogue import match
from tests.pasted.cli_json import blind_case, check, paste

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _argvs(finding: dict) -> list[list[str]]:
    return [c["argv"] for c in finding["remediation"]["argv"]]


def _only(doc: dict, code: str) -> dict:
    (f,) = [f for f in doc["findings"] if f["code"] == code]
    return f


# --- onnxruntime's package missing its own names ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "python"),
    [
        (blind_case("plans23/cases/2333"), "python3"),  # the name cut in the paste: 'Se
        (EXAMPLES / "ipadapter-plus-273-onnxruntime-no-attribute-inferencesession.txt", None),  # ComfyUI portable
    ],
)
def test_onnxruntime_without_its_own_names_reinstalls_the_gpu_package_alone(path: Path, python: str | None):
    doc = check(path)
    f = _only(doc, "nvidia-wheels-conflict")
    assert "pasted-error-unexplained" not in {x["code"] for x in doc["findings"]}
    argvs = _argvs(f)
    py = python or argvs[0][0]
    assert py.endswith(("python3", "python.exe"))
    uninstall = next(a for a in argvs if a[1:4] == ["-m", "pip", "uninstall"])
    assert uninstall[0] == py and {"onnxruntime", "onnxruntime-gpu"} <= set(uninstall[4:])
    install = next(a for a in argvs if a[1:4] == ["-m", "pip", "install"])
    assert install[4:] == ["--force-reinstall", "onnxruntime-gpu"]
    assert argvs.index(uninstall) < argvs.index(install)
    # and neither the driver nor a toolkit is touched
    assert not any(a[0] in ("apt-get", "sudo", "conda") for a in argvs)


def test_an_onnxruntime_attribute_no_init_binds_is_not_read(tmp_path: Path):
    # (a name onnxruntime's __init__ never bound, closed: the program's own mistake, not a hollow package)
    doc = paste(tmp_path, "AttributeError: module 'onnxruntime' has no attribute 'quantize_dynamic'\n")
    assert "nvidia-wheels-conflict" not in {f["code"] for f in doc["findings"]}


# --- the isolated build's torch ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "torch"),
    [("plans23/cases/2306", "2.1.2+cu118"), ("plans23/cases/2319", "2.0.1+cu118")],
)
def test_cpp_extension_naming_another_cuda_than_the_installed_tag_rebuilds_without_isolation(case: str, torch: str):
    doc = check(blind_case(case))
    codes = {f["code"] for f in doc["findings"]}
    assert "toolkit-torch-major-mismatch" not in codes  # no CUDA 12 toolkit to install beside the cu118 torch
    f = _only(doc, "extension-not-built")
    assert doc["facts"]["frameworks"]["torch"]["value"]["version"] == torch
    assert doc["facts"]["frameworks"]["torch"]["value"]["cuda"] == "11.8"
    argvs = _argvs(f)
    assert argvs[-1][1:] == ["-m", "pip", "install", "--no-build-isolation", "-e", "."]
    assert not any("torch==" in w for a in argvs for w in a)  # the installed torch stays


def test_the_message_alone_keeps_the_toolkit_finding(tmp_path: Path):
    # (no installed torch shown: the message's PyTorch is the only torch known, as before)
    doc = paste(
        tmp_path,
        "RuntimeError:\nThe detected CUDA version (12.2) mismatches the version that was used to compile\n"
        "PyTorch (11.7). Please make sure to use the same CUDA versions.\n",
    )
    codes = {f["code"] for f in doc["findings"]}
    assert "toolkit-torch-major-mismatch" in codes and "extension-not-built" not in codes


# --- the dispatcher's table of a torchvision operator --------------------------------------------------------------


def test_dispatch_table_without_a_cuda_row_is_read_in_both_threads():
    for text in (
        blind_case("plans23/cases/2331").read_text("utf-8"),
        (EXAMPLES / "comfyui-inspire-pack-106-torchvision-nms-dispatch-table-cpu-only.txt").read_text("utf-8"),
    ):
        entries = {e.get("entry") for e in match(text)}
        assert "torchvision-op-no-cuda-kernel-table" in entries


def test_dispatch_table_with_a_cuda_row_is_not_read():
    text = (
        "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend.\n\n"
        "CPU: registered at /vision/torchvision/csrc/ops/cpu/nms_kernel.cpp:112 [kernel]\n"
        "CUDA: registered at /vision/torchvision/csrc/ops/cuda/nms_kernel.cu:169 [kernel]\n"
        "Meta: registered at /dev/null:440 [kernel]\n"
    )
    assert "torchvision-op-no-cuda-kernel-table" not in {e.get("entry") for e in match(text)}


def test_cpu_torchvision_beside_cuda_torch_reinstalls_the_matching_release_from_torchs_index():
    doc = check(blind_case("plans23/cases/2331"))
    f = _only(doc, "companion-torch-mismatch")
    (argv,) = _argvs(f)
    assert "torchvision==0.17.0" in argv and argv[-2] == "--index-url" and argv[-1].endswith("/whl/cu121")
    assert not any(w.startswith("torch==") for w in argv)  # torch stays
    assert argv[0].endswith("myenv\\Scripts\\python.exe")
