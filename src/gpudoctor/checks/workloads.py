"""A compose service or a pod given no GPU, judged from its pasted spec or log (gpudoctor.pasted.workloads).

The NVIDIA container toolkit mounts the device and the driver's libraries (libcuda, nvidia-smi) only into a container
that asks for a GPU, so a program in one that did not ask finds no driver at all: the CUDA runtime then says the
driver is "insufficient", PyTorch finds no GPU, nvidia-smi fails or is missing. A host driver reinstall changes none
of that; the request in the spec does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.parsers.error_texts import ErrorEvidence

# What a program says where no GPU reached its container (each a kind of gpudoctor.parsers.error_texts).
_NO_GPU_INSIDE = frozenset(
    {
        "cuda-driver-insufficient",
        "cuda-unavailable",
        "cuda-no-gpus",  # PyTorch's "No CUDA GPUs are available" (the catalogue's torch-no-cuda-gpus)
        "nvidia-smi-not-found",
        "tf-not-built-with-cuda",
        "workload-logged-no-gpu",
        "gpu-unused-said",  # the reporter's words: a symptom here only beside a pasted spec that requests no GPU
    }
)
_NVML_NO_GPU = frozenset({"cuda-no-device", "driver-unreachable", "nvml-library-missing", "cuda-driver-insufficient"})

_COMPOSE_STANZA = (
    "deploy: resources: reservations: devices: [{driver: nvidia, count: all, capabilities: [gpu]}] "
    "(the NVIDIA Container Toolkit configured for docker on the host; Docker Desktop brings its own)"
)
_POD_LIMIT = (
    "resources: limits: nvidia.com/gpu: 1, and runtimeClassName: nvidia where the cluster has that runtime class and "
    "nvidia is not containerd's default runtime (without it the pod runs without the NVIDIA runtime and gets no GPU)"
)


# The driver's own libraries, which only the runtime's GPU setup (the NVIDIA toolkit, Apptainer's --nv) puts in a
# container: one of them not found inside is the container given no GPU.
_DRIVER_LIBRARIES = frozenset({"libcuda.so.1", "libcuda.so", "libnvidia-ml.so.1"})


def _symptoms(facts: Facts) -> list:
    # (the reporter's words are read anywhere, gpudoctor.pasted.workloads; a pod's or container's symptom they are only
    # where the spec that starts it, pasted, requests no GPU: elsewhere their causes stay open, gpudoctor.checks.symptoms)
    spec = facts.pasted.reported("workload-without-gpu")
    return [
        e
        for e in facts.pasted.errors
        if (e.kind in _NO_GPU_INSIDE and (e.kind != "gpu-unused-said" or spec))
        or (e.kind == "nvml" and e.get("code") in _NVML_NO_GPU)
        or (e.kind == "library-missing" and e.get("soname") in _DRIVER_LIBRARIES)
    ]


def _driver_new_enough(facts: Facts, ctx: Context) -> str | None:
    """The host's CUDA where its driver is shown and of CUDA 12 or newer (what current images need), else None."""
    from gpudoctor.checks.driver import driver_cuda
    from gpudoctor.versions import major

    up_to, _ = driver_cuda(facts, ctx.matrix)
    return up_to if facts.driver.version and up_to and (major(up_to) or 0) >= 12 else None


def workload_no_gpu(facts: Facts, ctx: Context) -> Finding | None:
    """The one finding, or None: what gpudoctor.checks.reported asks before it prescribes a driver upgrade."""
    from gpudoctor.planner.remedy import container_said

    if not facts.pasted.partial or not (symptoms := _symptoms(facts)):
        return None
    said = facts.pasted.reported
    spec = said("workload-without-gpu")
    logged = [e for e in symptoms if e.kind == "workload-logged-no-gpu"]
    if said("workload-gpus"):
        return None  # a spec asks for GPUs: the failing program may well be that one, so the request is not what is missing
    if spec:
        # several services without a request: which one failed is not said, so the service is left to fill in
        w = spec[0]
        name = (w.get("name") or "") if len({e.get("name") for e in spec}) == 1 else ""
        return _finding(facts, w.get("runtime"), name, w.line, symptoms, shown=True)
    if logged and facts.driver.version:
        # the service's own log says it has no GPU while the host's driver answers
        return _finding(facts, "compose", logged[0].get("name") or "", logged[0].line, symptoms, shown=False)
    seen_none = [e for e in symptoms if e.kind != "cuda-driver-insufficient" and e.get("code") != "cuda-driver-insufficient"]
    if seen_none and container_said(facts) == "kubernetes" and not facts.driver.version and not facts.driver.reachable:
        # in a pod that sees no GPU and no driver at all: the pod spec's request decides, asked first
        return _finding(facts, "kubernetes", "", symptoms[0].line, symptoms, shown=False)
    insufficient = any(e.get("code") == "cuda-driver-insufficient" or e.kind == "cuda-driver-insufficient" for e in symptoms)
    if insufficient and container_said(facts) == "kubernetes" and (up_to := _driver_new_enough(facts, ctx)):
        return _finding(facts, "kubernetes", "", symptoms[0].line, symptoms, shown=False, up_to=up_to)
    return None


