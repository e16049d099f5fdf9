"""Nothing POSIX-only is imported at module import time, so `pip install` and `gpudoctor --help` work on Windows.

A child interpreter gets a meta-path finder that refuses fcntl, pwd, grp, termios, resource and the other
POSIX-only modules, then imports every module of the package and runs `gpudoctor --help`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

_BLOCKER = textwrap.dedent(
    """
    import sys
    POSIX_ONLY = {"fcntl", "pwd", "grp", "termios", "resource", "tty", "pty", "posix", "syslog", "crypt", "spwd"}

    class _Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in POSIX_ONLY:
                raise ImportError(f"{name} is POSIX-only (blocked to stand in for Windows)")
            return None

    for name in list(sys.modules):
        if name.split(".")[0] in POSIX_ONLY - {"posix"}:
            del sys.modules[name]
    sys.meta_path.insert(0, _Block())
    """
)

_IMPORT_ALL = textwrap.dedent(
    """
    import importlib, pkgutil, sys
    import gpudoctor
    failed = []
    for mod in pkgutil.walk_packages(gpudoctor.__path__, "gpudoctor."):
        try:
            importlib.import_module(mod.name)
        except ImportError as exc:
            if "POSIX-only" in str(exc):
                failed.append(f"{mod.name}: {exc}")
    print("\\n".join(failed))
    sys.exit(1 if failed else 0)
    """
)


def _run(tmp_path: Path, code: str) -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(_BLOCKER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(SRC)])}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def test_the_blocker_works(tmp_path):
    assert _run(tmp_path, "import fcntl").returncode != 0


def test_every_module_imports_without_posix_only_modules(tmp_path):
    result = _run(tmp_path, _IMPORT_ALL)
    assert result.returncode == 0, result.stdout + result.stderr


def test_help_works_without_posix_only_modules(tmp_path):
    result = _run(tmp_path, "import sys; from gpudoctor.cli import main; sys.argv = ['gpudoctor', '--help']; main()")
    assert result.returncode == 0, result.stderr
    assert "Usage" in result.stdout or "usage" in result.stdout


_NO_POSIX_OS = textwrap.dedent(
    """
    import os
    # What the os module of Windows lacks, removed before gpudoctor imports (subprocess is loaded already).
    import subprocess  # noqa: F401
    for name in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC", "killpg", "getuid", "geteuid", "setsid"):
        if hasattr(os, name):
            delattr(os, name)
    """
)


def test_replaying_a_windows_machine_works_with_a_windows_like_os_module(tmp_path):
    machine = Path(__file__).resolve().parents[1] / "machines" / "windows-cuda118-after-deleting-v123" / "snapshot.json"
    (tmp_path / "sitecustomize.py").write_text(_BLOCKER + _NO_POSIX_OS, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(SRC)])}
    code = f"import sys; from gpudoctor.cli import main; sys.argv = ['gpudoctor', 'check', '--replay', {str(machine)!r}]; main()"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr  # 1: findings at error, as expected there
    assert "windows-cuda-path-missing" in result.stdout and "Traceback" not in result.stderr
