"""GPU health: the PCIe link, ECC and memory-row failures, thermal and power slowdown, memory held by others."""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks import Check, Context, ev
from gpudoctor.checks.remedy import where_run
from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import Facts, Gpu
from gpudoctor.model import Finding, Remediation, Severity

# Slowdowns that mean the GPU is protecting itself, not merely idle or at its configured cap.
SLOWDOWNS = ("hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown")


def lspci_slot(bus_id: str | None) -> str | None:
    """NVML's bus id ("00000000:0B:00.0") as lspci -s takes it ("0000:0b:00.0"); None when it is not one.

    The value goes into the command as one argument either way; this only shortens NVML's 8-digit domain.
    """
    import re

    m = re.fullmatch(r"(?:([0-9A-Fa-f]{4,8}):)?([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-7])", (bus_id or "").strip())
    if not m:
        return None
    domain = (m.group(1) or "0000")[-4:]
    return f"{domain}:{m.group(2)}:{m.group(3)}.{m.group(4)}".lower()


def _pstate(g: Gpu) -> int | None:
    text = (g.performance_state or "").strip().upper()
    return int(text[1:]) if text[:1] == "P" and text[1:].isdigit() else None


def _busy(g: Gpu) -> bool:
    """Whether the GPU is working, judged on its activity, never on memory held: a notebook kernel that
    holds memory on a GPU parked in P8 keeps NVML's gpu_idle reason off, and the GPU is still idle.

    Idle: the gpu_idle clock reason, or a performance state of P5 and lower (clocks parked). Busy: a
    utilisation of 5% or more (even with no process visible, as from another container). Otherwise, with
    neither known, a process on it in P0-P2 (or in an unknown state)."""
    if "gpu_idle" in g.throttle_reasons:
        return False
    p = _pstate(g)
    if p is not None and p >= 5:
        return False
    if g.utilization_gpu_percent is not None and g.utilization_gpu_percent >= 5:
        return True
    return bool(g.processes) and (p is None or p <= 2)


