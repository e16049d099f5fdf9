"""`--format junit`: JUnit XML for GitLab, Jenkins and Buildkite test reports.

One <testsuite name="gpudoctor.checks"> with one <testcase> per check
(`gpudoctor.checks.all_checks()`, classname `gpudoctor.<area>`), and, when
requirements were stated, one <testsuite name="gpudoctor.checks.requirements"> with
one <testcase> per requirement.

A finding at or above --fail-on is a <failure type="error|warning|info">
(message "[code] title", text the detail and the fix) in its check's test
case, so the test report fails exactly when the exit status is 1. A finding
below --fail-on is written to that test case's <system-out> and does not
fail it. A check that crashed is an <error type="internal-check-error">.
An unmet requirement is a <failure type="requirement-unmet">; a met one
passes, with what was found in <system-out>.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from gpudoctor.model import ExitCode, Finding, Report, Severity
from gpudoctor.render.xmltext import xml_text

_CRASHED = re.compile(r"^the (\S+) check crashed")


def _body(f: Finding) -> str:
    lines = [f.detail]
    lines += [f"evidence: {e.source}: {e.value}" for e in f.evidence]
    if f.remediation is not None:
        lines.append(f"fix: {f.remediation.summary}")
        lines += [f"  {c}" for c in f.remediation.lines()]
    return xml_text("\n".join(lines))


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    # Every string passes xml_text (gpudoctor.render.xmltext): any report data stays well-formed XML.
    el = ET.SubElement(parent, tag, {k: xml_text(v, newlines=False) for k, v in attrs.items()})
    if text is not None:
        el.text = xml_text(text)
    return el


def render_junit(
    report: Report,
    outcomes: Sequence = (),
    exit_code: ExitCode = ExitCode.OK,
    fail_on: Severity = Severity.WARNING,
    node: str | None = None,
) -> str:
    from gpudoctor import __version__
    from gpudoctor.checks import all_checks

    checks = all_checks()
    owner: dict[str, str] = {}
    for check in checks:
        for code in check.codes:
            owner.setdefault(code, check.name)
    by_check: dict[str, list[Finding]] = {}
    stray: list[Finding] = []
    # A --require outcome's finding is its requirement's testcase (below), whichever check may also report its code.
    required = {id(o.finding) for o in outcomes if o.finding is not None}
    for f in report.findings:
        if id(f) in required:
            continue
        name = owner.get(f.code)
        if f.code == "internal-check-error":
            m = _CRASHED.match(f.title)
            name = m.group(1) if m else None
        if name is None:
            if f.code != "requirement-unmet":
                stray.append(f)
            continue
        by_check.setdefault(name, []).append(f)

    elapsed = sum(v for k, v in report.timings_s.items() if k in ("probes_total", "checks_total"))
    root = ET.Element("testsuites", {"name": "gpudoctor"})
    suite = _sub(root, "testsuite", name="gpudoctor.checks")
    if node:
        suite.set("hostname", xml_text(node, newlines=False))
    props = _sub(suite, "properties")
    for key, value in (
        ("tool_version", __version__),
        ("host_mode", report.host_mode),
        ("exit_code", str(int(exit_code))),
        ("fail_on", fail_on.label),
    ):
        _sub(props, "property", name=key, value=value)

    totals = {"tests": 0, "failures": 0, "errors": 0}
    counts = {"tests": 0, "failures": 0, "errors": 0}

    def case(parent: ET.Element, classname: str, name: str, findings: list[Finding], tally: dict[str, int]) -> None:
        tc = _sub(parent, "testcase", classname=classname, name=name, time="0")
        tally["tests"] += 1
        out_lines = []
        failed = errored = False
        for f in findings:
            if f.code == "internal-check-error":
                _sub(tc, "error", _body(f), type=f.code, message=f"[{f.code}] {f.title}")
                errored = True
            elif f.severity >= fail_on:
                _sub(tc, "failure", _body(f), type=f.severity.label, message=f"[{f.code}] {f.title}")
                failed = True
            else:
                out_lines.append(f"{f.severity.label}: [{f.code}] {f.title}\n{_body(f)}")
        if out_lines:
            _sub(tc, "system-out", "\n\n".join(out_lines))
        tally["failures"] += int(failed)
        tally["errors"] += int(errored)

    for check in checks:
        case(suite, f"gpudoctor.{check.area}", check.name, by_check.get(check.name, []), counts)
    if stray:
        case(suite, "gpudoctor.doctor", "other-findings", stray, counts)
    _finish(suite, counts, elapsed)
    for k in totals:
        totals[k] += counts[k]

    if outcomes:
        rsuite = _sub(root, "testsuite", name="gpudoctor.checks.requirements")
        if node:
            rsuite.set("hostname", xml_text(node, newlines=False))
        rcounts = {"tests": 0, "failures": 0, "errors": 0}
        for o in outcomes:
            tc = _sub(rsuite, "testcase", classname="gpudoctor.checks.requirements", name=o.requirement.spec, time="0")
            rcounts["tests"] += 1
            if o.met:
                _sub(tc, "system-out", f"met: {o.found}")
            else:
                # The finding may have been dropped by --ignore requirement-unmet: then it does not fail.
                kept = any(f is o.finding for f in report.findings)
                if kept and o.finding.severity >= fail_on:
                    _sub(
                        tc,
                        "failure",
                        _body(o.finding),
                        type="requirement-unmet",
                        message=f"[requirement-unmet] {o.requirement.spec}: {o.found}",
                    )
                    rcounts["failures"] += 1
                else:
                    _sub(tc, "system-out", f"not met (ignored): {o.found}")
        _finish(rsuite, rcounts, 0.0)
        for k in totals:
            totals[k] += rcounts[k]

    for k, v in totals.items():
        root.set(k, str(v))
    root.set("time", f"{elapsed:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _finish(suite: ET.Element, counts: dict[str, int], elapsed: float) -> None:
    suite.set("tests", str(counts["tests"]))
    suite.set("failures", str(counts["failures"]))
    suite.set("errors", str(counts["errors"]))
    suite.set("skipped", "0")
    suite.set("time", f"{elapsed:.3f}")


def render_junit_error(message: str, hint: str | None) -> str:
    """What --format junit prints when the doctor itself failed (exit 3): one errored test case."""
    root = ET.Element("testsuites", {"name": "gpudoctor", "tests": "1", "failures": "0", "errors": "1"})
    suite = _sub(root, "testsuite", name="gpudoctor.checks", tests="1", failures="0", errors="1", skipped="0", time="0")
    tc = _sub(suite, "testcase", classname="gpudoctor.doctor", name="gpudoctor", time="0")
    _sub(
        tc,
        "error",
        message + (f"\nhint: {hint}" if hint else ""),
        type="gpudoctor-failed",
        message=message.splitlines()[0] if message else "failed",
    )
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render(result: Any) -> str:
    """--format junit: one test case per check, from the check's result."""
    request = result.request
    return render_junit(result.report, result.outcomes, result.exit_code, request.threshold, request.node)


def render_error(message: str, hint: str | None, exit_code: ExitCode, started: float = 0.0) -> str:
    return render_junit_error(message, hint)