def pod_named(facts: Facts) -> str | None:
    """The pod the paste's prompt names (its host name is the pod's name: gpudoctor.pasted.cues)."""
    for c in facts.pasted.cues:
        if c.get("cue") == "prompt on a Deployment pod's name" and (
            m := re.search(r"@([a-z0-9][a-z0-9-]{0,252})[:\s]", c.get("line") or "")
        ):
            return m.group(1)
    return None


def kubectl_pod(facts: Facts) -> tuple[str, str]:
    """The namespace ("" where not given) and pod a `kubectl exec|describe pod|logs` line of the paste names."""
    from gpudoctor.facts import KUBECTL_POD

    means = next((c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == KUBECTL_POD), "/")
    ns, _, pod = means.partition("/")
    return ns, pod


# The resource each owner is patched as (kubectl's names), and whether its new pod keeps the old one's name.
_OWNER_RESOURCE = {
    "Notebook": ("notebooks.kubeflow.org", True),
    "StatefulSet": ("statefulset", True),
    "Deployment": ("deployment", False),
    "DaemonSet": ("daemonset", False),
}
_RUNTIME_CLASS_PATCH = '[{"op": "add", "path": "/spec/template/spec/runtimeClassName", "value": "nvidia"}]'


def pod_owner(facts: Facts) -> tuple[str, str] | None:
    """(kind, name) of the controller owning the pod the paste names, where the text shows it and kubectl can patch it."""
    from gpudoctor.facts import POD_OWNER

    kind, _, name = next((c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == POD_OWNER), "/").partition("/")
    return (kind, name) if kind in _OWNER_RESOURCE and name else None


def pod_template(facts: Facts) -> tuple[tuple[str, ...], str, str]:
    """Where a variable of the pod's environment is changed: kubectl's namespace options, the pod the paste names
    ("" where none) and the workload whose pod template holds the environment (kind/name of the pod's owner where
    the text shows it; else a Deployment, what media servers and most services run as)."""
    ns, pod = kubectl_pod(facts)
    owner = pod_owner(facts)
    workload = f"{owner[0].lower()}/{owner[1]}" if owner else "deployment/<deployment>"
    return (("-n", ns) if ns else ()), pod, workload


def env_in_pod_template(in_ns: tuple[str, ...], workload: str, change: str, *, note: str, recreated: str) -> tuple[Cmd, Cmd]:
    """`kubectl set env` on the workload's pod template (NAME=value, or NAME- to take it out), then the rollout that
    recreates the pods with it: the runtime and the program read the environment when a container is created."""
    return (
        Cmd(("kubectl", *in_ns, "set", "env", workload, change), note=note),
        Cmd(("kubectl", *in_ns, "rollout", "status", workload), note=recreated),
    )


def _pod_change(in_ns: tuple[str, ...], pod: str | Placeholder, owner: tuple[str, str] | None) -> tuple[str, tuple[Cmd, ...]]:
    """How the pod gets the runtime class and its GPU: in its owner's pod template where a controller owns it (the pod
    itself is recreated from that template, and a pod's runtimeClassName cannot change in place), else its manifest."""
    if owner is None:
        return "apply it, and check inside the new pod", (Cmd(("kubectl", *in_ns, "apply", "-f", Placeholder("manifest"))),)
    kind, name = owner
    resource, same_name = _OWNER_RESOURCE[kind]
    return (
        f"the pod belongs to the {kind} {name}, so the change goes into its pod template (spec.template.spec), where "
        "its controller recreates the pod from it; a change to the pod itself would be undone",
        (
            Cmd(
                ("kubectl", *in_ns, "patch", resource, name, "--type=json", "-p", _RUNTIME_CLASS_PATCH),
                note=f"the {kind}'s pod template gets runtimeClassName: nvidia; add an nvidia.com/gpu limit too where "
                "the pod's resources above show none",
            ),
            *(
                (
                    Cmd(
                        ("kubectl", *in_ns, "wait", "--for=condition=Ready", f"pod/{pod}", "--timeout=300s"),
                        note="the recreated pod",
                    ),
                )
                if same_name and isinstance(pod, str)
                else ()
            ),
        ),
    )


