"""The memory view and the plan as plain lines (terminal, `--watch`) and as JSON documents.

Lines, not rich tables: a table rewraps to the terminal's width, and these lines are pasted into
tickets. Long command lines are cut in the text view only; JSON keeps them whole.

Every datum read from the machine (GPU names, UUIDs, users, command lines, process names, the
problems NVML or nvidia-smi reported) passes gpudoctor.sanitize.clean_line here, where the line is
made: `--watch` draws these lines as a rich Text, which the safe console does not clean, and a
newline in a name must not forge a line of the view. Commands are gpudoctor.cmdline data; env files
are written by cmdline.render_envfile.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gpudoctor.cmdline import Cmd, Unrenderable, render_all
from gpudoctor.memory.mig import SOURCE, SOURCE_URL, usable_bytes
from gpudoctor.memory.plan import OVERHEADS, Plan, fmt_size
from gpudoctor.memory.settings import FRAMEWORK_NAMES, env_file
from gpudoctor.memory.view import GpuMemory, MemoryView
from gpudoctor.sanitize import clean_line as _t

VIEW_SCHEMA = "gpudoctor.memory/1"
PLAN_SCHEMA = "gpudoctor.memory-plan/1"
COMMAND_WIDTH = 80
# The gpu-memory-held rule of `gpudoctor check` (checks/health.py, Context.memory_held_share).
HELD_SHARE = 0.25


def held_share(g: GpuMemory) -> float | None:
    """Share of the GPU held by processes (their sum, else the used figure), as gpu-memory-held judges it."""
    if not g.total_bytes:
        return None
    held = g.held_bytes or (g.used_bytes or 0)
    return held / g.total_bytes


def heavily_held(view: MemoryView) -> list[GpuMemory]:
    return [g for g in view.gpus if (held_share(g) or 0) >= HELD_SHARE]


def _cut(text: str | None, width: int = COMMAND_WIDTH) -> str:
    text = _t((text or "-").replace("\n", " "))
    return text if len(text) <= width else text[: width - 1] + "…"


def _cut_command(text: str | None, width: int) -> str:
    """A command line cut to `width` keeping what names it: the program's own name and the end of its arguments
    ("…/llama-server … --port 8080"), never the directory alone ("/root/src/llama.cpp/build/bin…")."""
    text = _t((text or "-").replace("\n", " "))
    if len(text) <= width:
        return text
    first, sep, rest = text.partition(" ")
    head = "…/" + first.rsplit("/", 1)[-1] if "/" in first else first
    if len(head) >= width:
        return "…" + head[-(width - 1) :]
    if len(head + sep + rest) <= width:
        return head + sep + rest
    room = width - len(head) - 2  # " …" before the end of the arguments
    return head + " …" + rest[-room:] if room > 0 else head


def _mem_line(used: int | None, total: int | None, free: int | None) -> str:
    return f"{fmt_size(used)} used of {fmt_size(total)}, {fmt_size(free)} free"


def fold(line: str, width: int | None, hang: int = 2) -> list[str]:
    """`line` wrapped to `width` columns, continuation lines indented `hang` more than the line's own indent
    (a hanging indent, as `check` prints prose); None: as it is."""
    if width is None or len(line) <= width:
        return [line]
    import textwrap

    indent = " " * (len(line) - len(line.lstrip(" ")) + hang)
    return textwrap.wrap(
        line, max(width, len(indent) + 20), subsequent_indent=indent, break_on_hyphens=False, break_long_words=True
    ) or [line]


def view_lines(view: MemoryView, now: str | None = None, width: int | None = None) -> list[str]:
    """The view as lines; with `width` (the terminal's columns) prose is wrapped to it with hanging indents
    and the process table's COMMAND column cut to what is left of it (the JSON view keeps command lines whole)."""
    lines: list[str] = []

    def add(line: str, hang: int = 2) -> None:
        lines.extend(fold(line, width, hang))

    if now:
        add(f"GPU memory at {now} (Ctrl-C to stop)")
    if view.problem:
        for line in fold(_t(view.problem), width):
            lines.append(line)
        return lines
    for g in view.gpus:
        if g.lost:
            # No memory figure exists for a GPU the driver cannot reach: say why, not "? used of ?".
            add(
                f"GPU {_t(g.index)}  lost: the driver cannot reach it (NVML: {_t(g.lost.upper())}; gpudoctor explain gpu-lost)", 4
            )
            continue
        head = f"GPU {_t(g.index)}  {_t(g.name or 'unknown GPU')}  {_mem_line(g.used_bytes, g.total_bytes, g.free_bytes)}  [{_t(g.source)}]"
        if g.mig_enabled:
            head += f"  MIG on, {len(g.instances)} instance(s)"
        add(head, 4)
        for m in g.instances:
            add(
                f"  {_t(m.label):<16} {_mem_line(m.used_bytes, m.total_bytes, m.free_bytes)}"
                + (f"  {_t(m.sm_count)} SMs" if m.sm_count else "")
                + (f"  {_t(m.uuid)}" if m.uuid else ""),
                17,
            )
        if not g.holders:
            add("  no process holds memory on it")
        else:
            mig_col = any(h.gi is not None for h in g.holders)
            problems = {h.problem for h in g.holders}
            shared = problems.pop() if len(problems) == 1 and None not in problems else None
            header = f"  {'PID':>7}  {'USER':<10} {'TYPE':<4} {'MEMORY':>10}  {'FRAMEWORK':<10} "
            lines.append(header + ("MIG       " if mig_col else "") + "COMMAND")
            for h in g.holders:
                where = (f"GI {_t(h.gi)}/CI {_t(h.ci)}" if h.gi is not None else "-") if mig_col else ""
                row = (
                    f"  {_t(h.pid):>7}  {_cut(h.user, 10):<10} {_t(h.type or '?'):<4} {fmt_size(h.used_bytes):>10}  "
                    f"{_t(h.framework or '-'):<10} " + (f"{where:<10}" if mig_col else "")
                )
                room = COMMAND_WIDTH if width is None else min(COMMAND_WIDTH, max(width - len(row), 16))
                lines.append(row + _cut_command(h.command or h.name, room))
                if h.problem and not shared:
                    add(f"  {'':>7}  ({_t(h.problem)})", 1)
            if shared:
                add(f"  (user and command line of every process: {_t(shared)})", 1)
        rest = g.unaccounted_bytes
        if g.holders and rest and rest >= 64 * 1024**2:
            add(f"  {fmt_size(rest)} used by no listed process (processes of other containers, or the driver's own)")
        share = held_share(g)
        if share is not None and share >= HELD_SHARE:
            add(
                f"  ! {share:.0%} of GPU {_t(g.index)} is held: a new job may run out of memory (gpudoctor explain gpu-memory-held)"
            )
    return lines


def view_to_json(view: MemoryView) -> dict[str, Any]:
    return {
        "host_mode": view.host_mode,
        "problem": view.problem,
        "notes": list(view.notes),
        "gpus": [
            {
                "index": g.index,
                "name": g.name,
                "uuid": g.uuid,
                "source": g.source,
                "total_bytes": g.total_bytes,
                "used_bytes": g.used_bytes,
                "free_bytes": g.free_bytes,
                "held_bytes": g.held_bytes,
                "unaccounted_bytes": g.unaccounted_bytes,
                "lost": g.lost,
                "mig_enabled": g.mig_enabled,
                "mig_instances": [
                    {
                        "device": m.device,
                        "gpu_instance_id": m.gi,
                        "compute_instance_id": m.ci,
                        "uuid": m.uuid,
                        "total_bytes": m.total_bytes,
                        "used_bytes": m.used_bytes,
                        "free_bytes": m.free_bytes,
                        "sm_count": m.sm_count,
                    }
                    for m in g.instances
                ],
                "processes": [
                    {
                        "pid": h.pid,
                        "name": h.name,
                        "type": h.type,
                        "used_bytes": h.used_bytes,
                        "user": h.user,
                        "command": h.command,
                        "framework": h.framework,
                        "framework_how": h.framework_how,
                        "gpu_instance_id": h.gi,
                        "compute_instance_id": h.ci,
                        "problem": h.problem,
                    }
                    for h in g.holders
                ],
            }
            for g in view.gpus
        ],
    }


def view_document(view: MemoryView, exit_code: int) -> dict[str, Any]:
    return {"schema": VIEW_SCHEMA, "exit_code": exit_code, **view_to_json(view)}


def error_document(schema: str, message: str, hint: str | None, exit_code: int) -> dict[str, Any]:
    return {"schema": schema, "exit_code": exit_code, "error": {"message": message, "hint": hint}}


# --- the plan ---------------------------------------------------------------------------------------


def plan_lines(plan: Plan) -> list[str]:
    g = plan.gpu
    lines = [f"Plan: {len(plan.jobs)} job(s) on GPU {_t(g.index)} ({_t(g.name or 'unknown GPU')})"]
    if plan.mode == "mig-instances":
        lines.append(f"  {_t(plan.isolation)}; {fmt_size(plan.available_bytes)} free in the instances nobody uses")
    else:
        lines.append(
            f"  {fmt_size(g.free_bytes)} free of {fmt_size(g.total_bytes)} now; "
            f"{len(g.holders)} process(es) hold {fmt_size(g.held_bytes)}"
        )
    lines.append("")
    lines.append(
        f"  {'JOB':<14} {'FRAMEWORK':<13} {'BUDGET':>10}  {'+ OVERHEAD':>10}  {'= NEEDS':>10}"
        + ("  MIG INSTANCE" if plan.mode == "mig-instances" else "")
    )
    for p in plan.jobs:
        where = ""
        if plan.mode == "mig-instances":
            where = "  " + (_t(p.instance.label) if p.instance else "none free is large enough")
        lines.append(
            f"  {_t(p.job.name):<14} {FRAMEWORK_NAMES[p.job.framework]:<13} {fmt_size(p.job.budget_bytes):>10}  "
            f"{fmt_size(p.overhead_bytes):>10}  {fmt_size(p.need_bytes):>10}{where}"
        )
    lines.append(f"  {'total':<14} {'':<13} {'':>10}  {'':>10}  {fmt_size(plan.need_bytes):>10}")
    lines.append("")
    if plan.fits and plan.mode == "mig-instances":
        lines.append("Fits: each job has a free MIG instance that holds it.")
    elif plan.fits:
        lines.append(
            f"Fits: {fmt_size(plan.need_bytes)} needed, {fmt_size(plan.available_bytes)} free "
            f"({fmt_size(plan.available_bytes - plan.need_bytes)} to spare)."
        )
    elif plan.mode == "mig-instances":
        lines.append("Does not fit: not every job has a free MIG instance that holds it.")
    else:
        lines.append(
            f"Does not fit: {fmt_size(plan.need_bytes)} needed, {fmt_size(plan.available_bytes)} free: "
            f"{fmt_size(plan.shortfall_bytes)} short."
        )
    if plan.fits and not plan.ok:
        lines.append("The memory fits, but not every budget can be held as asked: see Isolation below.")
    if plan.suggestions:
        lines.append("What would fit:")
        lines += [f"  - {_t(s)}" for s in plan.suggestions]
    lines.append(
        "Overheads are each framework's CUDA context and libraries, from public reports; not measured here (docs/memory.md)."
    )
    lines += _mig_lines(plan)
    for p in plan.jobs:
        lines.append("")
        lines += env_file_lines(p.job.name, p.settings.env)
        for fw, code in p.settings.snippets:
            lines.append(f"--- {_t(p.job.name)}: first lines of the program ({FRAMEWORK_NAMES[fw]}) ---")
            lines += code.rstrip("\n").splitlines()
        if p.settings.note:
            lines.append(f"({p.settings.note})")
    return lines


def env_file_lines(job: str, env: tuple) -> list[str]:
    """The env file of one job, or, when a value cannot be held by an env file, why none is given.

    The values come from the machine (a GPU's UUID): one holding a newline would add a variable
    (`LD_PRELOAD=...`) to a file people pass to `docker --env-file`. All or nothing: a file without
    its CUDA_VISIBLE_DEVICES line would let the job see every GPU.
    """
    head = f"--- {_t(job)}.env ---"
    try:
        return [head, *env_file(env).rstrip("\n").split("\n")]
    except Unrenderable as exc:
        return [head, f"(no env file: {_t(exc)}; nvidia-smi -L shows the real UUIDs)"]


def _mig_lines(plan: Plan) -> list[str]:
    if plan.isolation is None or plan.mode == "mig-instances" and plan.mig is None:
        return []
    lines = ["", f"Isolation: {_t(plan.isolation)}."]
    fit = plan.mig
    if fit is None:
        return lines
    total = plan.gpu.total_bytes or 0
    lines.append(
        f"MIG profiles of the {fit.row.model} ({SOURCE}, {SOURCE_URL}"
        + (f"; {fit.row.confidence} confidence" if fit.row.confidence != "high" else "")
        + "):"
    )
    for job, profile in fit.choices:
        need = next(p.need_bytes for p in plan.jobs if p.job.name == job)
        if profile is None:
            lines.append(f"  {_t(job):<14} needs {fmt_size(need)}: no profile holds it")
        else:
            lines.append(
                f"  {_t(job):<14} needs {fmt_size(need)} -> {profile.name} (about {fmt_size(usable_bytes(fit.row, profile, total))} usable)"
            )
    lines.append(
        f"  {fit.compute_used} of {fit.row.compute_slices} compute slices, {fit.memory_used} of "
        f"{fit.row.memory_slices} memory slices: " + ("fits" if fit.fits else f"does not fit ({_t(fit.why)})")
    )
    if fit.fits:
        names = ",".join(p.name for _, p in fit.choices if p is not None)
        i = str(plan.gpu.index)
        commands = (
            Cmd(
                ("nvidia-smi", "-i", i, "-mig", "1"),
                root=True,
                note="MIG mode: stop every process on the GPU first; some boards need a reset",
            ),
            Cmd(("nvidia-smi", "mig", "-i", i, "-cgi", names, "-C"), root=True),
            Cmd(("nvidia-smi", "-L"), note="one MIG-<uuid> per job: CUDA_VISIBLE_DEVICES=MIG-<uuid>"),
        )
        lines += [f"  {line}" for line in render_all(commands)]
        if fit.row.note:
            lines.append(f"  ({fit.row.note})")
    return lines


def plan_document(plan: Plan, exit_code: int) -> dict[str, Any]:
    fit = plan.mig
    return {
        "schema": PLAN_SCHEMA,
        "exit_code": exit_code,
        "gpu": {
            "index": plan.gpu.index,
            "name": plan.gpu.name,
            "uuid": plan.gpu.uuid,
            "total_bytes": plan.gpu.total_bytes,
            "free_bytes": plan.gpu.free_bytes,
            "mig_enabled": plan.gpu.mig_enabled,
        },
        "mode": plan.mode,
        "fits": plan.fits,
        "ok": plan.ok,
        "need_bytes": plan.need_bytes,
        "available_bytes": plan.available_bytes,
        "shortfall_bytes": plan.shortfall_bytes,
        "suggestions": list(plan.suggestions),
        "jobs": [
            {
                "name": p.job.name,
                "framework": p.job.framework,
                "budget_bytes": p.job.budget_bytes,
                "overhead_bytes": p.overhead_bytes,
                "need_bytes": p.need_bytes,
                "mig_instance": None
                if p.instance is None
                else {
                    "device": p.instance.device,
                    "gpu_instance_id": p.instance.gi,
                    "compute_instance_id": p.instance.ci,
                    "uuid": p.instance.uuid,
                },
                "env": [{"name": e.name, "value": e.value, "active": e.active, "comment": e.comment} for e in p.settings.env],
                "snippets": [{"framework": fw, "code": code} for fw, code in p.settings.snippets],
                "sources": list(p.settings.sources),
                "note": p.settings.note,
            }
            for p in plan.jobs
        ],
        "overheads": {
            k: {"bytes": o.bytes, "basis": o.basis, "sources": list(o.sources), "measured_here": False}
            for k, o in OVERHEADS.items()
        },
        "isolation": plan.isolation,
        "mig": None
        if fit is None
        else {
            "model": fit.row.model,
            "source": SOURCE_URL,
            "confidence": fit.row.confidence,
            "fits": fit.fits,
            "why_not": fit.why,
            "compute_slices": [fit.compute_used, fit.row.compute_slices],
            "memory_slices": [fit.memory_used, fit.row.memory_slices],
            "profiles": [{"job": job, "profile": p.name if p else None} for job, p in fit.choices],
        },
    }


# --- --watch ------------------------------------------------------------------------------------------


def watch(
    read: Callable[[], MemoryView],
    console: Any,
    interval_s: float,
    iterations: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], str] = lambda: time.strftime("%H:%M:%S"),
) -> int:
    """Redraw the view every `interval_s` until Ctrl-C (or `iterations` redraws, for tests); returns the redraw count.

    Ctrl-C is how a watch ends, not an error: it leaves the last view on screen and returns normally.
    Where the output is no terminal (`gpudoctor memory --watch | tee log`), every frame is written in
    full, one after another with a blank line between, as it is read: a redraw needs a terminal, and
    rich's live display would write only the last frame, at the end.
    """
    from rich.live import Live
    from rich.text import Text

    def frames(show: Callable[[list[str], int], None]) -> int:
        shown = 0
        try:
            while iterations is None or shown < iterations:
                show(view_lines(read(), now=clock(), width=console.width), shown)
                shown += 1
                if iterations is not None and shown >= iterations:
                    break
                sleep(interval_s)
        except KeyboardInterrupt:
            pass
        return shown

    if not console.is_terminal:

        def write(lines: list[str], shown: int) -> None:
            if shown:
                console.print()
            for line in lines:
                console.print(line, markup=False, highlight=False, soft_wrap=True)
            flush = getattr(console.file, "flush", None)
            if flush is not None:
                flush()  # each frame reaches the pipe now, not when the watch ends

        return frames(write)
    with Live(Text(""), console=console, auto_refresh=False, transient=False) as live:
        # One screen row per line, cut at the terminal's edge: a wrapped line would shift every redraw.
        return frames(lambda lines, _: live.update(Text("\n".join(lines), no_wrap=True, overflow="ellipsis"), refresh=True))
