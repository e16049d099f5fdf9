"""Catalogued messages of clusters and multi-GPU runs: Slurm's device constraint and a job without GPUs, peer-to-peer
behind a PCIe switch with ACS, an NCCL socket interface that cannot route.

The GPUs are there and work; what a job sees of them, or how its ranks reach each other, is the scheduler's or the
network's, so the fix is the job's request, the node's configuration or NCCL's settings, not a driver or a package.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.facts import Facts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context

# Packages that read CUDA_VISIBLE_DEVICES as integers and failed on Slurm's NoDevFiles, with the first release that
# handles it: ray (ray-project/ray pull 7014, "fix gpu ids for SLURM", merged 2020-02-03; released in 0.8.2).
_PARSES_NODEVFILES_FROM = {"ray": "0.8.2"}


def check_slurm_job_without_gpus(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA_VISIBLE_DEVICES=NoDevFiles: Slurm's GPU GRES plugin writes it into a job or step allocated no GPU
    (SchedMD/slurm src/plugins/gres/common/gres_common.c), so CUDA sees no device. The job asks for GPUs with
    --gres=gpu:N (or --gpus); a CPU-only run unsets the variable."""
    from gpudoctor.cmdline import Cmd, Placeholder

    said = _said(facts, "slurm-job-without-gpus")
    if not said:
        return
    from gpudoctor.facts import COMPONENT_NAMED
    from gpudoctor.planner.where import python_step

    # A program that failed to parse the value (Python's int('NoDevFiles')) whose release handles it: the upgrade works
    # with or without GPUs, so it is the other way, beside asking Slurm for GPUs (which the job may not want).
    parsed = any("invalid literal for int()" in e.line for e in said)
    fixed = [
        (pkg, at)
        for pkg, at in _PARSES_NODEVFILES_FROM.items()
        if any(c.get("cue") == COMPONENT_NAMED and c.get("means") == pkg for c in facts.pasted.cues)
    ]
    upgrade = (
        Remediation(
            f"{fixed[0][0]} before {fixed[0][1]} reads CUDA_VISIBLE_DEVICES as GPU numbers and fails on Slurm's "
            f"NoDevFiles; {fixed[0][1]} and later handle it (ray-project/ray pull 7014), with GPUs or without: upgrade "
            "it in the job's interpreter.",
            (python_step(facts, "-m", "pip", "install", "--upgrade", f"{fixed[0][0]}>={fixed[0][1]}"),),
            component="environment",
        )
        if parsed and fixed
        else None
    )
    yield Finding(
        "cuda-visible-devices-hides-all",
        Severity.ERROR,
        "gpu",
        "the Slurm job was allocated no GPU (CUDA_VISIBLE_DEVICES=NoDevFiles)",
        "Slurm sets CUDA_VISIBLE_DEVICES to NoDevFiles in a job or step that asked for no GPU (no --gres=gpu:N, no "
        "--gpus): CUDA then sees no device, and a program that reads the variable as GPU indices fails on it. The "
        "driver and the GPUs of the node are not at fault.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Whether the job should use GPUs decides it. If it should, ask Slurm for them: --gres=gpu:N (GPUs per "
            "node) on sbatch or srun, or #SBATCH --gres=gpu:N in the batch script, on a partition whose nodes have GPUs "
            "(sinfo -o '%P %N %G'). A run meant for the CPU unsets CUDA_VISIBLE_DEVICES in the script instead.",
            (
                Cmd(("scontrol", "show", "job", Placeholder("job-id")), note="the job's allocation: no gres, no GPU"),
                Cmd(("srun", "--gres=gpu:1", "nvidia-smi", "-L"), note="a step with a GPU lists it"),
                Cmd(("sbatch", "--gres=gpu:1", Placeholder("job-script")), note="or #SBATCH --gres=gpu:N in the script"),
            ),
            component="gpu",
            alternative=upgrade,
        ),
    )


