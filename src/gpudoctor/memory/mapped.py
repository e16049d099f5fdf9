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
    if proc.error is not None:
        return [f"Process {proc.pid}: {_t(proc.error)}"]
    verdicts = compare_mapped(proc)
    if not verdicts:
        return [f"Process {proc.pid}: no CUDA library mapped"]
    lines = [f"Process {proc.pid}: the CUDA libraries it mapped, beside the loader model's prediction"]
    wide = max(len(v.library) for v in verdicts)
    for v in verdicts:
        if v.verdict == "as-predicted":
            said = "as predicted (" + ", ".join(_t(fw) for fw, _ in v.predicted) + ")"
        elif v.verdict == "differs":
            said = "differs: " + "; ".join(f"{_t(fw)} predicts {_t(real)}" for fw, real in v.differs_from)
        else:
            said = "no framework's prediction names it"
        lines.append(f"  {_t(v.library):<{wide}}  {_t(v.path)}  {said}")
    return lines
