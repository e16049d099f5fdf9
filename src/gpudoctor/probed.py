"""The outcome of one probe: found, absent, or could not tell.

These are different diagnoses and are never folded together: "no driver"
(Absent) is not "nvidia-smi hung" (Unknown, timeout) is not "permission
denied on /dev/nvidia0" (Unknown, permission).
"""

from __future__ import annotations

from gpudoctor.record import Record, record_class

# typing's constant without typing: a bare check imports this module (bench/README.md, h161)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Generic, TypeVar

    T = TypeVar("T")
else:

    class Generic:
        """`Found` is generic for type checkers only: at run time `Found[X]` is `Found` itself (nothing asks what X
        was), so typing, which a bare check needed for nothing else, is not imported."""

        __slots__ = ()

        def __class_getitem__(cls, _item: object) -> type:
            return cls

    T = None

# Why a probe could not tell.
UNKNOWN_KINDS = ("permission", "timeout", "unparseable", "library-error", "crash", "not-recorded", "failed")


@record_class(frozen=True, eq=False, repr=False)
class Found(Record, Generic[T]):
    """A probe's answer: the value and where it was read (a file, `cmd:...`)."""

    value: T
    source: str

    status = "found"


@record_class(frozen=True, eq=False, repr=False)
class Absent(Record):
    """What a probe looked for is not there (no driver, no such program): a fact, not a failure."""

    reason: str
    source: str = ""

    status = "absent"


@record_class(frozen=True, eq=False, repr=False)
class Unknown(Record):
    """A probe could not tell (a timeout, a failure, no permission, unparseable output...): `kind` says which, `message` why."""

    kind: str
    message: str
    source: str = ""

    status = "unknown"

    @property
    def timed_out(self) -> bool:
        return self.kind == "timeout"


Probed = Found[T] | Absent | Unknown


def value_or_none(outcome: Probed[T]) -> T | None:
    return outcome.value if isinstance(outcome, Found) else None


def found_value(outcome: Probed[T]) -> T:
    """The value of an outcome the caller knows is Found: a guard before it (such as
    checks.frameworks.jax_cuda_major, None unless JAX was found) has returned otherwise."""
    assert isinstance(outcome, Found), f"expected a found outcome, not {outcome.status}"
    return outcome.value
