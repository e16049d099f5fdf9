"""`check --textfile DIR`: write one output file into a directory that another program reads on its own
schedule (node_exporter's textfile collector, NFD's features.d), so that it never reads half a file.

The text is written to a hidden temporary file in DIR itself (same filesystem: rename(2) is atomic),
fsynced, made world-readable (the collector may run as another user), then renamed over the target.
Both readers skip the temporary file: node_exporter reads only `*.prom`, NFD skips names that start
with a dot. A temporary file is created with O_EXCL under a random name (mkstemp), and rename replaces
a link at the target rather than following it, so a directory others can write into cannot redirect
the write.
"""

from __future__ import annotations

import contextlib
import os
import tempfile

from gpudoctor.errors import GpudoctorError, UsageError

# --format -> the file written in DIR.
FILE_NAMES = {"prometheus": "gpudoctor.prom", "nfd": "gpudoctor"}


def check_directory(path: str, output_format: str) -> None:
    """Before anything is probed: a usage error (exit 2) for a format without a file or a DIR that is not one."""
    if output_format not in FILE_NAMES:
        raise UsageError(
            f"--textfile is for --format {' or '.join(FILE_NAMES)}, not {output_format}",
            "gpudoctor check --format prometheus --textfile /var/lib/node_exporter/textfile_collector",
        )
    if not os.path.isdir(path):
        raise UsageError(f"--textfile {path}: not a directory", "create it, or give the collector's directory")


def write_atomic(directory: str, name: str, text: str) -> str:
    """Replace DIR/NAME with `text` in one step; the path written. A failure is a GpudoctorError (exit 3)."""
    target = os.path.join(directory, name)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise GpudoctorError(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return target