def check_slurm_devices_unconstrained(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """Slurm's cgroup.conf without ConstrainDevices=yes, beside a job's GPUs: Slurm then writes the node's global GPU
    indices into CUDA_VISIBLE_DEVICES (SchedMD/slurm src/plugins/gres/common/gres_common.c: the local index only where
    the cgroup constrains devices), while a container of the job (pyxis/enroot, a cgroup'd step) holds only the
    allocated /dev/nvidiaN, which CUDA numbers from 0: `CUDA_VISIBLE_DEVICES=2` then names no device there."""
    from gpudoctor.cmdline import Cmd

    said = _said(facts, "slurm-devices-unconstrained")
    if not said:
        return
    yield Finding(
        "cuda-visible-devices-hides-all",
        Severity.ERROR,
        "gpu",
        "Slurm does not constrain the job's devices, so CUDA_VISIBLE_DEVICES holds the node's GPU numbers",
        "The cgroup.conf shown has no ConstrainDevices=yes: Slurm then sets CUDA_VISIBLE_DEVICES to the node-wide "
        "index of the GPU it allocated (2 for the third GPU) instead of the job's own (0). Where the job sees only its "
        "allocated /dev/nvidiaN (a container started by pyxis/enroot), CUDA numbers that one GPU 0, and index 2 names "
        "none, so the program finds no GPU. The driver and the GPUs are not at fault.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Have Slurm constrain devices on the GPU nodes (an administrator's task): ConstrainDevices=yes in "
            "/etc/slurm/cgroup.conf (TaskPlugin must include task/cgroup in slurm.conf), then restart slurmd; jobs then "
            "see their GPUs numbered from 0.",
            (
                Cmd(("grep", "-i", "-e", "TaskPlugin", "-e", "GresTypes", "/etc/slurm/slurm.conf")),
                Cmd(
                    ("echo", "ConstrainDevices=yes"),
                    pipe=("sudo", "tee", "-a", "/etc/slurm/cgroup.conf"),
                    note="on every GPU node",
                ),
                Cmd(("systemctl", "restart", "slurmd"), root=True, note="on every GPU node"),
                Cmd(
                    ("srun", "--gres=gpu:1", "printenv", "CUDA_VISIBLE_DEVICES"),
                    note="0 now, the job's own index",
                ),
            ),
            requires_root=True,
            component="gpu",
        ),
    )


def check_p2p_behind_switch(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """GPUs linked through PCIe switches (nvidia-smi topo -m: PIX, PXB) whose P2P hangs and which work with
    NCCL_P2P_DISABLE=1: PCI Access Control Services (ACS), enabled with the IOMMU (VT-d), redirect peer-to-peer
    traffic to the CPU's root complex, which can hang it (NCCL's troubleshooting guide, "PCI Access Control Services";
    https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html). Turning P2P off only hides it."""
    from gpudoctor.cmdline import Cmd

    said = _said(facts, "p2p-hang-behind-switch")
    if not said:
        return
    gpus = said[0].get("gpus") or "2"
    yield Finding(
        "nccl-transport-disabled",
        Severity.WARNING,
        "frameworks",
        "peer-to-peer between GPUs behind a PCIe switch hangs: ACS or the IOMMU redirects it",
        "The topology shows GPUs linked through PCIe switches (PIX/PXB), their peer-to-peer traffic hangs, and "
        "NCCL_P2P_DISABLE=1 works around it at a large cost in bandwidth. That is the sign of PCI Access Control "
        "Services (ACS), or the IOMMU (VT-d) that enables them, sending peer-to-peer traffic up to the CPU's root "
        "complex (NCCL's troubleshooting guide). The driver and NCCL are not at fault.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Let peer-to-peer go through the switch: disable ACS (and VT-d/IOMMU, or set iommu=pt) in the BIOS or on the "
            "kernel command line, cold-boot, and run without NCCL_P2P_DISABLE. 'setpci' can clear ACS on each bridge "
            "until the next boot (NCCL's guide).",
            (
                Cmd(("sudo", "lspci", "-vvv"), pipe=("grep", "-i", "acsctl"), note="SrcValid+ on a bridge: ACS is on"),
                Cmd(("cat", "/proc/cmdline"), note="intel_iommu=on or amd_iommu=on: the IOMMU is on"),
                Cmd(
                    ("./build/all_reduce_perf", "-b", "8", "-e", "128M", "-f", "2", "-g", gpus),
                    note="in nccl-tests, after the reboot, without NCCL_P2P_DISABLE",
                ),
            ),
            requires_root=True,
            component="platform",
        ),
    )


