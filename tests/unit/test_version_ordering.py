"""One ordering of versions (gpudoctor.versions): `vkey` (every part as printed) and `version_key` (the
matrix's key) order every pair alike, and as packaging orders releases."""

from __future__ import annotations

import itertools

from packaging.version import Version

from gpudoctor.matrix import load_matrix
from gpudoctor.versions import version_key, vkey


def _sign(a, b) -> int:
    return (a > b) - (a < b)


def test_vkey_and_version_key_order_versions_alike_and_as_packaging_does():
    m = load_matrix()
    versions = {"11.8", "11.8.0", "12", "12.0", "12.0.1", "535.104.05", "535.104.5", "9.1.0.70", "2.13.0", "2.13"}
    versions |= {r.cuda for r in m.cuda_releases} | {r.version for r in m.torch_releases} | {r.version for r in m.tf_releases}
    for a, b in itertools.combinations(sorted(versions), 2):
        expected = _sign(Version(a), Version(b))
        assert _sign(vkey(a), vkey(b)) == _sign(version_key(a), version_key(b)) == expected, (a, b)
        assert (vkey(a) == vkey(b)) == (hash(vkey(a)) == hash(vkey(b)) and version_key(a) == version_key(b)), (a, b)


def test_vkey_keeps_every_printed_part():
    assert (len(vkey("11.8.0")), vkey("11.8.0")[:2], vkey("12.0")[1]) == (3, (11, 8), 0)
