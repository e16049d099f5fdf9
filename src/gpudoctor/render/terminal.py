"""The terminal view: one line per area with its status, then each finding with its fix.

The only module that knows about colour and glyphs. Colour follows rich's
own detection (TTY, NO_COLOR); glyphs fall back to ASCII where the output
encoding cannot carry them. Commands are printed on their own lines, never
wrapped and without a prompt, so they paste cleanly.
"""

from __future__ import annotations

from typing import Any

from gpudoctor.facts import Facts
from gpudoctor.model import AREA_TITLES, AREAS, Finding, Report, Severity
from gpudoctor.probed import Found

_GLYPHS = {"ok": ("✓", "[OK]"), "none": ("-", "[-]"), "info": ("i", "[i]"), "warning": ("!", "[!]"), "error": ("✗", "[X]")}
_STYLE = {"ok": "green", "none": "dim", "info": "blue", "warning": "yellow", "error": "red bold"}
# Summaries that say an area is simply not there: no tick, since nothing was checked.
_NOTHING = ("not loaded", "none found", "none installed", "no NVIDIA GPU seen")


def _glyph(console: Any, status: str) -> str:
    fancy, plain = _GLYPHS[status]
    encoding = (getattr(console, "encoding", None) or "ascii").lower()
    return fancy if encoding.startswith("utf") else plain


def _gib(value: int | None) -> str:
    return "?" if value is None else f"{value / 1024**3:.1f} GiB"


def area_summaries(facts: Facts) -> dict[str, str]:
    """One line of what was seen per area, for the status lines."""
    d = facts.driver
    gpus = d.gpus
    out: dict[str, str] = {}
    if gpus:
        names = sorted({g.name or "unknown GPU" for g in gpus})
        out["gpu"] = f"{len(gpus)} × {', '.join(names)}"
    elif isinstance(facts.kernel.pci, Found) and facts.kernel.pci.value:
        out["gpu"] = f"{len(facts.kernel.pci.value)} NVIDIA device(s) on the PCI bus"
    else:
        out["gpu"] = "no NVIDIA GPU seen"
    if d.version:
        out["driver"] = f"{d.version} (supports CUDA {d.cuda_version or '?'})"
    elif isinstance(facts.kernel.proc_driver, Found):
        out["driver"] = f"kernel module {facts.kernel.proc_driver.value.version}; user-space driver not reachable"
    elif gpus or d.cuda_version:
        # NVML answered (it lists GPUs or the CUDA version) but the version was not recorded: a pasted report.
        out["driver"] = "version not recorded" + (f" (supports CUDA {d.cuda_version})" if d.cuda_version else "")
    elif facts.kernel.nvidia_loaded:
        out["driver"] = "nvidia module loaded; its version could not be read"
    else:
        out["driver"] = "not loaded"
    plat = facts.platform
    bits = [plat.distro.pretty_name or plat.system]
    if plat.container:
        bits.append(f"in {plat.container}")
    if plat.wsl:
        bits.append(f"WSL{plat.wsl}")
    out["platform"] = ", ".join(bits)
    tks = facts.toolkits.toolkits
    if tks:
        active = facts.toolkits.link.resolved
        out["toolkit"] = ", ".join(f"{t.version or '?'} at {t.root}" + (" (active)" if t.root == active else "") for t in tks)
    else:
        out["toolkit"] = "none found"
    cudnn = {f"{c.version}" for c in facts.cudnn if c.version}
    out["cudnn"] = ", ".join(sorted(cudnn)) if cudnn else "none found"
    fw = facts.frameworks
    parts = []
    if isinstance(fw.torch, Found):
        t = fw.torch.value
        build = (
            f" (CUDA {t.cuda})"
            if t.cuda
            else " (ROCm build)"
            if t.hip
            else " (CPU build)"
            if t.build_known
            else " (build not recorded)"
        )
        parts.append(f"torch {t.version}{build}")
    if isinstance(fw.tensorflow, Found):
        t = fw.tensorflow.value
        parts.append(f"{t.distribution} {t.version}")
    if isinstance(fw.jax, Found):
        parts.append(f"jax {fw.jax.value.jax or '?'}")
    env = fw.python.value if isinstance(fw.python, Found) else None
    where = f" in {env.executable} ({fw.python_chosen_by})" if env else ""
    out["frameworks"] = (", ".join(parts) or "none installed") + where
    if gpus:
        links = [f"GPU{g.index} PCIe Gen{g.pcie_gen_current} x{g.pcie_width_current}" for g in gpus[:4] if g.pcie_gen_current]
        out["health"] = ", ".join(links) if links else f"{len(gpus)} GPU(s) reporting"
        known = [g for g in gpus[:4] if g.memory_total_bytes]
        if known:
            out["memory"] = ", ".join(
                f"GPU{g.index} {_gib(g.memory_used_bytes)} of {_gib(g.memory_total_bytes)} used" for g in known
            )
    return out


