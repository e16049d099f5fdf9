#!/usr/bin/env python3
"""Build each machine's snapshot.json from its machine.toml and the real captures it names.

A machine.toml is a snapshot (docs/snapshot-format.md) written as TOML, where any string
value of the form "@family/file" stands for the text of tests/fixtures/family/file, so a
machine is real captures plus the little glue a person would paste around them. The
assembled snapshot.json is what `gpudoctor check --replay` and the tests read; run this
after editing a machine.toml (tests/test_machines.py fails when they disagree).

    python tests/machines/assemble.py            # every machine
    python tests/machines/assemble.py SLUG ...   # some
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"


def _expand(value):
    if isinstance(value, str) and value.startswith("@"):
        return (FIXTURES / value[1:]).read_text(encoding="utf-8")
    if isinstance(value, dict):
        return {k: _expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v) for v in value]
    return value


def assemble(machine_dir: Path) -> str:
    spec = tomllib.loads((machine_dir / "machine.toml").read_text(encoding="utf-8"))
    snapshot = {"format": "gpudoctor-snapshot/1", **_expand(spec)}
    return json.dumps(snapshot, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def machine_dirs() -> list[Path]:
    return sorted(p.parent for p in HERE.glob("*/machine.toml"))


def main(argv: list[str]) -> int:
    dirs = [HERE / slug for slug in argv] if argv else machine_dirs()
    for d in dirs:
        (d / "snapshot.json").write_text(assemble(d), encoding="utf-8")
        print(f"wrote {d.name}/snapshot.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
