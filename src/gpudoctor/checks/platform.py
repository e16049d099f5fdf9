"""Where the doctor runs: containers without GPU access, WSL, CUDA_VISIBLE_DEVICES and MIG."""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.checks.driver import device_nodes_ok, pci_gpus, wsl_linux_driver_libs
from gpudoctor.cmdline import Cmd, Placeholder, SetEnv
from gpudoctor.facts import Facts, Gpu
from gpudoctor.host.nvml import NAMED_IN_TEXT
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.remedy import container_gpu_commands, container_setup_alternative, family, installed_driver_packages
from gpudoctor.probed import Found


def check_container_no_gpu(facts: Facts, ctx: Context) -> Iterable[Finding]:
    plat = facts.platform
    if not plat.container or facts.driver.reachable or device_nodes_ok(facts):
        return
    hints = []
    gpus = pci_gpus(facts)
    if gpus:
        hints.append(ev(facts.kernel.pci.source, f"{len(gpus)} NVIDIA GPU(s) on the host's PCI bus"))
    if plat.env.get("NVIDIA_VISIBLE_DEVICES"):
        hints.append(ev("env:NVIDIA_VISIBLE_DEVICES", plat.env["NVIDIA_VISIBLE_DEVICES"]))
    if plat.env.get("NVIDIA_REQUIRE_CUDA") or any(
        isinstance(o, Found) for o in (facts.frameworks.torch, facts.frameworks.tensorflow, facts.frameworks.jax)
    ):
        hints.append(ev("env:NVIDIA_REQUIRE_CUDA", plat.env.get("NVIDIA_REQUIRE_CUDA", "a CUDA framework is installed")))
    if not pci_gpus(facts) and (isinstance(facts.kernel.pci, Found) or not plat.env.get("NVIDIA_VISIBLE_DEVICES")):
        return  # the host's bus shows no GPU (gpu-none says so), or nothing says one was meant to be here
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        f"this {plat.container} container was started without access to the GPU",
        "No /dev/nvidia* device nodes and no NVIDIA driver library inside the container: the runtime did not pass "
        "the GPU in. Installing a driver inside the container does not help; the container must be started with GPU access.",
        (ev("platform", plat.container_evidence or plat.container), ev("nvml", facts.driver.nvml_status), *hints),
        Remediation(
            "Start the container with GPU access through the NVIDIA container toolkit (on the host"
            + (
                "; with docker compose: deploy.resources.reservations.devices with driver nvidia and capabilities [gpu]"
                if plat.container not in ("kubernetes", "podman")
                else ""
            )
            + ").",
            container_gpu_commands(plat.container),
            requires_root=plat.container != "kubernetes",
            component="container",
            where="the host",
            alternative=container_setup_alternative(plat.container, facts),
        ),
    )


def check_wsl(facts: Facts, ctx: Context) -> Iterable[Finding]:
    plat = facts.platform
    if plat.wsl == 1:
        # wsl -l -v's default row, where the text shows it: the distribution to convert, by its name
        listed = [e for e in facts.pasted.reported("wsl-version-listed") if e.get("version") == "1"]
        distro = listed[0].get("distro") if listed and facts.pasted.partial else None
        yield Finding(
            "wsl1-no-cuda",
            Severity.ERROR,
            "platform",
            "this is WSL 1, where CUDA cannot work",
            "GPU access in WSL needs the WSL 2 kernel (GPU paravirtualisation through /dev/dxg); WSL 1 has none.",
            (ev("platform", f"kernel {plat.release}"), *(ev("pasted", e.line) for e in listed[:1] if distro)),
            Remediation(
                "Convert the distribution to WSL 2 (in Windows PowerShell).",
                (Cmd(("wsl", "--update")), Cmd(("wsl", "--set-version", distro or Placeholder("distro"), "2"))),
                component="platform",
                where="Windows",
            ),
        )
        return
    if plat.wsl != 2:
        return
    linux_libs = wsl_linux_driver_libs(facts)
    proc = facts.kernel.proc_driver
    if not linux_libs and not isinstance(proc, Found):
        return
    evidence = tuple(ev("cmd:ldconfig -p", p) for p in linux_libs)
    if isinstance(proc, Found):
        evidence += (ev("file:/proc/driver/nvidia/version", proc.value.version),)
    yield Finding(
        "wsl-linux-driver-installed",
        Severity.ERROR,
        "platform",
        "a Linux NVIDIA driver is installed inside WSL 2, shadowing the Windows driver",
        "In WSL 2 the driver comes from Windows (its libraries appear under /usr/lib/wsl/lib). A Linux driver "
        "package inside WSL installs its own libcuda.so.1, which cannot reach the GPU and breaks CUDA.",
        evidence,
        Remediation(
            "Remove the Linux driver packages inside WSL and keep only the CUDA toolkit (the WSL-Ubuntu toolkit package has no driver).",
            (
                *installed_driver_packages(facts),
                Cmd(
                    ("apt-get", "remove", "--purge", "nvidia-driver-*", "libnvidia-*"),
                    root=True,
                    note="apt matches these patterns itself",
                ),
                Cmd(("ldconfig",), root=True),
                Cmd(("ls", "-l", "/usr/lib/wsl/lib/libcuda.so.1")),
            )
            if family(facts) == "debian"
            else (*installed_driver_packages(facts), Cmd(("ls", "-l", "/usr/lib/wsl/lib/libcuda.so.1"))),
            requires_root=True,
            component="driver",
        ),
    )


