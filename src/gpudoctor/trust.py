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


def _owner_problem(path: str, stat_fn: StatFn = os.lstat) -> int | None:
    """The uid of the first non-root owner on `path`'s way (as named, then resolved); None when there is none."""
    for p in dict.fromkeys((path, os.path.realpath(path))):
        for entry in _ancestry(p):
            try:
                uid = stat_fn(entry).st_uid
            except OSError:
                break
            if uid != 0:
                return uid
    return None


def search_path_for_root(
    entries: str | None, what: str, stat_fn: StatFn = os.lstat, resolve: Callable[[str], str] | None = os.path.realpath
) -> tuple[str, list[str]]:
    """A PATH-like list (`a:b:c`) with only the directories root may trust, and a note per entry left out.

    Left out: a relative entry (`.`, `bin`, and the empty entry that a leading, doubled or trailing
    `:` means: the current directory), and a directory someone other than root can change
    (untrusted_reason). What remains is in its order; `what` names the variable in the notes.
    """
    kept: list[str] = []
    notes: list[str] = []
    if not entries:
        return "", notes
    for entry in entries.split(":"):
        if not entry.startswith("/"):
            shown = entry or "an empty entry (the current directory)"
            notes.append(f"{what}: {shown} skipped: relative to the current directory, which root does not choose")
            continue
        why = untrusted_reason(entry, stat_fn, resolve)
        if why:
            notes.append(f"{what}: {entry} skipped: {why}")
            continue
        if entry not in kept:
            kept.append(entry)
    return ":".join(kept), notes


def environ_for_root(environ: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The environment a program started by root gets: PATH and LD_LIBRARY_PATH without the entries
    root may not trust (search_path_for_root), LD_PRELOAD and LD_AUDIT without libraries someone else
    can change; the notes say what was left out. Not root: the environment unchanged, no notes."""
    if not running_as_root():
        return dict(environ), []
    out = dict(environ)
    notes: list[str] = []
    if "PATH" in environ:
        out["PATH"], skipped = search_path_for_root(environ["PATH"], "PATH")
        notes += skipped
    for name in ("LD_LIBRARY_PATH",):
        if name in environ:
            kept, skipped = search_path_for_root(environ[name], name)
            notes += skipped
            if kept:
                out[name] = kept
            else:
                del out[name]
    for name in ("LD_PRELOAD", "LD_AUDIT"):
        if name in environ:
            libs = [lib for lib in environ[name].replace(" ", ":").split(":") if lib]
            bad = [lib for lib in libs if not lib.startswith("/") or untrusted_reason(lib)]
            if bad:
                notes.append(f"{name}: {', '.join(bad)} not passed on: a library someone other than root can change")
                good = [lib for lib in libs if lib not in bad]
                if good:
                    out[name] = ":".join(good)
                else:
                    del out[name]
    return out, notes


def run_as_owner(argv0: str, stat_fn: StatFn = os.lstat) -> tuple[int | None, str] | None:
    """For a command printed for root to paste: None when `argv0` (an absolute program path) is root's
    own; else (the uid of the user who can change it, or None when it is not one user's) and why."""
    if not argv0.startswith("/"):
        return None
    probe = argv0
    while not os.path.lexists(probe) and probe != "/":
        probe = posixpath.dirname(probe)
    why = untrusted_reason(probe, stat_fn)
    if why is None:
        return None
    return _owner_problem(probe, stat_fn), why


# Where the dynamic loader looks after LD_LIBRARY_PATH (ld.so(8)), for library_for_root.
_DEFAULT_LIB_DIRS = (
    "/lib",
    "/usr/lib",
    "/lib64",
    "/usr/lib64",
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib/aarch64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib/wsl/lib",
)


def _ld_so_conf_dirs(path: str = "/etc/ld.so.conf", _depth: int = 0) -> list[str]:
    """The directories /etc/ld.so.conf names (its `include` globs followed, a few levels deep)."""
    import glob

    out: list[str] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read(256 * 1024).splitlines()
    except OSError:
        return out
    for raw in lines:
        line = raw.split("#", 1)[0].strip()
        if line.startswith("include ") and _depth < 4:
            for inc in sorted(glob.glob(line[len("include ") :].strip())):
                out += _ld_so_conf_dirs(inc, _depth + 1)
        elif line.startswith("/"):
            out.append(line)
    return out


def library_for_root(soname: str, environ: dict[str, str] | None = None) -> str | None:
    """As root: the absolute path of `soname` in the first directory only root can change, searched as the
    loader would (LD_LIBRARY_PATH's trusted entries, ld.so.conf's directories, the default ones); None
    when there is none. The loader read LD_LIBRARY_PATH when this process started, so a user's entry
    cannot be taken out of a plain dlopen(soname) any more: root loads the library by this path instead,
    and a later dlopen(soname) (pynvml's) gets the copy already loaded."""
    env = os.environ if environ is None else environ
    trusted, _ = search_path_for_root(env.get("LD_LIBRARY_PATH"), "LD_LIBRARY_PATH")
    dirs = [d for d in trusted.split(":") if d] + _ld_so_conf_dirs() + list(_DEFAULT_LIB_DIRS)
    for d in dict.fromkeys(dirs):
        candidate = posixpath.join(d, soname)
        if os.path.exists(candidate) and untrusted_reason(candidate) is None:
            return candidate
    return None
