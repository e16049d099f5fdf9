"""Read what people paste: recognise each block, build a partial snapshot, and say what to ask for.

`read_pasted` is the whole pipeline up to the snapshot; the doctor then diagnoses that snapshot like any
other (gpudoctor.host.replay), and gpudoctor.pasted.ask lists the questions it left open.
docs/pasted.md says what can be pasted and how partial evidence is judged.
"""

from __future__ import annotations

from typing import Any

from gpudoctor.pasted.read import Source, read_sources

__all__ = ["Source", "load_sources", "read_pasted"]


def read_pasted(sources: list[Source]) -> dict[str, Any]:
    """The partial snapshot that the pasted `sources` describe (never raises on their content)."""
    from gpudoctor.pasted.build import build_snapshot

    return build_snapshot(read_sources(sources))


def load_sources(paths: list[str]) -> list[Source]:
    """The `--from` inputs: each a regular file read through gpudoctor.bounded (a FIFO, a directory or a
    file over the cap is an InputError, a missing one MissingInput), or `-` for standard input, read up to
    the same cap. Text that is not UTF-8 is read with replacement characters: pasted text often comes
    from a Windows console's code page, and what the blocks need is ASCII."""
    import sys

    from gpudoctor.bounded import MAX_INPUT_BYTES, describe_size, read_input_bytes
    from gpudoctor.errors import InputError

    sources = []
    stdin_read = False
    for path in paths:
        if path == "-":
            if stdin_read:
                continue  # standard input can be read once
            stdin_read = True
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
            if len(data) > MAX_INPUT_BYTES:
                raise InputError(f"standard input is larger than {describe_size(MAX_INPUT_BYTES)}, too large for pasted text")
        else:
            data = read_input_bytes(path, "text file")
        sources.append(Source(path, data.decode("utf-8-sig", errors="replace")))
    return sources
