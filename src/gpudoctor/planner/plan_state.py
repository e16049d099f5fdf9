"""The machine as a plan goes, for gpudoctor.planner.consequences: the facts so far, what earlier steps added
(package sources, downloads, environments, toolkits), what each step set (to find a later step undoing it),
and the violations found, with the questions about the machine both the needs and the effects ask."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

from gpudoctor.cmdline import render
from gpudoctor.facts import Toolkit
from gpudoctor.planner.actions import Action, Requirement
from gpudoctor.probed import Found

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


# --- the machine as the plan goes ----------------------------------------------------------------


@dataclass
class State:
    """The machine as a plan changes it, step by step: the facts, what was added and installed, and what went wrong."""

    facts: Any  # gpudoctor.facts.Facts
    matrix: Any
    step: int = 0
    sources: set[str] = field(default_factory=set)  # package sources added by the plan: "nvidia-cuda"
    fresh: set[str] = field(default_factory=set)  # added sources whose index an update has read since
    refreshed: set[str] = field(default_factory=set)  # package tools whose index an update in the plan read (apt-get)
    downloaded: set[str] = field(default_factory=set)  # files fetched by an earlier command (wget)
    staged: dict[str, dict[str, str | None]] = field(default_factory=dict)  # pip download --dest: dir -> name -> index
    envs: dict[str, str | None] = field(default_factory=dict)  # conda environments the plan created -> their Python
    toolkits: set[str] = field(default_factory=set)  # toolkit versions the plan installed
    installed: set[str] = field(default_factory=set)  # distribution packages the plan installed
    wheels: dict[str, str] = field(default_factory=dict)  # NVIDIA's wheels the plan installed -> version or specifier
    disk_changed: list[str] = field(default_factory=list)  # what a reboot would activate
    # The driver as the plan changes it, once a step touches it (gpudoctor.planner.driver_state.Driver): the module
    # loaded, the user-space build, the module a reboot would load.
    driver: Any = None
    writes: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)  # resource -> (step, value)
    out: list[Violation] = field(default_factory=list)
    asked: set[tuple[str, ...]] = field(default_factory=set)  # the argv of each command an earlier step only reads
    upgraded: set[str] = field(default_factory=set)  # tools an earlier command installs (gpudoctor.planner.tool_floors)
    deciders: list[tuple[int, Any]] = field(default_factory=list)  # (step, a command whose output decides an unmet need)
    # Companions present when a step moved torch and not installed again since: name -> (that step, its version, the
    # torch it was installed beside). What is left at the end is judged for the torch the plan leaves (consequences).
    behind: dict[str, tuple[int, str, str]] = field(default_factory=dict)
    # Binaries a step removed (rm) that a later step must build again -> that step (gpudoctor.planner.effects).
    unbuilt: dict[str, int] = field(default_factory=dict)
    component: str = ""
    where: str = ""
    codes: tuple[str, ...] = ()  # the finding codes the current step answers
    acted: bool = False  # a command that changes the machine came: what the paste shows of it may hold no longer

    def flag(self, kind: str, action: Action | None, reason: str, codes: tuple[str, ...] = ()) -> None:
        self.out.append(Violation(self.step, self.component, kind, codes, text_of(action), reason))

    def write(self, resource: tuple[str, str], value: str, action: Action) -> None:
        """Record what a step sets; a later step setting it otherwise undoes the earlier one."""
        prior = self.writes.get(resource)
        if prior is not None and prior[0] != self.step and prior[1] != value:
            self.flag("undone", action, f"sets {resource[1]} to {value}; step {prior[0]} set it to {prior[1]}")
        self.writes[resource] = (self.step, value)


def text_of(action: Action | None) -> str:
    if action is None or action.line is None:
        return ""
    try:
        return render(action.line, "posix")
    except ValueError:
        return repr(action.line)


# --- what the machine is -----------------------------------------------------------------------


def system_of(facts: Any) -> str:
    return (facts.platform.system or "").lower()


def is_windows(facts: Any) -> bool:
    return system_of(facts).startswith("win")


def distro_family(facts: Any) -> set[str]:
    d = facts.platform.distro
    words = {w for w in f"{d.id or ''} {d.id_like or ''}".lower().split() if w}
    return words


def python_env(facts: Any) -> Any:
    p = facts.frameworks.python
    return p.value if isinstance(p, Found) else None


def python_version(facts: Any, s: Any = None, a: Action | None = None) -> str | None:
    if s is not None and a is not None and a.kind == "conda-run" and a.name in s.envs:
        return s.envs[a.name]  # the Python the plan's conda create named
    env = python_env(facts)
    if env is None or not env.version:
        return None
    return ".".join(env.version.split(".")[:2])


def has_conda(facts: Any) -> bool | None:
    """Whether conda is on this machine: True, False on a whole machine with no trace of it, None: not shown."""
    env = python_env(facts)
    e = facts.platform.env
    if (
        "CONDA_EXE" in e
        or "CONDA_PREFIX" in e
        or (env is not None and (env.kind == "conda" or "conda" in env.executable.lower()))
    ):
        return True
    return None if facts.pasted.partial else False


def toolkit_of(facts: Any, version: str) -> Toolkit | None:
    mm = ".".join(version.split(".")[:2])
    return next((t for t in facts.toolkits.toolkits if t.version and ".".join(t.version.split(".")[:2]) == mm), None)


def index_tag(index: str | None) -> str | None:
    if not index:
        return None
    m = re.search(r"/(cu\d+|cpu|rocm[\d.]+)/?\Z", index)
    return m.group(1) if m else None


@dataclass(frozen=True)
class Unresolved:
    """Why a requirement cannot be resolved: `unserved` when the matrix says the index has no such build (the
    install fails: an unmet need), else because the model cannot tell which build pip would pick."""

    reason: str
    unserved: bool = False


def torch_target(s: State, r: Requirement, a: Action) -> tuple[Any, Any, str] | Unresolved:
    """(release, variant, version) of a torch requirement as the matrix knows it, or why it cannot be told."""
    m = s.matrix
    if not r.version:
        return Unresolved("torch without a version: which release pip picks depends on the day")
    base, _, local = r.version.partition("+")
    rel = m.torch_release(base.rstrip(".*"))
    if rel is None:
        return Unresolved(f"the matrix has no torch {base} release")
    tag = local or index_tag(a.index) or rel.pypi_default
    variant = rel.variants.get(tag)
    if variant is None and tag != "cpu":
        return Unresolved(f"torch {rel.version} has no {tag} build (the matrix)", unserved=True)
    version = rel.version if r.wildcard else base  # a wildcard: the release, as the matrix knows it
    return rel, variant, f"{version}+{tag}"
