"""What a report says of its containers' setup: a failing container older than a working one (STALE_CONTAINER), and
Docker's NVIDIA runtime of nvidia-docker2 in use (NVIDIA_RUNTIME_SAID), the host's CDI devices listed (CDI_LISTED).

A container keeps the driver libraries put in it when it was created (nvidia-docker 1.0's driver volume, or the files
the NVIDIA container toolkit mounted), so after a host driver upgrade the old container fails with NVML's
"Driver/library version mismatch" while a new one works (NVIDIA/nvidia-docker#737: "When I run a new container that is
not an existing list, it works properly with the newly installed driver"). Only where the text says so does a plan lead
with recreating the container (gpudoctor.checks.driver): elsewhere the image or the host is as likely the cause.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpudoctor.facts import CDI_LISTED, NVIDIA_RUNTIME_SAID, STALE_CONTAINER

if TYPE_CHECKING:
    from gpudoctor.pasted.gathered import Gathered

# "a new container ... works", "newly created containers run fine", "a fresh container works": within one sentence.
_NEW_WORKS = re.compile(
    r"\b(?:a\s+|the\s+)?(?:new|newly[ -]created|fresh(?:ly created)?)\s+containers?\b[^.\n]{0,120}?"
    r"\b(?:works?|worked|working|runs?\s+fine|ran\s+fine|is\s+fine|are\s+fine)\b",
    re.IGNORECASE,
)


# nvidia-docker2 (its package in a listing, its `nvidia-docker` wrapper run) or its runtime typed (`--runtime=nvidia`):
# the package registers a Docker runtime named nvidia in /etc/docker/daemon.json (NVIDIA/nvidia-docker daemon.json
# @16345fb1: "runtimes": {"nvidia": {"path": "nvidia-container-runtime"}}), which every Docker release runs, while
# `--gpus` needs Docker 19.03 (gpudoctor.planner.tool_floors). A test container for such a host is started that way.
_NVIDIA_RUNTIME = re.compile(r"\bnvidia-docker2\b|\bnvidia-docker\s+run\b|--runtime[= ]nvidia\b")

# nvidia-ctk's answer to `cdi list`, its logger's line before the names (NVIDIA/nvidia-container-toolkit
# cmd/nvidia-ctk/cdi/list/list.go @7627d48a: m.logger.Infof("Found %d CDI devices", len(devices))).
_CDI_FOUND = re.compile(r"\bFound \d{1,4} CDI devices\b")


def read_container_age(g: Gathered, text: str) -> None:
    """Record STALE_CONTAINER where the text says a new container works, NVIDIA_RUNTIME_SAID where it shows
    nvidia-docker2's runtime, CDI_LISTED where it shows nvidia-ctk's CDI device list (each with its line)."""
    head = text[:1_000_000]
    for cue, means, pattern in (
        (STALE_CONTAINER, "a new container works", _NEW_WORKS),
        (NVIDIA_RUNTIME_SAID, "docker run --runtime=nvidia", _NVIDIA_RUNTIME),
        (CDI_LISTED, "nvidia-ctk cdi list", _CDI_FOUND),
    ):
        if (m := pattern.search(head)) is None:
            continue
        start = head.rfind("\n", 0, m.start()) + 1
        end = head.find("\n", m.end())
        entry = {"cue": cue, "means": means, "line": head[start : end if end >= 0 else None].strip()[:300]}
        if entry not in g.cues and len(g.cues) < 64:
            g.cues.append(entry)
