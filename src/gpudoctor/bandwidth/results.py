"""What a benchmark run produced, as plain data, and its JSON form (schema `gpudoctor.bandwidth/1`).

Only raw samples and the machine's state are stored; medians, expectations and findings are
derived again whenever a run is loaded (`--results FILE`), so a recorded run is re-judged with
the current rules. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpudoctor.bandwidth.sizes import DEFAULT_SIZES, MIB
from gpudoctor.bandwidth.stats import Summary, summarize
from gpudoctor.errors import InputError

SCHEMA = "gpudoctor.bandwidth/1"

# Test names, in display order. Pinned memory unless the name says pageable.
TESTS: tuple[str, ...] = ("h2d", "d2h", "h2d-pageable", "d2h-pageable", "d2d", "bidir", "p2p")
TEST_TITLES = {
    "h2d": "host to device, pinned",
    "d2h": "device to host, pinned",
    "h2d-pageable": "host to device, pageable",
    "d2h-pageable": "device to host, pageable",
    "d2d": "device to device",
    "bidir": "both directions at once, pinned",
    "p2p": "GPU to GPU (peer to peer)",
}
TEST_SHORT = {
    "h2d": "H2D pinned",
    "d2h": "D2H pinned",
    "h2d-pageable": "H2D pageable",
    "d2h-pageable": "D2H pageable",
    "d2d": "D2D",
    "bidir": "bidir pinned",
    "p2p": "P2P",
}


class ResultsError(InputError):
    """A results file that is not a bandwidth run gpudoctor wrote."""


@dataclass(frozen=True)
class BenchPlan:
    sizes_bytes: tuple[int, ...] = DEFAULT_SIZES
    tests: tuple[str, ...] = TESTS
    warmup: int = 2  # untimed batches before the timed ones, per size
    repeats: int = 10  # timed samples per size
    sample_bytes: int = 32 * MIB  # a sample of small copies repeats them until it moves about this much
    max_copies_per_sample: int = 512
    verify: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "sizes_bytes": list(self.sizes_bytes),
            "tests": list(self.tests),
            "warmup": self.warmup,
            "repeats": self.repeats,
            "sample_bytes": self.sample_bytes,
            "max_copies_per_sample": self.max_copies_per_sample,
            "verify": self.verify,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> BenchPlan:
        data = _obj(data, "plan")
        return cls(
            sizes_bytes=tuple(
                _count(s, "plan.sizes_bytes", positive=True)
                for s in _arr(data.get("sizes_bytes"), "plan.sizes_bytes") or DEFAULT_SIZES
            ),
            tests=tuple(_str(t, "plan.tests") for t in _arr(data.get("tests"), "plan.tests") or TESTS),
            warmup=_count(data.get("warmup", 2), "plan.warmup"),
            repeats=_count(data.get("repeats", 10), "plan.repeats"),
            sample_bytes=_count(data.get("sample_bytes", 32 * MIB), "plan.sample_bytes"),
            max_copies_per_sample=_count(data.get("max_copies_per_sample", 512), "plan.max_copies_per_sample"),
            verify=bool(data.get("verify", False)),
        )


@dataclass(frozen=True)
class Measurement:
    """One test at one size: the timed samples, each the bandwidth of one batch of copies."""

    test: str
    size_bytes: int
    samples_gb_per_s: tuple[float, ...]
    copies_per_sample: int = 1
    timer: str = "events"  # events (CUDA events on the GPU timeline) or host (wall clock; pageable copies)
    verified: bool | None = None  # None: --verify was not asked for

    @property
    def summary(self) -> Summary:
        return summarize(self.samples_gb_per_s)

    def to_json(self) -> dict[str, Any]:
        s = self.summary
        return {
            "test": self.test,
            "size_bytes": self.size_bytes,
            "copies_per_sample": self.copies_per_sample,
            "timer": self.timer,
            "samples_gb_per_s": [round(v, 4) for v in self.samples_gb_per_s],
            "median_gb_per_s": round(s.median, 3),
            "min_gb_per_s": round(s.minimum, 3),
            "max_gb_per_s": round(s.maximum, 3),
            "spread_share": round(s.spread_share, 4),
            "verified": self.verified,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Measurement:
        data = _obj(data, "a result")
        test = data.get("test")
        if not isinstance(test, str) or test not in TESTS:
            raise ResultsError(f"unknown test {test!r} in results", f"known tests: {', '.join(TESTS)}")
        samples = tuple(_bandwidth(v, test) for v in _arr(data.get("samples_gb_per_s"), f"a {test} result's samples"))
        if not samples:
            # A hand-written file may give only the median: one sample stands for it.
            if data.get("median_gb_per_s") is None:
                raise ResultsError(f"a {test} result has neither samples nor a median")
            samples = (_bandwidth(data["median_gb_per_s"], test),)
        return cls(
            test=test,
            size_bytes=_count(data.get("size_bytes"), f"a {test} result's size_bytes", positive=True),
            samples_gb_per_s=samples,
            copies_per_sample=_count(data.get("copies_per_sample", 1), f"a {test} result's copies_per_sample", positive=True),
            timer=_str(data.get("timer", "events"), f"a {test} result's timer"),
            verified=_opt_bool(data.get("verified"), f"a {test} result's verified"),
        )


@dataclass(frozen=True)
class LinkState:
    """The GPU's PCIe link as NVML (or sysfs) reported it; `*_under_load` read while copies ran."""

    gen_current: int | None = None
    gen_max: int | None = None
    width_current: int | None = None
    width_max: int | None = None
    gen_under_load: int | None = None
    width_under_load: int | None = None
    source: str | None = None  # nvml, nvidia-smi, sysfs, recorded

    def to_json(self) -> dict[str, Any]:
        return {
            "gen_current": self.gen_current,
            "gen_max": self.gen_max,
            "width_current": self.width_current,
            "width_max": self.width_max,
            "gen_under_load": self.gen_under_load,
            "width_under_load": self.width_under_load,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> LinkState:
        data = _obj(data, "link")
        return cls(
            **{
                k: _opt_int(data.get(k))
                for k in ("gen_current", "gen_max", "width_current", "width_max", "gen_under_load", "width_under_load")
            },
            source=_opt_str(data.get("source"), "link.source"),
        )


@dataclass(frozen=True)
class PortLink:
    """One PCIe port above the GPU (root port or switch port) and its link, from sysfs."""

    address: str
    gen_current: int | None = None
    width_current: int | None = None
    gen_max: int | None = None
    width_max: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "gen_current": self.gen_current,
            "width_current": self.width_current,
            "gen_max": self.gen_max,
            "width_max": self.width_max,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PortLink:
        data = _obj(data, "placement.upstream")
        return cls(
            address=_str(data.get("address", ""), "placement.upstream address"),
            **{k: _opt_int(data.get(k)) for k in ("gen_current", "width_current", "gen_max", "width_max")},
        )


@dataclass(frozen=True)
class Neighbour:
    """Another GPU behind the same PCIe switch; `processes` is how many ran on it when we looked."""

    pci_bus_id: str
    name: str | None = None
    processes: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"pci_bus_id": self.pci_bus_id, "name": self.name, "processes": self.processes}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Neighbour:
        data = _obj(data, "placement.switch_neighbours")
        return cls(
            _str(data.get("pci_bus_id", ""), "a neighbour's pci_bus_id"),
            _opt_str(data.get("name"), "a neighbour's name"),
            _count(data.get("processes") or 0, "a neighbour's processes"),
        )


