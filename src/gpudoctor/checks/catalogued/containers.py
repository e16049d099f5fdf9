"""Catalogued messages of containers and their runtimes: docker's --gpus and runtimes, CDI, an image's driver files,
the container toolkit's hook, an image's CUDA compat package, shared memory.

The fault is the container's setup, not the GPU stack inside it, so the fix is the host's runtime, the image or
the run's options (planner.remedy's container commands), said where the text shows which of them is missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor.checks.base import ev
from gpudoctor.checks.catalogued._common import _said
from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import Facts
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.planner.remedy import (
    container_toolkit_shown,
    docker_run_without_gpus,
    docker_runtime_setup,
    left_behind,
    reporters_docker_run,
)


def check_docker_gpu_driver(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """docker's `could not select device driver "" with capabilities: [[gpu]]`: --gpus with no NVIDIA runtime."""
    from gpudoctor.checks.reported import other_vendor_gpu_only

    said = _said(facts, "docker-gpu-driver-missing")
    if not said:
        return
    if (without := _without_gpus(facts, said[0].line)) is not None:
        yield without  # --gpus asked where no GPU is wanted or there: drop it
        return
    if other_vendor_gpu_only(facts) is not None:
        return  # (no NVIDIA GPU at all: gpu-none says so, and no runtime can pass one)
    windows = facts.platform.system.lower().startswith("win")
    from gpudoctor.checks.docker_desktop import desktop_answers, desktop_remedy

    if desktop_answers(facts):
        from gpudoctor.planner.remedy import reporters_docker_run

        run = reporters_docker_run(facts, gpus=True) or Cmd(("docker", "run", "--gpus", "all", Placeholder("image")))
        yield Finding(
            "container-no-gpu",
            Severity.ERROR,
            "platform",
            "docker cannot give the container a GPU: the daemon answering in WSL is Docker Desktop's",
            "docker answered `--gpus` with 'could not select device driver \"\" with capabilities: [[gpu]]' inside WSL 2, "
            "where the text shows Docker Desktop's daemon answering (Docker Desktop named, or no docker engine in the "
            "distribution). A toolkit installed in the distribution would not reach that daemon.",
            (ev("pasted", said[0].line),),
            desktop_remedy(facts, run),
        )
        return
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "docker cannot give the container a GPU: no NVIDIA device driver is registered with the daemon",
        "docker answered `--gpus` with 'could not select device driver \"\" with capabilities: [[gpu]]', as the text "
        "shows: the daemon has no GPU device driver, because the NVIDIA Container Toolkit is not installed or not "
        "configured for it"
        + (" (on Windows, Docker Desktop passes the GPU only with its WSL 2 backend)" if windows else "")
        + ". Nothing inside the image can fix it.",
        (ev("pasted", said[0].line),),
        Remediation(
            (
                "On the host: configure docker's runtime with the NVIDIA Container Toolkit the text shows installed, "
                "restart docker."
                if container_toolkit_shown(facts)
                else "On the host: install the NVIDIA Container Toolkit from NVIDIA's repository unless its hook is "
                "found installed already, configure docker's runtime with it, restart docker."
            )
            if not windows
            else "Use Docker Desktop's WSL 2 backend with a current NVIDIA Windows driver (it passes the GPU into "
            "Linux containers); the NVIDIA Container Toolkit is for Linux hosts.",
            () if windows else docker_runtime_setup(facts),
            requires_root=not windows,
            component="container",
            where="the host",
        ),
    )


# NVIDIA's CDI guide (docs.nvidia.com, container-toolkit cdi-support): the spec, its listing, and the check it prints.
_CDI_SPEC = "/etc/cdi/nvidia.yaml"


def check_cdi_unresolved(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CDI's "unresolvable CDI devices nvidia.com/gpu=all" (container-device-interface pkg/cdi/cache.go): podman (4.1 and
    later) or docker with CDI found no spec defining the device. The NVIDIA Container Toolkit writes it (`nvidia-ctk cdi
    generate`, again after each driver change, as it names the driver's files), `nvidia-ctk cdi list` shows what it
    defines, and a container started with the device checks it. Where the text shows the spec defining devices already,
    where it lies or who reads it is open: the catalogue's asks decide."""
    from gpudoctor.checks.reported import other_vendor_gpu_only
    from gpudoctor.planner.remedy import container_toolkit_install

    said = [e for e in _said(facts, "cdi-device-unresolved") if (e.get("devices") or "").startswith("nvidia.com/")]
    if not said or other_vendor_gpu_only(facts) is not None or facts.platform.system.lower().startswith("win"):
        return
    if any(int(e.get("count") or 0) > 0 for e in _said(facts, "cdi-devices-listed")):
        return  # the spec defines devices: not a missing spec
    shown = container_toolkit_shown(facts)
    docker = "Error response from daemon" in said[0].line  # docker's daemon; podman prints its own "Error:"
    # (the install's check of a snap docker is docker's: podman reads the spec whatever installed docker)
    install = tuple(c for c in container_toolkit_install(facts) if docker or c.argv[:2] != ("snap", "list"))
    runs = [e for e in facts.pasted.reported("docker-run-said") if (e.get("args") or "").split()]
    if runs:
        check = Cmd(("docker", "run", *(runs[-1].get("args") or "").split()), note="your command, as the text shows it")
    elif docker:
        check = Cmd(("docker", "run", "--rm", "--device", "nvidia.com/gpu=all", "ubuntu", "nvidia-smi", "-L"))
    else:  # (label=disable: SELinux hosts keep the container from the device files otherwise)
        check = Cmd(
            (
                "podman",
                "run",
                "--rm",
                "--device",
                "nvidia.com/gpu=all",
                "--security-opt=label=disable",
                "ubuntu",
                "nvidia-smi",
                "-L",
            )
        )
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the container engine cannot resolve the GPU's CDI device: no NVIDIA CDI spec where it reads",
        f"{'docker' if docker else 'podman'} was asked for {said[0].get('devices')} and found no CDI spec (/etc/cdi, "
        "/var/run/cdi) that defines it: the NVIDIA Container Toolkit has not generated one on this host, or it was "
        "removed. The spec names the driver's files of the moment it is generated, so it is generated again after "
        "each driver upgrade.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the host: "
            + ("" if shown else "install the NVIDIA Container Toolkit from NVIDIA's repository, ")
            + "generate the CDI spec for this driver, check that it lists nvidia.com/gpu=all, and start the container again.",
            (
                *(() if shown else install),
                Cmd(
                    ("nvidia-ctk", "cdi", "generate", f"--output={_CDI_SPEC}"), root=True, note="again after each driver upgrade"
                ),
                Cmd(("nvidia-ctk", "cdi", "list"), note="nvidia.com/gpu=all among the devices"),
                check,
            ),
            requires_root=True,
            component="container",
            where="the host",
        ),
    )


# the daemon's words since moby 547da0d5 (2022), and Docker 20.10's and older (daemon/daemon_unix.go @eeddea2f)
_RUNTIME_NVIDIA = LazyPattern(r"(?:unknown or invalid runtime name:|Unknown runtime specified) nvidia\b", re.IGNORECASE)


def check_docker_unknown_runtime(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """docker's "unknown or invalid runtime name: nvidia" (moby daemon/runtime_unix.go): `--runtime=nvidia` (or compose's
    `runtime: nvidia`) names a runtime the daemon has not registered. On a Linux host the toolkit registers it in
    daemon.json (`nvidia-ctk runtime configure --runtime=docker`), read when the daemon restarts. Docker Desktop (Windows,
    or answering in WSL) registers none: its GPU comes through --gpus, so no Linux toolkit is prescribed there."""
    from gpudoctor.checks.docker_desktop import desktop_answers
    from gpudoctor.checks.reported import other_vendor_gpu_only

    said = [e for e in _said(facts, "container-unknown-runtime") if _RUNTIME_NVIDIA.search(e.line)]
    if not said or other_vendor_gpu_only(facts) is not None:
        return
    if facts.platform.system.lower().startswith("win") or desktop_answers(facts):
        yield _desktop_runtime_nvidia(facts, said[0])
        return
    steps = docker_runtime_setup(facts)
    if not facts.pasted.reported("docker-run-said") and not said[0].line.lstrip("*> ").startswith("docker:"):
        steps = steps[:-1]  # not a `docker run` (compose, or an API client): its own command starts it again
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "docker has no runtime named nvidia: the NVIDIA Container Toolkit is not registered with this daemon",
        f"docker's daemon answered '{_RUNTIME_NVIDIA.search(said[0].line).group(0)}': the runtime the container asks "
        "for is not in its configuration (/etc/docker/daemon.json), because the NVIDIA Container Toolkit is not "
        "installed, was not registered with docker, or the daemon was not restarted after.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the host: "
            + ("" if container_toolkit_shown(facts) else "install the NVIDIA Container Toolkit from NVIDIA's repository, ")
            + "register its runtime with docker and restart the daemon.",
            steps,
            requires_root=True,
            component="container",
            where="the host",
        ),
    )


