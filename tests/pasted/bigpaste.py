"""Large made-up pastes built from real ones: whole logs as people paste them (issue 28, bounded time).

People paste whole training logs, dmesg, `docker logs` and journalctl with the message that matters somewhere in
the middle. A paste here is the real reports already in the tests (tests/pasted/cases/*/report.txt and the
catalogue's examples, tests/pasted/catalogue_examples) between runs of log noise, in an order a seed fixes: the
same seed and size give the same text on every machine. Used by bench/paste_speed.py (timed, by hand) and by the
reader's bounded-work tests (counted, never timed).
"""

from __future__ import annotations

import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def real_reports() -> list[tuple[str, str]]:
    """(name, text) of every real report in the open pasted tests, in name order."""
    out = [(p.parent.name, p.read_text(encoding="utf-8")) for p in sorted((HERE / "cases").glob("*/report.txt"))]
    out += [(p.stem, p.read_text(encoding="utf-8")) for p in sorted((HERE / "catalogue_examples").glob("*.txt"))]
    return out


# Lines in the shapes of the logs pasted around an error. Made up, and made to say nothing about a GPU stack:
# what the reader finds in a big paste is then what its real reports say.
_NOISE = (
    "Epoch {a}/{b}: 100%|##########| {c}/{c} [00:{d:02d}<00:00, {e}.{d:02d}it/s, loss={f}.{e:04d}]",
    "[{a}.{e:06d}] usb {d}-1: new high-speed USB device number {b} using xhci_hcd",
    "[{a}.{e:06d}] EXT4-fs (sda{d}): mounted filesystem with ordered data mode. Quota mode: none.",
    "Nov {d:02d} 12:{d:02d}:{b:02d} host systemd[{c}]: Started Session {a} of User builder.",
    "2026-11-{d:02d}T12:{b:02d}:{d:02d}.{e:06d}Z INFO worker {c}: processed batch {a} in {f}.{e} ms",
    '{{"level":"info","ts":{a}.{e},"msg":"request served","status":200,"bytes":{c}}}',
    "step {a:>6} | lr {f}.{e:04d}e-04 | grad_norm {d}.{b} | tokens/s {c}",
    "    at com.example.Service.handle(Service.java:{c})",
)


def noise(rng: random.Random, lines: int) -> list[str]:
    return [
        rng.choice(_NOISE).format(
            a=rng.randrange(1, 100000),
            b=rng.randrange(1, 60),
            c=rng.randrange(1, 9999),
            d=rng.randrange(1, 29),
            e=rng.randrange(0, 9999),
            f=rng.randrange(0, 9),
        )
        for _ in range(lines)
    ]


def big_paste(size: int, seed: int = 0, newline: str = "\n") -> str:
    """About `size` characters: real reports, each between 20 and 400 lines of noise, until the size is reached."""
    rng = random.Random(seed)
    reports = real_reports()
    parts: list[str] = []
    total = 0
    while total < size:
        chunk = "\n".join(noise(rng, rng.randrange(20, 400))) + "\n" + rng.choice(reports)[1].rstrip("\n") + "\n"
        parts.append(chunk)
        total += len(chunk)
    text = "".join(parts)[:size]
    return text.replace("\n", newline) if newline != "\n" else text
