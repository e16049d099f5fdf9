"""`ldconfig -p`: the dynamic loader's cache, soname -> paths in cache order.

Accepts glibc's format (`\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/...`),
with or without the leading "N libs found in cache" line.
"""

from __future__ import annotations

import re

from gpudoctor.errors import ParseError

_LINE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)\s*$")


def parse_ldconfig(text: str) -> dict[str, tuple[str, ...]]:
    cache: dict[str, list[str]] = {}
    matched = 0
    for line in text.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        matched += 1
        soname, flags, path = match.groups()
        # Only 64-bit x86/ARM entries matter to a 64-bit Python; i386 copies would mislead.
        if "x86-64" not in flags and "AArch64" not in flags and "64bit" not in flags and flags.strip() != "libc6":
            continue
        cache.setdefault(soname, []).append(path)
    if not matched and text.strip() and "libs found" not in text:
        raise ParseError("no ldconfig cache entries found")
    return {k: tuple(v) for k, v in cache.items()}
