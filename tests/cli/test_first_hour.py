"""Issue 31, item 9: the smaller things a new user meets in the first hour.

`snapshot` without -o writes to standard output; `--driver 550` (a branch) is accepted; ignoring a finding
says so instead of a bare "No problems found"; install and fix print commands without a shell prompt, as
check does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.hostile.test_corpus import run_cli

ROOT = Path(__file__).resolve().parents[2]
NO_DRIVER = str(ROOT / "tests" / "machines" / "rtx3080-no-driver" / "snapshot.json")


@pytest.mark.typer_rich
def test_snapshot_without_o_writes_the_snapshot_to_stdout(tmp_path):
    paste = tmp_path / "issue.txt"
    paste.write_text("RuntimeError: CUDA error: no kernel image is available for execution on the device\n", encoding="utf-8")
    code, out, err = run_cli("snapshot", "--from", str(paste))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["format"] == "gpudoctor-snapshot/1" and doc["partial"] is True
    assert [e["kind"] for e in doc["pasted"]["errors"]] == ["no-kernel-image"]


@pytest.mark.typer_rich
def test_a_driver_branch_is_accepted_for_what_every_release_of_it_runs():
    code, out, err = run_cli(
        "install", "torch", "--driver", "550", "--python", sys.executable, "--dry-run", "--offline", "--format", "json"
    )
    assert code == 0, err
    machine = json.loads(out)["plan"]["machine"]
    # R550's first releases (550.40) predate CUDA 12.4's driver floor (550.54.14): the branch alone runs 12.3.
    assert (machine["driver"], machine["driver_cuda"], machine["told"]) == ("550", "12.3", ["--driver 550"])
    code, _, err = run_cli("install", "torch", "--driver", "55", "--python", sys.executable, "--dry-run", "--offline")
    assert code == 2 and "not an NVIDIA driver version" in err


def test_an_ignored_finding_is_named_not_hidden():
    code, out, _ = run_cli("check", "--replay", NO_DRIVER, "--ignore", "driver-missing")
    assert code == 0
    assert out.rstrip().splitlines()[-1] == "✓ No problems found. 1 finding(s) ignored as asked: driver-missing."
    code, out, _ = run_cli("check", "--replay", NO_DRIVER)
    assert code == 1 and "ignored as asked" not in out


def test_install_and_fix_print_commands_without_a_prompt():
    code, out, _ = run_cli("install", "torch", "--replay", NO_DRIVER, "--cuda", "12.4", "--offline")
    commands = [line for line in out.splitlines() if "-m pip " in line]
    assert commands and not [line for line in commands if line.lstrip().startswith(("$ ", "PS> "))]


USAGE_MISTAKES = [
    ("check", "--format", "json", "--fail-on", "fatal"),
    ("check", "--format", "json", "--require", "driver>=abc"),
    ("install", "torch", "--format", "json", "--cuda", "abc", "--replay", NO_DRIVER),
    ("install", "torch", "--format", "json", "--replay", NO_DRIVER),  # no GPU, no driver, no target: target-needed
    ("install", "torch", "--format", "json", "--no-such-option"),
]


@pytest.mark.typer_rich
@pytest.mark.parametrize("argv", USAGE_MISTAKES, ids=lambda a: " ".join(a))
def test_every_json_usage_error_has_one_status(argv):
    """Issue 31, item 8: exit 2 under --format json is "status": "doctor-error" everywhere (docs/exit-codes.md)."""
    code, out, _ = run_cli(*argv)
    doc = json.loads(out)
    assert (code, doc["exit_code"], doc["status"]) == (2, 2, "doctor-error")


def test_gpu_none_suggests_lspci_only_where_it_is_installed():
    """Issue 31, item 9: the project's own CI image has no lspci; the fix must not tell anyone to run it there."""
    import dataclasses

    from gpudoctor.checks import Context
    from gpudoctor.checks.driver import check_gpu_none
    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot

    snapshot = ROOT / "tests" / "machines" / "ci-docker-cuda13-no-gpu" / "snapshot.json"
    facts = diagnose(ReplayHost(load_snapshot(str(snapshot)))).facts
    assert facts.kernel.lspci is False  # not on the recorded PATH

    def commands(f) -> list[tuple[str, ...]]:
        (finding,) = check_gpu_none(f, Context())
        return [c.argv for c in finding.remediation.commands]

    assert commands(facts) == []
    with_lspci = dataclasses.replace(facts, kernel=dataclasses.replace(facts.kernel, lspci=True))
    assert commands(with_lspci) == [("lspci", "-nn")]
