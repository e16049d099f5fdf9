"""Write a blind plan set's RESULTS.md from its cases and verdicts: python -m tests.blind.plans.results [FOLDER] [--after]

FOLDER defaults to tests/blind/plans; the second set (tests/blind/plans2) uses the same layout. `--run NAME`
tabulates another run's verdicts (the `[NAME."<case>"]` tables, the run tools/blind_run.py --after NAME wrote:
`baseline`, the code before a session's fixes) into RESULTS-NAME.md.

The verdicts (verdicts.toml) are a person's judgement of each printed plan against the expectation
written from the thread (expect.toml) before gpudoctor ran; this script only tabulates them.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the tomli backport (a dependency with a marker)
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
KIND_NAMES = {
    "1": "root system packages for a pip framework",
    "2": "steps that undo or contradict each other",
    "3": "commands that cannot succeed",
    "4": "the framework moved alone",
    "5": "the wrong choice when facts are missing",
    "6": "costly generic steps before the cheap fix",
    "7": "a reboot without the change it needs",
    "8": "the wrong interpreter, shell or platform",
    "9": "no command where one is possible",
    "10": "commands people would not type (pip download / --no-index)",
    "missed": "not in the ten: no finding on a broken machine, so no plan at all",
    "false-finding": "not in the ten: a finding the thread contradicts",
}


def cases(root: Path = HERE) -> list[str]:
    return sorted(p.parent.name for p in (root / "cases").glob("*/expect.toml"))


def load_expect(slug: str, root: Path = HERE) -> dict:
    return tomllib.loads((root / "cases" / slug / "expect.toml").read_text(encoding="utf-8"))


def load_verdicts(root: Path = HERE, table: str = "first_run") -> dict[str, dict]:
    """One run's verdicts (`first_run`, or `after`: the run after a round's fixes, after-27.txt) from every
    verdicts*.toml of the set: one file per reviewer, each judging its own cases."""
    out: dict[str, dict] = {}
    for path in sorted(root.glob("verdicts*.toml")):
        out.update(tomllib.loads(path.read_text(encoding="utf-8")).get(table, {}))
    return out


def main(root: Path = HERE, table: str = "first_run") -> None:
    verdicts = load_verdicts(root, table)
    slugs = cases(root)
    after = table == "after"
    other = table not in ("first_run", "after")  # a named run: `baseline`, ...
    # The after-fix run's file, as tools/blind_run.py --after NAME wrote it (after-27.txt in the first two sets).
    runs = sorted({p.name for p in root.glob("cases/*/after-*.txt")}) or ["after-27.txt"]
    lines = [
        "# Blind plan set: results of gpudoctor"
        + (
            f"'s {table} run ({table}.txt)"
            if other
            else f" after this round's fixes ({', '.join(runs)})"
            if after
            else "'s first run"
        ),
        "",
        "Each line: case, kind, source, the plan expected from the thread (first step), and the verdict on the",
        "plan `gpudoctor check --from input.txt` printed (right = pasted as is; partly = the fix is there but so",
        "is something to strike, or a step is missing; wrong = otherwise), with the reason. Expectations were",
        'committed before any run (commit "blind plan set: expectations"); outputs are in each case\'s',
        "`first-run.txt` / `first-run.json`. Written by `python -m tests.blind.plans.results [SET-FOLDER]`.",
        "",
    ]
    count: Counter[str] = Counter()
    diagnosis: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    unjudged = [slug for slug in slugs if slug not in verdicts]
    if unjudged:
        # A run is tabulated only when every case has its verdict (a reviewer's, or carried for an identical output).
        raise SystemExit(f"no `{table}` verdict for {len(unjudged)} case(s) of {root.name}: " + ", ".join(unjudged[:5]))
    for slug in slugs:
        e = load_expect(slug, root)
        v = verdicts[slug]
        count[v["verdict"]] += 1
        diagnosis[v["diagnosis"]] += 1
        by_kind[e["kind"]] += 1
        kinds.update(v.get("kinds", []))
        first = e["plan"]["steps"][0]
        lines.append(
            f"- `{slug}` [{e['kind']}; {e['platform']}] {e['url']} expected: `{first}` "
            f"**{v['verdict']}** ({', '.join(v.get('kinds', []))}): {v['reason']}"
        )
    total = len(slugs)
    lines += [
        "",
        "Cases by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(by_kind.items(), key=lambda x: (-x[1], x[0]))) + ".",
        "",
        f"{f'Run {table}' if other else 'After fixes' if after else 'First run'}: {count['right']} of {total} plans right ({100 * count['right'] / max(total, 1):.0f}%), "
        f"{count['partly']} partly, {count['wrong']} wrong.",
        "",
        f"Diagnosis (the finding names the thread's cause): {diagnosis['right']} right, {diagnosis['partly']} partly, "
        f"{diagnosis['wrong']} wrong (a finding the thread contradicts), {diagnosis['missed']} missed (no finding).",
        "",
        "Kinds of wrong plan (a case may show several):",
    ]
    for k, n in sorted(kinds.items(), key=lambda x: (-x[1], x[0])):
        lines.append(f"- {k} ({KIND_NAMES[k]}): {n}")
    name = f"RESULTS-{table.upper()}.md" if other else "RESULTS-AFTER.md" if after else "RESULTS.md"
    (root / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(next(line for line in lines if line.startswith(("First run:", "After fixes:", "Run "))))


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m tests.blind.plans.results",
        description="Write a blind set's results file from its verdicts (RESULTS.md, RESULTS-AFTER.md or "
        "RESULTS-<RUN>.md) and print its headline.",
    )
    ap.add_argument("set_folder", nargs="?", type=Path, default=HERE, help="the set's folder (default: %(default)s)")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--after", action="store_true", help="the after-fix run (table `after`)")
    which.add_argument("--run", metavar="TABLE", help="another run, by its verdict table's name (e.g. baseline)")
    ns = ap.parse_args()
    folder = ns.set_folder.resolve()
    if not (folder / "cases").is_dir():
        ap.error(f"{folder} is not a blind set's folder (it has no cases/ folder)")
    main(folder, ns.run or ("after" if ns.after else "first_run"))
