"""Which frameworks a paste shows at work, from its log paths (gpudoctor.checks.reported.frameworks_named): XLA's own
paths are JAX's, except TensorFlow's copy of XLA inside its tree (tensorflow/compiler/xla), which is TensorFlow's log."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.checks.reported import frameworks_named
from tests.pasted.test_catalogue import _run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests/pasted/catalogue_examples"


def _named(path: Path) -> set[str]:
    _, report, _, _ = _run(path.read_text(encoding="utf-8"))
    return frameworks_named(report.facts)


def test_tensorflows_own_xla_log_lines_are_tensorflows_not_jaxs():
    """tests/blind/plans10 case 1021 (its thread is named only there: pip tensorflow[and-cuda]==2.14.0 in a Docker
    image, its log from tensorflow/compiler/xla/stream_executor) and tensorflow/tensorflow#60790 (catalogue_examples:
    TensorFlow's libdevice lines from tensorflow/compiler/xla/service/gpu): no JAX, so no JAX command is asked."""
    case = ROOT / (
        "tests/blind/plans10/cases/1021-tf62194-docker-gdal-ubuntu-pip-tf2140-and-cuda-no-nvrtc-cudnn-cnn-infer-fails/input.txt"
    )
    assert "jax" not in _named(case)
    assert "jax" not in _named(EXAMPLES / "tensorflow-60790-libdevice-not-found.txt")
    _, _, _, asks = _run(case.read_text(encoding="utf-8"))
    assert not [a for a in asks if "import jax" in a]


def test_jaxlib_built_from_tensorflows_tree_is_still_jax():
    """jax-ml/jax#7239 (catalogue_examples): jaxlib's log paths under external/org_tensorflow/tensorflow/compiler/xla."""
    assert "jax" in _named(EXAMPLES / "jax-7239-couldnt-invoke-ptxas.txt")


# Lua Torch (torch/distro installs into torch/install, cutorch from torch/extra), error 35 from cutorch's THC:
# ankurhanda/gvnn#19 (https://github.com/ankurhanda/gvnn/issues/19), Ubuntu 16.04 with driver nvidia-387.
_LUA_TORCH_35 = (
    "THCudaCheck FAIL file=/home/puren/torch/extra/cutorch/lib/THC/THCGeneral.c line=70 error=35 : CUDA driver version "
    "is insufficient for CUDA runtime version\n"
    "/home/puren/torch/install/share/lua/5.1/trepl/init.lua:389: /home/puren/torch/install/share/lua/5.1/trepl/init.lua:389: "
    "cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version at "
    "/home/puren/torch/extra/cutorch/lib/THC/THCGeneral.c:70\n"
    "stack traceback:\n\t[C]: in function 'error'\n"
    "\t/home/puren/torch/install/share/lua/5.1/trepl/init.lua:389: in function 'require'\n"
)
# PyTorch's own THC (0.4.x, /pytorch/aten/src/THC) under a Python traceback: microsoft/human-pose-estimation.pytorch#23
# (https://github.com/microsoft/human-pose-estimation.pytorch/issues/23).
_PYTORCH_35 = (
    "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=74 error=35 : CUDA driver version is insufficient "
    "for CUDA runtime version\nTraceback (most recent call last):\n"
    '  File "/home/zhouzhou/.local/lib/python3.5/site-packages/torch/nn/modules/module.py", line 258, in cuda\n'
    "    return self._apply(lambda t: t.cuda(device))\n"
    "RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version at "
    "/pytorch/aten/src/THC/THCGeneral.cpp:74\n"
)


def test_lua_torchs_cutorch_is_not_pytorch():
    """Lua Torch's cutorch failing with error 35, in a container (the plans12 case 1224, nvidia-docker with driver
    367.57) and on a host (ankurhanda/gvnn#19): the driver is too old for the CUDA runtime, and no PyTorch command is
    asked (Lua Torch has no collect_env)."""
    case = ROOT / "tests/blind/plans12/cases/1224-nvdocker414-docker-torch7-cuda8-image-host-driver-367-error-35/input.txt"
    for text in (case.read_text(encoding="utf-8"), _LUA_TORCH_35):
        _, report, codes, asks = _run(text)
        assert "torch" not in frameworks_named(report.facts)
        assert "toolkit-newer-than-driver" in codes and "framework-driver-too-old" not in codes
        assert not [a for a in asks if "torch" in a]


def test_pytorchs_own_thc_error_35_stays_pytorch():
    # The quiet twin: the same macro and error from PyTorch's own tree, under a Python traceback into site-packages/torch
    _, report, codes, asks = _run(_PYTORCH_35)
    assert "torch" in frameworks_named(report.facts)
    assert "framework-driver-too-old" in codes
