"""Judging measured bandwidth against the link: the `bandwidth-low` finding and its likely causes. Pure.

The rule, per GPU and per direction (host to device, device to host), on pinned memory:
- the judged figure is the best median at transfer sizes of 32 MiB and above, where a copy is
  bound by the link rather than by per-copy overhead;
- it is low when below the lowest figure healthy systems reach on this link (the matrix's
  `practical_low`, about 0.70-0.79 of theoretical), or, where the matrix has no measured figure
  for the link, below `suspicious_below_share` (0.5) of theoretical;
- pageable copies are judged only against pinned ones: below `pageable_share_low` (0.2) of the
  pinned figure is worth knowing (a note), since 0.2-0.6 is normal.

The causes are the ones this machine shows (a link trained below its maximum, the benchmark on
the far NUMA node, a narrower or busy switch uplink, other processes on the GPU, a virtual
machine), each with the check that tells it apart from the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpudoctor.bandwidth.expected import Expectation, LinkSpec, LinkTable, expectation_for, expected_for_test
from gpudoctor.bandwidth.placement import parse_cpulist
from gpudoctor.bandwidth.results import TEST_TITLES, BenchRun, GpuRun, Measurement
from gpudoctor.bandwidth.sizes import MIB, format_size
from gpudoctor.cmdline import Arg, Cmd, Line, Placeholder
from gpudoctor.model import Evidence, Finding, Remediation, Severity

CODE = "bandwidth-low"
CORRUPT_CODE = "bandwidth-copy-corrupt"
AREA = "health"
LINK_BOUND_BYTES = 32 * MIB  # from here up a copy is bound by the link, not by per-copy overhead
MIN_JUDGED_BYTES = 4 * MIB  # below this no size says anything about the link


@dataclass(frozen=True)
class Judged:
    """One GPU's figure for one test: the size it was taken at and how it compares."""

    test: str
    size_bytes: int
    median_gb_per_s: float
    theoretical_gb_per_s: float | None
    practical_gb_per_s: float | None
    low_bound_gb_per_s: float | None  # below this, bandwidth-low
    status: str  # ok, low, unjudged

    @property
    def share_of_theoretical(self) -> float | None:
        if not self.theoretical_gb_per_s:
            return None
        return self.median_gb_per_s / self.theoretical_gb_per_s

    def to_json(self) -> dict[str, Any]:
        share = self.share_of_theoretical
        return {
            "test": self.test,
            "size_bytes": self.size_bytes,
            "median_gb_per_s": round(self.median_gb_per_s, 3),
            "theoretical_gb_per_s": _r(self.theoretical_gb_per_s),
            "practical_gb_per_s": _r(self.practical_gb_per_s),
            "low_bound_gb_per_s": _r(self.low_bound_gb_per_s),
            "share_of_theoretical": None if share is None else round(share, 4),
            "status": self.status,
        }


@dataclass
class Judgement:
    expectations: dict[int, Expectation] = field(default_factory=dict)  # by CUDA ordinal
    judged: dict[int, dict[str, Judged]] = field(default_factory=dict)  # ordinal -> test -> figure
    findings: list[Finding] = field(default_factory=list)
    sources: tuple[str, ...] = ()


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def link_figure(measurements: tuple[Measurement, ...] | list[Measurement], test: str) -> Measurement | None:
    """The measurement a test is judged on: the best median at >= 32 MiB, else at the largest size >= 4 MiB."""
    rows = [m for m in measurements if m.test == test]
    bound = [m for m in rows if m.size_bytes >= LINK_BOUND_BYTES]
    if bound:
        return max(bound, key=lambda m: (m.summary.median, m.size_bytes))
    usable = [m for m in rows if m.size_bytes >= MIN_JUDGED_BYTES]
    return max(usable, key=lambda m: m.size_bytes) if usable else None


def gpu_expectation(table: LinkTable, gpu: GpuRun) -> Expectation:
    gen_now = gpu.link.gen_under_load or gpu.link.gen_current
    width_now = gpu.link.width_under_load or gpu.link.width_current
    if gpu.link.gen_under_load is None and gpu.link.width_under_load is None:
        # At rest a GPU reports a lower generation to save power; only the width says anything then.
        gen_now = gpu.link.gen_max
    return expectation_for(table, gpu.name, gpu.link.gen_max, gpu.link.width_max, gen_now, width_now)


