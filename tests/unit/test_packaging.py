"""The package ships what it needs, and importing it does nothing heavy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    src = ROOT / "src"
    found = {".".join(p.parent.relative_to(src).parts) for p in src.rglob("__init__.py")}
    assert found <= listed, f"add to pyproject.toml packages: {sorted(found - listed)}"


def test_import_does_no_work():
    code = (
        "import sys, gpudoctor, gpudoctor.doctor, gpudoctor.matrix, gpudoctor.checks, gpudoctor.host.live;"
        "heavy = [m for m in ('pynvml', 'requests', 'rich', 'torch', 'tensorflow', 'jax', 'tomllib') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"imported at import time: {out}"


def test_data_packages_are_readable_as_resources():
    from importlib.resources import files

    assert files("gpudoctor.compat_matrix").joinpath("sources.toml").is_file()
    assert files("gpudoctor._docs").joinpath("findings", "gpu-none.md").is_file()


PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# Import name -> distribution name, where they differ.
DISTRIBUTION_OF = {"pynvml": "nvidia-ml-py"}


def _third_party_imports() -> dict[str, set[str]]:
    import ast

    found: dict[str, set[str]] = {}
    for path in (ROOT / "src" / "gpudoctor").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "gpudoctor":
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_dependencies_are_exactly_what_src_imports():
    from packaging.requirements import Requirement

    declared = {Requirement(r).name for r in PYPROJECT["project"]["dependencies"]}
    imported = _third_party_imports()
    used = {DISTRIBUTION_OF.get(m, m) for m in imported}
    assert used - declared == set(), f"imported but not declared: {sorted(used - declared)} ({imported})"
    assert declared - used == set(), f"declared but never imported: {sorted(declared - used)}"
    # typer carries its own click from 0.26: gpudoctor must not import one typer no longer installs.
    assert "click" not in imported


def test_every_dependency_has_a_lower_bound():
    from packaging.requirements import Requirement

    for text in PYPROJECT["project"]["dependencies"]:
        req = Requirement(text)
        assert any(s.operator == ">=" for s in req.specifier), f"{text}: no lower bound"


def test_one_version_source():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gpudoctor.__version__"}
    import gpudoctor

    out = subprocess.run([sys.executable, "-m", "gpudoctor", "--version"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == f"gpudoctor {gpudoctor.__version__}"


def test_license_and_classifiers():
    from packaging.specifiers import SpecifierSet

    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    # PEP 639: an SPDX expression and a "License ::" classifier may not both be given.
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    # setuptools reads SPDX expressions and license-files from 77 on.
    assert "setuptools>=77" in PYPROJECT["build-system"]["requires"]
    # The Python classifiers are exactly the minor versions from requires-python's floor to 3.13.
    versions = {c.rsplit(" :: ", 1)[1] for c in project["classifiers"] if c.startswith("Programming Language :: Python :: 3.")}
    supported = SpecifierSet(project["requires-python"])
    assert versions == {v for v in (f"3.{n}" for n in range(8, 14)) if v in supported} == {"3.10", "3.11", "3.12", "3.13"}
    # The repository has no public home yet: no placeholder addresses (issue 31); a real one can come later.
    assert "urls" not in project


def test_no_upper_bound_downgrades_a_users_typer_or_rich():
    """Issue 31, item 7: a cap (typer<0.29) made pip downgrade the typer a user already had."""
    from packaging.requirements import Requirement

    requirements = {r.name: r for r in map(Requirement, PYPROJECT["project"]["dependencies"])}
    for name in ("typer", "rich"):
        assert [s.operator for s in requirements[name].specifier] == [">="], requirements[name]
