"""Decided library steps where the text names the majors (issue 27's kind 9, "no command where one is possible"):
onnxruntime-gpu's CUDA provider on Windows gets NVIDIA's wheels of its build's CUDA and cuDNN majors and their bin
folders on PATH (gpudoctor.checks.dll_wheels; microsoft/onnxruntime#21215, plans7/616; hacksider/Deep-Live-Cam#948,
plans17/1749); a JAX built with a newer cuDNN than loads gets the cuDNN wheel of its CUDA major first on
LD_LIBRARY_PATH (gpudoctor.checks.cudnn_wheel; google/jax#16038, plans7/601; MIT-REALM/gcbfplus#1, tests/pasted). A
C# program's NuGet onnxruntime, and a conda JAX, keep their own routes."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, Output, PrependPath, render
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

TESTS = Path(__file__).resolve().parent.parent


def _finding(pattern: str, code: str):
    (path,) = TESTS.glob(pattern)
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), path.parent.name)))
    return next((f for f in report.findings if f.code == code), None)


def _installs(finding) -> list[tuple[str, ...]]:
    return [c.argv[4:] for c in finding.remediation.commands if isinstance(c, Cmd) and c.argv[1:4] == ("-m", "pip", "install")]


def _settings(finding) -> list[PrependPath]:
    return [c for c in finding.remediation.commands if isinstance(c, PrependPath)]


def test_a_windows_cuda11_provider_gets_the_cuda11_and_cudnn8_wheels_on_path():
    for case in ("blind/plans7/cases/616-*/input.txt", "blind/plans17/cases/1749-*/input.txt"):
        f = _finding(case, "framework-cuda-libs-missing")
        assert _installs(f) == [
            (
                "nvidia-cuda-runtime-cu11",
                "nvidia-cublas-cu11",
                "nvidia-cufft-cu11",
                "nvidia-curand-cu11",
                "nvidia-cudnn-cu11==8.*",
            )
        ]
        (setting,) = _settings(f)
        assert setting.names == ("PATH",)
        (out,) = [p for p in setting.parts if isinstance(p, Output)]
        assert out.argv[0] == "python" and out.argv[3:] == ("bin",)
        # cmd.exe's `for /f ('...')` cannot hold a single quote, PowerShell 5.1 drops a double one: the program has
        # neither, so the PATH line is printed for both shells (before, cmd got "not shown: use PowerShell")
        assert not set("'\"") & set(out.argv[2])
        for target in ("cmd", "powershell"):
            assert render(setting, target)
        # the read that shows which DLLs PATH holds comes first
        assert f.remediation.commands[0].argv[0] == "where.exe"


def test_a_nuget_provider_keeps_the_toolkit_route():
    # microsoft/onnxruntime#20589 (plans6/518): a C# program's NuGet package, which pip's wheels never reach
    f = _finding("blind/plans6/cases/518-*/input.txt", "framework-cuda-libs-missing")
    assert f is None or not _installs(f)


def test_a_jax_build_newer_than_its_cudnn_gets_its_majors_wheel_first_on_the_path():
    # the jaxlib's tag names CUDA 11 (601); JAX's cuDNN 8.9 builds are CUDA 12 ones (gcbfplus-1)
    cases = {
        "blind/plans7/cases/601-*/input.txt": ("nvidia-cudnn-cu11==8.9.6.50",),
        "pasted/cases/gcbfplus-1-*/report.txt": ("nvidia-cudnn-cu12==8.9.7.29",),
    }
    for case, wheel in cases.items():
        f = _finding(case, "cudnn-too-old")
        assert _installs(f) == [wheel]
        (setting,) = _settings(f)
        assert setting.names == ("LD_LIBRARY_PATH",)
        (out,) = [p for p in setting.parts if isinstance(p, Output)]
        assert out.site_dir == "nvidia/cudnn/lib"


def test_a_conda_jax_is_not_given_a_pip_wheel():
    # conda-forge/jaxlib-feedstock#149: conda's jaxlib, whose cudnn package is conda's to move
    f = _finding("pasted/cases/jax-feedstock-149-*/report.txt", "cudnn-too-old")
    assert f is not None and not _installs(f)
