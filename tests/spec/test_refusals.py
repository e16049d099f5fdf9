"""The refusals of switch-cuda and fix, in full (docs/switch-cuda.md "Refuses rather than destroys", docs/install.md,
docs/security.md "Root").

The table: who runs it (root / not root) x what /usr/local/cuda is (a plain link / update-alternatives' link / native
Windows, where the machine environment is the switch) x confirmed (--yes) or not (no terminal to ask on). Linux rows
run the real `gpudoctor switch-cuda` on a temporary root holding real toolkit trees (tests/unit/test_switch_cuda.py)
and Debian's real update-alternatives inside it; "not root" is the one input changed in code (the process may not
write where the switch writes: switch_cuda.may_change_link), as the tests run as root. Windows rows run the same
command on recorded Windows facts, with the registry as plain data (tests/unit/test_windows_switch_cuda.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from gpudoctor import switch_cuda as sc
from gpudoctor import switch_cuda_windows as sw
from tests.spec.registry import PROCEEDS, REFUSES, states
from tests.unit.test_switch_cuda import make_machine
from tests.unit.test_windows_switch_cuda import BASE, PATH, _facts, _Registry

UA = shutil.which("update-alternatives")
DEBIAN_UA = UA is not None and "Debian" in subprocess.run([UA, "--version"], capture_output=True, text=True).stdout


def _ua(root: Path, *args: str) -> None:
    flags = ["--altdir", str(root / "etc/alternatives"), "--admindir", str(root / "var/lib/dpkg/alternatives")]
    flags += ["--log", str(root / "var/log/alternatives.log")]
    assert UA is not None
    subprocess.run([UA, *flags, *args], capture_output=True, text=True, check=True)


def _machine(tmp_path: Path, kind: str) -> Path:
    """A temporary root on CUDA 12.8, through a plain link or through update-alternatives (as NVIDIA's .deb leave it)."""
    if kind == "link":
        return make_machine(tmp_path)
    if not DEBIAN_UA:
        pytest.skip("needs Debian's update-alternatives (a package that could not be installed)")
    root = make_machine(tmp_path, link_to=None)
    for d in ("etc/alternatives", "var/lib/dpkg/alternatives", "var/log"):
        (root / d).mkdir(parents=True, exist_ok=True)
    for name, priority in (("cuda-12.8", "128"), ("cuda-11.8", "118")):
        _ua(root, "--install", str(root / "usr/local/cuda"), "cuda", str(root / "usr/local" / name), priority)
    return root


def _active(root: Path) -> str:
    return os.path.realpath(root / "usr/local/cuda")


def _run(monkeypatch, capsys, argv: list[str], *, is_root: bool, tty: bool = False):
    from gpudoctor.cli import main

    monkeypatch.setattr(sys.stdin, "isatty", lambda: tty)
    if not is_root:
        monkeypatch.setattr(sc, "may_change_link", lambda host, link: False)
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


# (root, link kind, confirmed) -> (exit status, switched). Not root is refused first (exit 3) whatever was confirmed;
# root without --yes and without a terminal is a usage error (exit 2); both change nothing.
TABLE = {
    (True, "link", True): (0, True),
    (True, "link", False): (2, False),
    (False, "link", True): (3, False),
    (False, "link", False): (3, False),
    (True, "alternatives", True): (0, True),
    (True, "alternatives", False): (2, False),
    (False, "alternatives", True): (3, False),
    (False, "alternatives", False): (3, False),
    (True, "windows", True): (0, True),
    (True, "windows", False): (2, False),
    (False, "windows", True): (3, False),
    (False, "windows", False): (3, False),
}


def _row_id(row) -> str:
    root, kind, yes = row
    return f"{'root' if root else 'user'}-{kind}-{'yes' if yes else 'unconfirmed'}"


@pytest.mark.parametrize("row", list(TABLE), ids=_row_id)
@states("switch-cuda: not root", REFUSES, PROCEEDS)
@states("switch-cuda: no terminal to ask on and no --yes", REFUSES, PROCEEDS)
@states("switch-cuda: Windows machine scope without Administrator", REFUSES, PROCEEDS)
def test_the_switch_cuda_refusal_table(row, tmp_path, monkeypatch, capsys):
    """docs/switch-cuda.md: "You are not root: the process cannot write where the switch writes. It prints the exact
    sudo command"; "It needs an Administrator PowerShell (refused otherwise, with the shell-scope line instead)";
    exit status "2 usage error, or no terminal to ask on and no --yes; 3 refused"; "Each refusal exits 3 and gives the
    reason and what to do instead"."""
    is_root, kind, yes = row
    want_code, switched = TABLE[row]
    flags = ["--yes"] if yes else []
    if kind == "windows":
        import gpudoctor.probes

        reg = _Registry({"CUDA_PATH": (BASE + "\\v12.1", False), "Path": (f"{BASE}\\v12.1\\bin;C:\\Windows", True)})
        facts = _facts(PATH)
        monkeypatch.setattr(gpudoctor.probes, "run_probes", lambda host, options: facts)
        monkeypatch.setattr(sw, "is_admin", lambda: is_root)
        monkeypatch.setattr(sw, "RegistryEnvironment", lambda: reg)
        code, _, err = _run(monkeypatch, capsys, ["switch-cuda", "11.8", *flags], is_root=True)
        assert code == want_code, err
        assert reg.values["CUDA_PATH"][0] == BASE + ("\\v11.8" if switched else "\\v12.1")
        if want_code == 3:
            assert "Administrator" in err and "Invoke-Expression" in err  # the way out: this shell only
        return
    root = _machine(tmp_path, kind)
    before = _active(root)
    code, out, err = _run(monkeypatch, capsys, ["switch-cuda", "11.8", "--root", str(root), *flags], is_root=is_root)
    assert code == want_code, err
    assert _active(root) == str(root / "usr/local" / ("cuda-11.8" if switched else "cuda-12.8")), (before, out, err)
    if want_code == 3:
        assert "changing /usr/local/cuda needs root" in err and "sudo " in err and "--shell" in err
    if want_code == 2:
        assert "--yes" in err
    if switched and kind == "alternatives":
        assert os.readlink(root / "usr/local/cuda") == str(root / "etc/alternatives/cuda")  # the link left to its owner


# --- the other refusals, each beside the case that proceeds ---------------------------------------------------


@states("switch-cuda: /usr/local/cuda is a real directory", REFUSES, PROCEEDS)
def test_a_real_directory_at_usr_local_cuda_is_never_moved(tmp_path, monkeypatch, capsys):
    """docs/switch-cuda.md: "/usr/local/cuda is a real directory, not a link. gpudoctor never deletes or moves what it
    did not create. It prints the --shell form, and the commands to move the directory aside yourself." A link is
    switched (the table above)."""
    root = make_machine(tmp_path, link_to=None)
    (root / "usr/local/cuda").mkdir()
    (root / "usr/local/cuda/notes").write_text("an admin's own tree\n")
    code, _, err = _run(monkeypatch, capsys, ["switch-cuda", "11.8", "--root", str(root), "--yes"], is_root=True)
    assert code == 3 and "a real directory" in err and "--shell" in err and "mv -T" in err
    assert (root / "usr/local/cuda/notes").read_text() == "an admin's own tree\n"
    linked = make_machine(tmp_path / "linked")
    code, _, _ = _run(monkeypatch, capsys, ["switch-cuda", "11.8", "--root", str(linked), "--yes"], is_root=True)
    assert code == 0 and _active(linked).endswith("/usr/local/cuda-11.8")


@states("switch-cuda: target incomplete", REFUSES, PROCEEDS)
def test_an_incomplete_target_is_refused(tmp_path, monkeypatch, capsys):
    """docs/switch-cuda.md: "The target is incomplete: it has no bin/nvcc, no include/cuda_runtime.h, or no
    libcudart.so." - each missing part alone, in the CUDA 12.8 tree (its version.json makes it a toolkit whatever
    else is missing); complete, it switches."""
    for part in ("bin/nvcc", "include/cuda_runtime.h", "lib64/libcudart.so.12"):
        root = make_machine(tmp_path / part.replace("/", "_"), link_to="cuda-11.8")
        (root / "usr/local/cuda-12.8" / part).unlink()
        code, _, err = _run(monkeypatch, capsys, ["switch-cuda", "12.8", "--root", str(root), "--yes"], is_root=True)
        assert code == 3 and "is incomplete" in err and part.split("/")[-1].split(".so")[0] in err, (part, err)
        assert _active(root).endswith("/usr/local/cuda-11.8")
    whole = make_machine(tmp_path / "whole", link_to="cuda-11.8")
    code, _, _ = _run(monkeypatch, capsys, ["switch-cuda", "12.8", "--root", str(whole), "--yes"], is_root=True)
    assert code == 0 and _active(whole).endswith("/usr/local/cuda-12.8")


@states("switch-cuda: version not installed", REFUSES, PROCEEDS)
def test_a_version_not_installed_is_refused_at_every_component(tmp_path, monkeypatch, capsys):
    """docs/switch-cuda.md: "The version is not installed." - 11.8.89 is installed: 11.8.90 (patch), 11.9 (minor)
    and 10 (major) are not; 11, 11.8 and 11.8.89 name it."""
    root = make_machine(tmp_path)
    for requested in ("11.8.90", "11.9", "10"):
        code, _, err = _run(monkeypatch, capsys, ["switch-cuda", requested, "--root", str(root), "--yes"], is_root=True)
        assert code == 3 and f"CUDA {requested} is not installed" in err
    for requested in ("11", "11.8", "11.8.89"):
        code, out, _ = _run(monkeypatch, capsys, ["switch-cuda", requested, "--root", str(root), "--dry-run"], is_root=True)
        assert code == 0 and "-> /usr/local/cuda-11.8 (CUDA 11.8.89)" in out


@states("switch-cuda: target others can change (root)", REFUSES, PROCEEDS)
def test_root_refuses_a_target_others_can_change(tmp_path, monkeypatch, capsys):
    """docs/switch-cuda.md: "Run as root, the target can be changed by users other than root: the toolkit directory, its
    bin/, bin/nvcc, ... writable by group (other than group 0) or by everyone ... The message names the file and prints
    chown -R root:root / chmod -R go-w and the --shell form." Not root, a shell switch harms no one else."""
    if os.geteuid() != 0:
        pytest.skip("needs root: only root's switch is held to the rule")
    for part in ("", "bin", "bin/nvcc"):
        root = make_machine(tmp_path / (part.replace("/", "_") or "top"))
        os.chmod(root / "usr/local/cuda-11.8" / part, 0o777)
        code, _, err = _run(monkeypatch, capsys, ["switch-cuda", "11.8", "--root", str(root), "--yes"], is_root=True)
        assert code == 3 and "can be changed by users other than root" in err and "chmod -R go-w" in err, (part, err)
        assert _active(root).endswith("/usr/local/cuda-12.8")
        code, out, _ = _run(monkeypatch, capsys, ["switch-cuda", "11.8", "--shell", "--root", str(root)], is_root=True)
        assert code == 0 and "CUDA_HOME" in out


@states("switch-cuda: not one of update-alternatives' choices", REFUSES, PROCEEDS)
def test_a_target_not_registered_with_update_alternatives_is_refused(tmp_path, monkeypatch, capsys):
    """docs/switch-cuda.md: "If the target is not registered as one of the choices, the switch refuses and prints the
    --install command." (CUDA 13.0 is installed, not registered; 11.8 is registered: the table above)"""
    root = _machine(tmp_path, "alternatives")
    code, _, err = _run(monkeypatch, capsys, ["switch-cuda", "13", "--root", str(root), "--yes"], is_root=True)
    assert code == 3 and "is not one of its choices" in err and "update-alternatives --install" in err
    assert _active(root).endswith("/usr/local/cuda-12.8")
    code, _, _ = _run(monkeypatch, capsys, ["switch-cuda", "11.8", "--root", str(root), "--yes"], is_root=True)
    assert code == 0 and _active(root).endswith("/usr/local/cuda-11.8")


# --- fix (gpudoctor.install) ----------------------------------------------------------------------------------

QUADRO = "quadro-p2000-cuda13-active-cuda118-installed"  # tests/install_machines: 13.0 active, 11.8 installed


def _alternatives_link(snap: dict) -> None:
    files = snap["files"]
    target = files["/usr/local/cuda"]
    files["/usr/local/cuda"] = {"link": "/etc/alternatives/cuda"}
    files["/etc/alternatives/cuda"] = target


@pytest.mark.parametrize("kind", ["link", "alternatives"])
@states("fix: switch not root", REFUSES, PROCEEDS)
def test_fix_offers_a_switch_only_to_root_and_only_to_a_registered_choice(kind):
    """docs/install.md: "a switch that needs root or an env fix that needs --env-file is [offered] (fix says what it
    needs)" - not root: blocked with the reason and the manual way; root: applicable; through update-alternatives, a
    target that is not one of its choices is blocked even for root."""
    from tests.unit.test_install_plan import fixes_for

    change = _alternatives_link if kind == "alternatives" else None
    choices = ("/usr/local/cuda-11.8", "/usr/local/cuda-13.0") if kind == "alternatives" else None
    (user,) = fixes_for(QUADRO, change, is_root=False, alternatives=choices)
    assert user.kind == "switch-cuda" and user.blocked == "changing /usr/local/cuda needs root"
    assert any("--shell" in line for line in user.manual)
    (root,) = fixes_for(QUADRO, change, is_root=True, alternatives=choices)
    assert root.blocked is None and root.payload.method == ("alternatives" if kind == "alternatives" else "rename")
    if kind == "alternatives":
        (unregistered,) = fixes_for(QUADRO, change, is_root=True, alternatives=("/usr/local/cuda-13.0",))
        assert (unregistered.blocked or "").endswith("is not one of its choices")


@pytest.mark.parametrize(("yes", "tty"), [(True, False), (False, False)])
@states("fix: no terminal to ask on and no --yes", REFUSES, PROCEEDS)
def test_install_and_fix_ask_first_and_refuse_without_a_terminal(yes, tty, monkeypatch, capsys):
    """docs/install.md: "without it [--yes] and without a terminal to ask on, the command refuses (exit 2)"; with --yes
    it goes ahead. install and fix ask through the same question (cli/install.confirm)."""
    import typer

    from gpudoctor.cli.install import confirm

    monkeypatch.setattr(sys.stdin, "isatty", lambda: tty)
    if yes:
        assert confirm("Apply this fix?", True) is True
    else:
        with pytest.raises(typer.Exit) as exc:
            confirm("Apply this fix?", False)
        assert exc.value.exit_code == 2 and "--yes" in capsys.readouterr().err


@states("install: an interpreter others can change (root)", REFUSES, PROCEEDS)
def test_root_never_runs_an_interpreter_others_can_change(tmp_path, monkeypatch):
    """docs/security.md: "Run as root, gpudoctor executes a program only from a place no one but root can change ...
    install and fix stop before their first step, naming the file or directory that is someone else's"; not root, the
    user's own environment is theirs to install into."""
    from gpudoctor.errors import UnsafeOperation
    from gpudoctor.install.apply import refuse_untrusted

    home = tmp_path / "venv" / "bin"
    home.mkdir(parents=True)
    python = home / "python"
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    os.chmod(tmp_path / "venv", 0o777)  # a tree another user can change
    plan = SimpleNamespace(machine=SimpleNamespace(env=SimpleNamespace(python=str(python), uv=None)), installer="pip")
    monkeypatch.setattr("gpudoctor.trust.running_as_root", lambda: True)
    with pytest.raises(UnsafeOperation) as err:
        refuse_untrusted(plan)  # type: ignore[arg-type]
    assert str(python) in err.value.message and str(tmp_path / "venv") in err.value.message
    os.chmod(tmp_path / "venv", 0o755)
    if os.geteuid() == 0:  # the tree is root's own now: root runs it
        refuse_untrusted(plan)  # type: ignore[arg-type]
    monkeypatch.setattr("gpudoctor.trust.running_as_root", lambda: False)
    os.chmod(tmp_path / "venv", 0o777)
    refuse_untrusted(plan)  # type: ignore[arg-type]


@states("switch-cuda: another switch holds the lock", REFUSES, PROCEEDS)
def test_a_held_lock_refuses_a_second_switch(tmp_path):
    """docs/switch-cuda.md: "Every switch holds an exclusive flock on /usr/local/.cuda.gpudoctor.lock, so two switches
    cannot interleave. A second switch waits up to 10 seconds, then refuses." Released, it goes through."""
    import fcntl

    from gpudoctor.errors import UnsafeOperation
    from tests.unit.test_switch_cuda import facts_for

    root = make_machine(tmp_path)
    plan = sc.plan_switch(facts_for(root), "11.8", sc.SYSTEM, is_root=True)
    with open(root / "usr/local" / sc.LOCK_NAME, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(UnsafeOperation):
            sc.apply_switch(plan, str(root), lock_timeout_s=0.2)
        assert _active(root).endswith("/usr/local/cuda-12.8")
    sc.apply_switch(plan, str(root))
    assert _active(root).endswith("/usr/local/cuda-11.8")


@states("switch-cuda: the link changed since the plan", REFUSES, PROCEEDS)
def test_a_link_changed_since_the_plan_is_left_alone(tmp_path):
    """docs/switch-cuda.md: "Compare before swap. While it holds the lock, the switch checks that /usr/local/cuda still
    is what the plan saw. If another tool changed the link in the meantime, nothing is done." """
    from gpudoctor.errors import UnsafeOperation
    from tests.unit.test_switch_cuda import facts_for

    root = make_machine(tmp_path)
    plan = sc.plan_switch(facts_for(root), "11.8", sc.SYSTEM, is_root=True)
    other = root / "usr/local/someone-elses-link"
    other.symlink_to(root / "usr/local/cuda-13.0")
    os.replace(other, root / "usr/local/cuda")
    with pytest.raises(UnsafeOperation):
        sc.apply_switch(plan, str(root))
    assert _active(root).endswith("/usr/local/cuda-13.0")
    again = sc.plan_switch(facts_for(root), "11.8", sc.SYSTEM, is_root=True)
    sc.apply_switch(again, str(root))
    assert _active(root).endswith("/usr/local/cuda-11.8")


@states("switch-cuda: Windows toolkit without nvcc.exe", REFUSES, PROCEEDS)
def test_a_windows_toolkit_without_nvcc_is_refused(monkeypatch, capsys):
    """docs/switch-cuda.md: "(one without bin\\nvcc.exe is refused as incomplete)" - exit 3, nothing changed; with
    nvcc.exe it switches."""
    import gpudoctor.probes

    for nvcc, want in ((("v12.1",), 3), (("v11.8", "v12.1"), 0)):
        reg = _Registry({"CUDA_PATH": (BASE + "\\v12.1", False), "Path": (f"{BASE}\\v12.1\\bin;C:\\Windows", True)})
        facts = _facts(PATH, nvcc=nvcc)
        monkeypatch.setattr(gpudoctor.probes, "run_probes", lambda host, options, f=facts: f)
        monkeypatch.setattr(sw, "is_admin", lambda: True)
        monkeypatch.setattr(sw, "RegistryEnvironment", lambda r=reg: r)
        code, _, err = _run(monkeypatch, capsys, ["switch-cuda", "11.8", "--yes"], is_root=True)
        assert code == want, err
        assert reg.values["CUDA_PATH"][0] == BASE + ("\\v12.1" if want else "\\v11.8")
