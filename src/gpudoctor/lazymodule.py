"""A standard-library module imported where it is first read, not where it is named (`defer`).

`dataclasses` imports `inspect` at its top and reads it in one place only (CPython 3.11.7's Lib/dataclasses.py, line
1098): `_process_class` calls `inspect.signature(cls)` to write the docstring of a class that has none. On a Python
whose dataclasses reads more of it, the module is imported at that first read, and nothing else changes. Every
record class of gpudoctor has a docstring (`record.py`), so a bare check never reads it, yet importing it (with the
ast, dis, tokenize and linecache it imports) was 35 M instructions of the 291 M a bare check took, before the user's
interpreter is started (valgrind --tool=callgrind on `gpudoctor check`, h175).

The standard library's own way, `importlib.util.LazyLoader`, is not safe across threads on the 3.10 and 3.11 that
gpudoctor runs on (python/cpython issue 114763: a second thread reading the module while the first runs it sees it
half made; fixed by pull request 114781, merged in February 2024), and a check reads and imports in several threads;
so the placeholder here loads the module under a lock, and no thread reads it before it has run to its end.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types

_LOCK = threading.RLock()


class _Deferred(types.ModuleType):
    """In sys.modules in place of a module not yet imported: the first read of a name it lacks imports the module
    (the real one, into sys.modules) and copies its names here, so that whoever holds this object reads what the
    module holds from then on, without coming back here."""

    def __getattr__(self, name: str) -> object:
        with _LOCK:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
                try:
                    module = importlib.import_module(self.__name__)
                except BaseException:
                    sys.modules[self.__name__] = self
                    raise
                vars(self).update(vars(module))
        return getattr(sys.modules[self.__name__], name)


def defer(name: str) -> None:
    """Let `import name` give a placeholder that imports the module on its first read; nothing where the module is
    imported already (or deferred)."""
    if name not in sys.modules:
        sys.modules[name] = _Deferred(name)
