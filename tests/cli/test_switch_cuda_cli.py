"""`gpudoctor switch-cuda` run as a user runs it, in a subprocess, on temporary roots with real trees and links.

`--root` (hidden) points the command at the temporary root. Exit codes and output are asserted exactly.
"""

from __future__ import annotations

import os
import pty
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpudoctor import switch_cuda as sc
from gpudoctor.cli.switch_cuda import _rerun_argv
from tests.unit.test_switch_cuda import TREES, UA, alternatives_machine, entries, link_of, make_machine, make_toolkit

# gpudoctor.cli.main exactly as the console script runs it (the real app: switch-cuda must be registered).
HARNESS = "import sys\nfrom gpudoctor.cli import main\nmain(sys.argv[1:])\n"
BASE_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "SHELL": "/bin/bash", "LC_ALL": "C.UTF-8"}


def command(*args: str, root: Path | None = None) -> list[str]:
    return [sys.executable, "-c", HARNESS, "switch-cuda", *args, *(["--root", str(root)] if root else [])]


def gpudoctor(*args: str, root: Path | None = None, env: dict | None = None, timeout: float = 60):
    return subprocess.run(
        command(*args, root=root),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env={**BASE_ENV, **(env or {})},
    )


def tree_state(root: Path) -> dict:
    """Every path under root: its type, link target, inode and mtime; equal means nothing changed."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            target = os.readlink(path) if stat.S_ISLNK(st.st_mode) else None
            out[os.path.relpath(path, root)] = (stat.S_IFMT(st.st_mode), target, st.st_ino, st.st_mtime_ns)
    return out


# --- the system scope -------------------------------------------------------------------------------


def test_switch_with_yes_re_points_the_link_checks_it_and_prints_the_undo(tmp_path):
    root = make_machine(tmp_path)
    before = entries(root)
    result = gpudoctor("11.8", "--yes", root=root)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "/usr/local/cuda: /usr/local/cuda-12.8 -> /usr/local/cuda-11.8 (CUDA 11.8.89)\n"
        "the same by hand: ln -sn /usr/local/cuda-11.8 /usr/local/cuda.new && mv -T /usr/local/cuda.new /usr/local/cuda\n"
        "done: /usr/local/cuda -> /usr/local/cuda-11.8, CUDA 11.8.89 (checked)\n"
        "to undo: gpudoctor switch-cuda /usr/local/cuda-12.8\n"
    )
    assert result.stderr == ""
    assert link_of(root) == str(root / "usr/local/cuda-11.8")
    assert entries(root) == before | {sc.LOCK_NAME}
    undo = gpudoctor("/usr/local/cuda-12.8", "--yes", root=root)
    assert undo.returncode == 0 and link_of(root) == str(root / "usr/local/cuda-12.8")


def test_after_a_switch_a_stale_path_in_this_shell_is_pointed_out(tmp_path):
    root = make_machine(tmp_path)
    result = gpudoctor("13", "--yes", root=root, env={"PATH": "/usr/local/cuda-12.8/bin:/usr/bin:/bin"})
    assert result.returncode == 0
    assert result.stderr == (
        "note: this environment still names another toolkit:\n"
        "  nvcc on PATH (/usr/local/cuda-12.8/bin/nvcc) still names CUDA 12.8.2 at /usr/local/cuda-12.8\n"
        'switch this shell too: eval "$(gpudoctor switch-cuda 13 --shell)"\n'
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="the rule is root's: only root is refused a toolkit others can write")
@pytest.mark.parametrize(
    "make_unsafe, why",
    [
        (lambda tk: tk.chmod(0o777), "usr/local/cuda-11.8 is writable by every user (mode 0777)"),
        (lambda tk: os.chown(tk / "bin", 1000, 1000), "usr/local/cuda-11.8/bin is owned by uid 1000, not root"),
    ],
)
def test_root_refuses_a_toolkit_that_other_users_can_change(tmp_path, make_unsafe, why):
    root = make_machine(tmp_path)
    for p in (tmp_path, root):
        p.chmod(0o755)  # the temporary root itself is root's own
    make_unsafe(root / "usr/local/cuda-11.8")
    before = link_of(root)
    result = gpudoctor("11.8", "--yes", root=root)
    assert result.returncode == 3, result.stdout + result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith(
        "gpudoctor: error: the CUDA 11.8.89 toolkit at /usr/local/cuda-11.8 can be changed by users other than root ("
    )
    assert why in first
    assert "  sudo chmod -R go-w /usr/local/cuda-11.8" in result.stderr
    assert '  eval "$(gpudoctor switch-cuda 11.8 --shell)"' in result.stderr
    assert link_of(root) == before  # nothing changed
    # The same toolkit for one shell is the user's own business: --shell still prints it.
    assert gpudoctor("11.8", "--shell", root=root, env=SHELL_ENV).returncode == 0


def test_switching_to_the_active_toolkit_changes_nothing(tmp_path):
    root = make_machine(tmp_path)
    before = tree_state(root)
    result = gpudoctor("12", root=root)
    assert (result.returncode, result.stdout) == (
        0,
        "/usr/local/cuda already points to /usr/local/cuda-12.8 (CUDA 12.8.2); nothing to do\n",
    )
    assert tree_state(root) == before


def test_dry_run_prints_the_plan_and_changes_nothing(tmp_path):
    root = make_machine(tmp_path)
    before = tree_state(root)
    result = gpudoctor("13.0", "--dry-run", root=root)
    assert result.returncode == 0
    assert result.stdout == (
        "/usr/local/cuda: /usr/local/cuda-12.8 -> /usr/local/cuda-13.0 (CUDA 13.0.88)\n"
        "the same by hand: ln -sn /usr/local/cuda-13.0 /usr/local/cuda.new && mv -T /usr/local/cuda.new /usr/local/cuda\n"
        "dry run: nothing changed\n"
    )
    assert tree_state(root) == before  # not even the lock file


def test_without_a_terminal_and_without_yes_it_refuses_to_ask(tmp_path):
    root = make_machine(tmp_path)
    before = tree_state(root)
    result = gpudoctor("11.8", root=root)
    assert result.returncode == 2
    assert result.stderr == (
        "gpudoctor: error: not switching without asking, and there is no terminal to ask on\n"
        "hint: rerun with --yes to switch, or with --dry-run to see the plan only\n"
    )
    assert tree_state(root) == before


def on_a_terminal(root: Path, answer: bytes, *args: str) -> subprocess.CompletedProcess:
    """Run with stdin on a real pseudo-terminal and type `answer` at the prompt."""
    controller, terminal = pty.openpty()
    try:
        proc = subprocess.Popen(
            command(*args, root=root), stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=BASE_ENV, text=True
        )
        os.close(terminal)
        os.write(controller, answer + b"\n")
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(controller)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.typer_rich
def test_on_a_terminal_it_asks_and_no_means_nothing_changes(tmp_path):
    root = make_machine(tmp_path)
    before = tree_state(root)
    result = on_a_terminal(root, b"n", "11.8")
    assert result.returncode == 1
    assert "Switch? [y/N]: " in result.stdout and result.stderr == "nothing changed\n"
    assert tree_state(root) == before


@pytest.mark.typer_rich
def test_on_a_terminal_yes_switches(tmp_path):
    root = make_machine(tmp_path)
    result = on_a_terminal(root, b"y", "11.8")
    assert result.returncode == 0, result.stderr
    assert "Switch? [y/N]: " in result.stdout and "done: /usr/local/cuda -> /usr/local/cuda-11.8" in result.stdout
    assert link_of(root) == str(root / "usr/local/cuda-11.8")


# --- refusals: exit 3, the reason, and what to do instead ------------------------------------------------


def test_refuses_a_real_directory_at_usr_local_cuda(tmp_path):
    root = make_machine(tmp_path, trees=("cuda-11.8",), link_to=None)
    make_toolkit(root / "usr/local/cuda", TREES["cuda-12.8"])
    before = tree_state(root)
    result = gpudoctor("11.8", "--yes", root=root)
    assert result.returncode == 3
    assert result.stderr.startswith(
        "gpudoctor: error: /usr/local/cuda is a real directory; gpudoctor never deletes or moves what it did not create\n"
        "hint: For this shell only (no root, nothing moved):\n"
        '  eval "$(gpudoctor switch-cuda 11.8 --shell)"\n'
    )
    assert tree_state(root) == before


def test_refuses_a_version_that_is_not_installed(tmp_path):
    root = make_machine(tmp_path)
    result = gpudoctor("12.4", "--yes", root=root)
    assert result.returncode == 3
    lines = result.stderr.splitlines()
    assert lines[0] == (
        "gpudoctor: error: CUDA 12.4 is not installed (installed: 11.8.89 (/usr/local/cuda-11.8), "
        "12.8.2 (/usr/local/cuda-12.8), 13.0.88 (/usr/local/cuda-13.0))"
    )
    # The temporary root says Ubuntu 22.04: NVIDIA's ubuntu2204 repository, set up first (compat_matrix/cuda_repos.toml).
    at = lines.index("  sudo apt-get install -y cuda-toolkit-12-4")
    assert lines[at - 1] == "  # NVIDIA\u2019s ubuntu2204 repository"  # its note, the line before


def test_refuses_an_incomplete_toolkit(tmp_path):
    root = make_machine(tmp_path)
    (root / "usr/local/cuda-11.8/bin/nvcc").unlink()
    result = gpudoctor("11.8", "--yes", root=root)
    assert result.returncode == 3
    assert result.stderr.splitlines()[0] == (
        "gpudoctor: error: the CUDA 11.8.89 toolkit at /usr/local/cuda-11.8 is incomplete (missing bin/nvcc)"
    )
    assert link_of(root) == str(root / "usr/local/cuda-12.8")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere: the non-root path is covered by the plan tests")
def test_refuses_without_permission_and_prints_the_sudo_command(tmp_path):
    root = make_machine(tmp_path)
    local = root / "usr/local"
    local.chmod(0o555)
    try:
        result = gpudoctor("11.8", "--yes", root=root)
    finally:
        local.chmod(0o755)
    assert result.returncode == 3
    assert f"  sudo {sys.executable} -m gpudoctor switch-cuda 11.8 --root {root}" in result.stderr.splitlines()


def test_the_sudo_command_runs_the_same_program_by_absolute_path():
    assert _rerun_argv("11.8", "/", "/opt/venv/bin/gpudoctor") == ["/opt/venv/bin/gpudoctor", "switch-cuda", "11.8"]
    assert _rerun_argv("12", "/", "/usr/lib/python3/dist-packages/gpudoctor/__main__.py") == [
        sys.executable,
        "-m",
        "gpudoctor",
        "switch-cuda",
        "12",
    ]


@pytest.mark.typer_rich
@pytest.mark.parametrize(
    "args",
    [
        (),
        ("11.8", "12.8"),
        ("--list", "11.8"),
        ("11.8", "--shell", "--dry-run"),
        ("abc",),
        ("11.8", "bash"),
        ("--shell", "11.8", "tcsh"),
    ],
)
def test_usage_errors_exit_2_and_change_nothing(tmp_path, args):
    root = make_machine(tmp_path)
    before = tree_state(root)
    result = gpudoctor(*args, root=root)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert tree_state(root) == before


# --- update-alternatives ------------------------------------------------------------------------------


@pytest.mark.skipif(UA is None, reason="needs update-alternatives")
def test_an_alternatives_managed_link_is_switched_through_update_alternatives(tmp_path):
    root = alternatives_machine(tmp_path)
    result = gpudoctor("11.8", "--yes", root=root)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == [
        "/usr/local/cuda: /usr/local/cuda-12.8 -> /usr/local/cuda-11.8 (CUDA 11.8.89) through update-alternatives (/etc/alternatives/cuda)",
        "the same by hand: update-alternatives --set cuda /usr/local/cuda-11.8",
    ]
    assert os.readlink(root / "etc/alternatives/cuda") == str(root / "usr/local/cuda-11.8")
    assert link_of(root) == str(root / "etc/alternatives/cuda")
    refused = gpudoctor("13", "--yes", root=root)
    assert refused.returncode == 3 and "is not one of its choices" in refused.stderr


# --- an interrupted switch ------------------------------------------------------------------------------


def test_a_switch_killed_between_link_and_rename_leaves_the_old_link_and_the_next_switch_cleans_up(tmp_path):
    root = make_machine(tmp_path)
    local = root / "usr/local"
    proc = subprocess.Popen(
        command("11.8", "--yes", root=root),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**BASE_ENV, sc.PAUSE_ENV: "60"},
    )
    try:
        deadline = time.monotonic() + 30
        while not [n for n in os.listdir(local) if n.startswith(sc.TEMP_PREFIX)]:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the switch never reached its temporary link"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert link_of(root) == str(local / "cuda-12.8")  # the old link, whole
    assert (local / "cuda" / "version.json").is_file()
    leftovers = [n for n in os.listdir(local) if n.startswith(sc.TEMP_PREFIX)]
    assert len(leftovers) == 1 and os.readlink(local / leftovers[0]) == str(local / "cuda-11.8")

    again = gpudoctor("13", "--yes", root=root)
    assert again.returncode == 0, again.stderr
    assert link_of(root) == str(local / "cuda-13.0")
    assert not [n for n in os.listdir(local) if n.startswith(sc.TEMP_PREFIX)]


# --- the shell scope ------------------------------------------------------------------------------------

SHELL_ENV = {
    "PATH": "/usr/local/cuda-12.8/bin:/usr/bin:/bin",
    "LD_LIBRARY_PATH": "/usr/local/cuda-12.8/lib64",
    "CUDA_HOME": "/usr/local/cuda-12.8",
}


def test_shell_prints_only_code_on_stdout_and_bash_applies_it(tmp_path):
    root = make_machine(tmp_path)
    before = tree_state(root)
    result = gpudoctor("11.8", "--shell", root=root, env=SHELL_ENV)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "export CUDA_HOME=/usr/local/cuda-11.8\n"
        "export PATH=/usr/local/cuda-11.8/bin:/usr/bin:/bin\n"
        "export LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64\n"
    )
    assert result.stderr == "gpudoctor: this shell: CUDA 11.8.89 from /usr/local/cuda-11.8\n"
    shown = subprocess.run(
        ["bash", "-c", 'eval "$CODE"; printf "%s|%s|%s" "$CUDA_HOME" "$PATH" "$LD_LIBRARY_PATH"'],
        capture_output=True,
        text=True,
        env={**SHELL_ENV, "CODE": result.stdout},
    )
    assert shown.stdout == "/usr/local/cuda-11.8|/usr/local/cuda-11.8/bin:/usr/bin:/bin|/usr/local/cuda-11.8/lib64"
    assert tree_state(root) == before


@pytest.mark.typer_rich
@pytest.mark.parametrize("args", [("--shell", "fish", "13"), ("13", "--shell", "fish")])
def test_shell_syntax_is_named_on_either_side_of_the_version(tmp_path, args):
    result = gpudoctor(*args, root=make_machine(tmp_path), env=SHELL_ENV)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "set -gx CUDA_HOME /usr/local/cuda-13.0\n"
        "set -gx PATH /usr/local/cuda-13.0/bin /usr/bin /bin\n"
        "set -gx LD_LIBRARY_PATH /usr/local/cuda-13.0/lib64\n"
    )


def test_shell_defaults_to_posix_whatever_SHELL_says(tmp_path):
    # $SHELL is the login shell, not necessarily the one running eval "$(...)": the hook names fish and
    # PowerShell itself (gpudoctor.cmdline.EvalShell), so the unnamed default is the POSIX one.
    result = gpudoctor("13", "--shell", root=make_machine(tmp_path), env={**SHELL_ENV, "SHELL": "/usr/bin/fish"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("export CUDA_HOME=/usr/local/cuda-13.0\n")


def test_shell_powershell_sets_env_entries(tmp_path):
    result = gpudoctor("13", "--shell", "powershell", root=make_machine(tmp_path), env=SHELL_ENV)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "$env:CUDA_HOME = '/usr/local/cuda-13.0'\n"
        "$env:PATH = '/usr/local/cuda-13.0/bin:/usr/bin:/bin'\n"
        "$env:LD_LIBRARY_PATH = '/usr/local/cuda-13.0/lib64'\n"
    )


def test_shell_unknown_name_is_a_usage_error(tmp_path):
    result = gpudoctor("13", "--shell", "tcsh", root=make_machine(tmp_path), env=SHELL_ENV)
    assert result.returncode == 2 and result.stdout == ""


def test_fish_hook_from_cmdline_runs_in_real_fish(tmp_path):
    import shutil

    from gpudoctor import cmdline

    fish = shutil.which("fish")
    if fish is None:
        pytest.skip("fish is not installed")
    root = make_machine(tmp_path)
    hook = cmdline.render(cmdline.EvalShell(("gpudoctor", "switch-cuda", "13")), "fish")
    assert hook == "gpudoctor switch-cuda 13 --shell fish | source"
    code = gpudoctor(*hook.split(" | ")[0].split()[2:], root=root, env=SHELL_ENV).stdout
    shown = subprocess.run(
        [fish, "-c", 'echo $CODE | source; printf "%s|%s" $CUDA_HOME (string join : $PATH)'],
        capture_output=True,
        text=True,
        env={**SHELL_ENV, "CODE": code},
        timeout=30,
    )
    assert shown.stdout == "/usr/local/cuda-13.0|/usr/local/cuda-13.0/bin:/usr/bin:/bin", shown.stderr


def test_shell_refusal_prints_no_code(tmp_path):
    result = gpudoctor("10.2", "--shell", root=make_machine(tmp_path), env=SHELL_ENV)
    assert result.returncode == 3 and result.stdout == ""  # eval of nothing changes nothing
    assert result.stderr.startswith("gpudoctor: error: CUDA 10.2 is not installed")


# --- --list ---------------------------------------------------------------------------------------------


@pytest.mark.typer_rich
def test_list_on_a_temporary_root(tmp_path):
    result = gpudoctor("--list", root=make_machine(tmp_path))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "CUDA toolkits (* active: the one nvcc on PATH runs, else /usr/local/cuda, else CUDA_HOME)\n"
        "  11.8.89  /usr/local/cuda-11.8\n"
        "* 12.8.2   /usr/local/cuda-12.8  via /usr/local/cuda\n"
        "  13.0.88  /usr/local/cuda-13.0\n"
        "/usr/local/cuda -> /usr/local/cuda-12.8\n"
    )


# The project's build machine: /usr/local/cuda -> /usr/local/cuda-13.0, a toolkit assembled from pip wheels
# (a dist-info names its version). Built in a temporary root, so these run, and mean the same, anywhere.
def build_machine_root(tmp_path: Path) -> Path:
    return make_machine(tmp_path, trees=("cuda-13.0",), link_to="cuda-13.0")


def test_list_on_the_build_machine_shows_cuda_13_active(tmp_path):
    result = gpudoctor("--list", root=build_machine_root(tmp_path))
    assert result.returncode == 0, result.stderr
    active = [line for line in result.stdout.splitlines() if line.startswith("*")]
    assert len(active) == 1 and active[0].startswith("* 13.0.88  /usr/local/cuda-13.0  via /usr/local/cuda")


SCRIPT = Path(sys.executable).parent / "gpudoctor"


def test_the_console_script_runs_switch_cuda(tmp_path):
    """The installed console script itself (not the harness, which registers switch-cuda on its own)."""
    root = build_machine_root(tmp_path)
    result = subprocess.run(
        [str(SCRIPT), "switch-cuda", "--list", "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        env=BASE_ENV,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    assert "* 13.0.88  /usr/local/cuda-13.0  via /usr/local/cuda" in result.stdout
