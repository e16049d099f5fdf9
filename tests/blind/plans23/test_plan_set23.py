"""The twenty-third blind plan set is whole before anyone runs gpudoctor on it (tests/blind/plans23). The checks are
the sets' shared ones (tests/blind/setcheck.py's WholeSet: every case has its paste and an expectation written
before the run, plans the way its evidence says, comes from a thread no other file under tests/ names, every
pin it claims a dry run for is recorded); this file holds the set's own ranges and thresholds (the collectors
together: 42 cases, 9 fine, 11 ask, 18 broken, 8 on Windows or WSL 2, 7 in containers or clusters)."""

from __future__ import annotations

from pathlib import Path

from tests.blind import setcheck


class TestSet23(setcheck.WholeSet):
    here = Path(__file__).resolve().parent
    ranges = {
        "A (h305, frameworks and NVIDIA)": (2301, 2329, 22),
        "B (h306, application projects)": (2331, 2359, 20),
        "C (h307, the stack's everyday messages, first unused thread)": (
            2361,
            2389,
            9,
        ),  # 12 before collection: the pre-registered queries gave 9 (README),
    }
    least_cases = 42
    least_evidence = {"fine": 9, "ask": 11, "broken": 18}
    least_windows_or_wsl = 8
    least_container_or_cluster = 7
