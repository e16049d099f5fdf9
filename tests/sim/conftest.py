"""The simulated NVIDIA machines' shared fixture: the two fake libraries, built once per test session."""

from __future__ import annotations

import pytest

from tests.sim.build import Libraries, Unavailable, build_libraries


@pytest.fixture(scope="session")
def libraries() -> Libraries:
    try:
        return build_libraries()
    except Unavailable as exc:
        pytest.skip(str(exc))