# Compose's GPU request (docker/docs, content/manuals/compose/how-tos/gpu-support.md: "deploy: resources: reservations:
# devices: - driver: nvidia count: all capabilities: [gpu]"), which Docker Desktop's WSL 2 backend answers
# (content/manuals/desktop/features/gpu.md: "docker run --rm -it --gpus=all ..."), in YAML's flow style so that it reads
# as one line of prose.
_COMPOSE_GPU_YAML = "deploy: {resources: {reservations: {devices: [{driver: nvidia, count: all, capabilities: [gpu]}]}}}"


def _desktop_runtime_nvidia(facts: Facts, e) -> Finding:
    """Docker Desktop (Windows, or its daemon answering in WSL) registers no runtime named nvidia: a container gets the
    GPU through its WSL 2 backend when it asks with --gpus, or in compose with the device reservation. The fix is the
    request, not a Linux toolkit nor a daemon restart in a distribution."""
    from gpudoctor.cmdline import Cmd, Placeholder

    compose = facts.pasted.reported("compose-up-said") if facts.pasted.partial else []
    probe = Cmd(
        ("docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi"),
        note="Docker Desktop hands the GPU to a container asked with --gpus: the Windows driver's GPU is listed",
    )
    if compose or "compose" in e.line:
        service = next((c.get("service") for c in compose if c.get("service")), None) or Placeholder("service")
        fix = Remediation(
            "In the compose file, take the service's 'runtime: nvidia' line out and request the GPU the compose way in "
            f"its place, {_COMPOSE_GPU_YAML} (or gpus: all in current Compose), then recreate the service. "
            "The other way keeps the line: register the runtime in Docker Desktop, Settings > Docker Engine, "
            '"runtimes": {"nvidia": {"path": "/usr/bin/nvidia-container-runtime", "runtimeArgs": []}}, Apply & '
            "restart.",
            (
                probe,
                *(
                    (Cmd(("notepad", "docker-compose.yml"), note="the service's runtime: nvidia line becomes the reservation"),)
                    if facts.platform.system.lower().startswith("win")
                    else ()
                ),
                Cmd(("docker", "compose", "up", "-d", "--force-recreate", service)),
                Cmd(("docker", "compose", "exec", service, "nvidia-smi"), note="inside: the GPU is listed"),
            ),
            component="container",
            where="the host",
        )
    else:
        fix = Remediation(
            "Run the container with --gpus all in place of --runtime=nvidia: Docker Desktop passes the GPU through its "
            "WSL 2 backend to a container that asks that way. Nothing is installed for it, on Windows or in WSL.",
            (probe, Cmd(("docker", "run", "--rm", "--gpus", "all", Placeholder("image")), note="without --runtime=nvidia")),
            component="container",
            where="the host",
        )
    return Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "Docker Desktop has no runtime named nvidia: ask for the GPU with --gpus or compose's device reservation",
        "docker's daemon answered 'unknown or invalid runtime name: nvidia': the container asks for a runtime by name "
        "(--runtime=nvidia, or runtime: nvidia in a compose file, the nvidia-docker2 way), and Docker Desktop registers "
        "none by that name. It gives containers the GPU through its WSL 2 backend when they ask with --gpus or compose's "
        "device reservation. The Windows driver and the image are not the cause; no NVIDIA Container Toolkit is "
        "installed for Docker Desktop.",
        (ev("pasted", e.line),),
        fix,
    )


