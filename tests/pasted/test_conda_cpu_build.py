"""Issue 27/28 (conda's solver picks PyTorch's CPU build): a pytorch package whose conda build string says cpu (in
conda's transaction, `subdir::name-version-build`, or a `conda list` row), or the cpuonly metapackage, is fixed in
conda, in the same environment: cpuonly out, then the CUDA build asked for by its build string beside the CUDA package
the reporter's command named (pytorch/pytorch#67108's shape, written here for other releases and platforms)."""

from __future__ import annotations

import json

from tests.hostile.test_corpus import run_cli

VERIFY = "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"


def _check(tmp_path, text: str) -> dict:
    paste = tmp_path / "issue.txt"
    paste.write_text(text, encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    doc = json.loads(out)
    assert code == doc["exit_code"], err
    return doc


def _cpu_build(doc: dict) -> list[list[str]]:
    (f,) = [f for f in doc["findings"] if f["code"] == "framework-cpu-build"]
    return [c["argv"] for c in f["remediation"]["argv"]]


def test_a_linux_transaction_with_pytorch_cuda_asked(tmp_path):
    doc = _check(
        tmp_path,
        "$ conda install pytorch==2.0.1 torchvision pytorch-cuda=11.8 -c pytorch -c nvidia\n"
        "The following NEW packages will be INSTALLED:\n"
        "  pytorch            pytorch/linux-64::pytorch-2.0.1-py3.10_cpu_0\n"
        "  torchvision        pytorch/linux-64::torchvision-0.15.2-py310_cpu\n",
    )
    argvs = _cpu_build(doc)
    assert argvs[:2] == [["conda", "list", "cpuonly"], ["conda", "remove", "cpuonly"]]
    assert argvs[2] == [
        "conda", "install", "pytorch=2.0.1=*cuda*", "torchvision", "torchaudio", "pytorch-cuda=11.8",
        "-c", "pytorch", "-c", "nvidia",
    ]  # fmt: skip
    assert argvs[3][1:] == ["-c", VERIFY]


def test_a_conda_list_with_cpuonly_and_no_cuda_asked_asks_nvidia_smi(tmp_path):
    doc = _check(
        tmp_path,
        "I installed pytorch with conda in my env but cuda is not available\n"
        "(base) C:\\Users\\me> conda list\n"
        "# Name                    Version                   Build  Channel\n"
        "cpuonly                   2.0                           0    pytorch\n"
        "python                    3.9.16               h6244533_2\n"
        "pytorch                   1.13.1              py3.9_cpu_0    pytorch\n",
    )
    argvs = _cpu_build(doc)
    assert argvs[0] == ["conda", "list", "cpuonly"] and argvs[2] == ["nvidia-smi"]


def test_a_pip_cpu_wheel_keeps_the_pip_answer(tmp_path):
    # The quiet twin of the conda branch: a +cpu wheel from pip is not conda's to fix.
    doc = _check(
        tmp_path, "python -c 'import torch; print(torch.__version__)'\n2.1.0+cpu\nSuccessfully installed torch-2.1.0+cpu\n"
    )
    assert all(argv[0] != "conda" for argv in _cpu_build(doc))


def test_a_transaction_with_the_cuda_build_is_quiet(tmp_path):
    doc = _check(
        tmp_path,
        "conda install pytorch torchvision cudatoolkit=11.3 -c pytorch\n"
        "  pytorch            pytorch/win-64::pytorch-1.10.0-py3.8_cuda11.3_cudnn8_0\n"
        "  torchvision        pytorch/win-64::torchvision-0.11.1-py38_cu113\n",
    )
    assert not [f for f in doc["findings"] if f["code"] == "framework-cpu-build"]
