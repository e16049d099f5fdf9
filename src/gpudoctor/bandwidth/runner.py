"""One benchmark run on this machine: pick the GPUs, read their link and placement, measure.

The link facts come from the probe layer (NVML through the Host, nvidia-smi when NVML is not
usable), so `--replay FILE` can supply them from a snapshot; the copies themselves always run
on this machine through `cuda_driver`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from functools import partial
from typing import Any

from gpudoctor.bandwidth.cuda_driver import CudaDriver, CudaError, DriverUnavailable
from gpudoctor.bandwidth.measure import Step, measure_gpu, measure_peer
from gpudoctor.bandwidth.placement import (
    gen_from_speed,
    node_of_cpu,
    numa_nodes,
    probe_placement,
    process_cpu_state,
    sysfs_address,
)
from gpudoctor.bandwidth.results import TESTS, BenchPlan, BenchRun, GpuRun, LinkState, PeerRun
from gpudoctor.errors import UsageError
from gpudoctor.facts import DriverFacts, Gpu
from gpudoctor.host import Host, HostError

Progress = Callable[[str], None]  # called after each measured size, with a short description


def parse_tests(text: str) -> tuple[str, ...]:
    """`--tests`: 'all', or a comma list of h2d, d2h, h2d-pageable, d2h-pageable, d2d, bidir, p2p ('pageable' names both pageable ones)."""
    text = text.strip().lower()
    if text in ("", "all"):
        return TESTS
    wanted: set[str] = set()
    for part in text.split(","):
        part = part.strip()
        if part == "pageable":
            wanted |= {"h2d-pageable", "d2h-pageable"}
        elif part in TESTS:
            wanted.add(part)
        else:
            import difflib

            close = difflib.get_close_matches(part.lower(), [*TESTS, "pageable", "all"], n=1)
            raise UsageError(
                f"--tests: unknown test {part!r}",
                (f"did you mean {close[0]!r}? " if close else "") + f"choose from all, {', '.join(TESTS)}, pageable",
            )
    return tuple(t for t in TESTS if t in wanted)


def parse_gpu_selection(text: str) -> tuple[int, ...] | None:
    """`--gpu`: 'all' -> None (every GPU), '0,1' -> (0, 1). CUDA device ordinals, as in cuda:N."""
    text = text.strip().lower()
    if text in ("", "all"):
        return None
    ordinals: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit():
            raise UsageError(f"--gpu takes 'all' or device numbers such as 0,1; not {part!r}")
        if int(part) not in ordinals:
            ordinals.append(int(part))
    return tuple(ordinals)


def steps_for(plan: BenchPlan, gpus: int) -> int:
    """How many progress steps a run of `plan` on `gpus` GPUs takes (one per test and size)."""
    per_gpu = sum(1 for t in plan.tests if t != "p2p") * len(plan.sizes_bytes)
    pairs = gpus * (gpus - 1) if "p2p" in plan.tests else 0
    return gpus * per_gpu + pairs * len(plan.sizes_bytes)


def probe_driver_facts(host: Host, timeout_s: float) -> DriverFacts:
    """The GPUs as the probe layer sees them: NVML, and nvidia-smi only when NVML could not answer."""
    from gpudoctor.probes.driver import merge_driver, run_smi

    nvml = host.nvml(timeout_s)
    smi: dict[str, Any] = {"status": "skipped"} if nvml.get("status") == "ok" else run_smi(host, timeout_s)
    return merge_driver(nvml, smi)


def select_devices(drv: CudaDriver, selection: tuple[int, ...] | None) -> tuple[int, ...]:
    count = drv.device_count()
    if count == 0:
        raise DriverUnavailable(
            "no-device",
            "The NVIDIA driver sees no GPU; check CUDA_VISIBLE_DEVICES and, in a container, give it a GPU with --gpus all.",
        )
    if selection is None:
        return tuple(range(count))
    unknown = [o for o in selection if o >= count]
    if unknown:
        raise UsageError(
            f"--gpu {','.join(map(str, unknown))}: this process sees {count} GPU(s), numbered 0 to {count - 1}",
            "the numbers are CUDA device ordinals (as cuda:N), after CUDA_VISIBLE_DEVICES",
        )
    return selection


def link_state(gpu: Gpu | None) -> LinkState:
    if gpu is None:
        return LinkState()
    return LinkState(
        gen_current=gpu.pcie_gen_current,
        gen_max=gpu.pcie_gen_max,
        width_current=gpu.pcie_width_current,
        width_max=gpu.pcie_width_max,
        source=gpu.source,
    )


def read_link_now(host: Host, address: str | None) -> tuple[int | None, int | None]:
    """The GPU's negotiated link right now, from sysfs (cheap enough to read while copies run)."""
    if not address:
        return None, None
    base = f"/sys/bus/pci/devices/{address}"
    try:
        speed = host.read_text(f"{base}/current_link_speed").strip()
        width = host.read_text(f"{base}/current_link_width").strip()
    except HostError:
        return None, None
    return gen_from_speed(speed), int(width) if width.isdigit() else None


