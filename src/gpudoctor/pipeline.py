"""`gpudoctor check` from a host to its result: probes -> facts -> checks -> requirements -> the plan, computed once.

`check(host, request)` is the whole diagnosis; every output format renders the `CheckResult` it returns
(gpudoctor.render.formats) and decides nothing of its own (the JSON document of a result, which the fleet
formats read too, is gpudoctor.render.json_report.check_document).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field, replace
from functools import partial

from gpudoctor.model import ExitCode, Report, Severity
from gpudoctor.probes import ProbeOptions
from gpudoctor.record import Record, record_class

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record_class(frozen=True, eq=False, repr=False)
class CheckRequest(Record):
    """What `check` was asked: how to probe, the matrix, the job's requirements, the findings kept and the
    threshold of the exit status, the node name the reports carry and whether the text view is verbose."""

    options: ProbeOptions = field(default_factory=ProbeOptions)
    matrix_path: str | None = None
    requirements: Sequence[Any] = ()  # gpudoctor.checks.requirements.Requirement
    ignored: frozenset[str] = frozenset()
    kept: frozenset[str] = frozenset()  # --only: empty keeps every code
    threshold: Severity = Severity.WARNING
    node: str | None = None
    verbose: bool = False
    started: float = 0.0  # time.monotonic() when the command began (the fleet formats report the duration)
    pasted_text: bool = False  # what is diagnosed was read from pasted text (check --from): the text view says so


@record_class(frozen=True, eq=False, repr=False)
class CheckResult(Record):
    """One check, computed once: the report (its findings after --ignore/--only, with the unmet
    requirements), the requirement outcomes, the plan and what `fix` can apply of it, what a partial
    snapshot should ask for, and the exit status."""

    report: Report
    request: CheckRequest
    plan: Any  # gpudoctor.planner.prescribe.Plan
    offers: Mapping[str, str]  # finding code -> the kind of fix `gpudoctor fix` offers for it
    outcomes: Sequence[Any] = ()  # gpudoctor.checks.requirements.Outcome
    pasted: Mapping[str, Any] | None = None  # a partial snapshot's `pasted` section; None for a whole machine
    asks: Sequence[Any] = ()  # gpudoctor.pasted.ask.Ask
    exit_code: ExitCode = ExitCode.OK
    left_out: tuple[str, ...] = ()  # the codes of the findings --ignore/--only left out (the text view names them)

    @property
    def node(self) -> str | None:
        return self.request.node


def check(host: Any, request: CheckRequest, ahead: Callable[[], object] | None = None) -> CheckResult:
    """Diagnose `host` (gpudoctor.host.Host) as `request` says; the one place a check's result is decided. `ahead`
    imports what the caller needs once the result is made (its renderer: gpudoctor.cli.check), while the probes
    wait (_import_ahead)."""
    from gpudoctor.doctor import diagnose
    from gpudoctor.planner.context import Context  # (checks.base's Context, without the facts: they come later)

    ctx = Context(request.matrix_path)
    # Nothing more is imported before the probes start: the slowest of them (the user's interpreter) overlaps
    # the imports (gpudoctor.probes.run_probes).
    report = diagnose(host, request.options, request.matrix_path, ctx, ahead=partial(_import_ahead, ahead))
    from gpudoctor.model import exit_code_for, sort_findings
    from gpudoctor.planner.deciders import with_docker_root, with_release_asks, with_values
    from gpudoctor.planner.prescribe import build
    from gpudoctor.planner.where import shell

    # No docker command without the sudo the paste's own docker runs under (a user outside the docker group).
    report.findings = with_docker_root(report.findings, report.facts)
    # No printed command holds a placeholder: the facts fill it in, or the command lists its values instead.
    report.findings = with_values(report.findings, report.facts)
    # Nor a command the machine's tool is too old for, or of a release nothing shown decides (planner.tool_floors).
    report.findings = with_release_asks(report.findings, report.facts)
    pasted, asks = _pasted_view(host, report)
    if asks:  # an error whose fix the text cannot decide prints what decides it (gpudoctor.planner.deciders)
        from gpudoctor.planner.deciders import with_deciders

        report.findings = with_deciders(report.findings, [a.command for a in asks])
    elif pasted is None:  # a whole machine asks nothing, but from inside a container the host's release is unread
        from gpudoctor.planner.deciders import with_host_release

        report.findings = with_host_release(report.findings, report.facts)
    outcomes: list[Any] = []
    if request.requirements:
        from gpudoctor.checks.requirements import evaluate

        outcomes = evaluate(request.requirements, report.facts, report.findings, matrix_path=request.matrix_path)
    unmet = [o.finding for o in outcomes if o.finding is not None]
    if unmet:
        report.findings = sort_findings(report.findings + unmet)
    shown = [f for f in report.findings if f.code not in request.ignored and (not request.kept or f.code in request.kept)]
    left_out = tuple(f.code for f in report.findings if f not in shown)
    report.findings = shown
    from gpudoctor.planner.resume import resume_step
    from gpudoctor.planner.where import noted_at_prompt, with_prompt_env

    target = shell(report.facts)
    # (a bare python or pip is right only at the prompt whose environment the paste showed by its name: said on it)
    report.findings = with_prompt_env(report.findings, report.facts)
    resume = resume_step(report.facts, report.findings, target)
    if resume is not None:
        resume = replace(resume, commands=noted_at_prompt(report.facts, resume.commands))
    return CheckResult(
        report=report,
        request=request,
        plan=build(report.findings, target, resume),
        offers=_offers(report, ctx),
        outcomes=tuple(outcomes),
        pasted=pasted,
        asks=tuple(asks),
        exit_code=exit_code_for(report.findings, request.threshold),
        left_out=left_out,
    )


def _import_ahead(then: Callable[[], object] | None) -> None:
    """The modules `check` imports below whatever the findings are (diagnose imports them in its checks' import
    thread while the probes wait: gpudoctor.doctor._import_checks), then the caller's. Only those every check
    imports: one that only some findings need stays where it is (tests/unit/test_check_imports.py)."""
    from gpudoctor.planner import deciders, offers, prescribe, resume, where  # noqa: F401

    if then is not None:
        then()


def _pasted_view(host: Any, report: Report) -> tuple[dict[str, Any] | None, list[Any]]:
    """A partial snapshot's `pasted` section and the questions left open (None and [] for a whole machine)."""
    section = host.pasted()
    if not section.get("partial"):
        return None, []
    from gpudoctor.pasted.ask import ask_for

    return section, ask_for(report.facts, report.findings)


def _offers(report: Report, ctx: Any) -> dict[str, str]:
    """What `fix` can apply of the plan (gpudoctor.install.fix.fix_offers), judged by the Context that judged
    the findings. Where no finding could be offered a fix, the fixer is not even loaded (a tenth of a check)."""
    from gpudoctor.planner.offers import could_offer

    if not could_offer(report.findings):
        return {}
    from gpudoctor.install.fix import fix_offers

    return fix_offers(report, ctx)


def consequences_of(result: CheckResult) -> Any:
    """The printed plan of `result` applied to its machine and diagnosed again (gpudoctor.planner.consequences):
    what it leaves, breaks, undoes or needs first, as data with a to_json. Not part of `check`'s own work:
    a caller that shows it asks for it (it judges the machine once more per step that changes a fact)."""
    from gpudoctor.checks import run_checks
    from gpudoctor.checks.base import Context
    from gpudoctor.planner.consequences import consequences

    ctx = Context(result.request.matrix_path)
    return consequences(
        result.plan,
        result.report.facts,
        result.report.findings,
        lambda facts: run_checks(facts, result.request.matrix_path, Context(result.request.matrix_path))[0],
        ctx.matrix,
    )
