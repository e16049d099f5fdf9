"""What the wheel holds: the package, its data (compatibility matrix, finding pages, the py.typed marker),
the license, the metadata pyproject.toml states; and nothing else (no tests, bench, virtual environment)."""

from __future__ import annotations

import email
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.packaging


def _names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def test_wheel_holds_the_package_and_its_data(wheel: Path, clone: Path):
    names = _names(wheel)
    matrix = {f"gpudoctor/compat_matrix/{p.name}" for p in (clone / "compat_matrix").glob("*.toml")}
    findings = {f"gpudoctor/_docs/findings/{p.name}" for p in (clone / "docs" / "findings").glob("*.md")}
    assert len(matrix) >= 10 and len(findings) >= 30, (len(matrix), len(findings))
    assert matrix <= names, sorted(matrix - names)
    assert findings <= names, sorted(findings - names)
    assert "gpudoctor/py.typed" in names
    # Every file of the package in the source (modules and data such as schemas) is in the wheel.
    src = clone / "src" / "gpudoctor"
    source_files = {
        "gpudoctor/" + p.relative_to(src).as_posix()
        for p in src.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    assert source_files <= names, f"in src/ but not in the wheel: {sorted(source_files - names)}"


def test_wheel_holds_nothing_unneeded(wheel: Path):
    names = _names(wheel)
    tops = {n.split("/", 1)[0] for n in names}
    (dist_info,) = [t for t in tops if t.endswith(".dist-info")]
    assert tops == {"gpudoctor", dist_info}, f"unexpected top-level entries: {sorted(tops)}"
    bad = [n for n in names if any(part in n.split("/") for part in ("tests", "bench", ".venv", "__pycache__", ".git"))]
    assert not bad, bad
    assert not [n for n in names if n.endswith((".pyc", ".egg-info"))]


def test_wheel_metadata(wheel: Path, clone: Path):
    names = _names(wheel)
    (dist_info,) = {n.split("/", 1)[0] for n in names if ".dist-info/" in n}
    with zipfile.ZipFile(wheel) as zf:
        meta = email.message_from_bytes(zf.read(f"{dist_info}/METADATA"))
        license_text = zf.read(f"{dist_info}/licenses/LICENSE").decode()
        entry_points = zf.read(f"{dist_info}/entry_points.txt").decode()
    assert meta["Name"] == "gpudoctor-cli"
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert license_text == (clone / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    # PEP 639: no license classifier beside an SPDX expression.
    assert not [c for c in meta.get_all("Classifier") if c.startswith("License ::")]
    assert "gpudoctor = gpudoctor.cli:main" in entry_points
    # The version is gpudoctor.__version__ (one source).
    init = (clone / "src" / "gpudoctor" / "__init__.py").read_text(encoding="utf-8")
    assert f'__version__ = "{meta["Version"]}"' in init
    requires = meta.get_all("Requires-Dist")
    assert not [r for r in requires if r.split()[0].lower() == "click"], requires
