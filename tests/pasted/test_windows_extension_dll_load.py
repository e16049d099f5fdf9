"""Python's "DLL load failed" importing a compiled module on Windows (issue 27; CPython's Python/dynload_win.c): a
warning that names it, never "No problems found", and the environment's own pip list, in the interpreter the traceback
shows, as the ask that decides (which torch/CUDA builds the module and the environment hold). Variants: the 3.8+ form
with the module's name (module or procedure not found, a localized system message), the older form without it; twins:
the same words with no failure, and Linux's loader message, which is not this kind."""

from __future__ import annotations

import pytest

from tests.pasted.test_windows_evidence import _run

SITE = "C:\\apps\\webui\\installer_files\\env\\lib\\site-packages"


@pytest.mark.parametrize(
    "error",
    [
        "ImportError: DLL load failed while importing exllamav2_ext: The specified procedure could not be found.",
        "ImportError: DLL load failed while importing _C: 找不到指定的模块。",
        "ImportError: DLL load failed: The specified module could not be found.",
    ],
)
def test_dll_load_failed_warns_and_asks_the_env(error):
    text = f'Traceback (most recent call last):\n  File "{SITE}\\pkg\\__init__.py", line 1, in <module>\n{error}'
    report, _target, _steps, asks = _run(text)
    assert "pasted-error-unexplained" in [f.code for f in report.findings]
    assert any(e.kind == "extension-dll-load-failed" for e in report.facts.pasted.errors)
    pip_list = [a.command.argv for a in asks if a.command.argv[1:] == ("-m", "pip", "list")]
    assert pip_list and pip_list[0][0].lower().endswith("python.exe")


@pytest.mark.parametrize(
    "text",
    [
        "After reinstalling, there is no DLL load failed error any more and training runs on the GPU.",
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    ],
)
def test_twins_are_not_this_kind(text):
    report, _target, _steps, _asks = _run(text)
    assert not any(e.kind == "extension-dll-load-failed" for e in report.facts.pasted.errors)
