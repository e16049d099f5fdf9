"""A fix the recorded text cannot decide says so, as data: the commands whose output decides it.

A pasted report often does not show what a command needs (the platform, the installer, the framework's
version and CUDA build, the driver): the checks then name the cause and say in prose what the fix is, with
no command, for any command would be a guess (issue 27: "A plan that fails this is not printed as is: the
planner ... says what it cannot decide and what to run to decide it"). Such an error's remediation takes as
its commands the questions the partial diagnosis leaves open (gpudoctor.pasted.ask decides them; the pipeline
hands them here): commands that only read and print, which the consequence model counts as `undecided`,
never as an error the plan leaves. A whole machine has no such questions, nothing in it is unshown, but for the host
of a container it runs in: a driver fix there is decided by the host's release (with_host_release).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import replace

from gpudoctor.cmdline import Cmd, Line, Output, Placeholder, PrependPath, SetEnv, SetFrom, Unrenderable, render
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.versions import version_key

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFERS = "What was shown does not decide the command: run these and diagnose their output with the report to decide it."


def with_deciders(findings: Sequence[Finding], deciding: Sequence[Line]) -> list[Finding]:
    """`findings`, each error whose remediation has no command given `deciding` (the report's asks) as its commands."""
    if not deciding:
        return list(findings)  # nothing left to ask: the step stays prose, and the consequence model says it changes nothing
    out = []
    for f in findings:
        r = f.remediation
        if r is not None and undecided(f):
            f = replace(f, remediation=replace(r, summary=f"{r.summary} {DEFERS}", commands=tuple(deciding), requires_root=False))
        out.append(f)
    return out


# Inside a container a snapshot reads the image's files, never the host's: a driver fix on the host is decided by the
# host's distribution and release (/etc/os-release: os-release(5), ID and VERSION_ID; gpudoctor.planner.remedy's routes),
# which no probe in the container can read. The same listing a paste's ask prints (gpudoctor.pasted.ask).
HOST_RELEASE = Cmd(("cat", "/etc/os-release"), note="on the host")


def with_host_release(findings: Sequence[Finding], facts: Any) -> list[Finding]:
    """A whole machine's `findings` in a container, each driver error to fix on the host with no command given the
    host's /etc/os-release as its command (nothing else decides it); the others as they are."""
    if not getattr(getattr(facts, "platform", None), "container", None):
        return list(findings)
    out = []
    for f in findings:
        r = f.remediation
        if r is not None and undecided(f) and r.component == "driver" and r.where == "the host":
            f = replace(f, remediation=replace(r, summary=f"{r.summary} {DEFERS}", commands=(HOST_RELEASE,), requires_root=False))
        out.append(f)
    return out


def undecided(f: Finding) -> bool:
    """An error whose fix names no command (a warning's or a note's prose is advice, not a step that must act). A fix
    of the "gpu" component is another GPU (or the CPU): no output asked for decides a command there."""
    r = f.remediation
    return f.severity >= Severity.ERROR and r is not None and not r.commands and r.component != "gpu"


# --- placeholders: a value the report decides is filled in; one it does not is asked for ---------------------------
#
# A command that still holds a `<placeholder>` is not one to paste: the shell takes the quoted '<container>' as a
# literal argument and the command fails (issue 27, blind-set reviews: "either the paste decides the value, or the step
# becomes an ask for it"). So each placeholder is filled from the facts where they decide it; where they do not, the
# command (and every command of its remediation after it, which may depend on it) moves into the summary's prose,
# and the read-only command that lists the values to choose from takes its place.


def _kube_pods(tool: str) -> Cmd:
    return Cmd(("kubectl", "get", "pods", "-A", "-o", "wide"), note="their namespaces, names and nodes")


# The read-only command that lists a placeholder's possible values, by the placeholder's name and the program of the
# command that holds it. Sources: docker ps -a and docker images (Docker CLI reference: "docker container ls", "docker
# image ls"; podman's are the same, podman-ps(1), podman-images(1)); kubectl get pods --all-namespaces -o wide and
# kubectl get nodes (kubectl reference, "kubectl get"); a Slurm job's id from its own environment, SLURM_JOB_ID (sbatch(1)
# and srun(1), OUTPUT ENVIRONMENT VARIABLES: "The ID of the job allocation", in every release; `squeue --me` exists only
# from Slurm 20.11, RELEASE_NOTES, and squeue lists no job once it has ended, where the job's own output still shows
# it); nvidia-smi -L (nvidia-smi(1): each GPU's index, name and UUID); wsl -l -v (Microsoft's "Basic
# commands for WSL": the installed distributions by name); dnf module list nvidia-driver (NVIDIA's CUDA installation
# guide for Linux, RHEL: the driver's module streams); where.exe /R DIR PATTERN (Windows' where command: a recursive
# search under DIR) for the folders NVIDIA's Windows installers use; find(1) -name for a library by its file name.
_LISTS = {
    "container": lambda tool: Cmd((tool, "ps", "-a"), note="the NAMES column"),
    "image": lambda tool: Cmd((tool, "images"), note="REPOSITORY:TAG"),
    "pod": _kube_pods,
    "new-pod": _kube_pods,
    "driver-pod": _kube_pods,
    "device-plugin-pod": _kube_pods,
    "pod-without-gpu": _kube_pods,
    "namespace": _kube_pods,
    "node": lambda tool: Cmd(("kubectl", "get", "nodes")),
    "deployment": lambda tool: Cmd(("kubectl", "get", "deployments", "-A")),
    # a Helm release by its name and namespace (Helm's docs, "helm list": --all-namespaces lists every namespace's)
    "helm-release": lambda tool: Cmd(("helm", "list", "-A"), note="the NAME and NAMESPACE of the release"),
    "job-id": lambda tool: Cmd(("printenv", "SLURM_JOB_ID"), note="inside the job, in its batch script"),
    # a distributed job's node, by the name the other nodes reach it by (hostname(1), typed on that node)
    "first-node": lambda tool: Cmd(("hostname",), note="on the node that runs the listener"),
    # Apptainer's and Singularity's image files (.sif; .simg from Singularity 2), found under where the job runs (find(1))
    "sif-file": lambda tool: Cmd(
        ("find", ".", "-maxdepth", "3", "-name", "*.sif", "-o", "-name", "*.simg"),
        note="the container image files here",
    ),
    # the CUDA provider of a program's own onnxruntime (a C++ build's, a Java service's extracted copy), wherever it is
    "providers-cuda-library": lambda tool: Cmd(
        ("find", "/", "-name", "libonnxruntime_providers_cuda.so"), note="the program's own onnxruntime's provider"
    ),
    "index": lambda tool: Cmd(("nvidia-smi", "-L")),
    "gpu": lambda tool: Cmd(("nvidia-smi", "-L")),
    "uuid": lambda tool: Cmd(("nvidia-smi", "-L")),
    "user": lambda tool: Cmd(("id", "-un"), note="as the user who runs the program"),
    "distro": lambda tool: Cmd(("wsl", "-l", "-v")),
    "nvidia-driver-stream": lambda tool: Cmd(("dnf", "module", "list", "nvidia-driver")),
    "cudnn-folder": lambda tool: Cmd(("where.exe", "/R", "C:\\Program Files", "cudnn*.dll")),
    "installed-cuda-toolkit-folder": lambda tool: Cmd(
        ("where.exe", "/R", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA", "nvcc.exe")
    ),
    "cuda-toolkit-folder": lambda tool: Cmd(
        ("where.exe", "/R", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA", "nvcc.exe")
    ),
}


# A placeholder written into a word's text ("MIG-<uuid>", "FROM <image>"): the same unfilled value as a Placeholder.
_IN_TEXT = LazyPattern(r"<([a-z][a-z0-9-]*)>")  # compiled on first use: a bare check imports this module


def _parts(line: Line) -> tuple[Any, ...]:
    if isinstance(line, Cmd):
        return (*line.argv, *line.pipe)
    if isinstance(line, (PrependPath, SetFrom)):
        return tuple(line.parts) + tuple(a for p in line.parts if isinstance(p, Output) for a in p.argv)
    if isinstance(line, SetEnv):
        return (line.value or "",)
    return ()


def placeholders(line: Line) -> tuple[str, ...]:
    """The names of the placeholders `line` still holds (as Placeholder parts or written in a word), once each."""
    names = [p.name if isinstance(p, Placeholder) else m for p in _parts(line) for m in _names(p)]
    return tuple(dict.fromkeys(names))


def _names(part: Any) -> list[str]:
    if isinstance(part, Placeholder):
        return [part.name]
    return _IN_TEXT.findall(part) if isinstance(part, str) else []


def listing(name: str, line: Line, values: Mapping[str, str] | None = None) -> Cmd | None:
    """The read-only command that lists the values `<name>` may take in `line`, or None where none does (a program,
    a file or a name only the person knows). A container of a known image is listed among that image's containers
    (`--filter ancestor=IMAGE`: Docker CLI reference, "docker container ls", filtering; podman-ps(1) the same)."""
    tool = line.argv[0] if isinstance(line, Cmd) and isinstance(line.argv[0], str) else "docker"
    tool = tool if tool in ("docker", "podman") else "docker"
    image = (values or {}).get("image")
    if name == "container" and image:
        root = isinstance(line, Cmd) and line.root
        return Cmd((tool, "ps", "-a", "--filter", f"ancestor={image}"), root=root, note="the NAMES column")
    make = _LISTS.get(name)
    if make is None:
        return None
    lister = make(tool)
    # A container's or an image's list comes from the same daemon as the command it is for: under sudo where that runs
    # under it (a user outside the docker group reaches the daemon only as root: with_docker_root).
    return replace(lister, root=True) if isinstance(line, Cmd) and line.root and lister.argv[0] == tool else lister


def known_values(facts: Any) -> dict[str, str]:
    """The placeholders' values the facts decide: the image the paste ran its program from and the container's name
    where the paste shows it (gpudoctor.planner.where.container_name: a `docker run --name`, a `docker exec NAME`, a
    compose file's container_name), the Apptainer/Singularity image file it ran, the first node a distributed job's
    ranks run on, and the GPU's index where the machine has exactly one."""
    from gpudoctor.planner.where import container_name, image, program_image

    out: dict[str, str] = {}
    img = image(facts)
    if img is not None and img.get("means"):
        out["image"] = img["means"]
    if named := container_name(facts):
        out["container"] = named
    # the Apptainer/Singularity image file the paste's program ran from (`singularity exec --nv pytorch.simg ...`)
    built = program_image(facts)
    if built is not None and built.get("runtime") in ("singularity", "apptainer") and built.get("means"):
        out["sif-file"] = built["means"]
    # the first host a distributed job's ranks run on, where the paste names them (gpudoctor.pasted.workloads)
    pasted = getattr(facts, "pasted", None)
    hosts = pasted.reported("ranks-on-hosts") if pasted is not None and pasted.partial else ()
    if hosts and hosts[0].get("hosts"):
        out["first-node"] = str(hosts[0].get("hosts")).split(",")[0]
    gpus = facts.driver.gpus
    if len(gpus) == 1:
        out["index"] = str(gpus[0].index)
        if gpus[0].uuid:
            out["uuid"] = gpus[0].uuid
    return out


def fill(line: Line, values: Mapping[str, str]) -> Line:
    """`line` with each placeholder whose value is known written in (as data: the quoting layer quotes it)."""

    def put(p: Any) -> Any:
        if isinstance(p, Placeholder):
            return values.get(p.name, p)
        return _IN_TEXT.sub(lambda m: values.get(m.group(1), m.group(0)), p) if isinstance(p, str) else p

    if not values or not placeholders(line):
        return line
    if isinstance(line, Cmd):
        return replace(line, argv=tuple(put(a) for a in line.argv), pipe=tuple(put(a) for a in line.pipe))
    if isinstance(line, (PrependPath, SetFrom)):
        return replace(line, parts=tuple(put(p) for p in line.parts))
    if isinstance(line, SetEnv):
        return replace(line, value=put(line.value))
    return line


def shown(line: Line, target: str = "posix") -> str:
    """`line` as prose: quoted by the one quoting layer in the shell of the plan (`target`: PowerShell's on Windows,
    whose plan never holds a POSIX export), as a person copies it once the value is filled in (reviewers pasted
    `grep -E a|b` and `python3 -c import socket, ...` from words joined unquoted), the placeholders as `<name>`."""
    if target == "windows" and (both := _each_shell(line)) is not None:
        return both
    try:
        text = render(line, target)
    except Unrenderable:  # (a line PowerShell cannot hold is shown as a POSIX shell writes it)
        try:
            text = render(line, "posix")
        except Unrenderable:
            if not isinstance(line, Cmd):
                raise
            # A word no shell can hold (a newline, a control character read from a paste): no command to copy, its
            # words as prose, which the terminal sanitizer escapes where it is printed.
            text = " ".join(line.words) + (f" | {' '.join(str(a) for a in line.pipe)}" if line.pipe else "")
            return f"{text} ({line.note})" if line.note else text
    # A quoted word holding a placeholder loses both its quotes ('MIG-<uuid>' -> MIG-<uuid>), never one of them.
    text = _QUOTED_PLACEHOLDER.sub(r"\1", text)
    return f"{text} ({line.note})" if isinstance(line, Cmd) and line.note else text


def _each_shell(line: Line) -> str | None:
    """A line cmd.exe and PowerShell write each their own way (a variable's setting, PATH extended), for a plan of
    either shell: PowerShell's line and cmd.exe's, each named, where a single line would be PowerShell's unmarked and
    fail in cmd.exe (plans17/1708's reviewers); None where one line runs in both (render's `windows`)."""
    if not isinstance(line, (PrependPath, SetEnv, SetFrom)):
        return None
    try:
        ps = _QUOTED_PLACEHOLDER.sub(r"\1", render(line, "powershell"))
    except Unrenderable:
        return None
    try:
        cmd = _QUOTED_PLACEHOLDER.sub(r"\1", render(line, "cmd"))
    except Unrenderable:
        return f"{ps} (in PowerShell)"
    return f"{ps} (in PowerShell; in cmd.exe: {cmd})"


_QUOTED_PLACEHOLDER = LazyPattern(r"'([^'\s]*<[a-z][a-z0-9-]*>[^'\s]*)'")


# `docker exec <container> CMD` / `kubectl exec <pod> -- CMD` whose container the facts do not name: CMD itself, marked
# as run inside it. The person who runs a program in a container has a shell there (or `docker exec -it NAME sh`);
# a listing of containers in its place would leave the command itself unsaid.
_EXEC_IN = {
    "docker": ("container", "inside the container"),
    "podman": ("container", "inside the container"),
    "kubectl": ("pod", "inside the pod"),
}


def inside(line: Line) -> Line:
    """`line` run through `docker/podman exec <container>` or `kubectl exec <pod> --` with that name unknown: the command
    it runs, noted as run inside the container (or pod); any other line as it is."""
    if not isinstance(line, Cmd) or len(line.argv) < 4 or line.argv[0] not in _EXEC_IN or line.argv[1] != "exec":
        return line
    name, where_ = _EXEC_IN[str(line.argv[0])]
    at = next((i for i, a in enumerate(line.argv) if isinstance(a, Placeholder) and a.name == name), None)
    if at is None:
        return line
    rest = line.argv[at + 1 :]
    if rest[:1] == ("--",):
        rest = rest[1:]
    if not rest or any(a.startswith("-") for a in line.argv[2:at] if isinstance(a, str) and a not in ("-i", "-t", "-it")):
        return line  # options of exec's own (a user, a working directory) the bare command would lose
    note = f"{where_}" + (f"; {line.note}" if line.note else "")
    return replace(line, argv=tuple(rest), note=note)


def decided(r: Remediation, values: Mapping[str, str], target: str = "posix") -> Remediation:
    """`r` with its placeholders filled from `values`; from the first command that still holds one, its commands are
    prose (a variable's line in `target`'s syntax), and the commands that list the missing values take their place."""
    lines = [inside(fill(c, values)) for c in r.commands]
    at = next((i for i, c in enumerate(lines) if placeholders(c)), None)
    alt = decided(r.alternative, values, target) if r.alternative is not None else None
    if at is None:
        return replace(r, commands=tuple(lines), alternative=alt)
    kept, later = lines[:at], lines[at:]
    names = list(dict.fromkeys(n for c in later for n in placeholders(c)))
    asked: list[Line] = []
    listed = False
    for c in later:
        for n in placeholders(c):
            lister = listing(n, c, values)
            listed = listed or lister is not None
            # (a listing the kept commands already run, under a note of their own, is not printed twice)
            if lister is not None and not any(_same_run(lister, k) for k in (*kept, *asked)):
                asked.append(lister)
    filled_in = ", ".join(f"<{n}>" for n in names)
    lists = " (the commands below list the values)" if listed else ""
    summary = f"{r.summary} Then, with {filled_in} filled in{lists}: " + "; ".join(shown(c, target) for c in later) + "."
    root = r.requires_root and any(isinstance(c, Cmd) and c.root for c in kept)
    return replace(r, summary=summary, commands=(*kept, *asked), requires_root=root, alternative=alt)


def _same_run(a: Cmd, b: Line) -> bool:
    """Whether `b` runs what `a` runs (its words and pipe), whatever note either carries."""
    return isinstance(b, Cmd) and (a.words, a.pipe) == (b.words, b.pipe)


def with_values(findings: Sequence[Finding], facts: Any) -> list[Finding]:
    """`findings`, each remediation's placeholders decided (`decided`): no printed command holds one."""
    values = known_values(facts)
    system = getattr(getattr(facts, "platform", None), "system", "") or ""
    target = "powershell" if system.lower().startswith("win") else "posix"
    if target == "powershell" and getattr(facts, "pasted", None) is not None:
        from gpudoctor.planner.where import shell

        # (the plan's own shell: a paste that shows neither cmd.exe nor PowerShell gets a plan for either, whose prose
        # lines name the shell of each, _each_shell)
        target = shell(facts) if shell(facts) in ("cmd", "powershell", "windows") else target
    out = []
    for f in findings:
        r = f.remediation
        if r is not None and _holds_placeholder(r):
            f = replace(f, remediation=decided(r, values, target))
        out.append(f)
    return out


def with_docker_root(findings: Sequence[Finding], facts: Any) -> list[Finding]:
    """`findings`, where the paste runs its image under sudo (gpudoctor.planner.where.image_root), with every docker
    command of their remediations under sudo too: the reporter is outside the docker group, so their docker reaches
    the daemon only as root (gpudoctor.planner.needs holds every plan to it). `docker --version` asks the client
    alone and stays as it is."""
    from gpudoctor.planner.where import image_root

    if not image_root(facts):
        return list(findings)

    def as_root(r: Remediation) -> Remediation:
        lines = tuple(
            replace(c, root=True)
            if isinstance(c, Cmd) and c.argv[:1] == ("docker",) and c.argv[1:] != ("--version",) and not c.root
            else c
            for c in r.commands
        )
        alt = as_root(r.alternative) if r.alternative is not None else None
        if lines == r.commands and alt is r.alternative:
            return r
        return replace(r, commands=lines, alternative=alt, requires_root=r.requires_root or lines != r.commands)

    return [replace(f, remediation=as_root(f.remediation)) if f.remediation is not None else f for f in findings]


def _holds_placeholder(r: Remediation) -> bool:
    return any(placeholders(c) for c in r.commands) or (r.alternative is not None and _holds_placeholder(r.alternative))


# --- a tool's release: a command whose option needs a newer release than the report shows is not printed as is -----
#
# A plan is printed for the machine of its era (issue 27, kinds 3 and 8): gpudoctor.planner.tool_floors holds the
# release each tool needs for the option a command uses. Where the report shows no release, the command whose output
# shows it comes first (tool_floors says why an ask, per product); where it shows an older
# one, that command and the ones after it (which may depend on it) are prose, with the release they need. A command
# with an older form that runs everywhere (nvidia-smi without a query field the driver shown lacks:
# tool_floors.runnable) is printed in that form, whichever check wrote it.


def with_release_asks(findings: Sequence[Finding], facts: Any) -> list[Finding]:
    """`findings`, each remediation's commands preceded by the ask of each tool release they need and the report does
    not show; a command the shown release is too old for, and the commands after it, moved into the summary."""
    system = getattr(getattr(facts, "platform", None), "system", "") or ""
    target = "powershell" if system.lower().startswith("win") else "posix"
    if target == "powershell" and getattr(facts, "pasted", None) is not None:
        from gpudoctor.planner.where import shell

        # (the plan's own shell: a paste that shows neither cmd.exe nor PowerShell gets a plan for either, whose prose
        # lines name the shell of each, _each_shell)
        target = shell(facts) if shell(facts) in ("cmd", "powershell", "windows") else target
    out = []
    for f in findings:
        r = f.remediation
        if r is not None:
            r2 = released(r, facts, target)
            if r2 is not r:
                f = replace(f, remediation=r2)
        out.append(f)
    return out


def released(r: Remediation, facts: Any, target: str = "posix") -> Remediation:
    """`r` (and its alternative) with the release asks its commands need and each command in the form the machine
    shown runs (`with_release_asks`)."""
    from gpudoctor.planner import tool_floors

    alt = released(r.alternative, facts, target) if r.alternative is not None else None
    lines: list[Line] = []
    installed: set[str] = set()
    commands = tuple(tool_floors.runnable(c, facts) if isinstance(c, Cmd) else c for c in r.commands)
    for at, c in enumerate(commands):
        fl = tool_floors.floor_of(c)
        product = fl.product if fl is not None else None
        for p in tool_floors.PRODUCTS:
            if tool_floors.installs(c, p):
                installed.add(p.name)
        if fl is None or product is None or product.name in installed:
            lines.append(c)
            continue
        got = tool_floors.shown(facts, product)
        if got is not None and version_key(got.version) >= version_key(fl.minimum):
            lines.append(c)
            continue
        if got is not None and got.exact:
            later = commands[at:]
            summary = (
                f"{r.summary} {product.name} {fl.minimum} or newer is needed for the next command (the report shows "
                f"{got.version}: {got.line}); once it is upgraded: " + "; ".join(shown(x, target) for x in later) + "."
            )
            return replace(r, summary=summary, commands=tuple(lines), alternative=alt)
        argv = tool_floors.ask_of(fl, c) if isinstance(c, Cmd) else product.ask
        ask = Cmd(argv, note=f"{product.name} {fl.minimum} or newer is needed below")
        if not any(isinstance(x, Cmd) and x.argv == argv for x in lines):
            lines.append(ask)
        lines.append(c)
    if alt is r.alternative and len(lines) == len(r.commands) and all(map(operator.is_, lines, r.commands)):
        return r
    return replace(r, commands=tuple(lines), alternative=alt)
