"""The terminal view: one line per area with its status, then each finding with its fix.

The only module that knows about colour and glyphs. Colour follows the
terminal (gpudoctor.render.textconsole: TTY, NO_COLOR, FORCE_COLOR); glyphs and other characters fall back to ASCII
where the output encoding cannot carry them. Prose is wrapped to the console's
width with hanging indents; commands are printed on their own lines, whole,
never wrapped or cut and without a prompt, so they paste cleanly. Long
evidence (a process's command line) is shortened with an ellipsis here; the
JSON report keeps it whole.
"""

from __future__ import annotations

import io
import re
from dataclasses import replace

from gpudoctor.facts import Facts
from gpudoctor.host.nvml import NAMED_IN_TEXT
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import AREA_TITLES, AREAS, Finding, Report, Severity
from gpudoctor.probed import Found

# The console is what every use of this module writes to (render, say): imported with it, so that a check imports it
# while its probes wait (gpudoctor.pipeline.check's `ahead`), not after they answer.
from gpudoctor.render.textconsole import TextConsole, emit, escape, parse, rstrip, wrap
from gpudoctor.sanitize import clean

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_GLYPHS = {"ok": ("✓", "[OK]"), "none": ("-", "[-]"), "info": ("i", "[i]"), "warning": ("!", "[!]"), "error": ("✗", "[X]")}
_STYLE = {"ok": "green", "none": "dim", "info": "blue", "warning": "yellow", "error": "red bold"}
# Summaries that say an area is simply not there: no tick, since nothing was checked.
_NOTHING = ("not loaded", "none found", "none installed", "no NVIDIA GPU seen", "not shown")
# At most this many GPUs (or groups of GPUs saying the same) in a summary line; then "+N more GPUs".
SUMMARY_GPUS = 4
# A process's command line longer than this is shortened in the text view (JSON keeps it whole).
PROCESS_CHARS = 60
# Evidence longer than this is shortened in the text view.
EVIDENCE_CHARS = 240
# Below this many columns for the text itself, lines are not narrowed further.
_MIN_TEXT = 24


def _encoding(console: Any) -> str:
    return (getattr(console, "encoding", None) or "ascii").lower()


def _glyph(console: Any, status: str) -> str:
    fancy, plain = _GLYPHS[status]
    return fancy if _encoding(console).startswith("utf") else plain


def fit(console: Any, text: str) -> str:
    """`text` with every character the console's encoding cannot carry replaced by ASCII."""
    from gpudoctor.sanitize import fit_encoding

    return fit_encoding(text, _encoding(console))


def say(console: Any, markup: str, indent: str = "", hang: int = 0) -> None:
    """Prose: wrapped to the console's width; continuation lines indented `hang` more (a hanging indent).

    `console` is a gpudoctor.render.textconsole.TextConsole (or a rich console, bench's). Cleaned here (gpudoctor.sanitize) before the
    markup is read, so that machine data cannot open a tag or reach the terminal.
    """

    width = max(console.width - len(indent) - hang, _MIN_TEXT)
    lines = []
    for i, line in enumerate(wrap(parse(fit(console, clean(markup))), width)):
        prefix = indent + (" " * hang if i else "")
        lines.append([(prefix, ""), *rstrip(line)] if prefix else rstrip(line))
    emit(console, lines)


def command(console: Any, line: str, indent: str) -> None:
    """A command to run: whole on one line, never wrapped or cut, whatever the width."""

    console.print(indent + escape(fit(console, clean(line, newlines=False))), soft_wrap=True, highlight=False)


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def gpu_list(indices: list[int]) -> str:
    """0, 1, 2, 3, 5 -> "0-3, 5"."""
    runs: list[list[int]] = []
    for i in sorted(set(indices)):
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else f"{r[0]}" for r in runs)


