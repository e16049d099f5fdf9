"""`ollama ps` and `ollama list` rows as Ollama's command line prints them: a loaded model's memory and the processor
holding it, and a pulled model's size on disk. Pure: text in, values out.

Both tables come from ollama/ollama cmd/cmd.go (ListRunningHandler, ListHandler): NAME, ID (the digest's first 12 hex
digits), SIZE, then PROCESSOR ("100% GPU", "100% CPU", "48%/52% CPU/GPU") and, since the releases that print it,
CONTEXT for `ps`; MODIFIED ("7 minutes ago") for `list`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.lazypattern import LazyPattern

_NAME = r"(?P<name>[\w.:/-]{1,160}?)"
_SIZE = r"(?P<size>\d{1,4}(?:\.\d{1,2})?)[ \t]?(?P<unit>[GM]B)"
_PS_ROW = LazyPattern(
    _NAME + r"[ \t]{1,40}(?P<id>[0-9a-f]{12})[ \t]{1,40}" + _SIZE + r"[ \t]{1,40}"
    r"(?P<proc>100% CPU|\d{1,3}%/\d{1,3}% CPU/GPU)(?:[ \t]{1,40}(?P<ctx>\d{3,7})(?![\w.]))?"
)
_LIST_ROW = LazyPattern(
    _NAME
    + r"[ \t]{1,40}(?P<id>[0-9a-f]{12})[ \t]{1,40}"
    + _SIZE
    + r"[ \t]{1,40}(?:\d{1,4}|an?|About an?)[ \t]+\w{3,8}[ \t]+ago\b"
)
# A tag's parameter count in billions (":4b", ":8b-instruct-q4_K_M", ":0.6b", ":35b-a3b"), not a Gemma "e2b" (its
# effective count, below what its weights take).
_PARAMS = LazyPattern(r":(?:[\w.]*-)?(?P<b>\d{1,4}(?:\.\d{1,2})?)b(?![a-z0-9])", re.IGNORECASE)

# The context Ollama gave a model when nobody asked for more: 2048 tokens (docs/faq.md before 0.6), then 4096, and
# since the VRAM-based default 4k under 24 GiB of VRAM (docs/context-length.mdx @fb307609). A CONTEXT column at or under
# 8192 is no enlarged context.
_DEFAULT_CONTEXT_MAX = 8192


@dataclass(frozen=True)
class Overload:
    """A model held partly or wholly in system memory whose loaded size is several times what its weights take."""

    name: str
    loaded_gb: float
    processor: str
    context: int | None
    weights: str  # what its weights take, and where that was read
    line: str


def _gb(m: re.Match[str]) -> float:
    return float(m.group("size")) / (1000.0 if m.group("unit") == "MB" else 1.0)


def context_overload(text: str) -> Overload | None:
    """The first `ollama ps` row on the CPU (wholly or in part) whose model takes several times its weights in memory:
    what is loaded beyond the weights is the context's KV cache and compute graph, which grow with the context length
    (docs/context-length.mdx @fb307609: "Setting a larger context length will increase the amount of memory required
    to run a model"). The weights are read from an `ollama list` row of the same ID where the text shows one (loaded
    over 2.5 times that), else from the tag's parameter count (loaded over 3 GB per billion parameters, beyond even
    16-bit weights' 2 GB and their runtime overhead). A CONTEXT column shown at a default size names no enlarged
    context, and neither does a name without a parameter count nor a listed size."""
    if "CPU" not in text or "B" not in text:
        return None
    listed: dict[str, float] = {}
    rows: list[tuple[re.Match[str], str]] = []
    for line in text.splitlines():
        if " ago" in line and (m := _LIST_ROW.search(line[:500])):
            listed[m.group("id")] = _gb(m)
        elif "CPU" in line and (m := _PS_ROW.search(line[:500])):
            rows.append((m, line.strip()))
    for m, line in rows:
        ctx = int(m.group("ctx")) if m.group("ctx") else None
        if ctx is not None and ctx <= _DEFAULT_CONTEXT_MAX:
            continue
        loaded = _gb(m)
        if (weights := listed.get(m.group("id"))) is not None:
            if loaded > 2.5 * weights:
                return Overload(m.group("name"), loaded, m.group("proc"), ctx, f"{weights:g} GB (ollama list)", line)
        elif (p := _PARAMS.search(m.group("name"))) is not None and loaded > 3.0 * float(p.group("b")):
            b = float(p.group("b"))
            return Overload(
                m.group("name"), loaded, m.group("proc"), ctx, f"about {2 * b:g} GB at most ({b:g} billion parameters)", line
            )
    return None
