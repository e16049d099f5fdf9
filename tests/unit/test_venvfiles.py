"""A virtual environment read from its files says exactly what its interpreter says (gpudoctor.host.venvfiles).

Real virtual environments, built here with `python -m venv`, with fake distributions, .pth files and
the start-up code real environments carry; each answer from the files is compared with the answer of
the interpreter itself (the probe script gpudoctor sends it). Where the files cannot prove the answer
the reader declines, and the probe asks the interpreter as before: same answer, `how` says which way.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.host import pyenv
from gpudoctor.host.live import LiveHost
from gpudoctor.host.venvfiles import read_base, read_venv

XY = f"{sys.version_info[0]}.{sys.version_info[1]}"


def asked(executable: str, env: dict[str, str] | None = None) -> dict:
    """What the interpreter itself answers: the very command the probe runs."""
    with open(pyenv.__file__, encoding="utf-8") as fh:
        source = fh.read() + pyenv.SCRIPT_CALL
    done = subprocess.run([executable, "-c", source], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def from_files(executable: str, environ: dict[str, str] | None = None):
    return read_venv(executable, LiveHost().read_text, dict(os.environ) if environ is None else environ)


@pytest.fixture(scope="module")
def venv_root(tmp_path_factory) -> Path:
    """One real venv (no pip: quick, and nothing from an index)."""
    root = tmp_path_factory.mktemp("venvs")
    done = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "env")], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"python -m venv could not build an environment here: {done.stderr.strip()[-200:]}")
    return root


def site_of(env: Path) -> Path:
    return env / "lib" / f"python{XY}" / "site-packages"


def add_dist(site: Path, dirname: str, name: str, version: str) -> None:
    d = site / dirname
    d.mkdir(parents=True, exist_ok=True)
    (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (d / "RECORD").write_text("")


def clone(venv_root: Path, name: str) -> Path:
    """A fresh copy of the venv (its bin/python links stay links to the same base interpreter)."""
    import shutil

    target = venv_root / name
    shutil.copytree(venv_root / "env", target, symlinks=True)
    cfg = target / "pyvenv.cfg"
    cfg.write_text(cfg.read_text())  # written after the copy, as a venv's is after its interpreter
    return target


@pytest.fixture(scope="module")
def rich_env(venv_root) -> Path:
    """A venv as people have them: frameworks, NVIDIA wheels, an editable install, setuptools' and
    virtualenv's start-up lines, a .pth that adds another site directory and one whose path is missing."""
    env = clone(venv_root, "rich")
    site = site_of(env)
    add_dist(site, "torch-2.3.1+cu121.dist-info", "torch", "2.3.1+cu121")
    add_dist(site, "nvidia_cudnn_cu12-8.9.2.26.dist-info", "nvidia-cudnn-cu12", "8.9.2.26")
    add_dist(site, "jax_cuda12_plugin-0.4.30.dist-info", "jax-cuda12-plugin", "0.4.30")
    add_dist(site, "zope.interface-6.0-py3.11.egg-info", "zope.interface", "6.0")
    extra = env / "extra" / "site-packages"
    add_dist(extra, "torch-9.9.9.dist-info", "torch", "9.9.9")  # later on sys.path: the first one wins
    add_dist(extra, "tensorflow-2.15.0.dist-info", "tensorflow", "2.15.0")
    (site / "_distutils_hack").mkdir()
    (site / "_distutils_hack" / "__init__.py").write_text("def add_shim():\n    pass\n")
    (site / "distutils-precedence.pth").write_text(
        "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') == 'local'; "
        "enabled and __import__('_distutils_hack').add_shim(); \n"
    )
    (site / "_virtualenv.py").write_text("")
    (site / "_virtualenv.pth").write_text("import _virtualenv")
    (site / "__editable___demo_0_1_finder.py").write_text("def install():\n    pass\n")
    (site / "__editable__.demo-0.1.pth").write_text(
        "import __editable___demo_0_1_finder; __editable___demo_0_1_finder.install()\n"
    )
    (site / "paths.pth").write_text(f"# a comment\n\n{extra}\n../../../extra/site-packages\n/no/such/site-packages\n")
    return env