def _finding(facts: Facts, runtime: str, name: str, line: str, symptoms: list, shown: bool, up_to: str | None = None) -> Finding:
    where = f"the service {name}" if runtime == "compose" and name else f"the container {name}" if name else "it"
    if runtime in _APPTAINERS:
        return _apptainer_finding(facts, runtime, line, symptoms)
    if runtime == "compose":
        service = name or Placeholder("service")
        variable = facts.pasted.reported("gpus-variable-said")
        fix = Remediation(
            f"Request the GPU for {where} in the compose file: {_COMPOSE_STANZA}; then recreate it and check that "
            "nvidia-smi answers inside."
            + (
                f" The line {variable[0].line!r} requests nothing: compose reads an env file's variables only where the "
                "compose file names them, and env_file passes them into the container as its environment; take it out."
                if variable
                else ""
            ),
            (
                Cmd(("docker", "compose", "up", "-d", "--force-recreate", service)),
                Cmd(("docker", "compose", "exec", service, "nvidia-smi"), note="inside: lists the GPU once it is passed in"),
            ),
            component="container",
            where="the host",
        )
    else:
        ns, named = kubectl_pod(facts)
        pod = pod_named(facts) or named or Placeholder("pod")
        in_ns = ("-n", ns) if ns else ()
        owner = pod_owner(facts)
        how, change = _pod_change(in_ns, pod, owner)
        new_pod = pod if owner is not None and _OWNER_RESOURCE[owner[0]][1] else Placeholder("new-pod")
        fix = Remediation(
            f"Request the GPU for {where} in the pod spec: {_POD_LIMIT}; {how}.",
            (
                *(
                    ()
                    if shown
                    else (
                        Cmd(
                            ("kubectl", "get", "runtimeclass"), note="a runtime class nvidia: pods that do not name it get no GPU"
                        ),
                        Cmd(
                            (
                                "kubectl",
                                *in_ns,
                                "get",
                                "pod",
                                pod,
                                "-o",
                                "jsonpath={.spec.runtimeClassName} {.spec.containers[*].resources}",
                            ),
                            note="which of the two the pod lacks: runtimeClassName nvidia, or an nvidia.com/gpu limit",
                        ),
                    )
                ),
                *change,
                Cmd(
                    ("kubectl", *in_ns, "exec", new_pod, "--", "nvidia-smi"),
                    note="inside: lists the GPU once it is allocated",
                ),
            ),
            component="container",
            where="the cluster",  # kubectl, wherever its configuration reaches the cluster: not the node's shell
        )
    spec = "compose service" if runtime == "compose" else "pod's container"
    if shown:
        why = (
            f"The {spec} shown requests no GPU, so the NVIDIA container toolkit passes it neither the device nor the "
            "driver's libraries: the program inside finds no driver at all, which CUDA reports as an insufficient "
            "driver and frameworks as no GPU. Reinstalling the host's driver would not pass the GPU in."
        )
    elif up_to:
        why = (
            f"The host's driver supports CUDA up to {up_to}, yet the program in the pod says the driver is insufficient: "
            "the CUDA runtime says so where it finds no driver library at all, which is a container that was not "
            "allocated a GPU (no nvidia.com/gpu in its resources). Upgrading the node's driver would not pass the GPU in."
        )
    elif runtime == "kubernetes":
        why = (
            "The pod's container sees no GPU and no driver (no nvidia-smi, no libcuda) while the node's driver is "
            "loaded: the NVIDIA container runtime did not set it up, because the pod names no runtimeClassName: nvidia "
            "on a node where nvidia is not containerd's default runtime, or requests no nvidia.com/gpu (the pod's spec "
            "says which). A driver installed in the image would not help."
        )
    else:
        why = (
            f"The {spec}'s own log says it has no GPU while the host's driver answers: the service was started without "
            "a GPU request, so the NVIDIA container toolkit passed it neither the device nor nvidia-smi and libcuda."
        )
    return Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        f"the {spec} was given no GPU" if shown else f"the {spec} was probably given no GPU: the host's driver works",
        why,
        (ev("pasted", line), *(ev("pasted", e.line) for e in symptoms[:1] if e.line != line)),
        fix,
    )


_APPTAINERS = ("apptainer", "singularity")


