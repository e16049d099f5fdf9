"""The pure statistics and size handling of the bandwidth benchmark: medians, spread, --sizes."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpudoctor.bandwidth.sizes import DEFAULT_SIZES, KIB, MIB, format_size, parse_size, parse_sizes, short_size
from gpudoctor.bandwidth.stats import copies_per_sample, gb_per_s, quantile, summarize
from gpudoctor.errors import UsageError


def test_median_of_odd_and_even_counts():
    assert summarize([3.0, 1.0, 2.0]).median == 2.0
    assert summarize([4.0, 1.0, 3.0, 2.0]).median == 2.5


def test_summary_of_known_samples():
    s = summarize([10.0, 12.0, 11.0, 13.0, 14.0])
    assert (s.n, s.median, s.minimum, s.maximum) == (5, 12.0, 10.0, 14.0)
    assert s.mean == 12.0
    assert s.q1 == 11.0 and s.q3 == 13.0  # linear interpolation, numpy's default
    assert s.spread_share == pytest.approx(2.0 / 12.0)
    assert s.stdev == pytest.approx(math.sqrt(2.5))


def test_one_sample_has_no_spread():
    s = summarize([25.7])
    assert (s.median, s.q1, s.q3, s.stdev, s.spread_share) == (25.7, 25.7, 25.7, 0.0, 0.0)


def test_median_resists_one_interrupted_sample():
    # Nine samples at the link's rate and one copy preempted to a tenth of it.
    s = summarize([25.0] * 9 + [2.5])
    assert s.median == 25.0
    assert s.mean < 23.0


@pytest.mark.parametrize("bad", [[], [1.0, float("nan")], [float("inf")]])
def test_summarize_refuses_no_or_nonfinite_samples(bad):
    with pytest.raises(ValueError):
        summarize(bad)


def test_quantile_bounds():
    assert quantile([5.0, 1.0], 0.0) == 1.0
    assert quantile([5.0, 1.0], 1.0) == 5.0
    with pytest.raises(ValueError):
        quantile([1.0], 1.5)
    with pytest.raises(ValueError):
        quantile([], 0.5)


@given(st.lists(st.floats(min_value=0.01, max_value=1e4), min_size=1, max_size=50))
def test_summary_orders_its_figures(values):
    s = summarize(values)
    assert s.minimum <= s.q1 <= s.median <= s.q3 <= s.maximum
    assert s.spread_share >= 0.0


def test_gb_per_s_is_decimal_gigabytes():
    assert gb_per_s(32_000_000_000, 1.0) == 32.0
    assert gb_per_s(256 * MIB, 0.01) == pytest.approx(26.8435456)
    with pytest.raises(ValueError):
        gb_per_s(1, 0.0)


def test_copies_per_sample_batches_small_copies():
    assert copies_per_sample(64 * KIB, 32 * MIB, 512) == 512
    assert copies_per_sample(1 * MIB, 32 * MIB, 512) == 32
    assert copies_per_sample(3 * MIB, 32 * MIB, 512) == 11  # rounded up: at least 32 MiB
    assert copies_per_sample(256 * MIB, 32 * MIB, 512) == 1
    assert copies_per_sample(4 * KIB, 32 * MIB, 100) == 100
    with pytest.raises(ValueError):
        copies_per_sample(0, 1, 1)


def test_default_sizes_are_64k_to_256m_in_powers_of_two():
    assert DEFAULT_SIZES[0] == 64 * KIB and DEFAULT_SIZES[-1] == 256 * MIB
    assert len(DEFAULT_SIZES) == 13
    assert all(b == 2 * a for a, b in pairwise(DEFAULT_SIZES))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("64K", 65536),
        ("64KiB", 65536),
        ("64kb", 65536),
        ("1M", MIB),
        ("256MiB", 256 * MIB),
        ("1G", 1024 * MIB),
        ("4096", 4096),
        (" 2 m ", 2 * MIB),
    ],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "0", "1X", "-1M", "1.5M", "17G", "M"])
def test_parse_size_refuses(text):
    with pytest.raises(UsageError):
        parse_size(text)


def test_parse_sizes_range_and_list():
    assert parse_sizes("64K-256M") == DEFAULT_SIZES
    assert parse_sizes("1M,32M,256M") == (MIB, 32 * MIB, 256 * MIB)
    assert parse_sizes("256M,1M,1M") == (MIB, 256 * MIB)
    assert parse_sizes("1M-4M,64M") == (MIB, 2 * MIB, 4 * MIB, 64 * MIB)
    assert parse_sizes("3M-8M") == (3 * MIB, 6 * MIB)  # a range doubles from its start


@pytest.mark.parametrize("text", ["", ",", "4M-1M", ",".join(str(n) for n in range(1, 70))])
def test_parse_sizes_refuses(text):
    with pytest.raises(UsageError):
        parse_sizes(text)


def test_format_sizes():
    assert format_size(64 * KIB) == "64 KiB"
    assert format_size(256 * MIB) == "256 MiB"
    assert format_size(32_000_000) == "31250 KiB"
    assert format_size(1000) == "1000 B"
    assert short_size(64 * KIB) == "64K" and short_size(MIB) == "1M" and short_size(1024 * MIB) == "1G"
