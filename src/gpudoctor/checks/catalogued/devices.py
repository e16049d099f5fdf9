"""Catalogued messages of the GPU device and the driver's modules: video libraries a package does not install and a
container's video capability, a GPU in a restricted compute mode, GPU memory errors (ECC, Xid), CUDA's init
answering unknown (nvidia_uvm).

The device or the driver's own pieces are the cause, not the framework above them: the finding asks what decides
(nvidia-smi's query) where a query does, and fixes the driver's package, the container's capability, the device's
mode or the driver's module.
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

# The driver's video libraries are packages of their own. Debian's nvidia-graphics-drivers splits them out as
# libnvcuvid1 ("NVIDIA CUDA Video Decoder runtime library", libnvcuvid.so.1) and libnvidia-encode1 (libnvidia-encode.so.1),
# at the driver's version (debian/control: each Depends on libcuda1 (= ${binary:Version})), and nvidia-driver does not
# pull the decoder in; Ubuntu's are libnvidia-decode-<branch> and libnvidia-encode-<branch>.
_DEBIAN_VIDEO = {"libnvcuvid.so.1": "libnvcuvid1", "libnvidia-encode.so.1": "libnvidia-encode1"}


_DEBIAN_DRIVER = ("nvidia-driver", "nvidia-driver-libs", "libcuda1", "nvidia-smi")


_UBUNTU_DRIVER = LazyPattern(r"nvidia-driver-(?P<branch>\d{3})(?:-server)?(?:-open)?")


def check_video_library_packages(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """NVENC/NVDEC failing where the text lists the host's NVIDIA packages: the driver's video library package that the
    listing lacks, installed at the listed driver's version (the same repository and release as the driver)."""
    from gpudoctor.planner.remedy import apt_install

    wanted = _said(facts, "video-codec-failing-said") + _said(facts, "video-library-missing")
    listed = _said(facts, "distro-package-installed")
    if not wanted or not listed:
        return
    pkgs = {e.get("package"): e.get("version") for e in listed}
    ubuntu = next((m for n in pkgs if (m := _UBUNTU_DRIVER.fullmatch(n or ""))), None)
    if ubuntu is not None:
        version = pkgs[ubuntu.group(0)]
        needs = {
            "libnvcuvid.so.1": f"libnvidia-decode-{ubuntu.group('branch')}",
            "libnvidia-encode.so.1": f"libnvidia-encode-{ubuntu.group('branch')}",
        }
    else:
        version = next((pkgs[n] for n in _DEBIAN_DRIVER if n in pkgs), None)
        needs = dict(_DEBIAN_VIDEO)
    sonames = {e.get("soname") for e in wanted if e.get("soname")}
    missing = [(so, pkg) for so, pkg in needs.items() if pkg not in pkgs and (not sonames or so in sonames)]
    if not version or not missing:
        return
    names = ", ".join(pkg for _, pkg in missing)
    yield Finding(
        "driver-video-library-missing",
        Severity.ERROR,
        "driver",
        f"the host's NVIDIA driver {version} is installed without its video library package ({names})",
        f"The text wants NVIDIA's video encoder or decoder, and the host's package listing shows the driver at {version} "
        f"without {names}: the driver's video libraries ({', '.join(so for so, _ in missing)}) are packages of their own, "
        "which the driver's metapackage does not always pull in. A container gets them only from the host (the NVIDIA "
        "runtime mounts the host's copies for the video capability). A listing filtered by a word ('grep nvidia') may "
        "leave a package out: the loader's cache says which libraries are there.",
        tuple(ev("pasted", e.line) for e in wanted[:1]),
        Remediation(
            f"On the host, check the loader's cache, then install {names} at the driver's version {version} (the same "
            "repository as the driver); then recreate the container that uses it.",
            (
                Cmd(("ldconfig", "-p"), pipe=("grep", "-E", "libnvcuvid|libnvidia-encode"), note="on the host"),
                *apt_install(*(f"{pkg}={version}" for _, pkg in missing)),
            ),
            component="driver",
        ),
    )


