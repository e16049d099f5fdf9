"""The GPU and its driver: is there a GPU, is the NVIDIA driver loaded and reachable, and do its parts agree.

These checks are the root of the diagnosis: when one of them fires, the
driver-dependent checks elsewhere find no driver version and stay silent,
so a missing driver is said once, not ten times.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import DKMS_SAID, MODULE_KEY_REFUSED, NVIDIA_RUNTIME_SAID, STALE_CONTAINER, Facts, absence_known
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.remedy import (
    apt_install,
    container_gpu_commands,
    container_of,
    container_setup_alternative,
    driver_install,
    driver_install_and_reboot,
    enroll_module_key,
    family,
    installed_driver_packages,
    package_repair,
    reboot,
    recreate_container,
    reload_modules,
    restart_container,
    ubuntu_archive,
    userspace_for_module,
    where_run,
)
from gpudoctor.probed import Found, Unknown
from gpudoctor.versions import major, vkey

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# NVML states that mean "there is no usable user-space driver library here".
NO_LIBRARY = ("library_not_found",)


def _is_windows(facts: Facts) -> bool:
    """gpudoctor.planner.plan_state.is_windows, imported only when asked: plan_state and the planner's actions it
    imports are six dataclasses that only the finding for an unreachable driver asks for here (bench/README.md)."""
    from gpudoctor.planner.plan_state import is_windows

    return is_windows(facts)


def driver_cuda(facts: Facts, matrix: Any = None) -> tuple[str | None, bool]:
    """The newest CUDA the driver supports, and whether the matrix gave it: as the driver reports it (NVML's
    cuDriverGetVersion, nvidia-smi's header), else from the compatibility matrix for its version (R470 -> 11.4:
    collect_env shows the driver's version only). One answer for the status line and every finding that states it.
    `matrix` is a Matrix or a function that loads one, called only when the driver did not say."""
    d = facts.driver
    if d.cuda_version:
        return d.cuda_version, False
    if not d.version or matrix is None:
        return None, False
    table = matrix() if callable(matrix) else matrix
    cuda = table.smi_cuda_for_driver(d.version) if table is not None else None
    return cuda, cuda is not None


def pci_gpus(facts: Facts) -> tuple | None:
    """NVIDIA GPUs on the PCI bus; None when the bus could not be read."""
    pci = facts.kernel.pci
    return pci.value if isinstance(pci, Found) else None


def gpu_present(facts: Facts) -> bool:
    """Any sign of an NVIDIA GPU: the PCI bus, the driver's own list, or (WSL2) the GPU paravirtualisation node."""
    return bool(pci_gpus(facts)) or bool(facts.driver.gpus) or (facts.platform.wsl == 2 and _has_node(facts, "/dev/dxg"))


def no_gpu_said(facts: Facts) -> str | None:
    """The pasted line where the reporter says the machine has no GPU (gpudoctor.pasted.cues), where nothing pasted
    shows one: a GPU build's failure to load CUDA libraries is then its informational log, not a fault, so the checks
    that prescribe those libraries stay silent."""
    from gpudoctor.facts import NO_GPU_SAID

    if not facts.pasted.partial or gpu_present(facts):
        return None
    return next((c.get("line") or "" for c in facts.pasted.cues if c.get("cue") == NO_GPU_SAID), None)


def kernel_driver_version(facts: Facts) -> str | None:
    proc = facts.kernel.proc_driver
    if isinstance(proc, Found):
        return proc.value.version
    module = facts.kernel.module_version
    return module.value if isinstance(module, Found) else None


def wsl_linux_driver_libs(facts: Facts) -> list[str]:
    """Driver libraries installed by a Linux driver package inside WSL (outside /usr/lib/wsl)."""
    if facts.platform.wsl != 2 or not isinstance(facts.ldconfig, Found):
        return []
    return [
        p
        for soname in ("libcuda.so.1", "libnvidia-ml.so.1")
        for p in facts.ldconfig.value.get(soname, ())
        if not p.startswith("/usr/lib/wsl/")
    ]


def _has_node(facts: Facts, path: str) -> bool:
    return any(n.path == path for n in facts.kernel.device_nodes)


def check_gpu_none(facts: Facts, ctx: Context) -> Iterable[Finding]:
    if gpu_present(facts) or facts.platform.wsl:
        return
    pci = facts.kernel.pci
    if not isinstance(pci, Found):
        return  # the bus could not be read: probe-failed says so, not "no GPU"
    where = "this container's view of the PCI bus" if facts.platform.container else "the PCI bus"
    yield Finding(
        "gpu-none",
        Severity.ERROR,
        "gpu",
        "no NVIDIA GPU on this machine",
        f"No NVIDIA device (vendor 0x10de, display class) is on {where}, and no driver reports one. "
        "CUDA code here can only run on the CPU.",
        (ev(pci.source, "no NVIDIA display device"), ev("nvml", facts.driver.nvml_status)),
        Remediation(
            "Run on a machine or cloud instance with an NVIDIA GPU; in a VM, pass the GPU through to the guest.",
            # Where lspci is installed, the command that shows the bus as gpudoctor read it (none in most containers).
            (Cmd(("lspci", "-nn"), pipe=("grep", "-i", "nvidia")),) if facts.kernel.lspci else (),
            component="gpu",
        ),
    )


def check_nouveau(facts: Facts, ctx: Context) -> Iterable[Finding]:
    bound = [g for g in pci_gpus(facts) or () if g.kernel_driver == "nouveau"]
    if not (facts.kernel.nouveau_loaded or bound):
        return
    evidence = [ev("file:/proc/modules", "nouveau loaded")] if facts.kernel.nouveau_loaded else []
    evidence += [ev(f"file:/sys/bus/pci/devices/{g.slot}/driver", "nouveau") for g in bound]
    # The install, then the reboot that loads it (planner.remedy.driver_install_and_reboot): where no install command is
    # known, nothing of the route is printed, for a blacklist and a reboot alone boot into no driver at all (issue 27,
    # kind 9: plans10 1004's first run); the step is then the asks that decide the install (planner.deciders).
    install = driver_install_and_reboot(facts, None, ctx)
    yield Finding(
        "driver-nouveau",
        Severity.ERROR,
        "driver",
        "the open-source nouveau driver holds the GPU, so CUDA cannot use it",
        "nouveau drives the display but has no CUDA support; the NVIDIA driver cannot load while nouveau holds the GPU.",
        tuple(evidence),
        Remediation(
            "Blacklist nouveau, rebuild the initramfs, install the NVIDIA driver"
            + ("" if install else " (from your distribution's packages or NVIDIA's installer)")
            + ", and reboot: nouveau holds the display, so only a reboot frees the GPU for the NVIDIA module. With "
            "Secure Boot on, the kernel loads the NVIDIA module only once its signing key is enrolled (the driver "
            "package's install asks for a password that the MOK manager wants at the next boot).",
            (
                # first, as it decides how the install goes: a module the firmware refuses leaves the machine on
                # nouveau after the reboot (NVIDIA's driver README, "Secure Boot"; Ubuntu's and RPM Fusion's packages
                # sign the module with a machine owner key that mokutil enrolls)
                Cmd(("mokutil", "--sb-state"), note="Secure Boot on: the NVIDIA module must be signed and its key enrolled"),
                Cmd(
                    ("printf", "%s\\n", "blacklist nouveau", "options nouveau modeset=0"),
                    pipe=("sudo", "tee", "/etc/modprobe.d/blacklist-nouveau.conf"),
                ),
                *_rebuild_initramfs(facts),
                *_kernel_cmdline_blacklist(facts),
                *install,
            )
            if install
            else (),
            requires_root=True,
            component="driver",
        ),
    )


def check_driver_missing(facts: Facts, ctx: Context) -> Iterable[Finding]:
    d = facts.driver
    gpus = pci_gpus(facts)
    if not gpus or d.reachable or facts.platform.wsl:
        return
    if facts.kernel.nouveau_loaded or any(g.kernel_driver == "nouveau" for g in gpus):
        return  # driver-nouveau names the cause
    if kernel_driver_version(facts) or facts.kernel.nvidia_loaded:
        return  # a module is loaded: unreachable or mismatch, not missing
    if facts.platform.container:
        return  # in a container the host's driver is what matters: container-no-gpu
    if facts.pasted.partial and not (absence_known(facts, "driver") or d.smi_error):
        # A pasted lspci shows the GPU on the bus; that the driver is absent is shown only by what failed (nvidia-smi
        # missing or failing), never by a driver the text simply does not mention.
        return
    bound = sorted({g.kernel_driver for g in gpus if g.kernel_driver})
    yield Finding(
        "driver-missing",
        Severity.ERROR,
        "driver",
        "an NVIDIA GPU is installed but no NVIDIA driver is loaded",
        "The GPU is on the PCI bus, but /proc/driver/nvidia/version does not exist and NVML cannot load "
        "("
        + d.nvml_status
        + "). Nothing can use the GPU until the NVIDIA kernel driver is installed and loaded."
        + (f" The device is bound to {', '.join(bound)}." if bound else ""),
        (
            ev(facts.kernel.pci.source, ", ".join(f"{g.slot} {g.name or g.device_id or ''}".strip() for g in gpus)),
            ev("file:/proc/driver/nvidia/version", "absent"),
            ev("nvml", d.nvml_status),
        ),
        Remediation(
            "Install the NVIDIA driver for this GPU (a recent production branch"
            + ("" if driver_install(facts, ctx=ctx) else ", from your distribution's packages or NVIDIA's installer")
            + "), then load it. If it is installed, load it and read the kernel log for why it did not load: "
            "with Secure Boot on, an unsigned module is refused (enroll the key the driver package created, or "
            "use the distribution's signed modules).",
            (
                *driver_install(facts, ctx=ctx),
                Cmd(("modprobe", "nvidia"), root=True),
                Cmd(("dmesg",), root=True, pipe=("grep", "-i", "-E", "nvidia|nvrm")),
                Cmd(("mokutil", "--sb-state"), note="Secure Boot on: the module must be signed"),
            ),
            requires_root=True,
            component="driver",
        ),
    )


def _kernel_cmdline_blacklist(facts: Facts) -> tuple[Cmd, ...]:
    """On Fedora and RHEL also keep nouveau out from the kernel command line (grubby edits every boot entry):
    rd.driver.blacklist alone only keeps it out of the initramfs, and it can still load from the root filesystem."""
    if family(facts) != "rhel":
        return ()
    return (Cmd(("grubby", "--update-kernel=ALL", "--args=modprobe.blacklist=nouveau rd.driver.blacklist=nouveau"), root=True),)


def _rebuild_initramfs(facts: Facts) -> tuple[Cmd, ...]:
    fam = family(facts)
    if fam == "debian":
        return (Cmd(("update-initramfs", "-u"), root=True),)
    if fam in ("rhel", "suse"):
        return (Cmd(("dracut", "--force"), root=True),)
    if fam == "arch":
        return (Cmd(("mkinitcpio", "-P"), root=True),)
    return (Cmd(("update-initramfs", "-u"), root=True, note="Debian and Ubuntu; dracut --force on Fedora, RHEL and SUSE"),)


def _library_version(facts: Facts) -> str | None:
    """The user-space driver version: what a mismatch error text names, else NVML's own."""
    d = facts.driver
    for text in (d.smi_error, d.nvml_error):
        # Only a text holding "NVML library version:" (matched ignoring case) can say it: without "nvml l" and "brary v"
        # (no other character folds to those letters, unlike i and s), NVML's or nvidia-smi's error of a machine
        # without a driver imports no error-text parser (2.5 M instructions, bench/README.md h226).
        if not text or "nvml l" not in text.lower() or "brary v" not in text.lower():
            continue
        from gpudoctor.parsers.error_texts import extract_nvml_library_version  # dozens of patterns: only for a text

        stated = extract_nvml_library_version(text)
        if stated:
            return stated
    if d.nvml_version:
        # NVML's version is "12.550.54.14": CUDA major, then the driver version.
        parts = d.nvml_version.split(".", 1)
        return parts[1] if len(parts) == 2 else d.nvml_version
    return d.nvml_driver_version or d.smi_driver_version


def _driver_version_printed(version: str | None) -> str | None:
    """A driver version as a tuple's digits ("440.36.0", "515.48.7": TensorFlow's cuda_diagnostics prints its three
    numbers) written as NVIDIA writes it: no third number where it is 0, else two digits (515.48.07)."""
    if not version:
        return None
    parts = version.split(".")
    if len(parts) == 3 and parts[2].isdigit():
        parts = parts[:2] if int(parts[2]) == 0 else [*parts[:2], f"{int(parts[2]):02d}"]
    return ".".join(parts)


def stated_mismatch(facts: Facts) -> tuple[str | None, str | None]:
    """(kernel module, client library) as a pasted mismatch message states them: the kernel log's NVRM "API mismatch:
    the client has the version X, but this kernel module has the version Y", or libcuda's own "kernel version Y does
    not match DSO version X" (the CUDA driver library: the client that failed, whatever nvidia-smi's NVML says)."""
    for e in facts.pasted.errors:
        if e.kind in ("nvrm-api-mismatch", "libcuda-kernel-mismatch") and e.get("kernel") and e.get("client"):
            return _driver_version_printed(e.get("kernel")), _driver_version_printed(e.get("client"))
    return None, None


def check_library_mismatch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    d = facts.driver
    said_kernel, said_client = stated_mismatch(facts)
    kernel = kernel_driver_version(facts) or said_kernel
    if not (kernel or d.nvml_status != "ok" or d.smi_error):
        return  # nothing to compare and nothing said: skip the error-text parser's import
    library = said_client or _library_version(facts)
    said = d.nvml_status == "lib_rm_version_mismatch" or d.smi_error_kind == "driver-library-mismatch"
    differ = bool(kernel and library and kernel != library and d.nvml_status == "ok")
    if not (said or differ):
        return
    evidence = [ev("file:/proc/driver/nvidia/version", kernel or "unreadable")]
    if d.nvml_status == "lib_rm_version_mismatch":
        evidence.append(ev("nvml", d.nvml_error or "NVML_ERROR_LIB_RM_VERSION_MISMATCH"))
    if d.smi_error_kind == "driver-library-mismatch":
        evidence.append(ev("cmd:nvidia-smi", d.smi_error or ""))
    if library:
        evidence.append(ev("nvml", f"library {library}"))
    cause, why, remediation = mismatch_fix(facts, kernel, library)
    if cause != "container" and where_run(facts):
        # A cluster job: the reboot, the repair and the packages are the node administrator's (said so, not hidden).
        remediation = _for(remediation, where_run(facts))
    yield Finding(
        "driver-library-mismatch",
        Severity.ERROR,
        "driver",
        "the loaded NVIDIA kernel module and the user-space driver library are different versions",
        f"Kernel module {kernel or 'unknown'}, library {library or 'unknown'}: {why} NVML, nvidia-smi and every CUDA "
        "program fail with 'Driver/library version mismatch' until the two agree.",
        tuple(evidence) + tuple(ev("cmd:ldconfig -p", p) for p in (driver_library_copies(facts) if cause == "mixed" else ())),
        remediation,
    )


def driver_library_copies(facts: Facts) -> list[str]:
    """Every libnvidia-ml.so.1 the loader can find (its cache, then LD_LIBRARY_PATH): two mean two installs."""
    paths: list[str] = []
    if isinstance(facts.ldconfig, Found):
        paths += [p for p in facts.ldconfig.value.get("libnvidia-ml.so.1", ()) if not p.startswith("/usr/lib/wsl/")]
    for d in facts.ld_library_path:
        if "libnvidia-ml.so.1" in d.names:
            paths.append(d.path.rstrip("/") + "/libnvidia-ml.so.1")
    dirs: dict[str, str] = {}
    for p in paths:
        dirs.setdefault(p.rsplit("/", 1)[0], p)
    return list(dirs.values())


def mismatch_cause(facts: Facts, kernel: str | None, library: str | None) -> str:
    """container, mixed, libs-newer, libs-older or unknown: what the evidence says the mismatch comes from."""
    if container_of(facts):
        return "container"
    if len(driver_library_copies(facts)) > 1:
        return "mixed"
    if kernel and library and vkey(kernel) and vkey(library):
        return "libs-newer" if vkey(library) > vkey(kernel) else "libs-older"
    return "unknown"


_MODINFO = Cmd(("modinfo", "-F", "version", "nvidia"), note="the module on disk: what a reboot would load")
_PROC = Cmd(("cat", "/proc/driver/nvidia/version"), note="the module loaded now")
_LIBS = Cmd(("ldconfig", "-p"), pipe=("grep", "libnvidia-ml"))
_RUN_INSTALLER = Cmd(("ls", "-l", "/usr/bin/nvidia-uninstall"), note="present when NVIDIA's .run installer was used")


def mismatch_fix(facts: Facts, kernel: str | None, library: str | None) -> tuple[str, str, Remediation]:
    """(cause, a sentence saying it, the remediation) for a driver/library mismatch."""
    cause = mismatch_cause(facts, kernel, library)
    if cause == "container":
        copies = driver_library_copies(facts)
        # nvidia-smi answering inside at the module's version while libcuda states another: the toolkit mounted the
        # host's NVML and libcuda together, at the module's version, so the other libcuda is one the image carries.
        own = bool(
            kernel
            and facts.driver.smi_driver_version == kernel
            and any(e.kind == "libcuda-kernel-mismatch" and e.get("client") for e in facts.pasted.errors)
            and library not in (None, kernel)
        )
        if len(copies) > 1 or own:
            return (
                cause,
                (
                    "this container holds more than one copy of the driver's user-space library, so the image brings "
                    "its own driver libraries beside the ones the NVIDIA container toolkit mounts from the host."
                    if len(copies) > 1
                    else f"nvidia-smi inside the container answers with the host's {kernel}, so the toolkit mounted the "
                    f"host's libraries; the {library} library that failed is a copy the image carries (a CUDA runfile or "
                    "driver package installed in it), found before the host's."
                ),
                Remediation(
                    "Rebuild the image without driver packages (libnvidia-*, nvidia-driver-*, cuda-drivers; a CUDA runfile "
                    "with --toolkit only): the NVIDIA container toolkit mounts the host's driver libraries, which always "
                    "match the host's module. Do not reboot or unload modules inside a container, nor change the host.",
                    (
                        *installed_driver_packages(facts),
                        Cmd(("ls", "-l", *copies))
                        if len(copies) > 1
                        else Cmd(
                            ("find", "/", "-xdev", "-name", "libcuda.so*"),
                            note="inside the container: the copy that is not the host's version is the image's",
                        ),
                    ),
                    component="driver",
                    where="the image",
                ),
            )
        runtime = container_of(facts)
        if runtime == "kubernetes" and any(c.get("cue") == "a GKE node" for c in facts.pasted.cues):
            return cause, *_gke_library_path()
        if runtime != "kubernetes" and not any(c.get("cue") == STALE_CONTAINER for c in facts.pasted.cues):
            return cause, *_which_side(facts, runtime, kernel, library)
        return (
            cause,
            (
                "inside a container the kernel module is the host's. Either the container was created before the host's "
                "driver was upgraded (it keeps the old driver's libraries: nvidia-docker 1.0's driver volume, or the "
                "files the toolkit put in it), or the host's driver was upgraded without a reboot, or the image brings "
                "its own driver libraries."
            ),
            Remediation(
                "Fix it from the host, never inside the container (no reboot or rmmod in it). Where nvidia-smi works on "
                "the host and in a new container, this container is older than the host's driver: recreate it from its "
                "image (docker commit first keeps what was changed in it). Where a new container fails too, the image "
                "carries its own driver libraries: use an image without them.",
                (Cmd(("nvidia-smi",), note="on the host: it works there when only the container is stale"),)
                + recreate_container(runtime),
                component="container",
                where="the host",
                alternative=_host_side(kernel, library),
            ),
        )
    if cause == "mixed":
        copies = driver_library_copies(facts)
        return (
            cause,
            (
                "the loader finds the driver's user-space library in more than one place, so two driver installations "
                "are mixed (typically NVIDIA's .run installer beside the distribution's packages, or a copy left in "
                "/usr/local/lib) and the one that wins does not match the module."
            ),
            Remediation(
                "Keep one driver installation. If /usr/bin/nvidia-uninstall exists, a .run install is present: remove it, "
                "repair and reinstall the distribution's driver packages, then reboot (the module is replaced too).",
                (
                    Cmd(("ls", "-l", *copies)),
                    _RUN_INSTALLER,
                    *installed_driver_packages(facts),
                    Cmd(("nvidia-uninstall",), root=True, note="only where the .run installer was used"),
                    *package_repair(facts),
                    *reboot(),
                ),
                requires_root=True,
                component="driver",
            ),
        )
    if cause == "libs-newer":
        return (
            cause,
            (
                "the libraries are newer than the loaded module: the driver was upgraded (often by unattended upgrades) "
                "while the old module stayed loaded."
            ),
            Remediation(
                "Check the module on disk first. If modinfo prints the library's version, a reboot (or reloading the "
                "modules) fixes it. If it prints the old version or nothing, the upgrade did not finish (the new module "
                "was not built or installed): repair the packages, then reboot.",
                (_MODINFO, *package_repair(facts), *reboot()),
                requires_root=True,
                component="driver",
                # Reloading the modules is the reboot's alternative, never a command run after it.
                alternative=Remediation(
                    "Without a reboot, once modinfo prints the library's version: stop every GPU job and the display "
                    "manager, then reload the NVIDIA modules.",
                    (_MODINFO, *reload_modules()),
                    requires_root=True,
                    component="driver",
                ),
            ),
        )
    if cause == "libs-older":
        return (
            cause,
            (
                "the libraries are older than the loaded module: a downgrade without a reboot, a partial upgrade that "
                "replaced the module but not the libraries, or an older second installation whose libraries win."
            ),
            Remediation(
                "Find which: a reboot helps only if the module on disk is the library's version (a deliberate downgrade); "
                "repair the packages, then reboot. If modinfo prints the loaded module's version, the libraries are stale: "
                "install the user-space of that version"
                + (" (below)" if userspace_for_module(facts, kernel) else "")
                + ", or remove the second installation (the .run installer check).",
                (
                    _MODINFO,
                    _LIBS,
                    *installed_driver_packages(facts),
                    _RUN_INSTALLER,
                    *package_repair(facts),
                    Cmd(("reboot",), root=True, note="once modinfo prints the same version as the libraries"),
                ),
                requires_root=True,
                component="driver",
                # only where a recipe for that user-space is known: an alternative with no command fixes nothing
                alternative=_userspace_upgrade(facts, kernel) if userspace_for_module(facts, kernel) else None,
            ),
        )
    return (
        cause,
        (
            "the evidence does not say which side changed: an upgrade without a reboot, a partial package upgrade "
            "and two mixed installations all look like this."
        ),
        Remediation(
            "Tell the causes apart: compare the loaded module, the module on disk and the installed packages. Module on "
            "disk = the libraries' version: reboot. Module on disk missing or old: finish the package upgrade, then reboot. "
            "Libraries in two places, or /usr/bin/nvidia-uninstall present: two installations, keep one.",
            (
                _PROC,
                _MODINFO,
                _LIBS,
                *installed_driver_packages(facts),
                _RUN_INSTALLER,
                # The repair waits for the answers above: finishing a package upgrade over a .run install would put a
                # second driver beside it (NVIDIA's driver README: the .run installer and packages must not be mixed).
                *_noted_first(
                    package_repair(facts),
                    "only where modinfo prints nothing or an older version than the libraries, and no nvidia-uninstall",
                ),
                Cmd(("reboot",), root=True, note="once modinfo prints the same version as the libraries"),
            ),
            requires_root=True,
            component="driver",
        ),
    )


def _noted_first(commands: tuple[Cmd, ...], note: str) -> tuple[Cmd, ...]:
    """The commands, the first carrying `note` (the condition the group runs under)."""
    import dataclasses

    return (dataclasses.replace(commands[0], note=note), *commands[1:]) if commands else ()


def _gke_library_path() -> tuple[str, Remediation]:
    """On GKE the device plugin mounts the node's driver libraries at /usr/local/nvidia/lib64 and nothing puts them on
    the loader's path but the image's LD_LIBRARY_PATH (GoogleCloudPlatform/container-engine-accelerators,
    cmd/nvidia_gpu/README.md): an image that does not name that directory loads another libcuda (its CUDA
    compatibility package's), which does not match the node's module."""
    return (
        "on GKE the node's driver libraries are mounted at /usr/local/nvidia/lib64, which only the image's "
        "LD_LIBRARY_PATH puts before the libcuda the image carries (its CUDA compatibility libraries); an image that "
        "does not name that directory loads a libcuda that does not match the node's module.",
        Remediation(
            "Put the node's driver libraries first on the container's library path (env LD_LIBRARY_PATH in the pod "
            "spec, PATH with /usr/local/nvidia/bin for nvidia-smi); the node's driver and the image stay as they are.",
            (
                Cmd(
                    (
                        "kubectl",
                        "exec",
                        Placeholder("pod"),
                        "--",
                        "sh",
                        "-c",
                        "ls /usr/local/nvidia/lib64; echo $LD_LIBRARY_PATH",
                    ),
                    note="the node's libcuda is there, but not on the path",
                ),
                Cmd(
                    (
                        "kubectl",
                        "set",
                        "env",
                        Placeholder("deployment"),
                        "LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib",
                    ),
                    note="as deployment/NAME; its pods are recreated with it",
                ),
            ),
            component="container",
            where="the cluster",
        ),
    )


def _for(r: Remediation, where: str) -> Remediation:
    """The remediation, and its alternative, run elsewhere (`where`) by someone else."""
    import dataclasses

    alt = dataclasses.replace(r.alternative, where=where) if r.alternative is not None else None
    return dataclasses.replace(r, where=where, alternative=alt)


def _userspace_upgrade(facts: Facts, kernel: str | None) -> Remediation:
    """The branch where the newer side is the module (installed on purpose, its libraries left behind): bring the
    user-space up to the loaded module's version; no reboot is needed once the two agree."""
    version = kernel or "the loaded module's version"
    return Remediation(
        f"If modinfo prints the loaded module's version ({version}), install the driver's user-space of that version "
        "instead: the libraries then match the running module, no reboot needed.",
        userspace_for_module(facts, kernel),
        requires_root=True,
        component="driver",
    )


def _which_side(facts: Facts, runtime: str | None, kernel: str | None, library: str | None) -> tuple[str, Remediation]:
    """A mismatch inside a docker or podman container where nothing pasted says the container predates a host driver
    upgrade: the read-only reads that tell the three causes apart lead (the host's nvidia-smi and module, then the NVML
    and libcuda copies the image holds), never a container recreation, which helps only the stale container.

    libnvidia-container mounts the host's user-space driver libraries at the loaded module's version into every new
    container and refreshes its ld cache (NVIDIA/libnvidia-container src/nvc_mount.c, mount_files/update ldcache), so a
    libnvidia-ml or libcuda at another version in the image's cache is one the image installed itself (a driver package
    or CUDA runfile); NVML's "Driver/library version mismatch" is the loaded libnvidia-ml not matching the module. Where
    the paste shows the failing image started by `docker run` (a new container failing), recreation cannot help and is
    left out (nvidia-docker#843: the host's CUDA image works, the openSUSE image fails; nvidia-container-toolkit#171: a
    new container of the image fails on a host whose dkms module is 470.199.02)."""
    from gpudoctor.planner.where import image, program_image

    shown = image(facts) or program_image(facts) or {}
    name = shown.get("means") or ""
    tool = "podman" if runtime == "podman" else "docker"
    if tool == "podman":
        gpu: tuple[str, ...] = ("--device", "nvidia.com/gpu=all")
    elif any(c.get("cue") == NVIDIA_RUNTIME_SAID for c in facts.pasted.cues):
        # nvidia-docker2's runtime, which a Docker older than 19.03 (no --gpus) runs too; the variable asks it for the
        # GPUs, which an image not built on NVIDIA's CUDA images does not set
        gpu = ("--runtime=nvidia", "-e", "NVIDIA_VISIBLE_DEVICES=all")
    else:
        gpu = ("--gpus", "all")
    listing = Cmd(
        (tool, "run", "--rm", *gpu, name or Placeholder("image"), "sh", "-c", 'ldconfig -p | grep -E "libnvidia-ml|libcuda"'),
        note="read-only: the NVML and libcuda the image's loader finds; a version other than the host's module is the image's own",
    )
    recreate = () if name else recreate_container(runtime)
    if recreate:
        first, *rest = recreate
        # (the new container asks for the GPUs the way the test container above does)
        rest = [Cmd(_gpu_words(c.argv, gpu), pipe=c.pipe, note=c.note) for c in rest]
        recreate = (Cmd(first.argv, pipe=first.pipe, note="only where the host and a new container work: " + first.note), *rest)
    return (
        (
            "inside a container the kernel module is the host's, and the NVIDIA container toolkit mounts the host's driver "
            "libraries at that module's version. So either the image brings its own driver libraries, which the loader "
            "finds first, or the host's driver was upgraded without a reboot"
            + (", or this container was created before the host's driver upgrade." if recreate else ".")
        ),
        Remediation(
            "Tell the causes apart before changing anything, from the host (no reboot or rmmod inside the container): "
            "nvidia-smi on the host and the loaded module, then the NVML and libcuda copies in the image. Where the image "
            "lists a copy at another version than the host's module, it carries its own driver libraries: rebuild it "
            "without driver packages (libnvidia-*, nvidia-driver-*, cuda-drivers; a CUDA runfile with --toolkit only), or "
            "use an image without them."
            + (
                " Where the host and a new container of the image both work, only this container is stale (created "
                "before the host's driver upgrade): recreate it from its image (docker commit first keeps what was changed "
                "in it)."
                if recreate
                else ""
            ),
            (Cmd(("nvidia-smi",), note="on the host"), _PROC, listing, *recreate),
            component="container",
            where="the host",
            alternative=_host_side(kernel, library),
        ),
    )


def _gpu_words(argv: tuple[Any, ...], gpu: tuple[str, ...]) -> tuple[Any, ...]:
    """`argv` with its `--gpus all` replaced by `gpu`."""
    i = next((n for n, w in enumerate(argv) if w == "--gpus"), None)
    return argv if i is None else (*argv[:i], *gpu, *argv[i + 2 :])


def _host_side(kernel: str | None, library: str | None) -> Remediation:
    """A container's mismatch fixed on the host instead: the host's own half-upgrade where the versions show it, else
    the reboot that loads the new module (both container steps offer it)."""
    return _host_upgrade(kernel, library) or Remediation(
        "Only if nvidia-smi fails on the host too: the host's driver was upgraded without a reboot; reboot "
        "the host (it loads the new module), then restart the container.",
        (_PROC, *reboot()),
        requires_root=True,
        component="driver",
        where="the host",
    )


def _host_upgrade(kernel: str | None, library: str | None) -> Remediation | None:
    """The branch where the image's own driver libraries are newer than the host's module: a host driver of at least
    the libraries' version runs them (the other way out is an image without them, the step above)."""
    if not (kernel and library and vkey(library) > vkey(kernel)):
        return None
    return Remediation(
        f"If the image must keep its driver libraries ({library}), upgrade the host's NVIDIA driver to >= {library} "
        "with the host's package manager, reboot the host, then restart the container.",
        (Cmd(("nvidia-smi",), note=f"on the host: the driver must be >= {library}"),),
        requires_root=True,
        component="driver",
        where="the host",
    )


def smi_in_gpu_less_container(facts: Facts, requested: bool = False) -> bool:
    """Pasted: nvidia-smi failing to reach the driver beside a container started with plain docker run (no --gpus, no
    NVIDIA runtime) is the one inside it, which has no /dev/nvidia*: the host's kernel-module steps cannot run in there
    and decide nothing (mattshma/bigdata#108: `docker run` with hand-made mounts of the driver's files fails where
    `nvidia-docker run ... nvidia-smi` works; ameli/manylinux-cuda#5: `docker run -it IMAGE`, then nvidia-smi inside).
    With `requested`, only where the text does not show the GPU request itself failing too (a container toolkit or hook
    error, catalogue evidence `container-*`, ameli/manylinux-cuda#5's `--gpus all` run): there the request is the
    fault to fix, not its absence."""
    errors = facts.pasted.errors
    return (
        facts.pasted.partial
        and facts.driver.smi_error_kind == "driver-unreachable"
        and any(e.kind == "docker-run-without-gpus" for e in errors)
        and not (requested and any(e.kind.startswith("container-") for e in errors))
    )


def check_unreachable(facts: Facts, ctx: Context) -> Iterable[Finding]:
    d = facts.driver
    # Partial evidence (pasted text) that shows nvidia-smi failing but never showed the bus: the GPU is not known absent.
    shown_failing = d.smi_status == "failed" and d.smi_error_kind is not None and not absence_known(facts, "pci")
    if d.reachable or not (pci_gpus(facts) or kernel_driver_version(facts) or facts.platform.wsl == 2 or shown_failing):
        return
    if facts.pasted.partial and d.smi_status != "failed":
        return  # pasted text that shows no nvidia-smi failure: whether the driver answers is unknown (an ask)
    if d.nvml_status == "lib_rm_version_mismatch" or d.smi_error_kind == "driver-library-mismatch":
        return  # driver-library-mismatch
    if facts.platform.wsl == 1:
        return  # wsl1-no-cuda names the cause
    if shown_failing and any(f.code == "driver-missing" for f in check_driver_missing(facts, ctx)):
        return  # driver-missing names the cause
    if d.nvml_status in ("timeout",) or d.smi_status == "timeout":
        return  # probe-timeout says it hung
    if d.smi_error_kind == "gpu-lost":
        return  # gpu-lost: nvidia-smi reached the driver and names the GPU it cannot get a handle for
    if wsl_linux_driver_libs(facts):
        return  # wsl-linux-driver-installed names the cause
    if d.nvml_status == "binding_missing" and d.smi_status == "missing":
        return  # gpudoctor's own NVML binding is missing: probe-failed says so
    if facts.platform.container and not device_nodes_ok(facts):
        return  # container-no-gpu
    if smi_in_gpu_less_container(facts):
        return  # container-no-gpu (checks.reported.check_reported_container_gpu)
    if (
        not kernel_driver_version(facts)
        and not facts.kernel.nvidia_loaded
        and not facts.platform.wsl
        and not facts.platform.container
        and (absence_known(facts, "kernel-module") or "nvidia-module-missing" in {e.kind for e in facts.pasted.errors})
    ):
        return  # driver-missing
    evidence = [ev("nvml", f"{d.nvml_status}: {d.nvml_error or ''}".strip(": "))]
    if d.smi_status != "missing":
        evidence.append(ev("cmd:nvidia-smi", f"{d.smi_status}: {d.smi_error or ''}".strip(": ")))
    if kernel_driver_version(facts):
        evidence.append(ev("file:/proc/driver/nvidia/version", kernel_driver_version(facts)))
    # "Loaded" only where something shows the module loaded: its version file, lsmod, or an NVML error that NVML
    # gives only past the module (Unknown Error, Insufficient Permissions). nvidia-smi's "couldn't communicate"
    # alone is also a module that never loaded (one not built for the running kernel is the common cause).
    loaded = bool(
        kernel_driver_version(facts)
        or facts.kernel.nvidia_loaded
        or d.smi_error_kind in ("nvml-unknown-error", "nvml-insufficient-permissions", "no-devices-found")
    )
    said = (
        f"nvidia-smi says: {d.smi_error}"
        if facts.pasted.partial and d.smi_error
        else f"NVML answers {d.nvml_status}" + (f" and nvidia-smi {d.smi_status}" if d.smi_status != "missing" else "")
    )
    # NVML's Unknown Error inside a container is the container's device access lost, not the host's driver failing
    lost = _unknown_error(facts) and container_of(facts) is not None
    yield Finding(
        "driver-unreachable",
        Severity.ERROR,
        "driver",
        "inside the container NVML fails with 'Unknown Error': the container lost access to the GPU devices"
        if lost
        else "the NVIDIA driver is loaded but brought up no GPU (nvidia-smi: 'No devices were found')"
        if d.smi_error_kind == "no-devices-found"
        else "the NVIDIA driver is loaded but NVML and nvidia-smi cannot talk to it"
        if loaded
        else "nvidia-smi cannot reach the NVIDIA driver (NVIDIA's driver may not be the one that holds the GPU)"
        if _is_windows(facts) and not facts.platform.wsl
        else "nvidia-smi cannot reach the NVIDIA driver (the kernel module may not be loaded)",
        said
        + ("; the container cannot use the GPU until it is recreated." if lost else "; no GPU can be used until this is solved."),
        tuple(evidence),
        unreachable_fix(facts),
    )


# NVIDIA's udev rule that recreates the /dev/char links whenever the nvidia driver binds (after a reboot or a driver
# reload), and where it goes: NVIDIA's notice on the daemon-reload issue, "Workarounds" (NVIDIA/nvidia-container-toolkit
# issue 48; the same text in the toolkit's troubleshooting page).
_DEV_CHAR_RULE = (
    'ACTION=="add", DEVPATH=="/bus/pci/drivers/nvidia", RUN+="/usr/bin/nvidia-ctk system create-dev-char-symlinks --create-all"'
)
_DEV_CHAR_RULES_FILE = "/lib/udev/rules.d/71-nvidia-dev-char.rules"


def _reload_lost_devices(facts: Facts, container: str) -> Remediation:
    """NVML's 'Unknown Error' inside a container: with systemd managing the container's cgroup, `systemctl
    daemon-reload` re-applies the device rules systemd knows, and the NVIDIA devices the runtime hook added are not
    among them where runc could not name them to systemd (no /dev/char links for them). NVIDIA's workarounds (issue 48):
    the /dev/char links (nvidia-ctk, kept by its udev rule), or the cgroupfs driver (Docker's daemon.json exec-opts;
    on a Kubernetes node containerd's SystemdCgroup = false with the kubelet's cgroupDriver, changed together). The
    containers that lost the GPU are then recreated. The cgroup driver is read first: it decides whether this is it."""
    from gpudoctor.facts import EXEC_NAMED

    kube = container == "kubernetes"
    tool = "podman" if container == "podman" else "docker"
    named = next((c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == EXEC_NAMED), "")
    if kube:
        driver = Cmd(
            ("grep", "-n", "SystemdCgroup", "/etc/containerd/config.toml"),
            note="on the node: true is the systemd cgroup driver, whose daemon-reload drops the GPU devices",
        )
        other = (
            "or move containerd (SystemdCgroup = false) and the kubelet (cgroupDriver: cgroupfs) to the cgroupfs "
            "driver together, restarting both"
        )
    else:
        driver = Cmd(
            (tool, "info", "--format", "{{.CgroupDriver}} cgroup v{{.CgroupVersion}}"),
            note="on the host: systemd is the cgroup driver whose daemon-reload drops the GPU devices",
        )
        other = (
            'or stop systemd from managing the containers\' cgroups: "exec-opts": ["native.cgroupdriver=cgroupfs"] in '
            "/etc/docker/daemon.json, then restart Docker"
        )
    again: tuple[Cmd, ...] = (
        (restart_container("kubernetes"),)
        if kube
        else (Cmd((tool, "restart", named)),)
        if named
        else (restart_container(container),)
    )
    return Remediation(
        "Inside a container NVML's 'Unknown Error' is the container losing its GPU devices, not the host's driver "
        "failing. With systemd as the cgroup driver, a `systemctl "
        "daemon-reload` on the host (package updates run one) re-applies the container's device rules without the GPU "
        "devices the NVIDIA runtime added. NVIDIA's workaround: create the /dev/char links for the NVIDIA devices and "
        f"keep them with NVIDIA's udev rule, {other}. Then recreate (or restart) the containers that lost the GPU.",
        (
            driver,
            Cmd(
                ("nvidia-ctk", "system", "create-dev-char-symlinks", "--create-all"),
                root=True,
                note="on the host; NVIDIA Container Toolkit 1.12 or newer",
            ),
            Cmd(
                ("echo", _DEV_CHAR_RULE),
                pipe=("sudo", "tee", _DEV_CHAR_RULES_FILE),
                note="recreates the links whenever the nvidia driver binds again: after a restart or a driver reload",
            ),
            *again,
        ),
        requires_root=True,
        component="container",
        where="the host",
    )


def _unknown_error(facts: Facts) -> bool:
    d = facts.driver
    return bool(d.nvml_error and "Unknown Error" in d.nvml_error) or d.smi_error_kind == "nvml-unknown-error"


def unreachable_fix(facts: Facts) -> Remediation:
    """What to do when the module is loaded and NVML still fails, by what NVML answered and where this runs."""
    d = facts.driver
    container = container_of(facts)
    kernel = kernel_driver_version(facts)
    if _unknown_error(facts) and container:
        return _reload_lost_devices(facts, container)
    if d.nvml_status == "no_permission":
        if container:
            return Remediation(
                "The container's device nodes are not accessible: start it with GPU access through the NVIDIA "
                "container toolkit instead of passing device nodes by hand.",
                container_gpu_commands(container),
                component="container",
                where="the host",
                alternative=container_setup_alternative(container, facts),
            )
        return Remediation(
            "Give this user access to the GPU device nodes (the video group on most distributions), then log in again.",
            (
                Cmd(("ls", "-l", "/dev/"), pipe=("grep", "nvidia")),
                Cmd(("usermod", "-aG", "video", Placeholder("user")), root=True),
            ),
            requires_root=True,
            component="driver",
        )
    if d.nvml_status in NO_LIBRARY and facts.platform.wsl:
        return Remediation(
            "In WSL the driver's libraries come from the Windows driver under /usr/lib/wsl/lib: update the Windows "
            "NVIDIA driver and WSL (in Windows), then restart WSL.",
            (
                Cmd(("ls", "-l", "/usr/lib/wsl/lib/")),
                Cmd(("wsl", "--update"), note="in Windows"),
                Cmd(("wsl", "--shutdown"), note="in Windows"),
            ),
            component="driver",
            where="Windows",
        )
    if d.nvml_status in NO_LIBRARY and kernel:
        if container:
            return Remediation(
                "The GPU devices are in the container but the driver's libraries are not: the NVIDIA container "
                "toolkit mounts them only when the container is started through it with the compute and utility "
                "capabilities.",
                container_gpu_commands(container),
                component="container",
                where="the host",
                alternative=container_setup_alternative(container, facts),
            )
        commands: list[Cmd] = [Cmd(("ldconfig", "-p"), pipe=("grep", "-E", "libnvidia-ml|libcuda"))]
        branch = major(kernel)
        if branch and ubuntu_archive(facts):
            commands += apt_install(f"libnvidia-compute-{branch}", note="the user-space libraries of the loaded module's branch")
        else:
            commands += installed_driver_packages(facts)
        return Remediation(
            "The kernel module is loaded but libnvidia-ml.so.1 cannot be loaded: install the driver's user-space "
            "libraries of the same version as the module.",
            tuple(commands),
            requires_root=True,
            component="driver",
        )
    if _is_windows(facts) and not facts.platform.wsl:
        # Windows has no kernel log or module to read: there nvidia-smi cannot reach the driver when NVIDIA's driver
        # is not the one bound to the GPU (Windows Update's, or the basic display driver, took the device) or the
        # device is stopped with an error; Device Manager's status of the display adapters tells which. pnputil's
        # /enum-devices (Windows 10 2004 and newer) prints that status in cmd.exe and in PowerShell alike.
        return Remediation(
            "On Windows, see which driver holds the GPU and its status (an NVIDIA GPU listed as 'Microsoft Basic "
            "Display Adapter', or stopped with an error code), then install NVIDIA's current driver for this GPU "
            "(a clean installation) and restart Windows.",
            (
                Cmd(("pnputil", "/enum-devices", "/class", "Display")),
                Cmd(("nvidia-smi",), note="after NVIDIA's driver is installed and Windows restarted"),
            ),
            component="driver",
        )
    if d.smi_error_kind == "no-devices-found" and not container:
        # NVML initialised (the module is loaded) and listed no GPU: the driver's RmInitAdapter failed for each, or the
        # GPU is bound to another driver. Which cause holds is in the kernel log and lspci, so the plan reads them;
        # a reboot or a reinstall before that would guess (open-gpu-kernel-modules#862: the BIOS's Above 4G Decoding).
        return Remediation(
            "The driver is loaded and brought up no GPU: its kernel log says why for each (RmInitAdapter failed, a "
            "device this driver release does not support), and lspci which kernel driver holds each NVIDIA device. "
            "Then: a driver release that supports the GPU, the BIOS's Above 4G Decoding and Resizable BAR where the "
            "GPU's memory regions are not mapped, or a reboot after a GPU fault.",
            (
                Cmd(("dmesg",), root=True, pipe=("grep", "-i", "nvrm")),
                Cmd(("lspci", "-nnk", "-d", "10de:"), note="the kernel driver in use of each NVIDIA device"),
            ),
            requires_root=True,
            component="driver",
            where=where_run(facts),
        )
    if (
        d.smi_error_kind == "driver-unreachable"
        and not container
        and not facts.platform.wsl
        and facts.kernel.nvidia_loaded is not True
        and not kernel
    ):
        # "couldn't communicate" with nothing showing the module loaded (a live lsmod without it, or a paste that does
        # not say): the module is not there, and why decides the fix. Its usual causes: never built for the running
        # kernel (DKMS or akmods after a kernel update), refused by the kernel with Secure Boot on (a locally built
        # module signed with no enrolled key: "module verification failed" or "Lockdown" in the kernel log), or
        # nouveau holding the GPU. A Xid, a GPU reset or a reboot answer none of them (NVIDIA's driver README,
        # "Secure Boot"; RPM Fusion's akmods README.secureboot).
        # Where the text says DKMS builds the module, the cheapest fix is in reach: DKMS builds a module for each
        # installed kernel whose headers are there, and `dkms autoinstall` (dkms(8): the running kernel unless -k
        # names another) builds the missing ones and leaves built ones alone, so it runs before modprobe.
        dkms = any(c.get("cue") == DKMS_SAID for c in facts.pasted.cues)
        refused = any(c.get("cue") == MODULE_KEY_REFUSED for c in facts.pasted.cues)
        if refused and (enroll := enroll_module_key(facts)):
            # modprobe already said why (issue 28, kind 6: blind set 15's case 1550 ran the diagnosis again first):
            # the kernel refused the module's signature, so the module is built and found, and what loads it is the
            # signing key enrolled in the firmware's MOK list (or Secure Boot off), never a reinstall.
            return Remediation(
                "modprobe says the kernel refused the nvidia module's signature (Key was rejected by service, or "
                "Required key not available): Secure Boot is on and the key the module is signed with is not "
                "enrolled. The module is built; enroll its key, reboot and, in the MOK manager, choose Enroll MOK "
                "and give the one-time password, then the module loads.",
                (
                    Cmd(
                        ("mokutil", "--sb-state"),
                        note="SecureBoot enabled: the kernel loads only modules signed with an enrolled key",
                    ),
                    *enroll,
                    Cmd(("modprobe", "nvidia"), root=True, note="after the reboot: loads it with no error"),
                ),
                requires_root=True,
                component="driver",
                where=where_run(facts),
                alternative=Remediation(
                    "Or turn Secure Boot off in the firmware's setup: the kernel then loads the module as it is.",
                    (),
                    component="driver",
                ),
            )
        return Remediation(
            "Nothing shows the nvidia kernel module loaded: find out why before reinstalling. lsmod says whether "
            "nvidia or nouveau holds the GPU; with Secure Boot on the kernel refuses a module whose signing key is not "
            "enrolled (the kernel log says so); a module built for another kernel than uname -r is not there to load. "
            + (
                "The text says DKMS builds the module: dkms status lists the kernels it is built for, and dkms "
                "autoinstall builds it for the running kernel where it is missing (that kernel's headers package "
                "must be installed first: a kernel added without its headers gets no module), then a reboot into that "
                "kernel, or modprobe, loads it. "
                if dkms
                else ""
            )
            + "modprobe loads it, or prints why it cannot.",
            (
                Cmd(("lsmod",), pipe=("grep", "-E", "^(nvidia|nouveau)")),
                Cmd(("mokutil", "--sb-state"), note="Secure Boot on: the module must be signed with an enrolled key"),
                Cmd(("dmesg",), root=True, pipe=("grep", "-i", "-E", "nvidia|nvrm|module verification|lockdown")),
                Cmd(("uname", "-r"), note="the kernel the module must be built for"),
                *(
                    (
                        Cmd(("dkms", "status"), note="nvidia ... installed for the kernel uname -r names, or not"),
                        Cmd(
                            ("dkms", "autoinstall"),
                            root=True,
                            note="builds it for the running kernel where it is missing; that kernel's headers must be installed",
                        ),
                    )
                    if dkms
                    else ()
                ),
                Cmd(("modprobe", "nvidia"), root=True, note="loads it, or prints why it cannot"),
            ),
            requires_root=True,
            component="driver",
            where=where_run(facts),
            # the Secure Boot branch as commands, where the distribution names the module's builder (issue 27, kind 9:
            # plans10 1044 named Secure Boot and stopped at the diagnosis)
            alternative=Remediation(
                "Only if mokutil says SecureBoot enabled and the kernel log says the module was refused (module "
                "verification failed, Key was rejected by service): enroll the key the nvidia module is signed with, "
                "reboot and, in the MOK manager, choose Enroll MOK and give the one-time password; or turn Secure Boot "
                "off in the firmware's setup.",
                enroll_module_key(facts),
                requires_root=True,
                component="driver",
                where=where_run(facts),
            ),
        )
    return Remediation(
        "Read the kernel log: Xid errors name the failure. A GPU that fell off the bus (Xid 79) needs a reboot"
        + (
            " of the host; nothing inside the container can reset it."
            if container
            else "; other errors may clear with a GPU reset."
        ),
        (
            Cmd(("dmesg",), root=True, pipe=("grep", "-i", "-E", "nvrm|xid")),
            Cmd(("nvidia-smi",)),
            Cmd(("reboot",), root=True, note="only for a GPU that fell off the bus (Xid 79)"),
        ),
        requires_root=True,
        component="driver",
        where=where_run(facts),
    )


def device_nodes_ok(facts: Facts) -> bool:
    nodes = {n.path: n for n in facts.kernel.device_nodes}
    ctl = nodes.get("/dev/nvidiactl")
    numbered = [n for p, n in nodes.items() if p[len("/dev/nvidia") :].isdigit()]
    return bool(ctl and numbered)


def check_device_nodes(facts: Facts, ctx: Context) -> Iterable[Finding]:
    if facts.platform.wsl:
        return  # WSL2 reaches the GPU through /dev/dxg, not /dev/nvidia*
    if not (kernel_driver_version(facts) or facts.kernel.nvidia_loaded):
        return  # no driver: the device nodes cannot exist yet
    if facts.platform.container and not device_nodes_ok(facts):
        return  # container-no-gpu says it with the right fix
    if not facts.kernel.device_nodes and not absence_known(facts, "device-nodes"):
        return  # partial evidence (pasted text) that never listed /dev: unknown, not missing
    nodes = {n.path: n for n in facts.kernel.device_nodes}
    missing = [p for p in ("/dev/nvidiactl", "/dev/nvidia-uvm") if p not in nodes]
    if not any(p[len("/dev/nvidia") :].isdigit() for p in nodes):
        missing.append("/dev/nvidia0")
    denied = [n.path for n in nodes.values() if n.kind == "char" and (n.readable is False or n.writable is False)]
    if not missing and not denied:
        return
    problems = []
    if missing:
        problems.append(f"missing: {', '.join(missing)}")
    if denied:
        problems.append(f"not readable and writable by this user: {', '.join(denied)}")
    container = facts.platform.container
    commands: list[Cmd] = []
    if missing:
        commands.append(Cmd(("nvidia-modprobe", "-u", "-c=0"), root=True, note="creates /dev/nvidia-uvm and /dev/nvidia0"))
        if container:
            commands.append(restart_container(container))
    if denied and not container:
        commands += [
            Cmd(("ls", "-l", "/dev/"), pipe=("grep", "nvidia")),
            Cmd(("usermod", "-aG", "video", Placeholder("user")), root=True, note="then log in again"),
        ]
    elif denied:
        commands += container_gpu_commands(container)
    yield Finding(
        "device-nodes-missing",
        Severity.ERROR,
        "driver",
        "the GPU device nodes are " + ("missing" if missing else "not accessible to this user"),
        "CUDA opens /dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidiaN; "
        + "; ".join(problems)
        + ". Frameworks then report no GPU or 'CUDA driver initialization failed'.",
        tuple(ev(f"file:{p}", "absent") for p in missing) + tuple(ev(f"file:{p}", "permission denied") for p in denied),
        Remediation(
            (
                "Create the nodes (nvidia-modprobe) or give this user access to them."
                if not container
                else "A container sees the host's device nodes: create them on the host (nvidia-modprobe), then restart the "
                "container, started with GPU access through the NVIDIA container toolkit."
            ),
            tuple(commands),
            requires_root=True,
            component="container" if container and not missing else "driver",
            where=where_run(facts),
        ),
    )


def _probe_timeouts(facts: Facts) -> list[tuple[str, str, bool]]:
    """(probe, what, hung-driver?) for every probe that ran out of time."""
    out = []
    d = facts.driver
    if d.smi_status == "timeout":
        out.append(("nvidia-smi", f"nvidia-smi did not answer within {d.smi_timeout_s or '?'} s", True))
    if d.nvml_status == "timeout":
        out.append(("nvml", d.nvml_error or "NVML did not answer", True))
    for name, why in facts.failures.items():
        if why.kind == "timeout" and name not in ("nvidia-smi", "nvml"):
            out.append((name, why.message, False))
    for problem in facts.toolkits.problems + tuple(p for t in facts.toolkits.toolkits for p in t.problems):
        if "timed out" in problem:
            out.append(("toolkits", problem, False))
    for name, outcome in (("ldconfig", facts.ldconfig), ("pci", facts.kernel.pci), ("python", facts.frameworks.python)):
        if isinstance(outcome, Unknown) and outcome.kind == "timeout" and name not in facts.failures:
            out.append((name, outcome.message, False))
    for name, reply in facts.frameworks.deep.items():
        if reply.get("timeout"):
            out.append((f"deep-{name}", reply.get("error", ""), False))
    return out


def check_probe_timeout(facts: Facts, ctx: Context) -> Iterable[Finding]:
    timeouts = _probe_timeouts(facts)
    if not timeouts:
        return
    hung = any(h for _, _, h in timeouts)
    names = ", ".join(sorted({n for n, _, _ in timeouts}))
    yield Finding(
        "probe-timeout",
        Severity.ERROR if hung else Severity.WARNING,
        "driver" if hung else "doctor",
        f"a probe hung past its time limit: {names}",
        (
            "nvidia-smi or NVML not answering usually means the driver is stuck (a GPU that fell off the bus, an Xid "
            "error, a wedged persistence daemon); every CUDA program will hang the same way. "
            if hung
            else "The diagnosis of that area is incomplete. "
        )
        + "; ".join(what for _, what, _ in timeouts),
        tuple(ev(f"probe:{n}", what) for n, what, _ in timeouts),
        Remediation(
            "Look for Xid errors in the kernel log; a GPU in that state needs a reset or a reboot"
            + (" of the host." if facts.platform.container else ".")
            if hung
            else "Rerun with a longer --probe-timeout; if it still hangs, run the command by hand to see where.",
            (
                Cmd(("dmesg",), root=True, pipe=("grep", "-i", "xid")),
                Cmd(("timeout", "30", "nvidia-smi")),
                Cmd(
                    ("nvidia-smi", "--gpu-reset", "-i", Placeholder("index")),
                    root=True,
                    note="the GPU the kernel log names; no process may use it",
                ),
            )
            if hung
            else (Cmd(("gpudoctor", "check", "--probe-timeout", "30")),),
            requires_root=hung,
            component="driver" if hung else "doctor",
            where=where_run(facts) if hung else "",
        ),
    )


CHECKS = (
    Check("gpu-present", "gpu", ("gpu-none",), check_gpu_none),
    Check("nouveau", "driver", ("driver-nouveau",), check_nouveau),
    Check("driver-loaded", "driver", ("driver-missing",), check_driver_missing),
    Check("driver-library", "driver", ("driver-library-mismatch",), check_library_mismatch),
    Check("driver-reachable", "driver", ("driver-unreachable",), check_unreachable),
    Check("device-nodes", "driver", ("device-nodes-missing",), check_device_nodes),
    Check("probe-timeouts", "driver", ("probe-timeout",), check_probe_timeout),
)
