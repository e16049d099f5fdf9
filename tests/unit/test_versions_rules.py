"""gpudoctor.versions' documented rules, one sentence a test, every component of a version (major, minor, patch,
build) and both sides of each boundary. Expectations are written by hand from the docstrings."""

from __future__ import annotations

import pytest

from gpudoctor.versions import (
    at_least,
    cuda_from_int,
    major,
    major_minor,
    parse_spec,
    spec_contains,
    spec_floor,
    version_key,
    version_parts,
    vkey,
)


def test_cuda_from_int_is_1000_major_plus_10_minor():
    """cuda_from_int: "NVML and cuda.h encode CUDA as 1000*major + 10*minor: 12040 -> "12.4"."""
    values = (12040, 11080, 12010, 12090, 13000, 10020, 9020, 11000)
    assert [cuda_from_int(v) for v in values] == ["12.4", "11.8", "12.1", "12.9", "13.0", "10.2", "9.2", "11.0"]


def test_major_minor_of_every_length():
    assert [major_minor(v) for v in ("12.4.131", "12.4", "12", "", None, "535.104.05")] == [
        "12.4",
        "12.4",
        "12",
        None,
        None,
        "535.104",
    ]
    assert [major(v) for v in ("12.4.131", "9", "", None)] == [12, 9, None, None]


def test_vkey_reads_the_numbers_a_machine_printed():
    """vkey: "535.104.05" -> (535, 104, 5); "" or None -> (); leading zeros not significant; surrounding space ignored."""
    assert tuple(vkey(" 535.104.05\n")) == (535, 104, 5)
    assert tuple(vkey("12.4.131")) == (12, 4, 131)
    assert vkey("535.104.05") == vkey("535.104.5")
    assert tuple(vkey("")) == tuple(vkey(None)) == tuple(vkey("V11.8")) == ()


@pytest.mark.parametrize(
    ("version", "floor", "expected"),
    [
        ("580.65.06", "580.65.06", True),  # equal: at least
        ("580.65.05", "580.65.06", False),  # patch below
        ("580.65.07", "580.65.06", True),  # patch above
        ("580.64.99", "580.65.06", False),  # minor below, patch above
        ("580.66", "580.65.06", True),  # minor above, no patch
        ("580.65", "580.65.06", False),  # the floor's patch missing from the version: 0 < 6
        ("579.99.99", "580.65.06", False),  # major below
        ("581", "580.65.06", True),  # major above, no minor
        ("12.4", "12.4.0", True),  # trailing zeros do not count
        ("12.4.0", "12.4", True),
        ("12.4.0.1", "12.4", True),  # a fourth (build) part counts
        ("12.3.9.9", "12.4", False),
    ],
)
def test_at_least_compares_every_part(version, floor, expected):
    """at_least: whether `version` >= `floor`, part by part as numbers."""
    assert at_least(version, floor) is expected


def test_at_least_of_an_unknown_version_is_none():
    assert at_least("", "1") is None and at_least(None, "1") is None


def test_version_parts_and_key():
    """version_parts: "the dotted numeric prefix" ("2.1.0+cu121" -> (2, 1, 0)), a leading v or V allowed; raises
    ValueError when it does not start with a number. version_key: trailing zeros dropped ("12.0" == "12" < "12.0.1")."""
    assert version_parts("2.1.0+cu121") == (2, 1, 0)
    assert version_parts("v12.1") == version_parts("V12.1") == (12, 1)
    assert version_parts(" 9.1.0.70") == (9, 1, 0, 70)
    with pytest.raises(ValueError):
        version_parts("cuda12")
    assert version_key("12.0") == version_key("12") == (12,)
    assert version_key("12.0.1") == (12, 0, 1)
    assert version_key("12.0") < version_key("12.0.1") < version_key("12.1")


def test_vkey_equal_versions_hash_alike():
    """Key: (11, 8, 0) == (11, 8), so a set or dict holds them once."""
    assert len({vkey("11.8"), vkey("11.8.0"), vkey("11.8.0.0")}) == 1
    assert len({vkey("11.8"), vkey("11.8.1")}) == 2


@pytest.mark.parametrize(
    ("spec", "inside", "outside"),
    [
        (">=12.4", ["12.4", "12.4.0", "12.4.1", "12.5", "13"], ["12.3", "12.3.99", "11.8"]),
        (">12.4", ["12.4.1", "12.5", "13"], ["12.4", "12.4.0", "12.3"]),
        ("<=12.4", ["12.4", "12.4.0", "12.3.9", "11"], ["12.4.1", "12.5"]),
        ("<12.4", ["12.3", "12.3.99", "11.8"], ["12.4", "12.4.0", "12.4.1"]),
        ("==12.4", ["12.4", "12.4.0"], ["12.4.1", "12.40", "12.3"]),
        ("!=12.4", ["12.4.1", "12.3"], ["12.4", "12.4.0"]),
        ("==12.*", ["12", "12.0", "12.4", "12.9.1"], ["11.8", "13.0", "120.1"]),
        ("==12.4.*", ["12.4", "12.4.0", "12.4.131"], ["12.40", "12.5", "12.3.9"]),
        ("!=12.4.*", ["12.3", "12.5", "12.40"], ["12.4", "12.4.1"]),
        ("==12.0.*", ["12", "12.0", "12.0.5"], ["12.1", "11.0"]),  # a short version is padded with zeros
        ("~=2.1", ["2.1", "2.1.9", "2.5", "2.99"], ["2.0.9", "3.0", "3"]),
        ("~=2.1.0", ["2.1.0", "2.1.9", "2.1"], ["2.2", "2.2.0", "2.0.9"]),
        (">=2.1,<2.4", ["2.1", "2.3.9"], ["2.0", "2.4", "2.4.0"]),
        (" >= 2.1 , < 3 ", ["2.1", "2.9"], ["3.0", "2.0"]),
    ],
)
def test_spec_contains_each_operator_on_both_sides(spec, inside, outside):
    """spec_contains: PEP 440 specifiers on numeric versions (the matrix's ranges)."""
    assert [v for v in inside + outside if spec_contains(spec, v)] == inside


@pytest.mark.parametrize("bad", ["", "  ", ">=12.*", "<12.*", "~=2", ">=x", "=>12", ">=12,"])
def test_parse_spec_refuses_what_is_not_a_specifier(bad):
    """parse_spec: "'.*' only goes with == or !="; "~= needs at least two version parts"; empty and malformed clauses
    raise ValueError."""
    with pytest.raises(ValueError):
        parse_spec(bad)


def test_spec_floor_is_the_highest_lower_bound():
    """spec_floor: "The lowest version a specifier admits through >=, ==, ~= or a wildcard (None if unbounded)."""
    specs = (">=2.1,<3", ">=2.1,>=2.3", "~=2.1", "==12.4", "<3", "!=2.0", ">2.1", ">=12.0,>=12")
    assert [spec_floor(s) for s in specs] == ["2.1", "2.3", "2.1", "12.4", None, None, "2.1", "12.0"]
