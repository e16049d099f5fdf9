"""gpudoctor.record.Record: a frozen dataclass on it compares, hashes and prints as `@dataclass(frozen=True)` would
make it. Every Record class is compared with its twin (the same fields, made by `@dataclass(frozen=True)` on this
Python) on the instances a check of each recorded machine builds: the same repr, the same hash (or the same
refusal to hash), the same answer to every == between two of them, NotImplemented for another class."""

from __future__ import annotations

import dataclasses
import importlib
import itertools
from collections import defaultdict
from pathlib import Path

import pytest

from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.pipeline import CheckRequest, check
from gpudoctor.record import Record

MACHINES = Path(__file__).resolve().parents[2] / "tests" / "machines"
# The modules that declare Record classes (a bare check imports each of them).
MODULES = (
    "gpudoctor.checks.base",
    "gpudoctor.checks.cudnn",
    "gpudoctor.checks.libraries",
    "gpudoctor.cmdline",
    "gpudoctor.facts",
    "gpudoctor.host",
    "gpudoctor.loader",
    "gpudoctor.model",
    "gpudoctor.parsers.cuda_version_file",
    "gpudoctor.parsers.error_texts",
    "gpudoctor.pipeline",
    "gpudoctor.planner.prescribe",
    "gpudoctor.probed",
    "gpudoctor.probes",
    "gpudoctor.render.formats",
)


def _twin(cls: type) -> type:
    """`cls` as `@dataclass(frozen=True)` makes it: the same fields, with their repr, compare and hash flags."""
    spec = [
        (
            f.name,
            f.type,
            dataclasses.field(default=f.default, default_factory=f.default_factory, repr=f.repr, hash=f.hash, compare=f.compare),
        )
        for f in dataclasses.fields(cls)
    ]
    twin = dataclasses.make_dataclass(cls.__name__, spec, frozen=True)
    twin.__qualname__ = cls.__qualname__
    return twin


def _as(twin: type, value: Record) -> object:
    """The twin holding the very same field values (set as the generated __init__ would, without running it)."""
    return _holding(twin, {f.name: getattr(value, f.name) for f in dataclasses.fields(value)})  # type: ignore[arg-type]


def _holding(cls: type, values: dict) -> object:
    out = object.__new__(cls)
    out.__dict__.update(values)
    return out


def _same(cls: type, sample: list) -> None:
    twin = _twin(cls)
    for value in sample:
        assert repr(value) == repr(_as(twin, value))
        try:
            expected: object = hash(_as(twin, value))
        except TypeError as exc:
            expected = str(exc)
        try:
            got: object = hash(value)
        except TypeError as exc:
            got = str(exc)
        assert got == expected, cls
        assert value.__eq__(object()) is NotImplemented and _as(twin, value).__eq__(object()) is NotImplemented
    for a, b in itertools.product(sample, repeat=2):
        assert (a == b) == (_as(twin, a) == _as(twin, b)), cls
        assert (a != b) == (_as(twin, a) != _as(twin, b)), cls


def _records(value: object, into: dict[type, list[Record]], seen: set[int]) -> None:
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, Record):
        into[type(value)].append(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _records(getattr(value, f.name), into, seen)
    elif isinstance(value, dict):
        for item in value.values():
            _records(item, into, seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _records(item, into, seen)


@pytest.fixture(scope="module")
def built() -> dict[type, list[Record]]:
    into: dict[type, list[Record]] = defaultdict(list)
    seen: set[int] = set()
    for machine in sorted(p.parent for p in MACHINES.glob("*/snapshot.json")):
        result = check(ReplayHost(load_snapshot(str(machine / "snapshot.json"))), CheckRequest())
        _records(result, into, seen)
    return into


def test_records_print_compare_and_hash_as_generated_dataclasses(built):
    assert len(built) >= 30  # the facts, probes' outcomes, findings, commands and the plan of real machines
    for cls, values in built.items():
        _same(cls, values[:40])
        assert all(value == dataclasses.replace(value) for value in values[:40])  # type: ignore[type-var]


def test_every_record_class_on_values_of_every_kind():
    """Every Record class, those no recorded machine builds too, holding values of each kind (None, text, a
    number, a tuple, an unhashable dict, an instance of another record) in each field, one field at a time."""
    for name in MODULES:
        importlib.import_module(name)
    from gpudoctor.probed import Absent

    kinds = (None, "x", 1, ("x", 1), {"x": 1}, Absent("x"))
    classes = Record.__subclasses__()
    assert len(classes) >= 52
    for cls in classes:
        names = [f.name for f in dataclasses.fields(cls)]
        sample = [_holding(cls, dict.fromkeys(names, kind)) for kind in kinds]
        sample += [_holding(cls, {n: kind if n == varied else "x" for n in names}) for varied in names for kind in kinds]
        _same(cls, sample)


def test_a_record_is_still_a_frozen_dataclass():
    from gpudoctor.probed import Unknown

    why = Unknown("timeout", "nvidia-smi hung", "cmd:nvidia-smi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        why.kind = "crash"  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(why)] == ["kind", "message", "source"]
    assert dataclasses.asdict(why) == {"kind": "timeout", "message": "nvidia-smi hung", "source": "cmd:nvidia-smi"}
    assert repr(why) == "Unknown(kind='timeout', message='nvidia-smi hung', source='cmd:nvidia-smi')"
    assert {why, dataclasses.replace(why)} == {why} and why != dataclasses.replace(why, kind="crash")
