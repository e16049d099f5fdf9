"""Orchestration: probes -> facts -> checks -> report. No I/O of its own beyond the host."""

from __future__ import annotations

import time

from gpudoctor.host import Host
from gpudoctor.model import Report, sort_findings
from gpudoctor.probes import ProbeOptions, run_probes


def diagnose(host: Host, options: ProbeOptions = ProbeOptions(), matrix_path: str | None = None, ctx=None) -> Report:
    """The report of `host`; `ctx` (a checks Context on `matrix_path`) when the caller asks more of the same
    choices afterwards (gpudoctor.pipeline: fix's offers)."""
    import threading

    from gpudoctor.checks import all_checks, run_checks

    start = time.monotonic()
    # Import the check modules while the probes wait on subprocesses and files.
    threading.Thread(target=all_checks, daemon=True).start()
    facts = run_probes(host, options)
    probed = time.monotonic()
    findings, internal = run_checks(facts, matrix_path, ctx)
    timings = dict(facts.timings_s)
    timings["probes_total"] = round(probed - start, 4)
    timings["checks_total"] = round(time.monotonic() - probed, 4)
    return Report(facts, sort_findings(findings), host.mode, timings, internal, matrix_path)
