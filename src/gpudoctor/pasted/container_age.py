"""A report saying its failing container is older than a working one: the stale-container cue.

A container keeps the driver libraries put in it when it was created (nvidia-docker 1.0's driver volume, or the files
the NVIDIA container toolkit mounted), so after a host driver upgrade the old container fails with NVML's
"Driver/library version mismatch" while a new one works (NVIDIA/nvidia-docker#737: "When I run a new container that is
not an existing list, it works properly with the newly installed driver"). Only where the text says so does a plan lead
with recreating the container (gpudoctor.checks.driver): elsewhere the image or the host is as likely the cause.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpudoctor.facts import STALE_CONTAINER

if TYPE_CHECKING:
    from gpudoctor.pasted.gathered import Gathered

# "a new container ... works", "newly created containers run fine", "a fresh container works": within one sentence.
_NEW_WORKS = re.compile(
    r"\b(?:a\s+|the\s+)?(?:new|newly[ -]created|fresh(?:ly created)?)\s+containers?\b[^.\n]{0,120}?"
    r"\b(?:works?|worked|working|runs?\s+fine|ran\s+fine|is\s+fine|are\s+fine)\b",
    re.IGNORECASE,
)


def read_container_age(g: Gathered, text: str) -> None:
    """Record STALE_CONTAINER where the text says a new container works (its line)."""
    if (m := _NEW_WORKS.search(text[:1_000_000])) is None:
        return
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    entry = {"cue": STALE_CONTAINER, "means": "a new container works", "line": text[start : end if end >= 0 else None].strip()[:300]}
    if entry not in g.cues and len(g.cues) < 64:
        g.cues.append(entry)
