"""GPU health: a GPU lost to the driver, the PCIe link, ECC and memory-row failures, thermal and power slowdown,
memory held by others."""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import Facts, Gpu
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.remedy import where_run

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
    return int(text[1:]) if text[:1] == "P" and text[1:].isdigit() and int(text[1:]) <= 15 else None  # P32: NVML_PSTATE_UNKNOWN


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


# NVIDIA's Xid catalog, Xid 79 (ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS): logged when the driver finds the
# GPU not accessible over PCI Express; immediate action RESTART_BM (restart the machine), then CONTACT_SUPPORT.
SOURCE_XID_CATALOG = "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"

# What NVML's error for a GPU's handle means (NVML API reference, nvmlDeviceGetHandleByIndex_v2).
_LOST_MEANING = {
    "gpu_is_lost": "the GPU has fallen off the bus or is otherwise inaccessible",
    "insufficient_power": "its external power cables are not attached or not seated properly",
    "irq_issue": "the kernel driver detected an interrupt problem with it",
}


def lost_fix(facts: Facts, bus_id: str | None, why: str | None) -> Remediation:
    """What to do for a GPU the driver cannot reach: the same steps for NVML's, nvidia-smi's and the kernel log's word.

    A GPU that fell off the bus does not answer a GPU reset (`nvidia-smi --gpu-reset` needs the GPU reachable
    and unused): NVIDIA's catalog says restart the machine. The crash state is collected first, while the module
    that holds it is still loaded (Linux: nvidia-bug-report.sh, the kernel log, lspci; Windows has none of them)."""
    import dataclasses

    from gpudoctor.planner.remedy import reboot

    slot = lspci_slot(bus_id)
    power = why == "insufficient_power"
    restart = tuple(dataclasses.replace(c, note="drain the node first on a cluster") for c in reboot(facts))
    windows = (facts.platform.system or "").lower().startswith("win")
    if windows:
        diagnose: tuple[Cmd, ...] = (Cmd(("nvidia-smi",)),)
    else:
        diagnose = (
            Cmd(("nvidia-bug-report.sh",), root=True, note="writes nvidia-bug-report.log.gz here; before the reboot"),
            Cmd(("dmesg",), root=True, pipe=("grep", "-i", "-E", "nvrm|xid|aer:")),
            *((Cmd(("lspci", "-s", slot), note="'(rev ff)': the GPU does not answer on the bus"),) if slot else ()),
        )
    return Remediation(
        (
            "Attach and seat the GPU's external power cables (with the machine off), then start it again."
            if power
            else (
                "Restart the machine"
                if windows
                else "Collect the driver's state (nvidia-bug-report.sh, before the module is unloaded) and read the "
                "kernel log for Xid 79, then reboot the machine"
            )
            + ": a GPU that fell off the bus comes back only after a restart, not with nvidia-smi --gpu-reset. If it "
            "happens again, check its power cables and supply, its cooling, and reseat it (and any riser); if it still "
            "recurs, have it replaced."
        ),
        (*diagnose, *restart),
        requires_root=True,
        component="health",
        where=where_run(facts),
    )


def _lost_detail(why: str | None, said: str) -> str:
    meaning = _LOST_MEANING.get(why or "")
    return (
        f"{said}{': ' + meaning if meaning else ''}. No program can use this GPU until it is back, and nvidia-smi "
        "fails on it ('Unable to determine the device handle'). "
        + (
            ""
            if why == "insufficient_power"
            else "The kernel log usually shows Xid 79, 'GPU has fallen off the bus': the driver found the GPU "
            "unreachable over PCI Express, most often a failing PCIe link (slot, riser, power delivery), else failing "
            "GPU hardware or a driver problem (NVIDIA's Xid catalog). Only a restart of the machine brings it back."
        )
    ).rstrip()


