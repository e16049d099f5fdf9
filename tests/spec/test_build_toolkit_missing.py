"""toolkit-missing-for-build (docs/findings/toolkit-missing-for-build.md): a CUDA extension's build that found no
toolkit, from pasted text. The toolkit of torch's CUDA where the text shows it (conda's into the environment that
ran, else NVIDIA's package for the distribution), CUDA_HOME pointed at it; nothing where a toolkit is shown."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import PrependPath, SetEnv
from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

_TORCH_EXT = (
    '  File "/home/u/venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 1048, in _join_cuda_home\n'
    "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n"
)
_DEEPSPEED = (
    '  File "{site}/deepspeed/ops/op_builder/builder.py", line 51, in installed_cuda_version\n'
    "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)\n"
)


@states("toolkit-missing-for-build", FIRES)
@pytest.mark.parametrize("error", [_TORCH_EXT, _DEEPSPEED.format(site="/home/u/venv/lib/python3.10/site-packages")])
def test_no_toolkit_with_torchs_cuda_shown_installs_that_toolkit(error):
    f = pasted_findings("OS: Ubuntu 22.04.3 LTS (x86_64)\ntorch 2.1.2+cu121\n" + error)["toolkit-missing-for-build"]
    assert ("apt-get", "install", "-y", "cuda-toolkit-12-1") in argv_of(f)
    lines = f.remediation.commands
    assert [(c.name, c.value) for c in lines if isinstance(c, SetEnv)] == [("CUDA_HOME", "/usr/local/cuda-12.1")]
    assert [(c.name, c.literal) for c in lines if isinstance(c, PrependPath)] == [("PATH", "/usr/local/cuda-12.1/bin")]
    assert not any("driver" in w for a in argv_of(f) for w in a)


@states("toolkit-missing-for-build", FIRES)
def test_in_a_conda_environment_the_toolkit_goes_into_it():
    site = "/home/u/miniconda3/envs/ds/lib/python3.10/site-packages"
    text = "torch 2.1.2+cu121\n" + _DEEPSPEED.format(site=site)
    f = pasted_findings(text)["toolkit-missing-for-build"]
    argv = argv_of(f)[0]
    assert argv[:4] == ("conda", "install", "-p", "/home/u/miniconda3/envs/ds")
    assert "cuda-version=12.1" in argv
    assert [(c.name, c.value) for c in f.remediation.commands if isinstance(c, SetEnv)] == [
        ("CUDA_HOME", "/home/u/miniconda3/envs/ds")
    ]


@states("toolkit-missing-for-build", FIRES)
def test_without_torchs_cuda_it_fires_with_no_fix_of_its_own():
    f = pasted_findings(_TORCH_EXT)["toolkit-missing-for-build"]
    assert f.remediation is None  # the asks (which nvcc, CUDA_HOME, torch.version.cuda) decide it


@states("toolkit-missing-for-build", QUIET)
def test_a_toolkit_shown_is_not_missing():
    text = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.8, V11.8.89\n" + _TORCH_EXT
    assert "toolkit-missing-for-build" not in pasted_findings(text)


@states("toolkit-missing-for-build", FIRES)
def test_on_windows_the_toolkit_of_torchs_cuda_is_named_by_cuda_home_in_the_builds_terminal():
    # tests/blind/plans12/cases/1215-*: DeepSpeed 0.7.3's setup.py in a Windows venv (cmd), torch 1.12.1+cu113, the
    # traceback cut at the op builder's `assert cuda_home` (catalogue: deepspeed-cuda-home-assert)
    from pathlib import Path

    case = next((Path(__file__).resolve().parents[2] / "tests/blind/plans12/cases").glob("1215-*"))
    f = pasted_findings((case / "input.txt").read_text(encoding="utf-8"))["toolkit-missing-for-build"]
    folder = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.3"
    lines = f.remediation.commands
    assert argv_of(f) == [("where", "nvcc")]
    assert [(c.name, c.value) for c in lines if isinstance(c, SetEnv)] == [("CUDA_HOME", folder)]
    assert [(c.name, c.literal) for c in lines if isinstance(c, PrependPath)] == [("PATH", folder + "\\bin")]
    assert f.remediation.where == "Windows"


@states("toolkit-missing-for-build", QUIET)
def test_the_windows_folder_is_not_given_off_windows():
    # https://github.com/deepspeedai/DeepSpeed/issues/2871 (tests/pasted/catalogue_examples): the same assert from pip
    # in WSL's Linux, torch's CUDA not shown: no Windows folder, no Windows step (the finding asks for torch's CUDA)
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "pasted/catalogue_examples"
    text = (example / "deepspeed-2871-installed-cuda-version-assert-cuda-home.txt").read_text(encoding="utf-8")
    f = pasted_findings(text)["toolkit-missing-for-build"]
    assert f.remediation is None or not any("Program Files" in str(c) for c in f.remediation.commands)