def judge_run(run: BenchRun, table: LinkTable) -> Judgement:
    out = Judgement()
    sources: list[str] = []
    for gpu in run.gpus:
        exp = gpu_expectation(table, gpu)
        out.expectations[gpu.ordinal] = exp
        if gpu.error is not None or not gpu.measurements:
            continue
        spec = exp.best
        figures: dict[str, Judged] = {}
        for test in ("h2d", "d2h", "h2d-pageable", "d2h-pageable", "bidir"):
            m = link_figure(gpu.measurements, test)
            if m is None:
                continue
            theoretical, practical = expected_for_test(spec, test)
            low_bound = _low_bound(table, spec, test, figures)
            median = m.summary.median
            status = "unjudged" if low_bound is None else ("low" if median < low_bound else "ok")
            figures[test] = Judged(test, m.size_bytes, median, theoretical, practical, low_bound, status)
        out.judged[gpu.ordinal] = figures
        finding = _bandwidth_low(table, gpu, exp, figures)
        if finding is not None:
            out.findings.append(finding)
            sources += [s for s in finding.sources if s not in sources]
        corrupt = _corrupt(gpu.measurements, f"GPU {gpu.ordinal}")
        if corrupt is not None:
            out.findings.append(corrupt)
    for peer in run.peers:
        corrupt = _corrupt(peer.measurements, f"GPU {peer.src} to GPU {peer.dst}")
        if corrupt is not None:
            out.findings.append(corrupt)
    out.sources = tuple(sources)
    return out


def _low_bound(table: LinkTable, spec: LinkSpec | None, test: str, figures: dict[str, Judged]) -> float | None:
    if test in ("h2d", "d2h"):
        if spec is None:
            return None
        if spec.practical_low_gb_per_s is not None:
            return spec.practical_low_gb_per_s
        return table.threshold("suspicious_below_share") * spec.theoretical_gb_per_s
    if test.endswith("-pageable"):
        pinned = figures.get(test.split("-")[0])
        return table.threshold("pageable_share_low") * pinned.median_gb_per_s if pinned else None
    return None  # bidirectional: shown beside the theoretical figure, not judged


def _gbs(value: float | None) -> str:
    return "?" if value is None else f"{value:.1f} GB/s"


def _range(spec: LinkSpec) -> str:
    low, high = spec.practical_low_gb_per_s, spec.practical_high_gb_per_s
    if low is not None and high is not None:
        return f"{low:.1f}-{high:.1f} GB/s"
    if spec.practical_gb_per_s is not None:
        return f"about {spec.practical_gb_per_s:.1f} GB/s"
    return f"at least half of {spec.theoretical_gb_per_s:.1f} GB/s"


@dataclass(frozen=True)
class Cause:
    key: str  # link-trained-down, far-numa-node, numa-unpinned, switch-uplink, switch-busy, gpu-busy, virtual-machine
    text: str
    check: str
    commands: tuple[Line, ...] = ()
    fix: str = ""


# Commands as data (gpudoctor.cmdline): bus ids and indexes read from the machine stay single arguments.
_TOPO = Cmd(("nvidia-smi", "topo", "-m"))


def _link_query(idx: int) -> Cmd:
    return Cmd(
        (
            "nvidia-smi",
            "-i",
            str(idx),
            "--query-gpu=pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max",
            "--format=csv",
        )
    )


def _lnk(bus: Arg) -> Cmd:
    return Cmd(("lspci", "-vv", "-s", bus), root=True, pipe=("grep", "-E", "LnkCap|LnkSta"))


