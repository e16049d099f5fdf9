"""A regular expression compiled at its first use, for module-level patterns most runs never use.

A bare `check` imports every check and parser, while many of their patterns read pasted evidence, a companion's
version, an error text or a GPU's facts only; compiling them at import cost a few milliseconds a run
(bench/check_imports.py). So every module-level pattern of the modules a check imports is one of these, except
the few tests/unit/test_check_imports.py names (56 of the 67 still compiled at import were never used by a bare
check on the project's machine, 24.6 M instructions of its 365 M: bench/README.md); those a check does use are
compiled where it first uses them, after the user's interpreter is started (gpudoctor.probes.run_probes).
"""

from __future__ import annotations

import re

# typing's constant without typing: `explain` imports only these modules, and typing is 11 M instructions of it
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class LazyPattern:
    """A pattern compiled at its first use (two threads may both compile it: the same pattern either way)."""

    # The pattern's methods become slots once compiled: each later `.search` is a plain attribute read, not a
    # __getattr__ call (every line of a paste is searched with tens of these).
    _METHODS = ("search", "match", "finditer", "findall", "fullmatch", "sub")
    __slots__ = ("_args", "_compiled", *_METHODS)

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def source(self) -> tuple[str, int]:
        """The pattern and its flags, without compiling it (gpudoctor.parsers.anchors reads what it requires)."""
        return self._args

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
            for method in self._METHODS:
                object.__setattr__(self, method, getattr(self._compiled, method))
        return getattr(self._compiled, name)
