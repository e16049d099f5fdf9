"""A plan checked by its consequences: each step applied to the recorded machine, the machine diagnosed again.

Every command of a printed plan is read back into an action (gpudoctor.planner.actions) by its program
and arguments. Each action kind declares what it needs first (the tool exists on this machine; the person
can do it: inside a container or on the host, root or a cluster job; the package source is configured,
or added and refreshed by an earlier step; the release is served for this Python, as the matrix says)
and what it does to the machine's facts (a framework's version and CUDA build, a companion, an NVIDIA
wheel, an environment variable, the /usr/local/cuda link, a new toolkit). `consequences` applies the whole
plan step by step, diagnoses the machine again after each step that changed a fact (with the caller's
`rediagnose`: the checks live a layer above the planner) and reports, as plain data:

  left-error          an error the plan addresses is still there at the end
  breaks              a finding of warning or error that was not there before appears after a step
  undone              a later step sets again what an earlier step set (a package, a variable, the link)
  unmet-precondition  a command's need is not met at that point
  unmodelled          a command whose effect this model does not follow, with the reason: never a guess

A step that only inspects (nvidia-smi, dmesg, gpudoctor memory) leaves its finding by design: it is the
plan saying what to run to decide; it is counted as `undecided`, not as a violation.

`revise` is the hook the plan's builder can call: a step that fails is swapped for its alternative where
that one holds, or turned into "cannot decide: run X to decide it".
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpudoctor.cmdline import Cmd, Line, render
from gpudoctor.extension_facts import Companion, ExtensionFacts
from gpudoctor.facts import (
    CudaLink,
    FrameworkFacts,
    JaxFacts,
    LibDir,
    LibraryCopy,
    TensorflowFacts,
    Toolkit,
    TorchFacts,
)
from gpudoctor.model import Finding, Severity
from gpudoctor.planner.actions import Action, Requirement, canon, classify
from gpudoctor.probed import Absent, Found
from gpudoctor.versions import version_key

KINDS = ("left-error", "breaks", "undone", "unmet-precondition", "unmodelled")

# torch's companions: reinstalled with it, or built against it (compat_matrix/torch.toml `companion`).
COMPANIONS = ("torchvision", "torchaudio", "xformers", "flash-attn", "triton", "torchtext", "vllm")


@dataclass(frozen=True)
class Violation:
    """One thing a plan does not hold: at which step (1-based; 0 for the plan as a whole), of what kind,
    the finding codes involved, the command it is about (POSIX text, "" for the step) and why."""

    step: int
    component: str
    kind: str
    codes: tuple[str, ...]
    command: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"codes": list(self.codes)}


@dataclass(frozen=True)
class Consequences:
    """What applying a plan to the machine did: the codes before and after, the violations, the codes left by
    steps that only inspect (`undecided`: the plan says what to run to decide), and the warnings it answers
    that are still there (`left_warnings`: not failures; the issue asks errors gone)."""

    before: tuple[str, ...]
    after: tuple[str, ...]
    violations: tuple[Violation, ...] = ()
    undecided: tuple[str, ...] = ()
    left_warnings: tuple[str, ...] = ()  # warnings the plan answers that are still there (errors it turned into warnings)

    @property
    def holds(self) -> bool:
        return not self.violations

    def of_kind(self, kind: str) -> tuple[Violation, ...]:
        return tuple(v for v in self.violations if v.kind == kind)

    def counts(self) -> dict[str, int]:
        return {k: len(self.of_kind(k)) for k in KINDS}

    def to_json(self) -> dict[str, Any]:
        return {
            "before": list(self.before),
            "after": list(self.after),
            "holds": self.holds,
            "counts": self.counts(),
            "violations": [v.to_json() for v in self.violations],
            "undecided": list(self.undecided),
            "left_warnings": list(self.left_warnings),
        }


Rediagnose = Callable[[Any], Sequence[Finding]]  # Facts -> findings (gpudoctor.checks.run_checks)


# --- the machine as the plan goes ----------------------------------------------------------------


@dataclass
class _State:
    facts: Any  # gpudoctor.facts.Facts
    matrix: Any
    step: int = 0
    sources: set[str] = field(default_factory=set)  # package sources added by the plan: "nvidia-cuda"
    fresh: set[str] = field(default_factory=set)  # added sources whose index an update has read since
    downloaded: set[str] = field(default_factory=set)  # files fetched by an earlier command (wget)
    staged: dict[str, dict[str, str | None]] = field(default_factory=dict)  # pip download --dest: dir -> name -> index
    envs: dict[str, str | None] = field(default_factory=dict)  # conda environments the plan created -> their Python
    toolkits: set[str] = field(default_factory=set)  # toolkit versions the plan installed
    installed: set[str] = field(default_factory=set)  # distribution packages the plan installed
    disk_changed: list[str] = field(default_factory=list)  # what a reboot would activate
    writes: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)  # resource -> (step, value)
    out: list[Violation] = field(default_factory=list)
    component: str = ""
    where: str = ""

    def flag(self, kind: str, action: Action | None, reason: str, codes: tuple[str, ...] = ()) -> None:
        self.out.append(Violation(self.step, self.component, kind, codes, _text(action), reason))

    def write(self, resource: tuple[str, str], value: str, action: Action) -> None:
        """Record what a step sets; a later step setting it otherwise undoes the earlier one."""
        prior = self.writes.get(resource)
        if prior is not None and prior[0] != self.step and prior[1] != value:
            self.flag("undone", action, f"sets {resource[1]} to {value}; step {prior[0]} set it to {prior[1]}")
        self.writes[resource] = (self.step, value)


def _text(action: Action | None) -> str:
    if action is None or action.line is None:
        return ""
    try:
        return render(action.line, "posix")
    except ValueError:
        return repr(action.line)


# --- what the machine is -----------------------------------------------------------------------


def _system(facts: Any) -> str:
    return (facts.platform.system or "").lower()


def _windows(facts: Any) -> bool:
    return _system(facts).startswith("win")


def _family(facts: Any) -> set[str]:
    d = facts.platform.distro
    words = {w for w in f"{d.id or ''} {d.id_like or ''}".lower().split() if w}
    return words


def _cluster(facts: Any) -> bool:
    return bool(facts.pasted.cluster) or "SLURM_JOB_ID" in facts.platform.env


def _python(facts: Any) -> Any:
    p = facts.frameworks.python
    return p.value if isinstance(p, Found) else None


def _python_version(facts: Any, s: Any = None, a: Action | None = None) -> str | None:
    if s is not None and a is not None and a.kind == "conda-run" and a.name in s.envs:
        return s.envs[a.name]  # the Python the plan's conda create named
    env = _python(facts)
    if env is None or not env.version:
        return None
    return ".".join(env.version.split(".")[:2])


def _has_conda(facts: Any) -> bool | None:
    """Whether conda is on this machine: True, False on a whole machine with no trace of it, None: not shown."""
    env = _python(facts)
    e = facts.platform.env
    if (
        "CONDA_EXE" in e
        or "CONDA_PREFIX" in e
        or (env is not None and (env.kind == "conda" or "conda" in env.executable.lower()))
    ):
        return True
    return None if facts.pasted.partial else False


# Programs of one family of systems: a Linux program is not there on Windows, nor the reverse.
_LINUX_ONLY = {"apt-get", "apt", "apt-mark", "dpkg", "dnf", "yum", "zypper", "modprobe", "rmmod", "nvidia-modprobe",
               "update-initramfs", "dracut", "grubby", "reboot", "ubuntu-drivers", "usermod", "dmesg", "ldconfig",
               "systemctl", "mokutil", "lspci", "modinfo", "tee", "wget"}  # fmt: skip
_WINDOWS_ONLY = {"Restart-Computer", "reg", "pnputil", "wsl"}
_DEBIAN = {"debian", "ubuntu"}
_FEDORA = {"fedora", "rhel", "centos", "rocky", "almalinux", "ol"}
_TOOL_FAMILY = {
    "apt-get": _DEBIAN,
    "apt": _DEBIAN,
    "apt-mark": _DEBIAN,
    "dpkg": _DEBIAN,
    "update-initramfs": _DEBIAN,
    "ubuntu-drivers": {"ubuntu"},
    "dnf": _FEDORA,
    "yum": _FEDORA,
    "grubby": _FEDORA,
    "zypper": {"opensuse", "suse", "sles", "opensuse-leap", "opensuse-tumbleweed"},
}

# Packages only NVIDIA's CUDA repository serves by these names (its naming scheme: cuda-toolkit-X-Y,
# cuda-libraries-X-Y, libcudnnN=...+cudaX.Y, libnccl2, nvidia-open, cuda-drivers), per NVIDIA's CUDA
# installation guide for Linux (docs.nvidia.com/cuda/cuda-installation-guide-linux, "Network Repo
# Installation"); the distributions' own archives name theirs otherwise (nvidia-cuda-toolkit, nvidia-driver-NNN).
_NVIDIA_REPO = re.compile(r"(cuda-(toolkit|libraries|runtime|drivers|compat)\b|libcudnn\d|cudnn\d?-cuda|libnccl|nvidia-open\b)")
_DRIVER_PKG = re.compile(r"(nvidia-driver|nvidia-open|cuda-drivers|libnvidia-)")
_TOOLKIT_PKG = re.compile(r"cuda-toolkit-(\d+)-(\d+)\Z")

# Kinds that act on the kernel or the machine as a whole: the host's, not a container's.
_HOST_ONLY = {"driver-install", "module-load", "module-config", "boot-image", "reboot", "gpu-reset", "gpu-config"}
_ROOT_KINDS = _HOST_ONLY | {"pkg-install", "pkg-remove", "pkg-update", "pkg-hold", "repo-add", "link-switch",
                            "runtime-config", "service-restart", "user-group", "loader-cache", "registry"}  # fmt: skip


# --- preconditions -----------------------------------------------------------------------------


def _needs(s: _State, a: Action) -> None:
    """Flag each need of `a` that is not met at this point of the plan."""
    f = s.facts
    on_host = s.where in ("the host", "Windows")
    prog = a.tool.rsplit("/", 1)[-1]
    if a.kind == "inspect" and prog in ("nvidia-smi", "gpudoctor", "python", "python3", "cat", "ls", "timeout", "which"):
        return  # everywhere (nvidia-smi is how the plan asks)
    if s.where == "Windows":
        if prog in _LINUX_ONLY:
            s.flag("unmet-precondition", a, f"{prog} is a Linux program; the step runs on Windows")
        return
    if _windows(f) and not on_host and prog in _LINUX_ONLY:
        s.flag("unmet-precondition", a, f"{prog} does not exist on Windows")
        return
    if not _windows(f) and prog in _WINDOWS_ONLY and s.where != "Windows":
        s.flag("unmet-precondition", a, f"{prog} is a Windows program; this machine runs {f.platform.system}")
        return
    fam = _TOOL_FAMILY.get(prog)
    if fam is not None and not on_host:
        have = _family(f)
        if not have:
            if f.pasted.partial:
                s.flag("unmodelled", a, f"whether {prog} exists: the report does not show the distribution")
        elif not have & fam:
            s.flag("unmet-precondition", a, f"{prog} is not on {f.platform.distro.id or 'this distribution'}")
    # lspci's presence is not a precondition here: snapshots do not record it (KernelFacts.lspci reads False there).
    if prog == "conda":
        has = _has_conda(f)
        if has is False:
            s.flag("unmet-precondition", a, "conda is not on this machine: no conda environment or CONDA_EXE was seen")
        elif has is None:
            s.flag("unmodelled", a, "whether conda exists: the report does not show")
        if a.kind == "conda-run" and a.name and a.name not in s.envs and not _conda_env_exists(f, a.name):
            s.flag("unmet-precondition", a, f"no conda environment {a.name} exists, and no earlier step creates it")
    # Who can do it.
    if not on_host and a.kind in _HOST_ONLY:
        if f.platform.container:
            s.flag("unmet-precondition", a, f"inside a {f.platform.container} container: this acts on the host's kernel")
        elif f.platform.wsl and a.kind in ("driver-install", "module-load", "module-config", "boot-image"):
            s.flag("unmet-precondition", a, "WSL uses the Windows driver: a Linux driver or module does not apply")
    if not on_host and _cluster(f) and (a.root or a.kind in _ROOT_KINDS):
        s.flag("unmet-precondition", a, "a cluster job has no root on its node: this is the administrator's")
    if a.kind in ("pip-install", "pip-uninstall", "pip-download") and a.tool not in ("uv", "pip", "pip3"):
        env = _python(f)
        if env is None or not _is_path(env.executable):
            if not _is_path(a.tool):
                s.flag(
                    "unmodelled", a, f"whether {a.tool} is the environment's interpreter: the report does not show which it is"
                )
        elif a.tool != env.executable:
            s.flag("unmet-precondition", a, f"runs {a.tool}, not the environment's interpreter {env.executable}")
    # What must come first.
    if a.kind == "repo-add":
        missing = [p for p in a.packages if p not in s.downloaded]
        if missing:
            s.flag("unmet-precondition", a, f"{', '.join(missing)} is not downloaded by an earlier command")
    if a.kind == "pkg-install":
        for p in a.packages:
            if _NVIDIA_REPO.match(p):
                if "nvidia-cuda" not in s.sources:
                    s.flag(
                        "unmet-precondition",
                        a,
                        f"{p} comes from NVIDIA's CUDA repository: no earlier step adds it, and the machine's package "
                        "sources were not recorded",
                    )
                elif "nvidia-cuda" not in s.fresh:
                    s.flag("unmet-precondition", a, f"{p}: no package-index update after NVIDIA's repository was added")
                break
    if a.kind == "pkg-hold":
        for p in a.packages:
            if p not in s.installed and not any(x.split("=")[0] == p for x in s.installed):
                s.flag("unmet-precondition", a, f"{p} is held but no earlier step installs it")
    if a.kind == "pip-install" and "--no-index" in a.flags:
        staged = s.staged.get(a.dest or "", {})
        missing = [r.name for r in a.requirements if r.name not in staged]
        if missing:
            s.flag("unmet-precondition", a, f"{', '.join(missing)}: not downloaded into {a.dest} by an earlier command")
    if a.kind in ("pip-install", "pip-download", "conda-run") and not (a.kind == "pip-install" and "--no-index" in a.flags):
        for r in a.requirements:
            why = _not_served(s, r, a)
            if why:
                s.flag("unmet-precondition", a, why)
    if a.kind == "link-switch" and a.name not in s.toolkits and not _toolkit(f, a.name):
        s.flag("unmet-precondition", a, f"no CUDA {a.name} toolkit is installed, and no earlier step installs it")


def _is_path(program: str) -> bool:
    return "/" in program or "\\" in program


def _conda_env_exists(facts: Any, name: str) -> bool:
    env = _python(facts)
    return env is not None and env.kind == "conda" and env.prefix.rstrip("/\\").endswith(name)


def _toolkit(facts: Any, version: str) -> Toolkit | None:
    mm = ".".join(version.split(".")[:2])
    return next((t for t in facts.toolkits.toolkits if t.version and ".".join(t.version.split(".")[:2]) == mm), None)


def _index_tag(index: str | None) -> str | None:
    if not index:
        return None
    m = re.search(r"/(cu\d+|cpu|rocm[\d.]+)/?\Z", index)
    return m.group(1) if m else None


def _torch_target(s: _State, r: Requirement, a: Action) -> tuple[Any, Any, str] | str:
    """(release, variant, version) of a torch requirement as the matrix knows it, or why it cannot be told."""
    m = s.matrix
    if not r.version:
        return "torch without a version: which release pip picks depends on the day"
    base, _, local = r.version.partition("+")
    rel = m.torch_release(base.rstrip(".*"))
    if rel is None:
        return f"the matrix has no torch {base} release"
    tag = local or _index_tag(a.index) or rel.pypi_default
    variant = rel.variants.get(tag)
    if variant is None and tag != "cpu":
        return f"torch {rel.version} has no {tag} build (matrix)"
    version = rel.version if r.wildcard else base  # a wildcard: the release, as the matrix knows it
    return rel, variant, f"{version}+{tag}"


def _not_served(s: _State, r: Requirement, a: Action) -> str | None:
    """Why the index would not serve `r` for this machine's Python (per the matrix), or None."""
    py = _python_version(s.facts, s, a)
    m = s.matrix
    if r.name == "torch" and r.version:
        t = _torch_target(s, r, a)
        if isinstance(t, str):
            return t if "has no" in t and "matrix has no" not in t else None
        rel = t[0]
        if py and not rel.supports_python(py):
            return f"torch {rel.version} has no wheel for Python {py} (its range: {rel.python})"
    if r.name in ("tensorflow", "tensorflow-gpu") and r.version:
        rel = m.tensorflow_release(r.version.rstrip(".*"))
        if rel is not None and py and not rel.supports_python(py):
            return f"tensorflow {rel.version} has no wheel for Python {py} (its range: {rel.python})"
    if r.name in ("jax", "jaxlib") and r.version:
        rel = m.jax_release(r.version.rstrip(".*"))
        if rel is not None and py and not rel.supports_python(py):
            return f"{r.name} {r.version} has no wheel for Python {py} (its range: {rel.python})"
    return None