def likely_causes(table: LinkTable, gpu: GpuRun, exp: Expectation, measured: float | None) -> list[Cause]:
    """What on this machine can hold host copies back, strongest first, each with its telling check."""
    causes: list[Cause] = []
    best = exp.best
    idx = gpu.nvml_index if gpu.nvml_index is not None else gpu.ordinal
    bus = gpu.pci_bus_id or Placeholder("pci-bus-id")
    link = gpu.link
    if (
        best is not None
        and best.kind == "pcie"
        and exp.trained is not None
        and exp.trained.theoretical_gb_per_s < best.theoretical_gb_per_s
    ):
        trained = exp.trained
        how = "under load" if link.gen_under_load is not None else "as NVML reports it"
        explains = ""
        if (
            measured is not None
            and trained.practical_low_gb_per_s is not None
            and measured >= 0.9 * trained.practical_low_gb_per_s
        ):
            explains = f" The measured figure is what {trained.label} gives, so the link alone explains it."
        causes.append(
            Cause(
                "link-trained-down",
                f"The link trained to {trained.label} ({how}), below its maximum {best.label}: "
                f"{trained.theoretical_gb_per_s:.1f} instead of {best.theoretical_gb_per_s:.1f} GB/s.{explains} "
                "A card not fully seated, a riser or an x8 slot, a slot bifurcated or capped in the BIOS, or link errors cause it.",
                "read the link while copies run (GPUs drop the generation at idle); LnkSta below LnkCap confirms it",
                (_link_query(idx), _lnk(bus)),
                fix="reseat the card, move it to an x16 slot without a riser, and check the slot's PCIe generation and bifurcation in the BIOS",
            )
        )
    p = gpu.placement
    if p.numa_node is not None and (p.numa_nodes or 0) > 1:
        node_cpus = parse_cpulist(p.node_cpus)
        allowed = parse_cpulist(p.process_cpus)
        pin = Cmd(
            (
                "numactl",
                f"--cpunodebind={p.numa_node}",
                f"--membind={p.numa_node}",
                "gpudoctor",
                "bench",
                "bandwidth",
                "--gpu",
                str(gpu.ordinal),
                "--tests",
                "h2d,d2h",
            )
        )
        if p.ran_on_node is not None and p.ran_on_node != p.numa_node:
            causes.append(
                Cause(
                    "far-numa-node",
                    f"The benchmark ran on CPU {p.ran_on_cpu} of NUMA node {p.ran_on_node}, but the GPU hangs off node "
                    f"{p.numa_node}: pinned memory lands on the node that allocates it, so copies crossed the socket link.",
                    "run again bound to the GPU's node; if the figure recovers, placement was the cause",
                    (pin, _TOPO),
                    fix="bind the job to the GPU's NUMA node (numactl, taskset, or the launcher's CPU affinity)",
                )
            )
        elif node_cpus and allowed and not allowed <= node_cpus:
            causes.append(
                Cause(
                    "numa-unpinned",
                    f"The process may run on any of CPUs {p.process_cpus}, not only the GPU's node {p.numa_node} "
                    f"({p.node_cpus}); host memory may sit on the far node.",
                    "run again bound to the GPU's node and compare",
                    (pin, _TOPO),
                    fix="bind the job to the GPU's NUMA node (numactl, taskset, or the launcher's CPU affinity)",
                )
            )
    if best is not None and best.kind == "pcie":
        for port in p.upstream:
            gen = port.gen_max or port.gen_current
            width = port.width_current or port.width_max
            if not gen or not width:
                continue
            spec = table.pcie(gen, width)
            if spec is not None and spec.theoretical_gb_per_s < 0.99 * best.theoretical_gb_per_s:
                causes.append(
                    Cause(
                        "switch-uplink",
                        f"An upstream port ({port.address}) links at {spec.label}, narrower than the GPU's "
                        f"{best.label}: every copy to this GPU is capped at {spec.theoretical_gb_per_s:.1f} GB/s there.",
                        "compare the port's LnkSta with the GPU's; the tree shows what else hangs off that port",
                        (_lnk(port.address), Cmd(("lspci", "-tv"))),
                        fix="move the GPU to a slot whose path to the CPU is as wide as the GPU's link",
                    )
                )
                break
    busy = [n for n in p.switch_neighbours if n.processes > 0]
    if busy:
        names = ", ".join(f"{n.pci_bus_id} ({n.processes} process{'es' if n.processes != 1 else ''})" for n in busy)
        causes.append(
            Cause(
                "switch-busy",
                f"This GPU shares a PCIe switch uplink with {names}; their transfers split the uplink with ours.",
                "run again while the GPUs behind the same switch are idle; PIX/PXB in the topology shows who shares it",
                (_TOPO, Cmd(("nvidia-smi",))),
                fix="keep transfer-heavy jobs off GPUs that share a switch uplink, or accept the shared figure",
            )
        )
    if gpu.other_processes > 0:
        causes.append(
            Cause(
                "gpu-busy",
                f"{gpu.other_processes} other process(es) were using this GPU; their copies compete for the same link and copy engines.",
                "run again with the GPU idle",
                (Cmd(("nvidia-smi", "-i", str(idx))),),
                fix="measure, and run transfer-heavy jobs, while the GPU is not shared",
            )
        )
    if p.virtualized:
        causes.append(
            Cause(
                "virtual-machine",
                "This is a virtual machine: GPU passthrough (IOMMU translation, no ATS, an emulated PCIe topology) "
                "often lowers copy bandwidth, by half on some clouds.",
                "compare with the provider's figure for this instance type; the host's own figure would settle it",
                fix="compare with the provider's figure for this instance type and ask the provider if it is lower",
            )
        )
    return causes


