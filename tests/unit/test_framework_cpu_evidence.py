"""framework-cpu-build with no driver seen: the CUDA build the environment itself names, not a refusal (issue 27, kind 9).

Real pasted reports: a companion's message that it was built for a +cuNNN torch, conda's cudatoolkit beside a CPU
torch; and where nothing names a build, the fix says which command decides it.
"""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.read import Source

ROOT = Path(__file__).resolve().parents[1]
INDEX = "https://download.pytorch.org/whl"


def _cpu_build(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("issue.txt", text)]), "pasted text")))
    (finding,) = [f for f in report.findings if f.code == "framework-cpu-build"]
    return finding.remediation


def _argv(remediation) -> list[list[str]]:
    # The interpreter (argv[0]) is the environment rule's, not this one's.
    return [list(c.argv[1:]) for c in remediation.commands]


def test_xformers_built_for_a_cu121_torch_names_the_build():
    # facebookresearch/xformers#982: "xFormers was built for: PyTorch 2.2.0+cu121 ... (you have 2.2.0+cpu)".
    text = (ROOT / "pasted/catalogue_examples/xformers-982-built-for-220-cu121-have-cpu.txt").read_text()
    fix = _cpu_build(text)
    # torchvision and torchaudio move with it, at their releases for that torch (the package list was not shown).
    assert _argv(fix) == [
        ["-m", "pip", "install", "torch==2.2.0+cu121", "torchvision==0.17.0+cu121", "torchaudio==2.2.0+cu121"]
        + ["--index-url", f"{INDEX}/cu121"]
    ]
    assert "xformers says it was built for PyTorch 2.2.0+cu121" in fix.summary


def test_mistral_59_xformers_cu121_beside_torch_210_cpu():
    # mistralai/mistral-inference#59 (tests/blind/plans case 043, read only): the same release, its cu121 build.
    text = next((ROOT / "blind/plans/cases").glob("043-*/input.txt")).read_text()
    assert _argv(_cpu_build(text)) == [
        ["-m", "pip", "install", "torch==2.1.0+cu121", "torchvision==0.16.0+cu121", "torchaudio==2.1.0+cu121"]
        + ["--index-url", f"{INDEX}/cu121"]
    ]


def test_conda_cudatoolkit_beside_a_cpu_torch_names_cu113():
    # pytorch/pytorch#51858 (tests/pasted): conda's cudatoolkit 11.3.1 beside a CPU torch 1.12.1; the lines that
    # showed the GPU and the driver are left out, so that only the environment names the build.
    report = ROOT / "pasted/cases/pytorch-51858-windows-torch1121-conda-cpu-rtx3060/report.txt"
    kept = [ln for ln in report.read_text().splitlines(True) if not ln.startswith(("GPU models", "Nvidia driver"))]
    fix = _cpu_build("".join(kept))
    assert _argv(fix) == [
        ["-m", "pip", "install", "torch==1.12.1+cu113", "torchvision==0.13.1", "torchaudio==0.12.1+cu113"]
        + ["--index-url", f"{INDEX}/cu113"]
    ]
    assert "cudatoolkit 11.3.1" in fix.summary


def test_nothing_names_a_build_so_the_assumed_install_comes_after_nvidia_smi():
    # Comfy-Org/ComfyUI#2427 (tests/blind/plans case 014): only "Torch not compiled with CUDA enabled". Policy of h308
    # (issue 27, kind 9): the newest release whose companions the matrix pins, in its build that asks least of the
    # driver, after nvidia-smi and pip show torch (checks.frameworks._assumed_release_build); it deferred before.
    text = next((ROOT / "blind/plans/cases").glob("014-*/input.txt")).read_text()
    fix = _cpu_build(text)
    argvs = [tuple(str(a) for a in c.argv) for c in fix.commands]
    assert argvs[0] == ("nvidia-smi",) and argvs[1][-2:] == ("show", "torch")
    assert argvs[2][1:3] == ("-m", "pip") and any(a.startswith("torch==") and "+cu" in a for a in argvs[2])
