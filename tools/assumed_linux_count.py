"""Count the reports that assume Linux for a paste whose case is on Windows, WSL or macOS (issues 27 kind 8, 28).

    python tools/assumed_linux_count.py          # the count, per set
    python tools/assumed_linux_count.py -v       # and the cases counted, by name
    python tools/assumed_linux_count.py --recorded   # read each case's after-session.txt instead of running check

Over every case of the open blind sets (tools/blind_sets.OPEN; never the blind set being collected), a case
counts where the text report of `check --from input.txt` (the real CLI, in-process: tools/golden.py's Runner) says
"assumed: platform: Linux" and the case's expect.toml `platform`, written by hand before the run, names Windows, WSL
or macOS (a WSL case whose platform row says WSL does not count: Linux is WSL's side). The expectation's words are this tool's own reading, used by nothing in src: "Windows" (not "no Windows",
"Windows or Linux"), "WSL", "macOS"/"Mac"/"Apple"/"MPS". A field that names Linux as well counts only where it names
WSL (a WSL report names its Ubuntu).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import blind_sets  # noqa: E402 (the project's root on the path first)

ASSUMED = "assumed: platform: Linux"
_WSL = re.compile(r"\bWSL\d?\b|Bash on Windows", re.IGNORECASE)
_WINDOWS = re.compile(r"\bWin(?:dows)?\s?(?:1[01]|Server|\b)", re.IGNORECASE)
# (Not "MPS": NVIDIA's Multi-Process Service shares the name of Apple's Metal backend.)
_MAC = re.compile(r"\bmacOS\b|\bMac\s?(?:Book|OS|Studio|mini|Pro)?\b|\bApple\s+M\d|\bdarwin\b", re.IGNORECASE)
# The report's platform row ("✓ Platform and container: Linux, WSL2"): a WSL case read as WSL is Linux's side rightly.
_PLATFORM_ROW = re.compile(r"Platform and container:[^\n]*")
_LINUX = re.compile(r"\bLinux\b|Ubuntu|Debian|CentOS|Rocky|Fedora|RHEL|Arch\b|Colab|Kaggle", re.IGNORECASE)
# An expectation that names no OS, or two as alternatives: nothing for the report to have read.
_UNDECIDED = re.compile(r"unknown OS|unstated|not stated|Windows or Linux|Linux or Windows|OS not", re.IGNORECASE)


def expected_platform(field: str) -> str | None:
    """The platform the expectation names (windows, wsl, macos), or None where it names Linux, none or several."""
    if _UNDECIDED.search(field):
        return None
    if _WSL.search(field):
        return "wsl"
    if _LINUX.search(field):
        return None
    if _MAC.search(field):
        return "macos"
    if _WINDOWS.search(field):
        return "windows"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--recorded", action="store_true", help="read after-session.txt rather than run check")
    args = ap.parse_args()
    runner = None
    if not args.recorded:
        from tools.golden import Runner

        runner = Runner()
    counted: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for name in blind_sets.OPEN:
        for expect in sorted((ROOT / "tests" / "blind" / name / "cases").glob("*/expect.toml")):
            case = expect.parent
            field = str(tomllib.loads(expect.read_text(encoding="utf-8")).get("platform", ""))
            want = expected_platform(field)
            if want is None or not (case / "input.txt").is_file():
                continue
            seen[name] += 1
            if runner is None:
                recorded = case / "after-session.txt"
                text = recorded.read_text(encoding="utf-8") if recorded.is_file() else ""
            else:
                _, text = runner.check(["--from", str(case / "input.txt")])
            row = _PLATFORM_ROW.search(text)
            if ASSUMED in text and not (want == "wsl" and row is not None and "WSL" in row.group()):
                counted[name] += 1
                if args.verbose:
                    print(f"  {name}/{case.name} ({want})")
    for name in blind_sets.OPEN:
        print(f"{name}: {counted[name]} of {seen[name]} Windows/WSL/macOS cases assumed Linux")
    print(f"all: {sum(counted.values())} of {sum(seen.values())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
