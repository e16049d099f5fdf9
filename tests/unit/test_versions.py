"""Version strings as machines print them, compared as numbers, shown as printed."""

import pytest

from gpudoctor.versions import at_least, cuda_from_int, cudnn_from_int, major, major_minor, vkey


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


@pytest.mark.parametrize(
    "number,version",
    [
        # cudnn_version.h before 9.0: MAJOR*1000 + MINOR*100 + PATCHLEVEL
        (7605, "7.6.5"),
        (8600, "8.6.0"),
        (8907, "8.9.7"),
        # JAX's floor "Minimum supported: 9100" (conda-forge/jax-feedstock#149) is 9.1.0 in that encoding: the old
        # pasted-text decoder (x10000 from 9000) read it as 0.91.0
        (9100, "9.1.0"),
        # from 9.0: MAJOR*10000 + MINOR*100 + PATCHLEVEL; the old JAX-message decoder (x1000 always) read 90100 as 90.1.0
        (90000, "9.0.0"),
        (90100, "9.1.0"),
        (91002, "9.10.2"),
    ],
)
def test_cudnn_versions_of_both_encodings(number, version):
    assert cudnn_from_int(number) == version
