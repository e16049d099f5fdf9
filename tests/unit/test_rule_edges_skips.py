"""The skip allowlist (tests/conftest.py, docs/testing.md "Test rules"): a skip for any other reason fails the run."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT, skip_allowed

TESTS = """
import pytest

def test_skips_for_a_listed_reason():
    pytest.skip("fish is not installed (make test-deps installs zsh and fish as root)")

def test_skips_for_an_unlisted_reason():
    pytest.skip("switch-cuda is not yet registered")

@pytest.mark.parametrize("slug", [])
def test_over_an_empty_list(slug):
    pass
"""


def test_an_unlisted_skip_fails_the_run_and_a_listed_one_does_not(tmp_path):
    (tmp_path / "test_skips.py").write_text(TESTS, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest", "-rA", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    out = done.stdout
    assert done.returncode == 1, out
    assert "SKIPPED [1] " in out and "fish is not installed" in out
    assert "FAILED " in out and "test_skips_for_an_unlisted_reason" in out and "not yet registered" in out
    # An empty parameter list skips the test silently under pytest; here it is an error.
    assert "test_over_an_empty_list" in out and "1 failed, 1 skipped, 1 error" in out


def test_the_allowlist_names_only_what_a_machine_may_lack():
    for allowed in (
        "needs an NVIDIA GPU with a working driver (NVML found none)",
        "chown needs root",
        "root reads any file: an unreadable file cannot be made",
        "zsh is not installed (make test installs it with apt-get when run as root)",
        "no C compiler to build the fake libcuda",
    ):
        assert skip_allowed(allowed), allowed
    for refused in ("switch-cuda is not yet registered in gpudoctor.cli._register", "no real cases recorded yet", "flaky", ""):
        assert not skip_allowed(refused), refused
