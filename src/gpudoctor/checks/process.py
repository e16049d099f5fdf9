"""check --pid: which copy of each CUDA library a running process mapped, beside the loader model's prediction.

A library family (libcudart, libcudnn, libnccl, ...) the model predicts for a framework that the process mapped
from another file is a finding; so is one library mapped twice. Facts: gpudoctor.probes.process.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity


def check_process(facts: Facts, ctx: Context) -> Iterable[Finding]:
    proc = facts.process
    if proc is None:
        return
    from gpudoctor.probes.process import compare_mapped  # check --pid only

    if proc.error is not None:
        yield Finding(
            "process-libraries-mapped",
            Severity.INFO,
            "frameworks",
            f"could not read which libraries process {proc.pid} mapped",
            proc.error,
            (ev(f"file:/proc/{proc.pid}/maps", proc.error),),
        )
        return
    # One decider (gpudoctor.probes.process.compare_mapped): `memory --pid` shows the same verdicts.
    differ = [(fw, v.library, real, v.path) for v in compare_mapped(proc) for fw, real in v.differs_from]
    listing = ", ".join(m.path for m in proc.mapped) or "no CUDA library"
    if differ:
        yield Finding(
            "process-library-differs",
            Severity.WARNING,
            "frameworks",
            f"process {proc.pid} mapped another copy of {', '.join(dict.fromkeys(s or '' for _, s, _, _ in differ))} than the loader model predicts",
            "; ".join(f"{s}: mapped {got}, predicted for {fw} {real}" for fw, s, real, got in differ)
            + ". Something in that job loaded a library by full path, or its environment (LD_LIBRARY_PATH, LD_PRELOAD, "
            "interpreter) differs from the one probed: the job's own settings decide, not this shell's.",
            tuple(ev(f"file:/proc/{proc.pid}/maps", got) for _, _, _, got in differ)
            + tuple(ev("loader", f"{fw}: {real}") for fw, _, real, _ in differ),
            Remediation(
                f"Compare the job's environment (cat /proc/{proc.pid}/environ) with this shell's, and check it with "
                "gpudoctor check --python <the job's interpreter>.",
                component="environment",
            ),
        )
    yield Finding(
        "process-libraries-mapped",
        Severity.INFO,
        "frameworks",
        f"process {proc.pid} mapped {len(proc.mapped)} CUDA libraries",
        listing,
        tuple(ev(f"file:/proc/{proc.pid}/maps", m.path) for m in proc.mapped[:32]),
    )


CHECKS = (Check("process", "frameworks", ("process-library-differs", "process-libraries-mapped"), check_process),)