def per_gpu(items: list[tuple[int, str]], cap: int = SUMMARY_GPUS) -> str:
    """Per-GPU phrases, GPUs that say the same grouped ("GPUs 0-7: ..."), at most `cap` groups, then "+N more GPUs"."""
    groups: dict[str, list[int]] = {}
    for index, phrase in items:
        groups.setdefault(phrase, []).append(index)
    shown = list(groups.items())[:cap]
    parts = [(f"GPUs {gpu_list(ix)}" if len(ix) > 1 else f"GPU {ix[0]}") + f": {phrase}" for phrase, ix in shown]
    hidden = sum(len(ix) for _, ix in list(groups.items())[cap:])
    if hidden:
        parts.append(f"+{hidden} more GPU{'s' if hidden > 1 else ''}")
    return "; ".join(parts)


def _gib(value: int | None) -> str:
    return "?" if value is None else f"{value / 1024**3:.1f} GiB"


def area_summaries(facts: Facts, matrix: Any = None) -> dict[str, str]:
    """One line of what was seen per area, for the status lines.

    `matrix` (gpudoctor.matrix.Matrix, or a function that loads it) answers the CUDA version a driver supports
    where the machine did not say; a function is called only then (loading the matrix costs ~30 ms of a check).
    """
    d = facts.driver
    gpus = d.gpus
    # GPUs a pasted text only named (host/nvml.py NAMED_IN_TEXT): stated, so no driver or health line claims a probe.
    stated = d.nvml_status == NAMED_IN_TEXT
    out: dict[str, str] = {}
    if gpus:
        # A lost GPU has no name NVML could give (gpu-lost says which it is): counted, not named.
        names = sorted({g.name or "unknown GPU" for g in gpus if not g.lost})
        lost = sum(1 for g in gpus if g.lost)
        if len(names) > 1:
            # Models of several kinds (an nvidia-smi table of two models, "a K80 and two K40c"): each counted by name.
            shown = ", ".join(f"{sum(1 for g in gpus if not g.lost and (g.name or 'unknown GPU') == n)} × {n}" for n in names)
        else:
            shown = f"{len(gpus)} × {', '.join(names) or 'lost GPU'}"
        out["gpu"] = shown + (f" ({lost} lost)" if lost and names else "")
        if stated:
            out["gpu"] += " (named in the text)"
    elif isinstance(facts.kernel.pci, Found) and facts.kernel.pci.value:
        out["gpu"] = f"{len(facts.kernel.pci.value)} NVIDIA device(s) on the PCI bus"
    else:
        out["gpu"] = "no NVIDIA GPU seen"
    if d.version:
        from gpudoctor.checks.driver import driver_cuda

        cuda, derived = driver_cuda(facts, matrix)
        note = ", by the compatibility matrix" if derived else ""
        out["driver"] = f"{d.version} (supports CUDA {cuda or '?'}{note})"
    elif isinstance(facts.kernel.proc_driver, Found):
        user_space = "not shown in the text" if stated else "not reachable"
        out["driver"] = f"kernel module {facts.kernel.proc_driver.value.version}; user-space driver {user_space}"
    elif stated and not d.cuda_version:
        out["driver"] = "not shown in the text"
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
    elif facts.windows is not None and facts.windows.toolkits:
        # Windows keeps toolkits under Program Files\NVIDIA GPU Computing Toolkit\CUDA\vX.Y; CUDA_PATH names the default.
        chosen = (facts.windows.cuda_path or "").rstrip("/\\").lower()
        out["toolkit"] = ", ".join(
            f"{t.version} at {t.root}" + (" (CUDA_PATH)" if t.root.rstrip("/").lower() == chosen.replace("\\", "/") else "")
            for t in facts.windows.toolkits
        )
    elif facts.toolkits.nvcc_on_path_version:
        out["toolkit"] = f"nvcc {facts.toolkits.nvcc_on_path_version} on PATH (no install folder found)"
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
    if gpus and stated:
        out["health"] = "not shown in the text"
    elif gpus:
        links = [(g.index, f"PCIe Gen{g.pcie_gen_current} x{g.pcie_width_current}") for g in gpus if g.pcie_gen_current]
        out["health"] = per_gpu(links) if links else f"{len(gpus)} GPU(s) reporting"
        known = [g for g in gpus if g.memory_total_bytes]
        if known:
            out["memory"] = per_gpu(
                [(g.index, f"{_gib(g.memory_used_bytes)} of {_gib(g.memory_total_bytes)} used") for g in known]
            )
    if facts.pasted.partial:
        # Pasted text (docs/pasted.md): what it did not show is unknown, not absent; "none found" would say otherwise.
        out = {area: ("not shown" if text in _NOTHING else text) for area, text in out.items()}
        if out["frameworks"].startswith("none installed"):
            out["frameworks"] = "not shown" + out["frameworks"][len("none installed") :]
    return out


