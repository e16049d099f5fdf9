"""An issue form's question about the platform, answered under its heading (gpudoctor.pasted.platform_form), and the
macOS reading that follows from it or from the system's name (gpudoctor.pasted.cues.MACOS_SAID)."""

from __future__ import annotations

import pytest

from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.platform_form import form_platform


@pytest.mark.parametrize(
    ("text", "system"),
    [
        # AUTOMATIC1111's bug form (tests/blind/plans22/cases/2245-*, plans11/cases/1150-*)
        ("### What platforms do you use to access the UI ?\n\nWindows\n\n### What browsers do you use?\n\nChrome", "Windows"),
        ("### What Operating System are you using?\n\nWindows", "Windows"),
        ("### Which Operating Systems are you using?\n\n- [ ] Windows\n- [X] Linux\n- [ ] Mac", "Linux"),
        ("### What OS are you on?\n\nmacOS 14.2", "Darwin"),
        # two ticked: which systems the reporter uses, not the one that failed
        ("### Which Operating Systems are you using?\n\n- [X] Windows\n- [X] Linux", None),
        # not a question about the platform, or not a platform answered
        ("### Platform with the issue\n\n- [X] Server", None),
        ("### What happened?\n\nWindows", None),
        ("### What platforms do you use to access the UI ?\n\nOther/Cloud", None),
    ],
)
def test_form_platform(text: str, system: str | None) -> None:
    got = form_platform(text.splitlines())
    assert (got[0] if got else None) == system


def _system(text: str) -> str:
    return read_pasted([Source("input.txt", text)])["platform"]["system"]


def test_form_answer_sets_the_platform_where_nothing_else_does() -> None:
    text = "### What platforms do you use to access the UI ?\n\nWindows\n\n### Console logs\n\ntorch.cuda.OutOfMemoryError: x\n"
    assert _system(text) == "Windows"


def test_form_windows_answer_yields_to_linux_named() -> None:
    text = "### What platforms do you use to access the UI ?\n\nWindows\n\n### What happened?\n\nThe server runs Ubuntu.\n"
    assert _system(text) != "Windows"


@pytest.mark.parametrize(
    "line",
    ["OS X Yosemite 10.10.5", "I follow the instructions for OSX, pip, 3.6"],
)
def test_os_x_is_macos(line: str) -> None:
    assert _system("luajit: cuda runtime error (35)\n" + line + "\n") == "Darwin"


def _findings(text: str):
    from gpudoctor.doctor import diagnose
    from tests.conftest import replay_host

    return diagnose(replay_host(read_pasted([Source("input.txt", text)]))).findings


def test_insufficient_driver_on_a_mac_updates_the_cuda_driver() -> None:
    """macOS has no nvidia-smi or distribution driver package: the CUDA Driver (its preference pane) is what the
    runtime needs newer (torch/cutorch#318: tests/blind/plans22/cases/2261-*; CESNET/GPUJPEG#4: plans20/2061-*)."""
    text = (
        "luajit: cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version at THCGeneral.c:16\n"
        "OS X Yosemite 10.10.5\nCUDA Driver Version: 7.5.20\n"
    )
    (f,) = [f for f in _findings(text) if f.code == "toolkit-newer-than-driver"]
    argvs = [tuple(c.argv) for c in f.remediation.commands]
    assert argvs[0] == ("system_profiler", "SPDisplaysDataType")
    assert ("kextstat",) in argvs
    assert not any(a[0] in ("nvidia-smi", "apt", "apt-get", "modprobe") for a in argvs)


def _kinds(text: str) -> set[str]:
    return {e["kind"] for e in read_pasted([Source("input.txt", text)])["pasted"]["errors"]}


def test_cpu_words_count_where_the_gpu_ran_it_before() -> None:
    """ "still uses cpu" alone may be layers of a large model left on the CPU (plans9/945, a control); beside "All the
    previous times it correctly used gpu" (InvokeAI#4202, plans22/2237) the whole program moved to the CPU."""
    words = 'I tried the "fix a broken install" option and it still uses cpu.\n'
    assert "gpu-unused-said" not in _kinds("### What happened?\n\n" + words)
    before = "the latest time I tried, it's using cpu.  All the previous times it correctly used gpu.\n\n"
    assert "gpu-unused-said" in _kinds("### What happened?\n\n" + before + "### Additional context\n\n" + words)
