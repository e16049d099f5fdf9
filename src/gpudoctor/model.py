"""Findings, reports and exit codes: plain data shared by checks, renderers and the CLI."""

from __future__ import annotations

import enum
from dataclasses import field

from gpudoctor.record import MutableRecord, Record, record_class

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Severity(enum.IntEnum):
    """Ordered, so that `--fail-on warning` is a comparison."""

    INFO = 10
    WARNING = 20
    ERROR = 30

    @property
    def label(self) -> str:
        return self.name.lower()


#: The framework names every command accepts (install, fix, memory plan, matrix show), lower-cased.
FRAMEWORK_ALIASES = {"torch": "torch", "pytorch": "torch", "tensorflow": "tensorflow", "tf": "tensorflow", "jax": "jax"}


class ExitCode(enum.IntEnum):
    OK = 0  # nothing at or above --fail-on
    FINDINGS = 1  # findings at or above --fail-on
    USAGE = 2  # the command line was wrong (click's own code)
    ERROR = 3  # gpudoctor itself could not run: bad snapshot, invalid matrix, crash
    INTERRUPTED = 130


# The areas of the terminal view, in display order.
AREAS = ("gpu", "driver", "platform", "toolkit", "cudnn", "frameworks", "health", "memory", "doctor")
AREA_TITLES = {
    "gpu": "GPU",
    "driver": "NVIDIA driver",
    "platform": "Platform and container",
    "toolkit": "CUDA toolkits",
    "cudnn": "cuDNN",
    "frameworks": "Frameworks",
    "health": "GPU health",
    "memory": "GPU memory",
    "doctor": "Doctor",
}


@record_class(frozen=True, eq=False, repr=False)
class Evidence(Record):
    """One fact a finding was judged on, and where it was read (`nvml`, `file:/proc/...`, `cmd:nvidia-smi -q -x`)."""

    source: str
    value: str


# The components a fix acts on, in the order the plan applies them (gpudoctor.planner.prescribe).
COMPONENTS = (
    "driver",
    "container",
    "platform",
    "gpu",
    "toolkit",
    "cudnn",
    "torch",
    "tensorflow",
    "jax",
    "environment",
    "health",
    "memory",
    "doctor",
    "resume",  # the reporter's own command again (gpudoctor.planner.resume): always last
)


@record_class(frozen=True, eq=False, repr=False)
class Remediation(Record):
    """What to do: prose, then commands as data (gpudoctor.cmdline renders them). Never run by the doctor.

    `component` names the plan step this belongs to (COMPONENTS): the planner merges every finding's
    remediation for a component into one step. `where` says where the commands run when that is not
    this machine ("the host", "the image", "Windows").

    `alternative`: another fix for the same finding that works as well (toolkit-torch-major-mismatch:
    a toolkit of PyTorch's CUDA major, or a PyTorch build of nvcc's). It is offered beside the step
    ("or instead"), never run with it: doing both would undo one with the other.
    """

    summary: str
    commands: tuple[Any, ...] = ()  # gpudoctor.cmdline.Line
    requires_root: bool = False
    component: str = ""
    where: str = ""
    alternative: Remediation | None = None

    def __post_init__(self) -> None:
        from gpudoctor.cmdline import Cmd, EvalShell, PrependPath, SetEnv, SetFrom

        if self.alternative is not None:
            if not isinstance(self.alternative, Remediation):
                raise TypeError(f"an alternative must be a Remediation, not {self.alternative!r}")
            if self.alternative.alternative is not None:
                raise ValueError("an alternative has no alternative of its own: say each way once")
        object.__setattr__(self, "commands", tuple(self.commands))
        for c in self.commands:
            if not isinstance(c, (Cmd, SetEnv, SetFrom, PrependPath, EvalShell)):
                raise TypeError(f"a remediation command must be data (gpudoctor.cmdline), not {c!r}")
        if self.component and self.component not in COMPONENTS:
            raise ValueError(f"unknown component {self.component!r}")

    def lines(self, target: str = "posix") -> list[str]:
        from gpudoctor.cmdline import render_all, shell_for_place

        return render_all(self.commands, shell_for_place(target, self.where))

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "commands": self.lines(),
            "argv": [c.to_json() for c in self.commands],
            "requires_root": self.requires_root,
            "component": self.component or None,
            "where": self.where or None,
            "alternative": None if self.alternative is None else self.alternative.to_json(),
        }


# The codes whose finding is about compiling an extension (docs/findings/*.md: a toolkit, headers, an architecture
# or a host compiler for a build): their fix took when the build runs through, which the reporter's own build
# command shows, and a framework's GPU check (planner.resume) says nothing of it. A property of the code, not of a
# case: each of these is emitted only for a build (the checks/catalogued builds and compilers families, and
# toolkit's nvcc-for-GPU and CUDA-major checks).
BUILD_CODES = frozenset(
    {
        "toolkit-torch-major-mismatch",
        "toolkit-missing-for-build",
        "toolkit-arch-unsupported",
        "cudnn-headers-missing-for-build",
        "host-compiler-unsupported",
    }
)


@record_class(frozen=True, eq=False, repr=False)
class Finding(Record):
    """One problem (or note) a check found: its code, severity, what it means, the evidence, and how to fix it."""

    code: str
    severity: Severity
    area: str
    title: str
    detail: str
    evidence: tuple[Evidence, ...] = ()
    remediation: Remediation | None = None
    sources: tuple[str, ...] = ()  # compat_matrix source keys the judgement used

    @property
    def about_build(self) -> bool:
        """Whether this finding is about compiling an extension (BUILD_CODES): its fix is seen to take by the build."""
        return self.code in BUILD_CODES

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.label,
            "area": self.area,
            "title": self.title,
            "detail": self.detail,
            "evidence": [{"source": e.source, "value": e.value} for e in self.evidence],
            "remediation": None if self.remediation is None else self.remediation.to_json(),
            "sources": list(self.sources),
        }


def sort_findings(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-f.severity, AREAS.index(f.area) if f.area in AREAS else 99, f.code))


@record_class(eq=False, repr=False)
class Report(MutableRecord):
    """One run's result: the facts it judged, the findings, and how the facts were obtained (live, recorded, replayed)."""

    facts: Any  # gpudoctor.facts.Facts
    findings: list[Finding]
    host_mode: str  # live, recording, replay
    timings_s: dict[str, float] = field(default_factory=dict)
    internal_errors: list[str] = field(default_factory=list)
    matrix_path: str | None = None  # the --matrix the findings were judged with (None: the bundled one)

    def worst(self) -> Severity | None:
        return max((f.severity for f in self.findings), default=None)


def exit_code_for(findings: list[Finding], fail_on: Severity) -> ExitCode:
    return ExitCode.FINDINGS if any(f.severity >= fail_on for f in findings) else ExitCode.OK