def check_lost(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A GPU the driver has lost: NVML's handle (or a field) answers GPU_IS_LOST or another error, or nvidia-smi
    says it could not get the device handle of a GPU it names by bus id.

    NVML cannot give the bus id of a GPU it has no handle for; it is nvidia-smi's (which names it), else the one
    NVIDIA GPU on the PCI bus that no GPU NVML gave a bus id for sits at (the kernel keeps a GPU that fell off the
    bus listed). A GPU lost partway through NVML's reading may have given its bus id first: that slot is its own."""
    from gpudoctor.checks.driver import pci_gpus

    d = facts.driver
    answered = {lspci_slot(g.pci_bus_id) for g in d.gpus if g.pci_bus_id}
    handles: tuple[tuple[str, str], ...] = ()
    if d.smi_error_kind == "gpu-lost":
        from gpudoctor.parsers.error_texts import lost_gpu_handles  # (dozens of patterns: only for nvidia-smi's words)

        handles = lost_gpu_handles(d.smi_error or "")
    smi_named = [(bus, why) for bus, why in handles if lspci_slot(bus) not in answered]
    # NO_PERMISSION for a handle is this user's access, not the GPU (device-nodes-missing judges the nodes).
    lost = [g for g in d.gpus if g.lost and g.lost_error != "no_permission"]
    unplaced = [g for g in lost if not g.pci_bus_id]
    spare = [p.slot for p in pci_gpus(facts) or () if p.kernel_driver in (None, "nvidia") and lspci_slot(p.slot) not in answered]
    for g in lost:
        evidence = [ev(g.source, f"GPU {g.index}: {(g.lost_error or 'lost').upper()}")]
        bus = g.pci_bus_id
        if bus is None and len(unplaced) == 1 and len(smi_named) == 1:
            bus = smi_named[0][0]
            evidence.append(ev("cmd:nvidia-smi", f"Unable to determine the device handle for GPU {bus}: {smi_named[0][1]}"))
        elif bus is None and len(unplaced) == 1 and len(spare) == 1:
            bus = spare[0]
            evidence.append(ev(f"file:/sys/bus/pci/devices/{bus}", "the NVIDIA GPU on the bus that NVML does not answer for"))
        at = f" ({bus})" if bus else ""
        yield Finding(
            "gpu-lost",
            Severity.ERROR,
            "health",
            f"GPU {g.index}{at} is lost: the driver cannot reach it",
            _lost_detail(g.lost_error, f"NVML answers {(g.lost_error or 'an error').upper()} for GPU {g.index}{at}"),
            tuple(evidence),
            lost_fix(facts, bus, g.lost_error),
        )
    if lost:
        return
    # NVML did not say (unavailable, or a pasted report): nvidia-smi's own words, one finding per GPU it names.
    if d.smi_error_kind == "gpu-lost" and not handles:  # "GPU is lost" without a bus id
        smi_named = [("", (d.smi_error or "").strip().splitlines()[0][:200] if d.smi_error else "")]
    for bus, why in smi_named:
        said = "nvidia-smi could not get the device handle of " + (f"the GPU at {bus} ('{why}')" if bus else f"a GPU ('{why}')")
        reason = "insufficient_power" if "insufficiently powered" in why else "gpu_is_lost" if "lost" in why.lower() else None
        yield Finding(
            "gpu-lost",
            Severity.ERROR,
            "health",
            f"the GPU at {bus} is lost: the driver cannot reach it" if bus else "a GPU is lost: the driver cannot reach it",
            _lost_detail(reason, said),
            (ev("cmd:nvidia-smi", (d.smi_error or "").strip()[:300]),),
            lost_fix(facts, bus or None, reason),
        )


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


def _unnamed_holders(facts: Facts, by_procs: int) -> tuple[Cmd, ...]:
    """On this machine gpudoctor's own memory view names the holders; a pasted report's reader has no gpudoctor. Where
    the text names no process (the memory read from nvidia-smi's total or an out-of-memory message), the holder may be
    one nvidia-smi cannot name (another container's PID namespace, a zombie): fuser lists every process that has the
    driver's control device or its unified-memory device open, as CUDA programs do (fuser(1), psmisc: -v names the
    user and command; only root sees other users' processes)."""
    if not facts.pasted.partial or by_procs:
        return ()
    return (Cmd(("fuser", "-v", "/dev/nvidiactl", "/dev/nvidia-uvm"), root=True, note="on the host, not in a container"),)


def check_memory_held(facts: Facts, ctx: Context) -> Iterable[Finding]:
    for g in facts.driver.gpus:
        total = g.memory_total_bytes
        if not total:
            continue
        by_procs = sum(p.used_bytes or 0 for p in g.processes)
        if facts.pasted.partial and not by_procs and g.source == "nvidia-smi" and g.mig_devices is None:
            # A pasted table cut before its "Processes:" section (the table parser counts MIG devices only where the
            # text reached that section or the MIG one before it: parsers/nvidia_smi_text.py's mig_shown): nothing
            # says who holds the memory, and the program the reporter runs (a server holding its model,
            # tests/blind/plans12/cases/1233-*) is as likely as another. A table that shows its process list and no
            # process holding the memory (a zombie context, tests/pasted/cases/fastmri-238-*) still says so.
            continue
        held = by_procs if by_procs else (g.memory_used_bytes or 0)
        if held < ctx.memory_held_share * total:
            continue
        top = sorted(g.processes, key=lambda p: -(p.used_bytes or 0))[:5]
        who = ", ".join(f"{p.name or '?'} (pid {p.pid}, {(p.used_bytes or 0) / 1024**3:.1f} GiB)" for p in top)
        # Graphics processes (type G: the display server, the desktop, a browser) hold memory for as long as the
        # session runs; nvidia-smi's compute-apps query leaves them out, its table lists them.
        graphics = sum(p.used_bytes or 0 for p in g.processes if p.type == "G")
        yield Finding(
            "gpu-memory-held",
            Severity.WARNING,
            "memory",
            f"{held / total:.0%} of GPU {g.index}'s memory is held by other processes",
            f"{held / 1024**3:.1f} GiB of {total / 1024**3:.1f} GiB is in use"
            + (f" by {who}" if who else "")
            + ". A new job on this GPU can fail with CUDA out of memory although it needs less than the GPU has."
            + (
                f" Graphics processes (the display server, the desktop, a browser) hold {graphics / 1024**3:.1f} GiB of "
                "it for as long as the desktop session runs."
                if graphics
                else ""
            ),
            (ev(g.source, f"used {held} of {total} bytes"),),
            Remediation(
                "Stop what holds the memory if it should not, or share the GPU deliberately (limit each framework's share).",
                (
                    *(() if facts.pasted.partial else (Cmd(("gpudoctor", "memory")),)),
                    Cmd(("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv", "-i", str(g.index))),
                    *_unnamed_holders(facts, by_procs),
                    *(
                        (Cmd(("nvidia-smi", "-i", str(g.index)), note="its table lists the graphics processes too"),)
                        if graphics
                        else ()
                    ),
                ),
                component="memory",
            ),
        )


CHECKS = (
    Check("gpu-lost", "health", ("gpu-lost",), check_lost),
    Check("pcie-link", "health", ("pcie-link-degraded",), check_pcie),
    Check("ecc", "health", ("gpu-ecc-errors",), check_ecc),
    Check("throttle", "health", ("gpu-throttled",), check_throttle),
    Check("memory-held", "memory", ("gpu-memory-held",), check_memory_held),
)