def check_image_driver_files(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvidia-container-cli's `mount error: file creation failed: .../libnvidia-ml.so.1: file exists`: the image ships
    a driver library where the runtime mounts the host's (libnvidia-container creates each mount point with
    O_NOFOLLOW, so a file or link already there is EEXIST). The host, its driver and the toolkit work; the image is
    rebuilt without the driver package that put it there."""
    from gpudoctor.cmdline import Cmd, Placeholder

    said = _said(facts, "container-image-driver-files")
    if not said:
        return
    e = said[0]
    path = e.get("path") or ""
    # The runtime names the file under the container's root on the host (overlay2's merged/, a bundle's rootfs/).
    inner = next((path.split(root, 1)[1] for root in ("/merged/", "/rootfs/") if root in path), "")
    inner = "/" + inner if inner else ""
    library = e.get("library") or "a driver library"
    # the image's library directory where the runtime named the file; Debian's and Ubuntu's otherwise
    lib_dir = inner.rsplit("/", 1)[0] if inner.count("/") > 1 else "/usr/lib/x86_64-linux-gnu"
    # the image that failed is not reliably the one a docker run line of the text shows (often a sample that works)
    image, derived = Placeholder("image"), Placeholder("new-image")
    dockerfile = "Dockerfile.nodriver"
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        f"the image ships its own {library}, so the NVIDIA runtime cannot give the container the host's driver",
        f"nvidia-container-cli could not create {inner or library} in the container ('file exists'), as the text "
        "shows: the runtime puts the host's driver libraries at those paths, and the image already has a file there "
        "(a driver package installed in it: libnvidia-*, nvidia-driver-*, or one that depends on them such as "
        "nvidia-opencl-dev). The container does not start with the GPU. The host's driver and the toolkit are not "
        "at fault: an image without those files starts.",
        (ev("pasted", e.line),),
        Remediation(
            "Build a new image FROM this one that deletes the driver files it carries (libnvidia-*, libcuda.so*: the "
            "runtime mounts the host's own there; the CUDA toolkit's libraries stay), and run that one. Such files "
            "come from a driver package in the Dockerfile, or from building or committing the image while nvidia was "
            "Docker's default-runtime (daemon.json): take that line out for builds, so they do not come back.",
            (
                Cmd(
                    ("docker", "run", "--rm", "--runtime=runc", "--entrypoint", "ls", image, "-l", lib_dir),
                    pipe=("grep", "-e", "libnvidia", "-e", "libcuda"),
                    note="the driver files inside the image, started without the NVIDIA runtime",
                ),
                Cmd(
                    ("grep", "-i", "default-runtime", "/etc/docker/daemon.json"),
                    note="nvidia here copies the host's driver into what docker build or commit makes",
                ),
                Cmd(("echo", f"FROM {image}"), pipe=("tee", dockerfile), note="a new image without them: its Dockerfile"),
                Cmd(("echo", f"RUN rm -f {lib_dir}/libnvidia-*.so* {lib_dir}/libcuda.so*"), pipe=("tee", "-a", dockerfile)),
                Cmd(("cat", dockerfile), pipe=("docker", "build", "-t", derived, "-")),
                Cmd(("docker", "run", "--rm", "--gpus", "all", derived, "nvidia-smi"), note="the host's driver, mounted"),
            ),
            component="container",
            where="the image",
            alternative=Remediation(
                "Rebuild the image from its Dockerfile without the driver package that installed the files (for "
                "OpenCL, ocl-icd-opencl-dev instead of nvidia-opencl-dev).",
                (
                    *(
                        (
                            Cmd(
                                ("docker", "run", "--rm", "--runtime=runc", "--entrypoint", "dpkg", image, "-S", inner),
                                note="which package of the image installed it (Debian and Ubuntu images): remove it",
                            ),
                        )
                        if inner
                        else ()
                    ),
                    Cmd(
                        ("docker", "build", "--no-cache", "-t", image, "."),
                        note="after the Dockerfile installs no driver package",
                    ),
                ),
                component="container",
                where="the image",
            ),
        ),
    )


def check_shared_memory(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """PyTorch's DataLoader worker killed by SIGBUS ("This might be caused by insufficient shared memory (shm)"):
    workers hand batches over in /dev/shm, which docker sizes at 64 MB unless the container is run with --ipc=host
    or --shm-size (PyTorch's README, "Docker Image"). A container's /dev/shm is set when it is created: the fix is
    the container's run options, on the host; nothing inside it (no sysctl, no reinstall) changes it."""
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import container_said, reporters_docker_run

    denied = _said(facts, "shm-not-writable")
    if denied:
        yield _shm_not_writable(denied[0])
    elif nccl := _said(facts, "nccl-shm-create-failed"):
        yield _nccl_shm_too_small(facts, nccl[0])
    said = _said(facts, "shm-too-small")
    if not said:
        return
    e = said[0]
    check = Cmd(("df", "-h", "/dev/shm"), note="its size where the program runs: 64M is docker's default")
    docker = container_said(facts) is not None or bool(facts.pasted.reported("docker-run-said"))
    if docker:
        own = reporters_docker_run(facts, gpus=False)
        words = [str(w) for w in own.argv[2:]] if own is not None else ["--gpus", "all", Placeholder("image")]
        run = Cmd(
            ("docker", "run", "--ipc=host", *words),
            note="or --shm-size=8g instead of --ipc=host; the container is recreated, its /dev/shm is set at creation",
        )
        rem = Remediation(
            "Recreate the container with more shared memory: --ipc=host (the host's /dev/shm) or --shm-size; with "
            "docker compose, ipc: host or shm_size. Fewer DataLoader workers (num_workers=0) is the slower way around.",
            (run, Cmd(("docker", "exec", Placeholder("container"), "df", "-h", "/dev/shm"), note="the new size inside")),
            component="container",
            where="the host",
        )
    else:
        rem = Remediation(
            "Give the workers more shared memory: in a container, recreate it with --ipc=host or --shm-size (docker's "
            "/dev/shm is 64 MB); on a host, /dev/shm is a tmpfs the administrator can enlarge. Fewer DataLoader "
            "workers (num_workers=0) is the slower way around.",
            (check,),
            component="environment",
        )
    yield Finding(
        "shm-too-small",
        Severity.ERROR,
        "platform",
        "PyTorch's DataLoader workers ran out of shared memory (/dev/shm)" + (" in a docker container" if docker else ""),
        "A DataLoader worker was killed by SIGBUS, as the text shows: workers pass each batch through /dev/shm, and a "
        "write past its end is a bus error. Docker gives a container 64 MB of /dev/shm unless it is run with "
        "--ipc=host or --shm-size. Nothing in the driver, CUDA or PyTorch is at fault.",
        (ev("pasted", e.line),),
        rem,
    )


def check_hook_cgroup_not_permitted(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvidia-container-cli's "failed to add device rules: unable to find any existing device filters attached to the
    cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted" (NVIDIA/libnvidia-container
    src/nvcgo/internal/cgroup/v2.go @162f9ba9): on cgroup v2 the hook grants the GPUs by rewriting the container's eBPF
    device program, which the kernel allows only to a process privileged in the initial namespace. Docker inside an
    unprivileged LXC container (Proxmox's usual setup) or rootless docker is not: there the GPUs are already granted
    by the outer container's device rules (lxc.cgroup2.devices.allow), so the hook is told to leave cgroups alone
    (libnvidia-container's no-cgroups, NVIDIA's rootless setup) and the /dev/nvidia* nodes are passed with --device,
    since the hook no longer adds them (NVIDIA/libnvidia-container issue 154, the same message in a Proxmox LXC)."""
    said = _said(facts, "container-hook-cgroup-not-permitted")
    if not said:
        return
    config = "/etc/nvidia-container-runtime/config.toml"
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the NVIDIA runtime hook may not set the container's device rules (docker inside an LXC container, or rootless)",
        "nvidia-container-cli stopped the container while adding the GPUs to its device cgroup: on cgroup v2 that means "
        "reading and replacing the cgroup's eBPF device program, and the kernel refused (operation not permitted). Docker "
        "that runs inside an unprivileged LXC container, or rootless, is not allowed to; the GPU, the driver and the "
        "image are not at fault. There the outer container's own device rules already grant the GPUs.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the machine whose docker printed this (inside the LXC container, not its host): set no-cgroups = true "
            "in the NVIDIA Container Toolkit's config.toml, so the hook leaves cgroups to the LXC's rules (the same "
            "setting NVIDIA's rootless setup makes: nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place), "
            "then pass the GPU device nodes with --device (compose: devices:), which the hook no longer adds.",
            (
                Cmd(("grep", "-n", "no-cgroups", config), note="the runtime still manages cgroups"),
                Cmd(("sed", "-i", "s/^#\\?no-cgroups = .*/no-cgroups = true/", config), root=True),
                Cmd(("ls", "-l", "/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"), note="the nodes the LXC has"),
                Cmd(
                    (
                        "docker",
                        "run",
                        "--rm",
                        "--gpus",
                        "all",
                        "--device",
                        "/dev/nvidia0",
                        "--device",
                        "/dev/nvidiactl",
                        "--device",
                        "/dev/nvidia-uvm",
                        "ubuntu",
                        "nvidia-smi",
                    ),
                    note="a test container lists the GPU; then start the real one with the same --device lines",
                ),
            ),
            requires_root=True,
            component="container",
            where="the machine whose docker printed it (inside the LXC container)",
        ),
    )


def check_hook_devices_allow_rootless(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvidia-container-cli's "mount error: open failed: /sys/fs/cgroup/devices/user.slice/devices.allow: permission
    denied" (cgroup v1; NVIDIA/libnvidia-container src/nvcgo/internal/cgroup/v1.go @162f9ba9 opens that file to add
    the GPUs' rules). The cgroup under user.slice is the user's own session: a rootless docker daemon cannot create
    cgroups on v1, so its containers stay there, and an unprivileged user may not write device rules. libnvidia-container
    cannot manage cgroups for a rootless container at all (klueska, NVIDIA/libnvidia-container issue 154): the
    supported setup is no-cgroups = true (NVIDIA's install guide, rootless mode), after which the hook bind-mounts the
    device nodes without rules, which a rootless container needs none of (moby/moby issue 38729). Another cgroup (a
    Slurm step's, where enroot runs the hook) is not a rootless daemon: the catalogue's asks stay there."""
    said = [e for e in _said(facts, "container-hook-devices-allow-denied") if "/user.slice/" in (e.get("path") or "")]
    if not said:
        return
    config = "/etc/nvidia-container-runtime/config.toml"
    from gpudoctor.planner.where import image

    img = image(facts)
    test = Cmd(("docker", "run", "--rm", "--gpus", "all", img["means"] if img else Placeholder("image"), "nvidia-smi"))
    own = reporters_docker_run(facts, gpus=True)
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the NVIDIA runtime hook may not write the device cgroup of a rootless docker container",
        "nvidia-container-cli stopped the container while adding the GPUs to its device cgroup: it could not open "
        f"{said[0].get('path')}, a cgroup of the user's own session, where a rootless docker daemon leaves its "
        "containers. Only root may write device rules, and libnvidia-container never can for a rootless container; "
        "the driver, the toolkit's install and the image are not at fault. The toolkit is told to leave cgroups alone "
        "(no-cgroups = true), and then mounts the GPU device nodes without rules.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the host, as root: set no-cgroups = true in the [nvidia-container-cli] section of the NVIDIA Container "
            "Toolkit's config.toml (the same as nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place on "
            "a toolkit that has nvidia-ctk), then restart the rootless daemon as its user and run the container again. "
            "The setting is global: a rootful docker on the same host then needs its own config without it.",
            (
                Cmd(("nvidia-smi",), note="on the host: the driver itself works"),
                Cmd(("grep", "-n", "no-cgroups", config), note="the hook still manages cgroups"),
                Cmd(("sed", "-i", "s/^#\\?no-cgroups = .*/no-cgroups = true/", config), root=True),
                Cmd(("systemctl", "--user", "restart", "docker"), note="as the rootless user, not root"),
                *left_behind(own),
                own or test,
            ),
            requires_root=True,
            component="container",
            where="the host that runs the rootless docker daemon",
        ),
    )


# NVIDIA's CUDA images as a text names them, their tag's first field the CUDA they are built on (Docker Hub's
# nvidia/cuda and the retired nvidia/cudagl, "10.2-devel-ubuntu18.04"; NGC's nvcr.io/nvidia/cuda).
_CUDA_IMAGE_TAG = LazyPattern(r"(?:\bnvcr\.io/)?\bnvidia/cuda(?:gl)?:(?P<cuda>\d{1,2}\.\d{1,2})(?:\.\d{1,2})?\b")


def _cuda_image_versions(facts: Facts) -> set[str]:
    """The CUDA of each NVIDIA CUDA image the paste names as run or built from (its image cues' lines and values)."""
    texts = [str(v) for c in facts.pasted.cues for v in c.values() if isinstance(v, str)]
    return {m.group("cuda") for t in texts for m in _CUDA_IMAGE_TAG.finditer(t[:2_000])}