def visible_devices(value: str, gpus: list[tuple[int, str | None]], mig_uuids: int) -> tuple[list[str], list[str]]:
    """(valid, invalid) entries of CUDA_VISIBLE_DEVICES as CUDA reads it.

    CUDA stops at the first invalid entry: everything after it is ignored, so
    "0,7,1" on a two-GPU machine shows only GPU 0.
    """
    valid: list[str] = []
    invalid: list[str] = []
    stopped = False
    for raw in value.split(","):
        entry = raw.strip()
        if stopped:
            invalid.append(entry)
            continue
        ok = False
        if entry.isdigit():
            ok = int(entry) < len(gpus)
        elif entry.startswith(("GPU-", "MIG-")):
            ok = any(uuid and uuid.startswith(entry) for _, uuid in gpus) or (entry.startswith("MIG-") and mig_uuids > 0)
        if ok:
            valid.append(entry)
        else:
            invalid.append(entry)
            stopped = True
    return valid, invalid


def check_cuda_visible_devices(facts: Facts, ctx: Context) -> Iterable[Finding]:
    value = facts.platform.env.get("CUDA_VISIBLE_DEVICES")
    gpus = facts.driver.gpus
    if value is None or not gpus:
        return
    mig = sum(g.mig_devices or 0 for g in gpus)
    valid, invalid = visible_devices(value, [(g.index, g.uuid) for g in gpus], mig)
    if valid and not invalid:
        return
    hides_all = not valid
    meant = _meant_devices(value, valid, len(gpus))
    yield Finding(
        "cuda-visible-devices-hides-all",
        Severity.ERROR if hides_all else Severity.WARNING,
        "gpu",
        "CUDA_VISIBLE_DEVICES hides every GPU" if hides_all else "CUDA_VISIBLE_DEVICES names GPUs that do not exist",
        f"CUDA_VISIBLE_DEVICES={value!r}, and this machine has {len(gpus)} GPU(s) (indices 0-{len(gpus) - 1}). "
        + (
            "No entry names one of them, so every CUDA program sees zero devices."
            if hides_all
            else f"CUDA stops reading at the first invalid entry, so only {', '.join(valid)} is visible; ignored: {', '.join(invalid)}."
        ),
        (
            ev("env:CUDA_VISIBLE_DEVICES", value),
            ev(
                "pasted"
                if facts.driver.nvml_status == NAMED_IN_TEXT
                else "nvml"
                if gpus[0].source == "nvml"
                else "cmd:nvidia-smi",
                f"{len(gpus)} GPU(s)",
            ),
        ),
        Remediation(
            f"List GPUs that exist (indices, or UUIDs from `nvidia-smi -L`), where it is set (a command's prefix or a "
            f"job script wins over the shell): here {meant}.",
            (
                Cmd(("nvidia-smi", "-L")),
                SetEnv("CUDA_VISIBLE_DEVICES", meant),
            ),
            component="environment",
        ),
    )


def _meant_devices(value: str, valid: list[str], count: int) -> str:
    """The value that keeps what the person asked for: the entries that exist, in their order (CUDA stopped before
    them); with none, as many GPUs as entries were written, from index 0."""
    entries = [e.strip() for e in value.split(",") if e.strip()]
    exist = [e for e in entries if e.isdigit() and int(e) < count] or valid
    if exist:
        return ",".join(dict.fromkeys(exist))
    return ",".join(str(i) for i in range(max(1, min(len(entries), count))))


def mig_profiles(g: Gpu):
    """The GPU's own MIG profiles (gpudoctor.memory.mig, from NVIDIA's MIG user guide), or None when unknown."""
    from gpudoctor.memory.mig import mig_gpu

    return mig_gpu(g.name, g.memory_total_bytes)


def mig_create_commands(g: Gpu) -> tuple[Cmd, ...]:
    """List the GPU's profiles, then create two equal GPU instances (each with its compute instance).

    Profiles go by name (`3g.40gb`): `nvidia-smi mig -cgi` takes names as well as ids, and ids differ
    between GPU models (9 is 3g.20gb on an A100 40GB and does not exist on an A30). For a GPU whose
    profiles gpudoctor does not know, the profile is left for the person to pick from `-lgip`.
    """
    index = str(g.index)
    listing = Cmd(("nvidia-smi", "mig", "-i", index, "-lgip"), root=True, note="this GPU's profiles")
    row = mig_profiles(g)
    half = None
    if row is not None:
        halves = [p for p in row.profiles if p.memory * 2 == row.memory_slices and p.max_instances >= 2]
        half = max(halves, key=lambda p: p.compute, default=None)
    if half is None:
        return (
            listing,
            Cmd(
                ("nvidia-smi", "mig", "-i", index, "-cgi", Placeholder("profile"), "-C"),
                root=True,
                note="a profile name from -lgip, repeated with commas for several instances",
            ),
        )
    return (
        listing,
        Cmd(
            ("nvidia-smi", "mig", "-i", index, "-cgi", f"{half.name},{half.name}", "-C"),
            root=True,
            note="two equal instances; other mixes: profiles from -lgip",
        ),
    )


