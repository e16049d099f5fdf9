"""Summaries of timed samples: median and spread. Pure; no I/O and no GPU.

The median, not the mean, is the figure reported: a copy preempted by another process or a
page-fault storm gives one slow sample, and a benchmark should report what the link does, not
what one interruption did. The spread is the interquartile range relative to the median.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    minimum: float
    maximum: float
    q1: float  # 25th percentile
    q3: float  # 75th percentile
    stdev: float  # sample standard deviation; 0.0 for one sample

    @property
    def spread_share(self) -> float:
        """(q3 - q1) / median: 0.02 means the middle half of the samples lies within 2% of the median."""
        return (self.q3 - self.q1) / self.median if self.median > 0 else 0.0


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) by linear interpolation between closest ranks (numpy's default, 'type 7')."""
    if not values:
        raise ValueError("quantile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q} outside 0..1")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = math.ceil(position)
    if low == high:
        return ordered[low]
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(values: Iterable[float]) -> Summary:
    """Median and spread of samples; raises ValueError for no samples or a non-finite one."""
    data = [float(v) for v in values]
    if not data:
        raise ValueError("no samples to summarise")
    if any(not math.isfinite(v) for v in data):
        raise ValueError("a sample is not a finite number")
    mean = sum(data) / len(data)
    stdev = math.sqrt(sum((v - mean) ** 2 for v in data) / (len(data) - 1)) if len(data) > 1 else 0.0
    return Summary(
        n=len(data),
        median=quantile(data, 0.5),
        mean=mean,
        minimum=min(data),
        maximum=max(data),
        q1=quantile(data, 0.25),
        q3=quantile(data, 0.75),
        stdev=stdev,
    )


def gb_per_s(nbytes: int, seconds: float) -> float:
    """Bytes over seconds in GB/s (10^9 bytes per second, the unit link figures use)."""
    if seconds <= 0:
        raise ValueError(f"a copy cannot take {seconds} s")
    return nbytes / seconds / 1e9


def copies_per_sample(size_bytes: int, sample_bytes: int, max_copies: int) -> int:
    """How many copies one timed sample holds, so that small copies are timed in bulk.

    One 64 KiB copy lasts a few microseconds, close to the resolution of event timing; a sample
    therefore repeats copies until it moves about `sample_bytes`, and never fewer than one.
    """
    if size_bytes <= 0:
        raise ValueError("size must be positive")
    return max(1, min(max_copies, -(-sample_bytes // size_bytes)))
