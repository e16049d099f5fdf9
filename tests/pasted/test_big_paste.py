"""The pasted reader on large pastes of every shape people paste: no traceback, and an end (issue 28).

A whole training log, dmesg or `docker logs`, pasted as it is: real reports between runs of log noise
(tests/pasted/bigpaste.py), and the same text as one line, with CRLF, as a JSON document, and bytes that are not
text. Not timed: the 120 s limit (signal.alarm) only tells a hang from a slow machine; the work a paste costs is
counted in tests/unit/parsers/test_anchors.py, and measured by bench/paste_speed.py.
"""

from __future__ import annotations

import json
import random
import signal
from collections.abc import Iterator

import pytest

from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.read import read_sources
from tests.pasted.bigpaste import big_paste

HANG = 120  # seconds: a hang guard only; a 2 MB paste takes a few seconds on the project's machine


@pytest.fixture
def hang_guard() -> Iterator[None]:
    def hung(signum: int, frame: object) -> None:
        raise TimeoutError(f"the reader ran past {HANG} s")

    if not hasattr(signal, "SIGALRM"):
        pytest.skip("no SIGALRM on this platform")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _binary(size: int) -> str:
    rng = random.Random(5)
    return bytes(rng.randrange(256) for _ in range(size)).decode("utf-8", errors="replace")  # as load_sources decodes


SHAPES = {
    "log": lambda: big_paste(2_000_000, seed=1),
    "one line": lambda: big_paste(2_000_000, seed=2).replace("\n", " "),
    "crlf": lambda: big_paste(2_000_000, seed=1, newline="\r\n"),
    "json": lambda: json.dumps({"log": big_paste(1_000_000, seed=4).splitlines()}),
    "binary": lambda: _binary(2_000_000),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_large_paste_is_read_to_a_snapshot(shape: str, hang_guard: None) -> None:
    snapshot = read_pasted([Source("big.txt", SHAPES[shape]())])
    assert snapshot["partial"] is True


def test_crlf_reads_as_lf(hang_guard: None) -> None:
    """A paste saved on Windows (CRLF) gives the evidence the same paste with LF gives."""
    lf = read_sources([Source("big.txt", big_paste(300_000, seed=6))])
    crlf = read_sources([Source("big.txt", big_paste(300_000, seed=6, newline="\r\n"))])
    assert lf.errors  # the real reports in it are read
    assert {(e.kind, e.values) for e in crlf.errors} == {(e.kind, e.values) for e in lf.errors}
