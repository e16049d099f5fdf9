"""`check --textfile DIR`: write one output file into a directory that another program reads on its own
schedule (node_exporter's textfile collector, NFD's features.d), so that it never reads half a file.

The text is written by gpudoctor.atomicfile (the one atomic writer): a hidden temporary file in DIR
itself (same filesystem: rename(2) is atomic), made world-readable on its descriptor (the collector
may run as another user), fsynced, then renamed over the target. Both readers skip the temporary
file: node_exporter reads only `*.prom`, NFD skips names that start with a dot. DIR's owner cannot
redirect the write nor, by swapping a link in for the temporary file, make another file readable.
"""

from __future__ import annotations

import os

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
    from gpudoctor.atomicfile import write_file

    target = os.path.join(directory, name)
    try:
        # World-readable: the collector may run as another user. Set on the descriptor (gpudoctor.atomicfile).
        return write_file(directory, name, text.encode("utf-8"), mode=0o644)
    except OSError as exc:
        raise GpudoctorError(f"cannot write {target}: {exc.strerror or exc}") from None