def test_a_plain_venv_reads_the_same_from_its_files(venv_root):
    env = clone(venv_root, "plain")
    add_dist(site_of(env), "torch-2.3.1+cu121.dist-info", "torch", "2.3.1+cu121")
    python = str(env / "bin" / "python")
    data, why = from_files(python)
    assert why == ""
    assert data == asked(python)
    assert data["kind"] == "venv" and data["distributions"]["torch"] == "2.3.1+cu121"


def test_a_venv_with_pth_files_and_start_up_code_reads_the_same(rich_env):
    python = str(rich_env / "bin" / "python")
    data, why = from_files(python)
    assert why == ""
    want = asked(python)
    assert data == want
    # The .pth's site directory is there, after the venv's own; its torch loses to the venv's.
    assert want["site_packages"] == [str(site_of(rich_env)), str(rich_env / "extra" / "site-packages")]
    assert want["distributions"]["torch"] == "2.3.1+cu121" and want["distributions"]["tensorflow"] == "2.15.0"


def test_setuptools_own_distutils_precedence_pth_reads_the_same(venv_root):
    # The real file and the real module it imports, as setuptools installed them beside the base interpreter (its
    # setup.py writes the .pth, _distutils_hack/__init__.py's add_shim() puts a finder on sys.meta_path that
    # answers only distutils, pip and CPython's test modules): the interpreter, which runs both, lists the same.
    import shutil
    import sysconfig

    base_site = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})["purelib"]
    pth = os.path.join(base_site, "distutils-precedence.pth")
    hack = os.path.join(base_site, "_distutils_hack")
    if not (os.path.isfile(pth) and os.path.isdir(hack)):
        pytest.skip(f"no setuptools distutils-precedence.pth beside {sys.base_prefix}'s interpreter")
    env = clone(venv_root, "setuptools-pth")
    site = site_of(env)
    shutil.copy(pth, site)
    shutil.copytree(hack, site / "_distutils_hack", ignore=shutil.ignore_patterns("__pycache__"))
    add_dist(site, "torch-2.3.1.dist-info", "torch", "2.3.1")
    python = str(env / "bin" / "python")
    data, why = from_files(python)
    assert why == "", (why, (site / "distutils-precedence.pth").read_text())
    for shim in ({}, {"SETUPTOOLS_USE_DISTUTILS": "local"}, {"SETUPTOOLS_USE_DISTUTILS": "stdlib"}):
        assert data == asked(python, {**os.environ, **shim})


def test_the_live_probe_reads_a_venv_from_files_and_says_so(rich_env):
    python = str(rich_env / "bin" / "python3")
    env = LiveHost().python_env(python, 30.0)
    assert env is not None and env.how == "files"
    assert env.to_json() == asked(python)


def _declines(python: str, environ: dict[str, str] | None = None) -> str:
    data, why = from_files(python, environ)
    assert data is None and why
    return why


@pytest.mark.parametrize(
    "change, reason",
    [
        ("code", "runs code at start"),
        ("system-site", "system site-packages"),
        ("sitecustomize", "runs at start"),
        ("stale", "changed after pyvenv.cfg was written"),
        ("hidden-pth", "hidden or non-ASCII"),
    ],
)
def test_where_files_cannot_prove_it_the_interpreter_is_asked_and_answers_the_same(venv_root, change, reason):
    env = clone(venv_root, f"declines-{change}")
    site = site_of(env)
    add_dist(site, "torch-2.3.1.dist-info", "torch", "2.3.1")
    if change == "code":
        # Code in a .pth can do anything to sys.path: this one adds a site directory the files cannot see.
        other = env / "other" / "site-packages"
        add_dist(other, "jax-0.4.30.dist-info", "jax", "0.4.30")
        (site / "zz.pth").write_text(f"import sys; sys.path.append({str(other)!r})\n")
    elif change == "system-site":
        cfg = env / "pyvenv.cfg"
        cfg.write_text(cfg.read_text().replace("include-system-site-packages = false", "include-system-site-packages = true"))
    elif change == "sitecustomize":
        (site / "sitecustomize.py").write_text("import sys\n")
    elif change == "stale":
        os.utime(env / "pyvenv.cfg", (1_000_000, 1_000_000))  # as if the interpreter were upgraded since
    elif change == "hidden-pth":
        (site / ".hidden.pth").write_text("/tmp\n")
    python = str(env / "bin" / "python")
    assert reason in _declines(python)
    probed = LiveHost().python_env(python, 30.0)
    assert probed is not None and probed.how == "subprocess"
    assert probed.to_json() == asked(python)
    if change == "code":
        assert probed.distributions.get("jax") == "0.4.30"  # what the files alone would have missed


