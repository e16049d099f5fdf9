"""The one atomic writer (gpudoctor.atomicfile): modes set on the descriptor, nothing followed, a swap
raced for real; and every write path (--textfile, snapshot -o, --plot, fix --env-file) through it."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from gpudoctor import atomicfile, textfile, userfile
from gpudoctor.errors import GpudoctorError, UnsafeOperation


def _swapper(directory, secret, stop: threading.Event, swaps: list[int]) -> None:
    """What the owner of a textfile directory can do: replace gpudoctor's temporary file by a link to
    another file, hoping a chmod or write by name follows it."""
    while not stop.is_set():
        for name in os.listdir(directory):
            if not name.startswith(".gpudoctor.prom."):
                continue
            p = os.path.join(directory, name)
            try:
                if os.path.islink(p):
                    continue
                os.rename(p, p + ".stolen")
                os.symlink(secret, p)
                swaps[0] += 1
            except OSError:
                pass


def test_a_link_swapped_in_for_the_temporary_file_is_never_followed(tmp_path):
    directory = tmp_path / "textfile"
    directory.mkdir()
    secret = tmp_path / "secret"
    secret.write_text("root only\n")
    secret.chmod(0o600)
    stop = threading.Event()
    swaps = [0]
    thread = threading.Thread(target=_swapper, args=(str(directory), str(secret), stop, swaps), daemon=True)
    thread.start()
    text = "gpudoctor_up 1\n" * 40000  # about 600 KB: written and fsynced while the swapper looks
    written = refused = 0
    try:
        for _ in range(60):
            try:
                textfile.write_atomic(str(directory), "gpudoctor.prom", text)
                written += 1
                target = directory / "gpudoctor.prom"
                # Either the file we wrote is in place, or (the swap won) the call said so: never silently a link.
                assert not target.is_symlink() and stat.S_IMODE(target.stat().st_mode) == 0o644
            except GpudoctorError as exc:
                assert "replaced" in str(exc) or "No such file" in str(exc), exc
                refused += 1
            if swaps[0] >= 5 and written:
                break
    finally:
        stop.set()
        thread.join(5)
    assert swaps[0] >= 1, "the swapper never caught a temporary file: the race was not exercised"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600 and secret.read_text() == "root only\n"
    assert written + refused >= 1


def test_a_file_planted_at_the_temporary_name_is_not_opened(tmp_path, monkeypatch):
    secret = tmp_path / "secret"
    secret.write_text("x")
    secret.chmod(0o600)
    monkeypatch.setattr(atomicfile.secrets, "token_hex", lambda n: "fixed")
    (tmp_path / ".out.gpudoctor-fixed.tmp").symlink_to(secret)
    with pytest.raises(FileExistsError):
        atomicfile.write_file(str(tmp_path), "out", b"data", mode=0o644)
    assert secret.read_text() == "x" and stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_an_output_replaces_a_link_at_its_name_instead_of_writing_through_it(tmp_path):
    # A shared sticky /tmp where another user left `snapshot.json -> /etc/something`.
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    (tmp_path / "snapshot.json").symlink_to(victim)
    atomicfile.write_output(str(tmp_path / "snapshot.json"), b"{}\n")
    assert victim.read_text() == "keep\n"
    assert not (tmp_path / "snapshot.json").is_symlink() and (tmp_path / "snapshot.json").read_text() == "{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snapshot.json", "victim"]


def test_an_existing_outputs_mode_is_kept_and_a_new_one_follows_the_umask(tmp_path):
    old = tmp_path / "old.svg"
    old.write_text("x")
    old.chmod(0o640)
    atomicfile.write_output(str(old), b"<svg/>")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
    mask = os.umask(0o027)
    try:
        atomicfile.write_output(str(tmp_path / "new.svg"), b"<svg/>")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.svg").stat().st_mode) == 0o640


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="runs as root (chown to another user)")
def test_as_root_snapshot_output_in_a_sticky_directory_never_follows_another_users_link(tmp_path):
    import subprocess
    import sys

    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = tmp_path / "shadow"
    victim.write_text("root:x\n")
    victim.chmod(0o600)
    link = shared / "snap.json"
    link.symlink_to(victim)
    os.lchown(link, 1000, 1000)  # the other user's link, as fs.protected_symlinks=0 would let root follow
    replay = os.path.join(os.path.dirname(__file__), "..", "machines", "gt1030-desktop-memory-held", "snapshot.json")
    proc = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "snapshot", "--from", replay, "-o", str(link)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert victim.read_text() == "root:x\n", proc.stderr
    assert not link.is_symlink()


def test_env_file_checks_up_front(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop")
    with pytest.raises(UnsafeOperation, match="cannot be used"):
        userfile.check_writable(str(loop))
    with pytest.raises(UnsafeOperation, match="is a directory"):
        userfile.check_writable(str(tmp_path))
    ro = tmp_path / "ro.env"
    ro.write_text("A=1\n")
    ro.chmod(0o444)
    with pytest.raises(UnsafeOperation, match="read-only"):
        userfile.write_preserving(str(ro), "A=1\nB=2\n")
    assert ro.read_text() == "A=1\n"


def test_a_hard_linked_file_stays_one_file(tmp_path):
    rc = tmp_path / ".bashrc"
    rc.write_text("x=1\n")
    other = tmp_path / "bashrc-other-name"
    os.link(rc, other)
    userfile.write_preserving(str(rc), "x=2\n")
    assert other.read_text() == "x=2\n" and os.stat(rc).st_ino == os.stat(other).st_ino
    assert (tmp_path / ".bashrc.gpudoctor-bak").read_text() == "x=1\n"


@pytest.mark.parametrize("shape", ["directory", "link-loop"])
def test_fix_refuses_an_unusable_env_file_before_anything_runs(tmp_path, shape):
    from tests.hostile.test_corpus import assert_clean_run, run_cli

    target = tmp_path / "rc"
    if shape == "directory":
        target.mkdir()
    else:
        target.symlink_to(target)
    code, out, err = run_cli("fix", "--env-file", str(target), "--yes", "--probe-timeout", "5")
    assert_clean_run(code, out, err, f"fix --env-file {shape}")
    assert code == 3 and err.startswith(f"gpudoctor: error: {target}"), err
    assert "nothing written" in err
    assert out == ""  # nothing was probed or planned, let alone run
