"""What every check is made of: its declaration (`Check`), the context it reads (the planner's) and its evidence."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gpudoctor.facts import Facts
from gpudoctor.model import Evidence, Finding
from gpudoctor.planner.context import Context
from gpudoctor.record import Record, record_class

__all__ = ["PASTED", "Check", "Context", "ev"]

# The tag of a check that judges only what pasted text shows (the facts' `pasted` section): it runs on a partial
# snapshot only (gpudoctor.checks.all_checks).
PASTED = "pasted"


@record_class(frozen=True, eq=False, repr=False)
class Check(Record):
    """One check: its name, area and the finding codes it may report, and the function that judges the facts."""

    name: str
    area: str
    codes: tuple[str, ...]
    run: Callable[[Facts, Context], Iterable[Finding]]
    tags: tuple[str, ...] = ()  # PASTED: it judges pasted text only
    # A check that judges what the others found (pasted-error-unexplained: "no other check explains it") runs after
    # all of them, and is given their findings: `run(facts, ctx, findings)`. It never runs the others itself.
    after_others: bool = False


def ev(source: str, value: object) -> Evidence:
    return Evidence(source, str(value))
