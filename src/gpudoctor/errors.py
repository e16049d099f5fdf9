"""The errors gpudoctor raises on purpose; the CLI renders each as one clean message.

Each carries the exit status it ends the command with (docs/exit-codes.md): 2 when the command line
is wrong (a bad value, a path that does not exist), 3 when an input or the doctor itself is unusable.
"""

from __future__ import annotations

# Plain ints, not gpudoctor.model.ExitCode: this module is imported before anything else is.
_USAGE = 2
_ERROR = 3


class GpudoctorError(Exception):
    """Base class: `message` says what went wrong, `hint` what to do about it."""

    exit_code = _ERROR

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class ParseError(GpudoctorError):
    """A text could not be parsed as the format a parser expects."""


class InputError(GpudoctorError):
    """An input file exists but cannot be used: not a regular file, too large, not UTF-8 text,
    not JSON, nested too deeply, or not the document it should be (exit 3)."""


class SnapshotError(InputError):
    """A snapshot file is unreadable, malformed, or of an unknown format version."""


class MatrixError(GpudoctorError):
    """The compatibility matrix (bundled or candidate) failed validation."""

    def __init__(self, problems: list[str], hint: str | None = None) -> None:
        self.problems = list(problems)
        super().__init__("invalid compatibility matrix:\n" + "\n".join(f"  {p}" for p in problems), hint)


class UsageError(GpudoctorError):
    """The user asked for something malformed (a bad spec, an unknown code) (exit 2)."""

    exit_code = _USAGE


class MissingInput(UsageError):
    """A file or directory named on the command line does not exist (exit 2: a wrong argument)."""


class UnsafeOperation(GpudoctorError):
    """A mutation was refused because it could destroy something we did not create."""
