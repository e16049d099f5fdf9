"""Root trusts no one else's files: the rule with fake stats, then on real directories (as root)."""

from __future__ import annotations

import os
import stat
from types import SimpleNamespace

import pytest

from gpudoctor import trust

DIR, FILE, LINK = stat.S_IFDIR, stat.S_IFREG, stat.S_IFLNK


def fake(table: dict[str, tuple[int, int, int]]):
    """stat_fn over {path: (uid, gid, type|mode)}; missing paths raise FileNotFoundError."""

    def stat_fn(path: str):
        if path not in table:
            raise FileNotFoundError(2, "No such file or directory", path)
        uid, gid, mode = table[path]
        return SimpleNamespace(st_uid=uid, st_gid=gid, st_mode=mode)

    return stat_fn


SYSTEM = {"/": (0, 0, DIR | 0o755), "/usr": (0, 0, DIR | 0o755), "/usr/local": (0, 0, DIR | 0o755)}


def reason(path, table):
    return trust.untrusted_reason(path, fake({**SYSTEM, **table}), resolve=None)


def test_root_owned_and_written_by_root_only_is_trusted():
    table = {
        "/usr/local/cuda-12.4": (0, 0, DIR | 0o755),
        "/usr/local/cuda-12.4/bin": (0, 0, DIR | 0o755),
        "/usr/local/cuda-12.4/bin/nvcc": (0, 0, FILE | 0o755),
    }
    assert reason("/usr/local/cuda-12.4/bin/nvcc", table) is None
    assert trust.owned_by_root_only("/usr/local/cuda-12.4/bin/nvcc", fake({**SYSTEM, **table}), resolve=None)


@pytest.mark.parametrize(
    "table, why",
    [
        ({"/usr/local/cuda": (1000, 1000, DIR | 0o755)}, "/usr/local/cuda is owned by uid 1000, not root"),
        ({"/usr/local/cuda": (0, 0, DIR | 0o777)}, "/usr/local/cuda is writable by every user (mode 0777)"),
        ({"/usr/local/cuda": (0, 50, DIR | 0o775)}, "/usr/local/cuda is writable by group 50 (mode 0775)"),
        # The file is fine, a directory on the way is not: whoever can write it can swap the file.
        (
            {"/usr/local": (0, 50, DIR | 0o2775), "/usr/local/cuda": (0, 0, DIR | 0o755)},
            "/usr/local is writable by group 50 (mode 2775)",
        ),
        (
            {"/usr/local/cuda": (0, 0, DIR | 0o755), "/usr/local/cuda/bin": (0, 0, FILE | 0o757)},
            "/usr/local/cuda/bin is writable by every user (mode 0757)",
        ),
    ],
)
def test_what_another_user_can_change_is_not_trusted(table, why):
    assert reason("/usr/local/cuda/bin", {"/usr/local/cuda/bin": (0, 0, DIR | 0o755), **table}) == why


def test_sticky_world_writable_dir_and_root_group_write_are_safe():
    # /tmp (1777): others may add entries but not rename or delete root's; group 0 is root's own group.
    table = {"/tmp": (0, 0, DIR | 0o1777), "/tmp/x": (0, 0, DIR | 0o775), "/tmp/x/py": (0, 0, FILE | 0o755)}
    assert trust.untrusted_reason("/tmp/x/py", fake({"/": (0, 0, DIR | 0o755), **table}), resolve=None) is None
    # ...but a user's file in /tmp is theirs.
    table["/tmp/x/py"] = (1000, 1000, FILE | 0o755)
    assert "owned by uid 1000" in trust.untrusted_reason("/tmp/x/py", fake({"/": (0, 0, DIR | 0o755), **table}), resolve=None)


def test_a_link_is_judged_by_its_owner_and_by_where_it_leads():
    table = {
        **SYSTEM,
        "/usr/bin": (0, 0, DIR | 0o755),
        "/usr/bin/python3": (0, 0, FILE | 0o755),
        "/home": (0, 0, DIR | 0o755),
        "/home/u": (1000, 1000, DIR | 0o755),
        "/usr/local/py": (0, 0, LINK | 0o777),
    }
    # A root-owned link (its mode means nothing) to a root-owned file: trusted.
    assert trust.untrusted_reason("/usr/local/py", fake(table), resolve=lambda p: "/usr/bin/python3") is None
    # A venv's python links to root's interpreter, but the venv around it is the user's.
    table["/home/u/venv"] = (1000, 1000, DIR | 0o755)
    assert (
        trust.untrusted_reason("/home/u/venv/bin/python", fake(table), resolve=lambda p: "/usr/bin/python3")
        == "/home/u is owned by uid 1000, not root"
    )
    # A root-owned link that leads into a user's directory: where it leads decides.
    assert (
        trust.untrusted_reason("/usr/local/py", fake(table), resolve=lambda p: "/home/u/python")
        == "/home/u is owned by uid 1000, not root"
    )