# --- effects -----------------------------------------------------------------------------------


def _sonames(cuda: str, cudnn: str | None) -> tuple[str, ...]:
    """The CUDA libraries a framework's CUDA wheel brings (runtime, cuBLAS, cuDNN), by their sonames: CUDA 11
    keeps the 11.0 soname for cudart, 12 on the major alone; cuDNN its major."""
    m = int(cuda.split(".")[0])
    names = [f"libcudart.so.{m}.0" if m < 12 else f"libcudart.so.{m}", f"libcublas.so.{m}", f"libcublasLt.so.{m}"]
    if cudnn:
        names.append(f"libcudnn.so.{cudnn.split('.')[0]}")
    return tuple(names)


def _wheel_libs(facts: Any, rel: Any, variant: Any, location: str) -> tuple[LibDir, ...]:
    """Where a PyTorch CUDA wheel's libraries are once pip installed it with its dependencies: in torch/lib for
    the releases that bundle them (before 1.13), else in NVIDIA's wheels beside it (the variant's CUDA and cuDNN,
    compat_matrix/torch.toml)."""
    names = _sonames(variant.cuda, variant.cudnn)
    site = location.rsplit("/torch", 1)[0] if location.endswith("/torch") else location
    if version_key(rel.version) < (1, 13):
        return (LibDir(f"{location}/lib" if location else "torch/lib", "bundled", names),)
    return (LibDir(f"{site}/nvidia/lib", "wheel", names),)


