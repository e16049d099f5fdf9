"""The recorded machines (tests/test_machines.py says what a machine folder holds).

A machine recorded live keeps its libraries' symbol tables (megabytes of JSON: the H200 of `make gpu-truth`,
5.7 MB) and is committed gzip-compressed, as snapshot.json.gz, which `--replay` reads as well; every test that
reads a machine's snapshot goes through these two helpers so that either form works."""

from __future__ import annotations

import gzip
from pathlib import Path


def snapshot_file(machine: Path) -> Path:
    """The machine's snapshot.json, or its snapshot.json.gz."""
    plain = machine / "snapshot.json"
    return plain if plain.exists() else machine / "snapshot.json.gz"


def snapshot_text(machine: Path) -> str:
    path = snapshot_file(machine)
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
