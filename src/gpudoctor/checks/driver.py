"""The GPU and its driver: is there a GPU, is the NVIDIA driver loaded and reachable, and do its parts agree.

These checks are the root of the diagnosis: when one of them fires, the
driver-dependent checks elsewhere find no driver version and stay silent,
so a missing driver is said once, not ten times.
"""

from __future__ import annotations

from typing import Iterable

from gpudoctor.checks import Check, Context, ev
from gpudoctor.checks.remedy import (
    driver_install,
    family,
    installed_driver_packages,
    package_repair,
    reboot,
    reload_modules,
    where_run,
)
from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import Facts, Gpu
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.probed import Found, Unknown
from gpudoctor.versions import major, vkey

# NVML states that mean "there is no usable user-space driver library here".
NO_LIBRARY = ("library_not_found",)


def pci_gpus(facts: Facts) -> tuple | None:
    """NVIDIA GPUs on the PCI bus; None when the bus could not be read."""
    pci = facts.kernel.pci
    return pci.value if isinstance(pci, Found) else None


def gpu_present(facts: Facts) -> bool:
    """Any sign of an NVIDIA GPU: the PCI bus, the driver's own list, or (WSL2) the GPU paravirtualisation node."""
    return bool(pci_gpus(facts)) or bool(facts.driver.gpus) or (facts.platform.wsl == 2 and _has_node(facts, "/dev/dxg"))


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
            (Cmd(("lspci", "-nn"), pipe=("grep", "-i", "nvidia")),),
            component="gpu",
        ),
    )


def check_nouveau(facts: Facts, ctx: Context) -> Iterable[Finding]:
    bound = [g for g in pci_gpus(facts) or () if g.kernel_driver == "nouveau"]
    if not (facts.kernel.nouveau_loaded or bound):
        return
    evidence = [ev("file:/proc/modules", "nouveau loaded")] if facts.kernel.nouveau_loaded else []
    evidence += [ev(f"file:/sys/bus/pci/devices/{g.slot}/driver", "nouveau") for g in bound]
    yield Finding(
        "driver-nouveau",
        Severity.ERROR,
        "driver",
        "the open-source nouveau driver holds the GPU, so CUDA cannot use it",
        "nouveau drives the display but has no CUDA support; the NVIDIA driver cannot load while nouveau holds the GPU.",
        tuple(evidence),
        Remediation(
            "Blacklist nouveau, rebuild the initramfs, install the NVIDIA driver, and reboot: nouveau holds the "
            "display, so only a reboot frees the GPU for the NVIDIA module.",
            (
                Cmd(("printf", "%s\\n", "blacklist nouveau", "options nouveau modeset=0"),
                    pipe=("sudo", "tee", "/etc/modprobe.d/blacklist-nouveau.conf")),
                *_rebuild_initramfs(facts),
                *driver_install(facts),
                *reboot(),
            ),
            requires_root=True,
            component="driver",
        ),
    )


def check_driver_missing(facts: Facts, ctx: Context) -> Iterable[Finding]:
    d = facts.driver
    if not pci_gpus(facts) or d.reachable or facts.platform.wsl:
        return
    if facts.kernel.nouveau_loaded or any(g.kernel_driver == "nouveau" for g in pci_gpus(facts) or ()):
        return  # driver-nouveau names the cause
    if kernel_driver_version(facts) or facts.kernel.nvidia_loaded:
        return  # a module is loaded: unreachable or mismatch, not missing
    if facts.platform.container:
        return  # in a container the host's driver is what matters: container-no-gpu
    bound = sorted({g.kernel_driver for g in pci_gpus(facts) if g.kernel_driver})
    yield Finding(
        "driver-missing",
        Severity.ERROR,
        "driver",
        "an NVIDIA GPU is installed but no NVIDIA driver is loaded",
        "The GPU is on the PCI bus, but /proc/driver/nvidia/version does not exist and NVML cannot load "
        "(" + d.nvml_status + "). Nothing can use the GPU until the NVIDIA kernel driver is installed and loaded."
        + (f" The device is bound to {', '.join(bound)}." if bound else ""),
        (
            ev(facts.kernel.pci.source, ", ".join(f"{g.slot} {g.name or g.device_id or ''}".strip() for g in pci_gpus(facts))),
            ev("file:/proc/driver/nvidia/version", "absent"),
            ev("nvml", d.nvml_status),
        ),
        Remediation(
            "Install the NVIDIA driver for this GPU (a recent production branch"
            + ("" if driver_install(facts) else ", from your distribution's packages or NVIDIA's installer")
            + "), then load it. If it is installed, load it and read the kernel log for why it did not load: "
            "with Secure Boot on, an unsigned module is refused (enroll the key the driver package created, or "
            "use the distribution's signed modules).",
            (
                *driver_install(facts),
                Cmd(("modprobe", "nvidia"), root=True),
                Cmd(("dmesg",), root=True, pipe=("grep", "-i", "-E", "nvidia|nvrm")),
                Cmd(("mokutil", "--sb-state"), note="Secure Boot on: the module must be signed"),
            ),
            requires_root=True,
            component="driver",
        ),
    )


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
    from gpudoctor.parsers.error_texts import extract_nvml_library_version

    d = facts.driver
    for text in (d.smi_error, d.nvml_error):
        stated = extract_nvml_library_version(text or "")
        if stated:
            return stated
    if d.nvml_version:
        # NVML's version is "12.550.54.14": CUDA major, then the driver version.
        parts = d.nvml_version.split(".", 1)
        return parts[1] if len(parts) == 2 else d.nvml_version
    return d.nvml_driver_version or d.smi_driver_version


