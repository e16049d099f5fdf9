"""Windows paths as the host seam handles them, on any machine.

A snapshot recorded on Windows names `C:\\Program Files\\...` or `C:/Python311/...`; hand-written ones
mix both and the case of the letters. Every such path is brought to one canonical form before it is
looked up: forward slashes, an upper-case drive letter, `.` and `..` folded, no trailing slash except
at the root `C:/`. Lookups compare case-insensitively, as Windows does. Pure string work (ntpath, not
the running OS), so Linux CI replays Windows machines exactly as a Windows run reads them.
"""

from __future__ import annotations

import ntpath
from collections.abc import Callable

from gpudoctor.lazypattern import LazyPattern

_ABSOLUTE = LazyPattern(r"^[A-Za-z]:[\\/]")


def is_windows_path(path: str) -> bool:
    """A drive-letter absolute path (C:\\... or C:/...). Drive-relative `C:foo` and UNC paths are not."""
    return _ABSOLUTE.match(path) is not None


def canon(path: str) -> str:
    """`c:\\Program Files\\NVIDIA\\..\\x\\` -> `C:/Program Files/x`."""
    folded = ntpath.normpath(path).replace("\\", "/")
    folded = folded[0].upper() + folded[1:]
    return folded if len(folded) <= 3 else folded.rstrip("/")


def key(path: str) -> str:
    """The case-insensitive lookup key of a canonical path."""
    return canon(path).casefold()


def parent(path: str) -> str:
    """The directory holding `path`; the root's parent is the root."""
    path = canon(path)
    if len(path) <= 3:
        return path
    head = path.rsplit("/", 1)[0]
    return head + "/" if len(head) == 2 else head


def basename(path: str) -> str:
    path = canon(path)
    return "" if len(path) <= 3 else path.rsplit("/", 1)[1]


def join(directory: str, *names: str) -> str:
    return canon("/".join((canon(directory).rstrip("/"), *names)))


def is_root(path: str) -> bool:
    return len(canon(path)) <= 3


def to_native(path: str) -> str:
    """The path as Windows prints it (backslashes), for what a person reads or types."""
    return canon(path).replace("/", "\\")


# What `where` tries after a bare name when PATHEXT is not recorded (Windows' own default, shortened to
# what a program gpudoctor looks for can be).
_EXTENSIONS = (".exe", ".bat", ".cmd", ".com")


def path_entries(path_value: str) -> list[str]:
    """PATH's directories in order, canonical; relative and empty entries dropped, quotes removed."""
    out = []
    for entry in path_value.split(";"):
        entry = entry.strip().strip('"')
        if is_windows_path(entry):
            out.append(canon(entry))
    return out


def which(path_value: str, name: str, is_file: Callable[[str], bool]) -> str | None:
    """The first `name` (with .exe, ...) in the directories of a Windows PATH for which `is_file` holds."""
    names = [name] if ntpath.splitext(name)[1] else [name + ext for ext in _EXTENSIONS]
    for directory in path_entries(path_value):
        for candidate in names:
            full = join(directory, candidate)
            if is_file(full):
                return full
    return None