def render_terminal(
    report: Report,
    console: Any,
    verbose: bool = False,
    plan: Any = None,
    offers: Any = None,
    pasted: bool = False,
    ignored: tuple[str, ...] = (),
) -> None:
    """The text view of `report`; `plan` and `offers` are the check's (gpudoctor.pipeline), built here when not given.
    `pasted`: the facts were read from pasted text (check --from), which the heading says. `ignored`: the codes of the
    findings --ignore (or --only) left out, which the last line names."""
    from gpudoctor.planner.prescribe import build
    from gpudoctor.planner.where import shell

    if plan is None:
        plan = build(report.findings, shell(report.facts))
    # The step that answers each finding, by code: a finding answered by its alternative (the plan swaps a
    # first choice that contradicts another step) still points at the step that carries it.
    numbers: dict[str, int] = {}
    for i, s in enumerate(shown_steps(plan), 1):
        for code in s.codes:
            numbers.setdefault(code, i)
    by_area: dict[str, list[Finding]] = {}
    for f in report.findings:
        by_area.setdefault(f.area, []).append(f)
    summaries = area_summaries(report.facts, lambda: _matrix(report))
    long_names = _long_process_names(report.facts)
    mode = " (pasted text)" if pasted else " (replayed snapshot)" if report.host_mode == "replay" else ""
    say(console, f"[bold]gpudoctor check[/bold]{escape(mode)}", hang=2)
    for area in AREAS:
        findings = by_area.get(area, [])
        if area not in summaries and not findings:
            continue
        worst = max((f.severity for f in findings), default=None)
        summary = summaries.get(area, "")
        status = worst.label if worst is not None else ("none" if summary.startswith(_NOTHING) else "ok")
        glyph = _glyph(console, status)
        # An area with findings and nothing to summarise (gpudoctor's own problems) gets no empty "Title:".
        # One line each: a newline in a machine's text (a GPU's name) must not start a line of its own.
        said = f": {escape(clean(summary, newlines=False))}" if summary else ""
        say(console, f"[{_STYLE[status]}]{glyph}[/] [bold]{AREA_TITLES[area]}[/bold]{said}", hang=2)
        if area == "frameworks":
            for line in deep_lines(report.facts):
                say(console, escape(clean(line, newlines=False)), indent="    ", hang=2)
        for f, _ in group_per_gpu(findings, lambda f: _step_number(f, numbers)):
            render_finding(console, _for_text(f, long_names), verbose, step=_step_number(f, numbers))
    if offers is None:
        from gpudoctor.install.fix import fix_offers

        offers = fix_offers(report)
    render_plan(console, plan, offers)
    counts = {s: sum(1 for f in report.findings if f.severity == s) for s in Severity}
    # What was left out is said: "No problems found" over an ignored error would read as health.
    left_out = f" {len(ignored)} finding(s) ignored as asked: {escape(', '.join(sorted(set(ignored))))}." if ignored else ""
    if not report.findings:
        say(console, f"[green]{_glyph(console, 'ok')} No problems found.[/]{left_out}", hang=2)
    else:
        say(
            console,
            f"{counts[Severity.ERROR]} error(s), {counts[Severity.WARNING]} warning(s), {counts[Severity.INFO]} note(s). "
            f"Details of any code: gpudoctor explain CODE{left_out}",
        )
    if verbose:
        for line in loading_lines(report.facts):
            say(console, f"[dim]{escape(line)}[/dim]", indent="  ", hang=4)
        # "62ms", one word: a number and its unit never land on two lines ("62" / "ms", issue 31).
        timings = ", ".join(f"{k} {v * 1000:.0f}ms" for k, v in sorted(report.timings_s.items()))
        say(console, f"[dim]timings: {escape(timings)}[/dim]", hang=2)


