"""Editing a user's file (`fix --env-file`): through links, owner and mode kept, a backup, atomic; and the line in the file's own language."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess

import pytest

from gpudoctor import trust, userfile
from gpudoctor.errors import UnsafeOperation
from gpudoctor.install.fix import EnvSetting, apply_env, verify_env


def setting(path, name="XLA_PYTHON_CLIENT_PREALLOCATE", value="false", why="JAX preallocates"):
    return EnvSetting(name, value, str(path), why)


def test_a_symlinked_dotfile_stays_a_link_and_its_target_is_changed(tmp_path):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "bashrc"
    target.write_text("alias ll='ls -l'\n")
    target.chmod(0o640)
    link = tmp_path / ".bashrc"
    link.symlink_to(target)
    said = apply_env(setting(link))
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().endswith("export XLA_PYTHON_CLIENT_PREALLOCATE=false\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    # The backup lies beside the file changed (the target), with the old content and the same mode.
    backup = dotfiles / "bashrc.gpudoctor-bak"
    assert backup.read_text() == "alias ll='ls -l'\n" and stat.S_IMODE(backup.stat().st_mode) == 0o640
    assert said.endswith(f"(the previous content is in {backup})")
    assert sorted(p.name for p in dotfiles.iterdir()) == ["bashrc", "bashrc.gpudoctor-bak"]  # no temporary file left


def test_a_new_file_gets_no_backup_and_a_plain_mode(tmp_path):
    rc = tmp_path / ".zshrc"
    assert apply_env(setting(rc)) == f"added to {rc}: export XLA_PYTHON_CLIENT_PREALLOCATE=false"
    assert not (tmp_path / ".zshrc.gpudoctor-bak").exists()
    assert stat.S_IMODE(rc.stat().st_mode) & 0o022 == 0


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_owner_and_group_are_kept(tmp_path, monkeypatch):
    rc = tmp_path / ".bashrc"
    rc.write_text("x=1\n")
    os.chown(rc, 1234, 2345)
    monkeypatch.setattr(trust, "running_as_root", lambda: False)  # as if the user ran it (root's refusal is tested below)
    userfile.write_preserving(str(rc), "x=2\n")
    st = rc.stat()
    assert (st.st_uid, st.st_gid, rc.read_text()) == (1234, 2345, "x=2\n")
    bak = tmp_path / ".bashrc.gpudoctor-bak"
    assert (bak.stat().st_uid, bak.stat().st_gid, bak.read_text()) == (1234, 2345, "x=1\n")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="runs as root")
def test_root_does_not_write_a_file_a_user_controls(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    secret = tmp_path / "shadow"
    secret.write_text("root:x\n")
    os.chown(home, 1000, 1000)
    (home / ".bashrc").symlink_to(secret)  # what a user could leave for root's fix
    with pytest.raises(UnsafeOperation, match=r"not writing .*\.bashrc as root: .* is owned by uid 1000"):
        apply_env(setting(home / ".bashrc"))
    assert secret.read_text() == "root:x\n" and not (tmp_path / "shadow.gpudoctor-bak").exists()


def test_what_is_not_a_regular_file_is_left_alone(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeOperation, match="not a regular file"):
        apply_env(setting(fifo))


@pytest.mark.parametrize(
    "name, line",
    [
        (".bashrc", "export TF_FORCE_GPU_ALLOW_GROWTH=true"),
        ("config.fish", "set -gx TF_FORCE_GPU_ALLOW_GROWTH true"),
        ("project.env", "TF_FORCE_GPU_ALLOW_GROWTH=true"),
        ("profile.ps1", "$env:TF_FORCE_GPU_ALLOW_GROWTH = 'true'"),
    ],
)
def test_the_line_is_in_the_files_language(tmp_path, name, line):
    s = setting(tmp_path / name, "TF_FORCE_GPU_ALLOW_GROWTH", "true")
    assert s.line() == line
    apply_env(s)
    assert (tmp_path / name).read_text().splitlines()[-1] == line and verify_env(s)


def test_a_value_is_quoted_for_the_shell_and_a_newline_in_the_why_stays_in_the_comment(tmp_path):
    rc = tmp_path / ".bashrc"
    s = setting(rc, "XLA_PYTHON_CLIENT_MEM_FRACTION", "0.5; touch pwned", why='GPU "x"\ntouch pwned2')
    apply_env(s)
    text = rc.read_text()
    assert text == "# GPU \"x\" touch pwned2 (gpudoctor fix)\nexport XLA_PYTHON_CLIENT_MEM_FRACTION='0.5; touch pwned'\n"
    if shutil.which("bash"):
        out = subprocess.run(
            ["bash", "-c", f'. {rc}; printf %s "$XLA_PYTHON_CLIENT_MEM_FRACTION"'],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=30,
        )
        assert out.stdout == "0.5; touch pwned"
        assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()


def test_an_env_file_refuses_a_value_it_cannot_hold(tmp_path):
    from gpudoctor.cmdline import Unrenderable

    with pytest.raises(Unrenderable):
        setting(tmp_path / ".env", "XLA_PYTHON_CLIENT_MEM_FRACTION", "0.5\nLD_PRELOAD=/tmp/x.so").line()
