"""The checks: pure functions of (Facts, Context) that yield findings, in a fixed order.

A check never receives a Host, so it cannot do I/O. A check that raises
becomes an `internal-check-error` finding naming it; every other check still
runs. The registry is an explicit tuple: no discovery by reflection.
"""

from __future__ import annotations

from gpudoctor.checks.base import PASTED, Check, Context, ev
from gpudoctor.facts import Facts
from gpudoctor.model import Finding, Remediation, Severity

__all__ = ["Check", "Context", "all_checks", "check_codes", "ev", "run_checks"]


def all_checks(pasted: bool = True) -> tuple[Check, ...]:
    """Every check, in the order the findings follow. `pasted=False`: those a whole machine's facts can move only
    (a live machine, a recorded snapshot). A check tagged "pasted" judges what only pasted text shows (the facts'
    `pasted` section, which a whole machine's facts leave empty), so on a whole machine it finds nothing; its
    modules, a sixth of what a bare check imported, are not imported for one (bench/README.md, h226)."""
    from gpudoctor.checks import (
        cudnn,
        doctor,
        driver,
        extensions,
        frameworks,
        health,
        libraries,
        memory,
        platform,
        process,
        toolkit,
        windows,
    )

    read: tuple[Check, ...] = ()
    if pasted:
        # Every check of these modules is tagged "pasted" (tests/unit/test_checks.py holds the two together).
        from gpudoctor.checks import catalogued, installers, reported, stated, workloads

        read = (
            *workloads.CHECKS,  # a compose service or pod given no GPU, from its pasted spec or log
            *reported.CHECKS,  # error texts of pasted reports, where the checks above could not judge (docs/pasted.md)
            *catalogued.CHECKS,  # messages only the catalogue reads (gpudoctor/parsers/catalogue.toml)
            *installers.CHECKS,  # the installers' messages: no wheel for this Python, PEP 668 (pasted)
            *stated.CHECKS,  # a program's own floor for the driver, the CUDA toolkit or cuDNN, below what the paste shows
        )
    every = (
        *driver.CHECKS,
        *windows.CHECKS,
        *platform.CHECKS,
        *toolkit.CHECKS,
        *cudnn.CHECKS,
        *frameworks.CHECKS,
        *extensions.CHECKS,  # torch's companions and extensions, NCCL
        *process.CHECKS,  # check --pid: a running job's libraries
        *health.CHECKS,
        *memory.CHECKS,
        *read,
        *libraries.CHECKS,  # libraries tied to one CUDA/cuDNN major (onnxruntime-gpu, CTranslate2, CuPy), pasted
        *doctor.CHECKS,
    )
    return every if pasted else tuple(c for c in every if PASTED not in c.tags)


def check_codes() -> tuple[str, ...]:
    """The codes `gpudoctor check` can emit from its checks (plus the crash code)."""
    codes: list[str] = ["internal-check-error"]
    for check in all_checks():
        codes += [c for c in check.codes if c not in codes]
    return tuple(codes)


def run_checks(facts: Facts, matrix_path: str | None = None, ctx: Context | None = None) -> tuple[list[Finding], list[str]]:
    from gpudoctor.cmdline import Cmd
    from gpudoctor.errors import MatrixError

    ctx = ctx or Context(matrix_path)
    findings: list[Finding] = []
    internal: list[str] = []
    checks = all_checks(pasted=facts.pasted.partial)
    # The checks that judge the others' findings run last (gpudoctor.checks.base.Check.after_others).
    for check in [c for c in checks if not c.after_others] + [c for c in checks if c.after_others]:
        try:
            produced = list(check.run(facts, ctx, tuple(findings)) if check.after_others else check.run(facts, ctx))  # type: ignore[call-arg]
            undeclared = [f.code for f in produced if f.code not in check.codes]
            if undeclared:
                raise ValueError(f"emitted undeclared codes {undeclared}")
        except MatrixError:
            raise  # an invalid matrix is the doctor's failure, not a finding about the machine
        except Exception as exc:  # noqa: BLE001 - crash isolation, as the docstring says
            internal.append(f"{check.name}: {type(exc).__name__}: {exc}")
            findings.append(
                Finding(
                    "internal-check-error",
                    Severity.WARNING,
                    "doctor",
                    f"the {check.name} check crashed; its area was not judged",
                    f"{type(exc).__name__}: {exc}",
                    remediation=Remediation(
                        "Please report this with a snapshot of this machine.",
                        (Cmd(("gpudoctor", "snapshot", "-o", "machine.json")),),
                        component="doctor",
                    ),
                )
            )
            continue
        findings.extend(produced)
    from gpudoctor.planner.cluster import cluster_node, for_cluster_user

    if cluster_node(facts):
        # A cluster's user has no root: one policy for every remediation (gpudoctor.planner.cluster).
        findings = [for_cluster_user(facts, f) for f in findings]
    return findings, internal