def loading_lines(facts: Facts) -> list[str]:
    """-v: each framework's CUDA libraries as the loader loads them (facts.loading): the copy that wins, how
    it is reached and its version, then every other copy. Libraries only dlopen()ed are shown when found."""
    if facts.loading is None:
        return []
    out = []
    for fl in facts.loading.frameworks:
        out.append(f"Library loading for {fl.framework} (read: {', '.join(o.path for o in fl.objects)}):")
        for r in fl.loads:
            if r.path is None and not r.copies:
                continue  # a soname only offered to dlopen() elsewhere, or needed and found nowhere: said below
            version = f", {r.version}" if r.version else ""
            won = f"{r.path} ({r.via}{version})" if r.path else "the loader finds none"
            rest = r.copies[1:] if r.path else r.copies
            others = "; ".join(f"{c.path} ({c.via}{', ' + c.version if c.version else ''})" for c in rest)
            out.append(
                f"{r.soname}{' [dlopen]' if r.how == 'dlopen' else ''}: {won}"
                + (f"; {'also' if r.path else 'present at'} {others}" if others else "")
            )
        out += [f"{lib}: linked into {fl.framework}'s own library (no DT_NEEDED names it)" for lib in fl.static]
        out += [f"unread: {u}" for u in fl.unread]
    return out


def deep_lines(facts: Facts) -> list[str]:
    """What `--deep` saw when it imported each framework (facts.frameworks.deep, in JSON as it came), one
    line per framework: whether the GPU is usable, the devices, the build, or the import's error."""
    out = []
    for name, reply in sorted(facts.frameworks.deep.items()):
        if not isinstance(reply, dict):
            continue
        head = f"--deep: import {name}"
        if reply.get("error"):
            out.append(f"{head} failed: {shorten(' '.join(str(reply['error']).split()), EVIDENCE_CHARS)}")
            continue
        bits = [f"{name} {reply['version']}" if reply.get("version") else name]
        if name == "torch":
            build = [f"CUDA {reply['cuda']}" if reply.get("cuda") else "no CUDA"]
            if reply.get("cudnn"):
                build.append(f"cuDNN {reply['cudnn']}")
            bits.append("built with " + ", ".join(build))
        elif name == "tensorflow" and "built_with_cuda" in reply:
            bits.append("built with CUDA" if reply["built_with_cuda"] else "built without CUDA")
        elif name == "jax" and reply.get("backend"):
            bits.append(f"backend {reply['backend']}")
        count = reply.get("device_count")
        if reply.get("available"):
            devices = reply.get("devices") or []
            named = [
                d.get("name", "?") + (f" (compute capability {d['capability']})" if d.get("capability") else "")
                for d in devices
                if isinstance(d, dict)
            ]
            seen = f"{count} GPU{'s' if count != 1 else ''}" if isinstance(count, int) else "GPUs"
            bits.append(f"sees {seen}" + (f": {', '.join(sorted(set(named)))}" if named else ""))
        else:
            bits.append("sees no GPU")
        if reply.get("arch_list"):
            bits.append(f"kernels for {', '.join(reply['arch_list'])}")
        if reply.get("kernel_ok"):
            bits.append("a test kernel ran")
        out.append(f"{head}: {'; '.join(bits)}")
    return out


def _matrix(report: Report) -> Any:
    """The matrix the findings were judged with, for what the summaries may add; None where it cannot load."""
    from gpudoctor.matrix import load_matrix

    try:
        return load_matrix(report.matrix_path)
    except Exception:  # a broken --matrix is reported by the checks; the summaries do without
        return None


def _long_process_names(facts: Facts) -> dict[str, str]:
    """Each process command line too long for prose, with its shortened form."""
    out: dict[str, str] = {}
    for g in facts.driver.gpus:
        for p in g.processes:
            if p.name and len(p.name) > PROCESS_CHARS:
                out[p.name] = shorten(p.name, PROCESS_CHARS)
    return out


