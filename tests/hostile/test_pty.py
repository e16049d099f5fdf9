"""On a real terminal (a pty), hostile machine data reaches the screen only as visible escapes.

gpudoctor runs as its own process with a pty as stdout and stderr, so rich colours its output as it
would for a person; the only escape sequences allowed through are rich's own colour codes (SGR).
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

from tests.hostile.corpus import BASES, PAYLOADS, anchors, load_base

SGR = re.compile(r"\x1b\[[0-9;]*m")
TERMINAL_PAYLOADS = ("osc-title", "osc52-clipboard", "clear-line", "c1-csi", "bidi", "rich-markup")


def _read_all(fd: int, proc: subprocess.Popen, limit_s: float = 120.0) -> bytes:
    chunks = []
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the pty
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    return b"".join(chunks)


def _cases(tmp_path):
    out = []
    for slug in ("rtx4090-toolkit-paths-disagree", "gt1030-desktop-memory-held", "p100-driver510-torch-cu121"):
        assert slug in BASES
        base = load_base(slug)
        for kind, anchor in sorted(anchors(base).items()):
            text = __import__("json").dumps(base)
            for name in TERMINAL_PAYLOADS:
                payload = __import__("json").dumps(anchor + PAYLOADS[name])[1:-1]
                needle = __import__("json").dumps(anchor)[1:-1]
                path = tmp_path / f"{slug}-{kind}-{name}.json"
                path.write_text(text.replace(needle, payload), encoding="utf-8")
                out.append((f"{slug}/{kind}/{name}", path))
    return out


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")
def test_no_escape_sequence_reaches_the_terminal(tmp_path):
    cases = _cases(tmp_path)
    assert len(cases) >= 30
    # One process, many snapshots: gpudoctor's own start-up paid once; each check is its own CLI call.
    script = (
        "import sys\nfrom gpudoctor.cli import main\n"
        "for path in sys.argv[1:]:\n"
        "    for args in (['check', '--replay', path, '-v'], ['memory', '--replay', path], ['install', 'torch', '--replay', path, '--dry-run']):\n"
        "        try:\n            main(args)\n        except SystemExit:\n            pass\n"
    )
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *(str(p) for _, p in cases)], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    try:
        raw = _read_all(master, proc)
    finally:
        os.close(master)
        proc.kill() if proc.poll() is None else None
        proc.wait()
    text = raw.decode("utf-8", "replace")
    assert SGR.search(text), "rich did not see a terminal: this test would prove nothing"
    rest = SGR.sub("", text)
    bad = re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", rest)
    assert bad is None, f"raw control character reached the terminal: {rest[max(0, bad.start() - 60) : bad.end() + 60]!r}"
    assert "\\x1b]52" in rest and "\\x1b]0;owned" in rest, "the payloads must be shown, escaped"
    assert "FORGED" in rest and "[bold red]" in rest, "rich markup from a machine is shown as text"