def check_pcie(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Judged under load only: GPUs lower their link generation, and some their width, when idle
    to save power, so an idle reading below the maximum proves nothing. A narrow link at idle is
    worth a note (it may be the slot), a slow or narrow one while busy a warning."""
    for g in facts.driver.gpus:
        narrow = g.pcie_width_current is not None and g.pcie_width_max and g.pcie_width_current < g.pcie_width_max
        slow = g.pcie_gen_current is not None and g.pcie_gen_max and g.pcie_gen_current < g.pcie_gen_max
        busy = _busy(g)
        if not ((busy and (narrow or slow)) or narrow):
            continue
        parts = []
        if narrow:
            parts.append(f"width x{g.pcie_width_current} of x{g.pcie_width_max}")
        if slow and busy:
            parts.append(f"Gen{g.pcie_gen_current} of Gen{g.pcie_gen_max}")
        state = "while busy" if busy else "while idle"
        yield Finding(
            "pcie-link-degraded",
            Severity.WARNING if busy else Severity.INFO,
            "health",
            f"GPU {g.index}'s PCIe link runs below its maximum {state}: {', '.join(parts)}",
            (
                "Host<->device copies (data loading, checkpointing, multi-GPU without NVLink) slow down in proportion. "
                if busy
                else "Idle GPUs may narrow their link to save power, so this is only a lead: measure under load. "
            )
            + "Common causes of a real shortfall: the card in a slot wired for fewer lanes, a riser or a dirty contact, "
            "a BIOS lane split, or a link that trained down after an error.",
            (ev(g.source, f"gen {g.pcie_gen_current}/{g.pcie_gen_max}, width x{g.pcie_width_current}/x{g.pcie_width_max}"),),
            Remediation(
                "Measure it under load and compare with the link's figure; reseat or move the card if it stays low.",
                (
                    Cmd(("gpudoctor", "bench", "bandwidth")),
                    Cmd(
                        (
                            "nvidia-smi",
                            "-i",
                            str(g.index),
                            "--query-gpu=pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max",
                            "--format=csv",
                        )
                    ),
                    Cmd(
                        ("lspci", "-vv", "-s", lspci_slot(g.pci_bus_id) or Placeholder("bus-id")),
                        root=True,
                        pipe=("grep", "-E", "LnkCap|LnkSta"),
                    ),
                ),
                component="health",
            ),
        )


def check_ecc(facts: Facts, ctx: Context) -> Iterable[Finding]:
    for g in facts.driver.gpus:
        problems = []
        severity = Severity.WARNING
        if g.ecc_volatile_uncorrected:
            problems.append(f"{g.ecc_volatile_uncorrected} uncorrectable ECC error(s) since the last reset")
            severity = Severity.ERROR
        elif g.ecc_aggregate_uncorrected:
            problems.append(f"{g.ecc_aggregate_uncorrected} uncorrectable ECC error(s) over the GPU's lifetime")
        if g.retired_pages_pending:
            problems.append("retired pages pending a reset")
            severity = Severity.ERROR
        if g.remapped_rows_failure:
            problems.append("a row remapping failure")
            severity = Severity.ERROR
        elif g.remapped_rows_pending:
            problems.append("row remapping pending a reset")
        if not problems:
            continue
        yield Finding(
            "gpu-ecc-errors",
            severity,
            "health",
            f"GPU {g.index} reports memory errors: {'; '.join(problems)}",
            "Uncorrectable errors kill the process that hit them (Xid 48/63/64/94/95); pending retirement or "
            "remapping takes effect only after a GPU reset; a remapping failure means the GPU has run out of spare "
            "rows and should be replaced.",
            (ev(g.source, "; ".join(problems)),),
            Remediation(
                "Reset the GPU (or reboot) to apply pending retirement/remapping; if errors recur or remapping failed, "
                "drain the node and have the GPU replaced.",
                (
                    Cmd(("nvidia-smi", "-q", "-d", "ECC,PAGE_RETIREMENT,ROW_REMAPPER", "-i", str(g.index))),
                    Cmd(("nvidia-smi", "--gpu-reset", "-i", str(g.index)), root=True, note="no process may use this GPU"),
                ),
                requires_root=True,
                component="health",
                where=where_run(facts),
            ),
        )


def check_throttle(facts: Facts, ctx: Context) -> Iterable[Finding]:
    for g in facts.driver.gpus:
        active = [r for r in g.throttle_reasons if r in SLOWDOWNS]
        if not active:
            continue
        temp = f" at {g.temperature_c} °C" if g.temperature_c is not None else ""
        yield Finding(
            "gpu-throttled",
            Severity.WARNING,
            "health",
            f"GPU {g.index} is slowing itself down: {', '.join(active)}{temp}",
            "Thermal or power-brake slowdown cuts clocks sharply, so jobs run far slower than the GPU can. "
            "Usual causes: blocked airflow or failed fans, a hot room, a power supply or cable that cannot deliver.",
            (ev(g.source, ", ".join(g.throttle_reasons)),),
            Remediation(
                "Check cooling and power; watch the reasons while a job runs.",
                (Cmd(("nvidia-smi", "-q", "-d", "PERFORMANCE,TEMPERATURE,POWER", "-i", str(g.index))),),
                component="health",
            ),
        )


def check_memory_held(facts: Facts, ctx: Context) -> Iterable[Finding]:
    for g in facts.driver.gpus:
        total = g.memory_total_bytes
        if not total:
            continue
        by_procs = sum(p.used_bytes or 0 for p in g.processes)
        held = by_procs if by_procs else (g.memory_used_bytes or 0)
        if held < ctx.memory_held_share * total:
            continue
        top = sorted(g.processes, key=lambda p: -(p.used_bytes or 0))[:5]
        who = ", ".join(f"{p.name or '?'} (pid {p.pid}, {(p.used_bytes or 0) / 1024**3:.1f} GiB)" for p in top)
        yield Finding(
            "gpu-memory-held",
            Severity.WARNING,
            "memory",
            f"{held / total:.0%} of GPU {g.index}'s memory is held by other processes",
            f"{held / 1024**3:.1f} GiB of {total / 1024**3:.1f} GiB is in use"
            + (f" by {who}" if who else "")
            + ". A new job on this GPU can fail with CUDA out of memory although it needs less than the GPU has.",
            (ev(g.source, f"used {held} of {total} bytes"),),
            Remediation(
                "Stop what holds the memory if it should not, or share the GPU deliberately (limit each framework's share).",
                (
                    Cmd(("gpudoctor", "memory")),
                    Cmd(("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv", "-i", str(g.index))),
                ),
                component="memory",
            ),
        )


CHECKS = (
    Check("pcie-link", "health", ("pcie-link-degraded",), check_pcie),
    Check("ecc", "health", ("gpu-ecc-errors",), check_ecc),
    Check("throttle", "health", ("gpu-throttled",), check_throttle),
    Check("memory-held", "memory", ("gpu-memory-held",), check_memory_held),
)
