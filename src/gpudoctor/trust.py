"""Whether root may run a program from a place: only where no one but root can change what runs.

Run as root, gpudoctor would otherwise execute whatever a user left at `$VIRTUAL_ENV/bin/python`,
`$CUDA_HOME/bin/nvcc` or in a toolkit that switch-cuda makes everyone's `/usr/local/cuda`. A place
is root's own when the file and every directory above it are owned by root and writable by no one
else: a non-root owner, or a group/other write bit, lets someone replace the file (or a directory on
the way to it) between our look and our run. Two exceptions, each safe by the kernel's own rules:
a directory with the sticky bit (`/tmp`) lets others add entries but not rename or delete root's,
and a group write bit for group 0 (root's own group) hands nothing to anyone outside it.

Pure: `untrusted_reason` takes the stat function (and the path resolver), so the rules are tested
with fake stats; the live callers pass `os.lstat` and `os.path.realpath`.
"""

from __future__ import annotations

import os
import posixpath
import stat as st
from collections.abc import Callable

StatFn = Callable[[str], os.stat_result]


def _ancestry(path: str) -> list[str]:
    """ "/a/b/c" -> ["/", "/a", "/a/b", "/a/b/c"]."""
    path = posixpath.normpath(posixpath.join("/", path))
    out = ["/"]
    for part in path.strip("/").split("/"):
        if part:
            out.append(posixpath.join(out[-1], part))
    return out


def _entry_problem(path: str, info) -> str | None:
    if info.st_uid != 0:
        return f"{path} is owned by uid {info.st_uid}, not root"
    if st.S_ISLNK(info.st_mode):
        return None  # a link's own mode means nothing; where it leads is checked as well
    mode = st.S_IMODE(info.st_mode)
    if mode & st.S_IWOTH and not (st.S_ISDIR(info.st_mode) and mode & st.S_ISVTX):
        return f"{path} is writable by every user (mode {mode:04o})"
    if mode & st.S_IWGRP and info.st_gid != 0 and not (st.S_ISDIR(info.st_mode) and mode & st.S_ISVTX):
        return f"{path} is writable by group {info.st_gid} (mode {mode:04o})"
    return None


def untrusted_reason(
    path: str, stat_fn: StatFn = os.lstat, resolve: Callable[[str], str] | None = os.path.realpath
) -> str | None:
    """None when `path` is root's own (see the module doc); else why not, in one clause.

    Both the path as named and the path it resolves to are checked: a venv's `bin/python` links to
    root's interpreter, but the venv beside it (its pyvenv.cfg, its site-packages with their .pth
    files that run at start) is the user's.
    """
    paths = [path]
    if resolve is not None:
        real = resolve(path)
        if real != path:
            paths.append(real)
    for p in paths:
        for entry in _ancestry(p):
            try:
                info = stat_fn(entry)
            except OSError as exc:
                return f"{entry} cannot be inspected ({exc.strerror or exc})"
            problem = _entry_problem(entry, info)
            if problem:
                return problem
    return None


def owned_by_root_only(path: str, stat_fn: StatFn = os.lstat, resolve: Callable[[str], str] | None = os.path.realpath) -> bool:
    return untrusted_reason(path, stat_fn, resolve) is None


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def refuse_to_run(path: str, stat_fn: StatFn = os.lstat) -> str | None:
    """Why this process must not execute `path`: set only when running as root and `path` is not root's own."""
    if not running_as_root():
        return None
    return untrusted_reason(path, stat_fn)


def refuse_on_host(host, path: str) -> str | None:
    """Why this process must not execute `path` on `host`: a live host, run as root, and `path` not root's own.

    A replayed snapshot runs nothing, so it never refuses. Under a temporary root (tests, chroots)
    the path is checked where it lies on disk.
    """
    if getattr(host, "mode", "live") != "live" or not running_as_root():
        return None
    root = getattr(host, "root", "/") or "/"
    on_disk = path if root == "/" or not path.startswith("/") else posixpath.join(root, path.lstrip("/"))
    if not on_disk.startswith("/"):
        return None  # a bare name: looked up on PATH by the caller, which checks what it found
    # Nothing there: running it fails by itself ("no such interpreter"), unless someone else could put
    # it there first. The nearest directory that exists decides.
    probe = on_disk
    while not os.path.lexists(probe) and probe != "/":
        probe = posixpath.dirname(probe)
    return untrusted_reason(probe)


def not_run_note(path: str, why: str) -> str:
    """The probe note for a program root did not run."""
    return f"{path} was not run: gpudoctor runs as root and {why}, so it was read as files only"