# The action options of `apptainer exec|run|shell` that take a value as the next word (apptainer/apptainer,
# cmd/internal/cli/action_flags.go: --bind/-B, --home/-H, --overlay/-o, --workdir/-W, --scratch/-S, --env, ...): the
# image is the first word after the options, and a value is not it.
_APPTAINER_VALUED = frozenset(
    {
        "-B", "--bind", "--mount", "-H", "--home", "-o", "--overlay", "-W", "--workdir", "-S", "--scratch",
        "--env", "--env-file", "--pwd", "--security", "--network", "--network-args", "--hostname", "--app",
        "--dns", "--fusemount", "--apply-cgroups",
    }
)  # fmt: skip


def _apptainer_image(words: tuple[str, ...]) -> str:
    """The image word after the verb's options, or "" where the first word there does not look like one (an image
    file, a sandbox directory's path, a docker:// or library:// URI): a command such as `bash` is not shown as one."""
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _APPTAINER_VALUED else 1
    word = words[i] if i < len(words) else ""
    return word if word.endswith((".sif", ".simg", ".img")) or "://" in word or "/" in word else ""


def _apptainer_finding(facts: Facts, tool: str, line: str, symptoms: list) -> Finding:
    """An Apptainer/Singularity container started without --nv: the fix is the same command with --nv, on a machine
    with the GPU (on a cluster, inside the job's GPU allocation). The command shown is repeated as data (its words
    quoted by gpudoctor.cmdline), with --nv after the verb."""
    import shlex

    command = next((e.get("command") or "" for e in facts.pasted.reported("workload-without-gpu") if e.line == line), "")
    try:
        words = tuple(shlex.split(command))
    except ValueError:
        words = ()
    # No shell expands a quoted ~: the image under the home directory is named from there (as checks.extensions does)
    # for the check; the program's own command is not repeated then, since its relative paths are the reporter's
    # directory's, not the home directory's.
    home = any(w.startswith("~/") for w in words)
    # (an image file not shown is asked for as one: `docker images` lists no Apptainer image)
    image: str | Placeholder = Placeholder("sif-file")
    again: tuple[Cmd, ...] = ()
    if len(words) >= 3 and words[0] == tool:
        verb = next((i for i, w in enumerate(words[1:], 1) if w in ("exec", "run", "shell")), 0)
        shown = _apptainer_image(words[verb + 1 :]) if verb else ""
        if verb and verb + 1 < len(words):
            image = ("./" + shown[2:] if shown.startswith("~/") else shown) if shown else image
            again = (
                () if home else (Cmd((*words[: verb + 1], "--nv", *words[verb + 1 :]), note="the same command, only --nv added"),)
            )
    return Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        f"the {tool} container was started without --nv: it has no GPU",
        f"{tool.capitalize()} passes the GPU into a container only with --nv, which binds the host driver's libraries "
        "(libcuda.so.1, libnvidia-ml.so.1) under /.singularity.d/libs and the /dev/nvidia* devices. The command shown "
        "has no --nv, so the program inside finds no driver library and falls back to the CPU or fails. Nothing needs "
        "installing in the image or on the host.",
        (ev("pasted", line), *(ev("pasted", e.line) for e in symptoms[:1] if e.line != line)),
        Remediation(
            f"Add --nv to the {tool} command, right after `{tool} exec` (or run), on a machine with the GPU (on a "
            "cluster, inside the job's GPU allocation): check that the container sees the GPU, then run the program "
            "again with the same options.",
            (
                Cmd(("nvidia-smi",), note="on the machine that runs the container: a GPU node, or inside the job's allocation"),
                Cmd(
                    (tool, "exec", "--nv", image, "nvidia-smi"),
                    note="inside: the same GPU listed" + (", from the home directory" if home else ""),
                ),
                *again,
            ),
            component="container",
            where="the host",
        ),
    )


def check_workload_gpu(facts: Facts, ctx: Context) -> Iterable[Finding]:
    if (found := workload_no_gpu(facts, ctx)) is not None:
        yield found