def _add_wheels(facts: Any, cuda: str, cudnn: str | None) -> Any:
    """NVIDIA's wheels a framework's CUDA wheel depends on, at the versions the matrix names (cuDNN's)."""
    wheels = dict(facts.frameworks.nvidia_wheels)
    m = cuda.split(".")[0]
    if cudnn:
        wheels[f"nvidia-cudnn-cu{m}"] = cudnn
    return replace(facts, frameworks=replace(facts.frameworks, nvidia_wheels=wheels))


def _set_env(facts: Any, name: str, value: str | None) -> Any:
    env = dict(facts.platform.env)
    if value is None:
        env.pop(name, None)
    else:
        env[name] = value
    return replace(facts, platform=replace(facts.platform, env=env))


def _set_dist(facts: Any, name: str, version: str | None) -> Any:
    env = _python(facts)
    if env is None:
        return facts
    dists = dict(env.distributions)
    if version is None:
        dists.pop(name, None)
    else:
        dists[name] = version
    new = replace(env, distributions=dists)
    return replace(facts, frameworks=replace(facts.frameworks, python=Found(new, facts.frameworks.python.source)))


def _location(facts: Any) -> str:
    env = _python(facts)
    return env.site_packages[0] if env is not None and env.site_packages else ""


def _companion(name: str, version: str, site: str) -> Companion:
    return Companion(name, version, site)


