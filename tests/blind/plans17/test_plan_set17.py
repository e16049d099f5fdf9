"""The seventeenth blind plan set is whole before anyone runs gpudoctor on it (tests/blind/plans17). The checks are
the sets' shared ones (tests/blind/setcheck.py's WholeSet: every case has its paste and an expectation written
before the run, plans the way its evidence says, comes from a thread no other file under tests/ names, every
pin it claims a dry run for is recorded); this file holds the set's own ranges and thresholds (both collectors
together: 43 cases, 9 fine, 11 ask, 19 broken, 9 on Windows or WSL 2, 7 in containers or clusters)."""

from __future__ import annotations

from pathlib import Path

from tests.blind import setcheck


class TestSet17(setcheck.WholeSet):
    here = Path(__file__).resolve().parent
    ranges = {"A (h236, frameworks and NVIDIA)": (1701, 1729, 23), "B (h237, application projects)": (1731, 1759, 20)}
    least_cases = 43
    least_evidence = {"fine": 9, "ask": 11, "broken": 19}
    least_windows_or_wsl = 9
    least_container_or_cluster = 7
