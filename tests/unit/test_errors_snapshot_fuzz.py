"""Type swaps in every field of a real snapshot: each loads as a clean SnapshotError or diagnoses
without a crash. Never "unexpected error", a traceback, a crashed probe or a crashed check: validation
happens once, where the snapshot is loaded (gpudoctor.host.snapshot.validate_snapshot)."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
from pathlib import Path

import pytest

from gpudoctor.cli import main
from gpudoctor.errors import SnapshotError
from gpudoctor.host.snapshot import validate_snapshot

MACHINE = Path(__file__).resolve().parents[1] / "cli" / "machines" / "rtx4090-torch-cu121.json"
WITH_NVML = Path(__file__).resolve().parents[1] / "cli" / "machines" / "rtx2070x2-cpu-builds.json"
SWAPS = [None, "x", "", 7, -1, 1.5, True, [], {}, ["a"], {"a": 1}, 10**30]


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value[:2]):
            yield from _paths(child, prefix + (i,))


def _set(doc, path, value):
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def _variants():
    base = json.loads(MACHINE.read_text(encoding="utf-8"))
    rng = random.Random(11)
    for path in (p for p in _paths(base) if p):
        for value in rng.sample(SWAPS, 2):
            doc = copy.deepcopy(base)
            _set(doc, path, value)
            yield "/".join(map(str, path)), value, doc


def test_type_swaps_never_crash(tmp_path):
    target = tmp_path / "variant.json"
    problems = []
    count = 0
    for where, value, doc in _variants():
        target.write_text(json.dumps(doc), encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(["check", "--replay", str(target), "--format", "json"])
            except SystemExit as exc:
                code = exc.code
        count += 1
        report = json.loads(out.getvalue())  # a JSON document always, error or report
        crashed = [f for f in report.get("findings", []) if f.get("code") == "internal-check-error"]
        failures = json.dumps((report.get("facts") or {}).get("failures") or {})
        if code not in (0, 1, 3) or "unexpected error" in err.getvalue() or crashed or '"crash"' in failures:
            problems.append(f"{where} = {value!r}: exit {code}, {err.getvalue().strip()[:200]} {crashed[:1]}")
        # Exit 3 only for a snapshot that does not load, with the load error naming the field it stopped at;
        # a swap that loads is diagnosed (0 or 1). Not "any clean exit": that would pass a parser that gives up.
        try:
            validate_snapshot(copy.deepcopy(doc))
            loads, why = True, ""
        except SnapshotError as exc:
            # The CLI names the file where the loader says "snapshot": compare what follows.
            loads, why = False, exc.message.removeprefix("snapshot: ").split("invalid snapshot:", 1)[-1].strip()
        message = (report.get("error") or {}).get("message", "")
        if loads and code == 3:
            problems.append(f"{where} = {value!r}: loads, but check exits 3: {message[:200]}")
        elif not loads and (code != 3 or report.get("status") != "doctor-error" or why not in message):
            problems.append(f"{where} = {value!r}: does not load ({why[:120]}), but check exits {code}: {message[:200]}")
        elif not loads and not any(str(part) in why for part in where.split("/")[:1]):
            problems.append(f"{where} = {value!r}: the load error does not name the field: {why[:200]}")
    assert count > 300
    assert problems == []


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda s: _set(s, ("nvml", "devices", 0, "memory", "total_bytes"), "80GiB"),
            "nvml.devices[0].memory.total_bytes must be a non-negative integer",
        ),
        (lambda s: _set(s, ("nvml", "devices", 0, "memory", "used_bytes"), -5), "must be a non-negative integer"),
        (lambda s: _set(s, ("nvml", "devices", 0, "name"), ["A100"]), "nvml.devices[0].name must be a string"),
        (lambda s: _set(s, ("nvml", "devices"), {"0": {}}), "nvml.devices must be a list"),
        (lambda s: _set(s, ("python", "distributions"), ["torch"]), "python.distributions must be an object"),
        (lambda s: _set(s, ("python", "site_packages"), "/usr/lib"), "python.site_packages must be a list"),
        (lambda s: _set(s, ("dirs",), {"relative/dir": []}), "dirs: 'relative/dir' is not an absolute path"),
        (lambda s: _set(s, ("dirs",), {"/x": [1]}), "must list names"),
        (lambda s: _set(s, ("commands", "nvidia-smi -q -x", "rc"), "0"), "rc must be an integer"),
        (lambda s: _set(s, ("commands", "nvidia-smi -q -x", "stdout"), 12), "stdout must be a string"),
        (lambda s: _set(s, ("platform",), {"release": 5}), "platform: 'release' must be a string"),
    ],
)
def test_wrong_types_are_named_at_load(change, words):
    snap = json.loads(WITH_NVML.read_text(encoding="utf-8"))
    change(snap)
    with pytest.raises(SnapshotError) as err:
        validate_snapshot(snap, "m.json")
    assert words in err.value.message