def _extensions(facts: Any) -> ExtensionFacts | None:
    """The machine's extension facts; where none were read but the environment lists torch's companions, the
    companions as the package list shows them (the companion check then judges them by the matrix alone)."""
    if facts.extensions is not None:
        return facts.extensions
    env = _python(facts)
    torch = facts.frameworks.torch
    if env is None or not isinstance(torch, Found):
        return None
    present = [(n, env.distributions[n]) for n in COMPANIONS if n in env.distributions]
    if not present:
        return None
    t = torch.value
    return ExtensionFacts(t.version, t.cuda, None, (), (), tuple(_companion(n, v, _location(facts)) for n, v in present))


def enrich(facts: Any) -> Any:
    """The facts the model starts from: the recorded ones, with torch's companions taken from the package list
    where their files were not read (so moving torch without them shows)."""
    ext = _extensions(facts)
    return facts if ext is facts.extensions else replace(facts, extensions=ext)


def _pip_install(s: _State, a: Action) -> None:
    f = s.facts
    env_new = a.kind == "conda-run" and a.name in s.envs
    if env_new:
        s.flag("unmodelled", a, f"installs into the new conda environment {a.name}: the diagnosis is of the recorded one")
        return
    torch_req = next((r for r in a.requirements if r.name == "torch"), None)
    if torch_req is not None and "--no-deps" not in a.flags and f.frameworks.nvidia_wheels:
        # The new torch's NVIDIA wheels replace the installed ones at versions of its own: only cuDNN's is in the matrix.
        s.flag("unmodelled", a, "the NVIDIA wheels the new torch pulls in replace the installed ones: versions not modelled")
    for r in a.requirements:
        if r.name == "torch":
            t = _torch_target(s, r, a)
            if isinstance(t, str):
                s.flag("unmodelled", a, t)
                continue
            _rel, variant, version = t
            cuda = variant.cuda if variant is not None else None
            old = f.frameworks.torch.value if isinstance(f.frameworks.torch, Found) else None
            location = old.location if old else _location(f)
            kept = tuple(d for d in (old.lib_dirs if old else ()) if d.via == "wheel")
            if cuda and "--no-deps" not in a.flags:
                kept = _wheel_libs(f, _rel, variant, location)
                f = _add_wheels(f, variant.cuda, variant.cudnn)
            torch = TorchFacts(version, cuda, None, location, kept, True)
            f = replace(f, frameworks=replace(f.frameworks, torch=Found(torch, "plan")))
            f = _set_dist(f, "torch", version)
            if f.loading is not None:
                f = replace(
                    f, loading=replace(f.loading, frameworks=tuple(x for x in f.loading.frameworks if x.framework != "torch"))
                )
            if f.extensions is not None:
                # The new torch's own libraries and Requires-Dist were not read: what binds to them is judged by version.
                f = replace(f, extensions=replace(f.extensions, torch_version=version, torch_cuda=cuda, torch_cxx11abi=None,
                                                  torch_libs=(), torch_requires=()))  # fmt: skip
            s.write(("package", "torch"), version, a)
        elif r.name in COMPANIONS:
            version = r.version
            if not version or r.wildcard:
                installed = f.extensions.torch_version if f.extensions else None
                row = s.matrix.companion_for(r.name, installed) if installed else None
                if row is None:
                    s.flag("unmodelled", a, f"which {r.name} pip picks: the matrix names none for torch {installed}")
                    if f.extensions is not None:  # replaced by a version the model cannot name: no longer judged
                        comps = tuple(c for c in f.extensions.companions if c.name != r.name)
                        f = replace(f, extensions=replace(f.extensions, companions=comps))
                    continue
                version = row.version
            tag = _index_tag(a.index)
            if tag and r.name in ("torchvision", "torchaudio") and "+" not in version:
                version = f"{version}+{tag}"  # the PyTorch index's builds carry their variant as a local tag
            ext = f.extensions
            if ext is not None:
                # A fresh wheel (or a build against the installed torch): its ELF was not read, so what binds to torch is
                # judged by its version against the matrix's companion rows, as the companion check does.
                site = next((c.site for c in ext.companions if c.name == r.name), _location(f))
                comp = Companion(r.name, version, site)
                comps = tuple(c for c in ext.companions if c.name != r.name) + (comp,)
                f = replace(f, extensions=replace(ext, companions=comps))
            f = _set_dist(f, r.name, version)
            s.write(("package", r.name), version, a)
        elif r.name in ("tensorflow", "tensorflow-gpu", "tensorflow-cpu"):
            rel = s.matrix.tensorflow_release(r.version.rstrip(".*")) if r.version else None
            if rel is None:
                s.flag("unmodelled", a, f"the matrix has no tensorflow {r.version or '(unpinned)'} release")
                continue
            version = rel.tested if r.wildcard or not r.version else r.version
            tf = TensorflowFacts(version, r.name, r.name != "tensorflow-cpu", rel.cuda, rel.cudnn, _location(f))
            f = replace(f, frameworks=replace(f.frameworks, tensorflow=Found(tf, "plan")))
            f = _set_dist(f, r.name, version)
            if f.loading is not None:
                f = replace(
                    f,
                    loading=replace(f.loading, frameworks=tuple(x for x in f.loading.frameworks if x.framework != "tensorflow")),
                )
            if "and-cuda" in r.extras:
                s.flag("unmodelled", a, "the CUDA wheels tensorflow[and-cuda] pulls in are not modelled")
            numpy = (_python(f).distributions.get("numpy") if _python(f) else None) or ""
            if numpy.split(".")[0].isdigit() and int(numpy.split(".")[0]) >= 2:
                s.flag("unmodelled", a, f"whether numpy {numpy} suits tensorflow {version}: the matrix holds no numpy data")
            s.write(("package", r.name), version, a)
        elif r.name in ("jax", "jaxlib") or r.name.startswith("jax-cuda"):
            f = _jax(s, f, r, a)
        elif r.name.startswith("nvidia-"):
            if not r.version:
                s.flag("unmodelled", a, f"{r.name} unpinned: which version pip picks is not modelled")
                continue
            wheels = dict(f.frameworks.nvidia_wheels)
            wheels[r.name] = r.version
            f = replace(f, frameworks=replace(f.frameworks, nvidia_wheels=wheels))
            f = _set_dist(f, r.name, r.version)
            s.write(("package", r.name), r.version, a)
        else:
            s.flag("unmodelled", a, f"no model of the package {r.name}")
    s.facts = f


