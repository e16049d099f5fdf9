"""docs/findings/extension-not-built: NVIDIA Apex missing, or built without its C++/CUDA extensions, read from pasted
text (catalogue.toml: apex-not-built). Real data: the Megatron-LM Colab traceback of blind set 14
(tests/blind/plans14/cases/1419-megatron13-colab-generate-text-sh-megatron-fp16-imports-apex-fused-layer-norm-no-module-named-apex/input.txt),
NeMo's "Apex was not found" of the same set (tests/blind/plans14/cases/1420-...-no-such-option-config-settings), and
blind set 2's tests/blind/plans2/cases/120-apex499-python-only-build-no-fused-layer-norm-cuda/input.txt (fused_layer_norm_cuda missing from an Apex built without --cuda_ext)."""

from __future__ import annotations

from pathlib import Path

from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

_CASES = Path("tests/blind/plans14/cases")
_APEX_BUILT_PYTHON_ONLY = Path("tests/blind/plans2/cases/120-apex499-python-only-build-no-fused-layer-norm-cuda/input.txt")
_MMCV = Path("tests/pasted/head/libraries/mmcv-ext-missing.txt")


def _case(prefix: str) -> str:
    (folder,) = _CASES.glob(prefix + "-*")
    return (folder / "input.txt").read_text(encoding="utf-8")


def _build_line(finding) -> tuple[str, ...]:
    (line,) = [a for a in argv_of(finding) if "install" in a]
    return line


@states("extension-not-built", FIRES)
def test_apex_missing_is_built_from_nvidias_repository_with_its_extensions():
    for text in (_case("1419"), _case("1420")):
        f = pasted_findings(text)["extension-not-built"]
        line = _build_line(f)
        # from the repository, never the index's unrelated "apex"; with the C++ and CUDA extensions, against this torch
        assert line[-1] == "apex @ git+https://github.com/NVIDIA/apex"
        assert "--build-option=--cpp_ext" in line and "--build-option=--cuda_ext" in line
        assert "--no-build-isolation" in line
        # torch's CUDA is not shown: the toolchain is read first; the extensions imported last
        words = argv_of(f)
        assert "torch.version.cuda" in words[0][-1]
        assert "fused_layer_norm_cuda" in words[-1][-1]


@states("extension-not-built", FIRES)
def test_an_apex_built_without_its_cuda_extension_is_built_again_with_it():
    f = pasted_findings(_APEX_BUILT_PYTHON_ONLY.read_text(encoding="utf-8"))["extension-not-built"]
    assert "fused_layer_norm_cuda" in f.title
    assert "--build-option=--cuda_ext" in _build_line(f)


@states("extension-not-built", QUIET)
def test_another_librarys_missing_extension_is_not_apexs():
    # mmcv's own compiled ops missing (a real traceback): not Apex, and no Apex build is printed for it
    findings = pasted_findings(_MMCV.read_text(encoding="utf-8"))
    assert "extension-not-built" not in findings
