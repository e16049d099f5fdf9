"""The golden record of `gpudoctor check`: what it prints for every recorded machine, real case and pasted case.

For each case under tests/machines/, tests/real/ (a snapshot.json each, replayed with --replay) and
tests/pasted/cases/ (a report.txt each, read with --from), the real CLI runs in-process twice: once with
--format json (the report document, with its probe and check timings set to 0: the only fields that
change from run to run) and once with the text view (no colour, 100 columns). tests/golden/<kind>/<case>.json
holds the document, <case>.txt the text view, and tests/golden/<kind>/exit_codes.json the exit codes of
every case. The other renderers that read the report itself rather than the JSON document are recorded
too, on fewer cases to keep the test fast: github, junit (its run time set to 0) and markdown on the
machines, markdown (an issue reply) on the pasted cases.

    python tools/golden.py            # compare with tests/golden/: prints what differs, exit 1 when anything does
    python tools/golden.py --update   # write tests/golden/ anew (only when a change of behaviour is meant)

tests/test_golden.py runs the comparison: a refactoring that changes a finding, a plan step, a printed line
or an exit code on any recorded case fails it (docs/testing.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"

# The environment a run sees: a fixed width, no colour, none of check's option variables, no CI summary file.
ENV: dict[str, str | None] = {
    "COLUMNS": "100",
    "NO_COLOR": "1",
    "TERM": "dumb",
    "GITHUB_STEP_SUMMARY": None,
    "GPUDOCTOR_FORMAT": None,
    "GPUDOCTOR_FAIL_ON": None,
    "GPUDOCTOR_IGNORE": None,
    "GPUDOCTOR_REQUIRE": None,
}


def cases() -> Iterator[tuple[str, str, list[str]]]:
    """(kind, case, check's arguments naming what to diagnose), paths relative to the project's root."""
    for kind, folder in (("machines", "tests/machines"), ("real", "tests/real")):
        for snap in sorted((ROOT / folder).glob("*/snapshot.json")):
            yield kind, snap.parent.name, ["--replay", f"{folder}/{snap.parent.name}/snapshot.json"]
    for text in sorted((ROOT / "tests/pasted/cases").glob("*/report.txt")):
        yield "pasted", text.parent.name, ["--from", f"tests/pasted/cases/{text.parent.name}/report.txt"]


# Formats recorded beside json and text, per kind, with the suffix of their file.
EXTRA = {
    "machines": {"github": ".github.txt", "junit": ".junit.xml", "markdown": ".md"},
    "pasted": {"markdown": ".md"},
}
_JUNIT_TIME = re.compile(r'(<testsuites? [^>]*time=")[0-9.]+(")')


def normalise(doc: object) -> object:
    """The document with every timing set to 0 (its keys, the probes that ran, stay)."""
    if isinstance(doc, dict):
        return {k: ({t: 0 for t in v} if k == "timings_s" and isinstance(v, dict) else normalise(v)) for k, v in doc.items()}
    if isinstance(doc, list):
        return [normalise(v) for v in doc]
    return doc


class Runner:
    """The real CLI (typer's CliRunner on gpudoctor.cli.app), run from the project's root."""

    def __init__(self, share_diagnosis: bool = False) -> None:
        import typer
        from typer.testing import CliRunner

        import gpudoctor.cli as cli

        cli._register()
        self.app = cli.app
        self.runner = CliRunner()
        # typer's CliRunner builds the click command from the app at every invoke, reading every command's
        # signature (over half of a case's CPU time, five runs a case); the app does not change between runs,
        # so the command is built once, as the `gpudoctor` program builds it once per process.
        self.command = typer.main.get_command(self.app)
        # With share_diagnosis (tests/test_golden.py), a case's formats render one diagnosis: pipeline.check runs
        # once per case, not once per format. `--update` (main) runs each format whole, so a renderer that
        # changed the result it was handed would make the next format differ from the record and fail the test.
        self.share_diagnosis = share_diagnosis
        self._shared: tuple[tuple[str, ...], object] | None = None

    def check(self, args: list[str]) -> tuple[int, str]:
        import typer.testing

        here = os.getcwd()
        os.chdir(ROOT)
        build = getattr(typer.testing, "_get_command", None)
        if build is not None:
            typer.testing._get_command = lambda app: self.command if app is self.app else build(app)  # type: ignore[attr-defined]
        import gpudoctor.pipeline as pipeline

        diagnose = pipeline.check
        if self.share_diagnosis:
            pipeline.check = self._shared_check(tuple(_without_format(args)), diagnose)  # type: ignore[assignment]
        try:
            result = self.runner.invoke(self.app, ["check", *args], env=ENV, catch_exceptions=False)
        finally:
            os.chdir(here)
            pipeline.check = diagnose  # type: ignore[assignment]
            if build is not None:
                typer.testing._get_command = build  # type: ignore[attr-defined]
        return result.exit_code, result.stdout

    def _shared_check(self, key: tuple[str, ...], diagnose):
        def check(host, request, ahead=None):
            if self._shared is None or self._shared[0] != key:
                self._shared = (key, diagnose(host, request, ahead))
            return self._shared[1]

        return check


def _without_format(args: list[str]) -> list[str]:
    """check's arguments without their `--format NAME`: what the diagnosis depends on."""
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--format":
            skip = True
        else:
            out.append(arg)
    return out


def record(runner: Runner, kind: str, args: list[str]) -> tuple[dict[str, str], dict[str, int]]:
    """One case's golden record: {suffix: what is stored} (the JSON document, the text view, the extra
    formats) and {format: exit code}."""
    json_code, out = runner.check([*args, "--format", "json"])
    text_code, text = runner.check(args)
    files = {".json": json.dumps(normalise(json.loads(out)), indent=2, sort_keys=True) + "\n", ".txt": text}
    exits = {"json": json_code, "text": text_code}
    for fmt, suffix in EXTRA.get(kind, {}).items():
        exits[fmt], out = runner.check([*args, "--format", fmt])
        files[suffix] = _JUNIT_TIME.sub(r"\g<1>0\g<2>", out) if fmt == "junit" else out
    return files, exits


def differences(runner: Runner, update: bool = False, only: str | None = None) -> list[str]:
    """What differs from tests/golden/ (with update, written there instead); `only` keeps the cases whose kind/case contains it."""
    problems: list[str] = []
    codes: dict[str, dict[str, dict[str, int]]] = {}
    for kind, case, args in cases():
        if only and only not in f"{kind}/{case}":
            continue
        files, exits = record(runner, kind, args)
        folder = GOLDEN / kind
        codes.setdefault(kind, {})[case] = exits
        if update:
            folder.mkdir(parents=True, exist_ok=True)
            for suffix, got in files.items():
                (folder / f"{case}{suffix}").write_text(got, encoding="utf-8")
            continue
        for suffix, got in files.items():
            path = folder / f"{case}{suffix}"
            if not path.is_file():
                problems.append(f"{kind}/{case}{suffix}: no golden record (python tools/golden.py --update)")
            elif path.read_text(encoding="utf-8") != got:
                problems.append(f"{kind}/{case}{suffix}: differs from the golden record")
    for kind, got_codes in codes.items():
        path = GOLDEN / kind / "exit_codes.json"
        if update:
            if not only:
                path.write_text(json.dumps(got_codes, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            continue
        stored = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        for case, exits in got_codes.items():
            if stored.get(case) != exits:
                problems.append(f"{kind}/{case}: exit codes {exits}, golden {stored.get(case)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="write tests/golden/ anew instead of comparing")
    parser.add_argument("--only", metavar="TEXT", help="only the cases whose kind/case contains TEXT")
    args = parser.parse_args(argv)
    problems = differences(Runner(), update=args.update, only=args.only)
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