def _jax(s: _State, f: Any, r: Requirement, a: Action) -> Any:
    old = f.frameworks.jax.value if isinstance(f.frameworks.jax, Found) else JaxFacts(None, None, {}, _location(f))
    if not r.version or r.wildcard:
        s.flag("unmodelled", a, f"{r.name} without an exact version: which release pip picks is not modelled")
        return f
    jax, jaxlib, plugins = old.jax, old.jaxlib, dict(old.plugins)
    if r.name == "jax":
        jax = r.version
        if r.extras:  # jax[cpu], jax[cuda12], jax[tpu]: jaxlib of the same version
            jaxlib = r.version
        cudas = [e for e in r.extras if re.fullmatch(r"cuda\d+(-local|-pip)?", e)]
        if cudas:
            major = re.match(r"cuda(\d+)", cudas[0]).group(1)  # type: ignore[union-attr]
            rel = s.matrix.jax_release(r.version)
            jaxlib = r.version
            plugins = {k: v for k, v in plugins.items() if not k.startswith("jax-cuda")}
            if rel is not None and rel.packaging != "jaxlib":
                plugins[f"jax-cuda{major}-plugin"] = r.version
                plugins[f"jax-cuda{major}-pjrt"] = r.version
    elif r.name == "jaxlib":
        jaxlib = r.version
    else:
        plugins[r.name] = r.version
    lib_dirs = old.lib_dirs
    cudas = [e for e in r.extras if re.fullmatch(r"cuda\d+(-pip)?", e)]
    rel = s.matrix.jax_release(r.version)
    if r.name == "jax" and cudas and rel is not None:
        major = int(re.match(r"cuda(\d+)", cudas[0]).group(1))  # type: ignore[union-attr]
        need = rel.cuda.get(major)
        if need is None or not need.cudnn:
            s.flag("unmodelled", a, f"the matrix does not say which cuDNN jax {r.version} brings for CUDA {major}")
        else:
            floor = re.sub(r"[^\d.]", "", need.cudnn.split(",")[0]) or None
            site = (old.location or _location(f)).rsplit("/jax", 1)[0]
            lib_dirs = (LibDir(f"{site}/nvidia/lib", "wheel", _sonames(f"{major}.0", floor)),)
            f = _add_wheels(f, f"{major}.0", floor)
    new = JaxFacts(jax, jaxlib, plugins, old.location or _location(f), lib_dirs)
    f = replace(f, frameworks=replace(f.frameworks, jax=Found(new, "plan")))
    for name, v in (("jax", jax), ("jaxlib", jaxlib), *plugins.items()):
        if v:
            f = _set_dist(f, name, v)
    if f.loading is not None:
        f = replace(f, loading=replace(f.loading, frameworks=tuple(x for x in f.loading.frameworks if x.framework != "jax")))
    s.write(("package", r.name), r.version, a)
    return f


def _pip_uninstall(s: _State, a: Action) -> None:
    f = s.facts
    for r in a.requirements:
        wheels = {k: v for k, v in f.frameworks.nvidia_wheels.items() if canon(k) != r.name}
        fw: FrameworkFacts = replace(f.frameworks, nvidia_wheels=wheels)
        if r.name in ("torch", "tensorflow", "jax"):
            removed: dict[str, Any] = {r.name: Absent("removed by the plan", "plan")}
            fw = replace(fw, **removed)
        f = replace(f, frameworks=fw)
        if f.extensions is not None and r.name in COMPANIONS:
            f = replace(
                f, extensions=replace(f.extensions, companions=tuple(c for c in f.extensions.companions if c.name != r.name))
            )
        f = _set_dist(f, r.name, None)
        s.write(("package", r.name), "removed", a)
    s.facts = f


