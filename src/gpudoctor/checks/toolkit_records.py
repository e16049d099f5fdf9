"""The toolkit step's records: switch to or install a CUDA toolkit (ToolkitFix, ToolkitInstall), or move PyTorch to
nvcc's CUDA major (TorchSide). Decided in gpudoctor.checks.toolkit; here apart because a check builds them only where
it plans a toolkit step, and every check imports that module (each frozen dataclass costs a bare check about 1 ms of
CPU to create: bench/README.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpudoctor.checks.wheel_majors import old_wheels_said
from gpudoctor.cmdline import Line
from gpudoctor.facts import Toolkit  # (for the annotations only; facts is imported by every check anyway)
from gpudoctor.model import Remediation
from gpudoctor.versions import major


@dataclass(frozen=True)
class ToolkitFix:
    """The toolkit step of the plan: switch to an installed toolkit, or install one and then switch."""

    version: str | None  # what switch-cuda is given (12.5), or the version to install (12.1); None: nothing fits
    target: Toolkit | None  # the installed toolkit, when one qualifies
    commands: tuple[Line, ...]
    requires_root: bool
    why: str = ""  # what made it the choice
    install: ToolkitInstall | None = None  # how the version gets installed, when none is installed
    unchosen: bool = False  # no version: nothing that chooses one (PyTorch's CUDA, the driver) is known

    @property
    def moves(self) -> bool:
        """Whether this side has a move: an installed toolkit, or a version NVIDIA's repository for this
        release is not known to lack (where it lacks it, only the runfile or conda is left)."""
        if self.target is not None:
            return True
        return self.version is not None and not (self.install is not None and self.install.packaged is False)

    @property
    def installs(self) -> bool:
        return self.target is None and self.version is not None

    def says(self) -> str:
        """One sentence for a remediation's summary."""
        if self.target is not None:
            return f"Use CUDA {self.version} ({self.target.root}): {self.why}."
        if self.version is not None:
            said = f"Install CUDA {self.version}, then use it: no installed toolkit is {self.why}."
            return f"{said} {self.install.says}" if self.install is not None and self.install.says else said
        if self.unchosen:
            # (not "none fits": no rule was checked; plans7 637's reviewer, on a paste showing neither)
            return (
                "Which CUDA release to install is not chosen here: the text shows neither PyTorch's CUDA (an extension "
                "builds with a toolkit of its major) nor the driver."
            )
        return "No CUDA version fits PyTorch's CUDA major, this driver and every GPU here: change the PyTorch build or the driver first."

    def remediation(self, lead: str = "") -> Remediation:
        summary = f"{lead} {self.says()}".strip()
        return Remediation(summary, self.commands, requires_root=self.requires_root, component="toolkit")


@dataclass(frozen=True)
class ToolkitInstall:
    """How CUDA `version` (major.minor) gets installed here: NVIDIA's package (after its repository's
    set-up step where the repository is known), or, where NVIDIA's repository for this release lacks
    it, no commands and a summary of what to do instead."""

    version: str
    commands: tuple[Line, ...]  # empty: no package to install on this system
    packaged: bool | None  # whether the repository for this release has it; None: not known
    says: str = ""  # a caveat (check the repository) or what to do instead, for a summary


@dataclass(frozen=True)
class TorchSide:
    """A PyTorch build whose CUDA extensions this nvcc builds, as plan_install plans it."""

    plan: Any  # gpudoctor.planner.model.Plan; it fits
    nvcc: str  # the nvcc version it was chosen for (major.minor)
    same_release: bool  # only the CUDA variant of the installed release changes
    driver_note: str = ""  # no driver was seen: the driver the build needs
    old_wheels: tuple[Any, ...] = ()  # a move across CUDA majors: the old major's wheels removed after (frameworks)
    old_major: str = ""

    def remediation(self) -> Remediation:
        from gpudoctor.planner.render import as_cmd, companions_said  # local: gpudoctor.install imports the checks

        plan = self.plan
        build = plan.chosen.build
        change = plan.change
        move = "; ".join((change.text, *change.major)) if change is not None else f"install {build.label}"
        why = (
            f"the same release, built for CUDA {build.cuda}"
            if self.same_release
            else f"the nearest release with a CUDA {major(self.nvcc)} build no newer than {self.nvcc} for this Python"
        )
        said = f"Move PyTorch to nvcc's CUDA major ({self.nvcc}): {build.label}, {why}: {move}."
        if self.driver_note:
            said += f" {self.driver_note[0].upper()}{self.driver_note[1:]}."
        if self.old_major:
            said += " " + old_wheels_said(self.old_major)
        said += companions_said(plan)
        steps = tuple(as_cmd(s.argv) for s in plan.steps)
        return Remediation(said, (*steps, *self.old_wheels, *plan.after), component="torch")