def check_image_cuda_compat_refused(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA error 804 ("forward compatibility was attempted on non supported HW", cudaErrorCompatNotSupportedOnDevice)
    from a program run in a container image, beside the host's driver: the CUDA inside the image is newer than the driver
    supports, so the runtime tried the forward-compatibility libcuda (the cuda-compat package CUDA images carry), which
    runs on data-center GPUs only (cuda-compat-guide). The image's CUDA, not the GPU, decides it: a driver that
    supports that CUDA, or an image built for the CUDA the driver supports. CUDA's own meaning of the code is that one
    cause (NVIDIA/cuda-python cuda_bindings/cuda/bindings/runtime.pyx.in @5cfd99a0, cudaErrorCompatNotSupportedOnDevice:
    "the system was upgraded to run with forward compatibility but the visible hardware detected by CUDA does not
    support this configuration"), so a driver not shown decides it too: the fix then reads the driver and GPU first,
    the branch the image needs left to that answer. A program outside an image stays with the catalogue's asks (a
    compat directory on LD_LIBRARY_PATH is the other cause there), and so does a data-center GPU named (forward
    compatibility is supported there: 804 has another cause)."""
    from gpudoctor.checks.driver import driver_cuda
    from gpudoctor.checks.reported import other_vendor_gpu_only
    from gpudoctor.planner.where import container_of, image
    from gpudoctor.versions import vkey

    said = _said(facts, "cuda-compat-not-supported")
    img = image(facts)  # (an image run with docker run is a container too, where no prompt or words say one)
    contained = img is not None or container_of(facts) is not None
    if not said or not contained or other_vendor_gpu_only(facts) is not None:
        return
    if any((row := ctx.matrix.gpu_for_name(g.name)) is not None and row.segment == "datacenter" for g in facts.driver.gpus):
        return
    have, _ = driver_cuda(facts, ctx.matrix) if facts.driver.version else (None, None)
    if have and (based := _cuda_image_versions(facts)) and all(vkey(v) <= vkey(have) for v in based):
        # the image is built on a CUDA the driver supports (nvidia/cuda's and nvidia/cudagl's tags begin with it): its
        # CUDA is not newer, so the compat library reached the loader otherwise (LD_LIBRARY_PATH naming
        # /usr/local/cuda/compat, a cuda-compat package installed into the image): the catalogue's asks decide it
        return
    supports = f"CUDA {have}" if have else "an older CUDA"
    older = f"{supports} or older" if have else "the CUDA the host's driver supports (nvidia-smi's CUDA Version) or older"
    driver = f"driver {facts.driver.version}" if facts.driver.version else "driver"
    smi = () if facts.driver.version else (Cmd(("nvidia-smi",), note="on the host: the driver, its CUDA Version, the GPUs"),)
    inspect = Cmd(
        (
            "docker",
            "image",
            "inspect",
            img["means"] if img else Placeholder("image"),
            "--format",
            "{{range .Config.Env}}{{println .}}{{end}}",
        ),
        pipe=("grep", "-E", "CUDA_VERSION|NVIDIA_REQUIRE_CUDA"),
        note="on the host: the CUDA the image is built on",
    )
    yield Finding(
        "toolkit-newer-than-driver",
        Severity.ERROR,
        "toolkit",
        f"the image's CUDA is newer than the host's {driver} supports" + (f" ({supports})" if have else ""),
        "CUDA's first call in the container failed with error 804 (forward compatibility was attempted on non "
        "supported HW): the container gets the GPU, but the CUDA the image is built on is newer than the host's driver "
        "supports, so the runtime tried NVIDIA's forward-compatibility library, which only data-center GPUs run. The "
        "program then has no GPU (many fall back to the CPU). Reinstalling the container toolkit changes nothing.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the host: read the image's CUDA, then upgrade the host's NVIDIA driver to a branch that supports it "
            "(its nvidia-smi header then shows that CUDA Version or newer), reboot, and run the image again.",
            # (no install command: the branch the image needs is what the inspect answers, and a distribution's own
            # driver package may be the very release that is too old, as Debian 13's 550 is)
            (*smi, inspect),
            requires_root=True,
            component="driver",
            where="the host",
            alternative=Remediation(
                f"Keep the driver and run an image (or a build of the program) made for {older}: the "
                "project's image tag or Dockerfile for that CUDA (its CUDA version build argument), or a native build "
                "against the host's toolkit.",
                (),
                component="container",
                where="the host",
            ),
        ),
    )


# A pod's /dev/shm given memory (kubernetes/website, content/en/docs/concepts/storage/volumes.md, emptyDir: "you can
# set the emptyDir.medium field to "Memory" ... Kubernetes mounts a tmpfs"), in YAML's flow style: one line of prose.
_SHM_POD_SPEC = (
    "volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}] and, in the container that runs the program, "
    "volumeMounts: [{name: dshm, mountPath: /dev/shm}]"
)


def _nccl_shm_too_small(facts: Facts, e) -> Finding:
    """NCCL's "Error while creating shared memory segment /dev/shm/nccl-*" (NVIDIA/nccl src/os/linux.cc): its transport
    between the GPUs of one machine could not size its segment in /dev/shm, which a docker container or a Kubernetes
    pod gets at 64 MB (NCCL's troubleshooting guide, "Shared memory"; NVIDIA/nccl#342). /dev/shm is set where the
    container is created: docker's --ipc=host / --shm-size, a pod's memory-backed emptyDir mounted at /dev/shm."""
    from gpudoctor.cmdline import Cmd, Placeholder
    from gpudoctor.planner.remedy import container_of, reporters_docker_run

    runtime = container_of(facts) or ("docker" if facts.pasted.reported("docker-run-said") else None)
    if runtime == "kubernetes":
        pod = Placeholder("pod")
        rem = Remediation(
            "Give the pod that runs the failing program (the one with the GPUs, not another of the release) a "
            f"memory-backed /dev/shm in its pod template, {_SHM_POD_SPEC} (through the chart's own values where it "
            "has them), then let the pod be recreated. Stale nccl-* files of killed runs in /dev/shm also fill it. "
            "NCCL_SHM_DISABLE=1 only bypasses the shared-memory transport, with slower transfers between the GPUs.",
            (
                Cmd(("kubectl", "get", "pods", "-o", "wide"), note="find the pod that runs the program on the GPUs"),
                Cmd(("kubectl", "exec", pod, "--", "df", "-h", "/dev/shm"), note="64M is the container default"),
                Cmd(("kubectl", "exec", pod, "--", "ls", "-la", "/dev/shm"), note="stale nccl-* segments of killed runs"),
                Cmd(
                    ("kubectl", "edit", Placeholder("workload")),
                    note="the Deployment, Job or training job that makes the pod: the dshm volume in its pod template",
                ),
                Cmd(("kubectl", "exec", pod, "--", "df", "-h", "/dev/shm"), note="in the new pod: the size given"),
            ),
            component="container",
            where="the cluster",
        )
    elif runtime is not None:
        own = reporters_docker_run(facts, gpus=True)
        words = [str(w) for w in own.argv[2:]] if own is not None else ["--gpus", "all", Placeholder("image")]
        rem = Remediation(
            "Recreate the container with more shared memory: --ipc=host (the host's /dev/shm) or --shm-size; with "
            "docker compose, ipc: host or shm_size. NCCL_SHM_DISABLE=1 also works, with slower transfers between GPUs.",
            (
                Cmd(("docker", "run", "--ipc=host", *words), note="or --shm-size=8g; /dev/shm is set at creation"),
                Cmd(("docker", "exec", Placeholder("container"), "df", "-h", "/dev/shm"), note="the new size inside"),
            ),
            component="container",
            where="the host",
        )
    else:
        rem = Remediation(
            "Give /dev/shm room where the program runs: a container is recreated with --ipc=host or --shm-size (a "
            "Kubernetes pod gets an emptyDir of medium Memory at /dev/shm); on a host, /dev/shm is a tmpfs the "
            "administrator can enlarge.",
            (Cmd(("df", "-h", "/dev/shm"), note="its size where the program runs: 64M is a container's default"),),
            component="environment",
        )
    where = {"kubernetes": " in a Kubernetes pod", None: ""}.get(runtime, " in a container")
    return Finding(
        "shm-too-small",
        Severity.ERROR,
        "platform",
        "NCCL cannot create its shared memory in /dev/shm" + where,
        "NCCL said so ('Error while creating shared memory segment /dev/shm/nccl-...'): its transport between the GPUs "
        "of one machine needs segments of several MB each in /dev/shm, and a container's /dev/shm is 64 MB unless it "
        "is given more; PyTorch then reports 'unhandled system error'. The driver, CUDA and NCCL are not at fault.",
        (ev("pasted", e.line),),
        rem,
    )


def _shm_not_writable(e) -> Finding:
    """NCCL's shm_open refused (NVIDIA/nccl src/include/shm.h): /dev/shm lost its world-writable mode, so its
    intra-node transport cannot set up and init fails with "unhandled system error" (pytorch/pytorch#37004; NCCL's
    maintainer in NVIDIA/nccl#328: NCCL only reports the failing call). /dev/shm's standard mode is 1777."""
    from gpudoctor.cmdline import Cmd

    return Finding(
        "shm-too-small",
        Severity.ERROR,
        "platform",
        "NCCL cannot create its shared memory in /dev/shm: permission denied",
        "NCCL said so ('Call to shm_open failed : Permission denied'): its transport between GPUs of one machine "
        "creates segments in /dev/shm, and this user may not write there, so NCCL's initialisation fails (PyTorch "
        "reports 'NCCL error ... unhandled system error'). /dev/shm is normally world-writable with the sticky bit "
        "(drwxrwxrwt, mode 1777); the driver, CUDA and NCCL are not at fault.",
        (ev("pasted", e.line),),
        Remediation(
            "Restore /dev/shm's standard mode (an administrator's task on a shared node); until then NCCL_SHM_DISABLE=1 "
            "lets NCCL use other transports, slower.",
            (
                Cmd(("ls", "-ld", "/dev/shm"), note="expect drwxrwxrwt (1777)"),
                Cmd(("sudo", "chmod", "1777", "/dev/shm")),
            ),
            requires_root=True,
            component="environment",
        ),
    )


def _no_nvidia_gpu(facts: Facts) -> str | None:
    """The pasted line that says this machine has no NVIDIA GPU (a cue of gpudoctor.pasted.cues), or None."""
    return next((c.get("line") or "" for c in facts.pasted.cues if (c.get("means") or "").startswith("no NVIDIA GPU")), None)


def _without_gpus(facts: Facts, refused: str) -> Finding | None:
    """--gpus refused where the facts say no GPU is wanted or there: the machine has no NVIDIA GPU, or the image is a
    CPU build (its tag says so) and nothing shows an NVIDIA GPU. The fix drops `--gpus all`; no toolkit helps."""
    from gpudoctor.checks.driver import gpu_present

    if gpu_present(facts):
        return None
    cpu = _said(facts, "docker-run-cpu-image")
    no_gpu = _no_nvidia_gpu(facts)
    if not cpu and no_gpu is None:
        return None
    image = cpu[0].get("image") if cpu else None
    why = "the text shows no NVIDIA GPU on this machine" if no_gpu is not None else f"the image {image} is a CPU build"
    return Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "docker was asked for a GPU the container does not need or the machine does not have",
        f"docker answered `--gpus` with 'could not select device driver \"\" with capabilities: [[gpu]]', and {why}: "
        "the container runs on the CPU without --gpus all. Installing the NVIDIA Container Toolkit would not help.",
        tuple(ev("pasted", line) for line in (refused, *(e.line for e in cpu[:1]), *([no_gpu] if no_gpu else []))),
        Remediation(
            "Start the container without --gpus all (the image runs on the CPU)"
            + (
                "."
                if (run := docker_run_without_gpus(facts, image))
                else ": in the script or compose file that starts it, or with the program's own CPU option."
            ),
            run,
            component="container",
            where="the host",
        ),
    )


# An L4T release as the JETSON_SAID cue writes it ("an NVIDIA Jetson, L4T R35.4.1").
_L4T_OF_CUE = LazyPattern(r"L4T R(\d{2}(?:\.\d+){0,2})\b")


def check_app_image_variant(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A GPU application's image run from a tag that carries no NVIDIA GPU libraries (gpudoctor/planner/apps.toml:
    Frigate's plain image without TensorRT, imagegenius' Immich without onnxruntime-gpu, Ultralytics' arm64 image with
    PyPI's CPU torch) while the text shows the application's GPU part asked for. The container gets the GPU, but nothing
    in it can use it, and no driver, toolkit or runtime change on the host helps: the application's own GPU tag (its
    Jetson tag on a Jetson whose L4T release is shown) does. A GPU tag, or a CPU tag with no GPU part asked for (Frigate's
    video decoding runs on its plain image), is quiet."""
    from gpudoctor.facts import APP_IMAGE, JETSON_SAID
    from gpudoctor.planner.apps import AppImage, app, variant_of

    if not facts.pasted.partial:
        return
    cue = next((c for c in facts.pasted.cues if c.get("cue") == APP_IMAGE), None)
    if cue is None or not cue.get("means") or not cue.get("wants") or (entry := app(cue.get("app") or "")) is None:
        return
    jetson = next((c for c in facts.pasted.cues if c.get("cue") == JETSON_SAID), None)
    l4t = m.group(1) if jetson is not None and (m := _L4T_OF_CUE.search(jetson.get("means") or "")) else None
    named = AppImage(app=entry.id, ref=cue["means"], tag=cue.get("tag") or "", line=cue.get("line") or "")
    if not entry.cpu_tag.fullmatch(named.tag):
        return
    if jetson is not None and l4t is None and entry.jetson_tag:
        # A Jetson whose L4T release the text does not show: the JetPack tag is read from the release first.
        pattern = entry.jetson_tag.replace("{tag}", "stable" if "{tag}" in entry.jetson_tag else "").replace("{jetpack}", "N")
        variant: str | Placeholder = Placeholder("jetson-image")
        steps: tuple[Cmd, ...] = (
            Cmd(("cat", "/etc/nv_tegra_release"), note="the L4T release: R32 is JetPack 4, R35 JetPack 5, R36 JetPack 6"),
            Cmd(("docker", "pull", variant), note=f"{entry.repositories[0]}:{pattern}, N the JetPack of that release"),
        )
        shown = f"its Jetson image for this JetPack ({entry.repositories[0]}:{pattern})"
    else:
        if (offered := variant_of(named, l4t)) is None:
            return
        variant, steps, shown = offered, (Cmd(("docker", "pull", offered)),), f"its GPU image is {offered}"
    # the reporter's own docker run of that image (its plain words, gpudoctor.parsers.error_texts), its GPU options kept
    runs = [w for e in facts.pasted.reported("docker-run-said") if named.ref in (w := (e.get("args") or "").split())]
    if runs:
        argv = ("docker", "run", *(variant if w == named.ref else w for w in runs[-1]))
        steps = (*steps, Cmd(argv, note="your command, on the GPU image"))
    yield Finding(
        "app-image-cpu-variant",
        Severity.ERROR,
        "platform",
        f"{entry.name} runs from {named.ref}, a tag without NVIDIA GPU libraries: {shown}",
        f"{entry.name} publishes its GPU libraries only in some of its image tags; the text shows {named.ref} run and "
        "the application's GPU part asked for. The container can see the GPU, but the image has nothing that uses "
        "it, so the GPU part fails or falls back to the CPU. No driver, CUDA toolkit or container runtime change on "
        "the host helps, and libraries bound in from the host do not make a working stack.",
        (ev("pasted", named.line), ev("pasted", cue["wants"])),
        Remediation(
            f"Run {entry.name}'s GPU image instead: pull it, then set it as the image of the docker run, compose "
            "file or stack that starts the container (keeping its GPU options) and recreate the container "
            "(`docker compose up -d` recreates a compose service whose image changed).",
            steps,
            component="container",
            where="the host",
        ),
    )


# NVIDIA's CUDA image repository, as docker names it (Docker Hub's nvidia/cuda, also written with its registry), and its
# tags: the toolkit release, the image flavour (base, runtime, devel, cudnn8-runtime, ...) and the OS it is built on
# (NVIDIA/nvidia-docker#1735: nvidia/cuda:11.6.2-base-ubuntu20.04 runs where 11.0-base-ubuntu20.04 is gone).
_CUDA_IMAGE = LazyPattern(r"(?:(?:docker\.io|nvcr\.io)/)?nvidia/cuda")
_CUDA_TAG = LazyPattern(r"(?P<major>\d{1,2})\.(?P<minor>\d{1,2})(?P<patch>\.\d{1,3})?(?P<rest>(?:-[a-z0-9.]{1,30}){0,4})")
_IMAGE_OS = LazyPattern(r"(?:ubuntu|centos|ubi|rockylinux|oraclelinux|amzn)\d[\d.]{0,6}")
# The Ubuntu releases NVIDIA builds a CUDA 11 and 12 image on (the host's own, where it is one of them: the image's OS
# need not match the host's, and the same one reads least surprising to the person).
_UBUNTU_IMAGES = ("18.04", "20.04", "22.04", "24.04")


def check_image_tag_missing(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """docker's "manifest for nvidia/cuda:TAG not found: manifest unknown" (moby distribution/errors.go): the registry
    holds no such tag, so the pull failed before the container, the NVIDIA runtime or the driver were involved. NVIDIA
    tags its CUDA images with the toolkit's full release and the OS (11.0.3-base-ubuntu18.04) and took the short tags
    (11.0-base) and end-of-life releases down: a short CUDA 11 or newer tag has its minor's last update (the matrix's
    releases, compat_matrix/cuda_driver.toml) and an OS written in; an older CUDA, or a full tag taken down, is replaced
    by a tag of a CUDA the host's driver supports, which nvidia-smi says. Another repository's tag stays with the asks:
    its tags are its publisher's."""
    said = _said(facts, "image-manifest-unknown")
    if not said:
        return
    ref = said[0].get("image") or ""
    repo, _, tag = ref.rpartition(":")
    if not _CUDA_IMAGE.fullmatch(repo) or (m := _CUDA_TAG.fullmatch(tag)) is None:
        return
    major, minor = int(m.group("major")), int(m.group("minor"))
    parts = [p for p in (m.group("rest") or "").split("-") if p]
    os_part = next((p for p in parts if _IMAGE_OS.fullmatch(p)), None)
    flavour = "-".join(p for p in parts if p != os_part) or "base"
    release = ctx.matrix.cuda_last_release(f"{major}.{minor}") if major >= 11 and not m.group("patch") else None
    check_driver = Cmd(("nvidia-smi",), note="on the host: 'CUDA Version' is the newest CUDA an image may carry here")
    steps: tuple[Cmd, ...]
    if release is not None:
        distro = facts.platform.distro
        host_ubuntu = distro.version_id if distro.id == "ubuntu" and distro.version_id in _UBUNTU_IMAGES else None
        os_tag = os_part or f"ubuntu{host_ubuntu or ('22.04' if major >= 12 else '20.04')}"
        new = f"{repo}:{release.release}-{flavour}-{os_tag}"
        runs = [e for e in facts.pasted.reported("docker-run-said") if ref in (e.get("args") or "").split()]
        # the reporter's own run on the new tag; where none is shown (a Dockerfile's FROM, a CI job), its pull
        steps = (
            (
                Cmd(
                    ("docker", "run", *(new if w == ref else w for w in (runs[-1].get("args") or "").split())),
                    note="the same run, on a tag that exists",
                ),
            )
            if runs
            else (Cmd(("docker", "pull", new), note="then the same tag where the old one is written (FROM, compose, CI)"),)
        )
        fix = (
            f"Use the tag NVIDIA publishes for CUDA {major}.{minor}: {new} (its last update, {release.release}, with the "
            "flavour and an OS in the tag); the short form is gone from the registry. Any other tag of NVIDIA's "
            "supported-tags list whose CUDA the host's driver supports does the same."
        )
    else:
        steps = (check_driver,)
        fix = (
            f"Use a tag NVIDIA still publishes: a current release of a CUDA the host's driver supports, written in full "
            f"with its flavour and OS (as {repo}:12.2.2-{flavour}-ubuntu22.04 is), from NVIDIA's supported-tags list; "
            f"{'the CUDA 10 and older images were taken down' if major < 11 else 'end-of-life releases are taken down'}."
        )
    yield Finding(
        "container-image-tag-missing",
        Severity.ERROR,
        "platform",
        f"the image tag {ref} does not exist in the registry: the GPU setup never ran",
        f"docker answered 'manifest for {ref} not found: manifest unknown': the registry has no image under that tag, so "
        "the pull failed before a container was made. The NVIDIA container runtime, the driver and the host's CUDA "
        "toolkit were not involved and need no change. NVIDIA tags its CUDA images with the toolkit's full release "
        "and the OS (11.0.3-base-ubuntu18.04) and has taken the short tags (11.0-base, latest) and end-of-life "
        "releases down.",
        (ev("pasted", said[0].line),),
        Remediation(fix, steps, component="container", where="the host"),
    )


def check_driver_container_kernel(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The GPU Operator's driver container failing (its "Could not resolve Linux kernel version", or its pod in
    CrashLoopBackOff) on a node whose running kernel the text shows from outside the distribution's repositories (ELRepo's
    kernel-lt or kernel-ml, a 4.x kernel on CentOS 7: facts.KERNEL_OUTSIDE_DISTRO). The container builds the module
    against the kernel-headers and kernel-devel of the running kernel that it installs from the distribution's
    repositories (NVIDIA/gpu-driver-container centos7/nvidia-driver @3938ca45, _resolve_kernel_version and
    _install_prerequisites), which carry none for such a kernel: no restart of the pod helps. The node's driver is then
    built on the node against that kernel's own -devel package with the operator's driver container turned off
    (driver.enabled=false, the GPU Operator's mode for a preinstalled driver), or the node boots its distribution's
    kernel again; a driver image changed to install the other repository's headers also works (NVIDIA/gpu-operator#155)."""
    from gpudoctor.facts import KERNEL_OUTSIDE_DISTRO

    said = _said(facts, "driver-container-kernel-unresolved") or _said(facts, "gpu-operator-driver-crashing")
    cue = next((c for c in facts.pasted.cues if c.get("cue") == KERNEL_OUTSIDE_DISTRO), None)
    if not said or cue is None or not (release := cue.get("means") or ""):
        return
    elrepo = ".elrepo" in release
    yield Finding(
        "driver-container-kernel-unsupported",
        Severity.ERROR,
        "driver",
        f"the GPU Operator's driver container cannot build the driver for the node's kernel {release}",
        f"The node runs the kernel {release}, which its distribution's repositories do not carry"
        + (" (it is ELRepo's kernel-lt or kernel-ml)" if elrepo else "")
        + ". The operator's driver container builds the NVIDIA module against the headers of the running kernel, "
        "installed from the distribution's repositories; finding none it stops ('Could not resolve Linux kernel "
        "version') and its pod restarts in CrashLoopBackOff, while the toolkit and device plugin wait for it. "
        "Restarting the pod, or reinstalling the operator or the toolkit, changes nothing.",
        (ev("pasted", said[0].line), ev("pasted", cue.get("line") or release)),
        Remediation(
            "On the GPU node: build the driver there, against the running kernel's own -devel package (the package "
            "rpm names, kernel-lt or kernel-ml, its -devel from the same repository: yum --enablerepo=elrepo-kernel "
            f"install kernel-lt-devel-{release} for kernel-lt), with NVIDIA's .run installer of the driver version the "
            "operator used and --dkms, until nvidia-smi answers on the node; then turn the operator's driver container "
            "off so it uses that driver and keeps the toolkit and the device plugin.",
            (
                Cmd(("uname", "-r"), note=f"on the GPU node: {release}"),
                Cmd(
                    ("rpm", "-qf", f"/boot/vmlinuz-{release}"),
                    note="on the node: the kernel's package, whose -devel the build needs",
                ),
                Cmd(("nvidia-smi",), note="on the node, after the driver is built there: it answers"),
                _operator_upgrade(
                    Placeholder("namespace"),
                    "driver.enabled=false",
                    "the operator uses the node's driver; toolkit, device plugin and validators stay",
                ),
            ),
            requires_root=True,
            component="driver",
            where="the GPU node",
            alternative=Remediation(
                "Boot the node into its distribution's own kernel again (the one the driver container found headers "
                "for before), or build a driver image whose script installs the other repository's kernel headers and "
                "point the operator's driver.repository and driver.image at it.",
                (),
                component="driver",
                where="the GPU node",
            ),
        ),
    )


# The evidence that the text is the GPU Operator's driver container at work on a node (its own start line, its pod
# restarting, the validator waiting for it, its kernel-headers step failing): a module build in that text is the
# container's, on the node's running kernel.
_DRIVER_CONTAINER_KINDS = (
    "gpu-driver-container-said",
    "gpu-operator-driver-crashing",
    "gpu-operator-driver-not-ready",
    "driver-container-kernel-unresolved",
    "driver-container-kernel-headers-unavailable",
)


def check_driver_container_compiler(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The GPU Operator's driver container compiling the NVIDIA module with an older GCC major than the node's kernel
    was built with (the kernel Makefile's "the compiler differs from the one used to build the kernel", NVIDIA's
    conftest.sh "does not match the compiler used here": catalogue.toml's branch-h288 block). The kernel's build flags
    come from that newer GCC (Ubuntu's -gcp and 6.x kernels for 22.04 are built by gcc-12 and pass
    -ftrivial-auto-var-init=zero), which the container's build-essential GCC 11 refuses, so the module never builds and
    the pod restarts (NVIDIA/gpu-operator#564, the maintainer: "we install build-essential meta package which is
    pulling GCC 11.x version by default and doesn't support the options that the kernel is built with"). The fix is a
    driver image whose default gcc is the kernel's major: NVIDIA's own ubuntu22.04 image installs gcc-12 as gcc from
    NVIDIA/gpu-driver-container@dd69782d (2024-04, "Kernels with versions 5.19.x and 6.5.x need gcc 12.3.0"), or one
    built so, or precompiled modules; IGNORE_CC_MISMATCH only silences the check (the container sets it already:
    ubuntu22.04/nvidia-driver @06a208ca). A newer GCC than the kernel's (a 5.15 kernel built by gcc 9 or 11 beside
    the container's 11, the reporter's AWS nodes in #564) builds, and a same-major pair differs only in its text: neither
    is judged."""
    said = _said(facts, "kernel-compiler-differs")
    if not said or not any(_said(facts, kind) for kind in _DRIVER_CONTAINER_KINDS):
        return
    pair = next(
        (
            (int(e.get("kernel_cc")), int(e.get("build_cc")), e)
            for e in said
            if (e.get("kernel_cc") or "").isdigit() and (e.get("build_cc") or "").isdigit()
        ),
        None,
    )
    if pair is None or pair[1] >= pair[0]:
        return
    kernel_cc, build_cc, e = pair
    namespace = Placeholder("namespace")
    daemonset = "ds/nvidia-driver-daemonset"
    yield Finding(
        "driver-container-kernel-unsupported",
        Severity.ERROR,
        "driver",
        f"the GPU Operator's driver container builds the driver with GCC {build_cc}, older than the GCC {kernel_cc} "
        "the node's kernel was built with",
        f"The node's running kernel was built by GCC {kernel_cc}, and the driver container compiles the NVIDIA kernel "
        f"module with its own GCC {build_cc}, as the build's warning shows. The kernel's build passes options that only "
        f"GCC {kernel_cc} knows, so an older compiler cannot build the module: the container fails, its pod restarts, "
        "and the toolkit and device plugin wait for it. Restarting the pod, reinstalling the operator unchanged or "
        "setting IGNORE_CC_MISMATCH (which only silences the check) changes nothing; the node's kernel and GPUs are fine.",
        (ev("pasted", e.line),),
        Remediation(
            f"Give the operator a driver image whose default compiler is GCC {kernel_cc}: NVIDIA's own driver images "
            f"of newer GPU Operator releases install the kernel's GCC beside build-essential, or build one from NVIDIA's "
            f"driver container sources for the node's distribution with apt-get install -y gcc-{kernel_cc} && "
            f"update-alternatives --install /usr/bin/gcc gcc /usr/bin/gcc-{kernel_cc} {kernel_cc} in its install step, "
            "tag it <driver-version>-<distribution>, push it to your registry, and point the operator at it; then the "
            "driver pods roll out and nvidia-smi answers in them.",
            (
                Cmd(
                    ("kubectl", "logs", "-n", namespace, daemonset, "-c", "nvidia-driver-ctr"),
                    pipe=("grep", "-iE", "gcc|unrecognized|error"),
                    note="the compiler's error after the warning (read-only)",
                ),
                _operator_upgrade(
                    namespace,
                    Placeholder("driver-image-settings"),
                    f"driver.repository=<your-registry>,driver.version=<driver-version>: the image with gcc-{kernel_cc} as gcc",
                ),
                Cmd(("kubectl", "rollout", "status", "-n", namespace, daemonset)),
                Cmd(
                    ("kubectl", "exec", "-n", namespace, daemonset, "-c", "nvidia-driver-ctr", "--", "nvidia-smi"),
                    note="the driver built and loaded on the node",
                ),
            ),
            component="driver",
            where="the cluster",
            alternative=Remediation(
                f"Or build a precompiled-modules driver image for the node's kernel (NVIDIA's precompiled driver "
                "container recipe) and deploy it with --set driver.usePrecompiled=true; or install the driver on the "
                f"GPU nodes themselves (with GCC {kernel_cc}) and run the operator with --set driver.enabled=false.",
                (),
                component="driver",
                where="the cluster",
            ),
        ),
    )


def _operator_upgrade(namespace, setting, note: str) -> Cmd:
    """The GPU Operator's Helm release upgraded in place with one setting changed (--reuse-values keeps the rest): how
    both driver-container remedies above change what the operator deploys."""
    return Cmd(
        (
            "helm",
            "upgrade",
            Placeholder("helm-release"),
            "nvidia/gpu-operator",
            "-n",
            namespace,
            "--reuse-values",
            "--set",
            setting,
        ),
        note=note,
    )


def check_compose_gpu_option(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """docker-compose 1.x refusing the file's GPU request: `deploy.resources.reservations.devices` (known from 1.28.0,
    docker/compose 854c0033) or a service's `runtime:` (from 1.27.0, which merged the file formats into the Compose
    Specification). The file is right and no container started: the fix is the Compose that reads it. Compose v2
    (`docker compose`, the docker CLI's plugin) reads both keys whatever the file's `version:`."""
    said = _said(facts, "compose-gpu-option-unknown")
    if not said:
        return
    e = said[0]
    option, since = e.get("option") or "devices", e.get("since") or "1.28.0"
    key = "deploy.resources.reservations.devices" if option == "devices" else "runtime"
    from gpudoctor.planner.resume import compose_v1, shown_command

    # the reporter's own docker-compose command, run by Compose v2 (its file and options kept); else every service of the
    # file (the paste keeps one line of each message, so the services refused are not all known)
    own = shown_command(facts)
    if own is not None and compose_v1(own):
        words = own[1:] if own[0] == "sudo" else own
        up = Cmd(("docker", "compose", *words[1:]), root=own[0] == "sudo", note="your command, read by Compose v2")
    else:
        up = Cmd(("docker", "compose", "up", "-d"), note="the same file, read by Compose v2")
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        f"docker-compose is older than {since}: it refuses the file's GPU request ({key}), so no container started",
        f"docker-compose checked the file against its own schema and refused the {key} key, as the text shows: "
        f"docker-compose learnt that key in {since}, so the one that read the file is older. The file, the driver and the "
        "NVIDIA Container Toolkit are not what failed; the GPU request never reached docker. Compose v2 (`docker "
        "compose`, a plugin of the docker CLI) reads it.",
        (ev("pasted", e.line),),
        Remediation(
            "Run the same file with Compose v2, `docker compose` (a space, not the hyphen): check that the plugin "
            f"answers, then bring the services up with it. Where it does not, install Docker's compose plugin (the "
            f"docker-compose-plugin package of Docker's repository) or a docker-compose of {since} or newer, and "
            "remove the old docker-compose so that scripts do not find it first.",
            (
                Cmd(("docker", "compose", "version"), note="Docker Compose version v2 or newer: the plugin is there"),
                Cmd(("docker-compose", "version"), note="the old one, which refused the file"),
                up,
            ),
            component="container",
            where="the host",
        ),
    )


def check_docker_cli_before_gpus(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """pflag's "unknown flag: --gpus" from docker's CLI: the client defines --gpus from 19.03 (docker/cli
    cli/command/container/opts.go, API 1.40). The client is its own package (docker-ce-cli), so it can lag a daemon that
    is new enough. "unknown flag: --gpus all" (the option and its value handed over as one argument) does not reach
    this: the catalogue's pattern leaves it out."""
    said = _said(facts, "docker-cli-before-gpus")
    if not said:
        return
    run = reporters_docker_run(facts, gpus=True)
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the docker client is older than 19.03: it has no --gpus option, so the container never started",
        "docker's command-line client answered 'unknown flag: --gpus', as the text shows: --gpus came with Docker "
        "19.03, and this client is older (the daemon may be newer: the client is a package of its own, docker-ce-cli "
        "in Docker's repository). Nothing reached the daemon or the GPU.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Upgrade the docker client to the daemon's release (19.03 or newer: Docker's docker-ce-cli package, from "
            "the repository the daemon came from), then run the command again. With a client that cannot be upgraded, "
            "--runtime=nvidia in place of --gpus all asks for the GPU through nvidia-docker2's runtime, where the "
            "daemon has it registered.",
            (
                Cmd(("docker", "version"), note="Client: Version 19.03 or newer is needed; the Server's is shown under it"),
                run or Cmd(("docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi"), note="after the upgrade"),
            ),
            component="container",
            where="the host",
        ),
    )


def check_podman_cdi_as_path(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """podman's "Error: stat nvidia.com/gpu=...: no such file or directory": a podman before 4.1 took the CDI device
    name for a path on the host (pkg/specgen/generate/config_linux.go DevicesFromPath @ v3.4.4). NVIDIA's CDI support
    needs podman 4.1 (the toolkit's maintainer, NVIDIA/nvidia-container-toolkit#63); Ubuntu 22.04 ships 3.4.4."""
    said = _said(facts, "podman-cdi-device-as-path")
    if not said:
        return
    device = said[0].get("device") or "nvidia.com/gpu=all"
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "podman is older than 4.1: it takes the CDI device name for a file, so the container never started",
        f"podman answered 'stat {device}: no such file or directory', as the text shows: it read the CDI device name "
        "as a path on the host, which podman does when its CDI support cannot resolve the name, as before 4.1 (the "
        "release NVIDIA's CDI support needs). The driver and the NVIDIA Container Toolkit's spec are not what failed.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Upgrade podman to 4.1 or newer (a newer distribution release ships it: Ubuntu 24.04 has 4.9), make sure "
            "the NVIDIA CDI spec lists the device, and start the container again.",
            (
                Cmd(("podman", "--version"), note="4.1 or newer reads CDI device names"),
                Cmd(("nvidia-ctk", "cdi", "list"), note=f"{device} among the devices"),
                Cmd(
                    (
                        "podman",
                        "run",
                        "--rm",
                        "--device",
                        device,
                        "--security-opt=label=disable",
                        "ubuntu",
                        "nvidia-smi",
                        "-L",
                    ),
                    note="after the upgrade: the GPU is listed",
                ),
            ),
            component="container",
            where="the host",
        ),
    )


