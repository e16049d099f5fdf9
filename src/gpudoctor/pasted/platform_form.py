"""An issue form's question about the platform, answered under its heading: "### What platforms do you use to access
the UI ?" / "Windows" (AUTOMATIC1111/stable-diffusion-webui's bug form: tests/blind/plans11/cases/1150-*,
tests/blind/plans22/cases/2245-*), "### What Operating System are you using?", "### Which Operating Systems are you
using?" / "- [X] Linux". A heading that starts with the field's name ("### OS", "### Platform") is the issue-form
block's own (pasted.read._issue_form); this reads the headings that ask in a sentence, which that block does not
recognise. Only one platform answered decides it: a form that lets the reporter tick several says which systems they
use, not which one failed."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpudoctor.pasted.gathered import Gathered

_ASKED = re.compile(
    r"^\s*#{2,4}\s+(?P<q>(?:what|which)\b[^\n]{0,80}?\b(?:operating\s+systems?|OS|platforms?)\b[^\n]{0,60}?)\s*$",
    re.IGNORECASE,
)
# The answer: the platform's name alone (a release after it at most: "Windows 11", "macOS 14.2"), or one ticked box.
_ANSWER = re.compile(
    r"^\s*(?:[-*]\s*\[[xX]\]\s*)?(?P<name>Windows|Linux|mac\s?OS|Mac\s?OS\s?X|OS\s?X)(?:\s+[\w.]{1,12})?\s*$",
    re.IGNORECASE,
)
_UNTICKED = re.compile(r"^\s*[-*]\s*\[\s\]")
_SYSTEM = {"windows": "Windows", "linux": "Linux"}


def form_platform(lines: list[str]) -> tuple[str, str] | None:
    """(system as platform.system() names it, the answer's line) where one question heading is answered with one
    platform; None where none is, or the answers name two."""
    found: set[str] = set()
    said = ""
    for i, line in enumerate(lines):
        if not _ASKED.match(line[:200]):
            continue
        for nxt in lines[i + 1 : i + 8]:
            if not nxt.strip() or _UNTICKED.match(nxt):
                continue
            if nxt.lstrip().startswith("#"):
                break
            if m := _ANSWER.match(nxt[:80]):
                found.add(_SYSTEM.get(m.group("name").lower(), "Darwin"))
                said = said or nxt.strip()
                continue
            break
    if len(found) != 1:
        return None
    return found.pop(), said


def read_form_platform(g: Gathered, lines: list[str], linux_named: bool) -> tuple[str, str] | None:
    """Set the platform from a form's answered question where nothing else decided it. A Windows answer yields to a
    Linux the text names elsewhere (the form asks where the reporter opens the UI, which may be another machine than
    the one the program runs on)."""
    if g.system is not None or g.wsl or g.wsl_said:
        return None
    got = form_platform(lines)
    if got is None or (got[0] == "Windows" and linux_named):
        return None
    g.system = got[0]
    return got