def _switch_link(s: _State, a: Action) -> None:
    f = s.facts
    tk = _toolkit(f, a.name)
    root = tk.root if tk else f"/usr/local/cuda-{a.name}"
    link = CudaLink(f.toolkits.link.path or "/usr/local/cuda", "link", root, root, f.toolkits.link.managed_by_alternatives)
    toolkits = tuple(_moved(t, root, ("/usr/local/cuda link",)) for t in f.toolkits.toolkits)
    s.facts = replace(f, toolkits=replace(f.toolkits, link=link, toolkits=toolkits))
    s.write(("link", "/usr/local/cuda"), a.name, a)


def _moved(t: Toolkit, root: str, vias: tuple[str, ...]) -> Toolkit:
    """`t` with `vias` (the ways a toolkit is named) now naming the toolkit at `root` alone."""
    kept = tuple(v for v in t.found_via if v not in vias)
    return replace(t, found_via=kept + (vias if t.root == root else ()))


# The ways the toolkits probe records that the shell names a toolkit (gpudoctor.probes.toolkits): what
# `eval "$(gpudoctor switch-cuda X --shell)"` re-points (CUDA_HOME, PATH's nvcc, LD_LIBRARY_PATH).
_SHELL_VIAS = ("nvcc on PATH", "CUDA_HOME", "LD_LIBRARY_PATH")


def _shell_env(s: _State, a: Action) -> None:
    f = s.facts
    tk = _toolkit(f, a.name)
    root = tk.root if tk else f"/usr/local/cuda-{a.name}"
    nvcc = tk.nvcc if tk and tk.nvcc else f"{root}/bin/nvcc"
    toolkits = tuple(_moved(t, root, _SHELL_VIAS) for t in f.toolkits.toolkits)
    t = replace(f.toolkits, toolkits=toolkits, cuda_home=root, nvcc_on_path=nvcc,
                nvcc_on_path_version=(tk.version if tk else a.name), ld_library_path_toolkits=(root,))  # fmt: skip
    f = _set_env(replace(f, toolkits=t), "CUDA_HOME", root)
    s.facts = f
    s.write(("env", "CUDA_HOME"), root, a)
    if f.loading is not None and any(fl.loads for fl in f.loading.frameworks):
        s.flag(
            "unmodelled", a, "LD_LIBRARY_PATH gains the toolkit's lib64: the loader's choice for the frameworks is not recomputed"
        )


def _listing(facts: Any, directory: str) -> tuple[str, ...] | None:
    """The CUDA libraries a directory holds, where any probe listed it; None where none did."""
    d = directory.rstrip("/")
    groups: list[tuple[LibDir, ...]] = [facts.ld_library_path]
    if facts.loading is not None:
        groups.append(facts.loading.dirs)
    for outcome in (facts.frameworks.torch, facts.frameworks.tensorflow, facts.frameworks.jax):
        if isinstance(outcome, Found):
            groups.append(outcome.value.lib_dirs)
    if facts.frameworks.env_lib is not None:
        groups.append((facts.frameworks.env_lib,))
    for group in groups:
        for libdir in group:
            if libdir.path.rstrip("/") == d:
                return libdir.names
    return None


def _loader_path(facts: Any, value: str | None) -> Any:
    """The facts with LD_LIBRARY_PATH set to `value` (None: unset): its directories, and each framework's
    resolutions re-ordered as ld.so searches (RPATH copies first, then LD_LIBRARY_PATH, then the rest:
    gpudoctor.loader.search_order). A string says why it cannot be followed (a directory nobody listed)."""
    dirs = [d for d in (value or "").split(":") if d]
    libdirs = []
    for d in dirs:
        names = _listing(facts, d)
        if names is None:
            return f"LD_LIBRARY_PATH names {d}, whose libraries were not listed: what the loader finds there is unknown"
        libdirs.append(LibDir(d, "LD_LIBRARY_PATH", names))
    f = _set_env(replace(facts, ld_library_path=tuple(libdirs)), "LD_LIBRARY_PATH", value)
    if f.loading is None:
        return f
    frameworks = []
    for fl in f.loading.frameworks:
        loads = []
        for res in fl.loads:
            copies = [c for c in res.copies if c.via != "LD_LIBRARY_PATH"]
            lead = 0
            while lead < len(copies) and copies[lead].via.startswith("RPATH of "):
                lead += 1
            new = [LibraryCopy(f"{d.path.rstrip('/')}/{res.soname}", "LD_LIBRARY_PATH") for d in libdirs if res.soname in d.names]
            copies = copies[:lead] + new + copies[lead:]
            if not res.copies and res.path is not None:
                loads.append(res)  # read without its copies: nothing to re-order
                continue
            first = copies[0] if copies else None
            loads.append(
                replace(
                    res,
                    path=first.path if first else None,
                    via=first.via if first else None,
                    shadowed=tuple(c.path for c in copies[1:]),
                    version=_copy_version(res, first),
                    copies=tuple(copies),
                )
            )
        frameworks.append(replace(fl, loads=tuple(loads)))
    return replace(f, loading=replace(f.loading, frameworks=tuple(frameworks)))


def _copy_version(res: Any, copy: Any) -> str | None:
    """The version of the copy that now loads: its own where known, the old one's where it is the same file."""
    if copy is None:
        return None
    if copy.version:
        return copy.version
    return res.version if copy.path == res.path else None


