"""Write tests/real/RESULTS.md from the cases and the doctor's answers: python -m tests.real.results

One line per case (the report, the cause from the thread, and whether the printed plan would have fixed
it, by tests/real/test_real.py's judgement), then the figure. Run it after a change to the planner and
commit the file with the change, so the figure in the file is the figure the tests measure.
"""

from __future__ import annotations

import datetime

from tests.real.test_real import CASES, HERE, _load, judge

HEADER = """# Real reports: results of the last run

Each line: case, report, cause (from the thread), and whether the plan gpudoctor printed on the case's
snapshot would have fixed the real problem (tests/real/test_real.py's judgement: the findings named in
the case, the plan's text including and excluding what the thread says). Snapshots and expectations were
written from the threads before running gpudoctor; each case.toml says what was filled in beyond the
paste (`snapshot_note`) and, for a known miss, why (`miss`). Written by `python -m tests.real.results`.
"""


def main() -> None:
    lines = [HEADER]
    misses = []
    for slug in CASES:
        case = _load(slug)
        wrong = judge(slug)
        verdict = "**fits**" if not wrong else "**MISS**: " + "; ".join(wrong)
        if wrong:
            misses.append(slug)
            if case.get("expect", {}).get("miss"):
                verdict += f". {case['expect']['miss']}"
        lines.append(f"- `{slug}` {case['url']} cause: {case['cause']} {verdict}")
    fits = len(CASES) - len(misses)
    lines.append("")
    lines.append(
        f"Figure ({datetime.date.today().isoformat()}): the plan fits {fits} of {len(CASES)} cases "
        f"({100 * fits / len(CASES):.0f}%)" + (f"; misses: {', '.join(misses)}." if misses else ".")
    )
    (HERE / "RESULTS.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
