"""docs/findings/torch-allocator-unsupported.md on whole real reports: CUDA's error 801 in ComfyUI, which runs PyTorch
with the cudaMallocAsync allocator by default (gpudoctor.checks.catalogued.framework_builds.check_allocator_backend)."""

from __future__ import annotations

from pathlib import Path

from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests/blind/plans9/cases"
EXAMPLES = ROOT / "tests/pasted/catalogue_examples"
CODE = "torch-allocator-unsupported"


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@states(CODE, FIRES)
def test_start_up_line_with_cuda_malloc_async_and_801_fires_with_the_portable_python():
    """tests/blind/plans9 case 932 (its thread is named only there): 'Device: cuda:0 Tesla M40 24GB : cudaMallocAsync', then 801 in
    KSampler, in the Windows portable build (its frames under ComfyUI_windows_portable\\ComfyUI): the fix starts its
    own python_embeded with --disable-cuda-malloc."""
    text = _text(CASES / "932-comfyui2935-windows-portable-tesla-m40-cudamallocasync-operation-not-supported/input.txt")
    f = pasted_findings(text)[CODE]
    assert "Tesla M40 24GB" in f.title
    root = "D:\\stable-diffusion\\ComfyUI_windows_portable"
    assert argv_of(f) == [
        (
            root + "\\python_embeded\\python.exe",
            "-s",
            root + "\\ComfyUI\\main.py",
            "--windows-standalone-build",
            "--disable-cuda-malloc",
        )
    ]


@states(CODE, FIRES)
def test_traceback_through_comfyui_with_801_fires_in_the_python_that_ran_it():
    """tests/blind/plans9 case 939 (its thread is named only there): a source checkout at C:\\ComfyUI started with `python main.py`
    fails in its first torch.cuda.mem_get_info with 801 (no start-up line shown): the same python, main.py by the
    traceback's path, with the flag."""
    text = _text(CASES / "939-comfyui1845-windows-store-python311-cudamallocasync-operation-not-supported-startup/input.txt")
    f = pasted_findings(text)[CODE]
    (argv,) = argv_of(f)
    assert argv[1:] == ("C:\\ComfyUI\\main.py", "--disable-cuda-malloc")
    assert "pasted-error-unexplained" not in pasted_findings(text)


@states(CODE, QUIET)
def test_801_outside_comfyui_is_asked_not_said():
    """rapidsai/cudf#11382 (tests/pasted/catalogue_examples): 801 from cuDF under WSL 2, no PyTorch allocator shown."""
    found = pasted_findings(_text(EXAMPLES / "cudf-11382-wsl2-geforce-801-not-supported.txt"))
    assert CODE not in found
    assert "pasted-error-unexplained" in found


@states(CODE, QUIET)
def test_start_up_line_without_a_failure_is_quiet():
    """https://github.com/Acly/krita-ai-diffusion/issues/24: the cudaMallocAsync start-up line alone (no 801 shown)."""
    assert CODE not in pasted_findings(_text(EXAMPLES / "krita-ai-diffusion-24-gtx950m-device-cudamallocasync.txt"))


@states(CODE, QUIET)
def test_comfyui_traceback_of_another_failure_is_quiet():
    """Comfy-Org/ComfyUI#7433 (tests/blind/plans5 case 446): a traceback through ComfyUI's files whose failure is a CPU
    torch ('Torch not compiled with CUDA enabled'), not 801: the allocator rule stays out of it."""
    path = ROOT / "tests/blind/plans5/cases/446-comfyui7433-windows-portable-update-bat-torch-not-compiled-with-cuda/input.txt"
    assert CODE not in pasted_findings(_text(path))