def _pkg_install(s: _State, a: Action) -> None:
    s.installed.update(a.packages)
    if not a.packages:  # dpkg --configure -a, apt-get install --fix-broken
        s.disk_changed.append("interrupted package installs finished")
        s.flag("unmodelled", a, "finishes interrupted installs: which packages, and their versions, were not recorded")
        return
    for p in a.packages:
        name = p.split("=")[0]
        m = _TOOLKIT_PKG.match(name)
        if m:
            version = f"{m.group(1)}.{m.group(2)}"
            root = f"/usr/local/cuda-{version}"
            tk = Toolkit(root, version, "version.json", ("plan",), f"{root}/bin/nvcc", True)
            s.facts = replace(s.facts, toolkits=replace(s.facts.toolkits, toolkits=(*s.facts.toolkits.toolkits, tk)))
            s.toolkits.add(version)
            s.write(("package", name), p, a)
        elif _DRIVER_PKG.match(name):
            s.disk_changed.append(f"driver package {p}")
            s.flag("unmodelled", a, f"{p}: the driver version it installs is the repository's on the day")
        else:
            s.disk_changed.append(p)
            s.flag("unmodelled", a, f"{p}: the libraries it puts on the loader's path are not modelled")


def _reboot(s: _State, a: Action) -> None:
    d = s.facts.driver
    if s.disk_changed:
        s.flag("unmodelled", a, f"loads what earlier steps changed on disk ({s.disk_changed[0]}): not followed by the model")
        s.disk_changed.clear()
    elif d.nvml_status == "lib_rm_version_mismatch" or d.smi_error_kind == "driver-library-mismatch":
        s.flag("unmodelled", a, "loads the kernel module on disk, whose version was not recorded")
    elif any(g.lost for g in d.gpus) or s.component == "health":
        s.flag("unmodelled", a, "whether a GPU that fell off the bus comes back is the hardware's")
    else:
        s.flag("unmet-precondition", a, "a reboot with nothing to activate: no earlier step changes what it loads")


def _apply(s: _State, a: Action) -> None:
    k = a.kind
    # Kinds that change nothing the diagnosis reads (a service restart: the recorded machine holds no service state).
    if k in ("inspect", "pkg-update", "pkg-hold", "pip-download", "repo-add", "conda-create", "service-restart"):
        if k == "pkg-update":
            s.fresh |= s.sources
        elif k == "repo-add":
            s.sources.add("nvidia-cuda")
            s.fresh.discard("nvidia-cuda")
        elif k == "pip-download":
            s.staged.setdefault(a.dest or "", {}).update({r.name: a.index for r in a.requirements})
        elif k == "conda-create":
            s.envs[a.name] = next((p.partition("=")[2] for p in a.packages if p.startswith("python=")), None)
        elif k == "inspect" and a.tool.rsplit("/", 1)[-1] == "wget" and isinstance(a.line, Cmd):
            s.downloaded.update(w.rsplit("/", 1)[-1] for w in a.line.words[1:] if not w.startswith("-"))
        return
    if k in ("pip-install", "conda-run"):
        if "--no-index" in a.flags and a.index is None:
            # Installed from what an earlier `pip download` fetched: from that command's index.
            staged = s.staged.get(a.dest or "", {})
            a = replace(a, index=next((staged[r.name] for r in a.requirements if staged.get(r.name)), None))
        if k == "conda-run" and not a.requirements:
            s.flag("unmodelled", a, "a command in another conda environment")
            return
        _pip_install(s, a)
    elif k == "pip-uninstall":
        _pip_uninstall(s, a)
    elif k in ("env-set", "env-unset", "conda-env-vars"):
        if a.name == "LD_LIBRARY_PATH":
            moved = _loader_path(s.facts, a.value)
            if isinstance(moved, str):
                s.flag("unmodelled", a, moved)
            else:
                s.facts = moved
        elif a.name in ("PATH", "LD_PRELOAD"):
            s.flag("unmodelled", a, f"{a.name} changes what is found first: not recomputed")
        else:
            s.facts = _set_env(s.facts, a.name, a.value)
        s.write(("env", a.name), str(a.value), a)
    elif k == "link-switch":
        _switch_link(s, a)
    elif k == "shell-env":
        _shell_env(s, a)
    elif k == "pkg-install":
        _pkg_install(s, a)
    elif k == "registry" and s.facts.windows is not None:
        w = s.facts.windows
        s.facts = _set_env(
            replace(
                s.facts, windows=replace(w, cuda_path_versions={n: v for n, v in w.cuda_path_versions.items() if n != a.name})
            ),
            a.name,
            None,
        )
        s.write(("env", a.name), "None", a)
    elif k in ("module-config", "boot-image"):
        s.disk_changed.append(a.name or a.tool)  # takes effect at the next boot
    elif k == "driver-install":
        s.disk_changed.append("a driver the distribution chooses")
        s.flag("unmodelled", a, "the driver branch the distribution recommends is chosen on the day")
    elif k == "reboot":
        _reboot(s, a)
    else:
        s.flag("unmodelled", a, _UNMODELLED.get(k, f"no model of {a.tool}"))


_UNMODELLED = {
    "pkg-remove": "what the removal takes off the loader's path is not modelled",
    "module-load": "the module's version and the device nodes it creates are not modelled",
    "container-run": "a new container: its devices and driver libraries come from the host's runtime, which was not recorded",
    "container-restart": "a restarted container's device nodes come from the host, which was not recorded",
    "runtime-config": "the host's container runtime was not recorded",
    "user-group": "group membership takes effect at the next login: device access is not modelled",
    "gpu-reset": "a GPU reset is the hardware's",
    "gpu-config": "the GPU's mode after the change is not modelled",
    "loader-cache": "the loader cache rebuilt from what is on disk, which was not recorded",
    "wsl": "WSL's own update and conversion are not modelled",
}


# --- the whole plan ------------------------------------------------------------------------------


def _codes(findings: Sequence[Finding], at_least: Severity = Severity.WARNING) -> dict[str, Finding]:
    """code -> its most severe finding, for the findings at or above `at_least`."""
    out: dict[str, Finding] = {}
    for f in findings:
        if f.severity >= at_least and (f.code not in out or f.severity > out[f.code].severity):
            out[f.code] = f
    return out