def check_unrequested_gpus_seen(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A pod or container that requested no GPU sees every GPU (the reporter says so): the NVIDIA runtime ran it (the
    node's default runtime, or privileged) and honoured NVIDIA_VISIBLE_DEVICES=all, which NVIDIA's CUDA images set;
    the device plugin limits only pods that request nvidia.com/gpu. The runtime's
    accept-nvidia-visible-devices-envvar-when-unprivileged (NVIDIA/nvidia-container-toolkit internal/config/config.go,
    `AcceptEnvvarUnprivileged`) set to false, with the device plugin's volume-mounts device list, closes it."""
    from gpudoctor.facts import EXEC_NAMED
    from gpudoctor.planner.remedy import container_said
    from gpudoctor.planner.where import image

    said = facts.pasted.reported("gpus-seen-unrequested") if facts.pasted.partial else []
    if not said:
        return
    docker = container_said(facts) in ("docker", "podman") or image(facts) is not None
    docker = docker or any(c.get("cue") == EXEC_NAMED for c in facts.pasted.cues)
    # the reporter's own sentence naming docker, where the text names no Kubernetes
    docker = docker or (
        container_said(facts) != "kubernetes" and re.search(r"\b(?:docker|podman)\b", said[0].line, re.I) is not None
    )
    variable = "NVIDIA_VISIBLE_DEVICES"
    node_config = Cmd(
        ("grep", "-E", "accept-nvidia-visible-devices|default_runtime_name", "/etc/nvidia-container-runtime/config.toml")
        + (() if docker else ("/etc/containerd/config.toml",)),
        note="on the GPU host: whether the runtime takes NVIDIA_VISIBLE_DEVICES from unprivileged containers"
        + ("" if docker else ", and nvidia as containerd's default runtime"),
    )
    name: str | Placeholder
    if docker:
        # the container a docker exec line of the text names, else the reporter's to fill in
        name = next((c.get("means") or "" for c in facts.pasted.cues if c.get("cue") == EXEC_NAMED), "") or Placeholder(
            "container"
        )
        commands: tuple[Cmd, ...] = (
            Cmd(("docker", "exec", name, "printenv", variable), note="in the container that requested no GPU: all?"),
            Cmd(
                ("docker", "inspect", name, "--format", "{{.HostConfig.Runtime}} {{.HostConfig.Privileged}}"),
                note="the runtime it ran under, and whether privileged",
            ),
            Cmd(("docker", "info", "--format", "{{.DefaultRuntime}}"), note="nvidia here runs every container with it"),
            node_config,
        )
        cure = (
            "start it with -e NVIDIA_VISIBLE_DEVICES=void, or take nvidia out of daemon.json's default-runtime (then "
            "only --gpus gives GPUs); accept-nvidia-visible-devices-envvar-when-unprivileged = false in "
            "/etc/nvidia-container-runtime/config.toml closes it for every unprivileged container"
        )
    else:
        ns, pod = kubectl_pod(facts)
        in_ns: tuple[str | Placeholder, ...] = ("-n", ns or Placeholder("namespace"))
        name = pod or Placeholder("pod-without-gpu")
        commands = (
            Cmd(
                ("kubectl", *in_ns, "exec", name, "--", "printenv", variable, "CUDA_VISIBLE_DEVICES"),
                note="in the pod that requested no GPU: all, its CUDA image's own value, lets the NVIDIA runtime give it every GPU",
            ),
            Cmd(
                (
                    "kubectl",
                    *in_ns,
                    "get",
                    "pod",
                    name,
                    "-o",
                    "jsonpath={.spec.runtimeClassName} {.spec.containers[*].securityContext} {.spec.containers[*].resources}",
                ),
                note="its runtime class, privileged or not, and no nvidia.com/gpu requested",
            ),
            node_config,
            Cmd(
                ("kubectl", "get", "daemonset", "-A", "-o", "yaml"),
                pipe=("grep", "-iE", "DEVICE_LIST_STRATEGY|deviceListStrategy"),
                note="the device plugin's device list: envvar, the default, or volume-mounts",
            ),
        )
        cure = (
            "on the GPU nodes, accept-nvidia-visible-devices-envvar-when-unprivileged = false and "
            "accept-nvidia-visible-devices-as-volume-mounts = true in /etc/nvidia-container-runtime/config.toml, with "
            "the device plugin's deviceListStrategy volume-mounts (the GPU Operator sets both through its toolkit and "
            "device plugin options): then only pods that request nvidia.com/gpu get GPUs. Until then, "
            "NVIDIA_VISIBLE_DEVICES=void in the environment of the pods meant for the CPU"
        )
    where = "container" if docker else "pod"
    yield Finding(
        "container-gpus-unrequested",
        Severity.WARNING,
        "platform",
        f"a {where} that requested no GPU sees every GPU: the GPUs are not isolated",
        f"The driver and the GPUs work; what fails is isolation. A {where} that asked for no GPU still gets all of them "
        "where the NVIDIA runtime runs it (the default runtime, or privileged) and honours NVIDIA_VISIBLE_DEVICES=all, "
        "which NVIDIA's CUDA images set in their environment; the GPU request limits only what asks for GPUs. What the "
        f"{where} carries and how the runtime is configured decide it.",
        (ev("pasted", said[0].line),),
        Remediation(
            f"Read NVIDIA_VISIBLE_DEVICES in the {where} that requested no GPU, its runtime and privileges, and the "
            f"runtime's configuration; where it is all under the NVIDIA runtime: {cure}.",
            commands,
            component="container",
            where="the host" if docker else "the cluster",
        ),
    )


def check_node_default_runtime(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """containerd's default runtime is not nvidia on a Kubernetes node: the device plugin's DaemonSet (a static
    manifest, or helm without a runtime class) starts under runc, finds no NVML inside its pod and advertises no
    nvidia.com/gpu, so the node shows no GPU capacity. nvidia-ctk makes nvidia containerd's default runtime."""
    said = facts.pasted.reported("default-runtime-not-nvidia") if facts.pasted.partial else []
    if not said:
        return
    if said[0].get("runtime") == "docker":
        yield _docker_node_default(said[0])
        return
    yield Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        f"containerd's default runtime is {said[0].get('default') or 'not nvidia'}: the device plugin runs without the "
        "NVIDIA runtime",
        "The node's containerd starts every pod without a runtime class under its default runtime, the device plugin's "
        "included: without the NVIDIA runtime its pod has no NVML and no GPUs, so it advertises no nvidia.com/gpu and no "
        "pod can be given one. The driver is not what is missing.",
        (ev("pasted", said[0].line),),
        Remediation(
            "Make nvidia containerd's default runtime on the node (or create a RuntimeClass nvidia and run the device "
            "plugin and the GPU pods with it), restart containerd, and let the DaemonSet recreate the plugin's pod.",
            (
                Cmd(("nvidia-ctk", "runtime", "configure", "--runtime=containerd", "--set-as-default"), root=True),
                Cmd(("systemctl", "restart", "containerd"), root=True),
                *_plugin_pod_recreated(),
            ),
            requires_root=True,
            component="container",
            where="the node",
        ),
    )


def _plugin_pod_recreated() -> tuple[Cmd, Cmd]:
    """The last two steps of a node's runtime fix: the device plugin's pod deleted (its DaemonSet recreates it under
    the new default runtime), then the GPUs the node now offers."""
    return (
        Cmd(
            ("kubectl", "delete", "pod", "-n", Placeholder("namespace"), Placeholder("device-plugin-pod")),
            note="its DaemonSet recreates it under the nvidia runtime",
        ),
        Cmd(("kubectl", "describe", "node", Placeholder("node")), pipe=("grep", "nvidia.com/gpu"), note="the GPUs it now offers"),
    )


def _docker_node_default(said: ErrorEvidence) -> Finding:
    """The device plugin found no NVML in its pod on a node whose runtime is Docker: Kubernetes' dockershim cannot ask
    Docker for a runtime per pod, so every pod runs under Docker's default runtime, and nvidia-docker2 registers the
    nvidia runtime without making it the default (the plugin's README, "Preparing your GPU Nodes", NVIDIA/k8s-device-plugin
    @02d8e0fe: `"default-runtime": "nvidia"` in /etc/docker/daemon.json). nvidia-ctk writes that key (NVIDIA Container
    Toolkit 1.11 or newer, gpudoctor.planner.tool_floors; with an older nvidia-docker2 the key is added to daemon.json by
    hand)."""
    return Finding(
        "container-no-gpu",
        Severity.ERROR,
        "platform",
        "the device plugin's pod loaded no NVML on a Docker node: nvidia is not Docker's default runtime",
        "The NVIDIA device plugin loads the driver's NVML (libnvidia-ml.so.1) inside its own pod, and only the NVIDIA "
        "runtime mounts it there. Kubernetes cannot ask Docker for a runtime per pod, so the plugin runs under Docker's "
        f"default runtime ({said.get('default') or 'runc'}): nvidia-docker2 registers the nvidia runtime without making it "
        "the default. The plugin then advertises no nvidia.com/gpu. The driver and the GPU are not what is missing.",
        (ev("pasted", said.line),),
        Remediation(
            'On each GPU node, make nvidia Docker\'s default runtime ("default-runtime": "nvidia" in '
            '/etc/docker/daemon.json, beside the nvidia entry under "runtimes"), restart Docker, and let the DaemonSet '
            "recreate the plugin's pod.",
            (
                Cmd(
                    ("docker", "info"), pipe=("grep", "-i", "runtime"), note="on the GPU node: Runtimes lists nvidia; the default"
                ),
                Cmd(
                    ("nvidia-ctk", "runtime", "configure", "--runtime=docker", "--set-as-default"),
                    root=True,
                    note="where nvidia-ctk --version fails or names a release before 1.11, as on an older nvidia-docker2 node, "
                    "add the default-runtime key, set to nvidia, to /etc/docker/daemon.json by hand instead",
                ),
                Cmd(("systemctl", "restart", "docker"), root=True),
                *_plugin_pod_recreated(),
            ),
            requires_root=True,
            component="container",
            where="the node",
        ),
    )


def check_job_gpus(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A Slurm job that requests fewer GPUs per node than the program in it asks for: the allocation shows the job only
    the GPUs it requested (CUDA_VISIBLE_DEVICES, the job's cgroup), so the program sees fewer. Nothing is broken: the
    job script's request (or the program's count) is what changes."""
    said = facts.pasted.reported if facts.pasted.partial else None
    if said is None or not (job := said("job-gpus")) or not (program := said("program-gpus")):
        return
    granted, wanted = job[0].get("gpus") or "", program[0].get("gpus") or ""
    if not (granted.isdigit() and wanted.isdigit()) or int(wanted) <= int(granted):
        return
    kind = job[0].get("type")
    gres = f"--gres=gpu:{kind}:{wanted}" if kind else f"--gres=gpu:{wanted}"
    yield Finding(
        "requirement-unmet",
        Severity.ERROR,
        "gpu",
        f"the job requests {granted} GPU(s) per node; the program asks for {wanted}",
        f"The Slurm job asks for {granted} GPU(s) per node, and the allocation shows it only those, while the program "
        f"asks for {wanted}: it fails (or runs on fewer) whatever the node has. Nothing in the GPU stack is broken.",
        (ev("pasted", job[0].line), ev("pasted", program[0].line)),
        Remediation(
            f"Request {wanted} GPUs per node in the job script (#SBATCH {gres}, with as many tasks per node), or make the "
            f"program ask for {granted}; then check inside the allocation.",
            (
                Cmd(("sbatch", Placeholder("job-script")), note=f"after its gres line asks {gres}"),
                Cmd(("srun", gres, "nvidia-smi", "-L"), note="inside the allocation: the GPUs the job is given"),
            ),
            component="platform",
        ),
    )


# NCCL's failures a multi-host job in containers reports (c10d's wrapper, or PyTorch's other spellings of the system
# error, or NCCL's own WARN of a socket connect that failed, with NCCL_DEBUG set); a shared-memory message beside them
# names the cause in one container instead (gpudoctor.checks.catalogued.containers).
_NCCL_FAILED = frozenset({"nccl-error", "nccl-system-error", "nccl-connect-failed"})
_SHM_NAMED = frozenset({"nccl-shm-create-failed", "shm-not-writable"})


def check_ranks_across_container_hosts(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A distributed job whose ranks run in docker containers on two or more hosts fails in NCCL: on docker's default
    bridge network each container has a private address (172.17.x) that the other host cannot reach, and NCCL's
    bootstrap and socket transport offer exactly that address, so the connection fails (NCCL reports a system error
    or a remote error). Containers started with --network=host offer the host's own interfaces (PyTorch's maintainer
    in pytorch/pytorch#23363; NCCL's troubleshooting guide, "Docker": --network=host and --ipc=host). NCCL_DEBUG=INFO
    shows the address each rank offered."""
    from gpudoctor.planner.remedy import container_said, reporters_docker_run
    from gpudoctor.planner.where import image

    said = facts.pasted.reported if facts.pasted.partial else None
    if said is None or not (hosts := said("ranks-on-hosts")) or hosts[0].get("network") == "host":
        return
    failed = [e for e in facts.pasted.errors if e.kind in _NCCL_FAILED]
    if not failed or any(e.kind in _SHM_NAMED for e in facts.pasted.errors):
        return
    if container_said(facts) not in ("docker", "podman") and image(facts) is None:
        return
    tool = "podman" if container_said(facts) == "podman" else "docker"
    own = reporters_docker_run(facts, gpus=True)
    words: list[str | Placeholder] = [w for w in own.argv[2:] if w != "--ipc=host"] if own is not None else []
    words = words or ["--gpus", "all", Placeholder("image"), Placeholder("command")]
    where = hosts[0].get("hosts") or hosts[0].get("said") or "several hosts"
    yield Finding(
        "container-network-isolated",
        Severity.WARNING,
        "platform",
        "the job's ranks run in containers on different hosts, behind docker's bridge network",
        f"NCCL failed in a job whose ranks run in {tool} containers on different hosts ({where}). On docker's default "
        "bridge network each container has a private address the other host cannot reach, and NCCL's bootstrap and "
        "socket transport offer that address, so the ranks cannot connect; ranks in one container (or on one host) "
        "are not affected. The driver, CUDA and NCCL are not at fault.",
        (ev("pasted", failed[0].line), ev("pasted", hosts[0].line)),
        Remediation(
            "Confirm with NCCL's own log, then recreate the containers on every host without network isolation "
            "(--network=host, with --ipc=host for NCCL's shared memory; compose: network_mode: host, ipc: host) and "
            "rerun every rank. Keeping the bridge network needs a network both hosts route (an overlay or macvlan "
            "network) with NCCL_SOCKET_IFNAME naming its interface.",
            (
                Cmd(
                    ("export", "NCCL_DEBUG=INFO"),
                    note="in each container, then rerun the ranks: the NET/Socket lines show the address each offered "
                    "(172.17.x is docker's bridge)",
                ),
                Cmd(
                    (
                        tool,
                        "inspect",
                        Placeholder("container"),
                        "--format",
                        "{{.HostConfig.NetworkMode}} {{.HostConfig.IpcMode}}",
                    ),
                    note="on each host: bridge (or default) isolates the container's network",
                ),
                Cmd((tool, "run", "--network=host", "--ipc=host", *words), note="on each host, replacing the container"),
            ),
            component="container",
            where="the host",
        ),
    )


def check_remote_ranks_python(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A multi-node run whose launcher starts the other nodes' ranks over ssh (DeepSpeed's default pdsh runner, mpirun)
    beside both an environment's python and the system's: on one node DeepSpeed runs its rank launcher with the
    interpreter it was started from (sys.executable), on several it runs `python` in each node's non-interactive ssh
    shell, whose PATH is the system's unless the environment reaches it (microsoft/DeepSpeed,
    deepspeed/launcher/runner.py @bf15ed84: the single-node command starts with sys.executable; the multi-node runner
    exports every VAR=value line of ~/.deepspeed_env or ./.deepspeed_env to each node)."""
    said = facts.pasted.reported("interpreters-said") if facts.pasted.partial else []
    if not said:
        return
    e = said[0]
    env, system, launcher = e.get("env") or "", e.get("system") or "", e.get("launcher") or ""
    node = Placeholder("other-node")
    check = Cmd(
        ("ssh", node, 'which python; python -c "import torch; print(torch.__version__, torch.cuda.is_available())"'),
        note=f"what the launcher's remote shell runs: {system} there means the ranks run without the environment",
    )
    if launcher == "deepspeed":
        how = (
            "DeepSpeed exports each VAR=value line of ~/.deepspeed_env (or ./.deepspeed_env) on every node: write the "
            "environment's PATH there from the launching node with the environment active, then launch again"
        )
        commands: tuple[Cmd, ...] = (
            check,
            Cmd(
                ("sh", "-c", 'echo "PATH=$PATH" >> ~/.deepspeed_env'),
                note=f"on the launching node, with the environment active (its PATH starts with {env.rsplit('/', 1)[0]})",
            ),
            Cmd(("deepspeed", "--hostfile", Placeholder("hostfile"), Placeholder("script-and-arguments"))),
        )
    else:
        how = (
            "mpirun passes the launching shell's variables to every node with -x: export PATH (and LD_LIBRARY_PATH) that "
            "way, or put the environment's bin first on PATH for non-interactive shells on every node"
        )
        commands = (
            check,
            Cmd(("mpirun", "-x", "PATH", "-x", "LD_LIBRARY_PATH", Placeholder("your-arguments")), note="from the environment"),
        )
    yield Finding(
        "ranks-python-differs",
        Severity.WARNING,
        "frameworks",
        f"the other nodes' ranks probably run {system}, not {env}",
        f"The job runs on several nodes through {launcher}, which starts the other nodes' ranks over ssh, and the text "
        f"shows both {env} (the environment it was launched from) and {system}. A non-interactive ssh shell does not "
        "activate the environment, so there the ranks run the system's python, without the environment's PyTorch: "
        "it finds no GPU or fails to import. On one node the launcher uses its own interpreter, so one node works. "
        "Nothing needs reinstalling.",
        (ev("pasted", e.line),),
        Remediation(
            f"Make the environment reach the remote shells: {how}. Check with ssh first.",
            commands,
            component="environment",
        ),
    )


CHECKS = (
    Check("workload-gpu", "platform", ("container-no-gpu",), check_workload_gpu, ("pasted",)),
    Check("unrequested-gpus", "platform", ("container-gpus-unrequested",), check_unrequested_gpus_seen, ("pasted",)),
    Check("node-default-runtime", "platform", ("container-no-gpu",), check_node_default_runtime, ("pasted",)),
    Check("job-gpus", "gpu", ("requirement-unmet",), check_job_gpus, ("pasted",)),
    Check("ranks-python", "frameworks", ("ranks-python-differs",), check_remote_ranks_python, ("pasted",)),
    Check(
        "ranks-container-network",
        "platform",
        ("container-network-isolated",),
        check_ranks_across_container_hosts,
        ("pasted",),
    ),
)
