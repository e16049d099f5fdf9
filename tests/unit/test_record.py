"""gpudoctor.record: a class made by `@record_class(frozen=True, eq=False, repr=False)` on `Record` is built, compares,
hashes, prints and refuses assignment as `@dataclass(frozen=True)` would make it. Every Record class is compared with
its twin (the same fields and __post_init__, made by `@dataclass(frozen=True)` on this Python) on the instances a check
of each recorded machine builds: the same repr, the same hash (or the same refusal to hash), the same answer to every
== between two of them, NotImplemented for another class; the same attributes from the same calls, positional or by
keyword, the same TypeError for a wrong call, the same signature and FrozenInstanceError."""

from __future__ import annotations

import dataclasses
import importlib
import itertools
from collections import defaultdict
from dataclasses import KW_ONLY, InitVar, field
from pathlib import Path
from typing import ClassVar

import pytest

from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.pipeline import CheckRequest, check
from gpudoctor.record import MutableRecord, Record, record_class

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
    "gpudoctor.planner.tool_floors",
    "gpudoctor.probed",
    "gpudoctor.probes",
    "gpudoctor.render.formats",
)


def _twin(cls: type) -> type:
    """`cls` as `@dataclass(frozen=True)` makes it: the same fields, with their repr, compare, hash, init and kw_only
    flags, the same qualified name (in its methods too) and its own __post_init__."""
    spec = [
        (
            f.name,
            f.type,
            dataclasses.field(
                default=f.default,
                default_factory=f.default_factory,
                repr=f.repr,
                hash=f.hash,
                compare=f.compare,
                init=f.init,
                kw_only=f.kw_only,  # type: ignore[arg-type]
            ),
        )
        for f in dataclasses.fields(cls)
    ]
    namespace = {"__qualname__": cls.__qualname__, "__doc__": cls.__doc__}
    if "__post_init__" in vars(cls):
        namespace["__post_init__"] = vars(cls)["__post_init__"]
    frozen = cls.__dataclass_params__.frozen  # type: ignore[attr-defined]  # (a MutableRecord: @dataclass)
    return dataclasses.make_dataclass(cls.__name__, spec, frozen=frozen, namespace=namespace)


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
    classes = _record_classes()
    assert len(classes) >= 54
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


def _outcome(make: object, *args: object, **kwargs: object) -> tuple:
    """What a constructor call gives: its instance's attributes in order, or its exception's type and text."""
    try:
        made = make(*args, **kwargs)  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - the exception itself is compared
        return type(exc), str(exc)
    return ("made", list(vars(made).items())) if made is not None else ("done",)


