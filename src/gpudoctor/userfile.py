"""Change a file that belongs to someone (`fix --env-file ~/.bashrc`) without losing anything of it.

- **Through the link.** A dotfile that is a symbolic link (dotfile managers keep `~/.bashrc ->
  ~/dotfiles/bashrc`) stays a link: the file it leads to is the one changed.
- **Owner, group and mode kept.** The new content is written to a temporary file beside the target
  and given the target's owner, group and permission bits before it replaces it.
- **Atomic.** Written, fsynced, then renamed over the target (rename(2) replaces in one step), and
  the directory fsynced: at every instant the file is whole, old or new. A file that cannot be
  renamed over (a bind-mounted file: EBUSY, EXDEV) is written in place instead, the backup kept.
- **A backup.** The previous content is kept as FILE.gpudoctor-bak beside the target, same owner and mode.
- **Root trusts no one else's files.** Run as root, a file that a non-root user controls (it, or a
  directory or link on the way to it, is theirs) is not written: the user could have pointed the
  link at /etc/shadow. gpudoctor says so; the user runs the fix as themselves.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

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


def _fsync_dir(directory: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_new(directory: str, name: str, data: bytes, like: os.stat_result | None) -> str:
    """A new file in `directory` holding `data`, with `like`'s owner and mode; returns its path."""
    tmp = os.path.join(directory, f".{name}.gpudoctor-{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            if like is not None:
                if (like.st_uid, like.st_gid) != (os.fstat(fh.fileno()).st_uid, os.fstat(fh.fileno()).st_gid):
                    os.fchown(fh.fileno(), like.st_uid, like.st_gid)
                os.fchmod(fh.fileno(), like.st_mode & 0o7777)
            else:
                os.fchmod(fh.fileno(), 0o644 & ~_umask())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_preserving(path: str, text: str) -> str | None:
    """Replace the content of `path` (following links) with `text`, as the module doc says.

    Returns the backup's path (None when there was no file before). Raises UnsafeOperation when the
    file cannot be changed that way (root and someone else's file; its owner cannot be kept).
    """
    path = os.path.abspath(os.path.expanduser(path))
    real = os.path.realpath(path)
    _refuse_as_root(path, real)
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
            tmp_backup = _write_new(directory, name + BACKUP_SUFFIX, old, before)
            os.replace(tmp_backup, backup)
        except PermissionError:
            raise UnsafeOperation(
                f"cannot keep {path}'s owner and a backup beside it (owned by uid {before.st_uid}); left as it is",
                "run the fix as the user who owns the file",
            ) from None
    tmp = _write_new(directory, name, data, before)
    try:
        os.replace(tmp, real)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if exc.errno in (errno.EBUSY, errno.EXDEV) and before is not None:
            return _write_in_place(real, data, backup)  # a bind-mounted file cannot be renamed over
        raise
    _fsync_dir(directory)
    return backup


def _write_in_place(real: str, data: bytes, backup: str | None) -> str | None:
    """Not atomic (the backup is the way back): for files whose directory cannot take a new file."""
    fd = os.open(real, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "wb") as fh:
        fh.truncate(0)
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    return backup
