"""dlib's DLIB_USE_CUDA said False (issue 27, two copies of one library; catalogue.toml dlib-use-cuda-false): the flag is
the imported module's compile-time one, so what decides it is which interpreter runs and which dlib it imports; a
build log that says "DLIB WILL USE CUDA" beside it is another copy's. Never a clean bill; the asks run in the person's
shell and interpreter.

Real reports, whole: https://github.com/davisking/dlib/issues/2072 (Anaconda, a CUDA build log, False) and
tests/blind/plans10/cases/1051-dlib1892-windows-cmake-says-will-use-cuda-spyder-dlib-use-cuda-false-ask (Windows,
Spyder); the quiet twins: https://github.com/davisking/dlib/issues/2840 (True, a detector on the CPU) and a cmake
option setting the flag."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

_TESTS = Path(__file__).resolve().parents[1]


def _run(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    asks = [" ".join(a.command.argv) for a in ask_for(report.facts, report.findings)]
    kinds = {e.kind for e in report.facts.pasted.errors}
    return {f.code for f in report.findings}, asks, kinds


_WHICH = "import sys, dlib; print(sys.executable); print(dlib.__file__, dlib.__version__, dlib.DLIB_USE_CUDA)"


def test_anaconda_build_log_with_false_asks_which_dlib_is_imported():
    text = (_TESTS / "pasted/catalogue_examples/dlib-2072-anaconda-will-use-cuda-dlib-use-cuda-false.txt").read_text("utf-8")
    codes, asks, _ = _run(text)
    assert "pasted-error-unexplained" in codes  # never "No problems found"
    assert f"python3 -c {_WHICH}" in asks and "python3 -m pip show dlib" in asks and "conda list dlib" in asks


def test_spyder_on_windows_asks_with_windows_python():
    case = _TESTS / "blind/plans10/cases/1051-dlib1892-windows-cmake-says-will-use-cuda-spyder-dlib-use-cuda-false-ask"
    codes, asks, _ = _run((case / "input.txt").read_text("utf-8"))
    assert "pasted-error-unexplained" in codes
    assert f"python -c {_WHICH}" in asks and "python -m pip show dlib" in asks


def test_true_is_quiet():
    text = "import dlib\nprint(dlib.DLIB_USE_CUDA)\nprint(dlib.cuda.get_num_devices())\nThe result is true and 4\n"
    _, _, kinds = _run(text)
    assert "dlib-cuda-false" not in kinds


def test_a_cmake_option_is_a_setting_not_a_report():
    _, _, kinds = _run("cmake .. -DDLIB_USE_CUDA=false -DUSE_AVX_INSTRUCTIONS=1\n")
    assert "dlib-cuda-false" not in kinds
