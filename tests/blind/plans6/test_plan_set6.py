"""The sixth blind plan set is whole before anyone runs gpudoctor on it (tests/blind/plans6). The checks are the
sets' shared ones (tests/blind/setcheck.py's WholeSet: every case has its paste and an expectation written
before the run, plans the way its evidence says, comes from a thread no other file under tests/ names, every
pin it claims a dry run for is recorded); this file holds the set's own ranges and thresholds."""

from __future__ import annotations

from pathlib import Path

from tests.blind import setcheck


class TestSet6(setcheck.WholeSet):
    here = Path(__file__).resolve().parent
    ranges = {"A (h85, frameworks and NVIDIA)": (501, 529, 22), "B (h86, application projects)": (531, 559, 18)}
