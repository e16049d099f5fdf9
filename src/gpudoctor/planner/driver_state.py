"""The NVIDIA driver as a plan changes it, for gpudoctor.planner.effects: the user-space build the packages put on disk,
the kernel module a reboot would load, and the facts the checks read once both are the same build.

A driver package installed or finished sets the user-space build at once (its libraries replace the old ones) and
leaves its kernel module pending; a reboot, or loading the module where none is loaded, activates the pending module.
Where the two are then one build, NVML and nvidia-smi answer again: the mismatch they printed is gone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from gpudoctor.facts import DeviceNode
from gpudoctor.parsers.proc_driver_version import KernelDriver
from gpudoctor.probed import Absent, Found, Probed
from gpudoctor.versions import version_key


@dataclass(frozen=True)
class DriverBuild:
    """One driver build as the plan knows it: its exact `version` where a command or the record names it; else its
    `branch` ("565") where a package name gives one, meaning the distribution's newest release of that branch on the
    day; else neither, meaning the build the packages of `origin` carry, whose version nothing recorded shows.
    Two builds are the same where their versions are, or (no version) where they come from the same step's packages."""

    version: str | None
    branch: str | None
    origin: str  # what put it there: "the machine", "step 2's nvidia-driver-535", "step 1's package repair"

    @property
    def said(self) -> str:
        if self.version:
            return self.version
        if self.branch:
            return f"the distribution's newest {self.branch} driver"
        return f"the driver {self.origin} installs"


# The driver's packages by their names: the ones that carry the kernel module (Ubuntu's nvidia-driver-N and
# nvidia-dkms-N, NVIDIA's repository's cuda-drivers and nvidia-open, Fedora's akmod-nvidia) and the user-space alone
# (Ubuntu's nvidia-utils-N and libnvidia-compute-N, the pair gpudoctor.planner.remedy.userspace_for_module installs at
# the loaded module's version), with the branch a name carries and the version a `=VERSION-*` pin names (apt's
# name=version).
_MODULE_PKG = re.compile(r"(nvidia-driver|nvidia-dkms|nvidia-open|cuda-drivers|akmod-nvidia|kmod-nvidia)")
_USERSPACE_PKG = re.compile(r"(nvidia-utils|libnvidia-compute|libnvidia-gl|nvidia-compute-utils)")
_BRANCH = re.compile(r"-(\d{3})(?:-open|-server|-server-open)?(?:[=:]|\Z)")
_PIN = re.compile(r"=(\d{3}\.\d+(?:\.\d+)?)")


def package_build(package: str, step: str) -> tuple[DriverBuild, bool] | None:
    """(the build a driver package installs, whether it carries the kernel module), or None for another package."""
    name = package.split("=")[0]
    module = bool(_MODULE_PKG.match(name))
    if not module and not _USERSPACE_PKG.match(name):
        return None
    pin = _PIN.search(package)
    branch = _BRANCH.search(package)
    version = pin.group(1) if pin else None
    return DriverBuild(version, version.split(".")[0] if version else branch.group(1) if branch else None, step), module


def _printed(version: Any) -> str | None:
    """A driver version as NVIDIA writes it: TensorFlow's cuda_diagnostics prints three numbers ("440.36.0",
    "515.48.7"); NVIDIA drops a third that is 0 and writes it with two digits (515.48.07). The same reading as the
    mismatch check's (gpudoctor.checks.driver, a layer above)."""
    if not version:
        return None
    parts = str(version).split(".")
    if len(parts) == 3 and parts[2].isdigit():
        parts = parts[:2] if int(parts[2]) == 0 else [*parts[:2], f"{int(parts[2]):02d}"]
    return ".".join(parts)


