"""Bounded reads of what the person hands gpudoctor: input files and JSON documents.

Snapshots, node reports, bandwidth results and candidate matrices come from machines and people
gpudoctor does not control. A file given as input must be a regular file no larger than
MAX_INPUT_BYTES, UTF-8 text, and (for JSON) nested at most MAX_JSON_DEPTH deep with finite numbers.
Anything else is one clear InputError (exit 3); a path that does not exist is MissingInput (exit 2).
The caps are documented in docs/security.md.

Files are opened with O_NONBLOCK and checked with fstat before any read: a FIFO opens at once
(without a writer) and is refused, instead of hanging the command forever; /dev/zero is a device
and refused instead of read until memory runs out.
"""

from __future__ import annotations

import errno
import math
import os
import re
import stat

from gpudoctor.errors import InputError, MissingInput

# typing's constant without typing: a live check imports this module before it starts the user's interpreter
# (bench/README.md, h151)
TYPE_CHECKING = False
if TYPE_CHECKING:
    # Imported where JSON is read: this module is imported before the user's interpreter is started (host.live), and
    # json, which nothing before that start reads, is 5.5 M instructions of it (bench/README.md).
    import json
    from typing import Any

MIB = 1024 * 1024
# Input files: the largest real snapshot seen is a few MiB (an 8-GPU machine, nvidia-smi -q -x and
# every file the probes read); 32 MiB leaves room and keeps a parsed document within ~200 MB.
MAX_INPUT_BYTES = 32 * MIB
# JSON nesting: gpudoctor's own documents nest fewer than 10 levels; Python's parser recurses per
# level and fails with RecursionError near 1000.
MAX_JSON_DEPTH = 64
# Every program gpudoctor runs (nvidia-smi, nvcc, lspci, ps, the user's interpreter): stdout and
# stderr together. nvidia-smi -q -x of an 8-GPU machine is under 2 MiB.
MAX_COMMAND_OUTPUT = 16 * MIB


def describe_size(n: int) -> str:
    return f"{n // MIB} MiB" if n % MIB == 0 else f"{n} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_input_bytes(path: str, what: str = "input file", max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file `path`, at most `max_bytes`.

    Raises MissingInput when it does not exist, InputError when it is not a regular file, cannot be
    read, or is larger than the cap. `what` names the input in messages ("snapshot file", "report").
    """
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer. O_NOCTTY: a terminal device must
        # not become our controlling terminal. Neither changes how a regular file reads.
        # (Windows has neither: getattr leaves them out there, and O_BINARY keeps its reads byte-exact.)
        fd = os.open(
            path,
            os.O_RDONLY
            | getattr(os, "O_NONBLOCK", 0)
            | getattr(os, "O_BINARY", 0)
            | getattr(os, "O_NOCTTY", 0)
            | getattr(os, "O_CLOEXEC", 0),
        )
    except FileNotFoundError:
        raise MissingInput(f"no such {what}: {path}") from None
    except ValueError:  # a NUL byte: no such path can exist
        raise MissingInput(f"no such {what}: {path!r} (the path holds a NUL byte)") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a {what}") from None
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:
            raise MissingInput(f"no such {what}: {path}") from None
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path} is {_kind(st.st_mode)}, not a {what}")
        if st.st_size > max_bytes:
            raise InputError(
                f"{path} is larger than {describe_size(max_bytes)} ({st.st_size} bytes), too large for a {what}",
                hint="gpudoctor reads input files up to this size (docs/security.md)",
            )
        chunks: list[bytes] = []
        total = 0
        # Read to the cap even when fstat said less: a file can grow while it is read.
        while total <= max_bytes:
            chunk = os.read(fd, min(1 * MIB, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise InputError(f"{path} is larger than {describe_size(max_bytes)}, too large for a {what}")
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_input_text(path: str, what: str = "input file", max_bytes: int = MAX_INPUT_BYTES) -> str:
    """`read_input_bytes` decoded as UTF-8 (a UTF-8 BOM is dropped); InputError when it is not UTF-8 text."""
    data = read_input_bytes(path, what, max_bytes)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} is not UTF-8 text (byte {exc.start}), not a {what}") from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def decoder() -> json.JSONDecoder:
    """A strict JSON decoder: NaN, Infinity and numbers beyond float's range are errors, not values."""
    import json

    return json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


def json_depth_ok(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether `value` nests at most `limit` arrays/objects deep (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return False
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return True


# The shape of a JSON text: its brackets and quotes alone (everything else deleted in one C pass).
_NOT_SHAPE = bytes(b for b in range(256) if b not in b'[]{}"')
_STRING_IN_SHAPE = re.compile(rb'"[^"]*"')
_OPEN_CLOSE = bytes.maketrans(b"[{]}", b"(())")


def json_text_depth_ok(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """`json_depth_ok` for every value of a text that decoded, without walking the values: the same answer,
    from the text's brackets outside strings, each pass removing the innermost pairs, at most `limit`
    passes. Every step is one C-level bytes operation, so a 30 KB report costs some microseconds where
    walking its objects costs a fifth of a millisecond (`report merge` reads 100,000: bench/README.md)."""
    data = text.encode("utf-8", "surrogatepass")
    if b"\\" in data:
        # Escaped backslashes, then escaped quotes, removed left to right as JSON tokenizes them: what
        # is left of a string is its brackets between two quotes. (No backslash occurs outside strings.)
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    shape = data.translate(None, _NOT_SHAPE)
    # Two adjacent quotes are an empty string, or the end of one and the start of the next with nothing
    # between: removing them keeps every bracket inside or outside a string as it was.
    shape = _STRING_IN_SHAPE.sub(b"", shape.replace(b'""', b"")).translate(_OPEN_CLOSE)
    for _ in range(limit):
        if not shape:
            return True
        shape = shape.replace(b"()", b"")
    return not shape


def parse_json_text(text: str, where: str, what: str = "input file") -> Any:
    """One JSON document from `text`, strictly (see `decoder`), nesting at most MAX_JSON_DEPTH."""
    values = parse_json_documents(text, where, what, many=False)
    return values[0]


def parse_json_documents(text: str, where: str, what: str = "input file", many: bool = True) -> list[Any]:
    """Every JSON value in `text`, one after another (concatenated outputs); InputError naming the problem.

    With many=False exactly one value is allowed (trailing data is an error, as json.loads says).
    """
    import json

    dec = decoder()
    docs: list[Any] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        if docs and not many:
            line = text.count("\n", 0, i) + 1
            raise InputError(f"{where} is not valid JSON (line {line}: extra data after the document)")
        try:
            value, i = dec.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
        except RecursionError:
            raise InputError(f"{where} nests JSON more than {MAX_JSON_DEPTH} levels deep") from None
        except ValueError as exc:  # NaN, Infinity, 1e999, an integer with thousands of digits
            raise InputError(f"{where} is not valid JSON ({exc})") from None
        docs.append(value)
    # Checked once, on the text, after it decoded: the same answer as json_depth_ok on each value.
    if docs and not json_text_depth_ok(text):
        raise InputError(f"{where} nests JSON more than {MAX_JSON_DEPTH} levels deep")
    if not docs and not many:
        raise InputError(f"{where} is empty, not a {what}")
    return docs


def load_json_file(path: str, what: str = "input file", max_bytes: int = MAX_INPUT_BYTES) -> Any:
    """One JSON document from the regular file `path`, with every bound above."""
    return parse_json_text(read_input_text(path, what, max_bytes), path, what)
