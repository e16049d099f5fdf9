"""gpudoctor.parsers.library_lines survives hostile and random text: no traceback, bounded output, bounded time.

Pieces of every form it reads (ld's -l and skipping lines, the loader's, ctypes', onnxruntime's, numba's mapped
paths, ldd's) are cut, repeated and joined at random (a fixed seed: the same text every run), with the renderers'
hostile strings; and the shapes a backtracking pattern would choke on, at the longest line it reads.
"""

from __future__ import annotations

import random
import time

from gpudoctor.parsers.library_lines import _MAX_FACTS, _MAX_LINE, read_library_lines
from tests.hostile.strings import HOSTILE

PIECES = (
    "/usr/bin/ld: cannot find -lcuda",
    "/usr/bin/ld: skipping incompatible /usr/lib/libcuda.so when searching for -lcuda",
    "/usr/local/cuda/lib64/stubs/libcuda.so: cannot open shared object file",
    "Could not find module 'C:\\x\\nvcuda.dll' (or one of its dependencies)",
    'LoadLibrary failed with error 126 "" when trying to load "C:\\a\\b.dll"',
    "Mapped libcuda.so paths:",
    "        /usr/local/cuda-11.8/targets/x86_64-linux/lib/stubs/libcuda.so",
    "\tlibcuda.so.1 => /usr/lib/wsl/lib/libcuda.so.1 (0x00007f0000000000)",
    "/a/libx.so: undefined symbol: y",
    "Could not load library libcudnn_ops_infer.so.8.",
    "cublas64_12.dll not found",
    "lib",
    ".so",
    ".dll",
    "/",
    "\\",
    ":",
    "'",
    '"',
    " ",
    "\n",
    "-l",
    "stubs",
    "=>",
    "(0x",
)


def _bounded(text: str) -> None:
    start = time.process_time()
    facts = read_library_lines(text)
    assert time.process_time() - start < 5
    assert len(facts) <= _MAX_FACTS
    for f in facts:
        assert f.side in ("link", "load") and f.image in ("elf", "dll") and len(f.line) <= 300


def test_random_joins_of_every_form_and_hostile_strings_read_without_error():
    rng = random.Random(239)
    for _ in range(300):
        parts = [rng.choice(PIECES + HOSTILE) for _ in range(rng.randint(1, 40))]
        text = "".join(p[: rng.randint(0, len(p))] if rng.random() < 0.3 else p for p in parts)
        _bounded(text)
    _bounded("")
    _bounded("\x00\ufeff\u2028" * 1000)


def test_the_longest_lines_it_reads_in_the_shapes_a_backtracking_pattern_chokes_on():
    n = _MAX_LINE - 40
    for line in (
        "/lib" * (n // 4) + ": cannot open shared object file",
        "/a" * (n // 2) + "/libx.so: undefined symbol: y",
        "Could not find module '" + "\\a" * (n // 2),
        'LoadLibrary failed with error 126 when trying to load "' + "/a" * (n // 2),
        "ld: skipping incompatible " + "/a" * (n // 2) + " when searching for -lcuda",
        "lib" + "x." * (n // 2) + "so: cannot open shared object file",
        "Could not load library " + "lib.so." * (n // 7),
        "libx.so => " + "/a" * (n // 2) + "/libx.so (0x0)",
    ):
        _bounded("\n".join(f"{i} {line}" for i in range(50)))
    _bounded("/usr/bin/ld: cannot find -lcuda\n" * 100_000)
