"""The `gpudoctor fix` session: diagnose, list the fixes, and for each one ask, apply, verify, report."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, cast

from gpudoctor.checks import Context
from gpudoctor.errors import GpudoctorError, UnsafeOperation
from gpudoctor.install import fix as fx
from gpudoctor.model import ExitCode, Severity
from gpudoctor.probes import ProbeOptions

if TYPE_CHECKING:
    from gpudoctor.host.live import LiveHost


def describe(fix: fx.Fix) -> list[str]:
    """What the fix runs or writes, every command rendered by gpudoctor.cmdline."""
    from gpudoctor import cmdline
    from gpudoctor.planner.render import as_cmd

    if fix.kind == "reinstall" and fix.payload is not None and not fix.blocked:
        lines = ["  " + line for line in cmdline.render_all(as_cmd(s.argv) for s in fix.payload.steps)]  # no prompt, as in check
        if fix.payload.after:  # a companion built against the new torch (flash-attn): printed, never run by fix
            lines.append("  then by hand (gpudoctor does not run these):")
            lines += ["    " + line for line in cmdline.render_all(fix.payload.after)]
        return lines
    if fix.kind == "switch-cuda" and not fix.blocked:
        return ["  the same by hand: " + " && ".join(fix.payload.commands())]
    if fix.kind == "env" and not fix.blocked:
        s = fix.payload
        return [f"  {s.why}", f"  line: {s.line()}" + (f"  (appended to {s.path})" if s.path else "")]
    return []


def _apply_reinstall(fix: fx.Fix, host, options: ProbeOptions, ctx: Context, out: IO[str]) -> tuple[bool, str]:
    from gpudoctor.install.apply import env_reader, failure_message, render_verification, run_plan, verify

    plan = fix.payload
    outcome = run_plan(plan, out, env_reader(host, plan.machine.env.python, options.probe_timeout_s))
    if not outcome.ok:
        raise GpudoctorError(failure_message(plan, outcome))
    v = verify(plan, host, options, ctx)
    out.write(render_verification(plan, v))
    left = [f for f in v.findings if f.code in fix.codes and f.remediation and f.remediation.component == plan.framework]
    return bool(v.usable and v.matches and not left), ("fixed" if not left else "still found: " + ", ".join(f.code for f in left))


def _apply_switch(fix: fx.Fix, host, options: ProbeOptions, ctx: Context, out: IO[str]) -> tuple[bool, str]:
    from gpudoctor import switch_cuda as sc
    from gpudoctor.checks import run_checks
    from gpudoctor.probes import run_probes

    plan = sc.refuse_untrusted_target(fix.payload, host)
    if plan.refusal:
        raise UnsafeOperation(plan.refusal, "\n".join(plan.manual) or None)
    # Without a refusal a plan names its target (plan_switch refuses when there is none).
    assert plan.target is not None
    sc.apply_switch(plan, host.root)
    sc.verify_switch(plan, host, options.probe_timeout_s)
    out.write(f"  done: {sc.LINK} -> {plan.target.root} (CUDA {plan.target.version}); to undo: {' ; '.join(plan.undo())}\n")
    findings, _ = run_checks(run_probes(host, options), ctx=ctx)
    left = sorted({f.code for f in findings if f.code in fix.codes and f.severity >= Severity.WARNING})
    return not left, ("fixed" if not left else "still found: " + ", ".join(left))


def _apply_env(fix: fx.Fix, out: IO[str]) -> tuple[bool, str]:
    out.write(f"  {fx.apply_env(fix.payload)}\n")
    ok = fx.verify_env(fix.payload)
    return ok, (f"set for new shells (this one: source {fix.payload.path})" if ok else "the line is not in the file")


def run_fix(
    options: ProbeOptions,
    *,
    env_file: str | None,
    replay: str | None,
    dry_run: bool,
    matrix: str | None,
    ask: Callable[[str], bool],
    out: IO[str] | None = None,
    index_url: str | None = None,
    target=None,
) -> int:
    from gpudoctor import switch_cuda as sc
    from gpudoctor.cli.common import make_host
    from gpudoctor.doctor import diagnose
    from gpudoctor.install.environment import read_env

    out = out or sys.stdout  # looked up now: a test runner may have replaced it since import
    host = make_host(replay)
    report = diagnose(host, options, matrix)
    facts, findings = report.facts, report.findings
    ctx = Context(matrix)
    if target:  # a wrong --gpu/--driver/--cuda is the person's error: say so now, not as "no build fits" later
        from gpudoctor.planner.machine import apply_target, machine_from_facts

        apply_target(machine_from_facts(facts, ctx), target, ctx)
    live = replay is None
    link = facts.toolkits.link
    fixes = fx.propose(
        facts,
        findings,
        ctx,
        env=read_env(host, facts),
        env_file=env_file,
        is_root=live and sc.may_change_link(host, link),
        # Live, make_host gave a LiveHost: its root is where the alternatives live.
        alternatives=sc.query_alternatives(cast("LiveHost", host).root, link) if live else None,
        index_url=index_url,
        target=target,
    )
    serious = [f for f in findings if f.severity >= Severity.WARNING]
    if not fixes:
        out.write(
            f"{len(serious)} finding(s) at warning or above; none has a safe automatic fix (gpudoctor check shows what to do)\n"
            if serious
            else "nothing to fix: no finding at warning or above\n"
        )
        return int(ExitCode.FINDINGS if serious else ExitCode.OK)
    status = ExitCode.OK
    for i, fix in enumerate(fixes, 1):
        out.write(f"[{i}/{len(fixes)}] {fix.title} (for {', '.join(fix.codes)})\n")
        out.writelines(line + "\n" for line in describe(fix))
        if fix.blocked:
            out.write(f"  needs you: {fix.blocked}\n")
            out.writelines(f"    {m}\n" for m in fix.manual)
            status = max(status, ExitCode.FINDINGS)
            continue
        if not live or dry_run:
            continue
        if not ask("Apply this fix?"):
            out.write("  skipped\n")
            status = max(status, ExitCode.FINDINGS)
            continue
        try:
            if fix.kind == "reinstall":
                ok, said = _apply_reinstall(fix, host, options, ctx, out)
            elif fix.kind == "switch-cuda":
                ok, said = _apply_switch(fix, host, options, ctx, out)
            else:
                ok, said = _apply_env(fix, out)
        except GpudoctorError as exc:
            out.write(f"  failed: {exc.message}\n" + (f"  hint: {exc.hint}\n" if exc.hint else ""))
            status = ExitCode.ERROR
            continue
        out.write(f"  {'verified' if ok else 'NOT verified'}: {said}\n")
        if not ok:
            status = max(status, ExitCode.FINDINGS)
    if not live or dry_run:
        out.write("dry run: nothing changed\n" if live else "a snapshot is never changed: nothing was applied\n")
        return int(ExitCode.OK)
    return int(status)
