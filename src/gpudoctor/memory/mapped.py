"""`memory --pid PID`: which copy of each CUDA library a process mapped, and whether the loader model predicted it.

The verdicts are gpudoctor.probes.process.compare_mapped's, the same `check --pid` reports as
process-library-differs: this module only lays them out. Paths come from the machine: cleaned where a line
is made, as everything in the memory view is.
"""

from __future__ import annotations

from typing import Any

from gpudoctor.extension_facts import ProcessFacts
from gpudoctor.probes.process import compare_mapped
from gpudoctor.sanitize import clean_line as _t


def differs(proc: ProcessFacts) -> bool:
    return any(v.verdict == "differs" for v in compare_mapped(proc))


def mapped_document(proc: ProcessFacts) -> dict[str, Any]:
    """The `process` object of the memory view's JSON (docs/memory.md)."""
    return {
        "pid": proc.pid,
        "error": proc.error,
        "libraries": [
            {
                "library": v.library,
                "path": v.path,
                "verdict": v.verdict,
                "predicted": [{"framework": fw, "path": real} for fw, real in v.predicted],
            }
            for v in compare_mapped(proc)
        ],
    }


def mapped_lines(proc: ProcessFacts) -> list[str]:
    """One line per library and verdict, then its file and the predicted ones each on a line of their own: a path
    is never wrapped (a pasted view keeps it whole)."""
    if proc.error is not None:
        return [f"Process {proc.pid}'s libraries could not be read: {_t(proc.error)}"]
    verdicts = compare_mapped(proc)
    if not verdicts:
        return [f"Process {proc.pid}: no CUDA library mapped"]
    lines = [f"Process {proc.pid}: the CUDA libraries it mapped, beside the loader model's prediction"]
    for v in verdicts:
        said = {
            "as-predicted": "as predicted",
            "differs": "differs from the prediction",
            "not-predicted": "not predicted (no framework's model loads it)",
        }[v.verdict]
        lines.append(f"  {_t(v.library)}: {said}")
        lines.append(f"    mapped     {_t(v.path)}")
        lines += [f"    predicted  {_t(real)} ({_t(fw)})" for fw, real in v.predicted]
    return lines
