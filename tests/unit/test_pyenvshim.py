"""A pyenv shim resolved from pyenv's files (gpudoctor.host.pyenvshim): the interpreter `pyenv exec` would start.

Each test builds a pyenv root in a temporary directory: the shim text pyenv-rehash writes (2.4 and later,
and the older one), `versions/<name>/bin/python3` (this interpreter, linked), the global `version` file,
`.python-version` files and hooks. The expected answers follow pyenv's own scripts (pyenv-version-name,
pyenv-version-file, pyenv-version-file-read, pyenv-which, pyenv-hooks): where they would choose an
interpreter by a rule the resolver does not model, it must decline, so that the shim itself is run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gpudoctor.host import pyask as pyenv_probe
from gpudoctor.host.live import LiveHost
from gpudoctor.host.pyenvshim import _SHIM_BEFORE_2_4, _SHIM_SINCE_2_4, logical_cwd, resolve


def make_root(tmp: Path, versions=("3.11.7", "3.10.13"), global_version: str | None = "3.11.7", old_shim: bool = False) -> Path:
    root = tmp / "pyenv"
    for v in versions:
        bin_dir = root / "versions" / v / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "python3").symlink_to(sys.executable)
    (root / "libexec").mkdir(parents=True)
    (root / "shims").mkdir()
    template = _SHIM_BEFORE_2_4 if old_shim else _SHIM_SINCE_2_4
    shim = root / "shims" / "python3"
    shim.write_text(template.replace("@ROOT@", str(root)).replace("@PYENV@", str(root / "libexec" / "pyenv")))
    shim.chmod(0o755)
    if global_version is not None:
        (root / "version").write_text(global_version + "\n")
    return root


def shim_of(root: Path) -> str:
    return str(root / "shims" / "python3")


def bin_of(root: Path, version: str) -> str:
    return str(root / "versions" / version / "bin" / "python3")


@pytest.mark.parametrize("old_shim", [False, True], ids=["pyenv-2.4+", "pyenv-before-2.4"])
def test_the_global_version_names_the_interpreter(tmp_path, old_shim):
    root = make_root(tmp_path, old_shim=old_shim)
    work = tmp_path / "work"
    work.mkdir()
    assert resolve(shim_of(root), {}, str(work)) == (bin_of(root, "3.11.7"), "")


def test_the_nearest_python_version_file_wins_over_the_global_one(tmp_path):
    root = make_root(tmp_path)
    project = tmp_path / "project"
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    # pyenv-version-file-read: comments and empty lines are skipped; the first word of a line is the version.
    (project / ".python-version").write_text("# pinned for this project\n\n3.10.13   # trailing words ignored\n")
    assert resolve(shim_of(root), {}, str(deep)) == (bin_of(root, "3.10.13"), "")


def test_pyenv_version_in_the_environment_wins_over_every_file(tmp_path):
    root = make_root(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".python-version").write_text("3.11.7\n")
    assert resolve(shim_of(root), {"PYENV_VERSION": "3.10.13"}, str(project)) == (bin_of(root, "3.10.13"), "")


def test_a_version_that_climbs_out_of_versions_is_ignored_as_pyenv_ignores_it(tmp_path):
    root = make_root(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".python-version").write_text("../../evil\n3.10.13\n")
    assert resolve(shim_of(root), {}, str(project)) == (bin_of(root, "3.10.13"), "")


@pytest.mark.parametrize(
    ("file_text", "env", "why"),
    [
        ("3.11.7\n3.10.13\n", {}, "not one installed version"),  # several versions: pyenv searches each
        ("system\n", {}, "not one installed version"),  # the PATH without the shims
        ("3.11\n", {}, "may complete a prefix"),  # pyenv-latest would pick the newest 3.11.x
        ("# nothing but a comment\n", {}, "names no version"),
        ("3.11.7\n", {"PYENV_DEBUG": "1"}, "PYENV_DEBUG set"),
        ("3.11.7\n", {"PYENV_VERSION": "/usr"}, "not a name under versions/"),  # would escape versions/
        ("3.11.7\n", {"PYENV_VERSION": "3.11.7/../../.."}, "not a name under versions/"),
        ("3.11.7\n", {"PYENV_HOOK_PATH": "/somewhere"}, "PYENV_HOOK_PATH set"),
        ("3.11.7\n", {"PYENV_DIR": "/elsewhere"}, "PYENV_DIR set"),
    ],
)
def test_what_the_files_do_not_settle_is_left_to_the_shim(tmp_path, file_text, env, why):
    root = make_root(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".python-version").write_text(file_text)
    found, reason = resolve(shim_of(root), env, str(project))
    assert found is None
    assert why in reason


def test_no_version_file_anywhere_is_the_system_python_and_left_to_the_shim(tmp_path):
    root = make_root(tmp_path, global_version=None)
    found, reason = resolve(shim_of(root), {}, str(tmp_path))
    assert found is None and "system" in reason


def test_a_shim_text_pyenv_does_not_write_is_not_trusted(tmp_path):
    root = make_root(tmp_path)
    shim = Path(shim_of(root))
    # One extra line that changes what runs: the resolver must not assume pyenv's behaviour any more.
    shim.write_text(shim.read_text().replace("set -e\n", "set -e\nexport PYENV_VERSION=3.10.13\n"))
    found, reason = resolve(str(shim), {}, str(tmp_path))
    assert found is None and "does not write" in reason


def test_a_command_missing_from_the_version_is_left_to_the_hooks_and_the_shim(tmp_path):
    root = make_root(tmp_path)
    os.unlink(bin_of(root, "3.11.7"))  # pyenv-virtualenv's which hooks look elsewhere then
    found, reason = resolve(shim_of(root), {}, str(tmp_path))
    assert found is None and "not an executable file" in reason


def test_known_hooks_change_nothing_but_an_unknown_one_declines(tmp_path):
    root = make_root(tmp_path)
    which = root / "plugins" / "pyenv-virtualenv" / "etc" / "pyenv.d" / "which"
    which.mkdir(parents=True)
    for name in ("conda.bash", "python-config.bash", "system-site-packages.bash"):
        (which / name).write_text("# acts only when the command is not executable\n")
    exec_hooks = root / "pyenv.d" / "exec"
    exec_hooks.mkdir(parents=True)
    (exec_hooks / "pip-rehash.bash").write_text("# pip only\n")
    assert resolve(shim_of(root), {}, str(tmp_path)) == (bin_of(root, "3.11.7"), "")
    (which / "my-override.bash").write_text('PYENV_COMMAND_PATH="/usr/bin/python3"\n')
    found, reason = resolve(shim_of(root), {}, str(tmp_path))
    assert found is None and "my-override.bash" in reason


def test_not_a_python_command_is_not_resolved(tmp_path):
    root = make_root(tmp_path)
    pip = root / "shims" / "pip"
    pip.write_text(Path(shim_of(root)).read_text())
    found, reason = resolve(str(pip), {}, str(tmp_path))
    assert found is None and "not a python command" in reason


def test_the_logical_working_directory_climbs_the_path_the_shell_sees(tmp_path, monkeypatch):
    # bash keeps $PWD through a symlink; pyenv climbs "$PWD", not the resolved directory.
    real = tmp_path / "data" / "project"
    real.mkdir(parents=True)
    link_parent = tmp_path / "home"
    link_parent.mkdir()
    (link_parent / "project").symlink_to(real)
    monkeypatch.chdir(real)
    assert logical_cwd({"PWD": str(link_parent / "project")}) == str(link_parent / "project")
    assert logical_cwd({"PWD": str(tmp_path)}) == str(real)  # a stale $PWD: the resolved one
    assert logical_cwd({}) == str(real)


def test_the_live_probe_asks_the_resolved_interpreter_and_reports_it(tmp_path, monkeypatch):
    # gpudoctor check probing `python3` on PATH = a pyenv shim: the interpreter pyenv would exec answers,
    # and the environment is reported under that interpreter's path (what sys.executable says through the shim).
    root = make_root(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYENV_VERSION", raising=False)
    for name in ("PYENV_DEBUG", "PYENV_HOOK_PATH", "PYENV_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PWD", str(tmp_path))
    env = pyenv_probe.describe_via(LiveHost(), shim_of(root), 60)
    assert env.executable == bin_of(root, "3.11.7")


def test_a_version_file_the_bounded_reader_refuses_leaves_it_to_the_shim(tmp_path):
    # Read through the live host's bounded reader, as the probe does: a .python-version larger than it reads
    # (a hostile or broken file) is no reason to crash the probe, only to run the shim itself.
    root = make_root(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".python-version").write_text("3.11.7\n" + "#" * (5 * 1024 * 1024))
    found, reason = resolve(shim_of(root), {}, str(project), LiveHost().read_text)
    assert found is None and "larger than" in reason
    # A directory of that name is no version file for pyenv either (`[ -f ]`): the global version counts.
    (project / ".python-version").unlink()
    (project / ".python-version").mkdir()
    assert resolve(shim_of(root), {}, str(project), LiveHost().read_text) == (bin_of(root, "3.11.7"), "")
