"""docs/findings/extension-not-built: mmcv's "No module named 'mmcv._ext'" (catalogue.toml: mmcv-ext-missing), an mmcv
built without its CUDA ops, decided with its assumption named where the text shows the series (issue 27, kind 9):
every mmcv distribution out, then the full build alone through OpenMMLab's installer mim."""

from __future__ import annotations

from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

_EXT = "ModuleNotFoundError: No module named 'mmcv._ext'\n"
_RANGE = "AssertionError: MMCV==1.3.1 is used but incompatible. Please install mmcv>=1.2.4, <=1.3.\n"


def _steps(f) -> list[tuple[str, ...]]:
    return [a[1:] for a in argv_of(f)]


@states("extension-not-built", FIRES)
def test_an_old_torch_shown_takes_the_1x_series_full_build():
    """plans20/2020 (torch 1.5.0: mmcv 2.x needs torch 1.8 or newer): mmcv-full, the 1.x build with the ops."""
    f = pasted_findings("torch 1.5.0\n" + _EXT)["extension-not-built"]
    assert _steps(f) == [
        ("-m", "pip", "uninstall", "-y", "mmcv", "mmcv-full", "mmcv-lite"),
        ("-m", "pip", "install", "-U", "openmim"),
        ("-m", "mim", "install", "mmcv-full"),
        ("-c", "import mmcv, mmcv.ops; print(mmcv.__version__)"),
    ]
    assert f.remediation.commands[2].note.startswith("assumes the 1.x series")


@states("extension-not-built", FIRES)
def test_the_range_an_open_mmlab_package_asserts_is_the_release_installed():
    """plans13/1305 (mmdet's "Please install mmcv>=1.2.4, <=1.3." above the missing ops): the full build in that range."""
    f = pasted_findings(_RANGE + _EXT)["extension-not-built"]
    assert ("-m", "mim", "install", "mmcv-full>=1.2.4,<=1.3") in _steps(f)


@states("extension-not-built", QUIET)
def test_neither_the_series_nor_torch_shown_is_left_to_the_asks():
    """The OpenMMLab package chooses the series (mmdet 2.x mmcv-full, 3.x mmcv 2.x): nothing shown decides it."""
    assert "extension-not-built" not in pasted_findings(_EXT)
