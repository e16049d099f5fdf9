"""What every family of catalogued checks reads: the evidence of one kind a pasted report shows.

Only a paste carries catalogued messages (a live machine's facts have none), so a check of a live machine reads nothing.
"""

from __future__ import annotations

from gpudoctor.facts import Facts


def _said(facts: Facts, kind: str) -> list:
    return facts.pasted.reported(kind) if facts.pasted.partial else []
