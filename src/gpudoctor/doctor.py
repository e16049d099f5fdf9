"""Orchestration: probes -> facts -> checks -> report. No I/O of its own beyond the host."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from gpudoctor.host import Host
from gpudoctor.model import Report, sort_findings
from gpudoctor.probes import ProbeOptions, run_probes


def diagnose(
    host: Host,
    options: ProbeOptions = ProbeOptions(),
    matrix_path: str | None = None,
    ctx=None,
    ahead: Callable[[], object] | None = None,
) -> Report:
    """The report of `host`; `ctx` (a checks Context on `matrix_path`) when the caller asks more of the same
    choices afterwards (gpudoctor.pipeline: fix's offers). `ahead` imports what the caller needs once the report is
    made (its planner, its renderer), in the checks' import thread, while the probes wait (_import_checks)."""
    start = time.monotonic()
    pasted = bool(host.pasted().get("partial"))  # a partial snapshot (pasted text): the checks of pasted text too
    facts = run_probes(host, options, meanwhile=lambda: _import_checks(pasted, ahead))
    from gpudoctor.checks import run_checks

    probed = time.monotonic()
    findings, internal = run_checks(facts, matrix_path, ctx)
    timings = dict(facts.timings_s)
    timings["probes_total"] = round(probed - start, 4)
    timings["checks_total"] = round(time.monotonic() - probed, 4)
    if host.mode == "live" and getattr(host, "root", "/") == "/":
        findings = for_root(findings)
    return Report(facts, sort_findings(findings), host.mode, timings, internal, matrix_path)


def _import_checks(pasted: bool, ahead: Callable[[], object] | None = None) -> None:
    """Import the check modules while the probes wait on subprocesses and files, once the user's interpreter, the
    slowest probe, has been started (before, the package and the facts' 27 classes it imports delayed that start
    by about a third of the process's CPU time up to it: bench/README.md). The package here; its modules in a
    thread of their own, not in this one: an import this thread runs is where Ctrl-C would land, and an import cut
    in the middle while a probe thread waits on the same module ended a check with exit 3 or a bare SIGINT death
    instead of 130 (tests/cli/test_interrupt.py failed 3 runs in 12 that way). `pasted`: the checks of pasted text
    too (gpudoctor.checks.all_checks), as the facts will say. Then `ahead`: what only the answer's last steps import
    (the plan, the renderer: some 15 M instructions of a bare check's 225 M, bench/README.md, h242) was imported after
    the user's interpreter answered, on the check's critical path; imported here, it overlaps that interpreter's
    start-up instead."""
    import threading

    from gpudoctor.checks import all_checks

    threading.Thread(target=_imports, args=(all_checks, pasted, ahead), daemon=True).start()


def _imports(all_checks: Callable[[bool], object], pasted: bool, ahead: Callable[[], object] | None) -> None:
    """The checks' modules, then the caller's (_import_checks). A failed import ahead is left to the thread that
    needs the module: it imports it again and reports the error there, as it would without this."""
    all_checks(pasted)
    if ahead is not None:
        with contextlib.suppress(Exception):
            ahead()


def for_root(findings: list) -> list:
    """Run as root: each printed command whose program is a file another user can change (their venv's
    python) is printed to run as that user (`sudo -u '#UID' ...`, gpudoctor.cmdline.Cmd.as_user) with a
    note saying why, never as root; one that no single user owns but others can change says so.
    Not root: the findings unchanged."""
    from dataclasses import replace

    from gpudoctor.cmdline import Cmd
    from gpudoctor.trust import run_as_owner, running_as_root

    if not running_as_root():
        return findings
    seen: dict[str, tuple[int | None, str] | None] = {}

    def one(c):
        if not isinstance(c, Cmd) or not isinstance(c.argv[0], str) or not c.argv[0].startswith("/"):
            return c
        if c.argv[0] not in seen:
            seen[c.argv[0]] = run_as_owner(c.argv[0])
        found = seen[c.argv[0]]
        if found is None:
            return c
        uid, why = found
        if uid is not None:
            return replace(c, as_user=uid, root=False)
        return replace(c, note=f"not as root: {why}; " + c.note if c.note else f"not as root: {why}")

    def remedy(r):
        if r is None:
            return None
        return replace(r, commands=tuple(one(c) for c in r.commands), alternative=remedy(r.alternative))

    return [replace(f, remediation=remedy(f.remediation)) for f in findings]
