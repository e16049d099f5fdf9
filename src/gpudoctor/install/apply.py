"""Run a plan's steps and prove the result: the one place `install` and `fix` change a Python environment.

Each step is an argument list run without a shell; its output (stdout and stderr merged, in order)
is streamed as it comes. The steps stop at the first that fails. Nothing lost: pip (and uv) fetch
everything before they change anything, and pip rolls a failed install back itself
(gpudoctor.planner.commands), so an unreachable or broken index fails with the environment
untouched; when a step fails after the environment changed (a removal went first),
`run_plan` puts the previous build back (the undo command) and re-reads the environment to show it
is back. Afterwards the machine is probed again with --deep, which imports the framework in a
subprocess of the target interpreter: only an import shows whether the GPU is really usable.

As root, nothing runs from an environment that someone else can write (gpudoctor.trust).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import IO

from gpudoctor.checks import Context
from gpudoctor.cmdline import argv_text
from gpudoctor.errors import GpudoctorError, UnsafeOperation
from gpudoctor.facts import Facts
from gpudoctor.host import Host
from gpudoctor.model import Finding, Severity
from gpudoctor.planner import commands
from gpudoctor.planner.model import Plan, Step
from gpudoctor.probed import value_or_none
from gpudoctor.probes import ProbeOptions, run_probes


@dataclass(frozen=True)
class Ran:
    argv: tuple[str, ...]
    rc: int


_PIECE = 64 * 1024  # bytes read at most at once from an installer's output


def run_step(argv: Sequence[str], out: IO[str]) -> int:
    out.write("$ " + argv_text(argv) + "\n")
    out.flush()
    try:
        # stdin closed and PIP_NO_INPUT: nothing may wait for an answer nobody is asked for.
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PIP_NO_INPUT": "1"},
        )
    except OSError as exc:
        raise GpudoctorError(
            f"cannot run {argv[0]}: {exc.strerror or exc}", "check the interpreter or installer path (--python, --use)"
        ) from None
    assert proc.stdout is not None
    stdout = proc.stdout
    try:
        # Streamed, never collected: pip may print for an hour, and a line without an end is read in pieces.
        for line in iter(lambda: stdout.readline(_PIECE), b""):
            out.write(line.decode("utf-8", "replace"))
            out.flush()
        return proc.wait()
    except BaseException:
        # Ctrl-C reached the child too (same process group); do not leave it running behind us.
        proc.terminate()
        proc.wait()
        raise


def run_steps(steps: Sequence[Step], out: IO[str]) -> list[Ran]:
    """The steps as they are, stopping at the first that fails (no download directory, no way back)."""
    ran = []
    for step in steps:
        rc = run_step(step.argv, out)
        ran.append(Ran(step.argv, rc))
        if rc != 0:
            break
    return ran


# --- nothing lost ------------------------------------------------------------------------------


def refuse_untrusted(plan: Plan) -> None:
    """As root, never run an interpreter or installer that a non-root user could have replaced."""
    from gpudoctor.trust import refuse_to_run

    for program in dict.fromkeys(
        p for p in (plan.machine.env.python, plan.machine.env.uv if plan.installer == "uv" else None) if p
    ):
        why = refuse_to_run(program)
        if why:
            raise UnsafeOperation(
                f"not running {program} as root: {why}",
                "run gpudoctor as the user who owns that environment (it needs no root to install into it)",
            )


def undo_argv(plan: Plan) -> tuple[str, ...] | None:
    """The argv of the plan's undo line (built by gpudoctor.planner.commands, rendered as one POSIX line)."""
    if not plan.undo:
        return None
    return plan.undo[0].words  # a gpudoctor.cmdline.Cmd: its argv as data


def expected_back(plan: Plan) -> dict[str, str]:
    """name -> version that must be installed again after a restore: the `name==version` pins of the undo line."""
    out = {}
    for a in undo_argv(plan) or ():
        name, sep, version = a.partition("==")
        if sep and not a.startswith("-"):
            out[commands.canonical(name)] = version
    return out


@dataclass
class Restore:
    argv: tuple[str, ...] | None
    rc: int | None
    back: bool  # the re-read environment holds every distribution of before, at its version
    missing: dict[str, str | None] = field(default_factory=dict)  # name -> what is installed now instead

    def render(self) -> str:
        if self.argv is None:
            return "nothing was installed before, so there is nothing to put back\n"
        if self.back:
            return "the previous build is back (checked by reading the environment again)\n"
        what = ", ".join(f"{n} {'missing' if v is None else v}" for n, v in self.missing.items())
        return f"the previous build is NOT back ({what}); to put it back by hand: {argv_text(self.argv)}\n"


@dataclass
class Outcome:
    ran: list[Ran]
    changed: bool  # a step that changes the environment ran
    restore: Restore | None = None

    @property
    def ok(self) -> bool:
        return bool(self.ran) and self.ran[-1].rc == 0


def run_plan(
    plan: Plan,
    out: IO[str],
    installed_now: Callable[[], Mapping[str, str]],
    *,
    runner: Callable[[Sequence[str], IO[str]], int] = run_step,
) -> Outcome:
    """Run the plan's steps; when one fails after the environment changed, put the previous build back and check it.

    `installed_now` re-reads the target environment: canonical distribution name -> version.
    """
    refuse_untrusted(plan)
    ran: list[Ran] = []
    changed = False
    for step in plan.steps:
        rc = runner(step.argv, out)
        ran.append(Ran(step.argv, rc))
        if not isinstance(step, commands.Download):
            changed = True
        if rc != 0:
            break
    if ran and ran[-1].rc != 0 and changed:
        if _as_before(plan, installed_now):
            # pip stopped before it changed anything (an index it could not use), or rolled its own install back.
            return Outcome(ran, False)
        return Outcome(ran, changed, restore_previous(plan, out, installed_now, runner))
    return Outcome(ran, changed)


