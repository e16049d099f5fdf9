"""The CLI under the oldest and the newest dependencies pyproject.toml allows: both must pass.

Two scratch virtual environments, each with gpudoctor's wheel and the test tools (pyproject.toml's dependency
group `test`) from the package index:
- oldest: every runtime dependency pinned to its lower bound (typer's included), on Python 3.10 (the
  oldest requires-python allows) when this machine has one;
- newest: whatever the index has newest inside the ranges (typer's highest allowed release).
In each: the tests marked `typer_rich` (those that exercise typer's and rich's surface: option parsing, usage errors
and their exit codes and JSON documents, --help, completion, prompts, rich's views and consoles; through CliRunner,
gpudoctor.cli.main and `python -m gpudoctor`), then the installed `gpudoctor` command itself (--version, --help,
check --replay with every --format, explain), and `import typer` with DeprecationWarnings as errors. The rest of
the suite runs once, under the dependencies of the suite's own environment: it does not touch what differs
between typer or rich releases.

The subset is kept honest by tests/packaging/reach.py: run with it, the marked tests must reach every function of
src/ that imports typer or rich (or click) and every command of the app, else this test fails naming what they
missed. No timing is asserted.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.packaging.reach import surface_code, unreached
from tests.packaging.scratch import ROOT, SNAPSHOT, make_venv, need_index, pip_install, run

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

pytestmark = pytest.mark.packaging

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
RUNTIME = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
TYPER = next(r for r in RUNTIME if r.name == "typer")
MARKER = "typer_rich"
MACHINES = ["h100x8-driver565-torch221-cu121", "rtx3080-no-driver", "docker-started-without-gpus"]
FORMATS = ["text", "json", "github", "junit"]


def marked_files(clone: Path) -> list[str]:
    """The test files that mark a test `typer_rich` (read from their text, so a newly marked file is run too)."""
    pattern = re.compile(rf"\bmark\.{MARKER}\b")
    files = [p for p in sorted((clone / "tests").rglob("test_*.py")) if pattern.search(p.read_text(encoding="utf-8"))]
    return [p.relative_to(clone).as_posix() for p in files]


def source_version(root: Path = ROOT) -> str:
    """gpudoctor.__version__ as written in the source: the one version source."""
    tree = ast.parse((root / "src" / "gpudoctor" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("src/gpudoctor/__init__.py has no literal __version__")


def lower_bound(req: Requirement) -> str:
    (bound,) = [s.version for s in req.specifier if s.operator == ">="]
    return bound


def lowest_constraints() -> str:
    """Each runtime dependency pinned to its lower bound (markers kept: tomli only on 3.10)."""
    lines = []
    for req in RUNTIME:
        marker = f"; {req.marker}" if req.marker else ""
        lines.append(f"{req.name}=={lower_bound(req)}{marker}")
    return "\n".join(lines) + "\n"


def installed(python: Path, name: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({name!r}))"
    return run([str(python), "-c", code], timeout=60).stdout.strip()


def newest_on_index(name: str, spec: SpecifierSet) -> Version:
    proc = need_index(run([sys.executable, "-m", "pip", "index", "versions", name], timeout=120), f"asking the index for {name}")
    found = re.search(r"Available versions: (.*)", proc.stdout)
    assert found, proc.stdout
    versions = [Version(v.strip()) for v in found.group(1).split(",")]
    return max(v for v in versions if v in spec)


def oldest_python() -> str:
    """Python 3.10 when this machine has one (requires-python's floor), else the interpreter running the suite."""
    for candidate in ("python3.10",):
        path = shutil.which(candidate)
        if path and run([path, "-c", "import venv, sys; assert sys.version_info[:2] == (3, 10)"], timeout=60).returncode == 0:
            return path
    return sys.executable


def make_env(tmp: Path, which: str, wheel: Path, clone: Path) -> Path:
    # The test tools are a dependency group (PEP 735) of the clone's pyproject.toml, not an extra of the wheel.
    group = ("--group", f"{clone / 'pyproject.toml'}:test")
    if which == "oldest":
        base = oldest_python()
        run([base, "-m", "venv", "--without-pip", str(tmp / "venv")], timeout=120).check_returncode()
        python = tmp / "venv" / "bin" / "python"
        constraints = tmp / "lowest.txt"
        constraints.write_text(lowest_constraints(), encoding="utf-8")
        pip_install(python, str(wheel), *group, "-c", str(constraints), what="installing the oldest dependencies")
    else:
        python = make_venv(tmp / "venv")
        pip_install(python, str(wheel), *group, what="installing the newest dependencies")
    return python


@pytest.mark.parametrize("which", ["oldest", "newest"])
def test_cli_under_dependency_range(which: str, wheel: Path, clone: Path, tmp_path: Path):
    # Everything runs in the clone the wheel was built from: its tests match its code, whatever changes
    # in the working tree meanwhile.
    python = make_env(tmp_path, which, wheel, clone)
    typer_version = Version(installed(python, "typer"))
    if which == "oldest":
        target = run([str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], timeout=60).stdout.strip()
        for req in RUNTIME:
            if req.marker is None or req.marker.evaluate({"python_version": target}):
                assert Version(installed(python, req.name)) == Version(lower_bound(req)), req.name
    else:
        assert typer_version == newest_on_index("typer", TYPER.specifier), "the newest typer the range allows"
    assert typer_version in TYPER.specifier

    # typer imports nothing deprecated (no warning at every start), and click is not needed by gpudoctor.
    warn = run([str(python), "-W", "error::DeprecationWarning", "-c", "import typer, gpudoctor.cli"], timeout=60)
    assert warn.returncode == 0, warn.stderr[-2000:]

    reach = tmp_path / "reach.json"
    tests = run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.packaging.reach", "-x", "-m", MARKER]
        + marked_files(clone),
        cwd=clone,
        timeout=600,
        env={"PYTHONDONTWRITEBYTECODE": "1", "GPUDOCTOR_REACH": str(reach)},
    )
    assert tests.returncode == 0, f"typer {typer_version}:\n{tests.stdout[-6000:]}\n{tests.stderr[-2000:]}"
    # The subset reached all of typer's and rich's surface in gpudoctor: a function that imports one of them, or a
    # command, that no marked test runs in-process is named here (mark a test that reaches it).
    assert unreached(json.loads(reach.read_text(encoding="utf-8")), surface_code(clone / "src" / "gpudoctor")) == []
    where = run([str(python), "-c", "import gpudoctor; print(gpudoctor.__file__)"], cwd=clone, timeout=60).stdout
    assert str(tmp_path) in where, f"the tests must use the installed wheel, not the checkout: {where}"

    exe = str(python.parent / "gpudoctor")
    version = run([exe, "--version"], timeout=60)
    assert version.returncode == 0 and version.stdout.strip() == f"gpudoctor {source_version(clone)}", version
    helped = run([exe, "--help"], timeout=60)
    assert helped.returncode == 0 and "check" in helped.stdout and "explain" in helped.stdout, helped
    for fmt in FORMATS:
        checked = run(
            [exe, "check", "--replay", str(clone / SNAPSHOT.relative_to(ROOT)), "--format", fmt],
            timeout=60,
            env={"GITHUB_STEP_SUMMARY": None},
        )
        assert checked.returncode in (0, 1), f"--format {fmt}: {checked.stderr[-2000:]}"
        assert checked.stdout.strip(), f"--format {fmt} printed nothing"
    for name in MACHINES:
        snapshot = clone / "tests" / "machines" / name / "snapshot.json"
        checked = run([exe, "check", "--replay", str(snapshot), "--format", "json"], timeout=60)
        assert checked.returncode in (0, 1), f"{name}: {checked.stderr[-2000:]}"
        assert json.loads(checked.stdout)["tool_version"] == source_version(clone)
    explained = run([exe, "explain", "gpu-none"], timeout=60)
    assert explained.returncode == 0 and "gpu-none" in explained.stdout.lower(), explained
