"""Every real capture the parser tests use is documented in tests/fixtures/PROVENANCE.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parents[2] / "fixtures"
FAMILIES = (
    "cuda-version-files",
    "cudnn-headers",
    "docker-info",
    "errors",
    "jax-version",
    "lspci",
    "nvcc",
    "nvidia-smi-csv",
    "nvidia-smi-text",
    "nvidia-smi-xml",
    "proc-driver-version",
    "tf-build-info",
    "torch-version",
)
PROVENANCE = (FIXTURES / "PROVENANCE.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("family", FAMILIES)
def test_family_files_have_provenance_entries(family: str) -> None:
    names = sorted(p.name for p in (FIXTURES / family).iterdir())
    assert names, family
    for name in names:
        assert f"`{name}`" in PROVENANCE, f"{family}/{name} has no entry in PROVENANCE.md"
    # The "## Counts" list states how many files each folder holds.
    stated = re.search(rf"^- `{re.escape(family)}/`: (\d+)$", PROVENANCE, re.MULTILINE)
    assert stated is not None and int(stated.group(1)) == len(names), family