def check_library_mismatch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    d = facts.driver
    kernel = kernel_driver_version(facts)
    if not (kernel or d.nvml_status != "ok" or d.smi_error):
        return  # nothing to compare and nothing said: skip the error-text parser's import
    library = _library_version(facts)
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
    yield Finding(
        "driver-library-mismatch",
        Severity.ERROR,
        "driver",
        "the loaded NVIDIA kernel module and the user-space driver library are different versions",
        "Typically the driver packages were upgraded while the old kernel module stayed loaded "
        f"(kernel module {kernel or 'unknown'}, library {library or 'unknown'}). NVML, nvidia-smi and every CUDA "
        "program fail with 'Driver/library version mismatch' until the module is reloaded.",
        tuple(evidence),
        Remediation(
            "Reboot (simplest), or unload and reload the NVIDIA modules once no process uses the GPU.",
            (
                *reboot(),
                "# or, without a reboot (stop the display manager and GPU jobs first):",
                "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia",
            ),
            requires_root=True,
        ),
    )


def check_unreachable(facts: Facts, ctx: Context) -> Iterable[Finding]:
    d = facts.driver
    if d.reachable or not (pci_gpus(facts) or kernel_driver_version(facts) or facts.platform.wsl == 2):
        return
    if d.nvml_status == "lib_rm_version_mismatch" or d.smi_error_kind == "driver-library-mismatch":
        return  # driver-library-mismatch
    if d.nvml_status in ("timeout",) or d.smi_status == "timeout":
        return  # probe-timeout says it hung
    if wsl_linux_driver_libs(facts):
        return  # wsl-linux-driver-installed names the cause
    if d.nvml_status == "binding_missing" and d.smi_status == "missing":
        return  # gpudoctor's own NVML binding is missing: probe-failed says so
    if facts.platform.container and not device_nodes_ok(facts):
        return  # container-no-gpu
    if not kernel_driver_version(facts) and not facts.kernel.nvidia_loaded and not facts.platform.wsl:
        if not facts.platform.container:
            return  # driver-missing
    evidence = [ev("nvml", f"{d.nvml_status}: {d.nvml_error or ''}".strip(": "))]
    if d.smi_status != "missing":
        evidence.append(ev("cmd:nvidia-smi", f"{d.smi_status}: {d.smi_error or ''}".strip(": ")))
    if kernel_driver_version(facts):
        evidence.append(ev("file:/proc/driver/nvidia/version", kernel_driver_version(facts)))
    fix = (
        "Run as a user in the video group (or root); check the kernel log; a GPU that fell off the bus needs a reset or reboot.",
        ("sudo dmesg | grep -i -E 'nvrm|xid'", "nvidia-smi", *reboot()),
    )
    if d.nvml_status == "no_permission":
        fix = ("Give this user access to the GPU device nodes (the video group on most distributions).", ("sudo usermod -aG video $USER",))
    elif d.nvml_status in NO_LIBRARY and (kernel_driver_version(facts) or facts.platform.wsl):
        fix = (
            "The kernel module is loaded but libnvidia-ml.so.1 cannot be loaded: install the driver's user-space "
            "libraries of the same version" + (" (in WSL they come from Windows under /usr/lib/wsl/lib)." if facts.platform.wsl else "."),
            ("ldconfig -p | grep -E 'libnvidia-ml|libcuda'",),
        )
    elif d.nvml_error and "Unknown Error" in d.nvml_error and facts.platform.container:
        fix = (
            "Inside containers this follows a `systemctl daemon-reload` on the host, which revokes the container's "
            "device access (cgroups). Restart the container; for good, configure the NVIDIA container toolkit to use "
            "the cgroup driver 'cgroupfs' or upgrade it.",
            ("docker restart <container>",),
        )
    yield Finding(
        "driver-unreachable",
        Severity.ERROR,
        "driver",
        "the NVIDIA driver is loaded but NVML and nvidia-smi cannot talk to it",
        f"NVML answers {d.nvml_status}" + (f" and nvidia-smi {d.smi_status}" if d.smi_status != "missing" else "")
        + "; no GPU can be used until this is solved.",
        tuple(evidence),
        Remediation(fix[0], fix[1]),
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
    commands = []
    if missing:
        commands += ["sudo nvidia-modprobe -u -c=0  # creates /dev/nvidia-uvm and /dev/nvidia0", "sudo nvidia-persistenced"]
    if denied:
        commands += ["ls -l /dev/nvidia*", "sudo usermod -aG video $USER  # then log in again"]
    yield Finding(
        "device-nodes-missing",
        Severity.ERROR,
        "driver",
        "the GPU device nodes are " + ("missing" if missing else "not accessible to this user"),
        "CUDA opens /dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidiaN; " + "; ".join(problems)
        + ". Frameworks then report no GPU or 'CUDA driver initialization failed'.",
        tuple(ev(f"file:{p}", "absent") for p in missing) + tuple(ev(f"file:{p}", "permission denied") for p in denied),
        Remediation("Create the nodes (nvidia-modprobe) or give this user access to them.", tuple(commands), requires_root=True),
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
            "Look for Xid errors in the kernel log; a GPU in that state needs a reset or a reboot."
            if hung
            else "Rerun with a longer --probe-timeout; if it still hangs, run the command by hand to see where.",
            ("sudo dmesg | grep -i xid", "timeout 30 nvidia-smi", "sudo nvidia-smi --gpu-reset -i <index>  # the GPU the kernel log names; no process may use it")
            if hung
            else ("gpudoctor check --probe-timeout 30",),
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


def usable_gpus(facts: Facts) -> tuple[Gpu, ...]:
    return tuple(g for g in facts.driver.gpus if not g.lost)
