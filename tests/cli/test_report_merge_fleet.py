"""`report merge` at fleet size (docs/cluster.md): streamed reading, worker processes, the grouped view
above DETAIL_LIMIT nodes, `--baseline`, and memory that does not grow with the reports.

The fleet here is 60 to 1,000 nodes made from two recorded machines' real reports (tests/cli/machines/):
rtx4090-torch-cu121 (healthy) and rtx2070x2-cpu-builds (CPU builds of the frameworks: errors), with the
driver drifted on some nodes by text replacement, as bench/merge_fleet.py does at 100,000.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpudoctor import report_merge as rm
from gpudoctor.bounded import json_depth_ok, json_text_depth_ok
from tests.cli.conftest import machine


@pytest.fixture(scope="module")
def templates(gd) -> dict[str, str]:
    out = {}
    for name in ("rtx4090-torch-cu121", "rtx2070x2-cpu-builds"):
        r = gd("check", "--replay", machine(name), "--format", "json", "--node", "NODE")
        assert r.exit_code in (0, 1)
        out[name] = r.stdout
    return out


def fleet(directory: Path, templates: dict[str, str], nodes: int) -> Path:
    """Node i: the CPU-build machine when i % 10 == 9 (10%), else the healthy one; its driver 535.104.05
    instead of 535.86.05 when i % 20 == 3 (5%)."""
    directory.mkdir()
    good, bad = templates["rtx4090-torch-cu121"], templates["rtx2070x2-cpu-builds"]
    for i in range(nodes):
        text = bad if i % 10 == 9 else good
        if i % 20 == 3:
            text = text.replace("535.86.05", "535.104.05")
        (directory / f"n{i:04d}.json").write_text(text.replace('"NODE"', f'"n{i:04d}"'), encoding="utf-8")
    return directory


def test_grouped_view_above_the_detail_limit(gd, templates, tmp_path):
    reports = fleet(tmp_path / "r", templates, 60)
    r = gd("report", "merge", str(reports))
    assert r.exit_code == 1
    out = r.stdout
    assert out.startswith("60 node(s): 54 healthy, 6 error\n\nNodes by findings:\n")
    assert "NODE    STATUS" not in out  # no line per node at fleet size
    groups = out.split("\n\n")[1].splitlines()[1:]
    assert groups[0].split()[:4] == ["54", "healthy", "no", "findings"]
    assert groups[0].rstrip().endswith("n0000, n0001, n0002, n0003, n0004, … (+49 more)")
    assert groups[1].split()[:2] == ["6", "error"] and "n0009, n0019, n0029, n0039, n0049, … (+1 more)" in groups[1]
    # The driver: 590.44.01 on the six RTX 2070 nodes (their own recording), 535.104.05 where it drifted
    # (n0003, n0023, n0043: i % 20 == 3), 535.86.05 on the other 51.
    assert (
        "  driver version: 9 of 60 nodes differ from the most common, 535.86.05 (51 nodes)\n"
        "    590.44.01   6 nodes: n0009, n0019, n0029, n0039, n0049, … (+1 more)\n"
        "    535.104.05  3 nodes: n0003, n0023, n0043\n"
    ) in out
    assert "  GPU count: 6 of 60 nodes differ from the most common, 1 (54 nodes)\n    2  6 nodes: " in out


def test_small_merge_keeps_one_line_per_node(gd, templates, tmp_path):
    reports = fleet(tmp_path / "r", templates, rm.DETAIL_LIMIT)
    out = gd("report", "merge", str(reports)).stdout
    assert "NODE   STATUS" in out and "Nodes by findings" not in out
    assert "    535.104.05  n0003, n0023, n0043\n" in out  # every name, as before


def test_workers_give_the_same_merge(templates, tmp_path):
    reports = fleet(tmp_path / "r", templates, 120)
    (reports / "broken.json").write_text("{not json", encoding="utf-8")
    one = rm.merge_paths([str(reports)], spool=True, jobs=1)
    two = rm.merge_paths([str(reports)], spool=True, jobs=2)
    assert rm.render_text(one) == rm.render_text(two)
    assert rm.render_json(one, 1) == rm.render_json(two, 1)


def test_json_at_fleet_size_has_every_node_and_fits_the_schema(gd, templates, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    from gpudoctor import schemas

    reports = fleet(tmp_path / "r", templates, 75)
    baseline = tmp_path / "baseline.json"
    baseline.write_text(templates["rtx4090-torch-cu121"].replace('"NODE"', '"golden"'), encoding="utf-8")
    r = gd("report", "merge", "--format", "json", "--baseline", str(baseline), str(reports))
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schemas.load("merge.schema.json"))
    assert [n["node"] for n in doc["nodes"]] == [f"n{i:04d}" for i in range(75)]
    b = doc["baseline"]
    assert b["node"] == "golden" and b["facts"]["driver"] == "535.86.05"
    assert b["differences"]["driver"] == [
        {"value": "590.44.01", "nodes": [f"n{i:04d}" for i in range(9, 75, 10)]},  # the RTX 2070 machine's own
        {"value": "535.104.05", "nodes": ["n0003", "n0023", "n0043", "n0063"]},  # drifted
    ]
    # The CPU-build nodes have findings the golden node does not.
    assert b["codes"]["framework-cpu-build"]["nodes"] == [f"n{i:04d}" for i in range(9, 75, 10)]


def test_baseline_text_and_exit_status(gd, templates, tmp_path):
    reports = fleet(tmp_path / "r", templates, 20)
    baseline = tmp_path / "golden.json"
    baseline.write_text(templates["rtx4090-torch-cu121"].replace('"NODE"', '"golden"'), encoding="utf-8")
    r = gd("report", "merge", "--baseline", str(baseline), "--fail-on", "error", str(reports))
    assert f"Compared with the baseline golden ({baseline}):\n" in r.stdout
    assert (
        "  driver version: 3 nodes differ from the baseline's 535.86.05\n"
        "    590.44.01   2 nodes: n0009, n0019\n"
        "    535.104.05  1 node: n0003\n"
    ) in r.stdout
    assert "  findings the baseline does not have:\n    framework-cpu-build (error) on 2 nodes: n0009, n0019\n" in r.stdout
    assert "  as on the baseline everywhere: CUDA toolkits, Python, container\n" in r.stdout
    # Only the healthy machine's nodes, none drifted: same as the baseline, exit 0 even with --fail-on-drift.
    same = tmp_path / "same"
    same.mkdir()
    for i in (0, 1, 2):
        (same / f"n{i}.json").write_text((reports / f"n{i:04d}.json").read_text(encoding="utf-8"), encoding="utf-8")
    ok = gd("report", "merge", "--baseline", str(baseline), "--fail-on-drift", str(same))
    assert ok.exit_code == 0, ok.stdout
    assert "every node has the baseline's facts and no finding the baseline does not have" in ok.stdout
    (same / "n3.json").write_text((reports / "n0003.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert gd("report", "merge", "--baseline", str(baseline), "--fail-on-drift", str(same)).exit_code == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such baseline report"), ("{", "not one readable report"), ('{"schema": "x"}', "not a gpudoctor report")],
)
def test_bad_baseline_is_a_usage_error(gd, templates, tmp_path, content, message):
    reports = fleet(tmp_path / "r", templates, 2)
    baseline = tmp_path / "b.json"
    if content is not None:
        baseline.write_text(content, encoding="utf-8")
    r = gd("report", "merge", "--baseline", str(baseline), str(reports))
    assert r.exit_code == 2 and message in r.stderr


def test_memory_does_not_grow_with_the_reports(templates, tmp_path):
    """What the merge keeps per node is its name and references in the lists of nodes: bounded by a
    couple of kilobytes a node, where a report is tens of kilobytes. Python's own allocation counter
    (tracemalloc) is the measure, not the machine's memory."""
    small = fleet(tmp_path / "small", templates, 100)
    large = fleet(tmp_path / "large", templates, 600)
    report_bytes = len(templates["rtx4090-torch-cu121"])

    def peak(path: Path) -> int:
        tracemalloc.start()
        try:
            rm.merge_paths([str(path)], jobs=1)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    per_node = (peak(large) - peak(small)) / 500
    assert per_node < 2048, f"{per_node:.0f} bytes a node ({report_bytes} a report)"
    assert report_bytes > 5 * 2048


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.integers() | st.text(alphabet='[]{}"\\ab\n\u2028é'),
        lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\a', max_size=4), kids, max_size=3),
        max_leaves=30,
    ),
    st.integers(min_value=1, max_value=8),
    st.booleans(),
)
def test_text_depth_check_agrees_with_the_walk(value, limit, pretty):
    """bounded.json_text_depth_ok (the merge's fast check) answers as json_depth_ok does, on any JSON."""
    text = json.dumps(value, indent=2 if pretty else None, ensure_ascii=not pretty)
    assert json_text_depth_ok(text, limit) == json_depth_ok(value, limit)