def recorded(facts: Any) -> tuple[str | None, str | None]:
    """(the loaded kernel module's version, the user-space library's) as the record shows them: /proc/driver/nvidia
    and /sys/module, the versions a pasted mismatch message states (the kernel log's NVRM "API mismatch", libcuda's
    "kernel version ... does not match DSO version"), the NVML library version a mismatch error names, NVML's own."""
    said = next(
        (e for e in facts.pasted.errors if e.kind in ("nvrm-api-mismatch", "libcuda-kernel-mismatch") and e.get("kernel")
         and e.get("client")),
        None,
    )  # fmt: skip
    k = facts.kernel
    kernel = (
        k.proc_driver.value.version
        if isinstance(k.proc_driver, Found)
        else k.module_version.value
        if isinstance(k.module_version, Found)
        else _printed(said.get("kernel"))
        if said
        else None
    )
    d = facts.driver
    library = _printed(said.get("client")) if said else None
    for text in (d.smi_error, d.nvml_error):
        if library is None and text and "nvml library version" in text.lower():
            from gpudoctor.parsers.error_texts import extract_nvml_library_version

            library = extract_nvml_library_version(text)
    if library is None and d.nvml_version:
        library = d.nvml_version.split(".", 1)[1] if "." in d.nvml_version else d.nvml_version
    return kernel, library or d.nvml_driver_version or d.smi_driver_version


def mismatched(facts: Any) -> bool:
    """NVML or nvidia-smi said the driver's library and kernel module are different versions."""
    d = facts.driver
    return d.nvml_status == "lib_rm_version_mismatch" or d.smi_error_kind == "driver-library-mismatch"


def finished(facts: Any, step: str) -> DriverBuild | None:
    """The build an interrupted driver upgrade leaves once finished (dpkg --configure -a, apt-get install --fix-broken),
    on a machine whose driver library and module differ: the newer of the two, the version the upgrade was going to
    (libraries newer: the unpacked module is configured and built at their version; module newer: the libraries its
    packages depend on, exactly its version, are installed). Where the record shows neither version, the build the
    unpacked packages carry. None where the machine shows no mismatch: which packages were interrupted is not known."""
    if not mismatched(facts):
        return None
    kernel, library = recorded(facts)
    known = [v for v in (kernel, library) if v and version_key(v)]
    if len(known) == 2:
        newer = max(known, key=version_key)
        return DriverBuild(newer, newer.split(".")[0], step)
    return DriverBuild(None, None, step)


def on_disk(facts: Any, read_modinfo: bool) -> DriverBuild | None:
    """The module a reboot loads where no step of the plan changed it: on a mismatch whose libraries are newer than the
    loaded module (an upgrade without a reboot), or whose versions the record does not show, the libraries' build,
    once the plan has read the module on disk (`modinfo -F version nvidia`: its reboot is for that case, the other one
    its prose's package repair). None where that is not known: a loaded module newer than the libraries is no upgrade a
    reboot completes."""
    if not read_modinfo or not mismatched(facts):
        return None
    kernel, library = recorded(facts)
    if kernel and library and version_key(kernel) and version_key(library):
        if version_key(library) <= version_key(kernel):
            return None
        return DriverBuild(library, library.split(".")[0], "the machine")
    if kernel and not library:
        return None  # the libraries' version is the unknown one: the module read on disk may be either
    return DriverBuild(library, library.split(".")[0] if library else None, "the machine")


# The pasted texts of a driver that did not answer (gpudoctor.parsers.error_texts): the kernel log's and libcuda's
# statements of two versions, modprobe's "Module nvidia not found", and any error whose text classifies as a mismatch,
# a driver nvidia-smi cannot reach, one not loaded, or NVML's library not found ("Failed to initialize NVML:
# Driver/library version mismatch", nvidia-container-cli's "nvml error: ...", "NVIDIA-SMI has failed because it
# couldn't communicate with the NVIDIA driver"). A loaded module whose user-space is its own build prints none again.
_UNANSWERED_KINDS = frozenset({"nvrm-api-mismatch", "libcuda-kernel-mismatch", "nvidia-module-missing"})
_UNANSWERED_CODES = frozenset({"driver-library-mismatch", "driver-unreachable", "driver-not-loaded", "nvml-library-missing"})


def _unanswered(e: Any) -> bool:
    from gpudoctor.parsers.error_texts import classify_error_text

    return e.kind in _UNANSWERED_KINDS or classify_error_text(e.line or "") in _UNANSWERED_CODES


