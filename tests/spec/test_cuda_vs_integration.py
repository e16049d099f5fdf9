"""docs/findings/toolkit-missing-for-build.md, its Visual Studio half, on whole real reports: CMake's "No CUDA toolset
found." after it found the toolkit (gpudoctor.checks.catalogued.builds.check_cuda_vs_integration)."""

from __future__ import annotations

from pathlib import Path

from tests.spec.machine import argv_of, pasted_findings, pasted_report
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests/pasted/catalogue_examples"
CODE = "toolkit-missing-for-build"
EXTENSIONS = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{v}\\extras\\visual_studio_integration\\MSBuildExtensions"


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@states(CODE, FIRES)
def test_build_tools_2022_instance_shown_gets_the_copy_into_its_v170_folder():
    """https://github.com/abetlen/llama-cpp-python/issues/1917: CUDA 12.5 found, then the Visual Studio 2022 Build
    Tools' CMake stopped with 'No CUDA toolset found.': the integration of 12.5 goes into that instance's v170
    BuildCustomizations, as Administrator."""
    f = pasted_findings(_text(EXAMPLES / "llama-cpp-python-1917-vs2022-buildtools-no-cuda-toolset.txt"))[CODE]
    assert "CUDA 12.5" in f.title
    assert argv_of(f) == [
        ("dir", EXTENSIONS.format(v="12.5")),
        (
            "xcopy",
            "/Y",
            EXTENSIONS.format(v="12.5") + "\\*",
            "C:\\Program Files (x86)\\Microsoft Visual Studio\\2022\\BuildTools\\MSBuild\\Microsoft\\VC\\v170\\BuildCustomizations",
        ),
    ]
    assert f.remediation.requires_root


@states(CODE, FIRES)
def test_no_instance_shown_leaves_the_folder_to_fill_in_and_reads_windows_from_cmake_paths():
    """tests/blind/plans9 case 933 (its thread is named only there): CUDA 11.8 found, CMake
    from C:/Program Files/CMake, PowerShell's $env: (no backslash path at all): Windows, and the destination a
    placeholder."""
    path = (
        ROOT
        / "tests/blind/plans9/cases/933-llamacpppython744-windows-cuda118-no-cuda-toolset-msbuild-integration-missing/input.txt"
    )
    report = pasted_report(_text(path))
    assert report.facts.platform.system == "Windows"
    f = pasted_findings(_text(path))[CODE]
    argv = argv_of(f)
    assert argv[0] == ("dir", EXTENSIONS.format(v="11.8"))
    assert argv[1][:3] == ("xcopy", "/Y", EXTENSIONS.format(v="11.8") + "\\*")
    assert str(argv[1][3]) == "<buildcustomizations-folder>"


@states(CODE, QUIET)
def test_another_cuda_build_failure_is_not_the_toolset():
    """CMU-Perceptual-Computing-Lab/openpose#2053 (tests/pasted/catalogue_examples): CUDA 11.0's nvcc asked for
    compute_86, a build failure of another cause."""
    found = pasted_findings(_text(EXAMPLES / "openpose-2053-nvcc-cuda110-compute86.txt"))
    assert CODE not in found or "toolset" not in found[CODE].title
