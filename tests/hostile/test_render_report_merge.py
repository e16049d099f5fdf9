"""`gpudoctor report merge` text view with hostile node reports: node names, finding titles and facts
come from files anyone can write; each is shown on its own line, with no control reaching the terminal."""

from __future__ import annotations

import json

import pytest

from gpudoctor.report_merge import merge_paths, render_text
from gpudoctor.sanitize import clean_line, has_unsafe
from tests.hostile.strings import HOSTILE


def report(node: str, h: str) -> dict:
    return {
        "schema": "gpudoctor.report/1",
        "node": node,
        "status": "error",
        "exit_code": 1,
        "findings": [{"code": "driver-old", "severity": "error", "title": f"old driver {h}"}],
        "facts": {"driver": {"nvml_driver_version": h, "gpus": [{"name": h}]}},
    }


@pytest.mark.parametrize("h", HOSTILE)
def test_merge_text_forges_no_line(h, tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(report(h, h)), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(report("node-b", "535.86.05")), encoding="utf-8")
    text = render_text(merge_paths([str(tmp_path)]))
    baseline = tmp_path / "plain"
    baseline.mkdir()
    (baseline / "a.json").write_text(json.dumps(report("node-a", "x")), encoding="utf-8")
    (baseline / "b.json").write_text(json.dumps(report("node-b", "535.86.05")), encoding="utf-8")
    plain = render_text(merge_paths([str(baseline)]))
    assert text.count("\n") == plain.count("\n")  # the data added no line
    assert not has_unsafe(text)
    assert clean_line(f"old driver {h}") in text