def _calls(cls: type, values: dict[str, object]) -> list[tuple[tuple, dict]]:
    """Right and wrong calls of `cls` with the field values `values`: positional, by keyword (in and out of order),
    only the required fields; none, one too many, an unknown keyword, a field given twice, a keyword-only one
    given by position."""
    init = [f for f in dataclasses.fields(cls) if f.init]
    positional = [values[f.name] for f in init if not f.kw_only]
    keywords = {f.name: values[f.name] for f in init if f.kw_only}
    everything = {f.name: values[f.name] for f in init}
    required = [f.name for f in init if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    calls: list[tuple[tuple, dict]] = [
        (tuple(positional), keywords),
        ((), everything),
        ((), dict(reversed(everything.items()))),
        ((), {n: values[n] for n in required}),
        ((), {}),
        ((*positional, "x"), keywords),
        ((), {**everything, "no_such_field": 1}),
        ((), {**everything, "self": 1}),
        ((*positional[:1], *positional[:1]), {}),
    ]
    if positional:
        first = next(f.name for f in init if not f.kw_only)
        calls.append((tuple(positional), {**keywords, first: positional[0]}))
        calls.append((tuple(positional[:-1]), {}))
    if keywords:
        calls.append(((*positional, *keywords.values()), {}))
    return calls


def _same_construction(cls: type, twin: type, values: dict[str, object]) -> None:
    for args, kwargs in _calls(cls, values):
        assert _outcome(cls, *args, **kwargs) == _outcome(twin, *args, **kwargs), (cls, args, kwargs)


def _same_class(cls: type, twin: type) -> None:
    import inspect

    assert inspect.signature(cls) == inspect.signature(twin), cls
    assert cls.__init__.__annotations__ == twin.__init__.__annotations__, cls  # type: ignore[misc]
    assert cls.__init__.__qualname__ == twin.__init__.__qualname__, cls  # type: ignore[misc]
    assert cls.__doc__ == twin.__doc__ and cls.__match_args__ == twin.__match_args__, cls  # type: ignore[attr-defined]
    # As @dataclass(frozen=True, eq=False, repr=False) records them (the twin generates __eq__ and __repr__).
    ours, theirs = cls.__dataclass_params__, twin.__dataclass_params__  # type: ignore[attr-defined]
    assert (ours.init, ours.order, ours.unsafe_hash, ours.frozen, ours.eq, ours.repr) == (
        theirs.init,
        theirs.order,
        theirs.unsafe_hash,
        theirs.frozen,
        False,
        False,
    ), cls
    assert [(f.name, f.type, f.default, f.init, f.kw_only) for f in dataclasses.fields(cls)] == [
        (f.name, f.type, f.default, f.init, f.kw_only) for f in dataclasses.fields(twin)
    ], cls
    for method in ("__setattr__", "__delattr__"):
        assert getattr(cls, method).__qualname__ == getattr(twin, method).__qualname__
    assert (cls.__hash__ is None) == (twin.__hash__ is None), cls


def _same_frozen(value: object, twin_value: object) -> None:
    for name in [f.name for f in dataclasses.fields(value)] + ["not_a_field"]:  # type: ignore[arg-type]
        assert _outcome(setattr, value, name, 1) == _outcome(setattr, twin_value, name, 1)
        assert _outcome(delattr, value, name) == _outcome(delattr, twin_value, name)


def _record_classes() -> list[type]:
    """Every Record class (MutableRecord's too, not MutableRecord itself)."""
    for name in MODULES:
        importlib.import_module(name)
    found, todo = [], [Record]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if "__dataclass_fields__" in vars(sub):
                found.append(sub)
    return found


def test_every_record_class_is_built_without_compiled_methods():
    """Every Record class takes its __init__, __setattr__ and __delattr__ from record_class (one code object each,
    none compiled for the class) and has the same signature, docstring, fields and parameters as its twin."""
    classes = _record_classes()
    from gpudoctor.probed import Unknown

    for cls in classes:
        frozen = cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
        assert frozen != issubclass(cls, MutableRecord), cls
        for method in ("__init__", "__setattr__", "__delattr__") if frozen else ("__init__",):
            assert getattr(cls, method).__code__ is getattr(Unknown, method).__code__, (cls, method)
        assert frozen or cls.__setattr__ is object.__setattr__, cls
        _same_class(cls, _twin(cls))


def test_records_are_built_as_generated_dataclasses_build_them(built):
    """The values a check of every recorded machine holds, given again to each class and its twin, positionally, by
    keyword and in wrong calls: the same instance (attributes in the same order) or the same TypeError."""
    for cls, values in built.items():
        twin = _twin(cls)
        for value in values[:10]:
            _same_construction(cls, twin, {f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
            if cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
                _same_frozen(value, _as(twin, value))


def test_every_record_class_refuses_wrong_calls_as_generated_dataclasses_do():
    for cls in _record_classes():
        _same_construction(cls, _twin(cls), {f.name: "x" for f in dataclasses.fields(cls)})


def test_record_class_on_every_kind_of_field():
    """Declarations no gpudoctor record uses yet (the annotations' names imported at the top, as dataclasses needs), each against the same declaration made by dataclasses: defaults,
    default factories, keyword-only fields, fields outside __init__ (with a default, a factory, neither), a ClassVar,
    a __post_init__, no docstring, a nested class; an InitVar or a dataclass base is left to dataclasses itself."""

    def declare(make):  # the same declaration, made by `make`
        class Outer:
            class Kinds(Record):
                a: int
                b: str = "b"
                c: list = field(default_factory=list)
                d: int = field(default=4, init=False)
                e: list = field(default_factory=lambda: [5], init=False)
                f: int = field(init=False, repr=False)
                counter: ClassVar[int] = 0
                _: KW_ONLY
                g: int
                h: tuple = (8,)

                def __post_init__(self) -> None:
                    object.__setattr__(self, "b", self.b.upper())

        class Bare(Record):
            x: int
            y: int = 2

        class WithInitVar(Record):
            """One InitVar."""

            x: int
            scale: InitVar[int] = 1

            def __post_init__(self, scale: int) -> None:
                object.__setattr__(self, "x", self.x * scale)

        return make(Outer.Kinds), make(Bare), make(WithInitVar)

    ours = declare(record_class(frozen=True, eq=False, repr=False))
    theirs = declare(dataclasses.dataclass(frozen=True, eq=False, repr=False))
    values = {"a": 1, "b": "x", "c": [3], "g": 7, "h": (9,), "x": 3, "y": 4, "scale": 2}
    for cls, twin in zip(ours[:2], theirs[:2], strict=True):
        assert cls.__init__.__code__ is not twin.__init__.__code__  # type: ignore[misc]
        _same_class(cls, twin)
        names = [f.name for f in dataclasses.fields(cls) if f.init]
        _same_construction(cls, twin, {n: values[n] for n in names})
        args = [values[n] for n in names if n not in ("g", "h")]
        kwargs = {n: values[n] for n in ("g", "h") if n in names}
        _same_frozen(cls(*args, **kwargs), twin(*args, **kwargs))
    kinds = ours[0](1, g=7)  # type: ignore[call-arg]
    assert vars(kinds) == {"a": 1, "b": "B", "c": [], "e": [5], "g": 7, "h": (8,)}  # d and f: not set, as generated
    assert kinds.d == 4 and ours[0](1, g=7).c is not kinds.c
    assert ours[1].__doc__ == theirs[1].__doc__ and theirs[1].__doc__.startswith("Bare(x: ")  # dataclasses' own
    # An InitVar: dataclasses generates the methods (the same class as theirs).
    assert ours[2](3, 2).x == 6 == theirs[2](3, 2).x and ours[2].__init__.__code__.co_name == "__init__"
    assert ours[2].__init__.__code__ is not ours[1].__init__.__code__


def test_record_class_refuses_what_dataclasses_refuses():
    with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):

        @record_class(frozen=True, eq=False, repr=False)
        class Wrong(Record):
            x: int = 1
            y: int

    with pytest.raises(TypeError, match="declared @record_class"):
        record_class(frozen=True)  # eq and repr come from Record
    for base, frozen in ((object, True), (MutableRecord, True), (Record, False)):
        with pytest.raises(TypeError, match="a frozen record class is a Record, a mutable one a MutableRecord"):
            record_class(frozen=frozen, eq=False, repr=False)(type("Stray", (base,), {"__annotations__": {"x": "int"}}))


def test_mutable_record_class_is_what_dataclass_makes():
    def declare(make):
        class Env(MutableRecord):
            """A mutable record."""

            executable: str
            paths: list = field(default_factory=list)
            how: str = "x"

        return make(Env)

    ours, theirs = declare(record_class(eq=False, repr=False)), declare(dataclasses.dataclass(eq=False, repr=False))
    _same_class(ours, theirs)
    _same_construction(ours, theirs, {"executable": "python3", "paths": ["a"], "how": "y"})
    env = ours("python3")
    env.how = "z"
    del env.paths
    assert vars(env) == {"executable": "python3", "how": "z"} and ours.__hash__ is None is theirs.__hash__
    assert ours("a") == ours("a") != ours("b") and repr(ours("a")).endswith("Env(executable='a', paths=[], how='x')")


def test_a_record_class_holds_the_fields_params_and_defaults_dataclasses_gives_its_declaration():
    # record._declare writes what dataclasses' processing would (its own processing is not run for plain fields):
    # the same Field objects (their repr shows every flag and the field's kind), the same params and match args, each
    # field's default on the class (a declared field() replaced by its default, or removed), dataclasses' replace and
    # asdict alike. A class with a ClassVar or KW_ONLY goes to dataclasses, with the same outcome.
    def declare(make, base):
        class Plain(base):
            """Plain fields."""

            a: str
            b: int = 2
            c: tuple[str, ...] = ()
            d: dict = field(default_factory=dict)
            e: int = field(default=5, repr=False, compare=False)
            f: list = field(default_factory=list, init=False)
            g: str | None = field(default=None, kw_only=True)

        class Special(base):
            """A class variable, and keyword-only fields."""

            a: str
            count: ClassVar[int] = 0
            _: KW_ONLY
            b: int = 1

        return make(Plain), make(Special)

    for frozen, base in ((True, Record), (False, MutableRecord)):
        ours = declare(record_class(frozen=frozen, eq=False, repr=False), base)
        theirs = declare(dataclasses.dataclass(frozen=frozen, eq=False, repr=False), object)
        for cls, twin in zip(ours, theirs, strict=True):
            assert [repr(f) for f in dataclasses.fields(cls)] == [repr(f) for f in dataclasses.fields(twin)]
            assert repr(cls.__dataclass_params__) == repr(twin.__dataclass_params__)  # type: ignore[attr-defined]
            assert cls.__match_args__ == twin.__match_args__  # type: ignore[attr-defined]
            for name in ("b", "c", "d", "e", "f", "g", "count"):
                assert vars(cls).get(name, "absent") == vars(twin).get(name, "absent"), (cls, name)
        plain, twin = ours[0]("x", g="y"), theirs[0]("x", g="y")
        assert dataclasses.asdict(dataclasses.replace(plain, b=9)) == dataclasses.asdict(dataclasses.replace(twin, b=9))
        assert [f.name for f in dataclasses.fields(ours[1])] == ["a", "b"] and ours[1].count == 0
