"""The doctor's own limits: probes that failed, so the diagnosis says what it could not see."""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.checks.base import Check, Context, ev
from gpudoctor.cmdline import Cmd
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity
from gpudoctor.probed import Unknown


def _unknowns(facts: Facts) -> list[tuple[str, Unknown]]:
    out = [(name, why) for name, why in facts.failures.items() if why.kind != "timeout"]
    candidates = {
        "kernel driver version": facts.kernel.proc_driver,
        "PCI bus": facts.kernel.pci,
        "ldconfig cache": facts.ldconfig,
        "Python environment": facts.frameworks.python,
        "PyTorch": facts.frameworks.torch,
        "TensorFlow": facts.frameworks.tensorflow,
        "JAX": facts.frameworks.jax,
    }
    if facts.driver.gpus or facts.platform.wsl:
        # The driver lists the GPUs itself, or WSL hides the bus by design: nothing is missing.
        del candidates["PCI bus"]
    if (facts.platform.system or "").lower().startswith("win"):
        # Native Windows has no /proc, sysfs bus or ldconfig: their absence is not a failed probe.
        for linux_only in ("kernel driver version", "PCI bus", "ldconfig cache"):
            candidates.pop(linux_only, None)
    named = {n for n, _ in out}
    for name, outcome in candidates.items():
        if isinstance(outcome, Unknown) and outcome.kind != "timeout" and name not in named:
            out.append((name, outcome))
    if facts.pasted.partial:
        # Partial evidence (pasted text): what was never shown is unknown by design, not a probe that failed.
        out = [(n, w) for n, w in out if w.kind not in ("not-recorded", "failed") or w.source.startswith("python")]
    if facts.driver.nvml_status in ("crash", "binding_missing"):
        out.append(("NVML", Unknown("library-error", facts.driver.nvml_error or facts.driver.nvml_status, "nvml")))
    return out


def check_probe_failed(facts: Facts, ctx: Context) -> Iterable[Finding]:
    failed = _unknowns(facts)
    if not failed:
        return
    names = ", ".join(n for n, _ in failed)
    yield Finding(
        "probe-failed",
        Severity.WARNING,
        "doctor",
        f"gpudoctor could not see: {names}",
        "The diagnosis of these areas may be incomplete. " + "; ".join(f"{n}: {w.kind} ({w.message})" for n, w in failed),
        tuple(ev(w.source or n, f"{w.kind}: {w.message}") for n, w in failed),
        Remediation(
            "Rerun with more rights or a longer time limit if a probe was refused or slow; report a crash with a snapshot.",
            (Cmd(("gpudoctor", "check", "-v", "--debug")), Cmd(("gpudoctor", "snapshot", "-o", "machine.json"))),
            component="doctor",
        ),
    )


CHECKS = (Check("probes", "doctor", ("probe-failed",), check_probe_failed),)
