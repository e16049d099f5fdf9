"""docs/findings/cuda13-dll-folder.md on whole real reports: a program on Windows that did not find the CUDA 13
toolkit's DLLs (moved to bin\\x64) is told where they are and to point CUDA_HOME and CUDA_PATH at a CUDA 12.x
toolkit, or to upgrade its package; a CUDA 12 toolkit's missing DLL and a DLL that is not the toolkit's are not
(gpudoctor.checks.catalogued.windows_wsl.check_cuda13_dll_folder)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Placeholder
from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
CODE = "cuda13-dll-folder"
V13 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v13.0"
# plans11/1114: numba-cuda's cuda.cudadrv.libs.test() on WinPython with CUDA_HOME at the v13.0 toolkit
NUMBA = ROOT / (
    "tests/blind/plans11/cases/1114-numba10169-windows-winpython-cuda130-toolkit-numba-cuda-cannot-open-nvvm-nvrtc-dll/input.txt"
)
# shader-slang/slangpy#614: slang-rhi's NVRTC search with CUDA_PATH at the v13.0 toolkit
SLANG = ROOT / "tests/pasted/catalogue_examples/slangpy-614-cuda130-cannot-find-nvrtc.txt"


def _expected(f) -> None:
    assert argv_of(f) == [
        ("where.exe", "/R", V13, "nvvm*.dll", "nvrtc*.dll"),
        ("setx", "CUDA_HOME", Placeholder("cuda12-toolkit-folder")),
        ("setx", "CUDA_PATH", Placeholder("cuda12-toolkit-folder")),
    ]
    assert f.remediation.component == "toolkit" and not f.remediation.requires_root


@states(CODE, FIRES)
def test_numba_cudas_bare_nvvm_and_nvrtc_beside_a_cuda13_home():
    findings = pasted_findings(NUMBA.read_text(encoding="utf-8"))
    _expected(findings[CODE])
    assert "pasted-error-unexplained" not in findings


@states(CODE, FIRES)
def test_slang_rhis_nvrtc_search_beside_a_cuda13_path():
    _expected(pasted_findings(SLANG.read_text(encoding="utf-8"))[CODE])


@states(CODE, QUIET)
def test_the_same_failures_beside_a_cuda12_toolkit_or_for_another_dll_are_not_the_layout():
    cuda12 = NUMBA.read_text(encoding="utf-8").replace("CUDA\\v13.0", "CUDA\\v12.9")
    assert CODE not in pasted_findings(cuda12)
    other = (
        f"CUDA_PATH = {V13}\n"
        "FileNotFoundError: Could not find module 'C:\\app\\libbitsandbytes_cuda130.dll' (or one of its dependencies). "
        "Try using the full path with constructor syntax.\n"
    )
    assert CODE not in pasted_findings(other)
