"""`Record` and `record_class`: the methods `@dataclass(frozen=True)` generates, written once.

A class declared `@record_class(frozen=True, eq=False, repr=False)` on `Record` behaves as one declared
`@dataclass(frozen=True)`. From `Record`: the same fields compared, in the same order, only with an instance of
the very same class; the same hash (of the same tuple, so sets iterate alike); the same repr (its `__qualname__`,
the fields with repr=True, `...` for a recursive one). From `record_class`: the same `__init__` (parameters,
defaults, default factories, keyword-only fields, `__post_init__`, and for a call it refuses, its very TypeError),
the same frozen `__setattr__` and `__delattr__`, dataclasses' own fields, `replace`, `asdict` and
`__dataclass_params__`, and the same `inspect.signature(cls)` (made when asked: `_Signature`). `@record_class(eq=False, repr=False)` on `MutableRecord` likewise makes what `@dataclass`
makes (unhashable, assignable). dataclasses writes each of those methods as source and compiles it for every class
at import: for the 54 classes a bare `check` imports (the facts, the findings, the commands...) about a quarter of
its instructions (bench/README.md). Type checkers see `record_class` as `dataclasses.dataclass` itself, so they
still check every constructor call. tests/unit/test_record.py compares each such class with its twin made by
`@dataclass` on real instances and on wrong calls.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import reprlib
import sys
import types
from dataclasses import MISSING, FrozenInstanceError

from gpudoctor.lazypattern import LazyPattern

# typing's constant without typing: a live check imports this module before it starts the user's interpreter
# (bench/README.md, h151)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Per class: the names its generated __eq__, __hash__ and __repr__ would read (dataclasses' own selection).
_NAMES: dict[type, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}


def _names(cls: type) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    names = _NAMES.get(cls)
    if names is None:
        fields = dataclasses.fields(cls)
        names = (
            tuple(f.name for f in fields if f.compare),
            tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)),
            tuple(f.name for f in fields if f.repr),
        )
        _NAMES[cls] = names
    return names


# Per record class whose __init__ is `_init`'s: its fields, until `inspect.signature(cls)` first asks (`_Signature`).
_UNSIGNED: dict[type, tuple[dataclasses.Field, ...]] = {}
_SIGNED: dict[type, Any] = {}


class _Signature:
    """`cls.__signature__` of a class whose `__init__` is `_init`'s, as `inspect.signature(cls)` reads it: the
    signature of the `__init__` dataclasses would generate, without `self` (as inspect shows a class's), made when
    first asked. Made at import for each class it was about 6 M instructions of a bare check, which never asks; the
    `__init__` itself shows `(self, *args, **kwargs)`. Any other class (a subclass, an instance) has none here, and
    inspect reads its `__init__` as for any class."""

    def __get__(self, instance: object, owner: type) -> Any:
        if instance is not None or (owner not in _SIGNED and owner not in _UNSIGNED):
            raise AttributeError("__signature__")
        if owner not in _SIGNED:
            _SIGNED[owner] = _signature(_UNSIGNED.pop(owner))
        return _SIGNED[owner]


class Record:
    """The base of gpudoctor's frozen dataclasses that a check builds (see the module's docstring)."""

    __slots__ = ()
    __signature__ = _Signature()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            compared = _names(self.__class__)[0]
            return tuple(getattr(self, n) for n in compared) == tuple(getattr(other, n) for n in compared)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in _names(self.__class__)[1]))

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in _names(self.__class__)[2])
        return f"{self.__class__.__qualname__}({shown})"


if TYPE_CHECKING:
    # For type checkers a record class IS the dataclass it is declared as: every constructor call is checked.
    from dataclasses import dataclass as record_class
else:

    def record_class(cls=None, /, *, frozen=False, eq=True, repr=True):
        """`@record_class(frozen=True, eq=False, repr=False)` on a `Record` subclass, `@record_class(eq=False,
        repr=False)` on a `MutableRecord` one: the class that `@dataclass` with those arguments makes, its
        `__init__` (and frozen, its `__setattr__` and `__delattr__`) made without compiling source."""
        if cls is not None or eq or repr:
            raise TypeError("declared @record_class(frozen=True, eq=False, repr=False), or (eq=False, repr=False)")
        return functools.partial(_make, frozen=frozen)


class MutableRecord(Record):
    """The base of gpudoctor's mutable dataclasses (`@record_class(eq=False, repr=False)`): compared and printed as
    `Record`'s, and unhashable, as `@dataclass` makes a class whose `__eq__` it writes."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]


