"""The plan (and what installing did) as plain text: it ends up in support tickets, so no boxes or colour."""

from __future__ import annotations

import shlex

from gpudoctor.install.model import Candidate, Plan

MAX_RULED_OUT = 12  # lines; --format json lists every one


def _cmd(argv) -> str:
    return "  $ " + shlex.join(argv)


def ruled_out_line(c: Candidate) -> str:
    return f"  - {c.build.label}: " + "; ".join(j.text for j in c.failures())


def render_plan(plan: Plan, *, replay: bool = False) -> str:
    lines: list[str] = []
    title = plan.title
    if plan.chosen is None:
        what = f"{title} {plan.requested}" if plan.requested else title
        lines.append(f"No {what} build fits this machine.")
    elif plan.already and plan.manual:
        lines.append(f"{plan.chosen.build.label} fits this machine and is installed already; it needs what is listed under 'besides'.")
    elif plan.already:
        lines.append(f"{plan.chosen.build.label} fits this machine and is installed already: nothing to do (--reinstall installs it again).")
    else:
        lines.append(f"{plan.chosen.build.label} fits this machine.")
    lines.append(f"  machine: {plan.machine.describe()}")
    if plan.chosen is not None:
        lines.append("why:")
        lines += [f"  - {r}" for r in plan.reasons]
        for j in plan.chosen.judgements:
            lines.append(f"  - {'note: ' if j.note else ''}{j.text}")
    if plan.ruled_out:
        lines.append("ruled out:")
        lines += [ruled_out_line(c) for c in plan.ruled_out[:MAX_RULED_OUT]]
        if len(plan.ruled_out) > MAX_RULED_OUT:
            lines.append(f"  ... and {len(plan.ruled_out) - MAX_RULED_OUT} older builds (--format json lists them all)")
    if plan.instead is not None:
        lines.append(f"newest that fits: {plan.instead.build.label}: gpudoctor install {plan.framework}")
    if plan.steps:
        lines.append("the plan, printed only (a snapshot is never installed):" if replay else f"the plan ({plan.installer}; nothing runs without confirmation):")
        lines += [_cmd(s.argv) for s in plan.steps]
    for name, argvs in plan.equivalents:
        lines.append(f"the same with {name}" + (" (printed only):" if name == "conda" else ":"))
        lines += [_cmd(a) for a in argvs]
    if plan.manual:
        lines.append("besides, by hand (gpudoctor does not do this):")
        lines += [f"  {m}" for m in plan.manual]
    if plan.upgrade:
        lines.append("newer builds an upgrade would open:")
        lines += [f"  - {u}" for u in plan.upgrade]
    if plan.notes:
        lines.append("notes:")
        lines += [f"  - {n}" for n in plan.notes]
    if plan.undo:
        lines.append("to go back to what is installed now:")
        lines += [f"  $ {u}" for u in plan.undo]
    return "\n".join(lines) + "\n"
