"""Write tests/pasted/RESULTS.md from the cases and the doctor's answers: python -m tests.pasted.results

One line per case (the report, the cause from the thread, the verdict by tests/pasted/test_pasted.py's
judgement), then the figure: reports diagnosed right, false alarms (on the fine cases and `absent` codes
anywhere) and misses. Run it after a change to the engine and commit the file with the change.
"""

from __future__ import annotations

import datetime

from tests.pasted.test_pasted import CASES, HERE, judge, load

HEADER = """# Pasted reports: results of the last run

Each line: case, report, cause (from the thread), and whether `gpudoctor check --from report.txt`
matched the thread (tests/pasted/test_pasted.py's judgement: the codes that must appear, the codes that
must not, what to ask the reporter for, and no warning on an environment the thread found fine).
Expectations were written from the threads before gpudoctor ran on them. Written by
`python -m tests.pasted.results`.
"""


def main() -> None:
    lines = [HEADER]
    right = fine_total = fine_alarms = alarms = 0
    misses: list[str] = []
    for slug in CASES:
        case = load(slug)
        v = judge(slug)
        fine = bool(case.get("fine"))
        fine_total += fine
        if v.false_alarms:
            alarms += 1
            fine_alarms += fine
        if v.right:
            right += 1
            verdict = "**right**"
        else:
            misses.append(slug)
            verdict = "**WRONG**: " + "; ".join(v.wrong())
            if case.get("expect", {}).get("miss"):
                verdict += f" (known miss: {case['expect']['miss']})"
        kind = "fine" if fine else ", ".join(case.get("expect", {}).get("codes", [])) or "-"
        lines.append(f"- `{slug}` [{case.get('platform', '?')}; {kind}] {case['url']} cause: {case['cause']} {verdict}")
    total = len(CASES)
    platforms: dict[str, int] = {}
    for slug in CASES:
        platform = load(slug).get("platform", "?")
        platforms[platform] = platforms.get(platform, 0) + 1
    lines.append("")
    lines.append("Reports by platform: " + ", ".join(f"{k} {v}" for k, v in sorted(platforms.items())) + ".")
    lines.append("")
    lines.append(
        f"Figure ({datetime.date.today().isoformat()}): {right} of {total} reports diagnosed right "
        f"({100 * right / max(total, 1):.0f}%); false alarms on {fine_alarms} of {fine_total} fine reports "
        f"and on {alarms} report(s) in all; misses: {len(misses)}" + (f" ({', '.join(misses)})." if misses else ".")
    )
    (HERE / "RESULTS.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(lines[-1])


if __name__ == "__main__":
    main()
