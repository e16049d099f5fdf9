"""ggml's "no kernel image" beside its own device line (issue 27, builds without the GPU's arch): the ggml that runs was
compiled without the GPU's architecture, and the fix is a CMake build that names it (CMAKE_CUDA_ARCHITECTURES), with the
options of the configure the text shows kept.

Real reports, whole: tests/blind/plans13/cases/1331-llamacpp-4215-gtx940mx-sm50-cmake-default-archs-52-61-70-no-kernel-image
(a GeForce 940MX, 5.0, llama.cpp configured with -DLLAMA_CUBLAS=ON) and https://github.com/ggml-org/ggml/issues/465
(the same GPU, a ggml built from a downloaded source tree, no configure shown). The quiet twins: the 1331 report with a
configure that asked for sm_50 (the kernel is missing for another reason), ggml's device line beside another failure
(plans10 1049, out of memory on a Jetson), and PyTorch's own "no kernel image" with no ggml device line (plans11 1150)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

_ROOT = Path(__file__).resolve().parents[1]
_EXAMPLES = _ROOT / "pasted" / "catalogue_examples"
_LLAMA = _ROOT / "blind/plans13/cases/1331-llamacpp-4215-gtx940mx-sm50-cmake-default-archs-52-61-70-no-kernel-image/input.txt"
_CODE = "framework-arch-unsupported"


def _codes(text: str) -> dict:
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return {f.code: f for f in report.findings}


def _commands(finding) -> list[tuple]:
    return [c.argv for c in finding.remediation.commands if isinstance(c, Cmd)]


def test_a_llama_cpp_configure_without_the_gpus_arch_is_rebuilt_for_sm50_with_its_options():
    codes = _codes(_LLAMA.read_text("utf-8"))
    f = codes[_CODE]
    assert "940MX" in f.title and "5.0" in f.title and "sm_50" in f.title
    assert f.remediation.component == "toolkit"
    assert _commands(f) == [
        ("nvcc", "--version"),
        ("cmake", "-B", "build-sm50", "-DLLAMA_CUBLAS=ON", "-DCMAKE_CUDA_ARCHITECTURES=50"),
        ("cmake", "--build", "build-sm50", "--config", "Release"),
    ]
    assert "pasted-error-unexplained" not in codes
    # nothing about the driver or the toolkit's install: the build is at fault
    assert not any(c in codes for c in ("driver-too-old", "toolkit-missing-for-build"))


def test_a_ggml_built_from_source_with_no_configure_shown_reconfigures_its_own_build_folder():
    codes = _codes((_EXAMPLES / "ggml-465-940mx-no-kernel-image.txt").read_text("utf-8"))
    cmds = _commands(codes[_CODE])
    assert cmds[1][:2] == ("cmake", "-B") and isinstance(cmds[1][2], Placeholder)
    assert cmds[1][3:] == ("-DCMAKE_CUDA_ARCHITECTURES=50",)
    assert cmds[2][:2] == ("cmake", "--build") and cmds[2][3:] == ("--config", "Release")


def test_a_configure_that_asked_for_the_gpus_arch_is_quiet():
    text = _LLAMA.read_text("utf-8").replace(
        "cmake .. -DLLAMA_CUBLAS=ON;", 'cmake .. -DLLAMA_CUBLAS=ON -DCMAKE_CUDA_ARCHITECTURES="50;61";'
    )
    assert "CMAKE_CUDA_ARCHITECTURES" in text
    assert _CODE not in _codes(text)


def test_a_configure_whose_list_lacks_the_arch_replaces_it():
    text = _LLAMA.read_text("utf-8").replace(
        "cmake .. -DLLAMA_CUBLAS=ON;", "cmake .. -DLLAMA_CUBLAS=ON -DCMAKE_CUDA_ARCHITECTURES=61;"
    )
    f = _codes(text)[_CODE]
    assert _commands(f)[1] == ("cmake", "-B", "build-sm50", "-DLLAMA_CUBLAS=ON", "-DCMAKE_CUDA_ARCHITECTURES=50")
    assert "(61)" in f.detail


def test_ggmls_device_line_beside_another_failure_is_quiet():
    case = _ROOT / "blind/plans10/cases/1049-llamacpp4680-jetson-agx-orin-b1710-cuda-vmm-pool-out-of-memory/input.txt"
    codes = _codes(case.read_text("utf-8"))
    assert not any("ggml build" in f.title for f in codes.values())


def test_pytorchs_no_kernel_image_without_ggmls_device_line_is_not_this_rule():
    case = (
        _ROOT / "blind/plans11/cases/1150-a1111-12678-windows-gt710-kepler-cc35-below-pytorch-minimum-no-kernel-image/input.txt"
    )
    codes = _codes(case.read_text("utf-8"))
    assert not any("ggml build" in f.title for f in codes.values())
