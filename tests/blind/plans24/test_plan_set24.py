"""The twenty-fourth blind plan set is whole before anyone runs gpudoctor on it (tests/blind/plans24). The checks are
the sets' shared ones (tests/blind/setcheck.py's WholeSet: every case has its paste and an expectation written
before the run, plans the way its evidence says, comes from a thread no other file under tests/ names, every
pin it claims a dry run for is recorded); this file holds the set's own ranges and thresholds (the collectors
together: 42 cases, 9 fine, 11 ask, 18 broken, 8 on Windows or WSL 2, 7 in containers or clusters)."""

from __future__ import annotations

from pathlib import Path

from tests.blind import setcheck


class TestSet24(setcheck.WholeSet):
    here = Path(__file__).resolve().parent
    ranges = {
        "A (h315, frameworks and NVIDIA)": (2401, 2429, 22),
        "B (h316, application projects)": (2431, 2459, 20),
        "C (h317, the stack's everyday messages, first unused thread)": (2461, 2489, 7),  # 8 before collection: 7 usable (README)
    }
    least_cases = 42
    least_evidence = {"fine": 9, "ask": 11, "broken": 18}
    least_windows_or_wsl = 8
    least_container_or_cluster = 7
