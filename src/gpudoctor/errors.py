"""The errors gpudoctor raises on purpose; the CLI renders each as one clean message."""

from __future__ import annotations


class GpudoctorError(Exception):
    """Base class: `message` says what went wrong, `hint` what to do about it."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class ParseError(GpudoctorError):
    """A text could not be parsed as the format a parser expects."""


class SnapshotError(GpudoctorError):
    """A snapshot file is unreadable, malformed, or of an unknown format version."""


class MatrixError(GpudoctorError):
    """The compatibility matrix (bundled or candidate) failed validation."""

    def __init__(self, problems: list[str], hint: str | None = None) -> None:
        self.problems = list(problems)
        super().__init__("invalid compatibility matrix:\n" + "\n".join(f"  {p}" for p in problems), hint)


class UsageError(GpudoctorError):
    """The user asked for something malformed (a bad spec, an unknown code)."""


class UnsafeOperation(GpudoctorError):
    """A mutation was refused because it could destroy something we did not create."""
