"""docs/findings/framework-cuda-libs-missing.md, "torch.compile on Windows": inductor's "Cannot find a working triton
installation" on a report that shows native Windows is decided (PyTorch ships no Triton there); elsewhere it stays a
question. Real texts: tests/pasted/catalogue_examples (their sources in its README.md). A case of the twelfth blind set,
tests/blind/plans12/cases/1206-pt136361-windows-py312-torch26-nightly-torch-compile-no-triton, prints the same lines
without showing Windows (its report says so only in its title): it stays asked, and is a quiet twin here."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests/pasted/catalogue_examples"


def _report(text: str):
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    report = diagnose(ReplayHost(snap))
    assert not report.internal_errors, report.internal_errors
    return report


def _found(report) -> list:
    return [f for f in report.findings if f.code == "framework-cuda-libs-missing" and "torch.compile" in f.title]


@states("framework-cuda-libs-missing", FIRES)
def test_comfyui_portable_on_windows_is_told_eager_wsl2_or_triton_windows():
    # https://github.com/kijai/ComfyUI-WanVideoWrapper/issues/978: ComfyUI's portable Python on G:\ (Windows shown by
    # its paths); torch's version is not in the text, so the step reads it before a triton-windows line is chosen
    report = _report((EXAMPLES / "comfyui-wanvideowrapper-978-triton-missing.txt").read_text(encoding="utf-8"))
    [f] = _found(report)
    py = "G:\\ComfyUI_windows_portable\\python_embeded\\python.exe"
    assert [c.words for c in f.remediation.commands] == [
        (
            py,
            "-c",
            "import torch, importlib.util; print(torch.__version__, torch.cuda.is_available(), "
            "importlib.util.find_spec('triton'))",
        ),
        (py, "-m", "pip", "show", "torch"),
    ]
    assert "pasted-error-unexplained" not in {x.code for x in report.findings}


@states("framework-cuda-libs-missing", FIRES)
def test_a_known_torch_takes_the_triton_windows_line_of_its_readme():
    # The ComfyUI report above with the torch its portable build carried stated (composed: the pin's table is the
    # subject). triton-windows' README: torch 2.6 takes Triton 3.2; pip's dry run of triton-windows<3.3 for cp312
    # win_amd64 resolved triton_windows-3.2.0.post21.
    text = (EXAMPLES / "comfyui-wanvideowrapper-978-triton-missing.txt").read_text(encoding="utf-8")
    [f] = _found(_report(text + "\ntorch==2.6.0+cu124\n"))
    assert f.remediation.commands[-1].words[-1] == "triton-windows<3.3"


@states("framework-cuda-libs-missing", QUIET)
def test_the_same_message_without_windows_stays_a_question():
    # https://github.com/triton-lang/triton/issues/4034: no platform shown; dynamo's own "Set TORCH_LOGS=..." line is
    # no cmd.exe `set` (torch prints it on Linux too), so Linux is assumed and the text does not decide it
    report = _report((EXAMPLES / "triton-4034-cannot-find-working-triton-no-platform.txt").read_text(encoding="utf-8"))
    assert not _found(report)
    assert report.facts.platform.system == "Linux"
    assert "pasted-error-unexplained" in {x.code for x in report.findings}


@states("framework-cuda-libs-missing", QUIET)
def test_the_blind_case_that_names_windows_only_in_its_title_stays_a_question():
    case = next((ROOT / "tests/blind/plans12/cases").glob("1206-*"))
    report = _report((case / "input.txt").read_text(encoding="utf-8"))
    assert not _found(report)
    assert report.facts.platform.system == "Linux"