def run_benchmark(
    drv: CudaDriver,
    host: Host,
    plan: BenchPlan,
    ordinals: tuple[int, ...],
    facts: DriverFacts,
    progress: Progress = lambda _: None,
) -> BenchRun:
    """Measure every selected GPU, then every ordered pair for peer copies. One GPU's failure does not stop the others."""
    by_address = {sysfs_address(g.pci_bus_id): g for g in facts.gpus if g.pci_bus_id}
    # The other GPUs probe_placement can place: those with a sysfs address.
    others = [(a, g.name, _other_processes(g)) for g in facts.gpus if (a := sysfs_address(g.pci_bus_id))]
    own_pid = os.getpid()
    runs: list[GpuRun] = []
    for ordinal in ordinals:
        label = f"GPU {ordinal}"
        try:
            dev = drv.device(ordinal)
            name = drv.device_name(dev)
            address = sysfs_address(drv.device_pci_bus_id(dev))
        except CudaError as exc:
            runs.append(GpuRun(ordinal, None, None, error=str(exc)))
            continue
        gpu = by_address.get(address)
        placement = probe_placement(host, address, others)
        state = link_state(gpu)
        try:
            measurements, under_load = measure_gpu(
                drv,
                ordinal,
                plan,
                step=_reporting(progress, label),
                on_load=partial(read_link_now, host, address),
            )
        except CudaError as exc:
            runs.append(GpuRun(ordinal, name, address, gpu.index if gpu else None, state, placement, error=str(exc)))
            continue
        if under_load is not None:
            state = dataclasses.replace(state, gen_under_load=under_load[0], width_under_load=under_load[1])
        allowed, cpu = process_cpu_state(host)
        placement = dataclasses.replace(
            placement, process_cpus=allowed, ran_on_cpu=cpu, ran_on_node=node_of_cpu(cpu, numa_nodes(host))
        )
        runs.append(
            GpuRun(
                ordinal,
                name,
                address,
                gpu.index if gpu else None,
                state,
                placement,
                tuple(measurements),
                other_processes=_other_processes(gpu, own_pid) if gpu else 0,
            )
        )
    peers: list[PeerRun] = []
    if "p2p" in plan.tests and len(ordinals) > 1:
        for src in ordinals:
            for dst in ordinals:
                if src == dst:
                    continue
                try:
                    peers.append(measure_peer(drv, src, dst, plan, step=_reporting(progress, f"GPU {src}->{dst}")))
                except CudaError as exc:
                    peers.append(PeerRun(src, dst, error=str(exc)))
    return BenchRun(
        plan=plan,
        gpus=tuple(runs),
        peers=tuple(peers),
        driver_version=_quiet(drv.driver_version),
        library=drv.path,
        entry_points=dict(drv.entry_points),
        machine=host.platform().get("machine"),
        host_mode=host.mode,
    )


def _reporting(progress: Progress, label: str) -> Step:
    """A step callback that reports `LABEL TEST`; made per GPU (or pair), so it holds its own label."""
    return lambda test, _size: progress(f"{label} {test}")


def _other_processes(gpu: Gpu, own_pid: int | None = None) -> int:
    return sum(1 for p in gpu.processes if p.pid != own_pid)


def _quiet(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except CudaError:
        return None


def measure_here(
    host: Host,
    plan: BenchPlan,
    selection: tuple[int, ...] | None,
    timeout_s: float,
    progress: Callable[[int], Any] | None = None,
    candidates: tuple[str, ...] | None = None,
) -> BenchRun:
    """Open the driver (DriverUnavailable when there is none), read the link facts, measure.

    `progress(total_steps)` returns a context manager yielding the per-step callback.
    """
    drv = CudaDriver.open(candidates)
    ordinals = select_devices(drv, selection)
    facts = probe_driver_facts(host, timeout_s)
    if progress is None:
        return run_benchmark(drv, host, plan, ordinals, facts)
    with progress(steps_for(plan, len(ordinals))) as advance:
        return run_benchmark(drv, host, plan, ordinals, facts, advance)


def relink(run: BenchRun, host: Host, timeout_s: float) -> BenchRun:
    """Recorded results with the link and placement facts of `host` (a replayed snapshot), matched by PCI address.

    What only the recording knows (the link under load, the CPU the benchmark ran on) is kept.
    """
    facts = probe_driver_facts(host, timeout_s)
    by_address = {sysfs_address(g.pci_bus_id): g for g in facts.gpus if g.pci_bus_id}
    # The other GPUs probe_placement can place: those with a sysfs address.
    others = [(a, g.name, _other_processes(g)) for g in facts.gpus if (a := sysfs_address(g.pci_bus_id))]
    gpus = []
    for gpu in run.gpus:
        found = by_address.get(sysfs_address(gpu.pci_bus_id))
        if found is None:
            gpus.append(gpu)
            continue
        state = dataclasses.replace(
            link_state(found), gen_under_load=gpu.link.gen_under_load, width_under_load=gpu.link.width_under_load
        )
        placement = probe_placement(host, sysfs_address(gpu.pci_bus_id), others)
        placement = dataclasses.replace(
            placement,
            process_cpus=gpu.placement.process_cpus,
            ran_on_cpu=gpu.placement.ran_on_cpu,
            ran_on_node=gpu.placement.ran_on_node,
        )
        gpus.append(
            dataclasses.replace(gpu, name=gpu.name or found.name, nvml_index=found.index, link=state, placement=placement)
        )
    return dataclasses.replace(run, gpus=tuple(gpus), host_mode=host.mode)
