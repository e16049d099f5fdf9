"""A GPU no PyTorch build supports, in the AUTOMATIC1111 web UI's own paste, gets the web UI's CPU mode (its documented
options, in webui-user.bat on Windows, given to webui.sh elsewhere), not a bare "device 'cpu'"; the same message from
another program, or from a fork that takes other options, keeps the generic advice
(gpudoctor.checks.reported._cpu_mode, gpudoctor/planner/apps.toml [[cpu_mode]])."""

from __future__ import annotations

from pathlib import Path

from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
CODE = "framework-arch-unsupported"
CPU = ("--use-cpu", "all", "--precision", "full", "--no-half", "--skip-torch-cuda-test")
# plans11/1150 (AUTOMATIC1111/stable-diffusion-webui#12678): a GT 710 (sm_35) below every PyTorch build, in the web UI's
# issue form
GT710 = (
    ROOT / "tests/blind/plans11/cases/1150-a1111-12678-windows-gt710-kepler-cc35-below-pytorch-minimum-no-kernel-image/input.txt"
)
WARNING = (
    " Found GPU0 GeForce GT 710 which is of cuda capability 3.5.\n"
    "    PyTorch no longer supports this GPU because it is too old.\n"
    "    The minimum cuda capability supported by this library is 3.7.\n"
)


def _read() -> str:
    return GT710.read_text(encoding="utf-8")


@states(CODE, FIRES)
def test_the_web_uis_own_paste_gets_its_cpu_options_on_its_launcher():
    f = pasted_findings(_read())[CODE]
    # (its form answers "What platforms do you use to access the UI ?" with Windows: pasted.platform_form, so the
    # options go into webui-user.bat, the launcher it runs)
    assert argv_of(f) == [("webui-user.bat",)]
    assert "set COMMANDLINE_ARGS=--use-cpu all --precision full --no-half --skip-torch-cuda-test" in f.remediation.summary
    assert f.remediation.component == "gpu"


@states(CODE, FIRES)
def test_elsewhere_the_options_go_to_webui_sh():
    asked = "### What platforms do you use to access the UI ?\n\n"
    linux = _read().replace(asked + "Windows", asked + "Linux")
    f = pasted_findings(linux)[CODE]
    assert argv_of(f) == [("./webui.sh", *CPU)]


@states(CODE, FIRES)
def test_on_windows_the_options_go_into_webui_user_bat():
    windows = _read() + "\nC:\\sd\\stable-diffusion-webui>webui-user.bat\n"
    f = pasted_findings(windows)[CODE]
    assert argv_of(f) == [("webui-user.bat",)]
    assert "in webui-user.bat, the line `set COMMANDLINE_ARGS=--use-cpu all" in f.remediation.summary


@states(CODE, QUIET)
def test_the_same_gpu_in_another_program_or_a_fork_keeps_the_generic_cpu_advice():
    plain = "$ python train.py\n" + WARNING
    forge = _read().replace("AUTOMATIC1111/stable-diffusion-webui", "lllyasviel/stable-diffusion-webui-forge")
    for text in (plain, forge):
        f = pasted_findings(text)[CODE]
        assert argv_of(f) == [] and "--use-cpu" not in f.remediation.summary