def test_variables_that_move_sys_path_send_the_probe_to_the_interpreter(venv_root, tmp_path):
    python = str(clone(venv_root, "variables") / "bin" / "python")
    extra = tmp_path / "site-packages"
    add_dist(extra, "tensorflow-2.15.0.dist-info", "tensorflow", "2.15.0")
    environ = {**os.environ, "PYTHONPATH": str(extra)}
    assert "PYTHONPATH set" in _declines(python, environ)
    assert asked(python, environ)["distributions"]["tensorflow"] == "2.15.0"
    # Variables that change nothing the probe reports do not.
    data, why = from_files(python, {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"})
    assert why == "" and data == asked(python)


def test_an_interpreter_that_is_no_venv_is_asked():
    base = getattr(sys, "_base_executable", None) or sys.executable
    assert "no pyvenv.cfg" in _declines(os.path.realpath(base))
    assert "normalised absolute" in _declines("bin/python")
    assert "no such file" in _declines("/nonexistent/venv/bin/python")


def test_a_script_named_python_is_not_taken_for_the_interpreter(venv_root):
    env = clone(venv_root, "wrapper")
    wrapper = env / "bin" / "python-wrapper"
    wrapper.write_text("#!/bin/sh\nexec true\n")
    wrapper.chmod(0o755)
    cfg = env / "pyvenv.cfg"
    cfg.write_text(cfg.read_text())
    assert "is not named python" in _declines(str(wrapper))


# A base interpreter (no venv) in a standard layout: read_base.


def base_layout(root: Path, name: str = "3.11.7") -> Path:
    """A copy of the running interpreter's base install under `root`/versions/`name` (pyenv's layout): its
    program copied, its standard library linked entry by entry, an empty site-packages of its own, and its
    patchlevel.h. Started, it is a real base interpreter whose prefix is this copy."""
    import shutil

    base = Path(sys.base_prefix)
    real = Path(os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable))
    header = base / "include" / f"python{XY}" / "patchlevel.h"
    if real.parent != base / "bin" or not header.is_file() or not (base / "lib" / f"python{XY}" / "os.py").is_file():
        pytest.skip("the running interpreter's base is not a prefix layout")
    prefix = root / "versions" / name
    (prefix / "bin").mkdir(parents=True)
    shutil.copy2(real, prefix / "bin" / f"python{XY}")
    (prefix / "bin" / "python3").symlink_to(f"python{XY}")
    stdlib = prefix / "lib" / f"python{XY}"
    stdlib.mkdir(parents=True)
    for entry in (base / "lib").iterdir():
        if entry.name != f"python{XY}" and not entry.name.startswith("python3."):
            (prefix / "lib" / entry.name).symlink_to(entry)
    for entry in (base / "lib" / f"python{XY}").iterdir():
        if entry.name != "site-packages":
            (stdlib / entry.name).symlink_to(entry)
    (stdlib / "site-packages").mkdir()
    (prefix / "include" / f"python{XY}").mkdir(parents=True)
    shutil.copy2(header, prefix / "include" / f"python{XY}" / "patchlevel.h")
    return prefix


def base_environ(home: Path) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}, "HOME": str(home)}


