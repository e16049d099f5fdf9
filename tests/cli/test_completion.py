"""`gpudoctor completion SHELL` (docs/completion.md): each script is accepted by the real shell, and,
loaded into it, completes `gpudoctor ch` to `check` by calling the real gpudoctor back.

The shells run the scripts with gpudoctor found on PATH as a user's shell would find it: a
`gpudoctor` in a temporary directory that runs this interpreter's `-m gpudoctor`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CHECK_OPTION_VARIABLES
from tests.hostile.test_corpus import run_cli

# Completion is click's protocol: run under the oldest and newest typer and rich too
# (tests/packaging/test_dependency_range.py).
pytestmark = pytest.mark.typer_rich

SHELLS = ("bash", "zsh", "fish", "powershell")


@pytest.fixture(scope="module")
def shell_env(tmp_path_factory) -> dict:
    """An environment whose PATH finds this checkout's gpudoctor first."""
    bin_dir = tmp_path_factory.mktemp("bin")
    shim = bin_dir / "gpudoctor"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gpudoctor "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in CHECK_OPTION_VARIABLES}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture(scope="module")
def scripts(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("completion")
    paths = {}
    for shell in SHELLS:
        # Printed by the console script's own entry point, in this process; the shells below call the real program back.
        code, stdout, stderr = run_cli("completion", shell)
        assert code == 0 and stderr == "", stderr
        assert "_GPUDOCTOR_COMPLETE=complete_" in stdout or "_GPUDOCTOR_COMPLETE = " in stdout, shell
        paths[shell] = out / f"gpudoctor.{shell}"
        paths[shell].write_text(stdout, encoding="utf-8")
    return paths


def need(program: str) -> str:
    found = shutil.which(program)
    if found is None:
        pytest.skip(f"{program} is not installed (make test-deps installs zsh and fish as root)")
    return found


def test_an_unknown_shell_is_a_usage_error():
    code, stdout, stderr = run_cli("completion", "tcsh")
    assert code == 2 and stdout == ""
    assert "'tcsh' is not one of 'bash', 'zsh', 'fish', 'powershell'" in stderr


def test_powershell_script_registers_a_completer(scripts):
    text = scripts["powershell"].read_text(encoding="utf-8")
    assert "Register-ArgumentCompleter -Native -CommandName gpudoctor" in text
    assert '$Env:_GPUDOCTOR_COMPLETE = "complete_powershell"' in text


def test_bash_accepts_the_script_and_completes_check(scripts, shell_env):
    bash = need("bash")
    assert subprocess.run([bash, "-n", str(scripts["bash"])], capture_output=True, text=True, timeout=60).returncode == 0
    # As bash's programmable completion calls it: COMP_WORDS and COMP_CWORD set, the function named by `complete -F`.
    probe = (
        'source "$1"; complete -p gpudoctor; '
        'COMP_WORDS=(gpudoctor ch); COMP_CWORD=1; _gpudoctor_completion gpudoctor; printf "<%s>\\n" "${COMPREPLY[@]}"; '
        'COMP_WORDS=(gpudoctor check --fail-on ""); COMP_CWORD=3; _gpudoctor_completion gpudoctor; printf "<%s>\\n" "${COMPREPLY[@]}"'
    )
    proc = subprocess.run(
        [bash, "--norc", "-c", probe, "bash", str(scripts["bash"])], capture_output=True, text=True, timeout=120, env=shell_env
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "complete -o default -F _gpudoctor_completion gpudoctor"
    assert lines[1:] == ["<check>", "<error>", "<warning>", "<info>"]


def test_zsh_accepts_the_script_and_answers_check(scripts, shell_env):
    zsh = need("zsh")
    assert subprocess.run([zsh, "-n", str(scripts["zsh"])], capture_output=True, text=True, timeout=60).returncode == 0
    # The completion function outside a completion widget: `compdef` and `_arguments` (compsys) are
    # stubbed so the test sees what the script hands to compsys, from the real gpudoctor.
    probe = 'compdef() { print -r -- "compdef $*"; }; _arguments() { print -r -- "$@"; }; source "$1"; words=(gpudoctor ch); CURRENT=2; _gpudoctor_completion'
    proc = subprocess.run(
        [zsh, "-f", "-c", probe, "zsh", str(scripts["zsh"])], capture_output=True, text=True, timeout=120, env=shell_env
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "compdef _gpudoctor_completion gpudoctor"
    assert len(lines) == 2 and lines[1].startswith('*: :(("check":"Diagnose the GPU')


def test_fish_accepts_the_script_and_completes_check(scripts, shell_env):
    fish = need("fish")
    proc = subprocess.run([fish, "--no-execute", str(scripts["fish"])], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    # `complete -C` asks fish's own completion machinery, as pressing Tab would.
    probe = 'source $argv[1]; complete -C "gpudoctor ch"; complete -C "gpudoctor check --format "'
    proc = subprocess.run(
        [fish, "--no-config", "-c", probe, str(scripts["fish"])], capture_output=True, text=True, timeout=120, env=shell_env
    )
    assert proc.returncode == 0, proc.stderr
    values = [line.split("\t")[0] for line in proc.stdout.splitlines()]
    # fish sorts the candidates: the command, then every --format value (gpudoctor.cli.choices.OutputFormat).
    from gpudoctor.cli.choices import OutputFormat

    assert values == ["check", *sorted(f.value for f in OutputFormat)]


def test_protocol_in_process_offers_check_for_ch(monkeypatch, capsys):
    """The same answer without a shell: what every script asks gpudoctor, through main()."""
    from gpudoctor.cli import main

    monkeypatch.setenv("_GPUDOCTOR_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", "gpudoctor ch")
    monkeypatch.setenv("COMP_CWORD", "1")
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.split() == ["check"]


def _complete(monkeypatch, capsys, words: str, cword: int) -> list[str]:
    from gpudoctor.cli import main

    monkeypatch.setenv("_GPUDOCTOR_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", str(cword))
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 0
    return capsys.readouterr().out.split()


def test_completion_offers_finding_codes(monkeypatch, capsys):
    """Issue 31, item 9: explain CODE, check --ignore and --only complete to the codes."""
    from gpudoctor.cli.common import all_codes

    assert _complete(monkeypatch, capsys, "gpudoctor explain driver-m", 2) == ["driver-missing"]
    gpu = sorted(c for c in all_codes() if c.startswith("gpu-"))
    assert _complete(monkeypatch, capsys, "gpudoctor check --ignore gpu-", 3) == gpu
    assert _complete(monkeypatch, capsys, "gpudoctor check --only gpu-", 3) == gpu


def test_switch_cuda_completes_the_installed_toolkits_versions():
    """The versions switch-cuda's completion offers are the toolkits the machine has (here a recorded one)."""
    from gpudoctor.cli.common import toolkit_versions
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot

    snapshot = Path(__file__).resolve().parents[1] / "machines" / "rtx4090-toolkit-paths-disagree" / "snapshot.json"
    host = ReplayHost(load_snapshot(str(snapshot)))
    assert toolkit_versions(host) == ["11.8", "12.5"]
