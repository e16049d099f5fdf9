"""Change a file that belongs to someone (`fix --env-file ~/.bashrc`) without losing anything of it.

- **Through the link.** A dotfile that is a symbolic link (dotfile managers keep `~/.bashrc ->
  ~/dotfiles/bashrc`) stays a link: the file it leads to is the one changed.
- **Owner, group and mode kept.** The new content is written to a temporary file beside the target
  and given the target's owner, group and permission bits before it replaces it.
- **Atomic.** Written, fsynced, then renamed over the target (rename(2) replaces in one step), and
  the directory fsynced: at every instant the file is whole, old or new. A file that cannot be
  renamed over (a bind-mounted file: EBUSY, EXDEV) is written in place instead, the backup kept.
- **Hard links and read-only files respected.** A file with other hard links is written in place (its
  backup kept), so every name still shows one file; a read-only file is left as it is.
- **Checked before anything runs.** check_writable refuses a directory, a link loop, a file that is not
  regular or is read-only before `fix` runs its first step.
- **A backup.** The previous content is kept as FILE.gpudoctor-bak beside the target, same owner and mode.
- **Root trusts no one else's files.** Run as root, a file that a non-root user controls (it, or a
  directory or link on the way to it, is theirs) is not written: the user could have pointed the
  link at /etc/shadow. gpudoctor says so; the user runs the fix as themselves.
"""

from __future__ import annotations

import errno
import os
import stat

from gpudoctor.atomicfile import umask
from gpudoctor.errors import UnsafeOperation

BACKUP_SUFFIX = ".gpudoctor-bak"
MAX_BYTES = 4 * 1024 * 1024  # an rc or env file; anything larger is not one


def read_text(path: str) -> str:
    """The file's text ('' when it does not exist). Raises UnsafeOperation for what is not a small regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return ""
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafeOperation(f"{path} is not a regular file; left as it is")
        data = fh.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise UnsafeOperation(f"{path} is larger than {MAX_BYTES // (1024 * 1024)} MiB: not an rc or env file; left as it is")
    return data.decode("utf-8", "surrogateescape")


def _refuse_as_root(path: str, real: str) -> None:
    from gpudoctor.trust import running_as_root, untrusted_reason

    if not running_as_root():
        return
    # The name as given (a user's link), then where the write lands: the target, or its directory for a new file.
    why = (untrusted_reason(path) if os.path.lexists(path) else untrusted_reason(os.path.dirname(path))) or untrusted_reason(
        real if os.path.exists(real) else os.path.dirname(real)
    )
    if why:
        raise UnsafeOperation(
            f"not writing {path} as root: {why}",
            "run the fix as the user who owns that file (it needs no root)",
        )


def check_writable(path: str) -> None:
    """Before anything else runs: UnsafeOperation when `path` cannot take a line the way write_preserving
    writes it (a directory, a link loop, not a regular file, read-only, or root and someone else's file)."""
    path = os.path.abspath(os.path.expanduser(path))
    try:
        st = os.stat(path)
    except FileNotFoundError:
        # No file yet (or a dangling link: the file it names is created): its directory must exist.
        if not os.path.isdir(os.path.dirname(os.path.realpath(path))):
            raise UnsafeOperation(f"{path}: its directory does not exist; nothing written") from None
        _refuse_as_root(path, os.path.realpath(path))
        return
    except OSError as exc:
        # ELOOP (a link loop), EACCES, ENAMETOOLONG: said now, before any step of the fix runs.
        raise UnsafeOperation(f"{path} cannot be used: {exc.strerror or exc}; nothing written") from None
    if stat.S_ISDIR(st.st_mode):
        raise UnsafeOperation(f"{path} is a directory, not a file; nothing written", "name the file itself (~/.bashrc, .env)")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeOperation(f"{path} is not a regular file; nothing written")
    if not st.st_mode & stat.S_IWUSR:
        raise UnsafeOperation(
            f"{path} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); left as it is",
            "make it writable first if it should change",
        )
    _refuse_as_root(path, os.path.realpath(path))


def write_preserving(path: str, text: str) -> str | None:
    """Replace the content of `path` (following links) with `text`, as the module doc says.

    Returns the backup's path (None when there was no file before). Raises UnsafeOperation when the
    file cannot be changed that way (root and someone else's file; its owner cannot be kept; it is
    read-only, a directory or not a regular file: check_writable).
    """
    from gpudoctor.atomicfile import write_file

    check_writable(path)
    path = os.path.abspath(os.path.expanduser(path))
    real = os.path.realpath(path)
    directory, name = os.path.split(real)
    data = text.encode("utf-8", "surrogateescape")
    try:
        before = os.stat(real)
    except FileNotFoundError:
        before = None
    backup = None
    if before is not None:
        backup = real + BACKUP_SUFFIX
        old = read_text(real).encode("utf-8", "surrogateescape")
        try:
            write_file(directory, name + BACKUP_SUFFIX, old, mode=before.st_mode, owner=(before.st_uid, before.st_gid))
        except PermissionError:
            raise UnsafeOperation(
                f"cannot keep {path}'s owner and a backup beside it (owned by uid {before.st_uid}); left as it is",
                "run the fix as the user who owns the file",
            ) from None
        if before.st_nlink > 1:
            # Hard links: a rename would split them (the other names keep the old text); every name must see the change.
            return _write_in_place(real, data, backup)
    owner = (before.st_uid, before.st_gid) if before is not None else None
    mode = before.st_mode if before is not None else 0o644 & ~umask()
    try:
        write_file(directory, name, data, mode=mode, owner=owner)
    except OSError as exc:
        if exc.errno in (errno.EBUSY, errno.EXDEV) and before is not None:
            return _write_in_place(real, data, backup)  # a bind-mounted file cannot be renamed over
        raise
    return backup


def _write_in_place(real: str, data: bytes, backup: str | None) -> str | None:
    """Not atomic (the backup is the way back): for files whose directory cannot take a new file, and
    hard-linked files (every link keeps seeing one file)."""
    fd = os.open(real, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "wb") as fh:
        fh.truncate(0)
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    return backup