def _for_text(f: Finding, long_names: dict[str, str]) -> Finding:
    """The finding as the text view shows it: long command lines and evidence shortened (JSON keeps them)."""
    detail = f.detail
    for name in sorted(long_names, key=len, reverse=True):
        detail = detail.replace(name, long_names[name])
    evidence = tuple(replace(e, value=shorten(e.value, EVIDENCE_CHARS)) for e in f.evidence)
    return replace(f, detail=detail, evidence=evidence)


_GPU = LazyPattern(r"\bGPU (\d+)\b")


def group_per_gpu(findings: list[Finding], step: Any = None) -> list[tuple[Finding, list[int]]]:
    """Findings that say the same of several GPUs, as one ("GPUs 0-7: ..."), in the order first seen.

    Two findings are one sentence when they differ only in the one GPU index their title and detail
    name, and their fix goes to the same step of the plan (`step(finding)`, else the same commands).
    """
    groups: dict[Any, list[Finding]] = {}
    order: list[Any] = []
    for f in findings:
        named = set(_GPU.findall(f.title)) | set(_GPU.findall(f.detail))
        key: Any = id(f)
        if len(named) == 1 and _GPU.search(f.title):
            r = f.remediation
            fix = None if r is None else (r.summary, step(f) if step else None)
            if r is not None and fix is not None and fix[1] is None:
                fix = (r.summary, tuple(_GPU.sub("GPU #", line) for line in r.lines()))
            key = (f.code, f.severity, _GPU.sub("GPU #", f.title), _GPU.sub("GPU #", f.detail), fix)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(f)
    out: list[tuple[Finding, list[int]]] = []
    for key in order:
        members = groups[key]
        if len(members) == 1:
            out.append((members[0], []))
            continue
        indices = [int(_GPU.findall(m.title)[0]) for m in members]
        # Fix commands differ per GPU only where the plan carries them (step given): the first stands for all.
        out.append((_merged(members, gpu_list(indices)), indices))
    return out


def _merged(members: list[Finding], which: str) -> Finding:
    first = members[0]

    def plural(text: str) -> str:
        text = re.sub(r"^GPU \d+'s ", f"GPUs {which}: ", text)
        return _GPU.sub(f"GPUs {which}", text)

    evidence = tuple(e for m in members for e in m.evidence)
    return replace(first, title=plural(first.title), detail=plural(first.detail), evidence=evidence)


def _step_number(f: Finding, numbers: dict[str, int]) -> int | None:
    return numbers.get(f.code) if f.remediation is not None else None


def shown_steps(plan: Any) -> list[Any]:
    """The steps the plan shows (those with something to say), numbered in this order."""
    return [s for s in plan.steps if s.commands or s.summaries]


def render_plan(console: Any, plan: Any, offered: dict[str, str] | None = None) -> None:
    """The plan once, in order: each step's prose, where it runs, its commands, and whether `fix` applies it."""

    steps = shown_steps(plan)
    if not steps:
        return
    shell = {
        "posix": "",
        "powershell": " (PowerShell)",
        "fish": " (fish)",
        "cmd": " (cmd.exe)",
        "windows": " (cmd.exe or PowerShell)",
        "any": "",
        "cell": " (notebook cells)",
    }[plan.target]
    say(console, f"[bold]Plan[/bold]{shell}: in this order", hang=2)
    for i, step in enumerate(steps, 1):
        tags = []
        if step.where:
            tags.append(f"on {step.where}")
        if step.fix_kind(offered or {}):
            tags.append("gpudoctor fix can apply this")
        tag = f" [dim]({escape('; '.join(tags))})[/dim]" if tags else ""
        number = f"{i}. "
        say(
            console,
            f"{number}[bold]{escape(step.title)}[/bold]{tag} [dim]{escape(', '.join(step.codes))}[/dim]",
            "  ",
            hang=len(number),
        )
        for summary in step.summaries:
            say(console, escape(summary), "     ")
        for line in step.lines(plan.target):
            command(console, line, "       ")
        # Another way to the same end: labelled, after the step's own commands, and never numbered as a step.
        for alt in step.alternatives:
            say(console, f"[bold]{escape('or instead')}[/bold]{escape(alt.heading.removeprefix('or instead'))}", "     ", hang=2)
            for line in alt.lines(plan.target):
                command(console, line, "       ")
    for problem in plan.problems:
        say(console, f"[yellow]the plan does not hold together: {escape(problem)}[/yellow]", "  ", hang=2)