def _make(cls: type, frozen: bool) -> type:
    if not issubclass(cls, Record) or issubclass(cls, MutableRecord) == frozen:
        # Its __eq__, __hash__ and __repr__ would not be the ones @dataclass writes.
        raise TypeError(f"{cls.__qualname__}: a frozen record class is a Record, a mutable one a MutableRecord")
    own = cls.__dict__
    if (
        any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:])
        or any(name in own for name in ("__init__", "__setattr__", "__delattr__", "__slots__"))
        or any("InitVar" in str(kind) for kind in own.get("__annotations__", {}).values())
    ):
        # What this module does not write itself (dataclass bases, InitVar, own methods): generated as before.
        return dataclasses.dataclass(frozen=frozen, eq=False, repr=False)(cls)
    documented = bool(cls.__doc__)
    # init=False and frozen=False: dataclasses compiles nothing for the class (eq and repr come from Record).
    if not _declare(cls, frozen):
        cls = dataclasses.dataclass(init=False, eq=False, repr=False)(cls)
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    params.init, params.frozen = True, frozen  # as @dataclass(frozen=frozen, eq=False, repr=False) records them
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    for f in fields:
        if hasattr(type(getattr(cls, f.name, None)), "__set__"):
            raise TypeError(f"{cls.__qualname__}.{f.name}: a record's field cannot be a data descriptor")
    _init(cls, fields)
    if frozen:
        _frozen(cls, frozenset(f.name for f in fields))
    if not documented:  # dataclasses' docstring: the name and the constructor's signature
        import inspect

        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    return cls


# What `dataclasses.dataclass(init=False, eq=False, repr=False)` gives a class of plain fields, learnt from a template
# class the first time (`_learn`): its params, the kind its fields are marked with, and what else it sets on the class.
_LEARNT: dict[str, Any] = {}


def _learn() -> dict[str, Any]:
    if not _LEARNT:

        class Template:
            """Documented: dataclasses would import inspect to write a docstring (gpudoctor.lazymodule)."""

            x: int

        before = set(vars(Template))
        dataclasses.dataclass(init=False, eq=False, repr=False)(Template)
        added = {n: v for n, v in vars(Template).items() if n not in before and n not in _WRITTEN}
        # Only what is the same for every class (3.13's `__replace__`, dataclasses' own function) can be copied.
        shared = all(getattr(dataclasses, getattr(v, "__name__", ""), None) is v for v in added.values())
        # The params of a record class, as @dataclass(frozen=..., eq=False, repr=False) records them: one object for
        # every frozen class and one for every mutable one (dataclasses never changes a class's params once made).
        params = {}
        for frozen in (True, False):
            params[frozen] = copy.copy(Template.__dataclass_params__)  # type: ignore[attr-defined]
            params[frozen].init, params[frozen].frozen = True, frozen
        kind = Template.__dataclass_fields__["x"]._field_type  # type: ignore[attr-defined]
        _LEARNT.update(params=params if shared else None, kind=kind, added=added)
    return _LEARNT


_WRITTEN = frozenset(("__dataclass_params__", "__dataclass_fields__", "__match_args__", "__doc__", "__annotations__"))