@pytest.fixture()
def base_prefix(tmp_path) -> Path:
    prefix = base_layout(tmp_path)
    site = prefix / "lib" / f"python{XY}" / "site-packages"
    add_dist(site, "torch-2.3.1+cu121.dist-info", "torch", "2.3.1+cu121")
    add_dist(site, "nvidia_cudnn_cu12-8.9.2.26.dist-info", "nvidia-cudnn-cu12", "8.9.2.26")
    (site / "distutils-precedence.pth").write_text(
        "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') == 'local'; "
        "enabled and __import__('_distutils_hack').add_shim(); \n"
    )
    return prefix


def test_a_base_interpreter_in_pyenvs_layout_reads_the_same_from_its_files(base_prefix, tmp_path):
    home = tmp_path / "home"
    # The user site comes first, with a .pth that adds another site directory and a copy of torch that wins.
    user_site = home / ".local" / "lib" / f"python{XY}" / "site-packages"
    add_dist(user_site, "torch-2.4.0.dist-info", "torch", "2.4.0")
    other = tmp_path / "other" / "site-packages"
    add_dist(other, "jax-0.4.30.dist-info", "jax", "0.4.30")
    (user_site / "extra.pth").write_text(f"# a comment\n{other}\n/nonexistent\n")
    environ = base_environ(home)
    for python in (base_prefix / "bin" / "python3", base_prefix / "bin" / f"python{XY}"):
        data, why = read_base(str(python), LiveHost().read_text, environ)
        assert why == "" and data == asked(str(python), environ)
        assert data["distributions"]["torch"] == "2.4.0" and data["distributions"]["jax"] == "0.4.30"
        assert data["kind"] == "system" and data["prefix"] == str(base_prefix)
    # Without the user site (PYTHONNOUSERSITE), the prefix's own torch.
    quiet = {**environ, "PYTHONNOUSERSITE": "1"}
    data, why = read_base(str(base_prefix / "bin" / "python3"), LiveHost().read_text, quiet)
    assert why == "" and data == asked(str(base_prefix / "bin" / "python3"), quiet)
    assert data["distributions"]["torch"] == "2.3.1+cu121"


def test_links_to_a_base_interpreter_read_as_getpath_follows_them(base_prefix, tmp_path):
    """A program linked from another bin/ has the prefix of the file it leads to; one reached through a linked
    directory keeps the directory's name in its prefix and paths (getpath follows the file's links only)."""
    environ = base_environ(tmp_path / "home")
    (tmp_path / "elsewhere" / "bin").mkdir(parents=True)
    linked_file = tmp_path / "elsewhere" / "bin" / "python3"
    linked_file.symlink_to(base_prefix / "bin" / f"python{XY}")
    linked_dir = tmp_path / "current"
    linked_dir.symlink_to(base_prefix)
    for python, prefix in ((linked_file, base_prefix), (linked_dir / "bin" / "python3", linked_dir)):
        data, why = read_base(str(python), LiveHost().read_text, environ)
        assert why == "" and data == asked(str(python), environ)
        assert data["prefix"] == str(prefix)