def check_cdi_host_device_stale(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The CDI library's "failed to stat CDI host device" for a render or card node (/dev/dri/...): the spec lists the
    nodes of the moment `nvidia-ctk cdi generate` ran, and those are numbered again when another display driver or GPU
    comes or goes, so the spec is generated again (NVIDIA/nvidia-container-toolkit#885). A /dev/nvidia* node missing
    may instead be a driver module not loaded: the catalogue's asks decide that one."""
    said = [e for e in _said(facts, "cdi-host-device-missing") if (e.get("device") or "").startswith("/dev/dri/")]
    if not said:
        return
    device = said[0].get("device")
    podman = "Error response from daemon" not in said[0].line
    check = (
        ("podman", "run", "--rm", "--device", "nvidia.com/gpu=all", "--security-opt=label=disable")
        if podman
        else ("docker", "run", "--rm", "--device", "nvidia.com/gpu=all")
    )
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        f"the NVIDIA CDI spec names {device}, which this host no longer has: the spec is stale",
        f"the container engine applied the NVIDIA CDI spec and found no {device} on the host, as the text shows: the "
        "spec lists the GPU's render and card nodes as they were when it was generated, and their numbers change when "
        "a display driver or another GPU comes or goes. Generated again, the spec names the nodes there are now.",
        (ev("pasted", said[0].line),),
        Remediation(
            "On the host: generate the NVIDIA CDI spec again (each spec file the engine reads: /etc/cdi, and "
            "/var/run/cdi where the toolkit keeps one there too), check it, and start the container again.",
            (
                Cmd(("ls", "-l", "/etc/cdi", "/var/run/cdi"), note="the spec files the engine reads"),
                Cmd(
                    ("nvidia-ctk", "cdi", "generate", f"--output={_CDI_SPEC}"),
                    root=True,
                    note="likewise --output=/var/run/cdi/nvidia.yaml where that file is listed",
                ),
                Cmd(("nvidia-ctk", "cdi", "list"), note="nvidia.com/gpu=all among the devices"),
                Cmd((*check, "ubuntu", "nvidia-smi", "-L")),
            ),
            requires_root=True,
            component="container",
            where="the host",
        ),
    )


def check_docker_gpus_one_argument(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """pflag's "unknown flag: --gpus all": the option and its value reached docker as one argument (pflag names the
    whole argument up to "="), so the client refused an option "gpus all". The caller that builds the command joined
    them: a devcontainer.json runArgs entry, a subprocess list (microsoft/vscode-remote-release#2366,
    NVIDIA/nvidia-docker#1200). `--gpus=all` is one argument that docker reads. The message says nothing of the
    client's release (one before 19.03 refuses the joined argument alike): the planner asks it before --gpus."""
    said = _said(facts, "docker-gpus-one-argument")
    if not said:
        return
    value = said[0].get("value") or "all"
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        f"docker got '--gpus {value}' as one argument: the command that starts it joined the option and its value",
        f"docker's client answered 'unknown flag: --gpus {value}', as the text shows: the option and its value came "
        "as one argument, which it reads as an option named 'gpus " + value + "'. Whatever builds "
        "the docker command (a devcontainer.json runArgs entry, a program's argument list) put them in one string. "
        "The driver, the toolkit and the image are not what failed.",
        (ev("pasted", said[0].line),),
        Remediation(
            f'Give docker the option and its value as two arguments ("--gpus", "{value}" in runArgs or an argument '
            f"list), or as one argument with an equals sign (--gpus={value}), then start the container again.",
            (
                Cmd(
                    ("docker", "run", "--rm", f"--gpus={value}", "ubuntu", "nvidia-smi", "-L"),
                    note="the same request as one argument docker reads: the GPU is listed",
                ),
            ),
            component="container",
            where="the host",
        ),
    )


# The paths under which the container runtime's hook places nvidia-persistenced's socket (libnvidia-container's
# NV_PERSISTENCED_SOCKET, /var/run/nvidia-persistenced/socket; /var/run is a link to /run on current distributions).
_RUN_DIRS = ("/run", "/var/run")
_SOCKET_DIR = "nvidia-persistenced"


def _binds_over_socket(words: list[str]) -> tuple[int, str] | None:
    """The first `-v`/`--volume` bind (SRC:DST[:opts]) of `words` whose container side is /run, /var/run, or the
    persistence daemon's directory or socket under them (what the hook's own socket mount then lands on): the index of
    its option word, and the bind."""
    for i, w in enumerate(words):
        opt, _, value = w.partition("=")
        if opt not in ("-v", "--volume"):
            continue
        value = value or (words[i + 1] if i + 1 < len(words) else "")
        parts = value.split(":")
        target = (parts[1] if len(parts) > 1 else parts[0]).rstrip("/") or "/"
        if target in _RUN_DIRS or any(target.startswith(f"{d}/{_SOCKET_DIR}") for d in _RUN_DIRS):
            return i, value
    return None


def check_persistenced_socket_bound(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvidia-container-cli's `mount error: file creation failed: .../run/nvidia-persistenced/socket: no such device or
    address`: the hook (libnvidia-container src/nvc_mount.c, mount_ipc) creates a file at that path in the container
    before binding the host's socket onto it; where the container's own bind already put the host's /run (or /var/run,
    or the socket) there, the path is the live socket, and creating a file on a socket fails with ENXIO
    (NVIDIA/nvidia-docker#885). Decided only where the text shows the reporter's docker run with such a bind: without
    it, the catalogue's asks (the container's binds) decide. The fix is the run without that bind; the driver,
    persistence mode and the toolkit stay as they are."""
    said = _said(facts, "container-persistenced-socket-bound")
    runs = [e for e in facts.pasted.reported("docker-run-said") if (e.get("args") or "").split()] if said else []
    bound = next(((e, b) for e in reversed(runs) if (b := _binds_over_socket((e.get("args") or "").split()))), None)
    if not said or bound is None:
        return
    run, (at, bind) = bound
    words = (run.get("args") or "").split()
    kept = words[:at] + words[at + (1 if "=" in words[at] else 2) :]
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        f"the container binds the host's {bind.split(':')[0]} over the path where the NVIDIA runtime puts "
        "nvidia-persistenced's socket",
        "nvidia-container-cli could not create /run/nvidia-persistenced/socket in the container ('no such device or "
        f"address'), as the text shows: with nvidia-persistenced running, the runtime binds its socket there, and the "
        f"run's own bind ({bind}) has already made that path the host's live socket, on which no file can be created. "
        "The driver, persistence mode and the container toolkit are not at fault.",
        (ev("pasted", said[0].line), ev("pasted", run.line)),
        Remediation(
            f"Start the container without the bind {bind}: the runtime gives it the persistence daemon's socket "
            "itself. Where the program needs something under /run, bind only that file or directory (for example "
            "-v /var/run/docker.sock:/var/run/docker.sock), never /run or /var/run whole.",
            (
                Cmd(("docker", "run", *kept), note=f"your command, as the text shows it, without {bind}"),
                Cmd(("nvidia-smi",), note="inside that container: the GPUs listed, persistence mode On"),
            ),
            component="container",
            where="the host",
        ),
    )


def check_container_require_invalid(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvidia-container-cli's "requirement error: invalid expression" (libnvidia-container src/cli/dsl.c @5823754b:
    dsl_evaluate fails the whole start on a requirement term it cannot parse). The terms come from the container's own
    environment: the hook turns the image's (or the pod's) NVIDIA_REQUIRE_CUDA and NVIDIA_REQUIRE_* into --require
    arguments unless NVIDIA_DISABLE_REQUIRE is set (NVIDIA/nvidia-container-toolkit internal/config/image/cuda_image.go
    @d34b3046). So the cause is in the image or the workload's environment, never the driver: the container needs a
    GPU (skip the requirement, or correct it in the image) or does not (NVIDIA_VISIBLE_DEVICES=void, with which the
    toolkit gives it no GPU and runs no check: its README's "void or empty or unset: ... the same behavior as runc")."""
    from gpudoctor.planner.where import container_of

    said = _said(facts, "container-require-invalid")
    if not said:
        return
    pod = container_of(facts) == "kubernetes"
    if pod:
        # the workload's pod template, in its namespace, as every pod-environment fix writes it (checks.workloads:
        # `kubectl set env` takes KIND/NAME, a bare name being read as a file or a kind: plans21/2150's reviewer)
        from gpudoctor.checks.workloads import env_in_pod_template, pod_template

        in_ns, _, workload = pod_template(facts)
        recreated = "the workload's pods are recreated with it"
        skip, check = env_in_pod_template(in_ns, workload, "NVIDIA_DISABLE_REQUIRE=true", note="", recreated=recreated)
        cpu, _ = env_in_pod_template(
            in_ns, workload, "NVIDIA_VISIBLE_DEVICES=void", note="a workload that needs no GPU", recreated=recreated
        )
    else:
        # (the image as a placeholder: a paste that quotes a working `docker run` beside the failing one, the usual
        # "nvidia/cuda ... nvidia-smi works", must not have its working image taken for the refused one)
        skip = Cmd(
            ("docker", "run", "-e", "NVIDIA_DISABLE_REQUIRE=true", "--gpus", "all", Placeholder("image")),
            note="skips the image's requirement check",
        )
        cpu = Cmd(("docker", "run", "-e", "NVIDIA_VISIBLE_DEVICES=void", Placeholder("image")), note="an image that needs no GPU")
        check = Cmd(
            ("docker", "image", "inspect", "--format", "{{range .Config.Env}}{{println .}}{{end}}", Placeholder("image")),
            pipe=("grep", "^NVIDIA_"),
            note="the malformed NVIDIA_REQUIRE_* the image carries",
        )
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the NVIDIA container hook cannot read the container's CUDA requirement (NVIDIA_REQUIRE_*) and refuses to start it",
        "nvidia-container-cli answered 'requirement error: invalid expression': a requirement the container carries in "
        "its environment (the image's or the workload's NVIDIA_REQUIRE_CUDA, or another NVIDIA_REQUIRE_* variable) is "
        "not an expression it can parse, such as a version left empty (cuda>=). It fails before any GPU is looked at: "
        "the driver and the toolkit are not at fault, the image's environment is.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Start the container with NVIDIA_DISABLE_REQUIRE=true: the toolkit then skips the image's requirements "
            "(the lasting fix is a correct NVIDIA_REQUIRE_CUDA in the image, or none).",
            (check, skip) if not pod else (skip, check),
            component="container",
            where="the cluster" if pod else "the host",
            alternative=Remediation(
                "Where the container needs no GPU (an image built for the CPU), give it none: with "
                "NVIDIA_VISIBLE_DEVICES=void the toolkit leaves it alone, requirement and all.",
                (cpu, check) if pod else (cpu,),
                component="container",
                where="the cluster" if pod else "the host",
            ),
        ),
    )
