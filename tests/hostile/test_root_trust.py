"""As root, programs and libraries come only from directories only root can change; a command printed for
root that would run a user's file is printed to run as that user (issue 30, point 4)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from gpudoctor import trust
from gpudoctor.cmdline import Cmd, render_all
from gpudoctor.doctor import for_root
from gpudoctor.host.live import LiveHost
from gpudoctor.model import Finding, Remediation, Severity

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="runs as root (chown to another user)")

CC = shutil.which("cc") or shutil.which("gcc")


def _user_dir(path, uid=1000):
    path.mkdir()
    os.chown(path, uid, uid)
    return path


def _stub(directory, name, marker):
    p = directory / name
    p.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
    p.chmod(0o755)
    return p


@pytest.mark.parametrize("shape", ["user-dir-first", "dot", "relative", "trailing-colon", "empty-middle"])
def test_root_runs_no_program_from_a_path_entry_a_user_controls(tmp_path, monkeypatch, shape):
    user = _user_dir(tmp_path / "user-bin")
    work = tmp_path / "work"
    work.mkdir()
    marker = tmp_path / "PWNED"
    for d in (user, work):
        _stub(d, "nvidia-smi", marker)
    path = {
        "user-dir-first": f"{user}:/usr/bin:/bin",
        "dot": ".:/usr/bin:/bin",
        "relative": "work:/usr/bin:/bin",
        "trailing-colon": "/usr/bin:/bin:",
        "empty-middle": "/usr/bin::/bin",
    }[shape]
    monkeypatch.chdir(tmp_path if shape == "relative" else work)
    monkeypatch.setenv("PATH", path)
    host = LiveHost()
    result = host.run(["nvidia-smi", "-L"], 5)
    assert not marker.exists(), f"root ran a user's nvidia-smi through PATH={path}"
    assert result.missing
    assert any("PATH" in n and "skipped" in n for n in host.trust_notes), host.trust_notes


def test_not_root_keeps_its_path(monkeypatch, tmp_path):
    monkeypatch.setattr(trust, "running_as_root", lambda: False)
    env, notes = trust.environ_for_root({"PATH": ".:/usr/bin", "LD_LIBRARY_PATH": "x"})
    assert env == {"PATH": ".:/usr/bin", "LD_LIBRARY_PATH": "x"} and notes == []


def test_the_environment_programs_get_as_root(tmp_path):
    user = _user_dir(tmp_path / "lib")
    env, notes = trust.environ_for_root(
        {"PATH": f"{user}:/usr/bin", "LD_LIBRARY_PATH": f"{user}:/usr/lib", "LD_PRELOAD": f"{user}/x.so", "HOME": "/root"}
    )
    assert env["PATH"] == "/usr/bin" and env["LD_LIBRARY_PATH"] == "/usr/lib" and "LD_PRELOAD" not in env
    assert env["HOME"] == "/root"
    assert len(notes) == 3 and all(str(user) in n for n in notes)


@pytest.mark.skipif(CC is None, reason="no C compiler (cc) to build a test library with")
def test_root_loads_no_nvml_from_a_library_path_a_user_controls(tmp_path):
    user = _user_dir(tmp_path / "lib")
    marker = tmp_path / "PWNED-NVML"
    src = tmp_path / "evil.c"
    src.write_text(
        '#include <stdio.h>\n__attribute__((constructor)) static void pwn(void) { FILE *f = fopen("'
        + str(marker)
        + '", "w"); if (f) fclose(f); }\nint nvmlInit_v2(void) { return 0; }\n',
        encoding="utf-8",
    )
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(user / "libnvidia-ml.so.1"), str(src)], check=True, timeout=60)
    env = {**os.environ, "LD_LIBRARY_PATH": str(user)}
    proc = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "check", "--format", "json", "--probe-timeout", "5"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert not marker.exists(), "root loaded a user's libnvidia-ml.so.1 (its constructor ran as uid 0)"
    assert f"LD_LIBRARY_PATH: {user} skipped" in proc.stderr, proc.stderr[-1000:]
    assert "Traceback" not in proc.stderr


def test_a_command_printed_for_root_that_runs_a_users_file_runs_as_that_user(tmp_path):
    venv = _user_dir(tmp_path / "venv", uid=1234)
    (venv / "bin").mkdir()
    os.chown(venv / "bin", 1234, 1234)
    python = _stub(venv / "bin", "python", tmp_path / "x")
    finding = Finding(
        "torch-cpu-build",
        Severity.ERROR,
        "torch",
        "t",
        "d",
        remediation=Remediation("s", (Cmd((str(python), "-m", "pip", "install", "torch")), Cmd(("nvidia-smi",)))),
    )
    (marked,) = for_root([finding])
    cmd, plain = marked.remediation.commands
    assert cmd.as_user == 1234 and cmd.argv == (str(python), "-m", "pip", "install", "torch") and not cmd.root
    assert plain == Cmd(("nvidia-smi",))
    lines = render_all(marked.remediation.commands)
    assert lines[1].startswith("sudo -u '#1234' ") and "not as root" in lines[0]
