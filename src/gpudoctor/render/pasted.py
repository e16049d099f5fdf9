"""The text view's part for pasted evidence: which blocks were recognised, and what to ask for."""

from __future__ import annotations

from typing import Any


def print_pasted(console: Any, pasted: dict[str, Any], asks: list, *, verbose: bool = False, plan: Any = None) -> None:
    """`asks`: the report's questions; those `plan` (the check's Prescription) prints in a step are not printed again."""
    from gpudoctor.cmdline import render_lines
    from gpudoctor.pasted.ask import not_in_plan
    from gpudoctor.render.textconsole import escape

    blocks = pasted.get("blocks") or []
    console.print()
    errors = pasted.get("errors") or []
    # A partial snapshot written from captures by hand (a recorded machine) has neither blocks nor error lines read
    # from text: it was not pasted. A paste of one error line alone has no block, but it was pasted.
    if blocks or errors:
        shown = f"{len(blocks)} block(s)" + (f", {len(errors)} error line(s)" if errors else "")
        heading = f"[bold]Read from pasted text[/bold]: {shown}; what it did not show is unknown, not missing"
    else:
        heading = "[bold]A partial snapshot[/bold]: what it did not record is unknown, not missing"
    console.print(heading, soft_wrap=True)
    for b in blocks:
        lines = b.get("lines") or [0, 0]
        console.print(
            f"  {escape(str(b.get('what', b.get('kind'))))} ({escape(str(b.get('source')))}:{lines[0]}-{lines[1]})"
            + (f": {escape(str(b.get('gave', '')))}" if b.get("gave") else ""),
            soft_wrap=True,
        )
    if errors and verbose:
        console.print("  error texts:")
        for e in errors:
            console.print(f"    {escape(str(e.get('kind')))}: {escape(str(e.get('line')))}", soft_wrap=True)
    read = [f for f in pasted.get("read_from") or [] if not f.get("assumed")]
    if read and verbose:
        # Each fact with the line that says it: a reader checks gpudoctor read what the text says, and nothing more.
        console.print("  facts read (source:line):")
        for f in read:
            cited = [f"{c.get('source')}:{c.get('line')}: {c.get('text', '')}" for c in f.get("lines") or []] or ["no line"]
            console.print(
                f"    {escape(str(f.get('fact')))} = {escape(str(f.get('value')))}  [dim]({escape(cited[0])})[/dim]",
                soft_wrap=True,
            )
            for also in cited[1:]:  # a value read from two lines (torch's version and the message that gave its CUDA)
                console.print(f"      [dim]and ({escape(also)})[/dim]", soft_wrap=True)
    assumed = [f for f in pasted.get("read_from") or [] if f.get("assumed")]
    if assumed and verbose:
        # Written because the text did not show them: never read, so shown apart from the facts read.
        shown = ", ".join(f"{f.get('fact')} = {f.get('value')}" for f in assumed)
        console.print(f"  [dim]facts assumed (no line states them): {escape(shown)}[/dim]", soft_wrap=True)
    for placed in pasted.get("placed") or []:
        console.print(f"  [dim]assumed: {escape(str(placed))}[/dim]", soft_wrap=True)
    asks = not_in_plan(asks, plan)
    if asks:
        target = plan.target if plan is not None else "posix"  # the shell the plan's lines are written for
        console.print()
        console.print("[bold]Ask the reporter for[/bold]:")
        for ask in asks:
            *note, line = render_lines(ask.command, target)  # a note: the shell a line is for, where it is not both
            for n in note:
                console.print(f"  [dim]{escape(n)}[/dim]", soft_wrap=True)
            console.print(f"  [cyan]{escape(line)}[/cyan]  {escape(ask.why)}", soft_wrap=True)