def render_finding(console: Any, f: Finding, verbose: bool, indent: str = "    ", step: int | None = None) -> None:
    """One finding: title with its code, why it matters (each line), evidence with -v, then the fix.

    Inside `check` the fix's commands are in the plan (`step` is its number); other views (the
    bandwidth benchmark) pass no step and get the commands here.
    """

    status = f.severity.label
    inner = indent + "  "
    say(
        console,
        f"[{_STYLE[status]}]{_glyph(console, status)} {escape(clean(f.title, newlines=False))}[/] [dim]({escape(f.code)})[/dim]",
        indent,
        hang=2,
    )
    for line in f.detail.splitlines():
        say(console, escape(line), inner)
    if verbose:
        for e in f.evidence:
            say(console, f"[dim]evidence: {escape(e.source)}: {escape(shorten(e.value, EVIDENCE_CHARS))}[/dim]", inner, hang=2)
        if f.sources:
            say(console, f"[dim]sources: {escape(', '.join(f.sources))}[/dim]", inner, hang=2)
    if f.remediation:
        where = f" (step {step} of the plan)" if step and f.remediation.commands else ""
        say(console, f"[bold]Fix:[/bold] {escape(f.remediation.summary)}{where}", inner, hang=2)
        if step is None:
            for line in f.remediation.lines():
                command(console, line, inner + "  ")
            alt = f.remediation.alternative
            if alt is not None:
                say(console, f"[bold]Or instead:[/bold] {escape(alt.summary)}", inner, hang=2)
                for line in alt.lines():
                    command(console, line, inner + "  ")


def render(result: Any) -> str:
    """The text view of a check's result (gpudoctor.pipeline.CheckResult), for standard output: its width,
    colours and characters are those of the terminal it goes to (gpudoctor.render.textconsole)."""
    import sys

    from gpudoctor.sanitize import for_output

    out = _Capture(sys.stdout)
    console = TextConsole(for_output(out))
    verbose = result.request.verbose
    render_terminal(
        result.report,
        console,
        verbose=verbose,
        plan=result.plan,
        offers=result.offers,
        pasted=result.request.pasted_text,
        ignored=result.left_out,
    )
    if result.pasted is not None:
        from gpudoctor.render.pasted import print_pasted

        print_pasted(console, dict(result.pasted), list(result.asks), verbose=verbose, plan=result.plan)
    if result.outcomes:
        render_requirements(console, result.outcomes)
    return out.getvalue()


def render_requirements(console: Any, outcomes: Any) -> None:

    met = sum(1 for o in outcomes if o.met)
    console.print(f"[bold]Requirements[/bold]: {met} of {len(outcomes)} met")
    for o in outcomes:
        mark = "[green]met[/]    " if o.met else "[red bold]NOT MET[/]"
        console.print(f"  {mark} {escape(o.requirement.spec)}: {escape(o.found)}", soft_wrap=True)


class _Capture(io.StringIO):
    """What the text view writes, kept as a string, with the encoding, terminal and descriptor of the
    stream it will be written to (the console's width, colours and characters follow them)."""

    def __init__(self, stream: Any) -> None:
        super().__init__()
        self._stream = stream

    @property
    def encoding(self) -> Any:  # type: ignore[override]
        return getattr(self._stream, "encoding", None)

    def isatty(self) -> bool:
        try:
            return bool(self._stream.isatty())
        except (AttributeError, ValueError, OSError):
            return False

    def fileno(self) -> int:
        return self._stream.fileno()
