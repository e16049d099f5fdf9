"""docs/testing.md, "Every run draws the same examples": the property tests run derandomized unless a person asks
for new draws (GPUDOCTOR_HYPOTHESIS=explore), so CI's verdict on a commit does not depend on the draw."""

from __future__ import annotations

import os

from hypothesis import settings


def test_the_property_tests_draw_the_same_examples_on_every_run():
    profile = os.environ.get("GPUDOCTOR_HYPOTHESIS", "repeatable")
    assert settings.default.derandomize is (profile == "repeatable")
    assert settings.get_profile("repeatable").derandomize is True
    assert settings.get_profile("explore").derandomize is False
