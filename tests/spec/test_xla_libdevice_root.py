"""docs/findings/toolkit-missing-for-build.md, its XLA half, on whole real reports: XLA's "Can't find libdevice
directory ${CUDA_DIR}/nvvm/libdevice" on Windows, with the installed toolkit's folder named in the text
(gpudoctor.checks.catalogued.framework_builds.check_xla_libdevice_root)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import SetEnv
from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests/pasted/catalogue_examples"
CODE = "toolkit-missing-for-build"
V117 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.7"
FLAG = '--xla_gpu_cuda_data_dir="C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.7"'


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _setenv(f) -> list[tuple[str, str | None]]:
    return [(c.name, c.value) for c in f.remediation.commands if isinstance(c, SetEnv)]


@states(CODE, FIRES)
def test_cuda_dir_set_by_hand_gets_xla_flags_at_cuda_path_with_forward_slashes():
    """https://github.com/tensorflow/models/issues/10739: the Object Detection API's training on Windows, CUDA_PATH and
    a hand-made CUDA_DIR at CUDA 11.7's folder (written with forward slashes), libdevice still not found: XLA reads
    neither, XLA_FLAGS names the folder."""
    f = pasted_findings(_text(EXAMPLES / "tensorflow-models-10739-windows-libdevice-cuda-dir-set.txt"))[CODE]
    assert "11.7" in f.title and "libdevice" in f.title
    assert argv_of(f) == [("dir", V117 + "\\nvvm\\libdevice")]
    assert _setenv(f) == [("XLA_FLAGS", FLAG)]
    assert not f.remediation.requires_root


@states(CODE, FIRES)
def test_toolkit_folder_named_in_prose_is_the_one_xla_is_pointed_at():
    """tests/blind/plans10 case 1024 (its thread is named only there): TensorFlow 2.9.1 on Windows 10, the toolkit's
    folder named with backslashes in a sentence (added to PATH, a CUDA_DIR made): the same two steps."""
    path = (
        ROOT
        / "tests/blind/plans10/cases/1024-tf57055-windows10-py3104-tf291-cuda117-xla-jit-cant-find-libdevice-cuda-dir-ignored/input.txt"
    )
    f = pasted_findings(_text(path))[CODE]
    assert argv_of(f) == [("dir", V117 + "\\nvvm\\libdevice")]
    assert _setenv(f) == [("XLA_FLAGS", FLAG)]
    assert "pasted-error-unexplained" not in pasted_findings(_text(path))


@states(CODE, FIRES)
def test_libdevice_missing_on_linux_without_a_toolkit_shown_gets_the_nvcc_wheel_of_the_builds_cuda():
    """tensorflow/tensorflow#60790 (tests/pasted/catalogue_examples): Linux, the directories XLA searched listed (its
    build's CUDA among them), no toolkit shown: NVIDIA's nvcc wheel of that CUDA brings nvvm/libdevice and ptxas
    (h192, tests/pasted/test_xla_libdevice_wheel.py); no XLA_FLAGS value is made up as a command (the wheel's folder
    is printed, then named in the fix's text)."""
    found = pasted_findings(_text(EXAMPLES / "tensorflow-60790-libdevice-not-found.txt"))
    f = found[CODE]
    assert argv_of(f)[0] == ("python3", "-m", "pip", "install", "nvidia-cuda-nvcc-cu11==11.8.89")
    assert not [name for name, _ in _setenv(f) if name == "XLA_FLAGS"]


@states(CODE, QUIET)
def test_a_toolkit_folder_without_xlas_message_is_no_xla_finding():
    """tests/blind/plans9 case 909 (its thread is named only there): Windows, CUDA_PATH at CUDA 11.8's folder, a DLL
    that fails to load: no XLA compilation failed, so nothing about XLA_FLAGS."""
    path = (
        ROOT
        / "tests/blind/plans9/cases/909-paddle69102-windows-paddle-cu118-cublas64-11-error-126-works-from-system32-ask/input.txt"
    )
    found = pasted_findings(_text(path))
    assert all(not any(n == "XLA_FLAGS" for n, _ in _setenv(f)) for f in found.values() if f.remediation)
