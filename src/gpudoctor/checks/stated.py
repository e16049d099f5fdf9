"""A program's own statement of the least release of the driver, the CUDA toolkit or cuDNN it needs, on pasted reports.

(The floor may be the CUDA the driver must support, "requires driver version >= 12.0": judged against the driver's
CUDA, the fix NVIDIA's minimum driver for it; and a refusal, "your driver is older than 535", is the program's own
comparison, judged where the paste shows no driver.)

"Please upgrade to CUDA 12.6.3 or newer." (XLA's ptxas warning), "The minimum required Nvidia driver for nvenc is 418.30
or newer" (FFmpeg): the program states the floor, and the paste may show the release installed. Judged only where it
does: every release of that component the paste shows is below the floor (`requirement-unmet`, the requirement the
program stated, nothing wider), met where one is not (FFmpeg prints its driver floor whenever it cannot load the
driver's encoder library, a container without it included: the floor met, the cause is elsewhere), and unknown where
none is shown (the ask decides). The fix is the step the planner offers for that component at that release.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import Check, ev
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.planner.context import Context
from gpudoctor.versions import major_minor, vkey

_NAMES = {
    "driver": "the NVIDIA driver",
    "driver-cuda": "a driver supporting CUDA",
    "cuda": "the CUDA toolkit",
    "cudnn": "cuDNN",
}


def _shown(facts: Facts, component: str) -> tuple[str, ...]:
    """The releases of `component` the facts carry (the paste's nvidia-smi, nvcc, cuDNN header or library)."""
    if component == "driver":
        return (facts.driver.version,) if facts.driver.version else ()
    if component == "driver-cuda":  # the CUDA the driver supports, as nvidia-smi heads it
        return (facts.driver.cuda_version,) if facts.driver.cuda_version else ()
    if component == "cuda":
        from gpudoctor.checks.toolkit import judged_toolkits

        found = [tk.version for tk in judged_toolkits(facts) if tk.version]
        on_path = facts.toolkits.nvcc_on_path_version
        return tuple(dict.fromkeys([*found, *([on_path] if on_path else [])]))
    return tuple(c.version for c in facts.cudnn if c.version)


def _remedy(facts: Facts, ctx: Context, component: str, need: str) -> Remediation:
    """The planner's step for `component` at `need` or newer: the driver branch, the toolkit release, cuDNN's."""
    if component == "driver-cuda":
        # the driver that supports that CUDA: NVIDIA's table of each toolkit's minimum driver (gpudoctor.matrix)
        floor = ctx.matrix.min_driver_for_cuda(need)
        if floor is not None:
            return _remedy(facts, ctx, "driver", floor)
        return Remediation(f"Install an NVIDIA driver that supports CUDA {need} or newer, then reboot.", (), component="driver")
    if component == "driver":
        from gpudoctor.planner.remedy import driver_install_and_reboot
        from gpudoctor.planner.where import where_run

        branch = need.split(".")[0]
        return Remediation(
            f"Install NVIDIA driver {need} or newer (branch {branch} or a later one), then reboot.",
            driver_install_and_reboot(facts, branch, ctx),
            requires_root=True,
            component="driver",
            # the driver is the host's (a container's program runs on the host's module): never inside the image
            where=where_run(facts),
        )
    if component == "cuda":
        from gpudoctor.checks.toolkit import toolkit_install

        mm = major_minor(need) or need
        install = toolkit_install(facts, ctx.matrix, mm)
        return Remediation(
            f"Install CUDA {mm} (its latest update, {need} or newer) and put its bin directory first on PATH for the "
            "program"
            + (f"; {install.says}" if install.says else "")
            + ", or give the program a newer toolkit it ships itself where it has one.",
            install.commands,
            requires_root=bool(install.commands),
            component="toolkit",
        )
    return Remediation(f"Install cuDNN {need} or newer for the program's CUDA major.", (), component="cudnn")


def check_stated_floor(facts: Facts, ctx: Context) -> Iterable[Finding]:
    """A program's own floor for the driver, the CUDA toolkit or cuDNN, below every release of it the paste shows."""
    said = facts.pasted.reported("requirement-stated") if facts.pasted.partial else []
    for e in said:
        component, need = e.get("component") or "", e.get("need") or ""
        shown = _shown(facts, component)
        # a refusal ("your driver is older than 535") is the program's own comparison: judged where nothing is shown
        refused = e.get("refused") == "1" and not shown
        if not need or not (shown or refused) or any(vkey(v) >= vkey(need) for v in shown):
            continue  # nothing shown to judge, or the floor is met: the cause is elsewhere
        name = _NAMES.get(component, component)
        yield Finding(
            "requirement-unmet",
            Severity.ERROR,
            "driver" if component.startswith("driver") else component if component == "cudnn" else "toolkit",
            f"the program requires {name} {need} or newer; "
            + (f"{', '.join(shown)} is what the paste shows" if shown else "it says the one it found is older"),
            f"The program said so itself ({e.line.strip()[:160]}), and "
            + (
                f"the release of {name} the paste shows ({', '.join(shown)}) is older"
                if shown
                else f"it compared the release of {name} it found with that floor itself"
            )
            + ": the program refuses it, or runs with what the older release gets wrong.",
            (ev("pasted", e.line),),
            _remedy(facts, ctx, component, need),
        )
        return  # one floor, one finding: the first the program printed


CHECKS = (Check("stated-floor", "toolkit", ("requirement-unmet",), check_stated_floor, ("pasted",)),)
