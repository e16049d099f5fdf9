"""Remediation commands written for the probed machine: the distribution's package manager, pip in the
probed environment. Every command is data (gpudoctor.cmdline); machine data only ever fills one argument.

Pure: built from facts only. The doctor prints these; it never runs them.

Package names, per family (NVIDIA Driver Installation Guide, "Kernel Modules", SOURCE_DRIVER_GUIDE):
- Ubuntu: its own archive's `nvidia-driver-<branch>` (`-open` for the open kernel modules), or
  `ubuntu-drivers install`, which picks the branch recommended for the GPU.
- Debian: NVIDIA's CUDA repository's `cuda-drivers-<branch>`, or Debian's own `nvidia-driver` (non-free).
- RHEL and its rebuilds (NVIDIA's CUDA repository): `dnf module enable nvidia-driver:<branch>-open`
  (or `:open-dkms` for the newest) then `dnf install nvidia-open`; the proprietary modules, which
  pre-Turing GPUs need, are the `<branch>-dkms` stream.
- Arch: `nvidia-open` (Turing and newer).
Open kernel modules run on Turing (compute capability 7.5) and newer only.
"""

from __future__ import annotations

from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import Facts
from gpudoctor.probed import Found
from gpudoctor.versions import vkey

SOURCE_DRIVER_GUIDE = "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/kernel-modules.html"


def family(facts: Facts) -> str:
    """debian, rhel, suse, arch or unknown, from /etc/os-release."""
    d = facts.platform.distro
    ids = f"{d.id or ''} {d.id_like or ''}".lower()
    if any(x in ids for x in ("debian", "ubuntu")):
        return "debian"
    if any(x in ids for x in ("rhel", "fedora", "centos", "rocky", "almalinux", "amzn")):
        return "rhel"
    if "suse" in ids:
        return "suse"
    if "arch" in ids:
        return "arch"
    return "unknown"


def python_exe(facts: Facts) -> str:
    """The probed interpreter's path (one argument, never quoted here: cmdline quotes it)."""
    env = facts.frameworks.python
    if isinstance(env, Found) and env.value.executable:
        return env.value.executable
    return "python" if (facts.platform.system or "").lower().startswith("win") else "python3"


def pip(facts: Facts, *args: str) -> Cmd:
    """`<the probed python> -m pip ARGS`: each of ARGS is one argument (a spec such as `torch==2.3.1`, unquoted)."""
    return Cmd((python_exe(facts), "-m", "pip", *args))


def open_modules_fit(facts: Facts, ctx=None) -> bool | None:
    """Whether NVIDIA's open kernel modules can drive every GPU here (Turing, 7.5, and newer); None if unknown.

    The compute capability is NVML's, else (with a check Context) the matrix's entry for the GPU's name."""
    ccs = [g.compute_capability for g in facts.driver.gpus if g.compute_capability]
    if not ccs and ctx is not None:
        from gpudoctor.planner.context import gpu_cc

        ccs = [cc for cc in (gpu_cc(g, ctx) for g in facts.driver.gpus) if cc]
    if not ccs:
        flavor = _loaded_flavor(facts)
        return True if flavor == "open" else None
    return all(vkey(cc) >= (7, 5) for cc in ccs)


def _loaded_flavor(facts: Facts) -> str | None:
    proc = facts.kernel.proc_driver
    return proc.value.flavor if isinstance(proc, Found) else None


def driver_install(facts: Facts, branch: str | None = None, ctx=None) -> tuple[Cmd, ...]:
    """Install the NVIDIA driver (a branch such as "550", chosen by code) with this distribution's tools.

    Empty for a distribution without a known recipe: the remediation's summary then says what to do.
    """
    if facts.kernel.run_installer:
        # A .run installation is there: the distribution's packages go on only after it is removed (two
        # installations of one driver break each other), so the removal comes first, in the same step.
        packages = _distribution_driver(facts, branch, ctx)
        return (
            (Cmd(("nvidia-uninstall", "--silent"), root=True, note="removes the .run installation first"), *packages)
            if packages
            else ()
        )
    return _distribution_driver(facts, branch, ctx)


def _distribution_driver(facts: Facts, branch: str | None, ctx) -> tuple[Cmd, ...]:
    fam = family(facts)
    distro = (facts.platform.distro.id or "").lower()
    opened = open_modules_fit(facts, ctx)
    if fam == "debian" and distro == "ubuntu":
        if branch:
            package = f"nvidia-driver-{branch}" + ("-open" if opened else "")
            return (
                Cmd(("apt-get", "update"), root=True),
                Cmd(("apt-get", "install", "-y", package), root=True, note="Ubuntu's archive"),
            )
        return (
            Cmd(("apt-get", "update"), root=True),
            Cmd(("ubuntu-drivers", "install"), root=True, note="the branch Ubuntu recommends for this GPU"),
        )
    if fam == "debian":
        if branch:
            return (
                Cmd(("apt-get", "update"), root=True),
                Cmd(("apt-get", "install", "-y", f"cuda-drivers-{branch}"), root=True, note="NVIDIA's CUDA repository"),
            )
        return (
            Cmd(("apt-get", "update"), root=True),
            Cmd(("apt-get", "install", "-y", "nvidia-driver"), root=True, note="Debian's non-free component"),
        )
    if fam == "rhel":
        if opened is False:
            stream = f"nvidia-driver:{branch or 'latest'}-dkms"
            return (
                Cmd(("dnf", "module", "install", "-y", stream), root=True, note="NVIDIA's CUDA repository; proprietary modules"),
            )
        stream = f"nvidia-driver:{branch}-open" if branch else "nvidia-driver:open-dkms"
        return (
            Cmd(("dnf", "module", "enable", "-y", stream), root=True, note="NVIDIA's CUDA repository"),
            Cmd(("dnf", "install", "-y", "nvidia-open"), root=True),
        )
    if fam == "arch" and opened:
        return (Cmd(("pacman", "-S", "--needed", "nvidia-open"), root=True),)
    return ()


