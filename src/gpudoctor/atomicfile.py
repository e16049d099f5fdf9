"""The one atomic writer: every file gpudoctor writes (`check --textfile`, `snapshot -o`, `fix --env-file`,
`bench bandwidth --plot`) goes through `write_file`.

A directory others can write into (a collector's textfile directory, a shared sticky /tmp) must not be
able to redirect the write, nor change the mode of a file it did not create:
- the directory is opened once and everything after is relative to that descriptor, so a directory
  swapped on the way changes nothing;
- the new content goes to a temporary file created with O_CREAT | O_EXCL | O_NOFOLLOW under a random
  name (mode 0600 while it is written): a link or file planted under that name makes the open fail,
  it is never followed;
- owner and mode are set on the open descriptor (fchown, fchmod), never by name: a link swapped in
  for the temporary name meanwhile is not followed (chmod by name would make the link's target
  world-readable);
- the file is fsynced, renamed over the target (rename replaces a link there, it never writes through
  it), then checked to be the file written (a swap between write and rename is an error, not a silent
  success), and the directory fsynced: at every instant the target is whole, old or new.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat


class ReplacedMeanwhile(OSError):
    """The temporary file was replaced by something else before it was renamed into place."""


def umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _open_dir(directory: str) -> int:
    return os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))


def write_file(directory: str, name: str, data: bytes, *, mode: int, owner: tuple[int, int] | None = None) -> str:
    """Replace DIRECTORY/NAME by a file holding `data` with `mode` (and `owner`: uid, gid) in one step.

    Returns the path written. Raises OSError (ReplacedMeanwhile when the temporary file was swapped).
    """
    dfd = _open_dir(directory)
    try:
        tmp, fd = _create(dfd, name, data, mode, owner)
        try:
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
            now = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            mine = os.fstat(fd)
            if (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
                raise ReplacedMeanwhile(0, f"{name} was replaced by another file while it was written")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise
        finally:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    finally:
        os.close(dfd)
    return os.path.join(directory, name)


def _create(dfd: int, name: str, data: bytes, mode: int, owner: tuple[int, int] | None) -> tuple[str, int]:
    """A new hidden file beside NAME holding `data`, mode and owner set on its descriptor; (its name, the open fd)."""
    tmp = f".{name}.gpudoctor-{secrets.token_hex(6)}.tmp"
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, 0o600, dir_fd=dfd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        if owner is not None:
            st = os.fstat(fd)
            if (st.st_uid, st.st_gid) != owner:
                os.fchown(fd, *owner)
        os.fchmod(fd, stat.S_IMODE(mode))
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dfd)
        raise
    return tmp, fd


def write_output(path: str, data: bytes) -> str:
    """An output file a person named (`snapshot -o`, `--plot`): mode 0666 less the umask for a new one, an
    existing regular file's own mode bits kept (as open(path, "w") would), written by write_file."""
    directory, name = os.path.split(os.path.abspath(path))
    mode = 0o666 & ~umask()
    with contextlib.suppress(OSError):
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode):
            mode = stat.S_IMODE(st.st_mode)
    return write_file(directory, name, data, mode=mode)
