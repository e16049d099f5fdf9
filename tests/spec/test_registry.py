"""Every documented rule has its tests, and docs/testing.md says which (tests/spec/registry.py)."""

from __future__ import annotations

import subprocess
import sys

from tests.spec import registry
from tests.spec.registry import FIRES, PROCEEDS, QUIET, REFUSALS, REFUSES


def test_every_finding_code_with_a_page_has_a_fires_and_a_does_not_fire_test():
    """Issue 33: "a test fails when a code has a page but no fires and does not fire test"."""
    stated = registry.load_all()
    missing = [
        f"{code}: {kind}" for code in registry.finding_codes() for kind in (FIRES, QUIET) if not stated.get(code, {}).get(kind)
    ]
    assert missing == []


def test_every_code_the_tests_state_has_a_page_and_every_listed_code_a_page():
    """`gpudoctor explain --list` and docs/findings name the same codes, and no test states a code neither knows."""
    stated = registry.load_all()
    listed = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "explain", "--list"], capture_output=True, text=True, timeout=120, check=True
    ).stdout.splitlines()
    listed = [line.split()[0] for line in listed if line.strip()]  # each line: the code, then its page's first sentence
    assert sorted(listed) == registry.finding_codes()
    assert sorted(s for s in stated if s not in REFUSALS and s not in listed) == []


def test_every_refusal_has_a_test_that_refuses_and_one_that_proceeds():
    """Every refusal the docs promise (registry.REFUSALS) is stated both ways."""
    stated = registry.load_all()
    missing = [f"{name}: {kind}" for name in REFUSALS for kind in (REFUSES, PROCEEDS) if not stated.get(name, {}).get(kind)]
    assert missing == []


def test_each_refusal_is_one_the_docs_promise():
    """Each refusal of registry.REFUSALS is said by its page in the words given (so the list follows the docs)."""
    missing = [
        f"{name}: {page} no longer says {words!r}"
        for name, (page, words) in REFUSALS.items()
        if words not in " ".join((registry.ROOT / page).read_text(encoding="utf-8").split())
    ]
    assert missing == []


def test_docs_testing_md_maps_every_code_and_refusal_to_its_tests():
    """Issue 33: "docs/testing.md maps every finding code and every refusal to the tests that state it"."""
    assert registry.documented_map() == registry.render_map(), "run: python -m tests.spec.registry --write"
