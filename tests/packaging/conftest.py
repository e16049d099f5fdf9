"""Session fixtures of the packaging tests: one fresh clone and one wheel, shared."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.packaging.scratch import fresh_clone, need_index, run


@pytest.fixture(scope="session")
def clone(tmp_path_factory) -> Path:
    return fresh_clone(tmp_path_factory.mktemp("clone") / "gpudoctor")


@pytest.fixture(scope="session")
def wheel(clone: Path, tmp_path_factory) -> Path:
    """gpudoctor's wheel, built from the clone as pip builds it for users (isolated: setuptools from the index)."""
    out = tmp_path_factory.mktemp("wheel")
    need_index(
        run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(clone), "-w", str(out)]), "building the wheel"
    )
    (built,) = out.glob("*.whl")
    return built
