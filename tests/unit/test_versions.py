"""Version strings as machines print them, compared as numbers, shown as printed."""

from gpudoctor.versions import at_least, cuda_from_int, major, major_minor, vkey


def test_driver_versions_compare_numerically():
    assert vkey("535.104.05") == (535, 104, 5)
    assert vkey("570.124.06") > vkey("570.26")
    assert at_least("595.80", "580.65.06") is True
    assert at_least("525.60.11", "525.60.13") is False
    assert at_least(None, "1") is None


def test_cuda_versions():
    assert cuda_from_int(12040) == "12.4"
    assert cuda_from_int(13010) == "13.1"
    assert major_minor("12.4.131") == "12.4"
    assert major("V11.8") is None  # not a version string: callers pass what nvcc's parser extracted
    assert major("11.8.89") == 11
