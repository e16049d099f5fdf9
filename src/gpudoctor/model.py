"""Findings, reports and exit codes: plain data shared by checks, renderers and the CLI."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Severity(enum.IntEnum):
    """Ordered, so that `--fail-on warning` is a comparison."""

    INFO = 10
    WARNING = 20
    ERROR = 30

    @property
    def label(self) -> str:
        return self.name.lower()


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


@dataclass(frozen=True)
class Evidence:
    """One fact a finding was judged on, and where it was read (`nvml`, `file:/proc/...`, `cmd:nvidia-smi -q -x`)."""

    source: str
    value: str


@dataclass(frozen=True)
class Remediation:
    """What to do: prose, then copy-paste command lines. Never run by the doctor."""

    summary: str
    commands: tuple[str, ...] = ()
    requires_root: bool = False


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    area: str
    title: str
    detail: str
    evidence: tuple[Evidence, ...] = ()
    remediation: Remediation | None = None
    sources: tuple[str, ...] = ()  # compat_matrix source keys the judgement used

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.label,
            "area": self.area,
            "title": self.title,
            "detail": self.detail,
            "evidence": [{"source": e.source, "value": e.value} for e in self.evidence],
            "remediation": None
            if self.remediation is None
            else {
                "summary": self.remediation.summary,
                "commands": list(self.remediation.commands),
                "requires_root": self.remediation.requires_root,
            },
            "sources": list(self.sources),
        }


def sort_findings(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-f.severity, AREAS.index(f.area) if f.area in AREAS else 99, f.code))


@dataclass
class Report:
    facts: Any  # gpudoctor.facts.Facts
    findings: list[Finding]
    host_mode: str  # live, recording, replay
    timings_s: dict[str, float] = field(default_factory=dict)
    internal_errors: list[str] = field(default_factory=list)

    def worst(self) -> Severity | None:
        return max((f.severity for f in self.findings), default=None)


def exit_code_for(findings: list[Finding], fail_on: Severity) -> ExitCode:
    return ExitCode.FINDINGS if any(f.severity >= fail_on for f in findings) else ExitCode.OK
