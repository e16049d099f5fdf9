"""Pasted text is read in time linear in its size, whatever its shape (issue 30, point 6).

Each shape that was read in quadratic time (blank-line floods, a long line of `/a`) and a few ordinary ones
are read at one size and at four times that size; the work (this process's CPU time, the smaller of two
runs) may grow about four-fold, and the test allows twice that: a quadratic reader grows sixteen-fold.
A whole 32 MiB paste through the command line is the last check, with a limit far above its time.
"""

from __future__ import annotations

import time

import pytest

from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.read import Source

SHAPES = {
    "blank-lines": lambda n: "\n" * n,
    "blank-lines-after-prompt": lambda n: ">>> " + "\n" * n + "import torch\n",
    "one-long-line-of-/a": lambda n: "/a" * (n // 2),
    "spaces": lambda n: " " * n,
    "numbered-lines": lambda n: "".join(f"line {i} of text\n" for i in range(n // 18)),
    "traceback-lines": lambda n: "".join(
        f'  File "/usr/lib/python3/site-packages/torch/m{i}.py", line 1\n' for i in range(n // 62)
    ),
    "site-packages-without-path": lambda n: "site-packages/torch " * (n // 20),
    "digits-and-dots": lambda n: "1." * (n // 2),
    # gpudoctor.parsers.cuda_errors: lines that hold its words, each with a number where one is read
    "cuda-error-lines": lambda n: "".join(
        f"Cuda failure in file 'a{i}.cu' line {i}: 35 CUDA error {i % 999} code=2(cudaErrorX)\n" for i in range(n // 70)
    ),
    # (parsers.library_lines: every line a library path the loader failed on, or a mapped stub under its heading)
    "library-paths": lambda n: "".join(
        f"/usr/local/cuda-{i % 13}.0/lib64/stubs/libcuda.so: cannot open shared object file\n" for i in range(n // 70)
    ),
    "mapped-paths": lambda n: "Mapped libcuda.so paths:\n" + "  /usr/lib/stubs/libcuda.so\n" * (n // 27),
    # the printed-version reader (pasted.printed) and the stated floors (parsers.error_texts): their words on every line
    "printed-cudnn-versions": lambda n: "device: 0, cuDNN Version: 5.1.\n" * (n // 31),
    "stated-floors": lambda n: "your driver is older than 535 requires driver version >= 12.0\n" * (n // 61),
    # a traceback's frames and then prose (pasted.read's cut traceback), headers inside exception lines, a reporter's
    # sentences each opening a quotation that never closes (failure_lines' _QUOTED) and telling a library not found
    "frames-then-prose": lambda n: (
        "Traceback (most recent call last):\n"
        + '  File "/w/run.py", line 3, in <module>\n' * (n // 40)
        + "Hi, thanks for the reply.\n"
    ),
    "headers-in-exception-lines": lambda n: "ImportError: Traceback (most recent call last):\n" * (n // 49),
    "unclosed-quotes": lambda n: 'tensorflow freezes at "a b c d e f g h i j k l m n o p\n' * (n // 55),
    "library-not-found-said": lambda n: "torch can not find libcudnn.so and the GPU is not available\n" * (n // 62),
    "device-lists": lambda n: "tf.config.list_physical_devices('GPU')\n[]\n" * (n // 42),
    "cpu-chosen-lines": lambda n: ">> Using device_type cpu on this RTX 2070\n" * (n // 42),
}

# parsers.arch_flags.read_refusal reads one line at a time: a line of repeated near-refusals stays linear too.
LINE_SHAPES = {
    "nvcc-fatal-flood": lambda n: "nvcc fatal : Unsupported gpu architecture '" * (n // 43),
    "value-flood": lambda n: "ptxas fatal : Value 'sm_1" * (n // 25),
}


@pytest.mark.parametrize("shape", list(LINE_SHAPES))
def test_an_architecture_refusal_is_read_in_linear_time(shape):
    from gpudoctor.parsers.arch_flags import read_refusal

    def work(text: str) -> float:
        start = time.process_time()
        assert read_refusal(text) is None
        return time.process_time() - start

    n = 256 * 1024
    small, large = work(LINE_SHAPES[shape](n)), work(LINE_SHAPES[shape](4 * n))
    assert large <= 8 * small + 0.05, f"{shape}: {small:.3f} s at {n} characters, {large:.3f} s at {4 * n}"


def _work(text: str) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        read_pasted([Source("paste.txt", text)])
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("shape", list(SHAPES))
def test_four_times_the_text_is_about_four_times_the_work(shape):
    n = 64 * 1024
    small, large = _work(SHAPES[shape](n)), _work(SHAPES[shape](4 * n))
    # 0.05 s of slack: at these sizes a linear reader takes tenths of a second, a quadratic one tens of seconds.
    assert large <= 8 * small + 0.05, f"{shape}: {small:.3f} s at {n} characters, {large:.3f} s at {4 * n}"


@pytest.mark.parametrize("shape", ["blank-lines", "one-long-line-of-/a"])
def test_a_32_mib_paste_is_read_through_the_command_line(shape, tmp_path):
    import subprocess
    import sys

    paste = tmp_path / "issue.txt"
    paste.write_text(SHAPES[shape](32 * 1024 * 1024 - 64), encoding="utf-8")
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "check", "--from", str(paste), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    took = time.monotonic() - start
    assert "Traceback" not in proc.stderr and "unexpected error" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    # Far above its time (seconds): only a reader that is not linear comes near it.
    assert took < 300, f"{shape}: {took:.1f} s"