def test_what_cannot_be_inspected_is_not_trusted():
    assert reason("/usr/local/nothing", {}) == "/usr/local/nothing cannot be inspected (No such file or directory)"


def test_only_root_refuses(monkeypatch, tmp_path):
    monkeypatch.setattr(trust, "running_as_root", lambda: False)
    assert trust.refuse_to_run("/definitely/not/root/owned") is None


needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another uid needs root")


@needs_root
def test_real_directories_as_root(tmp_path):
    base = tmp_path / "tk"
    (base / "bin").mkdir(parents=True)
    nvcc = base / "bin" / "nvcc"
    nvcc.write_text("#!/bin/sh\necho x\n")
    nvcc.chmod(0o755)
    for p in (tmp_path, base, base / "bin"):
        p.chmod(0o755)
    assert trust.untrusted_reason(str(nvcc)) is None
    (base / "bin").chmod(0o777)
    assert trust.untrusted_reason(str(nvcc)) == f"{base / 'bin'} is writable by every user (mode 0777)"
    (base / "bin").chmod(0o755)
    os.chown(nvcc, 1000, 1000)
    assert trust.untrusted_reason(str(nvcc)) == f"{nvcc} is owned by uid 1000, not root"


@needs_root
def test_as_root_a_users_interpreter_is_read_as_files_never_run(tmp_path):
    """pyenv.describe_via: the venv's python (a script that would leave a mark) is not run; its files are read."""
    from gpudoctor.host.live import LiveHost
    from gpudoctor.host.pyask import describe_via

    venv = tmp_path / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    (site / "torch-2.5.1+cu124.dist-info").mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
    mark = tmp_path / "ran"
    python = venv / "bin" / "python"
    python.write_text(f"#!/bin/sh\ntouch {mark}\n")
    python.chmod(0o755)
    for p in (tmp_path, venv, venv / "bin"):
        p.chmod(0o755)
    os.chown(venv, 1000, 1000)
    env = describe_via(LiveHost(), str(python), 10)
    assert not mark.exists()
    assert env.distributions["torch"] == "2.5.1+cu124" and env.version == "3.11.7" and env.kind == "venv"
    assert env.how.startswith(f"files: {python} was not run: gpudoctor runs as root and {venv} is owned by uid 1000")
    # The deep probe (an import in that interpreter) is not run either.
    from gpudoctor.probes.deep import introspect

    reply = introspect(LiveHost(), str(python), "torch", 10)
    assert reply["not_run"] and not mark.exists()


@needs_root
def test_as_root_a_toolkit_others_can_write_has_its_nvcc_read_not_run(tmp_path):
    from gpudoctor.host.live import LiveHost
    from gpudoctor.probes.toolkits import toolkit_version as _version

    root = tmp_path / "cuda-12.4"
    (root / "bin").mkdir(parents=True)
    (root / "include").mkdir()
    (root / "include" / "cuda_runtime.h").write_text("")
    mark = tmp_path / "ran"
    (root / "bin" / "nvcc").write_text(f"#!/bin/sh\ntouch {mark}\necho 'Cuda compilation tools, release 12.4, V12.4.131'\n")
    (root / "bin" / "nvcc").chmod(0o755)
    tmp_path.chmod(0o755)
    root.chmod(0o755)
    (root / "bin").chmod(0o777)
    version, source, problems = _version(LiveHost(), str(root), 10)
    assert version is None and not mark.exists()
    assert any("was not run: gpudoctor runs as root and" in p and "writable by every user" in p for p in problems)
    (root / "bin").chmod(0o755)
    version, source, _ = _version(LiveHost(), str(root), 10)
    assert (version, source) == ("12.4.131", "nvcc") and mark.exists()


def test_a_live_hosts_programs_get_one_environment_made_once(monkeypatch):
    """As root the environment of a program gpudoctor runs is made by stat-ing every PATH and LD_LIBRARY_PATH directory
    and its parents (environ_for_root): a LiveHost makes it once, at its creation, for every program it looks up and
    runs (a bare check made it five times: bench/README.md, h161), and each program gets that environment."""
    from gpudoctor.host import live

    made = []
    environ_for_root = trust.environ_for_root

    def counted(environ):
        made.append(environ.get("PATH"))
        return environ_for_root(environ)

    monkeypatch.setattr(trust, "environ_for_root", counted)
    host = live.LiveHost()
    first = host.run(["env"], 10)
    missing = host.run(["gpudoctor-h161-no-such-program"], 10)
    again = host.run(["env"], 10)
    assert len(made) == 1
    expected = live.child_environ()[0]
    for done in (first, again):
        assert done.ok, done
        seen = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        assert seen.get("PATH") == expected.get("PATH") and seen.get("LC_ALL") == "C"
    assert missing.missing
