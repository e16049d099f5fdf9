"""An unusable snapshot is one error line (and its hint), whatever its problems (issue 30, point 8)."""

from __future__ import annotations

import json

from tests.hostile.test_corpus import assert_clean_run, run_cli


def test_an_invalid_snapshot_is_one_line_naming_each_problem(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps({"format": "gpudoctor-snapshot/1", "files": {"/a\nb": 3}, "commands": 5, "env": []}), encoding="utf-8"
    )
    code, out, err = run_cli("check", "--replay", str(bad))
    assert_clean_run(code, out, err, "invalid snapshot")
    assert code == 3
    first, *rest = err.strip().splitlines()
    assert first.startswith(f"gpudoctor: error: {bad}: invalid snapshot: ")
    assert '"commands" must be an object' in first and "files:" in first and '"env"' in first
    assert rest == ["hint: see docs/snapshot-format.md"]
