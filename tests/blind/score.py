"""Score `gpudoctor check --from` on the blind pasted set: python -m tests.blind.score [--write]

Each case in pasted/cases/ is a real report gpudoctor was never tuned on, with an expectation written from its
thread before any run (README.md here). The scorer runs the CLI as a user would, `check --from input.txt
--format json`, and judges the JSON: right, false alarm or miss, by the README's rules. `--write` records the
figure, per category, platform and setting, in pasted/RESULTS.md. The figure is a measure, not a gate.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE / "pasted" / "cases"
RESULTS = HERE / "pasted" / "RESULTS.md"
CATEGORIES = ("fine", "ask", "broken")
PLATFORMS = ("linux", "windows", "wsl")
SETTINGS = ("host", "docker", "podman", "kubernetes", "slurm", "cluster")
FIRST_RUN = "First run, before any change to the reader:"
TIMEOUT_S = 120  # one case; generous, the CLI reads a few kilobytes
RANK = {"info": 0, "warning": 1, "error": 2}


def cases() -> list[str]:
    return sorted(p.parent.name for p in CASES_DIR.glob("*/expect.toml"))


def load(slug: str) -> dict:
    return tomllib.loads((CASES_DIR / slug / "expect.toml").read_text(encoding="utf-8"))


def run_check(slug: str) -> dict:
    """The report of `gpudoctor check --from input.txt --format json`, as a new user would get it."""
    argv = [sys.executable, "-m", "gpudoctor", "check", "--from", str(CASES_DIR / slug / "input.txt"), "--format", "json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        report = {"findings": [], "error": {"message": done.stderr.strip()[-500:]}}
    report.setdefault("exit_code", done.returncode)
    return report


@dataclass
class Verdict:
    """One case's result: what was found and asked, and what is wrong with it by the expectation."""

    category: str
    codes: dict[str, str] = field(default_factory=dict)  # code -> severity
    asks: list[str] = field(default_factory=list)
    exit_code: int | None = None
    false_alarms: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        if self.false_alarms:
            return "false alarm"
        return "miss" if self.missed else "right"

    def why(self) -> str:
        return "; ".join([f"false alarm: {a}" for a in self.false_alarms] + [f"missing: {m}" for m in self.missed])


def judge(expect: dict, report: dict) -> Verdict:
    want = expect.get("expect", {})
    v = Verdict(expect["category"], exit_code=report.get("exit_code"))
    for f in report.get("findings", []):
        # The worst severity of a code wins when a code appears more than once.
        if RANK.get(f["severity"], 0) >= RANK.get(v.codes.get(f["code"], "info"), 0):
            v.codes[f["code"]] = f["severity"]
    v.asks = [a.get("command", "") + " " + " ".join(a.get("argv", [])) for a in report.get("pasted", {}).get("ask_for", [])]
    if report.get("error"):
        v.missed.append(f"no report ({report['error'].get('message', '')})")
    v.false_alarms += [f"{c} (must not fire)" for c in want.get("absent", []) if c in v.codes]
    if v.category == "fine":
        v.false_alarms += [f"{c} ({s}) on a fine case" for c, s in v.codes.items() if RANK[s] >= RANK["warning"]]
        if v.exit_code not in (0, None) and not v.false_alarms:
            v.missed.append(f"exit status {v.exit_code}")
    if v.category == "ask":
        v.false_alarms += [f"{c} (error) where only asking decides" for c, s in v.codes.items() if s == "error"]
    v.missed += [c for c in want.get("codes", []) if c not in v.codes]
    any_codes = want.get("codes_any", [])
    if any_codes and not any(c in v.codes for c in any_codes):
        v.missed.append("one of " + ", ".join(any_codes))
    v.missed += [f"ask for {s!r}" for s in want.get("ask_for", []) if not any(s in a for a in v.asks)]
    any_asks = want.get("ask_any", [])
    if any_asks and not any(s in a for s in any_asks for a in v.asks):
        v.missed.append("an ask for one of " + ", ".join(repr(s) for s in any_asks))
    # Keep each false alarm once (an absent code on a fine case is both).
    v.false_alarms = list(dict.fromkeys(v.false_alarms))
    return v


def tally(rows: list[tuple[str, dict, Verdict]], key: str) -> list[str]:
    groups: dict[str, list[Verdict]] = {}
    for _, expect, v in rows:
        groups.setdefault(expect[key], []).append(v)
    out = []
    for name in sorted(groups):
        vs = groups[name]
        right = sum(v.outcome == "right" for v in vs)
        alarms = sum(v.outcome == "false alarm" for v in vs)
        out.append(f"| {name} | {len(vs)} | {right} | {alarms} | {len(vs) - right - alarms} |")
    return out


def figure(rows: list[tuple[str, dict, Verdict]]) -> str:
    total = len(rows)
    right = sum(v.outcome == "right" for _, _, v in rows)
    fine = [v for _, e, v in rows if e["category"] == "fine"]
    fine_alarms = sum(v.outcome == "false alarm" for v in fine)
    return (
        f"({datetime.date.today().isoformat()}) {right} of {total} right ({100 * right / max(total, 1):.0f}%); "
        f"false alarms on {fine_alarms} of {len(fine)} fine cases."
    )


def render(rows: list[tuple[str, dict, Verdict]], first: str) -> str:
    head = "| {} | cases | right | false alarm | miss |\n|---|---|---|---|---|"
    lines = [
        "# Blind pasted set: results",
        "",
        "Written by `python -m tests.blind.score --write` (tests/blind/README.md): `gpudoctor check --from",
        "input.txt --format json` on each case, judged against the expectation committed before any run.",
        "",
        first,
        "",
        "This run " + figure(rows),
        "",
        head.format("category"),
        *tally(rows, "category"),
        "",
        head.format("platform"),
        *tally(rows, "platform"),
        "",
        head.format("setting"),
        *tally(rows, "setting"),
        "",
        "## Cases",
        "",
    ]
    for slug, expect, v in rows:
        found = ", ".join(f"{c} ({s})" for c, s in v.codes.items()) or "no finding"
        tail = f": {v.why()}" if v.why() else ""
        lines.append(
            f"- `{slug}` [{expect['category']}; {expect['platform']}/{expect['setting']}] {expect['url']} "
            f"**{v.outcome}**{tail}. Found: {found}; asks: {len(v.asks)}."
        )
    return "\n".join(lines) + "\n"


def score(slugs: list[str] | None = None) -> list[tuple[str, dict, Verdict]]:
    rows = []
    for slug in slugs or cases():
        expect = load(slug)
        rows.append((slug, expect, judge(expect, run_check(slug))))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write pasted/RESULTS.md (the whole set only)")
    parser.add_argument("slugs", nargs="*", help="score only these cases (default: all)")
    args = parser.parse_args(argv)
    if args.write and args.slugs:
        parser.error("--write records the whole set; leave out the case names")
    rows = score(args.slugs)
    text = render(rows, first_run(rows))
    if args.write:
        RESULTS.write_text(text, encoding="utf-8")
    print(text)


def first_run(rows: list[tuple[str, dict, Verdict]]) -> str:
    """The first-run figure: kept from RESULTS.md once recorded, so later runs show it beside their own."""
    if RESULTS.exists():
        for line in RESULTS.read_text(encoding="utf-8").splitlines():
            if line.startswith(FIRST_RUN):
                return line
    return FIRST_RUN + " " + figure(rows)


if __name__ == "__main__":
    main()