def _declare(cls: type, frozen: bool) -> bool:
    """Give `cls` what `dataclasses.dataclass(init=False, eq=False, repr=False)` would (its fields, params and match
    args, its fields' defaults on the class) without running dataclasses' processing, a third of a record class's
    making (12 M instructions of a bare check, bench/README.md h226); False, and `cls` untouched, for any class that
    is not plain string-annotated fields (a ClassVar, InitVar or KW_ONLY, a field without annotation, an unhashable
    default, an abstract base): dataclasses decides those, as it would."""
    learnt = _learn()
    if learnt["params"] is None or hasattr(cls, "__abstractmethods__"):
        return False
    own = cls.__dict__
    annotations = own.get("__annotations__", {})
    namespace = vars(sys.modules[cls.__module__]) if cls.__module__ in sys.modules else {}
    fields: dict[str, dataclasses.Field] = {}
    for name, kind in annotations.items():
        if not isinstance(kind, str) or _names_special(kind, namespace):
            return False
        default: Any = getattr(cls, name, MISSING)
        if isinstance(default, types.MemberDescriptorType):
            return False  # (a slot)
        f = default if isinstance(default, dataclasses.Field) else dataclasses.field(default=default)
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            return False  # (a mutable default, which dataclasses refuses)
        fields[name] = f
    if any(isinstance(v, dataclasses.Field) and n not in annotations for n, v in own.items()):
        return False
    for name, f in fields.items():
        f.name, f.type, f._field_type = name, annotations[name], learnt["kind"]  # type: ignore[attr-defined]
        if f.kw_only is MISSING:
            f.kw_only = False
        if isinstance(own.get(name), dataclasses.Field):  # the declared field becomes its default, as dataclasses does
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    cls.__dataclass_params__ = learnt["params"][frozen]  # type: ignore[attr-defined]
    cls.__dataclass_fields__ = fields  # type: ignore[attr-defined]
    if "__match_args__" not in own:
        cls.__match_args__ = tuple(n for n, f in fields.items() if f.init and not f.kw_only)  # type: ignore[attr-defined,misc]
    for name, value in learnt["added"].items():
        if name not in own:
            setattr(cls, name, value)
    return True


def _names_special(annotation: str, namespace: dict) -> bool:
    """Whether the annotation's first name, which dataclasses reads (`Name` or `module.Name`), may be ClassVar, InitVar
    or KW_ONLY: one of those names, or a name the class's module binds to one of them, to typing or to dataclasses."""
    m = _FIRST_NAME.match(annotation)
    if m is None:
        return False
    for word in m.groups():
        if word is None:
            continue
        bound = namespace.get(word)
        if word in _SPECIAL_NAMES or bound is dataclasses.InitVar or bound is dataclasses.KW_ONLY or bound is dataclasses:
            return True
        if isinstance(bound, types.ModuleType) and bound.__name__ == "typing" or getattr(bound, "_name", None) == "ClassVar":
            return True
    return False


# dataclasses' own reading of a string annotation's first name (_MODULE_IDENTIFIER_RE in Lib/dataclasses.py, 3.10-3.13)
_FIRST_NAME = LazyPattern(r"^(?:\s*(\w+)\s*\.)?\s*(\w+)")
_SPECIAL_NAMES = frozenset(("ClassVar", "InitVar", "KW_ONLY"))


