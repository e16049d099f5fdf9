"""gpudoctor installed as a new user installs it, from a fresh clone: `pipx install .`, `uv tool install .`
and `uvx --from . gpudoctor`, each then running `gpudoctor check` (a recorded machine, and this one).

pipx and uv come from the package index pip is configured with, into a scratch environment; everything
they install goes under the test's temporary directory (their homes, bin directories and tool
environments), never into the user's. A test skips and says why when the index cannot be reached.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.packaging.scratch import ROOT, SNAPSHOT, make_venv, need_index, pip_install, run

pytestmark = pytest.mark.packaging


@pytest.fixture(scope="session")
def tools(tmp_path_factory) -> Path:
    """bin/ of a scratch environment holding pipx and uv."""
    python = make_venv(tmp_path_factory.mktemp("tools") / "venv")
    pip_install(python, "pipx", "uv", what="installing pipx and uv")
    return python.parent


def _uv_env(tmp: Path) -> dict[str, str]:
    # The interpreter running the suite, never one uv would download; tools and their bin dir in tmp.
    return {
        "UV_TOOL_DIR": str(tmp / "uv-tools"),
        "UV_TOOL_BIN_DIR": str(tmp / "uv-bin"),
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_NO_PROGRESS": "1",
    }


def _checks(gpudoctor: list[str], clone: Path, version: str, **kw) -> None:
    """`gpudoctor check` on a recorded machine (JSON), then on this machine: 0 healthy, 1 findings."""
    replay = run([*gpudoctor, "check", "--replay", str(clone / SNAPSHOT.relative_to(ROOT)), "--format", "json"], **kw)
    assert replay.returncode in (0, 1), replay.stdout[-2000:] + replay.stderr[-2000:]
    assert json.loads(replay.stdout)["tool_version"] == version
    here = run([*gpudoctor, "check"], **kw)
    assert here.returncode in (0, 1), here.stdout[-2000:] + here.stderr[-2000:]
    assert here.stdout.strip(), "check on this machine printed nothing"


def _version(clone: Path) -> str:
    from tests.packaging.test_dependency_range import source_version

    return source_version(clone)


def test_pipx_install(tools: Path, clone: Path, tmp_path: Path):
    env = {
        "PIPX_HOME": str(tmp_path / "pipx-home"),
        "PIPX_BIN_DIR": str(tmp_path / "pipx-bin"),
        "PIPX_MAN_DIR": str(tmp_path / "pipx-man"),
        "PIPX_DEFAULT_PYTHON": sys.executable,
    }
    need_index(run([str(tools / "pipx"), "install", str(clone)], env=env, timeout=400), "pipx install .")
    exe = tmp_path / "pipx-bin" / "gpudoctor"
    assert exe.is_file()
    _checks([str(exe)], clone, _version(clone))


def test_uv_tool_install(tools: Path, clone: Path, tmp_path: Path):
    env = _uv_env(tmp_path)
    need_index(
        run([str(tools / "uv"), "tool", "install", "--python", sys.executable, "."], cwd=clone, env=env, timeout=400),
        "uv tool install .",
    )
    exe = tmp_path / "uv-bin" / "gpudoctor"
    assert exe.is_file()
    _checks([str(exe)], clone, _version(clone))


def test_uvx_from_checkout(tools: Path, clone: Path, tmp_path: Path):
    env = _uv_env(tmp_path)
    uvx = [str(tools / "uvx"), "--python", sys.executable, "--from", ".", "gpudoctor"]
    need_index(run([*uvx, "--version"], cwd=clone, env=env, timeout=400), "uvx --from . gpudoctor")
    _checks(uvx, clone, _version(clone), cwd=clone, env=env, timeout=400)