def test_the_live_probe_reads_a_base_interpreter_from_files_and_says_so(base_prefix, tmp_path, monkeypatch):
    for key in [k for k in os.environ if k.startswith("PYTHON")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    python = str(base_prefix / "bin" / "python3")
    env = LiveHost().python_env(python, 30.0)
    assert env is not None and env.how == "files"
    assert env.to_json() == asked(python, dict(os.environ))


@pytest.mark.parametrize(
    "change, reason",
    [
        ("code", "runs code at start"),
        ("usercustomize", "runs at start"),
        ("debian-site", "patched site.py"),
        ("version", "names 2 versions"),
        ("pyvenv", "a virtual environment"),
        ("lib64", "not (only) at"),
        ("pythonpath", "PYTHONPATH set"),
        ("userbase", "PYTHONUSERBASE set"),
    ],
)
def test_where_a_base_layout_cannot_prove_it_the_interpreter_is_asked(base_prefix, tmp_path, change, reason):
    home = tmp_path / "home"
    site = base_prefix / "lib" / f"python{XY}" / "site-packages"
    environ = base_environ(home)
    if change == "code":
        other = tmp_path / "other" / "site-packages"
        add_dist(other, "jax-0.4.30.dist-info", "jax", "0.4.30")
        (site / "zz.pth").write_text(f"import sys; sys.path.append({str(other)!r})\n")
    elif change == "usercustomize":
        user_site = home / ".local" / "lib" / f"python{XY}" / "site-packages"
        user_site.mkdir(parents=True)
        (user_site / "usercustomize.py").write_text("import sys\n")
    elif change == "debian-site":
        stdlib = base_prefix / "lib" / f"python{XY}"
        text = (stdlib / "site.py").read_text()
        (stdlib / "site.py").unlink()
        (stdlib / "site.py").write_text(text + "\n# Debian: /usr/local/lib/python3/dist-packages\n")
    elif change == "version":
        os.rename(base_prefix, base_prefix.parent / "3.11.99")
        base_prefix = base_prefix.parent / "3.11.99"
    elif change == "pyvenv":
        (base_prefix / "pyvenv.cfg").write_text("home = /elsewhere\n")
    elif change == "lib64":
        (base_prefix / "lib64" / f"python{XY}").mkdir(parents=True)
    elif change == "pythonpath":
        environ["PYTHONPATH"] = str(tmp_path)
    elif change == "userbase":
        environ["PYTHONUSERBASE"] = str(tmp_path)
    data, why = read_base(str(base_prefix / "bin" / "python3"), LiveHost().read_text, environ)
    assert data is None and reason in why
    if change == "code":
        assert asked(str(base_prefix / "bin" / "python3"), environ)["distributions"]["jax"] == "0.4.30"


def test_a_distributions_own_interpreter_is_always_asked(tmp_path):
    fake = tmp_path / "python3"
    fake.write_bytes(b"\x7fELF")
    assert "normalised absolute" in read_base("bin/python3", LiveHost().read_text, {})[1]
    assert "no such file" in read_base("/nonexistent/bin/python3", LiveHost().read_text, {})[1]
    if os.path.isfile("/usr/bin/python3"):
        assert "outside /usr" in read_base("/usr/bin/python3", LiveHost().read_text, {"HOME": "/root"})[1]


# The known start-up lines as their writers write them (host/venvfiles.py cites each): setuptools'
# distutils-precedence.pth, virtualenv's _virtualenv.pth, a setuptools editable install's finder (this project's own).
KNOWN_LINES = (
    "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') == 'local'; "
    "enabled and __import__('_distutils_hack').add_shim(); ",
    "import _virtualenv",
    "import __editable___gpudoctor_cli_0_1_0_finder; __editable___gpudoctor_cli_0_1_0_finder.install()",
)


def test_each_known_start_up_line_begins_with_the_head_that_lets_other_lines_skip_the_patterns():
    # A .pth line that runs code is refused without compiling the known lines' patterns unless it begins with one of
    # their heads (venvfiles._KNOWN_PTH_HEADS): each pattern must require its head, or a line it matches would be
    # refused. The patterns' text, groups aside, begins with the head (no character in a head is special to re).
    from gpudoctor.host import venvfiles

    patterns = venvfiles._known_pth_code()
    assert len(patterns) == len(venvfiles._KNOWN_PTH_HEADS) == len(KNOWN_LINES)
    for head, pattern, line in zip(venvfiles._KNOWN_PTH_HEADS, patterns, KNOWN_LINES, strict=True):
        assert re.escape(head) == head.replace(" ", "\\ ") and pattern.pattern.replace("(", "").startswith(head), head
        assert pattern.fullmatch(line) and line.startswith(head), line
    # The near miss: this machine's sandbox line runs other code, begins otherwise, and is refused.
    assert not "import os;exec('...')".startswith(venvfiles._KNOWN_PTH_HEADS)