def _init(cls: type, fields: tuple[dataclasses.Field, ...]) -> None:
    """The `__init__` dataclasses would generate: the same parameters, defaults and default factories, the values
    set in the fields' order, then `__post_init__`; a call it would refuse raises its very TypeError (`_refuse`)."""
    positional = tuple(f.name for f in fields if f.init and not f.kw_only)
    accepted = frozenset(f.name for f in fields if f.init)
    required = frozenset(f.name for f in fields if f.init and f.default is MISSING and f.default_factory is MISSING)
    plan = tuple((f.name, f.init, f.default, f.default_factory) for f in fields)
    every = len(positional) == len(plan)  # every field positional: a full positional call sets them as given
    post_init = hasattr(cls, "__post_init__")
    later = False
    for f in fields:  # dataclasses' own check of the declaration
        if f.init and not f.kw_only:
            if f.default is not MISSING or f.default_factory is not MISSING:
                later = True
            elif later:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if every and not kwargs and len(args) == len(plan):
            self.__dict__.update(zip(positional, args, strict=True))
        else:
            given = dict(zip(positional, args, strict=False))  # too many: refused below
            if (
                len(args) > len(positional)
                or not accepted.issuperset(kwargs)
                or not given.keys().isdisjoint(kwargs)
                or not required.issubset(given.keys() | kwargs.keys())
            ):
                _refuse(cls, self, args, kwargs)
                return
            given.update(kwargs)
            values = self.__dict__
            for name, init, default, factory in plan:
                if init and name in given:
                    values[name] = given[name]
                elif factory is not MISSING:
                    values[name] = factory()
                elif init and default is not MISSING:
                    values[name] = default  # (a field outside __init__ with a default is read from the class)
        if post_init:
            self.__post_init__()

    _UNSIGNED[cls] = fields  # its signature is made when asked (`_Signature`)
    __init__.__annotations__ = {**{f.name: f.type for f in fields if f.init}, "return": None}
    _place(cls, __init__)


def _refuse(cls: type, self: object, args: tuple, kwargs: dict) -> None:
    """A call the generic `__init__` does not bind: made to the `__init__` dataclasses generates for the same
    fields (compiled now, once per class called so), which raises the TypeError Python gives for that call."""
    twin = _TWINS.get(cls)
    if twin is None:
        twin = type(cls.__name__, (), {"__qualname__": cls.__qualname__, "__module__": cls.__module__, "__annotations__": {}})
        for f in dataclasses.fields(cls):
            twin.__annotations__[f.name] = f.type
            made = dataclasses.field(default=f.default, default_factory=f.default_factory, init=f.init, kw_only=f.kw_only)
            setattr(twin, f.name, made)
        frozen = cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
        twin = _TWINS[cls] = dataclasses.dataclass(frozen=frozen, eq=False, repr=False)(twin)
    probe: Any = object.__new__(twin)
    twin.__init__(probe, *args, **kwargs)  # type: ignore[misc]  # the generated method, called as cls(...) would
    # Accepted after all (the generated method decides; the checks above refuse nothing it accepts): its values.
    self.__dict__.update(vars(probe))
    if hasattr(cls, "__post_init__"):
        self.__post_init__()  # type: ignore[attr-defined]


# Per record class, its twin made by dataclasses (only for a class called with arguments it refuses).
_TWINS: dict[type, type] = {}


def _signature(fields: tuple[dataclasses.Field, ...]) -> Any:
    import inspect  # imported by dataclasses already

    kind = inspect.Parameter
    factory_default = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", MISSING)  # its repr: <factory>
    return inspect.Signature(
        [
            kind(
                f.name,
                kind.KEYWORD_ONLY if f.kw_only else kind.POSITIONAL_OR_KEYWORD,
                default=f.default
                if f.default is not MISSING
                else factory_default
                if f.default_factory is not MISSING
                else kind.empty,
                annotation=f.type,
            )
            for f in sorted((f for f in fields if f.init), key=lambda f: bool(f.kw_only))
        ],
        return_annotation=None,
        __validate_parameters__=False,  # its order and names: dataclasses' fields, checked by `_init`
    )


def _frozen(cls: Any, names: frozenset[str]) -> None:
    """The frozen `__setattr__` and `__delattr__` dataclasses would generate for `cls`."""

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    _place(cls, __setattr__)
    _place(cls, __delattr__)


def _place(cls: type, method: Any) -> None:
    method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
    method.__module__ = cls.__module__
    setattr(cls, method.__name__, method)
