"""Input files that are not what they claim: FIFOs, devices, directories, huge, deeply nested, NaN.

Every command that reads a file answers in one line with the documented exit status (2 for a path that
does not exist, 3 for an unusable file; docs/exit-codes.md), prints a JSON error document under
--format json, and never hangs: each case runs in a subprocess with a timeout, because a FIFO read
the ordinary way would block forever.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "tests" / "cli" / "machines" / "rtx4090-torch-cu121.json"


def gpudoctor(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "gpudoctor", *args], capture_output=True, text=True, env=env, timeout=60)


def _fifo(tmp_path: Path) -> str:
    path = tmp_path / "fifo.json"
    os.mkfifo(path)
    return str(path)


def _dir(tmp_path: Path) -> str:
    path = tmp_path / "adir.json"
    path.mkdir()
    return str(path)


def _huge(tmp_path: Path) -> str:
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:  # sparse: 33 MiB of size, no disk
        fh.truncate(33 * 1024 * 1024)
    return str(path)


def _deep(tmp_path: Path) -> str:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    return str(path)


def _nested_100(tmp_path: Path) -> str:
    # Below Python's recursion limit, above gpudoctor's depth bound.
    snap = json.loads(SNAPSHOT.read_text())
    deep: object = "x"
    for _ in range(100):
        deep = [deep]
    snap["note_extra"] = deep
    path = tmp_path / "nested.json"
    path.write_text(json.dumps(snap))
    return str(path)


def _nan(tmp_path: Path) -> str:
    path = tmp_path / "nan.json"
    path.write_text(SNAPSHOT.read_text().replace('"rc": 0', '"rc": NaN', 1))
    return str(path)


def _binary(tmp_path: Path) -> str:
    path = tmp_path / "bin.json"
    path.write_bytes(b"\xff\xfe\x00\x01garbage")
    return str(path)


UNUSABLE = {
    "fifo": (_fifo, "is a FIFO (named pipe)"),
    "dev-zero": (lambda tmp: "/dev/zero", "is a character device"),
    "directory": (_dir, "is a directory"),
    "huge": (_huge, "is larger than 32 MiB"),
    "deep": (_deep, "nests JSON more than 64 levels deep"),
    "nested-100": (_nested_100, "nests JSON more than 64 levels deep"),
    "nan": (_nan, "NaN is not a JSON number"),
    "binary": (_binary, "is not UTF-8 text"),
}

# Each command that reads a file: argv with {} for the path; the JSON argv; where the JSON puts the message.
COMMANDS = {
    "check": (["check", "--replay", "{}"], ["--format", "json"]),
    "memory": (["memory", "--replay", "{}"], ["--format", "json"]),
    "memory-plan": (["memory", "plan", "a=1GiB:torch", "--replay", "{}"], ["--format", "json"]),
    "bench-results": (["bench", "bandwidth", "--results", "{}"], ["--format", "json"]),
    "bench-replay": (
        [
            "bench",
            "bandwidth",
            "--results",
            str(ROOT / "tests/fixtures/bandwidth/derived_b300_gen5x16_nvbandwidth.json"),
            "--replay",
            "{}",
        ],
        ["--format", "json"],
    ),
}


def _argv(template: list[str], path: str) -> list[str]:
    return [path if a == "{}" else a for a in template]


@pytest.mark.parametrize("case", sorted(UNUSABLE))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_unusable_input_is_one_line_and_exit_3(tmp_path, command, case):
    make, words = UNUSABLE[case]
    path = make(tmp_path)
    template, json_args = COMMANDS[command]
    r = gpudoctor(*_argv(template, path))
    assert r.returncode == 3, r.stderr
    first = r.stderr.splitlines()[0]
    assert first.startswith("gpudoctor: error: ") and words in first, r.stderr
    assert "Traceback" not in r.stderr and "unexpected error" not in r.stderr
    r = gpudoctor(*_argv(template, path), *json_args)
    assert r.returncode == 3
    doc = json.loads(r.stdout)
    assert doc["exit_code"] == 3 and words in doc["error"]["message"]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_missing_input_is_a_usage_error(tmp_path, command):
    template, json_args = COMMANDS[command]
    path = str(tmp_path / "absent.json")
    r = gpudoctor(*_argv(template, path))
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("gpudoctor: error: no such ") and "Traceback" not in r.stderr
    r = gpudoctor(*_argv(template, path), *json_args)
    assert r.returncode == 2
    assert json.loads(r.stdout)["exit_code"] == 2


@pytest.mark.parametrize("case", ["fifo", "dev-zero", "huge", "deep", "nan", "binary"])  # a directory is a directory of reports
def test_report_merge_lists_an_unusable_report_and_merges_the_rest(tmp_path, case):
    good = tmp_path / "good"
    good.mkdir()
    r = gpudoctor("check", "--replay", str(SNAPSHOT), "--format", "json", "--node", "gpu-01")
    (good / "gpu-01.json").write_text(r.stdout)
    bad = UNUSABLE[case][0](tmp_path)
    m = gpudoctor("report", "merge", str(good / "gpu-01.json"), bad, "--format", "json")
    assert m.returncode == 1, m.stderr
    doc = json.loads(m.stdout)
    assert [n["node"] for n in doc["nodes"]] == ["gpu-01"]
    assert [u["source"] for u in doc["unreadable"]] == [bad]
    assert UNUSABLE[case][1] in doc["unreadable"][0]["error"]


def test_report_merge_directory_fails_closed_on_a_fifo_entry(tmp_path):
    r = gpudoctor("check", "--replay", str(SNAPSHOT), "--format", "json", "--node", "gpu-01")
    (tmp_path / "gpu-01.json").write_text(r.stdout)
    os.mkfifo(tmp_path / "gpu-02.json")
    (tmp_path / "gpu-03.json").mkdir()
    m = gpudoctor("report", "merge", str(tmp_path))
    assert m.returncode == 1
    assert m.stdout.startswith("1 node(s): 1 healthy; 2 report(s) unreadable\n")
    assert f"{tmp_path / 'gpu-02.json'}: is a FIFO (named pipe), not a report" in m.stdout
    assert f"{tmp_path / 'gpu-03.json'}: is a directory, not a report" in m.stdout


def test_report_merge_missing_path_is_exit_2_with_a_json_document(tmp_path):
    m = gpudoctor("report", "merge", str(tmp_path / "absent.json"), "--format", "json")
    assert m.returncode == 2
    assert json.loads(m.stdout)["error"]["message"] == f"no such report file or directory: {tmp_path / 'absent.json'}"
    assert m.stderr.startswith("gpudoctor: error: no such report file or directory")


def test_matrix_check_fails_closed(tmp_path):
    os.mkfifo(tmp_path / "torch.toml")
    (tmp_path / "jax.toml").mkdir()
    r = gpudoctor("matrix", "check", str(tmp_path))
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        f"{tmp_path}: invalid",
        f"  {tmp_path / 'jax.toml'} is a directory, not a matrix file",
        f"  {tmp_path / 'torch.toml'} is a FIFO (named pipe), not a matrix file",
    ]
    r = gpudoctor("matrix", "check", str(tmp_path / "torch.toml"))
    assert r.returncode == 1 and "is a FIFO (named pipe), not a matrix file" in r.stdout
    r = gpudoctor("matrix", "check", str(tmp_path / "cuda.toml"))
    assert r.returncode == 2 and r.stderr.startswith("gpudoctor: error: no such matrix file or directory")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file: an unreadable file cannot be made")
def test_matrix_check_an_unreadable_file_is_invalid(tmp_path):
    path = tmp_path / "torch.toml"
    path.write_text("x = 1\n")
    path.chmod(0)
    r = gpudoctor("matrix", "check", str(tmp_path))
    assert r.returncode == 1 and "Permission denied" in r.stdout


# `--from` reads pasted text: a FIFO, a device, a directory or a file over the cap is refused in one line
# like every other input (gpudoctor.bounded), never waited on or read whole. (Text that is not UTF-8 is read,
# with replacement characters: a paste from a Windows console is still a paste.)
FROM_UNUSABLE = ("fifo", "dev-zero", "directory", "huge")


@pytest.mark.parametrize("case", FROM_UNUSABLE)
@pytest.mark.parametrize(
    "command", (["check", "--from", "{}"], ["snapshot", "-o", "-", "--from", "{}"]), ids=("check", "snapshot")
)
def test_pasted_text_input_is_bounded(tmp_path, command, case):
    make, words = UNUSABLE[case]
    path = make(tmp_path)
    r = gpudoctor(*_argv(command, path))
    assert r.returncode == 3, r.stderr
    first = r.stderr.splitlines()[0]
    assert first.startswith("gpudoctor: error: ") and words in first, r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