@dataclass(frozen=True)
class Placement:
    """Where the GPU sits relative to the CPU that fed it. None means could not tell."""

    numa_node: int | None = None  # the GPU's node; None where sysfs says -1 (one node, or unknown)
    numa_nodes: int | None = None  # how many nodes this machine has
    node_cpus: str | None = None  # cpulist of the GPU's node
    process_cpus: str | None = None  # Cpus_allowed_list of the benchmark process
    ran_on_cpu: int | None = None  # the CPU the benchmark last ran on
    ran_on_node: int | None = None
    upstream: tuple[PortLink, ...] = ()  # root port first, the port just above the GPU last
    switch_neighbours: tuple[Neighbour, ...] = ()
    virtualized: bool | None = None  # a hypervisor flag in /proc/cpuinfo

    @property
    def behind_switch(self) -> bool:
        # root port -> switch upstream port -> switch downstream port -> GPU
        return len(self.upstream) >= 3

    def to_json(self) -> dict[str, Any]:
        return {
            "numa_node": self.numa_node,
            "numa_nodes": self.numa_nodes,
            "node_cpus": self.node_cpus,
            "process_cpus": self.process_cpus,
            "ran_on_cpu": self.ran_on_cpu,
            "ran_on_node": self.ran_on_node,
            "upstream": [p.to_json() for p in self.upstream],
            "switch_neighbours": [n.to_json() for n in self.switch_neighbours],
            "virtualized": self.virtualized,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Placement:
        data = _obj(data, "placement")
        return cls(
            numa_node=_opt_int(data.get("numa_node")),
            numa_nodes=_opt_int(data.get("numa_nodes")),
            node_cpus=_opt_str(data.get("node_cpus"), "placement.node_cpus"),
            process_cpus=_opt_str(data.get("process_cpus"), "placement.process_cpus"),
            ran_on_cpu=_opt_int(data.get("ran_on_cpu")),
            ran_on_node=_opt_int(data.get("ran_on_node")),
            upstream=tuple(PortLink.from_json(p) for p in _arr(data.get("upstream"), "placement.upstream")),
            switch_neighbours=tuple(
                Neighbour.from_json(n) for n in _arr(data.get("switch_neighbours"), "placement.switch_neighbours")
            ),
            virtualized=_opt_bool(data.get("virtualized"), "placement.virtualized"),
        )


@dataclass(frozen=True)
class GpuRun:
    ordinal: int  # CUDA device ordinal in this process (what --gpu names, and cuda:N in PyTorch)
    name: str | None
    pci_bus_id: str | None  # sysfs form, 0000:3b:00.0
    nvml_index: int | None = None  # nvidia-smi's index of the same GPU
    link: LinkState = LinkState()
    placement: Placement = Placement()
    measurements: tuple[Measurement, ...] = ()
    other_processes: int = 0  # processes NVML saw on this GPU besides the benchmark
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ordinal": self.ordinal,
            "name": self.name,
            "pci_bus_id": self.pci_bus_id,
            "nvml_index": self.nvml_index,
            "link": self.link.to_json(),
            "placement": self.placement.to_json(),
            "other_processes": self.other_processes,
            "results": [m.to_json() for m in self.measurements],
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GpuRun:
        data = _obj(data, "a gpus entry")
        return cls(
            ordinal=_count(data.get("ordinal", 0), "a GPU's ordinal"),
            name=_opt_str(data.get("name"), "a GPU's name"),
            pci_bus_id=_opt_str(data.get("pci_bus_id"), "a GPU's pci_bus_id"),
            nvml_index=_opt_int(data.get("nvml_index")),
            link=LinkState.from_json(data.get("link")),
            placement=Placement.from_json(data.get("placement")),
            measurements=tuple(Measurement.from_json(m) for m in _arr(data.get("results"), "a GPU's results")),
            other_processes=_count(data.get("other_processes") or 0, "a GPU's other_processes"),
            error=_opt_str(data.get("error"), "a GPU's error"),
        )


@dataclass(frozen=True)
class PeerRun:
    src: int
    dst: int
    measurements: tuple[Measurement, ...] = ()
    note: str | None = None  # why it was not measured (no peer access), when it was not
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "src": self.src,
            "dst": self.dst,
            "results": [m.to_json() for m in self.measurements],
            "note": self.note,
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PeerRun:
        data = _obj(data, "a peers entry")
        return cls(
            src=_count(data.get("src"), "a peer's src"),
            dst=_count(data.get("dst"), "a peer's dst"),
            measurements=tuple(Measurement.from_json(m) for m in _arr(data.get("results"), "a peer's results")),
            note=_opt_str(data.get("note"), "a peer's note"),
            error=_opt_str(data.get("error"), "a peer's error"),
        )


@dataclass(frozen=True)
class BenchRun:
    plan: BenchPlan
    gpus: tuple[GpuRun, ...]
    peers: tuple[PeerRun, ...] = ()
    driver_version: int | None = None  # cuDriverGetVersion: 12040 is CUDA 12.4
    library: str | None = None
    entry_points: dict[str, str] = field(default_factory=dict)
    machine: str | None = None  # uname machine: x86_64, aarch64
    host_mode: str = "live"  # where the link facts came from: live or replay
    provenance: str | None = None  # for recorded fixtures: how the numbers were obtained

    def to_json(self) -> dict[str, Any]:
        return {
            "plan": self.plan.to_json(),
            "driver": {"version": self.driver_version, "library": self.library, "entry_points": dict(self.entry_points)},
            "machine": self.machine,
            "host_mode": self.host_mode,
            "provenance": self.provenance,
            "gpus": [g.to_json() for g in self.gpus],
            "peers": [p.to_json() for p in self.peers],
        }

    @classmethod
    def from_json(cls, data: Any) -> BenchRun:
        if not isinstance(data, Mapping):
            raise ResultsError("a bandwidth results file must hold a JSON object")
        schema = data.get("schema")
        if schema is not None and schema != SCHEMA:
            raise ResultsError(f"results schema {schema!r} is not {SCHEMA!r}", "record it again with this gpudoctor")
        if not isinstance(data.get("gpus"), list):
            raise ResultsError("the results hold no `gpus` list", "write them with `gpudoctor bench bandwidth --format json`")
        try:
            driver = _obj(data.get("driver"), "driver")
            entry_points = _obj(driver.get("entry_points"), "driver.entry_points")
            return cls(
                plan=BenchPlan.from_json(data.get("plan")),
                gpus=tuple(GpuRun.from_json(g) for g in data["gpus"]),
                peers=tuple(PeerRun.from_json(p) for p in _arr(data.get("peers"), "peers")),
                driver_version=_opt_int(driver.get("version")),
                library=_opt_str(driver.get("library"), "driver.library"),
                entry_points={_str(k, "driver.entry_points"): _str(v, "driver.entry_points") for k, v in entry_points.items()},
                machine=_opt_str(data.get("machine"), "machine"),
                host_mode=_str(data.get("host_mode", "recorded"), "host_mode"),
                provenance=_opt_str(data.get("provenance"), "provenance"),
            )
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise ResultsError(f"malformed bandwidth results: {type(exc).__name__}: {exc}") from None


# Strict readers of a results file's fields: a value of the wrong type is a ResultsError naming the
# field (exit 3, one line), never an AttributeError far away in the judging or the rendering.


def _obj(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ResultsError(f"malformed bandwidth results: {where} must be an object, not {type(value).__name__}")
    return value


def _arr(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ResultsError(f"malformed bandwidth results: {where} must be a list, not {type(value).__name__}")
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ResultsError(f"malformed bandwidth results: {where} must be a string, not {type(value).__name__}")
    return value


def _opt_str(value: Any, where: str) -> str | None:
    return None if value is None else _str(value, where)


def _opt_bool(value: Any, where: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise ResultsError(f"malformed bandwidth results: {where} must be true, false or null")
    return value


def _count(value: Any, where: str, positive: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < (1 if positive else 0) or value >= 2**63:
        want = "a positive integer" if positive else "a non-negative integer"
        raise ResultsError(f"malformed bandwidth results: {where} must be {want}, not {value!r:.40}")
    return value


def _bandwidth(value: Any, test: str) -> float:
    # Finite (the JSON reader refuses NaN and Infinity) and positive: medians and spreads divide by them.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e9:
        raise ResultsError(f"malformed bandwidth results: a {test} sample must be a positive number of GB/s, not {value!r:.40}")
    return float(value)


def _opt_int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