def _nodes(facts: Any) -> tuple[DeviceNode, ...]:
    """The device nodes once the module answers: the ones recorded, and the ones the driver's user-space creates when it
    first needs them where missing (nvidia-modprobe(1): "used by user-space NVIDIA driver components to make sure the
    NVIDIA kernel module is loaded and that the NVIDIA character device files are present", forked by them "when
    needed"; https://www.mankier.com/1/nvidia-modprobe): /dev/nvidiactl, /dev/nvidiaN for each GPU on the bus (one
    where the bus was not read), /dev/nvidia-uvm for CUDA; mode 0666, the driver's default (NVreg_DeviceFileMode).
    In a container the nodes are the runtime's: as recorded."""
    nodes = facts.kernel.device_nodes
    if facts.platform.container:
        return nodes
    pci = facts.kernel.pci
    count = max(1, len(pci.value)) if isinstance(pci, Found) else 1
    have = {n.path for n in nodes}
    wanted = ("/dev/nvidiactl", *(f"/dev/nvidia{i}" for i in range(count)), "/dev/nvidia-uvm")
    return nodes + tuple(DeviceNode(p, "char", True, True) for p in wanted if p not in have)


def consistent(facts: Any, build: DriverBuild) -> Any:
    """The facts of a machine whose loaded module and user-space library are both `build`: NVML and nvidia-smi answer
    (at its version where known), the mismatch texts are gone. The GPUs NVML then lists were never reported: the ones
    the record shows stay."""
    k = facts.kernel
    v = build.version
    proc: Probed
    module: Probed
    if v:
        old = k.proc_driver.value if isinstance(k.proc_driver, Found) else None
        proc = (
            Found(replace(old, version=v, nvrm_line=""), "plan")
            if old is not None
            else Found(KernelDriver(v, None, None, None, None, None, None, None, ""), "plan")
        )
        module = Found(v, "plan")
    else:
        proc = Absent(f"{build.said}: its version was not recorded", "plan")
        module = Absent(f"{build.said}: its version was not recorded", "plan")
    kernel = replace(k, proc_driver=proc, module_version=module, nvidia_loaded=True, device_nodes=_nodes(facts))
    if isinstance(k.pci, Found) and not k.nouveau_loaded:
        # With nouveau kept out, the NVIDIA module binds each NVIDIA GPU on the bus that no other driver holds.
        gpus = tuple(replace(g, kernel_driver="nvidia") if g.kernel_driver in (None, "nouveau") else g for g in k.pci.value)
        kernel = replace(kernel, pci=Found(gpus, k.pci.source))
    d = facts.driver
    driver = replace(d, nvml_status="ok", nvml_error=None, nvml_driver_version=v, nvml_version=None,
                     smi_status="ok" if d.smi_status == "failed" else d.smi_status, smi_error=None, smi_error_kind=None,
                     smi_driver_version=v if d.smi_status in ("ok", "failed") else d.smi_driver_version)  # fmt: skip
    errors = tuple(e for e in facts.pasted.errors if not _unanswered(e))
    return replace(facts, kernel=kernel, driver=driver, pasted=replace(facts.pasted, errors=errors))


# --- the steps --------------------------------------------------------------------------------------


@dataclass
class Driver:
    """The driver as the plan goes: the module loaded, the user-space build on disk, the module a reboot would load
    (None: the one loaded; the module on disk was not changed by the plan)."""

    loaded: DriverBuild | None
    userspace: DriverBuild | None
    pending: DriverBuild | None = None
    finished: bool = False  # an interrupted upgrade was finished: a second finish command adds nothing
    unloaded: bool = False  # rmmod took the module out: the next modprobe loads the one on disk


def start(facts: Any) -> Driver:
    """The driver the record shows: each side at its recorded version (None where neither shows one)."""
    kernel, library = recorded(facts)
    loaded = DriverBuild(kernel, kernel.split(".")[0], "the machine") if kernel else None
    userspace = DriverBuild(library, library.split(".")[0], "the machine") if library else None
    return Driver(loaded, userspace)


def same(a: DriverBuild | None, b: DriverBuild | None) -> bool:
    """Whether two builds are one: the same version, or (no version known) from the same step's packages."""
    if a is None or b is None:
        return False
    if a.version or b.version:
        return bool(a.version and b.version and version_key(a.version) == version_key(b.version))
    return a == b


def settle(facts: Any, driver: Driver) -> Any:
    """The facts once the loaded module and the user-space are one build: consistent (see `consistent`); else as they
    were (a mismatch stays)."""
    if same(driver.loaded, driver.userspace):
        assert driver.loaded is not None
        return consistent(facts, driver.userspace if driver.userspace and driver.userspace.version else driver.loaded)
    return facts
