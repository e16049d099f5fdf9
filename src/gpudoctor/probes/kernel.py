"""The kernel side: the loaded NVIDIA module, nouveau, device nodes, and GPUs on the PCI bus."""

from __future__ import annotations

from gpudoctor.errors import ParseError
from gpudoctor.facts import DeviceNode, KernelFacts, PciGpu
from gpudoctor.host import Host, HostError
from gpudoctor.probed import Found, Probed, Unknown
from gpudoctor.probes.common import absent_or_unknown, probe_command

NVIDIA_VENDOR = "0x10de"
PCI_ROOT = "/sys/bus/pci/devices"
# Display controllers (0x03xxxx) are GPUs; NVSwitch bridges (0x0680xx) and the
# HDMI audio function (0x0403xx) sit on the bus too and are not.
GPU_CLASS_PREFIX = "0x03"


def probe_proc_driver(host: Host) -> Probed:
    path = "/proc/driver/nvidia/version"
    try:
        text = host.read_text(path)
    except HostError as exc:
        return absent_or_unknown(exc, f"file:{path}", "no NVIDIA kernel module is loaded")
    from gpudoctor.parsers.proc_driver_version import parse_proc_driver_version  # (only where a module is loaded)

    try:
        return Found(parse_proc_driver_version(text), f"file:{path}")
    except ParseError as exc:
        return Unknown("unparseable", exc.message, f"file:{path}")


def probe_module_version(host: Host) -> Probed:
    path = "/sys/module/nvidia/version"
    try:
        text = host.read_text(path).strip()
    except HostError as exc:
        return absent_or_unknown(exc, f"file:{path}", "the nvidia module is not loaded")
    return Found(text, f"file:{path}") if text else Unknown("unparseable", "empty file", f"file:{path}")


def loaded_modules(host: Host) -> tuple[bool | None, bool | None]:
    try:
        text = host.read_text("/proc/modules")
    except HostError:
        return None, None
    names = {line.split(" ", 1)[0] for line in text.splitlines() if line}
    return "nvidia" in names, "nouveau" in names


def device_nodes(host: Host) -> tuple[DeviceNode, ...]:
    try:
        names = host.list_dir("/dev")
    except HostError:
        return ()
    nodes = []
    for name in names:
        if name.startswith("nvidia") or name == "dxg":
            info = host.stat(f"/dev/{name}")
            if info.kind == "dir":  # /dev/nvidia-caps holds MIG capability nodes
                continue
            nodes.append(DeviceNode(f"/dev/{name}", info.kind, info.readable, info.writable))
    return tuple(nodes)


def probe_pci(host: Host, timeout_s: float) -> Probed:
    """NVIDIA display devices from sysfs; `lspci -nn` names them, or stands in without sysfs."""
    try:
        slots = host.list_dir(PCI_ROOT)
    except HostError as exc:
        if exc.missing:
            return _pci_from_lspci(host, timeout_s)
        return Unknown("permission" if exc.code == "EACCES" else "failed", str(exc), f"dir:{PCI_ROOT}")
    gpus = []
    for slot in slots:
        base = f"{PCI_ROOT}/{slot}"
        vendor = (host.read_text_or_none(f"{base}/vendor") or "").strip()
        if vendor != NVIDIA_VENDOR:
            continue
        klass = (host.read_text_or_none(f"{base}/class") or "").strip()
        if klass and not klass.startswith(GPU_CLASS_PREFIX):
            continue
        device = (host.read_text_or_none(f"{base}/device") or "").strip() or None
        driver_link = host.stat(f"{base}/driver")
        driver = driver_link.target.rstrip("/").rsplit("/", 1)[-1] if driver_link.target else None
        gpus.append(PciGpu(slot, device, klass or None, None, driver))
    if gpus:
        names = _lspci_names(host, timeout_s)
        gpus = [PciGpu(g.slot, g.device_id, g.class_code, names.get(_short_slot(g.slot)), g.kernel_driver) for g in gpus]
    return Found(tuple(gpus), f"dir:{PCI_ROOT}")


def _short_slot(slot: str) -> str:
    # sysfs says 0000:65:00.0; lspci drops the 0000: domain.
    return slot[5:] if slot.startswith("0000:") else slot


def _lspci_names(host: Host, timeout_s: float) -> dict[str, str]:
    from gpudoctor.parsers.lspci import parse_lspci

    result = host.run(["lspci", "-nn"], timeout_s)
    if not result.ok:
        return {}
    try:
        devices = parse_lspci(result.stdout)
    except ParseError:
        return {}
    return {_short_slot(d.slot): d.name for d in devices if d.name}


def _pci_from_lspci(host: Host, timeout_s: float) -> Probed:
    from gpudoctor.parsers.lspci import nvidia_devices, parse_lspci

    def gpus(text: str) -> tuple[PciGpu, ...]:
        return tuple(
            PciGpu(d.slot, d.device_id, d.class_code, d.name, d.kernel_driver)
            for d in nvidia_devices(parse_lspci(text))
            if not d.class_code or d.class_code.startswith("03")
        )

    return probe_command(
        host,
        [["lspci", "-nnk"], ["lspci", "-nn"], ["lspci"]],
        timeout_s,
        gpus,
        Unknown("not-recorded", "neither /sys/bus/pci nor lspci is available", ""),
    )


def probe_kernel(host: Host, timeout_s: float) -> KernelFacts:
    nvidia, nouveau = loaded_modules(host)
    return KernelFacts(
        proc_driver=probe_proc_driver(host),
        module_version=probe_module_version(host),
        nvidia_loaded=nvidia,
        nouveau_loaded=nouveau,
        device_nodes=device_nodes(host),
        pci=probe_pci(host, timeout_s),
        run_installer=host.exists(RUN_UNINSTALLER),
        lspci=host.which("lspci") is not None,
    )


RUN_UNINSTALLER = "/usr/bin/nvidia-uninstall"  # installed by NVIDIA's .run driver installer, by nothing else