def check_mig(facts: Facts, ctx: Context) -> Iterable[Finding]:
    for g in facts.driver.gpus:
        if not (g.mig_current or g.mig_pending):
            continue
        index = str(g.index)
        if g.mig_current and g.mig_devices is None:
            # MIG is on and what was read stops before the MIG devices (a paste cut there): whether instances exist
            # is unknown, so nothing is created on a guess. A CUDA process sees one MIG device at most, chosen by its
            # UUID (NVIDIA's MIG user guide, "CUDA Device Enumeration"); a count of GPUs from NVML beside CUDA's
            # enumeration of MIG devices is what fails with whole-GPU indices.
            severity, title = Severity.WARNING, f"MIG is on for GPU {g.index}: a process must be given one MIG device"
            detail = (
                "With MIG enabled, CUDA enumerates MIG devices, not the whole GPU, and one process can use one MIG "
                "device at most; a program started without choosing one by its UUID finds fewer devices than GPUs "
                "(or none, where no instances exist). The text does not show this GPU's MIG devices."
            )
            summary = (
                "List the MIG devices (nvidia-smi -L prints a MIG-<uuid> line under each GPU for each instance) and "
                "start the program with CUDA_VISIBLE_DEVICES set to one of them. Where none are listed, no instances "
                "exist: create them (nvidia-smi mig -cgi) or turn MIG off where whole GPUs are wanted (nvidia-smi -i N "
                "-mig 0, then a GPU reset)."
            )
            pick: tuple[Cmd | SetEnv, ...] = (
                Cmd(("nvidia-smi", "-L"), note="the MIG-<uuid> lines under each GPU: its instances"),
                SetEnv("CUDA_VISIBLE_DEVICES", "MIG-<uuid>", note="one MIG UUID from nvidia-smi -L, then run the program"),
            )
            yield Finding(
                "mig-enabled",
                severity,
                "gpu",
                title,
                detail,
                (ev(g.source, f"mig current={g.mig_current} pending={g.mig_pending} instances=unknown"),),
                Remediation(summary, pick, component="gpu"),
            )
            continue
        if g.mig_current and not g.mig_devices:
            row = mig_profiles(g)
            severity, title = Severity.WARNING, f"MIG is on for GPU {g.index} but no MIG instances exist"
            detail = (
                "With MIG enabled, CUDA can only use MIG instances, and none are configured, so frameworks see "
                "no usable device on this GPU."
                + (f" The {row.model}'s profiles: {', '.join(p.name for p in row.profiles)}." if row else "")
            )
            summary = (
                "Create MIG instances from this GPU's own profiles (by name), or turn MIG off where whole GPUs "
                "are wanted (nvidia-smi -i N -mig 0, then a GPU reset)."
            )
            commands = mig_create_commands(g)
        elif g.mig_pending and not g.mig_current:
            severity, title = Severity.WARNING, f"MIG mode on GPU {g.index} is pending a GPU reset"
            detail = "MIG was enabled but takes effect only after the GPU is reset or the machine reboots."
            summary = "Reset the GPU once no process uses it (or reboot) so that the pending MIG mode takes effect."
            commands = (Cmd(("nvidia-smi", "--gpu-reset", "-i", index), root=True, note="no process may use this GPU"),)
        else:
            severity, title = Severity.INFO, f"GPU {g.index} is partitioned with MIG ({g.mig_devices or 0} instance(s))"
            detail = (
                "Each process sees one MIG instance at most; select it with CUDA_VISIBLE_DEVICES=MIG-<uuid> "
                "(from `nvidia-smi -L`). Frameworks cannot use several instances in one process."
            )
            summary = (
                "Give each process one MIG instance by UUID (CUDA_VISIBLE_DEVICES=MIG-<uuid>), or turn MIG off "
                "where whole GPUs are wanted."
            )
            commands = (Cmd(("nvidia-smi", "-L"), note="the MIG-... UUIDs to put in CUDA_VISIBLE_DEVICES"),)
        yield Finding(
            "mig-enabled",
            severity,
            "gpu",
            title,
            detail,
            (ev(g.source, f"mig current={g.mig_current} pending={g.mig_pending} instances={g.mig_devices}"),),
            Remediation(summary, commands, requires_root=severity >= Severity.WARNING, component="gpu"),
        )


CHECKS = (
    Check("container-gpu", "platform", ("container-no-gpu",), check_container_no_gpu),
    Check("wsl", "platform", ("wsl1-no-cuda", "wsl-linux-driver-installed"), check_wsl),
    Check("cuda-visible-devices", "gpu", ("cuda-visible-devices-hides-all",), check_cuda_visible_devices),
    Check("mig", "gpu", ("mig-enabled",), check_mig),
)
