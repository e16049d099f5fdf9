"""The plan (and what installing did) as plain text: it ends up in support tickets, so no boxes or colour.

Every command is rendered by gpudoctor.cmdline for the shell of the machine the plan is for:
PowerShell when that machine runs Windows, a POSIX shell elsewhere."""

from __future__ import annotations

from gpudoctor import cmdline
from gpudoctor.cmdline import Cmd
from gpudoctor.planner.model import Candidate, Plan

MAX_RULED_OUT = 12  # lines; --format json lists every one
# The `schema` key of `install --format json` and the $id of src/gpudoctor/schemas/install.schema.json.
SCHEMA = "gpudoctor.install/1"


def shell_of(plan: Plan) -> str:
    return "powershell" if plan.machine.os == "windows" else "posix"


def as_cmd(argv) -> Cmd:
    """A step's argv as a cmdline command."""
    return Cmd(tuple(argv))


def companions_said(plan: Plan) -> str:
    """What moves with the framework (gpudoctor.planner.pick_torch.companion_moves decides it), as one sentence."""
    return f" With it: {'; '.join(plan.companions)}." if plan.companions else ""


def command_lines(plan: Plan, lines) -> list[str]:
    """Each command (a Cmd, or an argv) as one line for the plan's shell; one that shell cannot hold says so instead."""
    return cmdline.render_all(
        (c if isinstance(c, (Cmd, cmdline.SetEnv, cmdline.SetFrom, cmdline.PrependPath)) else as_cmd(c) for c in lines),
        shell_of(plan),
    )


def _cmds(plan: Plan, lines) -> list[str]:
    # No "$ " or "PS> " prompt, as in check's plan: a line copied whole is a command the shell runs.
    from gpudoctor.textfit import Whole

    return [Whole("  " + t) for t in command_lines(plan, lines)]


def ruled_out_line(c: Candidate) -> str:
    return f"  - {c.build.label}: " + "; ".join(j.text for j in c.failures())


def render_plan(plan: Plan, *, replay: bool = False, width: int | None = None) -> str:
    """The plan as text; `width`: wrap its prose to that many columns (a terminal's), its commands whole."""
    lines: list[str] = []
    title = plan.title
    if plan.chosen is None:
        what = f"{title} {plan.requested}" if plan.requested else title
        lines.append(f"No {what} build fits this machine.")
    elif plan.already and plan.manual:
        lines.append(
            f"{plan.chosen.build.label} fits this machine and is installed already; it needs what is listed under 'besides'."
        )
    elif plan.already:
        lines.append(
            f"{plan.chosen.build.label} fits this machine and is installed already: nothing to do (--reinstall installs it again)."
        )
    else:
        lines.append(f"{plan.chosen.build.label} fits this machine.")
    lines.append(f"  machine: {plan.machine.describe()}")
    if plan.change is not None:
        lines.append(f"  change: {plan.change.text}")
        lines += [f"  {m}" for m in plan.change.major]
    if plan.online is not None:
        lines.append(f"  index: {plan.online.text}")
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
        lines.append(
            "the plan, printed only (a snapshot is never installed):"
            if replay
            else f"the plan ({plan.installer}; nothing runs without confirmation):"
        )
        lines += _cmds(plan, [s.argv for s in plan.steps])
    if plan.after:
        lines.append("the plan goes on by hand (what builds against the new torch; gpudoctor does not run it):")
        lines += _cmds(plan, plan.after)
    if plan.companions:
        lines.append("with it:")
        lines += [f"  - {c}" for c in plan.companions]
    for name, argvs in plan.equivalents:
        lines.append(f"the same with {name}" + (" (printed only):" if name == "conda" else ":"))
        lines += _cmds(plan, argvs)
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
        lines += _cmds(plan, plan.undo)
    from gpudoctor.textfit import fit_lines

    return "\n".join(fit_lines(lines, width)) + "\n"
