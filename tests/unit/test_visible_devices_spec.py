"""docs/findings/cuda-visible-devices-hides-all.md, "Entries" and "How to fix", one sentence each: how CUDA reads
CUDA_VISIBLE_DEVICES (gpudoctor.checks.platform.visible_devices) and the value the fix sets (_meant_devices)."""

from __future__ import annotations

import pytest

from gpudoctor.checks.platform import _meant_devices, visible_devices

TWO = [(0, "GPU-1111aaaa-0000"), (1, "GPU-2222bbbb-0000")]


@pytest.mark.parametrize(
    ("value", "mig", "valid", "invalid"),
    [
        ("0,7,1", 0, ["0"], ["7", "1"]),  # stops at the first invalid entry
        ("2,0", 0, [], ["2", "0"]),
        ("1", 0, ["1"], []),  # an index below the number of GPUs
        ("2", 0, [], ["2"]),  # equal to it is not
        ("0, 1", 0, ["0", "1"], []),  # split on commas, spaces around an entry ignored
        ("", 0, [], [""]),  # hides every GPU
        ("-1", 0, [], ["-1"]),
        ("GPU-2222", 0, ["GPU-2222"], []),  # a prefix of a GPU's UUID
        ("GPU-3333", 0, [], ["GPU-3333"]),
        ("MIG-abcd", 1, ["MIG-abcd"], []),  # with at least one MIG instance
        ("MIG-abcd", 0, [], ["MIG-abcd"]),
    ],
)
def test_entries_as_cuda_reads_them(value, mig, valid, invalid):
    assert visible_devices(value, TWO, mig) == (valid, invalid)


@pytest.mark.parametrize(
    ("value", "meant"),
    [
        ("2,0", "0"),  # the entries that exist, in the order written
        ("1,0", "1,0"),
        ("5,6", "0,1"),  # else as many GPUs as were named, from index 0
        ("5", "0"),
        ("5,6,7", "0,1"),  # no more than there are
        ("", "0"),
    ],
)
def test_the_fix_sets_what_was_meant(value, meant):
    valid, _ = visible_devices(value, TWO, 0)
    assert _meant_devices(value, valid, len(TWO)) == meant
