"""cudnn-headers-missing-for-build (docs/findings/cudnn-headers-missing-for-build.md): an extension compiled against
torch's ATen/cudnn headers that found no cudnn.h, from pasted text. The fix names the cuDNN root in CUDNN_PATH and
CUDNN_HOME (torch.utils.cpp_extension's only way to cuDNN's include directory) and rebuilds without build isolation;
the commands it runs show the root a module set and where the interpreter's build looks. Quiet for another build's
cudnn.h (darknet's Makefile) and where the text shows a cuDNN root already named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

_ROOT = Path(__file__).resolve().parents[2]
_TE_1309 = _ROOT / "tests/pasted/catalogue_examples/transformerengine-1309-cudnn-h-not-found-torch-include.txt"
_TE_918 = _ROOT / "tests/blind/plans9/cases/920-te918-slurm-modules-cuda124-cudnn91-venv-te-build-cudnn-h-not-found/input.txt"


@states("cudnn-headers-missing-for-build", FIRES)
@pytest.mark.parametrize(
    "path",
    [
        _TE_1309,  # https://github.com/NVIDIA/TransformerEngine/issues/1309: a NERSC environment, cuDNN installed
        _TE_918,  # tests/blind/plans9/cases/920: a Slurm cluster's cudnn module (CUDNN_ROOT)
    ],
)
def test_torchs_cudnn_wrapper_without_cudnn_h_points_the_build_at_cudnns_root(path):
    f = pasted_findings(path.read_text(encoding="utf-8"))["cudnn-headers-missing-for-build"]
    argv = argv_of(f)
    assert argv[0] == ("printenv",)
    assert argv[1][-1].endswith("c.CUDA_HOME, c.CUDNN_HOME)")  # where the build looks, from the building interpreter
    assert "CUDNN_PATH" in f.remediation.summary and "--no-build-isolation" in f.remediation.summary
    assert not any(w in ("sudo", "apt-get", "cp") for a in argv for w in a)  # nothing system-wide, no header copied


@states("cudnn-headers-missing-for-build", QUIET)
def test_another_builds_cudnn_h_is_not_torchs():
    # https://github.com/AlexeyAB/darknet/issues/5141: darknet's Makefile build, not an extension of torch's
    text = (
        "g++ -std=c++11 -Iinclude/ -DGPU -I/usr/local/cuda/include/ -DCUDNN -c ./src/image_opencv.cpp -o obj/image_opencv.o\n"
        "In file included from ./src/image.h:3:0,\n"
        "include/darknet.h:46:10: fatal error: cudnn.h: No such file or directory\n"
        " #include <cudnn.h>\n"
        "compilation terminated.\n"
    )
    assert "cudnn-headers-missing-for-build" not in pasted_findings(text)
