"""What `gpudoctor fix` can do for a finding, decided without loading the installer.

`applies` is the one rule for the plan's "gpudoctor fix can apply this" and for what `fix` offers
(gpudoctor.install.fix.propose builds the fixes). It lives here, apart from the planner, because every
`gpudoctor check` labels its plan with it: the check loads gpudoctor.install.fix (the installer's
planner, about a tenth of a check's time) only when a finding could be offered a fix at all
(`could_offer`, asked by gpudoctor.pipeline and gpudoctor.install.fix.fix_offers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gpudoctor.model import Finding

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FRAMEWORKS = ("torch", "tensorflow", "jax")
REINSTALL_CODES = (
    "framework-cpu-build",
    "framework-driver-too-old",
    "framework-arch-unsupported",
    "framework-cuda-libs-missing",
    "jax-plugin-mismatch",
    "cudnn-missing",
    "cudnn-too-old",
    "cudnn-cuda-mismatch",
)
# The build is right but broken in place (a --no-deps install, a stray wheel): reinstall the same one.
SWITCH_CODES = ("cuda-link-dangling", "toolkit-newer-than-driver", "toolkit-arch-unsupported", "toolkit-torch-major-mismatch")
# Findings whose fix is an allocator variable (gpu-memory-held, or a finding that sets one the matrix knows).
ENV_CODES = ("gpu-memory-held", "tf-preallocates", "jax-preallocates")


def applies(component: str, codes: Sequence[str], commands: Sequence[Any] = (), where: str = "") -> str | None:
    """The kind of fix `gpudoctor fix` runs for a plan step (or one finding's remediation), or None.

    A framework step (its build reinstalled by the planner), a toolkit step that switches to an
    installed toolkit, a memory step that sets an allocator variable. A system package, a driver, a
    step on the host: no."""
    from gpudoctor.cmdline import Cmd, EvalShell

    if where:
        return None
    if component in FRAMEWORKS and any(c in REINSTALL_CODES for c in codes) and commands:
        return "reinstall"  # (a step without commands is a build fix has no business replacing: an image's own)
    if (
        component == "toolkit"
        and any(c in SWITCH_CODES for c in codes)
        and any(isinstance(c, (Cmd, EvalShell)) and tuple(c.argv[:2]) == ("gpudoctor", "switch-cuda") for c in commands)
    ):
        return "switch-cuda"
    if component == "memory" and any(c in ENV_CODES for c in codes):
        return "env"
    return None


def finding_applies(finding: Finding) -> str | None:
    r = finding.remediation
    return applies(r.component, (finding.code,), r.commands, r.where) if r else None


def could_offer(findings: Iterable[Finding]) -> bool:
    """Whether `fix` could offer anything for these findings: `propose` offers a reinstall or a switch only
    for a finding `finding_applies` labels so, and an allocator variable only for gpu-memory-held or a
    finding whose commands set a variable to a value. False proves there is nothing to offer."""
    from gpudoctor.cmdline import SetEnv

    for f in findings:
        if finding_applies(f) is not None or f.code == "gpu-memory-held":
            return True
        if f.remediation and any(isinstance(c, SetEnv) and c.value is not None for c in f.remediation.commands):
            return True
    return False
