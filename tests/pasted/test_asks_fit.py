"""The asks (gpudoctor/pasted/ask.py) fit the reporter's machine: the interpreter the plan uses, nothing that
cannot succeed there, nothing that does not bear on the cause (issue 27)."""

from __future__ import annotations

import json

import pytest

from tests.hostile.test_corpus import run_cli


def _check(tmp_path, text: str) -> dict:
    paste = tmp_path / "issue.txt"
    paste.write_text(text, encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    assert code in (0, 1), err
    return json.loads(out)


def _asked(doc: dict) -> list[list[str]]:
    return [a["argv"] for a in doc["pasted"]["ask_for"]]


def _plan_argvs(doc: dict) -> list[list[str]]:
    return [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"] if "argv" in c]


_INSUFFICIENT = "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version\n"


def test_the_asks_use_the_interpreter_the_text_shows_run(tmp_path):
    # A portable install's own python.exe, run from the prompt's directory: the asks run that interpreter, as the
    # plan's pip commands do, not a `python` on PATH that is another environment.
    interpreter = r"D:\tools\App_portable\python_embeded\python.exe"
    doc = _check(
        tmp_path,
        "D:\\tools\\App_portable>.\\python_embeded\\python.exe -s main.py\n"
        "Traceback (most recent call last):\n"
        '  File "D:\\tools\\App_portable\\python_embeded\\Lib\\site-packages\\torch\\cuda\\__init__.py", line 284, in _lazy_init\n'
        "AssertionError: Torch not compiled with CUDA enabled\n",
    )
    python_asks = [argv for argv in _asked(doc) if argv[1:2] in (["-m"], ["-c"])]
    assert python_asks and {argv[0] for argv in python_asks} == {interpreter}
    assert doc["facts"]["frameworks"]["python"]["value"]["executable"] == interpreter  # the plan's interpreter


def test_nothing_that_reads_an_nvidia_driver_is_asked_where_only_another_vendors_gpu_is_named(tmp_path):
    doc = _check(
        tmp_path,
        "Traceback (most recent call last):\n"
        '  File "/home/u/env/lib/python3.10/site-packages/app/train.py", line 298, in step\n'
        + _INSUFFICIENT
        + "My laptop has only Intel(R) Iris(R) Xe Graphics.\n",
    )
    assert "gpu-none" in {f["code"] for f in doc["findings"]}
    reads_driver = [a for a in [*_asked(doc), *_plan_argvs(doc)] if a[0].startswith("nvidia-smi") or "nvidia" in a[1:]]
    assert reads_driver == []


@pytest.mark.parametrize("card", ["RX 6800", "RX 7900 XTX", "RX 580"])
def test_an_amd_radeon_named_by_its_model_alone_is_no_nvidia_gpu(tmp_path, card):
    doc = _check(
        tmp_path,
        f"Here is the dump for AMD 3800 / 32GB / {card} / 10 x64 22H2:\n"
        "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check\n",
    )
    assert "gpu-none" in {f["code"] for f in doc["findings"]}
    assert [a for a in [*_asked(doc), *_plan_argvs(doc)] if a[0].startswith("nvidia-smi")] == []


def test_an_nvidia_rtx_is_not_read_as_an_amd_rx(tmp_path):
    doc = _check(tmp_path, "RTX 4090, torch.cuda.is_available() printed False\n")
    assert "gpu-none" not in {f["code"] for f in doc["findings"]}


def test_the_toolkit_is_not_asked_where_the_runtime_is_a_python_packages(tmp_path):
    # The failing runtime is loaded by a package in an environment's site-packages: its wheel brought it, so the
    # toolkit on PATH does not bear on it; the driver (nvidia-smi) does.
    doc = _check(
        tmp_path,
        "Traceback (most recent call last):\n"
        '  File "/home/u/proj/env/lib/python3.10/site-packages/somepkg/model.py", line 12, in __init__\n'
        "    self.model = native.Model(path)\n" + _INSUFFICIENT,
    )
    assert "toolkit-newer-than-driver" in {f["code"] for f in doc["findings"]}
    assert ["nvidia-smi"] in _asked(doc)
    assert ["nvcc", "--version"] not in _asked(doc)


def test_the_toolkit_is_asked_where_nothing_shows_where_the_runtime_came_from(tmp_path):
    doc = _check(tmp_path, _INSUFFICIENT)
    assert "toolkit-newer-than-driver" in {f["code"] for f in doc["findings"]}
    assert ["nvcc", "--version"] in _asked(doc)


_FLASH_SYMBOL = (
    "ImportError: /home/u/env/lib/python3.11/site-packages/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: "
    "undefined symbol: _ZN3c104cuda9SetDeviceEi\n"
)


def test_a_source_built_extension_for_another_torch_is_rebuilt_not_asked_about(tmp_path):
    # Neither torch's version nor flash-attn's was shown: flash-attn's build compiles against the torch installed in
    # the interpreter that builds it, so the rebuild there is the fix without either; nothing about the versions or the
    # driver is asked.
    doc = _check(tmp_path, _FLASH_SYMBOL)
    assert "extension-symbol-missing" in {f["code"] for f in doc["findings"]}
    assert [a[1:] for a in _plan_argvs(doc) if a[1:4] == ["-m", "pip", "show"]] == [["-m", "pip", "show", "flash-attn"]]
    assert not [a for a in _asked(doc) if a[1:4] == ["-m", "pip", "show"] or a[0] == "nvidia-smi"]


def test_torchaudios_first_extension_is_torchaudios(tmp_path):
    doc = _check(
        tmp_path,
        "ImportError: /usr/local/lib/python3.5/dist-packages/_torch_sox.cpython-35m-x86_64-linux-gnu.so: "
        "undefined symbol: _ZN2at19UndefinedTensorImpl10_singletonE\n",
    )
    assert [a[1:] for a in _asked(doc)] == [["-m", "pip", "show", "torch", "torchaudio"]]


def test_with_torchs_version_shown_the_fix_is_printed_not_asked(tmp_path):
    # torch 2.6.0 in the pip list: the finding carries the flash-attn release built for it, and nothing is asked about
    # the versions (the command answers it), nor the driver or torch's CUDA build.
    doc = _check(tmp_path, "Package Version\n------- -------\ntorch 2.6.0\nflash-attn 2.8.0.post2\n" + _FLASH_SYMBOL)
    got = [f for f in doc["findings"] if f["code"] == "extension-symbol-missing"]
    assert got and got[0]["remediation"] is not None
    assert _asked(doc) == []


def test_a_driver_error_beside_the_extension_still_asks_for_the_driver(tmp_path):
    doc = _check(tmp_path, _FLASH_SYMBOL + _INSUFFICIENT)
    assert ["nvidia-smi"] in _asked(doc)


def test_windows_entry_point_not_found_in_an_extension_is_the_same_finding(tmp_path):
    # Windows' loader says it as "The procedure entry point ... could not be located in the dynamic link library ...":
    # xformers' _C.pyd needing a torch name is an extension built for another torch; its interpreter's versions decide.
    doc = _check(
        tmp_path,
        "The procedure entry point ?element_size@TensorIteratorBase@at@@QEBA_JH@Z could not be located in the dynamic\n"
        "link library C:\\envs\\app\\lib\\site-packages\\xformers\\_C.pyd.\n",
    )
    got = [f for f in doc["findings"] if f["code"] == "extension-symbol-missing"]
    assert got and got[0]["title"].startswith("xformers needs at::TensorIteratorBase::element_size")
    assert [a[1:] for a in _asked(doc)] == [["-m", "pip", "show", "torch", "xformers"]]
    # Another program's DLL missing another library's name is not torch's matter.
    other = _check(
        tmp_path,
        "The procedure entry point ?foo@bar@@QEAAXXZ could not be located in the dynamic link library C:\\app\\x.dll\n",
    )
    assert "extension-symbol-missing" not in {f["code"] for f in other["findings"]}


def test_an_extension_named_in_prose_asks_its_version_and_torchs(tmp_path):
    # No error text, no versions: which torch xformers was built for, against the torch installed, decides it.
    doc = _check(tmp_path, "Importing the model says that xformers has not been installed properly.\n")
    assert ["-m", "pip", "show", "torch", "xformers"] in [a[1:] for a in _asked(doc)]
    # Both versions shown (a pip list): nothing to ask about them.
    shown = _check(tmp_path, "Package Version\n------- -------\ntorch 2.3.1\nxformers 0.0.27\nxformers is slow here.\n")
    assert not [a for a in _asked(shown) if a[1:4] == ["-m", "pip", "show"]]
    # flash_attn_2_cuda (an object's name) and a path component are not prose naming it.
    quiet = _check(tmp_path, "see /opt/flash_attn/README and flash_attn_2_cuda.so\n")
    assert not [a for a in _asked(quiet) if a[1:4] == ["-m", "pip", "show"]]


_PASCAL_ON_CU128 = (
    "/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:283: UserWarning:\n"
    "    Found GPU0 NVIDIA GeForce GTX 1080 Ti which is of cuda capability 6.1.\n"
    "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
    "    (7.0) - (12.0)\n\n"
    "/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:304: UserWarning:\n"
    "    Please install PyTorch with a following CUDA\n"
    "    configurations:  {cudas} following instructions at\n"
    "    https://pytorch.org/get-started/locally/\n\n"
    "NVIDIA GeForce GTX 1080 Ti with CUDA capability sm_61 is not compatible with the current PyTorch installation.\n"
    "The current PyTorch install supports CUDA capabilities sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120.\n"
)


def _index(doc: dict) -> str:
    (pip,) = [a for a in _plan_argvs(doc) if a[1:4] == ["-m", "pip", "install"]]
    return pip[pip.index("--index-url") + 1].rsplit("/", 1)[1]


def test_the_one_cuda_variant_pytorch_names_for_the_gpu_is_the_builds(tmp_path):
    # Pascal below a cu128 build's minimum: PyTorch names cu126, the variant that still carries sm_61 (not cu118).
    doc = _check(tmp_path, _PASCAL_ON_CU128.format(cudas="12.6"))
    assert "framework-arch-unsupported" in {f["code"] for f in doc["findings"]}
    assert _index(doc) == "cu126"


def test_several_cuda_variants_named_decide_nothing(tmp_path):
    # (a source build with a narrow arch list gets every variant listed: pytorch/pytorch#164708)
    doc = _check(tmp_path, _PASCAL_ON_CU128.format(cudas="12.6 12.8 13.0"))
    assert "framework-arch-unsupported" in {f["code"] for f in doc["findings"]}
    assert _index(doc) != "cu126"


_COMPUTE_CAP = ["nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv"]


@pytest.mark.parametrize(
    "case",
    [
        # tensorRT_Pro's own kernels (shouxieai/tensorRT_Pro#162): its error macro prints the .cu line
        "plans18/cases/1862-trtpro162-linux-cmake-simple-yolo-kernels-built-for-another-arch-gpu-sm86-no-kernel-image",
        # a self-built OpenPose's Caffe (CMU-Perceptual-Computing-Lab/openpose#2312): glog prints the .cu line
        "plans18/cases/1841-openpose-2312-windows-powershell-venv-self-built-openposedemo-3d-two-views-no-kernel-image-ask",
    ],
)
def test_no_kernel_image_at_a_programs_own_cu_line_asks_the_gpus_compute_capability(case):
    # The kernel is the program's, compiled for its build's architecture list: the GPU's compute capability decides
    # the rebuild (catalogue.toml: cuda-no-kernel-image-at-source-line).
    from pathlib import Path

    code, out, err = run_cli("check", "--from", str(Path("tests/blind") / case / "input.txt"), "--format", "json")
    assert code in (0, 1), err
    assert _COMPUTE_CAP in _asked(json.loads(out))


def test_a_frameworks_own_no_kernel_image_names_no_cu_line_and_is_not_asked_so(tmp_path):
    doc = _check(tmp_path, "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert _COMPUTE_CAP not in _asked(doc)
