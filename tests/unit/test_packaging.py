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
