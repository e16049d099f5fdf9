"""`Record`: the `__eq__`, `__hash__` and `__repr__` that `@dataclass(frozen=True)` generates, written once.

A class declared `@dataclass(frozen=True, eq=False, repr=False)` on `Record` behaves as one declared
`@dataclass(frozen=True)`: the same fields compared, in the same order, only with an instance of the very
same class; the same hash (of the same tuple, so sets iterate alike); the same repr (its `__qualname__`,
the fields with repr=True, `...` for a recursive one). dataclasses writes those three methods as source and
compiles them for every class at import: for the 52 frozen classes a bare `check` imports (the facts, the
findings, the commands...), a sixth of its instructions (bench/README.md). `__init__` stays generated, so
type checkers still check every constructor call. tests/unit/test_record.py compares each such class with
its twin made by `@dataclass(frozen=True)` on real instances.
"""

from __future__ import annotations

import dataclasses
import reprlib

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


class Record:
    """The base of gpudoctor's frozen dataclasses that a check builds (see the module's docstring)."""

    __slots__ = ()

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
