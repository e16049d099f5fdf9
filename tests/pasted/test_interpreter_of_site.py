"""On Windows, the interpreter a traceback's site-packages shows becomes the plan's (issue 27, kind 8): a venv's
Scripts\\python.exe, a portable build's python_embeded\\python.exe, CPython's own prefix; each cited by its line.
Real reports as pasted (tests/pasted/cases; tests/blind/plans/cases, the frozen inputs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, shell_for_os
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.planner.prescribe import build

TESTS = Path(__file__).resolve().parent.parent


def _snap(path: Path) -> dict:
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    return validate_snapshot(read_pasted([Source("report.txt", text)]), path.parent.name)


def _cited(snap: dict, fact: str) -> dict:
    (row,) = [r for r in snap["pasted"]["read_from"] if r["fact"] == fact]
    return row


@pytest.mark.parametrize(
    ("case", "interpreter", "line_has"),
    [
        # A venv (.lip-wise), its packages in D:\AI\Lip_Wise-1.2\.lip-wise\lib\site-packages\torch\...
        (
            "blind/plans/cases/021-lipwise20-windows-venv-numpy2-torch/input.txt",
            "D:\\AI\\Lip_Wise-1.2\\.lip-wise\\Scripts\\python.exe",
            "\\.lip-wise\\lib\\site-packages\\torch\\",
        ),
        (
            "pasted/cases/transcan-4-windows-jaxlib-0412-vs-jax-0411/report.txt",
            "C:\\Users\\User\\Desktop\\Events\\DigiLabs\\TransCan\\venv\\Scripts\\python.exe",
            "\\TransCan\\venv\\Lib\\site-packages",
        ),
        # ComfyUI's portable build: python.exe in python_embeded itself.
        (
            "blind/plans/cases/014-comfyui2427-portable-torch-cpu-after-update/input.txt",
            "C:\\Users\\Luna\\Documents\\ComfyUI_windows_portable\\python_embeded\\python.exe",
            "\\python_embeded\\lib\\site-packages",
        ),
        # CPython's installer: python.exe in Python312.
        (
            "blind/plans2/cases/123-numbacuda369-win-py312-cuda-bindings-1290-driver-13000/input.txt",
            "C:\\Users\\Gabe\\AppData\\Local\\Programs\\Python\\Python312\\python.exe",
            "\\Python312\\Lib\\site-packages",
        ),
    ],
)
def test_the_interpreter_of_the_site_packages_shown_with_its_line(case, interpreter, line_has):
    snap = _snap(TESTS / case)
    assert snap["python"]["executable"] == interpreter
    row = _cited(snap, "python.executable")
    assert not row["assumed"] and row["lines"]
    assert any(line_has.lower() in cited["text"].lower() for cited in row["lines"])


def test_the_plan_runs_pip_in_that_interpreter():
    snap = _snap(TESTS / "blind/plans/cases/021-lipwise20-windows-venv-numpy2-torch/input.txt")
    report = diagnose(ReplayHost(snap))
    plan = build(report.findings, shell_for_os(report.facts.platform.system))
    pips = [c.words for s in plan.steps for c in s.commands if isinstance(c, Cmd) and c.words[1:3] == ("-m", "pip")]
    assert pips and all(w[0] == "D:\\AI\\Lip_Wise-1.2\\.lip-wise\\Scripts\\python.exe" for w in pips)


def test_a_python_exe_the_text_shows_run_wins_over_the_site_packages():
    # ComfyUI's portable build run by .\python_embeded\python.exe from the prompt's directory.
    snap = _snap(TESTS / "blind/plans/cases/018-comfyui7127-rtx5070ti-portable-sm120/input.txt")
    assert snap["python"]["executable"].endswith("\\ComfyUI_windows_portable\\python_embeded\\python.exe")
    assert any("python_embeded\\python.exe -s" in c["text"] for c in _cited(snap, "python.executable")["lines"])


@pytest.mark.parametrize(
    ("site", "interpreter"),
    [
        ("/srv/app/.venv/lib/python3.11/site-packages", "/srv/app/.venv/bin/python"),  # a venv
        ("/opt/miniconda3/envs/train/lib/python3.10/site-packages", "/opt/miniconda3/envs/train/bin/python"),  # conda's
        ("/usr/local/lib/python3.10/site-packages", "python3"),  # the system's: python3 on PATH
        ("/home/u/.local/lib/python3.10/site-packages", "python3"),  # the user site belongs to no one environment
        ("/home/$USER/miniconda3/envs/x/lib/python3.10/site-packages", "python3"),  # redacted: no such path
        ("/path/to/envs/x/lib/python3.10/site-packages", "python3"),  # an example path
    ],
)
def test_on_linux_an_environments_site_packages_names_its_bin_python(site, interpreter):
    text = (
        f'  File "{site}/torch/cuda/__init__.py", line 293, in _lazy_init\nAssertionError: Torch not compiled with CUDA enabled\n'
    )
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "t")
    assert snap["python"]["executable"] == interpreter
    if interpreter != "python3":
        assert site in _cited(snap, "python.executable")["lines"][0]["text"]


@pytest.mark.parametrize(
    ("message", "interpreter"),
    [
        # Python's repr of the path (an OSError's message; Jupyter's JSON traceback) doubles each backslash:
        # a conda env's python.exe sits in the env's root.
        (
            "c:\\\\Users\\\\me\\\\anaconda3\\\\envs\\\\DL\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\fbgemm.dll",
            "c:\\Users\\me\\anaconda3\\envs\\DL\\python.exe",
        ),
        # ...and a venv's under its Scripts folder.
        (
            "D:\\\\proj\\\\venv\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\c10.dll",
            "D:\\proj\\venv\\Scripts\\python.exe",
        ),
    ],
)
def test_a_site_packages_path_with_doubled_backslashes_names_its_interpreter(message, interpreter):
    text = f'OSError: [WinError 126] The specified module could not be found. Error loading "{message}" or one of its dependencies.\n'
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "doubled")
    assert snap["platform"]["system"] == "Windows"
    assert snap["python"]["executable"] == interpreter
    assert _cited(snap, "python.executable")["lines"]
    report = diagnose(ReplayHost(snap))
    plan = build(report.findings, shell_for_os(report.facts.platform.system))
    pips = [c.words for s in plan.steps for c in s.commands if isinstance(c, Cmd) and c.words[1:3] == ("-m", "pip")]
    assert all(w[0] == interpreter for w in pips)
