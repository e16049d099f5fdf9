"""ComfyUI's portable build named by an absolute path outside any traceback frame (its loader's "IMPORT FAILED" and
"Cannot import ... module for custom nodes" lines, its "web root", the update folder's .bat): the build's own
python_embeded\\python.exe is the interpreter every pip step must use (plans23 2345: numpy<2 went to a bare `python`).
Real reports as pasted (the frozen inputs of the open blind sets)."""

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
MANAGER_2053 = (
    "blind/plans23/cases/2345-comfyuimanager2053-windows10-portable-update-bat-pulled-numpy-232-custom-nodes-built-"
    "for-numpy-1x-import-failed/input.txt"
)
COMFYUI_6425 = (
    "blind/plans14/cases/1446-comfyui-6425-windows-portable-rtx3060-12gb-16gb-ram-flux-fp8-swapping-cu124-gpu-"
    "detected-control/input.txt"
)
TWO_PATHS = "E:\\py\\python.exe D:\\ComfyUI_windows_portable\\ComfyUI\\main.py --windows-standalone-build\n"


def _snap(text: str, name: str = "report") -> dict:
    return validate_snapshot(read_pasted([Source("report.txt", text)]), name)


def _read(case: str) -> dict:
    return _snap((TESTS / case).read_bytes().decode("utf-8-sig", errors="replace"), Path(case).parent.name)


@pytest.mark.parametrize(
    ("case", "interpreter"),
    [
        (MANAGER_2053, "M:\\ComfyUI\\ComfyUI_windows_portable\\python_embeded\\python.exe"),
        (COMFYUI_6425, "C:\\Users\\Bruninho\\Desktop\\ComfyUI_windows_portable\\python_embeded\\python.exe"),
    ],
)
def test_a_path_into_the_portable_folder_names_its_embedded_python(case, interpreter):
    snap = _read(case)
    assert snap["python"]["executable"] == interpreter
    cue = [c for c in snap["pasted"]["cues"] if c["cue"] == "ComfyUI's portable build (python_embeded)"]
    assert cue and "ComfyUI_windows_portable" in cue[0]["line"]


def test_the_numpy_step_runs_in_the_embedded_python():
    snap = _read(MANAGER_2053)
    report = diagnose(ReplayHost(snap))
    plan = build(report.findings, shell_for_os(report.facts.platform.system))
    pips = [c.words for s in plan.steps for c in s.commands if isinstance(c, Cmd) and c.words[1:3] == ("-m", "pip")]
    assert pips and all(w[0] == "M:\\ComfyUI\\ComfyUI_windows_portable\\python_embeded\\python.exe" for w in pips)


def test_an_interpreter_run_on_the_portable_folder_stays_the_one_shown():
    # a system Python started on the portable build's main.py (comfy-cli#234's shape): that python.exe ran it
    snap = _snap("Windows 11\n" + TWO_PATHS)
    assert snap["python"]["executable"] == "E:\\py\\python.exe"