def reboot(facts: Facts | None = None) -> tuple[Cmd, ...]:
    """Restart the machine: `reboot` on Linux; PowerShell's `Restart-Computer` on Windows, which has no `reboot`."""
    if facts is not None and (facts.platform.system or "").lower().startswith("win"):
        return (Cmd(("Restart-Computer",), root=True),)
    return (Cmd(("reboot",), root=True),)


def reload_modules() -> tuple[Cmd, ...]:
    """Unload and load the NVIDIA kernel modules: what a reboot does for the driver, without the reboot."""
    return (
        Cmd(
            ("rmmod", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia"),
            root=True,
            note="or, without a reboot: stop GPU jobs and the display manager first",
        ),
        Cmd(("modprobe", "nvidia"), root=True),
    )


def installed_driver_packages(facts: Facts) -> tuple[Cmd, ...]:
    """List the installed NVIDIA driver packages with this distribution's package database."""
    fam = family(facts)
    if fam == "debian":
        return (Cmd(("dpkg", "-l"), pipe=("grep", "-i", "nvidia")),)
    if fam in ("rhel", "suse"):
        return (Cmd(("rpm", "-qa"), pipe=("grep", "-i", "nvidia")),)
    if fam == "arch":
        return (Cmd(("pacman", "-Q"), pipe=("grep", "-i", "nvidia")),)
    return ()


def package_repair(facts: Facts) -> tuple[Cmd, ...]:
    """Finish an interrupted or partial package upgrade with this distribution's package manager."""
    fam = family(facts)
    if fam == "debian":
        return (
            Cmd(("apt-get", "update"), root=True),
            Cmd(("dpkg", "--configure", "-a"), root=True),
            Cmd(("apt-get", "install", "--fix-broken", "-y"), root=True),
        )
    if fam == "rhel":
        return (Cmd(("dnf", "check"), root=True), Cmd(("dnf", "distro-sync", "-y"), root=True))
    if fam == "suse":
        return (Cmd(("zypper", "verify"), root=True),)
    if fam == "arch":
        return (Cmd(("pacman", "-Syu"), root=True),)
    return ()


def where_run(facts: Facts) -> str:
    """Where a driver fix runs: the host, when this is a container (its kernel module is the host's)."""
    return "the host" if facts.platform.container else ""


def restart_container(runtime: str | None) -> Cmd:
    """Restart the container (Kubernetes: delete the pod, its controller starts a new one)."""
    if runtime == "kubernetes":
        return Cmd(("kubectl", "delete", "pod", Placeholder("pod")), note="its controller starts a new one")
    if runtime == "podman":
        return Cmd(("podman", "restart", Placeholder("container")))
    return Cmd(("docker", "restart", Placeholder("container")))


def container_gpu_commands(runtime: str | None) -> tuple[Cmd, ...]:
    """Start a container with the GPU through the NVIDIA container toolkit, per runtime (commands for the host).

    Docker: `--gpus all` after `nvidia-ctk runtime configure`; Podman: CDI (`nvidia-ctk cdi generate`,
    then `--device nvidia.com/gpu=all`); Kubernetes: a `nvidia.com/gpu` resource limit, which the device
    plugin serves (NVIDIA Container Toolkit install guide).
    """
    if runtime == "kubernetes":
        return (
            Cmd(
                ("kubectl", "describe", "node", Placeholder("node")),
                pipe=("grep", "nvidia.com/gpu"),
                note="the node must offer nvidia.com/gpu; the pod asks for it in resources.limits",
            ),
        )
    if runtime == "podman":
        return (
            Cmd(("nvidia-ctk", "cdi", "generate", "--output=/etc/cdi/nvidia.yaml"), root=True),
            Cmd(("podman", "run", "--device", "nvidia.com/gpu=all", Placeholder("image")), note="with your usual options"),
        )
    return (
        Cmd(
            ("nvidia-ctk", "runtime", "configure", "--runtime=docker"),
            root=True,
            note="needs nvidia-container-toolkit on the host",
        ),
        Cmd(("systemctl", "restart", "docker"), root=True),
        Cmd(("docker", "run", "--gpus", "all", Placeholder("image")), note="with your usual options"),
    )
