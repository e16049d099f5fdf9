"""Where a GPU sits: its NUMA node, the CPUs the benchmark ran on, the PCIe ports above it.

Everything is read through the Host seam (sysfs and /proc files), so a snapshot replays it;
the parsers are pure. A file that cannot be read leaves its field None: "could not tell" is
never turned into "fine".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor.bandwidth.results import Neighbour, Placement, PortLink
from gpudoctor.host import Host, HostError

_PCI_ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
_GT_S = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6, 128.0: 7}


def sysfs_address(bus_id: str | None) -> str | None:
    """NVML's '00000000:3B:00.0', CUDA's '0000:3B:00.0' or lspci's '3b:00.0' -> sysfs's '0000:3b:00.0'."""
    if not bus_id:
        return None
    text = bus_id.strip().lower()
    parts = text.split(":")
    if len(parts) == 2:
        parts = ["0000", *parts]
    if len(parts) != 3:
        return None
    domain, bus, devfn = parts
    try:
        domain = f"{int(domain, 16) & 0xFFFF:04x}"
    except ValueError:
        return None
    address = f"{domain}:{bus}:{devfn}"
    return address if _PCI_ADDRESS.match(address) else None


def parse_cpulist(text: str | None) -> frozenset[int]:
    """The kernel's cpulist format: '0-3,8-11,16' -> {0,1,2,3,8,9,10,11,16}; empty for empty text."""
    cpus: set[int] = set()
    for part in (text or "").strip().split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            low, _, high = part.partition("-")
            cpus.update(range(int(low), int(high) + 1))
        else:
            cpus.add(int(part))
    return frozenset(cpus)


def gen_from_speed(text: str | None) -> int | None:
    """sysfs link speed ('16.0 GT/s PCIe', '8 GT/s', '2.5 GT/s') -> PCIe generation; None if unknown."""
    if not text:
        return None
    match = re.search(r"([\d.]+)\s*GT/s", text)
    if not match:
        return None
    return _GT_S.get(float(match.group(1)))


def processor_from_stat(text: str) -> int | None:
    """Field 39 of /proc/PID/stat, the CPU the task last ran on (fields counted after the comm in parentheses)."""
    _, _, rest = text.rpartition(")")
    fields = rest.split()
    # rest starts at field 3 (state); field 39 is index 36.
    if len(fields) > 36 and fields[36].lstrip("-").isdigit():
        return int(fields[36])
    return None


def status_field(text: str, name: str) -> str | None:
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == name:
            return value.strip()
    return None


def pci_chain(real_path: str) -> tuple[str, ...]:
    """The PCI addresses along a resolved sysfs device path, root port first, the device itself last."""
    return tuple(part for part in real_path.split("/") if _PCI_ADDRESS.match(part))


def node_of_cpu(cpu: int | None, node_cpus: dict[int, frozenset[int]]) -> int | None:
    if cpu is None:
        return None
    for node, cpus in node_cpus.items():
        if cpu in cpus:
            return node
    return None


def _read(host: Host, path: str) -> str | None:
    try:
        return host.read_text(path, max_bytes=1024 * 1024).strip()
    except HostError:
        return None


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def read_port_link(host: Host, address: str, base: str | None = None) -> PortLink:
    """A port's link from its sysfs directory (`base`, else /sys/bus/pci/devices/ADDRESS)."""
    base = base or f"/sys/bus/pci/devices/{address}"
    return PortLink(
        address=address,
        gen_current=gen_from_speed(_read(host, f"{base}/current_link_speed")),
        width_current=_int(_read(host, f"{base}/current_link_width")),
        gen_max=gen_from_speed(_read(host, f"{base}/max_link_speed")),
        width_max=_int(_read(host, f"{base}/max_link_width")),
    )


def numa_nodes(host: Host) -> dict[int, frozenset[int]]:
    """Node number -> its CPUs, from /sys/devices/system/node; empty when unreadable."""
    try:
        names = host.list_dir("/sys/devices/system/node")
    except HostError:
        return {}
    nodes = {}
    for name in names:
        match = re.fullmatch(r"node(\d+)", name)
        if match:
            nodes[int(match.group(1))] = parse_cpulist(_read(host, f"/sys/devices/system/node/{name}/cpulist"))
    return nodes


def upstream_chain(host: Host, address: str | None) -> tuple[str, ...]:
    """PCI addresses from the root port down to (and including) the device; () when sysfs cannot say."""
    return tuple(a for a, _ in _chain_dirs(host, address))


def _chain_dirs(host: Host, address: str | None) -> list[tuple[str, str]]:
    """(address, its sysfs directory) from the root port down to the device."""
    if not address:
        return []
    real = host.realpath(f"/sys/bus/pci/devices/{address}")
    if not real:
        return []
    parts = real.split("/")
    return [(part, "/".join(parts[: i + 1])) for i, part in enumerate(parts) if _PCI_ADDRESS.match(part)]


def process_cpu_state(host: Host) -> tuple[str | None, int | None]:
    """(Cpus_allowed_list, the CPU last run on) of this process."""
    status = _read(host, "/proc/self/status")
    stat = _read(host, "/proc/self/stat")
    return (status_field(status, "Cpus_allowed_list") if status else None, processor_from_stat(stat) if stat else None)


def is_virtualized(host: Host) -> bool | None:
    """True where the CPU reports the `hypervisor` flag (x86 guests); None where there are no flags to read."""
    text = _read(host, "/proc/cpuinfo")
    if not text:
        return None
    flags = [line for line in text.splitlines() if line.startswith("flags")]
    if not flags:
        return None
    return "hypervisor" in flags[0].split()


def probe_placement(host: Host, address: str | None, others: Iterable[tuple[str, str | None, int]] = ()) -> Placement:
    """Where the GPU at `address` sits. `others`: (address, name, process count) of the machine's other GPUs."""
    nodes = numa_nodes(host)
    numa = _int(_read(host, f"/sys/bus/pci/devices/{address}/numa_node")) if address else None
    if numa is not None and numa < 0:
        numa = None  # -1: the firmware gives no affinity (one-node machines, many VMs)
    allowed, cpu = process_cpu_state(host)
    chain = _chain_dirs(host, address)
    bridges = chain[:-1]
    neighbours: list[Neighbour] = []
    if len(bridges) >= 3:
        # root port -> switch upstream port -> switch downstream port -> GPU: GPUs below the
        # same upstream port share its uplink.
        switch = bridges[1][0]
        for other_address, name, processes in others:
            if other_address and other_address != address and switch in upstream_chain(host, other_address)[:-1]:
                neighbours.append(Neighbour(other_address, name, processes))
    return Placement(
        numa_node=numa,
        numa_nodes=len(nodes) or None,
        node_cpus=_read(host, f"/sys/devices/system/node/node{numa}/cpulist") if numa is not None else None,
        process_cpus=allowed,
        ran_on_cpu=cpu,
        ran_on_node=node_of_cpu(cpu, nodes),
        upstream=tuple(read_port_link(host, a, d) for a, d in bridges),
        switch_neighbours=tuple(neighbours),
        virtualized=is_virtualized(host),
    )
