"""Every kind of JSON document gpudoctor writes, made from every recorded input the suite holds, valid
against its shipped schema (src/gpudoctor/schemas/): reports of every machine (tests/machines, tests/real,
tests/cli/machines, tests/install_machines, the hostile corpus), a merge of them, memory views and plans,
bandwidth runs of every fixture, install plans, snapshots, and the error documents of each command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("jsonschema", reason="jsonschema is a test dependency: make test-tools, which runs pip install --group test")

from typer.testing import CliRunner  # noqa: E402

from tests.machines import snapshot_text
from tests.schemas import assert_valid  # noqa: E402

TESTS = Path(__file__).resolve().parent
SNAPSHOTS = sorted(
    [
        *TESTS.glob("machines/*/snapshot.json"),
        *TESTS.glob("real/*/snapshot.json"),
        *TESTS.glob("install_machines/*/snapshot.json"),
        *TESTS.glob("cli/machines/*.json"),
    ]
)
IDS = [str(p.relative_to(TESTS).parent if p.name == "snapshot.json" else p.relative_to(TESTS)) for p in SNAPSHOTS]
BANDWIDTH = sorted(TESTS.glob("fixtures/bandwidth/*.json"))


@pytest.fixture(scope="module")
def gd():
    import gpudoctor.cli as cli

    cli._register()
    runner = CliRunner()

    def run(*args: str, codes: tuple[int, ...] = (0, 1)) -> dict:
        result = runner.invoke(cli.app, list(args), env={"GITHUB_STEP_SUMMARY": None}, catch_exceptions=False)
        assert result.exit_code in codes, f"gpudoctor {' '.join(args)}: exit {result.exit_code}\n{result.output[-2000:]}"
        doc = json.loads(result.stdout)
        assert doc["exit_code"] == result.exit_code
        return doc

    return run


def test_every_snapshot_in_the_suite_is_valid():
    """Hand-written and recorded alike: what `--replay` reads is what `gpudoctor snapshot` writes."""
    found = sorted(TESTS.rglob("snapshot.json"))
    assert len(found) >= 70
    for path in [*found, *TESTS.glob("cli/machines/*.json")]:
        assert_valid(json.loads(path.read_text(encoding="utf-8")), str(path.relative_to(TESTS)))
    for path in sorted(TESTS.rglob("snapshot.json.gz")):  # machines recorded live, compressed (tests/machines)
        assert_valid(json.loads(snapshot_text(path.parent)), str(path.relative_to(TESTS)))


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=IDS)
def test_documents_of_a_machine(gd, snapshot, tmp_path):
    s = str(snapshot)
    report = gd("check", "--replay", s, "--format", "json")
    assert_valid(report, "check")
    assert_valid(gd("memory", "--replay", s, "--format", "json", codes=(0, 1, 2, 3)), "memory")
    plan = gd("memory", "plan", "a=1GiB:torch", "b=30GiB:jax", "--isolate", "--replay", s, "--format", "json", codes=(0, 1, 2, 3))
    assert_valid(plan, "memory plan")
    for framework in ("torch", "tensorflow", "jax"):
        doc = gd("install", framework, "--replay", s, "--offline", "--format", "json", codes=(0, 1, 2, 3))
        assert_valid(doc, f"install {framework}")
    # A snapshot recorded while replaying this machine: what `gpudoctor snapshot` writes, redacted.
    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import RecordingHost, ReplayHost
    from gpudoctor.host.snapshot import dump_snapshot, load_snapshot

    host = RecordingHost(ReplayHost(load_snapshot(s)))
    diagnose(host)
    host.snapshot.update(recorded_with="gpudoctor test", recorded_at="2025-01-01T00:00:00+00:00", redacted=True, note="n")
    assert_valid(json.loads(dump_snapshot(host.snapshot, "redacted-host", ["alice"])), "recorded snapshot")


def test_check_with_requirements_and_node(gd):
    doc = gd("check", "--replay", str(SNAPSHOTS[0]), "--format", "json", "--require", "gpus>=2 torch:cuda", "--node", "n1")
    assert doc["requirements"] and doc["node"] == "n1"
    assert_valid(doc, "check --require --node")


def test_reports_of_the_hostile_corpus():
    """Attacker-chosen text in every field: the report is still the documented shape."""
    from gpudoctor.doctor import diagnose
    from gpudoctor.errors import GpudoctorError
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.model import ExitCode
    from gpudoctor.render.json_report import render_json
    from tests.hostile.corpus import cases

    done = 0
    for case in cases():
        try:
            snapshot = validate_snapshot(json.loads(case.text()))
        except (GpudoctorError, ValueError):
            continue  # refused at loading: the error document is tested below
        assert_valid(json.loads(render_json(diagnose(ReplayHost(snapshot)), ExitCode.OK)), case.name)
        done += 1
    assert done > 300


def test_merge_of_every_report(gd, tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    for snapshot, name in zip(SNAPSHOTS, IDS, strict=True):
        doc = gd("check", "--replay", str(snapshot), "--format", "json")
        (reports / f"{name.replace('/', '_')}.json").write_text(json.dumps(doc), encoding="utf-8")
    failed = gd("check", "--replay", str(tmp_path / "nothing.json"), "--format", "json", codes=(2,))
    (reports / "failed.json").write_text(json.dumps(failed), encoding="utf-8")
    (reports / "garbage.json").write_text("not json", encoding="utf-8")
    (reports / "other.json").write_text('{"schema": "something/1"}', encoding="utf-8")
    merged = gd("report", "merge", "--format", "json", str(reports), codes=(1,))
    assert len(merged["nodes"]) == len(SNAPSHOTS) + 1 and len(merged["unreadable"]) == 2 and merged["differences"]
    assert_valid(merged, "report merge")
    assert_valid(gd("report", "merge", "--format", "json", str(reports / "failed.json"), codes=(1,)), "merge of a doctor-error")
    assert_valid(gd("report", "merge", "--format", "json", str(tmp_path / "none"), codes=(2,)), "merge usage error")


@pytest.mark.parametrize("results", BANDWIDTH, ids=[p.name for p in BANDWIDTH])
def test_bandwidth_document_of_each_fixture(gd, results):
    doc = gd("bench", "bandwidth", "--results", str(results), "--format", "json", codes=(0, 1, 3))
    assert_valid(doc, "bench bandwidth")
    # `--results` reads back what `--format json` wrote: the same document again.
    from gpudoctor.bandwidth.results import BenchRun

    again = BenchRun.from_json(doc).to_json()
    assert again["plan"] == doc["plan"] and [g["results"] for g in again["gpus"]] == [g["results"] for g in doc["gpus"]]


def test_error_documents(gd, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    missing = str(tmp_path / "missing.json")
    for args, codes in [
        (("check", "--replay", str(bad)), (3,)),
        (("check", "--replay", missing), (2,)),
        (("memory", "--replay", str(bad)), (3,)),
        (("memory", "plan", "a=1GiB", "--replay", str(bad)), (3,)),
        (("bench", "bandwidth", "--results", str(bad)), (3,)),
        (("install", "torch", "--replay", str(bad)), (3,)),
        (("install", "torch", "--replay", missing), (2,)),
        (("install", "jax", "--replay", str(TESTS / "machines" / "docker-started-without-gpus" / "snapshot.json")), (2,)),
    ]:
        doc = gd(*args, "--format", "json", codes=codes)
        assert "error" in doc, args
        assert_valid(doc, " ".join(args[:2]))
