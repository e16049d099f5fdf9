"""Showing a judged run: the results table, the terminal chart, the chart data, the JSON document."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gpudoctor import __version__
from gpudoctor.bandwidth.chart import ChartData, RefLine, Series, render_text_chart
from gpudoctor.bandwidth.expected import expected_for_test
from gpudoctor.bandwidth.judge import Judgement, link_figure
from gpudoctor.bandwidth.results import SCHEMA, TEST_SHORT, TESTS, BenchRun, Measurement
from gpudoctor.bandwidth.sizes import format_size
from gpudoctor.model import ExitCode
from gpudoctor.render.terminal import render_finding, say
from gpudoctor.sanitize import clean_line

if TYPE_CHECKING:  # rich loads only when a terminal table is drawn
    from rich.console import JustifyMethod

_STATUS_STYLE = {"ok": "green", "low": "yellow", "unjudged": "dim"}


def charts_for(run: BenchRun, judgement: Judgement) -> list[ChartData]:
    """One chart per GPU for the host link (its copies by size, the link's figures as lines), one for
    device-to-device copies (an order of magnitude faster, they would flatten the others) and one for peers."""
    charts = []
    on_device = []
    for gpu in run.gpus:
        if not gpu.measurements:
            continue
        series = []
        for test in TESTS:
            points = tuple(sorted((m.size_bytes, m.summary.median) for m in gpu.measurements if m.test == test))
            if not points:
                continue
            if test == "d2d":
                on_device.append(Series(f"GPU {gpu.ordinal}", points))
            else:
                series.append(Series(TEST_SHORT[test], points))
        exp = judgement.expectations.get(gpu.ordinal)
        spec = exp.best if exp else None
        lines = []
        if spec is not None:
            lines.append(RefLine(f"{spec.label} one-way max", spec.theoretical_gb_per_s, "theoretical"))
            if spec.practical_gb_per_s is not None:
                lines.append(RefLine("healthy pinned", spec.practical_gb_per_s, "practical"))
        if series:
            title = f"GPU {gpu.ordinal}" + (f" {gpu.name}" if gpu.name else "") + ": host<->GPU bandwidth by transfer size"
            charts.append(ChartData(title, tuple(series), tuple(lines)))
    if on_device:
        charts.append(ChartData("Device to device: bandwidth by transfer size", tuple(on_device)))
    peer_series = [
        Series(f"{p.src}->{p.dst}", tuple(sorted((m.size_bytes, m.summary.median) for m in p.measurements)))
        for p in run.peers
        if p.measurements
    ]
    if peer_series:
        charts.append(ChartData("Peer to peer: bandwidth by transfer size", tuple(peer_series)))
    return charts


def _expected_text(theoretical: float | None, practical: float | None, low: float | None, high: float | None) -> str:
    if theoretical is None:
        return "-"
    if low is not None and high is not None:
        return f"{low:.1f}-{high:.1f} (max {theoretical:.1f})"
    if practical is not None:
        return f"~{practical:.1f} (max {theoretical:.1f})"
    return f"max {theoretical:.1f}"


def render_text(run: BenchRun, judgement: Judgement, console: Any, verbose: bool = False, unicode: bool | None = None) -> None:
    """The table of results with the expected figure beside each, the chart, then the findings."""
    from rich.markup import escape
    from rich.table import Table

    if unicode is None:
        unicode = (getattr(console, "encoding", "") or "").lower().startswith("utf")
    mode = {"replay": " (link facts from a replayed snapshot)", "recorded": " (recorded results)"}.get(run.host_mode, "")
    console.print(f"[bold]gpudoctor bench bandwidth[/bold]{mode}")
    for gpu in run.gpus:
        exp = judgement.expectations.get(gpu.ordinal)
        spec = exp.best if exp else None
        head = f"GPU {gpu.ordinal}" + (f" {gpu.name}" if gpu.name else "") + (f" [{gpu.pci_bus_id}]" if gpu.pci_bus_id else "")
        link = gpu.link
        if link.gen_max is None and link.width_max is None and link.gen_current is None:
            link_text = "PCIe link not reported (NVML unavailable)"
        else:
            link_text = (
                f"link Gen{link.gen_current or '?'} x{link.width_current or '?'} (max Gen{link.gen_max or '?'} x{link.width_max or '?'}"
                + (
                    f", under load Gen{link.gen_under_load or '?'} x{link.width_under_load or '?'}"
                    if link.gen_under_load or link.width_under_load
                    else ""
                )
                + ")"
            )
        judged_by = f"judged against {spec.label}" if spec else "no link figure to judge against"
        console.print()
        say(console, f"[bold]{escape(head)}[/bold]: {escape(link_text)}; {escape(judged_by)}", hang=2)
        if gpu.error:
            say(console, f"[red]could not measure: {escape(gpu.error)}[/red]", "  ", hang=2)
            continue
        table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("test", "left"),
            ("at size", "right"),
            ("median GB/s", "right"),
            ("spread", "right"),
            ("expected GB/s", "right"),
            ("of max", "right"),
            ("", "left"),
        )
        for column, justify in columns:
            table.add_column(column, justify=justify, no_wrap=True)
        figures = judgement.judged.get(gpu.ordinal, {})
        for test in TESTS:
            if test == "p2p":
                continue
            m = figures.get(test)
            chosen = (
                link_figure(gpu.measurements, test)
                if m is None
                else next((x for x in gpu.measurements if x.test == test and x.size_bytes == m.size_bytes), None)
            )
            if chosen is None:
                chosen = _largest(gpu.measurements, test)
            if chosen is None:
                continue
            s = chosen.summary
            if m is not None and test.endswith("-pageable"):
                expected = f">={m.low_bound_gb_per_s:.1f}" if m.low_bound_gb_per_s else "-"  # a fifth of pinned
            elif test in ("h2d", "d2h") and spec is not None:
                expected = _expected_text(
                    spec.theoretical_gb_per_s, spec.practical_gb_per_s, spec.practical_low_gb_per_s, spec.practical_high_gb_per_s
                )
            else:
                theoretical, _ = expected_for_test(spec, test)
                expected = _expected_text(theoretical, None, None, None)
            theoretical, _ = expected_for_test(spec, test)
            share = f"{s.median / theoretical:.0%}" if theoretical else ""
            status = m.status if m is not None else "unjudged"
            mark = {"ok": "ok", "low": "LOW", "unjudged": ""}[status]
            if chosen.verified is False:
                mark = (mark + " CORRUPT").strip()
            elif chosen.verified is True and all(x.verified for x in gpu.measurements if x.test == test):
                mark = (mark + " verified").strip()
            style = "red" if "CORRUPT" in mark else _STATUS_STYLE[status]
            table.add_row(
                TEST_SHORT[test],
                format_size(chosen.size_bytes),
                f"{s.median:.2f}",
                f"{s.spread_share:.1%}",
                expected,
                share,
                f"[{style}]{mark}[/]" if mark else "",
            )
        console.print(table)
        if verbose:
            _print_sizes(console, gpu.measurements)
    for peer in run.peers:
        if peer.measurements:
            best = link_figure(peer.measurements, "p2p") or _largest(peer.measurements, "p2p")
            if best is not None:
                console.print(
                    f"Peer GPU {escape(str(peer.src))} -> GPU {escape(str(peer.dst))}: {best.summary.median:.2f} GB/s at {format_size(best.size_bytes)}"
                    + (" [red]CORRUPT[/]" if any(m.verified is False for m in peer.measurements) else "")
                )
        else:
            say(
                console,
                f"Peer GPU {escape(str(peer.src))} -> GPU {escape(str(peer.dst))}: {escape(peer.error or peer.note or 'not measured')}",
                hang=2,
            )
    for chart in charts_for(run, judgement):
        console.print()
        for line in render_text_chart(chart, unicode=unicode):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    console.print()
    if not judgement.findings:
        judged_link = any(j.status != "unjudged" for f in judgement.judged.values() for t, j in f.items() if t in ("h2d", "d2h"))
        if judged_link:
            console.print("[green]Host<->GPU bandwidth is what the link should give.[/]")
        else:
            console.print(
                "[dim]The link was not judged: no PCIe generation and width from NVML, or no transfer size of 4 MiB or more.[/dim]"
            )
    for finding in judgement.findings:
        render_finding(console, finding, verbose, indent="")
    if judgement.findings:
        console.print("Details of any code: gpudoctor explain CODE")


def _largest(measurements: tuple[Measurement, ...], test: str) -> Measurement | None:
    rows = [m for m in measurements if m.test == test]
    return max(rows, key=lambda m: m.size_bytes) if rows else None


def _print_sizes(console: Any, measurements: tuple[Measurement, ...]) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False, box=None, header_style="dim")
    for column in ("test", "size", "copies", "median", "min", "max", "spread", "timer"):
        table.add_column(column, justify="left" if column in ("test", "timer") else "right")
    for m in measurements:
        s = m.summary
        table.add_row(
            TEST_SHORT[m.test],
            format_size(m.size_bytes),
            str(m.copies_per_sample),
            f"{s.median:.2f}",
            f"{s.minimum:.2f}",
            f"{s.maximum:.2f}",
            f"{s.spread_share:.1%}",
            escape(clean_line(m.timer)),  # a table cell is read as markup, and the safe console cleans print()'s strings only
        )
    console.print(table)


def bench_document(run: BenchRun, judgement: Judgement, exit_code: ExitCode) -> dict[str, Any]:
    """The JSON document: the run (raw samples and machine state), what was expected, the findings."""
    worst = max((f.severity for f in judgement.findings), default=None)
    errors = [f"GPU {g.ordinal}: {g.error}" for g in run.gpus if g.error] + [
        f"GPU {p.src}->{p.dst}: {p.error}" for p in run.peers if p.error
    ]
    doc = run.to_json()
    for gpu_doc, gpu in zip(doc["gpus"], run.gpus, strict=True):
        exp = judgement.expectations.get(gpu.ordinal)
        gpu_doc["expected"] = exp.best.to_json() if exp and exp.best else None
        gpu_doc["expected_trained"] = exp.trained.to_json() if exp and exp.trained else None
        gpu_doc["judged"] = {t: j.to_json() for t, j in judgement.judged.get(gpu.ordinal, {}).items()}
    doc.update(
        {
            "schema": SCHEMA,
            "tool_version": __version__,
            "status": "doctor-error" if errors else ("healthy" if worst is None else worst.label),
            "exit_code": int(exit_code),
            "errors": errors,
            "findings": [f.to_json() for f in judgement.findings],
        }
    )
    return doc


def render_json(run: BenchRun, judgement: Judgement, exit_code: ExitCode) -> str:
    return json.dumps(bench_document(run, judgement, exit_code), indent=2, sort_keys=True) + "\n"


def error_document(message: str, hint: str | None, exit_code: ExitCode, reason: str | None = None) -> str:
    """What --format json prints when nothing could be measured."""
    doc = {
        "schema": SCHEMA,
        "tool_version": __version__,
        "status": "doctor-error",
        "exit_code": int(exit_code),
        "error": {"message": message, "hint": hint, "reason": reason},
        "gpus": [],
        "findings": [],
    }
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"
