"""Count the printed plan and ask lines that hold a `<placeholder>` whose value the paste shows (issue 27, h227).

    python tools/placeholders_shown.py              # the branch's own output, per set
    python tools/placeholders_shown.py --recorded   # each case's recorded after-session output instead (the latest run)
    python tools/placeholders_shown.py -v           # and each line counted, by case

Over the inputs of the open blind sets (tools/blind_sets.OPEN; never the blind set being collected), the real CLI
runs in-process (tools/golden.py's Runner) and this reads its text output's lines. A line is counted where it holds one
of the placeholders below and the paste shows that placeholder's value, by this tool's own reading of the paste:

- `<container>`: a `docker run` line's `--name NAME`, a compose file's literal `container_name:`, a `docker exec NAME`;
- `<image>`: a compose file's literal `image:`, a `docker run --gpus` line's image (a registry path with a tag);
- `<env>`: a conda prompt `(NAME)` other than base, or a path through `envs/NAME/`;
- `<venv>`: an interpreter path of a venv (`.../bin/python`, `...\\Scripts\\python.exe`).

A sample image the paste runs only to test the toolkit (cuda-sample, nvidia/cuda) is no value of the program's image.
The patterns here are this tool's own measure, read by nothing in src.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import blind_sets  # noqa: E402 (the project's root on the path first)

SETS = blind_sets.OPEN  # never the blind set being collected (tools/blind_sets.py)

SHOWN = {
    "container": re.compile(
        r"docker run\b.*--name[ =]['\"]?[A-Za-z0-9][\w.-]*|container_name:\s*['\"]?[A-Za-z0-9][\w.-]*['\"]?\s*$"
        r"|docker exec (?:-\w+ )*[A-Za-z0-9][\w.-]*\s",
        re.M,
    ),
    "image": re.compile(
        r"^\s*-?\s*image:\s*['\"]?[a-z0-9][\w./-]*(?::[\w.-]+)?['\"]?\s*$"
        r"|docker run\b[^\n]*--gpus[^\n]*\s(?!nvidia/cuda|[\w./-]*cuda-sample)[a-z0-9][\w.-]*/[\w./-]+:[\w.-]+",
        re.M,
    ),
    "env": re.compile(r"^\((?!base\))[\w.-]+\)\s|[\\/]envs[\\/][\w.-]+[\\/]", re.M),
    "venv": re.compile(r"[\w.~-]+/bin/python3?\b|\\Scripts\\python\.exe", re.M),
}
_PLACEHOLDER = re.compile(r"<(container|image|env|venv)>")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recorded", action="store_true", help="read each case's after-session.txt")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    runner = None
    if not args.recorded:
        from tools.golden import Runner

        runner = Runner()
    counts: dict[str, Counter[str]] = {}
    for name in SETS:
        for path in sorted((ROOT / "tests" / "blind" / name / "cases").glob("*/input.txt")):
            text = path.read_text(encoding="utf-8", errors="replace")
            if runner is None:
                # (sets 3-10 wrote after-session.txt, later ones after_session.txt)
                recorded = next(
                    (r for r in (path.parent / "after-session.txt", path.parent / "after_session.txt") if r.exists()), None
                )
                if recorded is None:
                    continue
                out = recorded.read_text(encoding="utf-8", errors="replace")
            else:
                _, out = runner.check(["--from", str(path.relative_to(ROOT))])
            row = counts.setdefault(name, Counter())
            row["cases"] += 1
            hit = False
            for line in out.splitlines():
                kinds = {k for k in _PLACEHOLDER.findall(line) if SHOWN[k].search(text)}
                for k in kinds:
                    row[k] += 1
                    if args.verbose:
                        print(f"{name}/{path.parent.name[:60]} <{k}>: {line.strip()[:110]}")
                hit = hit or bool(kinds)
            row["plans"] += hit
    order = ("cases", "plans", "container", "image", "env", "venv")
    total: Counter[str] = sum(counts.values(), Counter())
    for name, c in [*counts.items(), ("all", total)]:
        print(f"{name:8} " + " ".join(f"{k} {c[k]:3}" for k in order))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