def _as_before(plan: Plan, installed_now: Callable[[], Mapping[str, str]]) -> bool:
    """Every distribution of before is installed at its version (read again): nothing to put back."""
    before = expected_back(plan)
    if not before:
        return False
    now = {commands.canonical(n): v for n, v in installed_now().items()}
    return all(now.get(n) == v for n, v in before.items())


def restore_previous(
    plan: Plan,
    out: IO[str],
    installed_now: Callable[[], Mapping[str, str]],
    runner: Callable[[Sequence[str], IO[str]], int] = run_step,
) -> Restore:
    argv = undo_argv(plan)
    if argv is None:
        return Restore(None, None, True)
    out.write("putting the previous build back:\n")
    rc = runner(argv, out)
    now = installed_now()
    missing = {n: now.get(n) for n, v in expected_back(plan).items() if now.get(n) != v}
    restore = Restore(argv, rc, not missing, missing)
    out.write(restore.render())
    return restore


def env_reader(host: Host, python: str | None, timeout_s: float) -> Callable[[], dict[str, str]]:
    """`installed_now` for run_plan: the target interpreter's distributions, read again (gpudoctor.host.pyenv)."""

    def read() -> dict[str, str]:
        try:
            env = host.python_env(python, timeout_s)
        except Exception:  # noqa: BLE001 - an unreadable environment reads as holding nothing; the message says what is missing
            return {}
        return dict(env.distributions) if env else {}

    return read


def failure_message(plan: Plan, outcome: Outcome) -> str:
    """One line on what failed and in what state the environment is, for install and fix."""
    last = outcome.ran[-1]
    what = f"the command failed (exit status {last.rc})"
    if not outcome.changed:
        return f"{what}; nothing in the environment was changed"
    r = outcome.restore
    if r is None or r.argv is None:
        return f"{what}; nothing after it was run"
    if r.back:
        return f"{what}; the previous build was put back and is installed again"
    return f"{what}; putting the previous build back did not work: " + argv_text(r.argv)


@dataclass(frozen=True)
class Verification:
    framework: str
    installed: str | None  # the framework version the re-probe found
    matches: bool  # it is the planned build
    usable: bool | None  # the import in a subprocess reached the GPU, or imported a CPU-only build (None: no reply)
    summary: str
    findings: tuple[Finding, ...]  # warnings and errors of the re-check
    facts: Facts
    cpu: bool = False  # a CPU-only build was planned (--cpu): the import is the proof, the GPU is not its business

    def to_json(self) -> dict:
        return {
            "framework": self.framework,
            "installed": self.installed,
            "matches_plan": self.matches,
            # A CPU-only build does not use the GPU: null, not false (the summary says whether it imports).
            "gpu_usable": None if self.cpu else self.usable,
            "summary": self.summary,
            "findings": [f.to_json() for f in self.findings],
        }


def _installed_version(facts: Facts, framework: str) -> str | None:
    value = value_or_none(getattr(facts.frameworks, framework))
    if value is None:
        return None
    return value.jax if framework == "jax" else value.version


def _usable(framework: str, reply: dict, cpu: bool = False) -> tuple[bool | None, str]:
    if not reply:
        return None, "the import was not tried"
    if reply.get("error"):
        return False, f"importing it failed: {reply['error']}"
    if cpu:
        # A CPU-only build is working when it imports; it is not expected to see a GPU.
        return True, "the CPU-only build imports (it does not use the GPU, as asked with --cpu)"
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
    from gpudoctor.planner.machine import machine_from_facts
    from gpudoctor.planner.plan import PICKERS

    facts = run_probes(host, replace(options, deep=True, python=plan.machine.env.python or options.python))
    findings, _ = run_checks(facts, ctx=ctx)
    fw = plan.framework
    value = value_or_none(getattr(facts.frameworks, fw))
    cpu = plan.machine.cpu
    # The same question the plan asked before installing (install.plan): a CPU build has no CUDA to match.
    same = PICKERS[fw].cpu_installed if cpu else PICKERS[fw].installed_matches
    matches = (
        plan.chosen is not None
        and value is not None
        and same(machine_from_facts(facts, ctx, plan.machine.env), value, plan.chosen.build)
    )
    usable, summary = _usable(fw, facts.frameworks.deep.get(fw) or {}, cpu)
    worth = tuple(f for f in findings if f.severity >= Severity.WARNING)
    return Verification(fw, _installed_version(facts, fw), matches, usable, summary, worth, facts, cpu)


def render_verification(plan: Plan, v: Verification) -> str:
    lines = []
    planned = plan.chosen.build.label if plan.chosen else "?"
    if v.installed is None:
        lines.append(f"after the install the probe finds no {plan.title} in {plan.machine.env.python}")
    else:
        same = "as planned" if v.matches else f"NOT the planned {planned}"
        lines.append(f"installed: {plan.title} {v.installed} ({same})")
    if v.usable and v.cpu:
        lines.append(f"usable: {v.summary}")
    elif v.usable:
        lines.append(f"the GPU is usable: {v.summary}")
    elif v.cpu:
        lines.append(f"the CPU-only {plan.title} is NOT usable: {v.summary}")
    else:
        lines.append(f"the GPU is NOT usable through {plan.title}: {v.summary}")
    if v.findings and not v.usable:
        lines.append("what the check finds now:")
        lines += [f"  {f.severity.label} {f.code}: {f.title}" for f in v.findings]
        lines.append("  (gpudoctor check --deep says more; gpudoctor fix offers the automatic fixes)")
    return "\n".join(lines) + "\n"
