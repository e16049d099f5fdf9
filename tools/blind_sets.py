"""Which blind sets the measuring tools may read: one answer for every tool in tools/.

A blind set is read by nothing that changes gpudoctor while it is being collected and first run (issues 27/28:
only a first run on reports no rule was built from is evidence of generality). When a set's first run is recorded
it opens and OPEN grows by one; BLIND names the set being collected now, which no tool lists or reads.
"""

from __future__ import annotations

# The open sets, tests/blind/plans3 .. plans23 (plans2 predates expect.toml's `evidence` field).
OPEN = tuple(f"plans{n}" for n in range(3, 24))

# The set being collected this session: never read by a tool.
BLIND = "plans24"