def consequences(plan: Any, facts: Any, findings: Sequence[Finding], rediagnose: Rediagnose, matrix: Any = None) -> Consequences:
    """Apply `plan` (gpudoctor.planner.prescribe.Prescription) to `facts` step by step and diagnose again.

    `findings` are the ones the plan was built from; `rediagnose` judges facts (the pipeline passes the
    checks); `matrix` defaults to the bundled one."""
    if matrix is None:
        from gpudoctor.matrix import load_matrix

        matrix = load_matrix()
    start = enrich(facts)
    baseline = _codes(rediagnose(start)) if start is not facts else _codes(findings)
    s = _State(start, matrix)
    seen = dict(baseline)
    unmodelled_steps: set[int] = set()
    for i, step in enumerate(plan.steps, 1):
        s.step, s.component, s.where = i, step.component, step.where
        before = s.facts
        n = len(s.out)
        for line in step.commands:
            a = classify(line)
            _needs(s, a)
            _apply(s, a)
        if any(v.kind == "unmodelled" and v.step == i for v in s.out[n:]):
            unmodelled_steps.add(i)
        if s.facts is not before:
            now = _codes(rediagnose(s.facts))
            for code, f in now.items():
                if code in seen:
                    continue
                if f.evidence and all(e.source == "pasted" for e in f.evidence):
                    # The report's text was printed by the machine before the change: it says nothing of after.
                    s.flag("unmodelled", None, f"{code} is judged on the pasted text alone, which predates the change", (code,))
                else:
                    s.flag("breaks", None, f"{code} appears: {f.title}", (code,))
            seen.update(now)
    final = _codes(rediagnose(s.facts)) if s.facts is not start else dict(baseline)
    undecided: list[str] = []
    left_warnings: list[str] = []
    for i, step in enumerate(plan.steps, 1):
        for code in step.codes:
            addressed = next((x for x in findings if x.code == code), None)
            if addressed is None or code not in final:
                continue
            if addressed.severity < Severity.ERROR or final[code].severity < Severity.ERROR:
                left_warnings.append(code)  # a warning the step answers, or an error it turns into one: shown, not failed
                continue
            kinds = [classify(c).kind for c in step.commands]
            s.step, s.component = i, step.component
            if kinds and all(k == "inspect" for k in kinds):
                undecided.append(code)
            elif not kinds:
                s.flag("left-error", None, "the step prints no command: nothing it runs changes the machine", (code,))
            elif unmodelled_steps & set(range(1, i + 1)):
                s.flag("unmodelled", None, "left by the model: an effect of this or an earlier step is not modelled", (code,))
            elif final[code].evidence and all(e.source == "pasted" for e in final[code].evidence):
                s.flag(
                    "unmodelled",
                    None,
                    "judged on the pasted error text alone, which a changed machine would not print again",
                    (code,),
                )
            else:
                s.flag("left-error", None, f"still there after the plan: {final[code].title}", (code,))
    return Consequences(tuple(sorted(baseline)), tuple(sorted(final)), tuple(s.out), tuple(undecided), tuple(left_warnings))


def alternatives(
    plan: Any, facts: Any, findings: Sequence[Finding], rediagnose: Rediagnose, matrix: Any = None
) -> tuple[tuple[int, str, Consequences], ...]:
    """Each printed alternative ("or instead") checked as the plan a person who takes it runs: its step's
    commands replaced by the alternative's. (step, the code it answers, the consequences of that plan)."""
    out = []
    for i, step in enumerate(plan.steps, 1):
        for alt in step.alternatives:
            out.append((i, alt.code, consequences(_swapped(plan, i, alt), facts, findings, rediagnose, matrix)))
    return tuple(out)


def _swapped(plan: Any, i: int, alt: Any) -> Any:
    """The plan with step `i` (1-based) doing `alt` (a prescribe.Alternative) instead."""
    r = alt.remediation
    step = plan.steps[i - 1]
    trial = replace(step, summaries=(r.summary,), commands=tuple(r.commands), alternatives=(), requires_root=r.requires_root,
                    where=r.where)  # fmt: skip
    return replace(plan, steps=(*plan.steps[: i - 1], trial, *plan.steps[i:]))


# --- the hook: what the plan's builder does with a step that fails --------------------------------

_FAILS = ("unmet-precondition", "undone", "breaks", "left-error")


def revise(
    plan: Any, facts: Any, findings: Sequence[Finding], rediagnose: Rediagnose, matrix: Any = None
) -> tuple[Any, Consequences]:
    """The plan with each failing step replaced: by its alternative where the plan then holds better, else by
    "cannot decide" and the step's own inspections (what to run to decide it), or dropped where it has none.
    Returns the revised plan and its consequences. Unmodelled effects are not failures: they stay as printed."""
    from gpudoctor.planner.prescribe import Prescription, Step

    result = consequences(plan, facts, findings, rediagnose, matrix)
    failing = sorted({v.step for v in result.violations if v.kind in _FAILS and v.step > 0})
    if not failing:
        return plan, result
    steps = list(plan.steps)
    for i in failing:
        step: Step = steps[i - 1]
        swapped = None
        for alt in step.alternatives:
            trial_plan = _swapped(replace(plan, steps=tuple(steps)), i, alt)
            got = consequences(trial_plan, facts, findings, rediagnose, matrix)
            if sum(1 for v in got.violations if v.kind in _FAILS and v.step == i) == 0:
                swapped = trial_plan.steps[i - 1]
                break
        if swapped is not None:
            steps[i - 1] = swapped
            continue
        looks = tuple(c for c in step.commands if classify(c).kind == "inspect")
        why = next(v.reason for v in result.violations if v.step == i and v.kind in _FAILS)
        steps[i - 1] = replace(
            step,
            summaries=(
                f"Cannot decide this step from what was recorded ({why})" + (": run these to decide it." if looks else "."),
            ),
            commands=looks,
        )
    revised = Prescription(tuple(steps), plan.target, plan.problems)
    return revised, consequences(revised, facts, findings, rediagnose, matrix)


def line_text(line: Line) -> str:
    """A command as the plan prints it on POSIX (for reports and the known-violation list)."""
    return render(line, "posix")
