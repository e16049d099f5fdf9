"""Run a plan's steps and prove the result: the one place `install` and `fix` change a Python environment.

Each step is an argument list run without a shell; its output (stdout and stderr merged, in order)
is streamed as it comes. The steps stop at the first that fails. Afterwards the machine is probed
again with --deep, which imports the framework in a subprocess of the target interpreter: only an
import shows whether the GPU is really usable.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass, replace
from typing import IO, Sequence

from gpudoctor.checks import Context
from gpudoctor.errors import GpudoctorError
from gpudoctor.facts import Facts
from gpudoctor.host import Host
from gpudoctor.install.model import Plan, Step
from gpudoctor.model import Finding, Severity
from gpudoctor.probed import value_or_none
from gpudoctor.probes import ProbeOptions, run_probes


@dataclass(frozen=True)
class Ran:
    argv: tuple[str, ...]
    rc: int


def run_step(argv: Sequence[str], out: IO[str]) -> int:
    out.write("$ " + shlex.join(argv) + "\n")
    out.flush()
    try:
        # stdin closed and PIP_NO_INPUT: nothing may wait for an answer nobody is asked for.
        proc = subprocess.Popen(
            list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env={**os.environ, "PIP_NO_INPUT": "1"},
        )
    except OSError as exc:
        raise GpudoctorError(f"cannot run {argv[0]}: {exc.strerror or exc}", "check the interpreter or installer path (--python, --use)") from None
    assert proc.stdout is not None
    try:
        for line in iter(proc.stdout.readline, b""):
            out.write(line.decode("utf-8", "replace"))
            out.flush()
        return proc.wait()
    except BaseException:
        # Ctrl-C reached the child too (same process group); do not leave it running behind us.
        proc.terminate()
        proc.wait()
        raise


def run_steps(steps: Sequence[Step], out: IO[str]) -> list[Ran]:
    ran = []
    for step in steps:
        rc = run_step(step.argv, out)
        ran.append(Ran(step.argv, rc))
        if rc != 0:
            break
    return ran


@dataclass(frozen=True)
class Verification:
    framework: str
    installed: str | None  # the framework version the re-probe found
    matches: bool  # it is the planned build
    usable: bool | None  # the import in a subprocess reached the GPU (None: no reply)
    summary: str
    findings: tuple[Finding, ...]  # warnings and errors of the re-check
    facts: Facts

    def to_json(self) -> dict:
        return {
            "framework": self.framework,
            "installed": self.installed,
            "matches_plan": self.matches,
            "gpu_usable": self.usable,
            "summary": self.summary,
            "findings": [f.to_json() for f in self.findings],
        }


def _installed_version(facts: Facts, framework: str) -> str | None:
    value = value_or_none(getattr(facts.frameworks, framework))
    if value is None:
        return None
    return value.jax if framework == "jax" else value.version


def _usable(framework: str, reply: dict) -> tuple[bool | None, str]:
    if not reply:
        return None, "the import was not tried"
    if reply.get("error"):
        return False, f"importing it failed: {reply['error']}"
    n = reply.get("device_count", 0)
    if framework == "torch":
        ok = bool(reply.get("available")) and reply.get("kernel_ok", False)
        ran = ", a kernel ran on the GPU" if reply.get("kernel_ok") else ""
        return ok, f"torch.cuda.is_available() is {reply.get('available')}, {n} device(s){ran}"
    if framework == "tensorflow":
        return bool(reply.get("available")), f"tf.config.list_physical_devices('GPU') lists {n} GPU(s)"
    return bool(reply.get("available")), f"jax.default_backend() is {reply.get('backend')!r}, {n} GPU device(s)"


def verify(plan: Plan, host: Host, options: ProbeOptions, ctx: Context) -> Verification:
    """Probe again, importing the framework in a subprocess of the target interpreter, and judge."""
    from gpudoctor.checks import run_checks
    from gpudoctor.install.machine import machine_from_facts
    from gpudoctor.install.plan import PICKERS

    facts = run_probes(host, replace(options, deep=True, python=plan.machine.env.python or options.python))
    findings, _ = run_checks(facts, ctx=ctx)
    fw = plan.framework
    value = value_or_none(getattr(facts.frameworks, fw))
    matches = plan.chosen is not None and value is not None and PICKERS[fw].installed_matches(
        machine_from_facts(facts, ctx, plan.machine.env), value, plan.chosen.build
    )
    usable, summary = _usable(fw, facts.frameworks.deep.get(fw) or {})
    worth = tuple(f for f in findings if f.severity >= Severity.WARNING)
    return Verification(fw, _installed_version(facts, fw), matches, usable, summary, worth, facts)


def render_verification(plan: Plan, v: Verification) -> str:
    lines = []
    planned = plan.chosen.build.label if plan.chosen else "?"
    if v.installed is None:
        lines.append(f"after the install the probe finds no {plan.title} in {plan.machine.env.python}")
    else:
        same = "as planned" if v.matches else f"NOT the planned {planned}"
        lines.append(f"installed: {plan.title} {v.installed} ({same})")
    if v.usable:
        lines.append(f"the GPU is usable: {v.summary}")
    else:
        lines.append(f"the GPU is NOT usable through {plan.title}: {v.summary}")
    if v.findings and not v.usable:
        lines.append("what the check finds now:")
        lines += [f"  {f.severity.label} {f.code}: {f.title}" for f in v.findings]
        lines.append("  (gpudoctor check --deep says more; gpudoctor fix offers the automatic fixes)")
    return "\n".join(lines) + "\n"
