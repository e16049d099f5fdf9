"""The ninth blind plan set is whole before anyone runs gpudoctor on it (tests/blind/plans9). The checks are the
sets' shared ones (tests/blind/setcheck.py's WholeSet: every case has its paste and an expectation written
before the run, plans the way its evidence says, comes from a thread no other file under tests/ names, every
pin it claims a dry run for is recorded); this file holds the set's own ranges and thresholds."""

from __future__ import annotations

from pathlib import Path

from tests.blind import setcheck


class TestSet9(setcheck.WholeSet):
    here = Path(__file__).resolve().parent
    ranges = {"A (h123, frameworks and NVIDIA)": (901, 929, 22), "B (h124, application projects)": (931, 959, 18)}