def check_video_capability(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The driver's video library (libnvcuvid, libnvidia-encode) missing in a container that docker exec (or docker run)
    names, where the text shows no video capability asked: the NVIDIA runtime mounts the host's video libraries only
    for the `video` driver capability, and the default is compute,utility (NVIDIA/nvidia-container-toolkit,
    internal/config/image/capabilities.go: DefaultDriverCapabilities). The capabilities are read when the container is
    created, so the container is recreated with them; setting the variable inside it changes nothing."""
    from gpudoctor.facts import EXEC_NAMED, IMAGE_RUN
    from gpudoctor.planner.where import container_said

    wanted = _said(facts, "video-library-missing")
    if not wanted or _said(facts, "distro-package-installed"):
        return  # (a host package listing beside it: check_video_library_packages names the missing package)
    if _said(facts, "video-capability-said"):
        return  # the container asked for it: the host's driver without the library is what is left (an ask)
    named = next((c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == EXEC_NAMED), "")
    image = next((c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == IMAGE_RUN), "")
    runtime = container_said(facts)
    if runtime == "kubernetes":
        yield _pod_video_capability(facts, wanted[0])
        return
    if not (named or image) or runtime not in (None, "docker", "podman"):
        return
    tool = "podman" if runtime == "podman" else "docker"
    name: str | Placeholder = named or Placeholder("container")
    # the committed image is named after the container where its name is a valid repository name (lower case)
    kept: str | Placeholder = f"{named}:video" if re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,100}", named) else Placeholder("new-image")
    gpus = 'all,"capabilities=compute,utility,video"'
    yield Finding(
        "container-video-capability-missing",
        Severity.ERROR,
        "platform",
        "the container was created without the video driver capability: the driver's video library is not in it",
        "The NVIDIA container runtime mounts the host driver's video libraries (libnvcuvid, libnvidia-encode) only into "
        "a container created with the video driver capability; the default capabilities are compute and utility, so "
        "CUDA and nvidia-smi work while the video decoder or encoder cannot load. The capabilities are read once, when "
        "the container is created: exporting NVIDIA_DRIVER_CAPABILITIES inside it, or in a docker exec shell, changes "
        "nothing. Installing a driver inside the container would put libraries of another version than the host's "
        "module there.",
        tuple(ev("pasted", e.line) for e in wanted[:1]),
        Remediation(
            "Recreate the container with the video capability (keep what was installed in it by committing it to an "
            f"image first): --gpus {gpus}, or -e NVIDIA_DRIVER_CAPABILITIES=compute,utility,video (ENV in the image's "
            "Dockerfile does the same for every container made from it); then check that the library is there.",
            (
                Cmd(
                    (tool, "inspect", name, "--format", "{{json .Config.Env}} {{json .HostConfig.DeviceRequests}}"),
                    note="on the host: the capabilities it was created with",
                ),
                Cmd((tool, "commit", name, kept), note="keeps what was installed in it; skip if the image has it all"),
                Cmd((tool, "rm", "-f", name)),
                Cmd(
                    (
                        tool,
                        "run",
                        "-it",
                        *(("--name", named) if named else ()),
                        "--gpus",
                        gpus,
                        kept if named else image,
                    ),
                    note="on the host, with the volume and port options it had",
                ),
                Cmd(
                    (tool, "exec", name, "ldconfig", "-p"),
                    pipe=("grep", "-E", "libnvcuvid|libnvidia-encode"),
                    note="the host driver's video libraries, mounted",
                ),
            ),
            component="container",
            where="the host",
        ),
    )


def _pod_video_capability(facts: Facts, e) -> Finding:
    """The video library missing in a Kubernetes pod: the same default capabilities (compute,utility), set where a pod's
    containers get their environment, its controller's pod template. `kubectl set env` changes the template and the
    controller recreates the pods with it (kubernetes/website, content/en/docs/reference/kubectl/generated/
    kubectl_set/kubectl_set_env.md: "Update environment variables on a pod template"); the runtime reads the variable
    when the new pod's container is created. The device plugin allocates the GPU already: it is not reinstalled."""
    from gpudoctor.checks.workloads import env_in_pod_template, pod_template

    in_ns, pod, workload = pod_template(facts)
    return Finding(
        "container-video-capability-missing",
        Severity.ERROR,
        "platform",
        "the pod's container was created without the video driver capability: the driver's video library is not in it",
        "The NVIDIA container runtime mounts the node driver's video libraries (libnvcuvid, libnvidia-encode) only into "
        "a container whose NVIDIA_DRIVER_CAPABILITIES asks for video (or all); unset, it is compute,utility, so the pod "
        "gets the GPU, CUDA and nvidia-smi while the video decoder or encoder cannot load. An image that set the "
        "variable and a newer one that does not behave exactly so. The variable is read when the container is created: "
        "it goes into the pod template, and the pods are recreated. Installing a driver in the image would put "
        "libraries of another version than the node's module there.",
        (ev("pasted", e.line),),
        Remediation(
            "Set NVIDIA_DRIVER_CAPABILITIES=compute,utility,video (or all) in the environment of the pod template of the "
            "workload that runs the program (kubectl set env, or the same env entry in its manifest or chart values, "
            "where it stays), let the rollout recreate the pods, and check that the library is in the new pod. Still "
            "missing there, the node's driver lacks its video library package.",
            (
                Cmd(
                    ("kubectl", *in_ns, "exec", pod or Placeholder("pod"), "--", "printenv", "NVIDIA_DRIVER_CAPABILITIES"),
                    note="empty or without video: the runtime's default, compute,utility",
                ),
                *env_in_pod_template(
                    in_ns,
                    workload,
                    "NVIDIA_DRIVER_CAPABILITIES=compute,utility,video",
                    note="its pod template's environment (a StatefulSet: statefulset/NAME)",
                    recreated="the pods recreated with it",
                ),
                Cmd(
                    ("kubectl", *in_ns, "exec", workload, "--", "ldconfig", "-p"),
                    pipe=("grep", "-E", "libnvcuvid|libnvidia-encode"),
                    note="in the new pod: the node driver's video libraries, mounted",
                ),
            ),
            component="container",
            where="the cluster",  # kubectl, wherever its configuration reaches the cluster: not the node's shell
        ),
    )


def _init_unknown(facts: Facts) -> list:
    """The pasted lines where CUDA's first call failed with cudaErrorUnknown / CUDA_ERROR_UNKNOWN (999): PyTorch's
    "CUDA unknown error", Ollama's "cudart init failure: 999", cuInit's CUDA_ERROR_UNKNOWN."""
    return (
        _said(facts, "cuda-init-unknown")
        + [e for e in _said(facts, "cudart-init-failure") if e.get("code") == "999"]
        + [e for e in _said(facts, "cuinit-failed") if e.get("error") == "CUDA_ERROR_UNKNOWN"]
    )


def check_cuda_init_unknown(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA's first call answering 999 (unknown) on Linux, where the driver itself answers (nvidia-smi failed is a
    driver fault others name): the driver's unified-memory module, nvidia_uvm, is loaded and unusable, most often
    after suspend/resume (the GPU's memory is not preserved across it unless NVreg_PreserveVideoMemoryAllocations=1
    and NVIDIA's suspend services are on: NVIDIA's driver README, "Configuring Power Management Support"). Reloading
    nvidia_uvm while no CUDA program holds it restores CUDA without a reboot (ollama/ollama docs/gpu.md @074d639b, "Linux
    Suspend Resume"; pytorch/pytorch#88639). Not on WSL 2 or Windows, whose driver is Windows'."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.facts import SUSPEND_SAID
    from gpudoctor.planner.remedy import container_of, reboot
    from gpudoctor.planner.where import container_name, image_root

    said = _init_unknown(facts)
    system = (facts.platform.system or "").lower()
    if not said or facts.platform.wsl or system.startswith("win") or facts.driver.smi_error:
        return
    slept = next((c.get("line") or "" for c in facts.pasted.cues if c.get("cue") == SUSPEND_SAID), None)
    container = container_of(facts)
    # A docker or podman container the paste names holds nvidia_uvm open while it runs (rmmod refuses a module in
    # use): it is stopped first and started again after, by its name (where.container_name), with the sudo the paste
    # ran it under (ollama/ollama#2934: rmmod refused until `docker stop ollama`, then `docker restart`). A pod's is its
    # node's kubelet's to restart; an unnamed one is left to the prose.
    name = container_name(facts) if container in ("docker", "podman") else None
    runtime = container or "docker"
    stop = (Cmd((runtime, "stop", name), root=image_root(facts), note="the container that holds the GPU"),) if name else ()
    start = (Cmd((runtime, "start", name), root=image_root(facts), note="the same container, CUDA usable again"),) if name else ()
    prevent = Remediation(
        "To keep it from recurring after suspend: have the driver save the GPU's memory across suspend "
        "(NVreg_PreserveVideoMemoryAllocations=1) with NVIDIA's suspend and resume services enabled, then reboot once.",
        (
            Cmd(
                ("printf", "%s\\n", "options nvidia NVreg_PreserveVideoMemoryAllocations=1"),
                pipe=("sudo", "tee", "/etc/modprobe.d/nvidia-power-management.conf"),
            ),
            Cmd(
                ("systemctl", "enable", "nvidia-suspend.service", "nvidia-hibernate.service", "nvidia-resume.service"), root=True
            ),
            *reboot(facts),
        ),
        requires_root=True,
        component="driver",
    )
    yield Finding(
        "cuda-init-unknown",
        Severity.ERROR,
        "driver",
        "CUDA cannot start: its first call fails with an unknown error (999)"
        + (" after the machine suspended and resumed" if slept else ""),
        "CUDA's first call answered cudaErrorUnknown (999), so every program falls back to the CPU or sees no GPU. The "
        "driver is installed; what fails is its unified-memory module (nvidia_uvm), "
        + (
            "left unusable by the suspend/resume the text describes. "
            if slept
            else "most often left unusable by a suspend/resume, or missing its /dev/nvidia-uvm node. "
        )
        + "It is not the CUDA toolkit or the program's CUDA libraries: reinstalling them changes nothing.",
        tuple(ev("pasted", e.line) for e in said[:2]) + ((ev("pasted", slept),) if slept else ()),
        Remediation(
            "Stop every program that uses the GPU (the service or notebook that failed, containers using it), then "
            "reload nvidia_uvm and start the program again; a reboot does the same.",
            (
                *stop,
                Cmd(("lsmod",), pipe=("grep", "nvidia_uvm"), note="its 'Used by' count must be 0 before it can unload"),
                Cmd(("rmmod", "nvidia_uvm"), root=True),
                Cmd(("modprobe", "nvidia_uvm"), root=True),
                *start,
            ),
            requires_root=True,
            component="driver",
            where="the host" if container else "",
            alternative=prevent if slept and not container else None,
        ),
    )


# nvidia-smi's words for the restricted compute modes (its table cell, its -q field), NVML's names for them.
_MODE_NAMES = {"E. Process": "Exclusive_Process", "E. Thread": "Exclusive_Thread", "Prohibited": "Prohibited"}


def check_compute_mode_restricted(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA's error 46 (all CUDA-capable devices are busy or unavailable) beside nvidia-smi showing a GPU in compute mode
    Exclusive_Process or Prohibited (NVML's nvmlComputeMode_t): that mode admits one CUDA context at a time, or none,
    so the error is the mode (and, for Exclusive_Process, the process that holds the GPU), not the program."""
    refused = _said(facts, "cuda-devices-unavailable")
    shown = _said(facts, "gpu-compute-mode-restricted")
    if not refused or not shown:
        return
    said = shown[0]
    mode = _MODE_NAMES.get(said.get("mode") or "", said.get("qmode") or said.get("cmode") or "")
    if not mode:
        return
    held = mode != "Prohibited"
    yield Finding(
        "gpu-compute-mode-restricted",
        Severity.ERROR,
        "gpu",
        f"A GPU is in compute mode {mode}: " + ("one CUDA process at a time" if held else "no CUDA process may use it"),
        "CUDA answered 'all CUDA-capable devices are busy or unavailable' (error 46) and nvidia-smi shows a GPU in "
        f"compute mode {mode}. "
        + (
            "In that mode the GPU admits a single CUDA context: while another process holds it, every other one gets error 46. "
            if held
            else "In that mode the GPU admits no CUDA context at all. "
        )
        + "On a shared server or cluster the administrator sets the mode on purpose; a job then has to get a GPU of "
        "its own (the scheduler's allocation, CUDA_VISIBLE_DEVICES).",
        (ev("pasted", refused[0].line), ev("pasted", said.line)),
        Remediation(
            "See which process holds the GPU and stop it, or run on another GPU; where you administer the machine and "
            "want it shared, set the compute mode back to Default (until the next reboot or driver reload).",
            (
                Cmd(("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv")),
                Cmd(("nvidia-smi", "-c", "DEFAULT"), root=True, note="every GPU; -i N for one"),
            ),
            requires_root=True,
            component="gpu",
        ),
    )


# The memory Xids (NVIDIA's Xid catalog, https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, retrieved
# 2026-11-29; names from open-gpu-kernel-modules nverror.h @df1c9a3d): what each says, and whether it is an error (the
# GPU needs the reset now) or a warning (the program that hit it was stopped, or the repair waits for the next reset).
_MEMORY_XIDS = {
    "48": ("an uncorrectable double-bit ECC error (Xid 48)", Severity.ERROR),
    "63": ("a page retired or a row remapped, waiting for a GPU reset (Xid 63)", Severity.WARNING),
    "64": ("a page retirement or row remapping that failed (Xid 64)", Severity.ERROR),
    "92": ("an excessive rate of corrected single-bit errors (Xid 92)", Severity.WARNING),
    "94": ("a contained uncorrectable error (Xid 94): the process that hit it was stopped", Severity.WARNING),
    "95": ("an uncontained uncorrectable error (Xid 95)", Severity.ERROR),
}


def check_gpu_memory_error(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """The GPU's memory failing, in the kernel log's Xid (48, 63, 64, 92, 94, 95) or CUDA's own error
    (CUDA_ERROR_ECC_UNCORRECTABLE): gpu-ecc-errors, as the GPU's counters would say it. The query that decides whether a
    repair is pending or failed comes first; the reset applies a pending one (NVIDIA's catalog: RESET_GPU), and is the
    administrators' on a cluster. nvidia-smi -i takes the bus id the Xid names (NVML's nvmlDeviceGetHandleByPciBusId_v2
    reads domain:bus:device.function in hex); the CUDA error names no GPU, so the query is of every GPU."""
    from gpudoctor.checks.health import check_ecc, lspci_slot
    from gpudoctor.planner.remedy import where_run

    said = _said(facts, "gpu-memory-error")
    if not said or next(iter(check_ecc(facts, ctx)), None) is not None:
        return  # the GPU's own counters, read whole, say it (gpudoctor.checks.health)
    named = [e for e in said if e.get("bus")]
    for e in named[:1] or said[:1]:
        slot = lspci_slot(f"{e.get('bus')}.0") if e.get("bus") else None
        what, severity = _MEMORY_XIDS.get(
            e.get("xid") or "", ("an uncorrectable ECC error (CUDA_ERROR_ECC_UNCORRECTABLE)", Severity.ERROR)
        )
        gpu = f"the GPU at {slot}" if slot else "a GPU"
        at = ("-i", slot) if slot else ()
        commands: list[Cmd] = [
            Cmd(
                ("nvidia-smi", "-q", "-d", "ECC,ROW_REMAPPER,PAGE_RETIREMENT", *at),
                note="a pending remapping or retirement is applied by the reset, a failed one means the GPU is to be replaced",
            )
        ]
        if e.get("xid") != "92":  # corrected errors: nothing waits for a reset, the rate is watched
            commands.append(
                Cmd(
                    ("nvidia-smi", "--gpu-reset", "-i", slot or Placeholder("gpu")),
                    root=True,
                    note="stop every process on this GPU first and drain the node on a cluster, reboot where the reset is refused",
                )
            )
        yield Finding(
            "gpu-ecc-errors",
            severity,
            "health",
            f"{gpu} reports {what}",
            "The GPU's memory failed in hardware: the program that hit it was stopped, and a page retirement or row "
            "remapping (Ampere and later) takes effect only after a GPU reset. No driver or CUDA install changes this. A "
            "failed repair (Xid 64), or errors that come back after the reset, mean the GPU is to be replaced.",
            tuple(ev("pasted", x.line) for x in (e, *(x for x in said if x is not e))[:2]),
            Remediation(
                "Read the GPU's ECC and row-remapper state, then reset the GPU (or reboot) to apply the pending repair; if a "
                "repair failed or errors recur, drain the node and have the GPU replaced (nvidia-bug-report.sh for the vendor).",
                tuple(commands),
                requires_root=True,
                component="health",
                where=where_run(facts),
            ),
        )


def check_mig_mode_pending(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """nvidia-smi's "MIG mode is in pending enable|disable state for GPU <bus>:In use by another client": the mode
    change needs a GPU reset (A100 and A30; from Hopper on none), and the driver's own reset was refused because a
    process holds the GPU. The same finding check_mig (checks/platform.py) gives a pending mode it reads from
    nvidia-smi -q, with what holds the GPU first: CUDA programs, and nvidia-persistenced, which keeps every GPU open
    (NVIDIA/gpu-operator#118: the reset worked once it was stopped); mig-parted's README adds the nvidia_drm module."""
    from gpudoctor.planner.remedy import reboot

    said = _said(facts, "mig-mode-pending")
    if not said or any(g.mig_pending for g in facts.driver.gpus):
        return  # (a pending mode read from nvidia-smi -q: check_mig says it)
    e = said[0]
    bus, state = e.get("bus") or "", e.get("state") or "enable"
    yield Finding(
        "mig-enabled",
        Severity.WARNING,
        "gpu",
        f"MIG mode on GPU {bus} is pending {state}: a process holds the GPU, so it was not reset",
        f"nvidia-smi set MIG mode to {state} on GPU {bus}, as the text shows, but the change takes effect only after "
        "a GPU reset (on A100 and A30; Hopper GPUs need none), and the reset was refused because another process uses "
        "the GPU: a CUDA program, nvidia-persistenced (which keeps every GPU open), a monitoring agent, or a display "
        "server through the nvidia_drm module. Until then the GPU keeps its old mode.",
        (ev("pasted", e.line),),
        Remediation(
            "On the host: stop what uses the GPU (the CUDA programs listed, the persistence daemon, monitoring agents "
            "such as DCGM; a display server where nvidia_drm is loaded), reset the GPU, start the daemon again and "
            "check that the mode is now current. A reboot does the same where the GPU cannot be freed.",
            (
                Cmd(
                    ("nvidia-smi", "--query-compute-apps=pid,process_name", "--format=csv"),
                    note="the CUDA programs on the GPU: stop them",
                ),
                Cmd(("systemctl", "stop", "nvidia-persistenced"), root=True, note="it keeps every GPU open"),
                Cmd(("nvidia-smi", "--gpu-reset", "-i", bus), root=True, note="no process may use this GPU"),
                Cmd(("systemctl", "start", "nvidia-persistenced"), root=True),
                Cmd(
                    ("nvidia-smi", "-i", bus, "--query-gpu=mig.mode.current,mig.mode.pending", "--format=csv"),
                    note="current equals pending now",
                ),
            ),
            requires_root=True,
            component="gpu",
            where="the host",
            alternative=Remediation(
                "Reboot the machine: the pending MIG mode takes effect at start, before any process holds the GPU.",
                reboot(facts),
                requires_root=True,
                component="gpu",
                where="the host",
            ),
        ),
    )


# The context length Ollama is given instead: 8192 tokens, the value Ollama's FAQ sets as its example (docs/faq.mdx
# @fb307609: "to set the default context window to 8K, use: OLLAMA_CONTEXT_LENGTH=8192 ollama serve"), above every
# default it had under 24 GiB of VRAM (2048, then 4096).
_OLLAMA_CONTEXT = "8192"


def check_ollama_context_too_large(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """An `ollama ps` row holding a model in system memory, wholly or in part, while it takes several times its weights
    there (gpudoctor.parsers.ollama_ps.context_overload): the context length makes the KV cache that does not fit the
    GPU, so a smaller context puts the model on it. Where Ollama reports it wholly on the CPU, only where the text
    shows an NVIDIA GPU or its driver answering (a machine without a usable GPU runs every model there); a CPU/GPU
    split shows that Ollama found a GPU itself.

    The server reads OLLAMA_CONTEXT_LENGTH at start (envconfig/config.go @fb307609: "Context length to use unless
    otherwise specified"), so it is set where Ollama's FAQ sets a server's variables (docs/faq.mdx @fb307609): the
    user's environment on Windows, then the app quit and started again; launchctl on macOS, then the app restarted;
    the systemd service's Environment= on Linux, then daemon-reload and a restart."""
    from gpudoctor.checks.reported import other_vendor_gpu_only
    from gpudoctor.facts import OLLAMA_CONTEXT_OVERLOAD

    cue = next((c for c in facts.pasted.cues if c.get("cue") == OLLAMA_CONTEXT_OVERLOAD), None) if facts.pasted.partial else None
    if cue is None:
        return
    means = cue.get("means") or ""
    if "CPU/GPU" not in means and (not (facts.driver.gpus or facts.driver.version) or other_vendor_gpu_only(facts) is not None):
        return
    model = means.split(": ", 1)[0]
    system = (facts.platform.system or "").lower()
    if system.startswith("win"):
        where = "quit Ollama from the taskbar and start it again from the Start menu"
        setting: tuple[Cmd, ...] = (
            Cmd(
                ("setx", "OLLAMA_CONTEXT_LENGTH", _OLLAMA_CONTEXT), note=f"your user's variable, read when Ollama starts: {where}"
            ),
        )
    elif system == "darwin":
        where = "restart the Ollama application"
        setting = (Cmd(("launchctl", "setenv", "OLLAMA_CONTEXT_LENGTH", _OLLAMA_CONTEXT), note=f"then {where}"),)
    else:
        where = "reload systemd and restart the service"
        setting = (
            Cmd(
                ("systemctl", "edit", "ollama.service"),
                root=True,
                note=f'under [Service] add the line Environment="OLLAMA_CONTEXT_LENGTH={_OLLAMA_CONTEXT}"',
            ),
            Cmd(("systemctl", "daemon-reload"), root=True),
            Cmd(("systemctl", "restart", "ollama"), root=True),
        )
    yield Finding(
        "ollama-context-too-large",
        Severity.ERROR,
        "gpu",
        f"Ollama's context length puts {model} on the CPU: the model takes several times its weights in memory",
        f"`ollama ps` shows {means}. What is loaded beyond the weights is the context's KV cache and compute graph, "
        "which grow with the context length; at this length the model does not fit the GPU's memory, so Ollama keeps "
        "it (or part of it) in system memory and runs it on the CPU. The GPU and its driver are not at fault.",
        (ev("pasted", cue.get("line") or means),),
        Remediation(
            f"Give Ollama's server a smaller context length (OLLAMA_CONTEXT_LENGTH={_OLLAMA_CONTEXT}; or the context "
            f"slider in the Ollama app's settings, or num_ctx for one request), {where}, then load the model again: "
            "`ollama ps` should show the CONTEXT column at the new length and PROCESSOR at 100% GPU (or a smaller CPU "
            "share where the weights alone exceed the GPU's memory).",
            (
                *setting,
                Cmd(("ollama", "run", model, "hi"), note="loads the model with the new context"),
                Cmd(("ollama", "ps"), note="CONTEXT and PROCESSOR as loaded now"),
            ),
            component="gpu",
        ),
    )


# (where the program runs: every entry of CUDA_VISIBLE_DEVICES that is a GPU's UUID, or the prefix of one CUDA accepts,
# as the index nvidia-smi gives that GPU; the entries it cannot match, a MIG instance's, kept as they are)
_UUID_TO_INDEX = (
    "import os, subprocess; "
    "rows = subprocess.run(['nvidia-smi', '--query-gpu=index,uuid', '--format=csv,noheader'], "
    "capture_output=True, text=True, check=True).stdout.splitlines(); "
    "gpus = [tuple(r.split(', ')) for r in rows if ', ' in r]; "
    "print(','.join(next((i for i, u in gpus if e.strip() and u.startswith(e.strip())), e.strip()) "
    "for e in os.environ.get('CUDA_VISIBLE_DEVICES', '').split(',')))"
)


def check_visible_devices_uuid(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """GPU (or MIG) UUIDs in CUDA_VISIBLE_DEVICES, which CUDA accepts, stopping a program whose own parser converts each
    entry with int(): dask-cuda before 0.17 (LocalCUDACluster, local_cuda_cluster.py @b4e134d8: `map(int, ...)`; UUIDs
    from rapidsai/dask-cuda#437, first in v0.17.0) and vLLM (Platform.device_id_to_physical_device_id; its serve path
    shows a pydantic error for it, vllm-project/vllm#20939). The ValueError names the UUID; a report whose log is cut
    before it says so itself (catalogue.toml: visible-devices-uuid-said; the reader takes that sentence for the failure).

    Nothing is reinstalled: the same GPUs are named by their indices. In a Kubernetes pod the device plugin gives the
    container only its GPUs, numbered from 0 inside, so the variable is taken out of the pod template; elsewhere (a
    scheduler's job, a shared node) it is rewritten to the index nvidia-smi gives each UUID, in PCI bus order as
    nvidia-smi numbers them (CUDA_DEVICE_ORDER=PCI_BUS_ID makes CUDA number them the same)."""
    from gpudoctor.cmdline import Output, SetEnv, SetFrom
    from gpudoctor.planner.where import container_said, python_exe

    parsed = _said(facts, "visible-devices-uuid-unparsed")
    said = _said(facts, "visible-devices-uuid-said")
    if not parsed and not said:
        return
    e = (parsed or said)[0]
    uuid = e.get("uuid") or ""
    shown = f" ({uuid})" if uuid else ""
    title = "the program reads CUDA_VISIBLE_DEVICES as GPU indices: the GPU UUIDs in it stop it"
    detail = (
        f"CUDA_VISIBLE_DEVICES names its GPUs by UUID{shown}, as a scheduler, a device plugin or a job script sets it, "
        "and CUDA accepts that; the program's own code converts each entry to an integer index (int()) and fails "
        "before it uses the GPU (in vLLM the failure surfaces as a pydantic validation error while the model is "
        "inspected). The GPU, the driver and CUDA are not at fault; naming the same GPUs by their indices, or a "
        "release of the program that accepts UUIDs (dask-cuda 0.17 and later does), avoids it."
    )
    if container_said(facts) == "kubernetes":
        from gpudoctor.checks.workloads import env_in_pod_template, pod_template

        in_ns, pod, workload = pod_template(facts)
        yield Finding(
            "cuda-visible-devices-hides-all",
            Severity.ERROR,
            "gpu",
            title,
            detail + " In a pod the device plugin already gives the container only its own GPUs, which CUDA numbers "
            "from 0 there, so the variable is not needed.",
            (ev("pasted", e.line),),
            Remediation(
                "Take CUDA_VISIBLE_DEVICES out of the environment of the pod template of the workload that runs the "
                "program (kubectl set env NAME-, or delete the env entry where its manifest or chart values set it, "
                "where it stays), or set it to the indices 0..N-1 of the pod's GPUs; let the rollout recreate the pods "
                "and read the new pod's log.",
                (
                    Cmd(
                        ("kubectl", *in_ns, "exec", pod or Placeholder("pod"), "--", "nvidia-smi", "-L"),
                        note="the pod's own GPUs, numbered from 0, and the UUIDs the variable holds",
                    ),
                    *env_in_pod_template(
                        in_ns,
                        workload,
                        "CUDA_VISIBLE_DEVICES-",
                        note="its pod template's environment without the variable (a StatefulSet: statefulset/NAME)",
                        recreated="the pods recreated without it",
                    ),
                    Cmd(("kubectl", *in_ns, "logs", workload), pipe=("tail", "-n", "40"), note="the program past its start"),
                ),
                component="container",
                where="the cluster",
            ),
        )
        return
    python = python_exe(facts)
    yield Finding(
        "cuda-visible-devices-hides-all",
        Severity.ERROR,
        "gpu",
        title,
        detail,
        (ev("pasted", e.line),),
        Remediation(
            "Where the program runs (inside the job that set the variable), name the same GPUs by the indices "
            "nvidia-smi gives them, with CUDA numbering the GPUs in the same PCI bus order, and start the program "
            "again from that shell (a batch script sets both before it); or upgrade the program to a release that "
            "accepts UUIDs. A MIG instance's UUID has no such index: there only the release helps.",
            (
                Cmd(("printenv", "CUDA_VISIBLE_DEVICES"), note="the UUIDs the scheduler or the script set"),
                Cmd(
                    ("nvidia-smi", "--query-gpu=index,uuid", "--format=csv,noheader"),
                    note="each GPU's index beside its UUID",
                ),
                SetEnv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", note="CUDA numbers the GPUs as nvidia-smi does"),
                SetFrom(
                    "CUDA_VISIBLE_DEVICES",
                    (Output((python, "-c", _UUID_TO_INDEX)),),
                    note="the same GPUs, by index",
                ),
                Cmd(("printenv", "CUDA_VISIBLE_DEVICES"), note="integers now, as many as before"),
            ),
            component="environment",
        ),
    )


def check_fabric_manager(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """CUDA's first call answering 802 (cudaErrorSystemNotReady, "system not yet initialized") on Linux where the driver
    itself answers (its version shown by nvidia-smi or the reporter): the GPUs are driven, but the NVSwitch fabric
    that connects them is not set up, which on HGX/DGX machines the NVIDIA Fabric Manager service does at boot, and
    only at exactly the driver's version (NVIDIA Fabric Manager User Guide,
    https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html: "the Fabric Manager package version
    must match the driver version", the nvidia-fabricmanager service; pytorch/pytorch#35710 and wilicc/gpu-burn#92:
    installing and starting it fixed 802). Not decided where no driver is shown (the catalogue's asks then decide),
    nor in a container or a pod, whose host or operator runs the service, nor on Windows or WSL."""
    from gpudoctor.cmdline import Cmd
    from gpudoctor.planner.remedy import container_of

    said = _said(facts, "cuda-system-not-ready")
    # (the driver's own version: a package's name stated for it keeps its release after it, "545.23.08-1.el7.x86_64")
    shown = re.match(r"\d{3}\.\d{1,3}(?:\.\d{1,3})?", facts.driver.version or "")
    version = shown.group(0) if shown else None
    system = (facts.platform.system or "").lower()
    if not said or not version or facts.platform.wsl or system.startswith("win") or facts.driver.smi_error:
        return
    if container_of(facts):
        return
    yield Finding(
        "fabric-manager-not-running",
        Severity.ERROR,
        "driver",
        f"CUDA cannot start: the GPU fabric is not initialised (error 802); the fabric manager of driver {version} is not running",
        f"CUDA's first call answered cudaErrorSystemNotReady (802) while the driver {version} answers. On a machine whose "
        "GPUs connect through NVSwitches (HGX and DGX boards: A100, H100, H200, B200, and the V100 HGX-2) CUDA waits for "
        "the NVIDIA Fabric Manager service to set up that fabric; it is not installed, not running, or of another version "
        "than the driver (it refuses to start then). Reinstalling the framework, CUDA or the driver changes nothing.",
        tuple(ev("pasted", e.line) for e in said[:2]) + (ev("pasted", f"driver {version}"),),
        Remediation(
            f"Install NVIDIA Fabric Manager of exactly the driver's version, {version} (the nvidia-fabricmanager package of "
            "that driver branch from NVIDIA's CUDA repository for this distribution, pinned to the same version), then "
            "enable and start its service and run the program again. `nvidia-smi topo -m` showing NV# links confirms an "
            "NVSwitch system; on one without NVSwitches, the service's journal says why CUDA is not ready.",
            (
                Cmd(("systemctl", "status", "nvidia-fabricmanager", "--no-pager"), note="read-only: missing, stopped or failed"),
                Cmd(("nvidia-smi", "-q"), pipe=("grep", "-i", "-A2", "fabric"), note="read-only: the GPUs' fabric state"),
                Cmd(
                    ("systemctl", "enable", "--now", "nvidia-fabricmanager"),
                    root=True,
                    note=f"once the {version} package is installed",
                ),
            ),
            requires_root=True,
            component="driver",
        ),
    )
