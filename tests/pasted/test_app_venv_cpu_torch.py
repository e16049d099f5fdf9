"""A Windows app's own venv holding PyTorch's CPU build (issue 27): the app's report of its torch quoted with +cpu is the
installed torch, and a prompt standing in an environment's Scripts folder names the interpreter the plan uses (a bare
pip there is PATH's, not the environment's). Twins: a CUDA tag or a companion's number quoted, a CPython Scripts folder."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd
from tests.pasted.test_windows_evidence import _run, _snap


def _pip_installs(text: str) -> list[tuple[str, ...]]:
    report, _target, steps, _asks = _run(text)
    assert "framework-cpu-build" in {f.code for f in report.findings}
    return [c.words for c in steps if isinstance(c, Cmd) and c.words[1:4] == ("-m", "pip", "install")]


@pytest.mark.parametrize(
    ("prompt", "python"),
    [
        ("PS D:\\tools\\ComfyUI\\.venv\\Scripts> pip list", "D:\\tools\\ComfyUI\\.venv\\Scripts\\python.exe"),
        ("E:\\sd\\forge\\venv\\Scripts>pip uninstall torch", "E:\\sd\\forge\\venv\\Scripts\\python.exe"),
    ],
)
def test_quoted_cpu_torch_in_an_app_venv_is_reinstalled_through_that_venvs_python(prompt, python):
    text = (
        'I have an RTX 3060 but it generates on the CPU. The app\'s info page says "2.1.2+cpu".\n'
        f"{prompt}\nWARNING: Skipping torch as it is not installed.\n"
    )
    (install,) = _pip_installs(text)
    assert install[0] == python
    assert any(w.startswith("torch==2.1.2+cu") for w in install)


def test_a_prompt_in_a_cpython_installations_scripts_uses_its_prefix_python():
    snap = _snap("PS C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python310\\Scripts> pip list\nWindows 10\n")
    assert snap["python"]["executable"] == "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python310\\python.exe"


@pytest.mark.parametrize(
    ("quoted", "torch"),
    [
        ('"2.1.2+cpu Autocast half"', "2.1.2+cpu"),
        ('"2.1.2+cu121"', None),  # a CUDA build quoted in prose: what it names is not certain, nothing is read
        ('"0.16.2+cpu"', None),  # torchvision's number, no torch release
    ],
)
def test_only_a_quoted_cpu_torch_release_is_read_as_the_installed_torch(quoted, torch):
    snap = _snap(f"Windows 10, RTX 3060. The info page says {quoted}.\n")
    assert snap.get("python", {}).get("distributions", {}).get("torch") == torch
