"""The pasted-evidence checks (gpudoctor.checks.reported) at their documented boundaries, from a pasted message alone:
cudnn-too-old from the framework's own cuDNN message ("needs to have matching major version and equal or higher minor
version": every component of the version), toolkit-newer-than-driver from nvcc beside the driver's CUDA version
("toolkits whose major.minor is newer than the driver's CUDA are judged")."""

from __future__ import annotations

import pytest

from tests.spec.machine import pasted_findings
from tests.spec.registry import FIRES, QUIET, states

TF = (
    "E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Loaded runtime CuDNN library: {loaded} but source was compiled "
    "with: {compiled}.  CuDNN library needs to have matching major version and equal or higher minor version."
)


@pytest.mark.parametrize(
    ("loaded", "compiled", "fires"),
    [
        ("8.0.5", "8.1.0", True),  # minor below
        ("8.0.9", "8.1.0", True),
        ("8.1.0", "8.1.1", True),  # patch below
        ("8.1.0", "8.1.0", False),  # equal
        ("8.1.1", "8.1.0", False),  # patch above
        ("8.6.0", "8.1.0", False),  # a newer minor of the same major is fine
        ("9.1.0", "8.9.0", True),  # another major, even a newer one
        ("7.6.5", "8.0.0", True),
    ],
)
@states("cudnn-too-old", FIRES, QUIET)
def test_a_pasted_cudnn_message_is_judged_at_every_component(loaded, compiled, fires):
    """cudnn-too-old.md: TensorFlow's "CuDNN library needs to have matching major version and equal or higher minor
    version"; the rule: "the first three version parts are lower than the minimum's"."""
    found = pasted_findings(TF.format(loaded=loaded, compiled=compiled))
    assert ("cudnn-too-old" in found) is fires
    if fires:
        assert found["cudnn-too-old"].title == f"cuDNN {loaded} is older than TensorFlow requires ({compiled})"


@states("cudnn-too-old", FIRES)
def test_pytorchs_cudnn_message_names_both_versions():
    """cudnn-too-old.md: PyTorch's "cuDNN version incompatibility: PyTorch was compiled against (8, 9, 2) but found
    runtime version (8, 5, 0)"."""
    text = (
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 9, 2) but found runtime version (8, 5, 0)."
    )
    assert pasted_findings(text)["cudnn-too-old"].title == "cuDNN 8.5.0 is older than PyTorch requires (8.9.2)"


TF1 = (
    "E tensorflow/stream_executor/cuda/cuda_dnn.cc:378] Loaded runtime CuDNN library: {loaded} (compatibility version "
    "{lc}) but source was compiled with {compiled} (compatibility version {cc}).  If using a binary install, upgrade "
    "your CuDNN library to match."
)


def _argvs(rem) -> list[tuple[str, ...]]:
    return [tuple(str(a) for a in c.argv) for c in rem.commands if hasattr(c, "argv")]


@states("cudnn-too-old", FIRES)
def test_tf1_refusing_a_newer_cudnn_major_moves_to_the_release_built_for_it():
    """cudnn-too-old.md: TensorFlow before 1.11 takes only the compiled major.minor; a newer major loaded (cuDNN 6 over
    a 5.1 build, CUDA 8 both) is fixed in the environment by the first release built for it (tensorflow-gpu 1.3.0),
    never called older (plans20/2072, charlesq34/pointnet#82)."""
    found = pasted_findings(TF1.format(loaded="6021", lc="6000", compiled="5105", cc="5100"))["cudnn-too-old"]
    assert "older" not in found.title
    assert ("python3", "-m", "pip", "install", "tensorflow-gpu==1.3.0") in _argvs(found.remediation)
    assert found.remediation.alternative is not None


@states("cudnn-too-old", FIRES)
def test_tf1_refusing_a_newer_cudnn_major_of_another_cuda_installs_no_release():
    """cuDNN 7 over a cuDNN 6 build: every release built for cuDNN 7 needs CUDA 9 where the installed one runs on CUDA
    8, so no pip move is offered (tsinghua-rll/VoxelNet-tensorflow#19)."""
    found = pasted_findings(TF1.format(loaded="7003", lc="7000", compiled="6021", cc="6000"))["cudnn-too-old"]
    assert "older" not in found.title
    assert not [a for a in _argvs(found.remediation) if "install" in a]


NVCC = (
    "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release {mm}, V{v}\nBuild cuda_{mm}.r{mm}/compiler.0\n\n"
    "RuntimeError: The NVIDIA driver on your system is too old (found version 12020). Please update your GPU driver\n"
)


@pytest.mark.parametrize(
    ("nvcc", "fires"),
    [("12.3.52", True), ("12.4.131", True), ("13.0.48", True), ("12.2.140", False), ("12.2.91", False), ("11.8.89", False)],
)
@states("toolkit-newer-than-driver", FIRES, QUIET)
def test_pasted_nvcc_against_the_drivers_cuda_by_major_minor(nvcc, fires):
    """toolkit-newer-than-driver.md: "toolkits whose major.minor is newer than the driver's CUDA are judged" - nvcc
    12.2.140 on a driver reporting CUDA 12.2 (found version 12020) is not newer; 12.3 is."""
    found = pasted_findings(NVCC.format(mm=nvcc.rsplit(".", 1)[0], v=nvcc))
    assert ("toolkit-newer-than-driver" in found) is fires


# --- windows-paging-file-too-small --------------------------------------------------------------------------------

_LOADING_1455 = (
    '  File "C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\__init__.py", line 128, in <module>\n    raise err\n'
    "OSError: [WinError 1455] {text} Error loading "
    '"C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\lib\\{dll}" or one of its dependencies.\n'
)


def _paging(text: str) -> list:
    found = pasted_findings(text).get("windows-paging-file-too-small")
    return [found] if found else []


@pytest.mark.parametrize(
    "text",
    [
        _LOADING_1455.format(text="The paging file is too small for this operation to complete.", dll="shm.dll"),
        _LOADING_1455.format(text="页面文件太小，无法完成操作。", dll="cudnn_adv_infer64_8.dll"),
    ],
)
@states("windows-paging-file-too-small", FIRES)
def test_windows_error_1455_on_a_torch_dll_fires_with_the_paging_file_reads(text):
    """windows-paging-file-too-small.md: "Windows' error 1455 ([WinError 1455]) on a native Windows report"."""
    [f] = _paging(text)
    assert [c.argv[:3] for c in f.remediation.commands] == [("powershell", "-NoProfile", "-Command")] * 2
    assert f.remediation.where == "Windows"


@pytest.mark.parametrize(
    "text",
    [
        # the same words in a Linux report (a quoted line from elsewhere) are not this machine's Windows
        "Ubuntu 22.04\nsomeone on Windows saw [WinError 1455] once; here python3 train.py runs fine\n",
        # a DLL that is missing (126) is not the commit limit
        _LOADING_1455.replace("1455", "126").format(text="The specified module could not be found.", dll="shm.dll"),
    ],
)
@states("windows-paging-file-too-small", QUIET)
def test_not_said_off_windows_or_for_another_loader_error(text):
    """windows-paging-file-too-small.md: "Not said on Linux or WSL, and the message is never read as a DLL missing"."""
    assert not _paging(text)
