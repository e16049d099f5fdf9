"""gpudoctor memory plan's documented rules (docs/memory.md, "memory plan"): size units, framework names, the fit
rule's boundary, the overheads. Expectations written by hand from the page."""

from __future__ import annotations

import pytest

from gpudoctor.errors import UsageError
from gpudoctor.memory.plan import fmt_size, make_plan, parse_job, stated_gpu

KIB, MIB, GIB, TIB = 1024, 1024**2, 1024**3, 1024**4


@pytest.mark.parametrize(
    ("spec", "budget"),
    [
        ("a=1GiB", GIB),
        ("a=1gib", GIB),
        ("a=1G", GIB),
        ("a=1Gi", GIB),
        ("a=1GB", 1_000_000_000),
        ("a=1gb", 1_000_000_000),
        ("a=1MiB", MIB),
        ("a=1M", MIB),
        ("a=1Mi", MIB),
        ("a=1MB", 1_000_000),
        ("a=1KiB", KIB),
        ("a=1K", KIB),
        ("a=1KB", 1000),
        ("a=1TiB", TIB),
        ("a=1T", TIB),
        ("a=1TB", 1_000_000_000_000),
        ("a=1.5GiB", 3 * GIB // 2),
    ],
)
def test_sizes_are_powers_of_1024_or_of_1000_as_written(spec, budget):
    """docs/memory.md: "`GiB`, `MiB`, `KiB` (and `G`, `M`, `K`, `Gi`, `Mi`) are powers of 1024; `GB`, `MB`, `KB`
    powers of 1000"."""
    assert parse_job(spec).budget_bytes == budget


@pytest.mark.parametrize(
    ("spec", "framework"),
    [
        ("a=1GiB:torch", "torch"),
        ("a=1GiB:Torch", "torch"),
        ("a=1GiB:TORCH", "torch"),
        ("a=1GiB:tf", "tensorflow"),
        ("a=1GiB:keras", "tensorflow"),
        ("a=1GiB:flax", "jax"),
        ("a=1GiB:jax", "jax"),
        ("a=1GiB:other", "other"),
        ("a=1GiB", "any"),
    ],
)
def test_framework_names_and_their_aliases(spec, framework):
    """docs/memory.md: "Frameworks: `torch`, `tensorflow` (`tf`, `keras`), `jax` (`flax`), `other`"; a job without one
    is planned for any."""
    assert parse_job(spec).framework == framework


@pytest.mark.parametrize("spec", ["a=0GiB", "a=0MiB", "a=5", "a=5 parsecs", "a=5GiB:pytorch-lightning-x"])
def test_a_zero_budget_a_missing_or_unknown_unit_or_framework_is_a_usage_error(spec):
    with pytest.raises(UsageError):
        parse_job(spec)


def test_a_job_without_a_framework_gets_the_largest_overhead():
    """docs/memory.md: "A job without a framework gets ... the largest overhead" (1536 MiB, TensorFlow's)."""
    plan = make_plan(stated_gpu("24GiB"), 0, (parse_job("a=1GiB"), parse_job("b=1GiB:torch"), parse_job("c=1GiB:jax")))
    assert [p.overhead_bytes for p in plan.jobs] == [1536 * MIB, 512 * MIB, 1024 * MIB]


def test_the_jobs_fit_when_the_sum_is_at_most_the_free_memory():
    """docs/memory.md, "Fit rule": "the jobs fit when the sum is at most the GPU's free memory now" - equal fits."""
    exact = make_plan(stated_gpu("8GiB"), 0, (parse_job("a=7680MiB:torch"),))  # 7680 + 512 = 8192 MiB
    assert (exact.need_bytes, exact.available_bytes, exact.fits, exact.shortfall_bytes) == (8 * GIB, 8 * GIB, True, 0)
    over = make_plan(stated_gpu("8GiB"), 0, (parse_job("a=7681MiB:torch"),))
    assert (over.fits, over.shortfall_bytes) == (False, MIB)


def test_fmt_size_is_mib_under_one_gib_and_gib_from_one_gib():
    """fmt_size: "MiB under 1 GiB ..., else GiB with two decimals"."""
    assert [fmt_size(n) for n in (19 * MIB, GIB - MIB, GIB, 3 * GIB // 2, None)] == [
        "19 MiB",
        "1023 MiB",
        "1.00 GiB",
        "1.50 GiB",
        "?",
    ]


def test_smaller_budgets_are_offered_down_to_half_and_no_further():
    """docs/memory.md: "the budgets scaled down to what fits, while each keeps at least half of what it asked for"."""
    # 8 GiB free; torch overhead 512 MiB: room 7680 MiB. Budget 15360 MiB: exactly half fits -> offered.
    half = make_plan(stated_gpu("8GiB"), 0, (parse_job("a=15360MiB:torch"),))
    assert any(s.startswith("budgets cut to 50% fit: a=7680MiB") for s in half.suggestions), half.suggestions
    under = make_plan(stated_gpu("8GiB"), 0, (parse_job("a=15361MiB:torch"),))
    assert not any(s.startswith("budgets cut") for s in under.suggestions), under.suggestions


def test_an_empty_gpu_too_small_is_said_instead():
    """docs/memory.md: "When even an empty GPU is too small it says that instead"; a plan that fits an empty GPU exactly
    does not say it."""
    too_small = make_plan(stated_gpu("8GiB"), 0, (parse_job("a=7681MiB:torch"),))
    assert any(s.startswith("even an empty GPU 0") for s in too_small.suggestions)
    assert not make_plan(stated_gpu("8GiB"), 0, (parse_job("a=7680MiB:torch"),)).suggestions