def _bandwidth_low(table: LinkTable, gpu: GpuRun, exp: Expectation, figures: dict[str, Judged]) -> Finding | None:
    spec = exp.best
    low_pinned = [figures[t] for t in ("h2d", "d2h") if t in figures and figures[t].status == "low"]
    low_pageable = [figures[t] for t in ("h2d-pageable", "d2h-pageable") if t in figures and figures[t].status == "low"]
    if not low_pinned and not low_pageable:
        return None
    who = f"GPU {gpu.ordinal}" + (f" ({gpu.name})" if gpu.name else "")
    evidence: list[Evidence] = []
    lines: list[str] = []
    sources: list[str] = list(spec.sources) if spec else []
    commands: list[Line] = []
    if low_pinned:
        severity = Severity.WARNING
        assert spec is not None
        worst = min(low_pinned, key=lambda j: j.median_gb_per_s)
        reached = " and ".join(f"{j.median_gb_per_s:.1f} GB/s {TEST_TITLES[j.test].split(',')[0]}" for j in low_pinned)
        title = f"{who}: pinned copies reach {reached}; {spec.label} should give {_range(spec)}"
        for j in low_pinned:
            share = j.share_of_theoretical or 0.0
            lines.append(
                f"Pinned {TEST_TITLES[j.test].split(',')[0]}: {j.median_gb_per_s:.1f} GB/s at {format_size(j.size_bytes)}, "
                f"{share:.0%} of the {spec.theoretical_gb_per_s:.1f} GB/s theoretical figure of {spec.label}; "
                f"healthy systems reach {_range(spec)}."
            )
        if (worst.share_of_theoretical or 1.0) < table.threshold("suspicious_below_share"):
            lines.append("Below half the theoretical figure: something is wrong with the path, not merely slow.")
            sources += [s for s in table.threshold_sources("suspicious_below_share") if s not in sources]
        causes = likely_causes(table, gpu, exp, worst.median_gb_per_s)
    else:
        severity = Severity.INFO
        worst = min(low_pageable, key=lambda j: j.median_gb_per_s)
        title = f"{who}: pageable copies reach only {worst.median_gb_per_s:.1f} GB/s, under a fifth of pinned"
        causes = []
    for j in low_pageable:
        pinned = figures[j.test.split("-")[0]]
        lines.append(
            f"Pageable {TEST_TITLES[j.test].split(',')[0]}: {j.median_gb_per_s:.1f} GB/s, "
            f"{j.median_gb_per_s / pinned.median_gb_per_s:.0%} of pinned (usually "
            f"{table.threshold('pageable_share_low'):.0%}-{table.threshold('pageable_share_high'):.0%}): the driver's staging "
            "copy through host memory is slow (memory bandwidth, CPU power state, or the far NUMA node). Use pinned "
            "memory for transfers that matter (DataLoader(pin_memory=True), cudaHostAlloc)."
        )
        sources += [s for s in table.threshold_sources("pageable_share_low") if s not in sources]
    if low_pinned:
        if causes:
            lines.append("Likely causes on this machine:")
            for i, cause in enumerate(causes, 1):
                lines.append(f"  {i}. {cause.text} Check: {cause.check}.")
                commands += [c for c in cause.commands if c not in commands]
        else:
            lines.append(
                "No cause is visible from here: the link reports its maximum, and no NUMA, switch or busy-GPU "
                "problem was seen. Check the link under load, the BIOS PCIe settings, and compare with a second run."
            )
            idx = gpu.nvml_index if gpu.nvml_index is not None else gpu.ordinal
            commands += [_link_query(idx), _TOPO]
    for j in low_pinned + low_pageable:
        m = next(x for x in gpu.measurements if x.test == j.test and x.size_bytes == j.size_bytes)
        s = m.summary
        evidence.append(
            Evidence(
                f"bench:{j.test}",
                f"median {s.median:.2f} GB/s at {format_size(m.size_bytes)} ({s.n} samples, spread {s.spread_share:.1%})",
            )
        )
    link = gpu.link
    evidence.append(
        Evidence(
            link.source or "nvml",
            f"link Gen{link.gen_current or '?'} x{link.width_current or '?'} at rest, max Gen{link.gen_max or '?'} "
            f"x{link.width_max or '?'}"
            + (
                f", under load Gen{link.gen_under_load or '?'} x{link.width_under_load or '?'}"
                if link.gen_under_load or link.width_under_load
                else ""
            ),
        )
    )
    p = gpu.placement
    if p.numa_node is not None:
        evidence.append(Evidence(f"file:/sys/bus/pci/devices/{gpu.pci_bus_id}/numa_node", str(p.numa_node)))
    if p.ran_on_cpu is not None:
        evidence.append(
            Evidence(
                "file:/proc/self/stat",
                f"ran on CPU {p.ran_on_cpu}" + (f" (node {p.ran_on_node})" if p.ran_on_node is not None else ""),
            )
        )
    if low_pinned and causes:
        summary = (
            "Run the checks below to tell the causes apart; then "
            + "; or ".join(dict.fromkeys(c.fix for c in causes if c.fix))
            + "; and run the benchmark again."
        )
    elif low_pinned:
        summary = "Read the link under load and check the BIOS PCIe settings (generation, bifurcation, ASPM); then run the benchmark again."
    else:
        summary = "Use pinned host memory for the transfers that matter."
    return Finding(
        CODE,
        severity,
        AREA,
        title,
        "\n".join(lines),
        tuple(evidence),
        Remediation(
            summary, tuple(commands), requires_root=any(isinstance(c, Cmd) and c.root for c in commands), component="health"
        ),
        tuple(sources),
    )


def _corrupt(measurements: tuple[Measurement, ...], who: str) -> Finding | None:
    bad = [m for m in measurements if m.verified is False]
    if not bad:
        return None
    listing = ", ".join(f"{TEST_TITLES[m.test]} at {format_size(m.size_bytes)}" for m in bad)
    return Finding(
        CORRUPT_CODE,
        Severity.ERROR,
        AREA,
        f"{who}: data copied did not arrive intact",
        f"--verify copied a known pattern and read it back; it differed after: {listing}. "
        "A fast wrong copy is no copy: suspect the GPU memory, the PCIe link (look for AER errors) or the driver.",
        tuple(Evidence(f"bench:{m.test}", f"verify failed at {format_size(m.size_bytes)}") for m in bad),
        Remediation(
            "Look for Xid and AER errors in the kernel log, check ECC counters, and run the GPU vendor's diagnostics.",
            (
                Cmd(("dmesg",), root=True, pipe=("grep", "-Ei", "xid|aer|nvrm")),
                Cmd(("nvidia-smi", "-q", "-d", "ECC,PAGE_RETIREMENT,ROW_REMAPPER")),
            ),
            requires_root=True,
            component="health",
        ),
    )