def render_terminal(report: Report, console: Any, verbose: bool = False) -> None:
    from rich.markup import escape

    from gpudoctor.cmdline import shell_for_os
    from gpudoctor.prescribe import build

    plan = build(report.findings, shell_for_os(report.facts.platform.system))
    # The step that answers each finding, by code: a finding answered by its alternative (the plan swaps a
    # first choice that contradicts another step) still points at the step that carries it.
    numbers: dict[str, int] = {}
    for i, s in enumerate(shown_steps(plan), 1):
        for code in s.codes:
            numbers.setdefault(code, i)
    by_area: dict[str, list[Finding]] = {}
    for f in report.findings:
        by_area.setdefault(f.area, []).append(f)
    summaries = area_summaries(report.facts)
    mode = " (replayed snapshot)" if report.host_mode == "replay" else ""
    console.print(f"[bold]gpudoctor check[/bold]{mode}")
    for area in AREAS:
        findings = by_area.get(area, [])
        if area not in summaries and not findings:
            continue
        worst = max((f.severity for f in findings), default=None)
        summary = summaries.get(area, "")
        status = worst.label if worst is not None else ("none" if summary.startswith(_NOTHING) else "ok")
        glyph = _glyph(console, status)
        console.print(
            f"[{_STYLE[status]}]{glyph}[/] [bold]{AREA_TITLES[area]}[/bold]: {escape(summary)}",
            soft_wrap=True,
        )
        for f in findings:
            step = _step_number(f, numbers)
            render_finding(console, f, verbose, step=step)
    from gpudoctor.install.fix import fix_offers

    render_plan(console, plan, fix_offers(report))
    counts = {s: sum(1 for f in report.findings if f.severity == s) for s in Severity}
    if not report.findings:
        console.print(f"[green]{_glyph(console, 'ok')} No problems found.[/]")
    else:
        console.print(
            f"{counts[Severity.ERROR]} error(s), {counts[Severity.WARNING]} warning(s), {counts[Severity.INFO]} note(s). "
            "Details of any code: gpudoctor explain CODE"
        )
    if verbose:
        timings = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in sorted(report.timings_s.items()))
        console.print(f"[dim]timings: {escape(timings)}[/dim]", soft_wrap=True)


def _step_number(f: Finding, numbers: dict[str, int]) -> int | None:
    return numbers.get(f.code) if f.remediation is not None else None


def shown_steps(plan: Any) -> list[Any]:
    """The steps the plan shows (those with something to say), numbered in this order."""
    return [s for s in plan.steps if s.commands or s.summaries]


def render_plan(console: Any, plan: Any, offered: dict[str, str] | None = None) -> None:
    """The plan once, in order: each step's prose, where it runs, its commands, and whether `fix` applies it."""
    from rich.markup import escape

    steps = shown_steps(plan)
    if not steps:
        return
    shell = {"posix": "", "powershell": " (PowerShell)", "fish": " (fish)", "cmd": " (cmd.exe)"}[plan.target]
    console.print(f"[bold]Plan[/bold]{shell}: in this order")
    for i, step in enumerate(steps, 1):
        tags = []
        if step.where:
            tags.append(f"on {step.where}")
        if step.fix_kind(offered or {}):
            tags.append("gpudoctor fix can apply this")
        tag = f" [dim]({escape('; '.join(tags))})[/dim]" if tags else ""
        console.print(f"  {i}. [bold]{escape(step.title)}[/bold]{tag} [dim]{escape(', '.join(step.codes))}[/dim]", soft_wrap=True)
        for summary in step.summaries:
            console.print(f"     {escape(summary)}", soft_wrap=True, highlight=False)
        for line in step.lines(plan.target):
            console.print(f"       {escape(line)}", soft_wrap=True, highlight=False)
        # Another way to the same end: labelled, after the step's own commands, and never numbered as a step.
        for alt in step.alternatives:
            console.print(
                f"     [bold]{escape('or instead')}[/bold]{escape(alt.heading.removeprefix('or instead'))}",
                soft_wrap=True,
                highlight=False,
            )
            for line in alt.lines(plan.target):
                console.print(f"       {escape(line)}", soft_wrap=True, highlight=False)
    for problem in plan.problems:
        console.print(f"  [yellow]the plan does not hold together: {escape(problem)}[/yellow]", soft_wrap=True)


def render_finding(console: Any, f: Finding, verbose: bool, indent: str = "    ", step: int | None = None) -> None:
    """One finding: title with its code, why it matters (each line), evidence with -v, then the fix.

    Inside `check` the fix's commands are in the plan (`step` is its number); other views (the
    bandwidth benchmark) pass no step and get the commands here.
    """
    from rich.markup import escape

    status = f.severity.label
    inner = indent + "  "
    console.print(
        f"{indent}[{_STYLE[status]}]{_glyph(console, status)} {escape(f.title)}[/] [dim]({f.code})[/dim]", soft_wrap=True
    )
    for line in f.detail.splitlines():
        console.print(f"{inner}{escape(line)}", soft_wrap=True, highlight=False)
    if verbose:
        for e in f.evidence:
            console.print(f"{inner}[dim]evidence: {escape(e.source)}: {escape(e.value)}[/dim]", soft_wrap=True)
        if f.sources:
            console.print(f"{inner}[dim]sources: {escape(', '.join(f.sources))}[/dim]", soft_wrap=True)
    if f.remediation:
        where = f" (step {step} of the plan)" if step and f.remediation.commands else ""
        console.print(f"{inner}[bold]Fix:[/bold] {escape(f.remediation.summary)}{where}", soft_wrap=True, highlight=False)
        if step is None:
            for line in f.remediation.lines():
                console.print(f"{inner}  {escape(line)}", soft_wrap=True, highlight=False)
            alt = f.remediation.alternative
            if alt is not None:
                console.print(f"{inner}[bold]Or instead:[/bold] {escape(alt.summary)}", soft_wrap=True, highlight=False)
                for line in alt.lines():
                    console.print(f"{inner}  {escape(line)}", soft_wrap=True, highlight=False)
