"""docs/findings/windows-tdr-timeout.md, each documented rule as a test on a minimal pasted text (the real reports,
AUTOMATIC1111/stable-diffusion-webui#6790 and a plans10 case, are in tests/pasted/test_catalogue_libraries.py)."""

from __future__ import annotations

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.spec.registry import FIRES, QUIET, states

_FRAME = '  File "C:\\Users\\me\\app\\venv\\lib\\site-packages\\torch\\nn\\modules\\module.py", line 1130, in _call_impl\n'
_KEY = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers"


def _found(text: str) -> list:
    snap = validate_snapshot(read_pasted([Source("report.txt", text)]), "report")
    return [f for f in diagnose(ReplayHost(snap)).findings if f.code == "windows-tdr-timeout"]


@pytest.mark.parametrize(
    "message",
    [
        "RuntimeError: CUDA error: the launch timed out and was terminated\n",
        "RuntimeError: CUDA error: the launch timed out and was\n",  # cut where the reporter's line ended
    ],
)
@states("windows-tdr-timeout", FIRES)
def test_the_message_in_a_windows_text_raises_tdrdelay_then_restarts(message):
    """windows-tdr-timeout.md: "the message ... (also cut at "and was" ...), in a text that shows Windows"."""
    [f] = _found("Traceback (most recent call last):\n" + _FRAME + message)
    assert [c.words for c in f.remediation.commands][1:] == [
        ("reg", "query", _KEY, "/v", "TdrDelay"),
        ("reg", "add", _KEY, "/v", "TdrDelay", "/t", "REG_DWORD", "/d", "60", "/f"),
        ("shutdown", "/r", "/t", "0"),  # a program both Windows shells run (planner.remedy.reboot)
    ]


@pytest.mark.parametrize(
    "text",
    [
        # no Windows shown: Linux assumed, where X's watchdog has no registry value
        "RuntimeError: CUDA error: the launch timed out and was terminated\n",
        # Windows shown, another failure
        "Traceback (most recent call last):\n" + _FRAME + "RuntimeError: CUDA error: unspecified launch failure\n",
    ],
)
@states("windows-tdr-timeout", QUIET)
def test_not_said_without_windows_or_without_the_timeout(text):
    """windows-tdr-timeout.md: "Not said where the text does not show Windows"."""
    assert not _found(text)
