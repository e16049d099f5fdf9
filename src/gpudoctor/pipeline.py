"""`gpudoctor check` from a host to its result: probes -> facts -> checks -> the plan, computed once."""

from __future__ import annotations


def fix_offers(report) -> dict[str, str]:
    """finding code -> the kind of fix `gpudoctor fix` offers for it (gpudoctor.install.fix.offered), judged
    with the matrix the report's findings were judged with."""
    from gpudoctor.planner.offers import could_offer

    if not could_offer(report.findings):
        return {}
    from gpudoctor.checks import Context
    from gpudoctor.install.fix import offered

    return offered(report.facts, report.findings, Context(report.matrix_path))