# NCCL's failures of a connection between ranks (c10d's wrapper, PyTorch's spellings of the system error, NCCL's own
# WARN of a connect that failed, a remote error): beside them the interfaces NCCL offered decide.
_NCCL_LINK_FAILED = frozenset({"nccl-error", "nccl-system-error", "nccl-connect-failed", "nccl-remote-error"})


# Interfaces another host cannot reach: docker's and libvirt's bridges and a container's veth pair (NCCL's default
# NCCL_SOCKET_IFNAME excludes docker*, lo and virbr*, not veth*), loopback, and link-local addresses (fe80::, 169.254.).
_UNROUTABLE_NAME = LazyPattern(r"(?:docker|veth|virbr|br-|cni|flannel|cali)\w*|lo", re.IGNORECASE)


_INTERFACE = LazyPattern(r"\[\d+\](?P<name>[^:\s]+):(?P<address>\S+?)<\d+>")


def _unroutable(name: str, address: str) -> bool:
    return bool(_UNROUTABLE_NAME.fullmatch(name)) or address.lower().startswith(("fe80:", "169.254.", "127."))


def check_nccl_interface_unroutable(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NCCL's socket transport offered the other ranks an interface they cannot reach (a container's veth, a docker
    bridge, an IPv6 link-local fe80:: address) beside a real one, and a connection between ranks failed (or the log ends
    before any communicator completed its initialisation): without
    NCCL_SOCKET_IFNAME NCCL uses every interface but docker*, lo and virbr* (NVIDIA/nccl src/misc/socket.cc), spreading
    its connections over them; NCCL_SOCKET_IFNAME naming the real one fixes it (NCCL's environment variables,
    https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html; its maintainer on NVIDIA/nccl#913 and #286)."""
    said = _said(facts, "nccl-interfaces-said")
    failed = [e for e in facts.pasted.errors if e.kind in _NCCL_LINK_FAILED]
    # No failure shown: NCCL's log cut before any communicator completed its initialisation is a run that did not get
    # its ranks connected (NCCL_DEBUG=INFO logs are pasted for runs that hung or failed); one that completed is not,
    # nor one whose channels shown all stay within one machine (P2P, shared memory: no socket between them).
    local = _said(facts, "nccl-channels-local") and not _said(facts, "nccl-channels-net")
    if not said or (not failed and (_said(facts, "nccl-init-complete") or local)):
        return
    interfaces = [(m["name"], m["address"]) for m in _INTERFACE.finditer(said[0].get("interfaces") or "")]
    bad = [f"{n} ({a})" for n, a in interfaces if _unroutable(n, a)]
    good = list(dict.fromkeys(n for n, a in interfaces if not _unroutable(n, a)))
    if not bad or not good:
        return
    shown = ",".join(good)
    yield Finding(
        "nccl-interface-unroutable",
        Severity.WARNING,
        "platform",
        f"NCCL offers the other ranks an interface they cannot reach: {', '.join(bad)}",
        f"NCCL's log shows the interfaces its socket transport offers the other ranks: {', '.join(bad)} beside "
        f"{shown}. A container's veth or a docker bridge, and an IPv6 link-local (fe80::) address, are not reachable "
        "from another host, and NCCL spreads its connections over every interface it offers, so the connections made "
        "on those fail (connection refused, network unreachable, or a hang"
        + ("" if failed else ", as where this log stops before NCCL completed its initialisation")
        + "). The driver, CUDA and NCCL are not at "
        "fault.",
        tuple(ev("pasted", e.line) for e in (said[0], *failed[:1])),
        Remediation(
            f"Set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on ({shown} here) before starting the "
            "ranks, on every host (where the hosts' interface names differ, list each, comma-separated), and rerun.",
            (
                Cmd(("ip", "-brief", "address"), note="on every host: the interface that carries the hosts' addresses"),
                SetEnv(
                    "NCCL_SOCKET_IFNAME",
                    shown,
                    note="on every host, in the shell or job script that starts the ranks",
                ),
            ),
            component="platform",
        ),
    )


def check_nccl_socket_ifname_unmatched(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NCCL's "Bootstrap : no socket interface found" beside NCCL_SOCKET_IFNAME set to a list of interfaces: set, NCCL
    bootstraps only over the interfaces it names ("Specified by user : find or fail", NVIDIA/nccl src/misc/socket.cc
    @5067397c), so a name the machine (or a host-networked container) does not have, or an exact-match `=` form the
    build does not honour, leaves it none. The setting is the fault, not the GPUs or NCCL: it is set to the interface
    that `ip` lists on the ranks' subnet, or unset (NCCL then takes ib*, then any but docker*, lo and virbr*; its
    maintainer on NVIDIA/nccl#286: start with it unset and NCCL_DEBUG=INFO). An exclusion list (`^...`) is not judged:
    what it leaves depends on interfaces the text does not show."""
    failed = _said(facts, "nccl-no-socket-interface")
    named = [e for e in _said(facts, "nccl-socket-ifname-said") if not (e.get("value") or "").startswith("^")]
    if not failed or not named:
        return
    value = named[0].get("value") or ""
    yield Finding(
        "nccl-interface-unroutable",
        Severity.WARNING,
        "platform",
        f"NCCL_SOCKET_IFNAME={value} leaves NCCL no interface to bootstrap on",
        f"NCCL found no socket interface, and the text shows NCCL_SOCKET_IFNAME set to {value}: set, NCCL uses only the "
        "interfaces it names (a prefix each, or an exact name after =), so a name this machine or its host-networked "
        "container does not have leaves it none, before any GPU work. The driver, CUDA and NCCL are not at fault.",
        tuple(ev("pasted", e.line) for e in (failed[0], named[0])),
        Remediation(
            "Where each rank runs (inside its container), list the interfaces and set NCCL_SOCKET_IFNAME to the one that "
            "holds the address the ranks reach each other on (MASTER_ADDR's subnet; comma-separated where the hosts' "
            "names differ), or unset it and let NCCL choose; with NCCL_DEBUG=INFO the log names the interface it took "
            "('Bootstrap : Using'). Then start the ranks again.",
            (
                Cmd(("ip", "-brief", "address"), note="where each rank runs: the interface on the ranks' subnet"),
                SetEnv("NCCL_SOCKET_IFNAME", None, note="or set it to that interface, on every host"),
                SetEnv("NCCL_DEBUG", "INFO", note="the log names the interface NCCL bootstraps on"),
            ),
            component="platform",
        ),
    )


def check_nccl_memlock_low(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NCCL's verbs call failing with ENOMEM ("Call to ibv_reg_mr failed with error Cannot allocate memory",
    src/misc/ibvwrap.cc) beside the locked-memory limit shown as a number: memory registration pins the buffers, and a
    limit of kilobytes (ulimit -l: 64 or 8192, not unlimited) refuses it. NCCL's troubleshooting guide (InfiniBand)
    asks for memlock unlimited; limits.conf reaches only the sessions PAM starts after the change, so the limit is read
    again in a new login and through the launcher that starts the ranks (NCCL's maintainer on the nccl-tests thread of
    tests/blind/plans13/cases/1306-*: even within mpirun). A limit shown unlimited leaves the failure unexplained."""
    failed = _said(facts, "nccl-ib-memlock")
    limits = [e for e in _said(facts, "memlock-limit-said") if (e.get("kb") or e.get("said") or "").isdigit()]
    if not failed or not limits:
        return
    kb = limits[0].get("kb") or limits[0].get("said")
    config = "/etc/security/limits.d/99-memlock.conf"
    yield Finding(
        "nccl-memlock-too-low",
        Severity.ERROR,
        "platform",
        f"NCCL cannot pin memory for InfiniBand: the locked-memory limit is {kb} KiB (ulimit -l), not unlimited",
        f"NCCL's {failed[0].get('call') or 'verbs'} call failed with 'Cannot allocate memory', and the text shows the "
        f"processes' locked-memory limit at {kb} KiB. Registering buffers with the InfiniBand (or RoCE) adapter pins "
        "them, which that limit refuses; NCCL needs it unlimited. The GPUs, the driver, NCCL and the InfiniBand stack "
        "are not at fault.",
        tuple(ev("pasted", e.line) for e in (failed[0], limits[0])),
        Remediation(
            "Raise the locked-memory limit to unlimited for the users who run the ranks (a limits.d file; for ranks a "
            "service starts, such as slurmd or sshd, LimitMEMLOCK=infinity in its systemd unit and a restart; in a "
            "docker container, --ulimit memlock=-1:-1), log in again so the new limit applies, confirm it where the "
            "ranks run (through mpirun or srun, as the job starts them), and rerun the job.",
            (
                Cmd(("grep", "-r", "memlock", "/etc/security/limits.conf", "/etc/security/limits.d"), note="what is set now"),
                Cmd(
                    ("printf", "* soft memlock unlimited\\n* hard memlock unlimited\\n"),
                    pipe=("sudo", "tee", config),
                    note="on every node that runs ranks",
                ),
                Cmd(
                    ("sh", "-c", "ulimit -l"),
                    note="in a new login, and run through the job's launcher, mpirun or srun with its arguments: "
                    "unlimited, then rerun the job",
                ),
            ),
            requires_root=True,
            component="platform",
            where="every node that runs ranks",
        ),
    )


# What a program in a container without the driver prints (catalogue.toml: torch-found-no-driver; error_texts' own
# nvidia-smi-not-found and nvml-library-missing, nvidia-smi's "couldn't find libnvidia-ml.so")
_NO_DRIVER_INSIDE = ("torch-no-driver", "nvidia-smi-not-found", "nvml-library-missing")


def check_pyxis_container_without_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A pyxis (srun --container-image) step whose program finds no driver: enroot's NVIDIA hook (NVIDIA/enroot
    conf/hooks/98-nvidia.sh @8ea147d3) injects the driver only where NVIDIA_VISIBLE_DEVICES is set, and libcuda only
    where NVIDIA_DRIVER_CAPABILITIES names compute; an image that is not NVIDIA's sets neither (the maintainers in
    NVIDIA/enroot#205 and NVIDIA/pyxis#96). A node without nvidia-container-cli says so in its own words
    (enroot-container-cli-missing): that is the administrator's, not this."""
    from gpudoctor.cmdline import Placeholder

    started = _said(facts, "pyxis-container-started")
    inside = [e for e in facts.pasted.errors if e.kind in _NO_DRIVER_INSIDE] if started else []
    if not inside or _said(facts, "enroot-container-cli-missing"):
        return
    image = started[0].get("image") or Placeholder("image")
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the pyxis container was started without the driver: NVIDIA_VISIBLE_DEVICES is not set for it",
        "The job step runs in a container that pyxis started with enroot (srun --container-image), and the program in it "
        "finds no NVIDIA driver, as the text shows. enroot's NVIDIA hook mounts the driver into the container only where "
        "NVIDIA_VISIBLE_DEVICES is set, in the image's environment or the job's, and the CUDA library only where "
        "NVIDIA_DRIVER_CAPABILITIES names compute. NVIDIA's CUDA images set both; this image does not. Nothing is "
        "installed for it: the job sets the two variables (srun passes its environment on).",
        (ev("pasted", started[0].line), ev("pasted", inside[0].line)),
        Remediation(
            "Start the step with NVIDIA_VISIBLE_DEVICES=all and NVIDIA_DRIVER_CAPABILITIES=compute,utility in its "
            "environment (export them in the batch script, or ENV lines in the image), with the GPUs requested as "
            "before; the hook then mounts the allocated GPUs' driver.",
            (
                SetEnv("NVIDIA_VISIBLE_DEVICES", "all"),
                SetEnv("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
                Cmd(
                    ("srun", "--gpus=1", f"--container-image={image}", "nvidia-smi", "-L"),
                    note="the allocated GPU is listed inside; then your srun, in the same shell",
                ),
            ),
            component="container",
            where="the cluster's login node",
        ),
    )


# NCCL's log prefix ("host:pid:tid [dev] NCCL INFO ..."): a line without it is the reporter quoting NCCL's words as
# the problem (an issue's title, "I get an error saying ..."), not a log that prints it on every host without RDMA.
_NCCL_LOG_PREFIX = LazyPattern(r"\S+:\d+:\d+ \[\d+\] NCCL INFO")
# An environment module that puts a container runtime on a cluster node's PATH (Lmod/Environment Modules' `module
# load`): the job's program runs in a container that runtime starts (tests/blind/plans22/cases/2202-*: `module load
# docker`; tests/blind/plans13/cases/1352-*: `module load singularity`).
_CONTAINER_MODULE = LazyPattern(
    r"^\s*module\s+(?:load|add)\s+(?:\S+\s+){0,8}?(?P<runtime>docker|podman|singularity|apptainer|enroot|charliecloud)\b",
    re.IGNORECASE,
)
# The options that give a docker container the hosts' RDMA devices: the verbs device nodes (docker's --device), the
# capability to pin memory (CAP_IPC_LOCK: mlock, docker's --cap-add) and an unlimited locked-memory limit (NCCL's
# troubleshooting guide, "Docker": --ulimit memlock=-1; docs.nvidia.com/deeplearning/nccl/user-guide/docs/
# troubleshooting/runtime_and_mpi_issues.html).
_RDMA_DOCKER_OPTIONS = ("--device=/dev/infiniband", "--cap-add=IPC_LOCK", "--ulimit", "memlock=-1")


def _ib_expected(facts: Facts, no_device: list) -> bool:
    """Whether the text expects InfiniBand where NCCL found none: the ranks ran with NCCL_IB_DISABLE=0 (asked for
    it), or the reporter quotes NCCL's 'No device found' as the problem, outside NCCL's own log lines."""
    asked = any(
        (e.get("name") or "").upper() == "IB_DISABLE" and (e.get("value") or "").lower() in ("0", "false")
        for e in _said(facts, "nccl-variable-said")
    )
    return asked or any(not _NCCL_LOG_PREFIX.search(e.line) for e in no_device)


def _container_launch(facts: Facts) -> str | None:
    """How the ranks' container is started, as the text shows it: "docker" (a docker run, or the text saying it runs
    in docker), "pyxis" (srun --container-image), "module" (a Slurm job loading a container runtime), else None."""
    from gpudoctor.planner.where import container_said

    if _said(facts, "docker-run-said") or container_said(facts) == "docker":
        return "docker"
    if _said(facts, "pyxis-container-started") or _said(facts, "pyxis-container-image-said"):
        return "pyxis"
    if any(_CONTAINER_MODULE.search(c.get("line") or "") for c in facts.pasted.cues):
        return "module"
    return None


def check_nccl_ib_outside_container(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NCCL's 'NET/IB : No device found' (src/transport/net_ib.cc) where the ranks run in a container and the text
    expects InfiniBand (NCCL_IB_DISABLE=0, or the reporter quoting the line as the problem): NCCL opens the verbs
    devices (/dev/infiniband/uverbs*, rdma_cm) from inside the container, which has them only where they are passed in
    (docker run --device=/dev/infiniband, pyxis's --container-mounts), and it pins memory only with CAP_IPC_LOCK and an
    unlimited memlock. pytorch/pytorch#111424 (tests/blind/plans22/cases/2202-*: mounting /dev/infiniband into the
    pyxis container made NCCL use IB) and NVIDIA/nccl#952 (2208-*: works on the hosts, not in docker run without the
    devices). A line 'NET/IB : Using' beside it (another rank found its HCA) leaves it unjudged."""
    from gpudoctor.cmdline import Placeholder
    from gpudoctor.planner import where
    from gpudoctor.planner.remedy import reporters_docker_run

    no_device = _said(facts, "nccl-ib-no-device")
    if not no_device or not _ib_expected(facts, no_device):
        return
    launch = _container_launch(facts)
    if launch is None:
        return
    check_host = Cmd(
        ("ibv_devinfo",),
        note="on each host, outside the container: its HCAs and their ports (PORT_ACTIVE); "
        "ls -l /dev/infiniband lists the device nodes the container needs",
    )
    check_inside = Cmd(("ls", "-l", "/dev/infiniband"), note="inside the container, started as above: the same device nodes")
    debug = SetEnv("NCCL_DEBUG", "INFO", note="rerun the job: the log says 'NET/IB : Using [0]mlx5_...', not NET/Socket")
    if launch == "docker":
        own = reporters_docker_run(facts, gpus=True)
        shown = where.image(facts)  # the image the text runs, where its docker run is not in plain words
        words = own.argv[2:] if own is not None else ("--gpus", "all", (shown or {}).get("means") or Placeholder("image"))
        run = Cmd(
            ("docker", "run", *_RDMA_DOCKER_OPTIONS, *words),
            note="on every node, with your other options"
            if own is None
            else "your command, with the RDMA devices, on every node",
        )
        how = (
            "Start each node's container with the hosts' InfiniBand devices, the capability to pin memory and an "
            "unlimited locked-memory limit (docker run --device=/dev/infiniband --cap-add=IPC_LOCK --ulimit "
            "memlock=-1; --privileged gives all devices, more coarsely), then run the job again."
        )
    else:
        image = next((e.get("image") for e in _said(facts, "pyxis-container-started") if e.get("image")), None)
        run = Cmd(
            (
                "srun",
                "--container-image",
                image or Placeholder("image"),
                "--container-mounts=/dev/infiniband:/dev/infiniband",
                Placeholder("command"),
            ),
            note="in the batch script; a docker run on each node takes --device=/dev/infiniband --cap-add=IPC_LOCK "
            "--ulimit memlock=-1 instead",
        )
        how = (
            "Give the job's container the nodes' InfiniBand device nodes: with pyxis, --container-mounts="
            "/dev/infiniband:/dev/infiniband on the srun that starts it (a docker run on each node: --device="
            "/dev/infiniband --cap-add=IPC_LOCK --ulimit memlock=-1), then run the job again."
        )
    yield Finding(
        "nccl-ib-not-in-container",
        Severity.ERROR,
        "platform",
        "NCCL finds no InfiniBand device inside the container: /dev/infiniband is not passed in, so it falls back to sockets",
        "NCCL printed 'NET/IB : No device found' where the text expects InfiniBand, and the ranks run in a container. "
        "NCCL opens the HCAs through their verbs device nodes (/dev/infiniband), which a container has only where its "
        "launch passes them in, as host networking does not; registering memory for RDMA also needs CAP_IPC_LOCK and an "
        "unlimited locked-memory limit. NCCL then uses sockets, or the distributed start fails. The driver, CUDA, NCCL "
        "and the hosts' InfiniBand are not at fault, and NCCL's variables (NCCL_IB_DISABLE, NCCL_SOCKET_IFNAME) cannot "
        "give the container the devices.",
        (ev("pasted", no_device[0].line),),
        Remediation(how, (check_host, run, check_inside, debug), component="container", where="every node that runs ranks"),
    )
