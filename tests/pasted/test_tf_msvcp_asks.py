"""TensorFlow's Windows preload check not finding msvcp140.dll or msvcp140_1.dll on PATH (catalogue.toml:
tf-msvcp-dll-not-on-path): the reporter says the runtime is installed, so what decides it is asked (the interpreter's
width, which copies PATH finds first, the x64 runtime's version), and nothing that needs TensorFlow to import."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.test_corpus import run_cli

ROOT = Path(__file__).resolve().parents[2]
WIDTH = "import struct, sys; print(sys.version); print(struct.calcsize('P') * 8, 'bit')"
REG = ["reg", "query", "HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64", "/v", "Version"]


def _asks(path: Path) -> list[list[str]]:
    code, out, err = run_cli("check", "--from", str(path), "--format", "json")
    assert code in (0, 1), err
    return [a["argv"] for a in json.loads(out)["pasted"]["ask_for"]]


def _tf_asked(asks: list[list[str]]) -> bool:
    return any(any("import sys, tensorflow as tf" in w for w in a) for a in asks)


def test_redistributable_installed_and_still_not_found_asks_width_search_and_version():
    """tests/blind/plans10 case 1011 (its thread is named only there): TensorFlow 2.1, python.org Python 3.7.7, the
    2015-2019 redistributable installed: the three asks, and no TensorFlow command (it cannot import)."""
    asks = _asks(
        ROOT
        / "tests/blind/plans10/cases/1011-tf38262-windows10-python377-pip-tf21-msvcp140-1-dll-not-found-after-redist-ask/input.txt"
    )
    assert ["python", "-c", WIDTH] in asks
    assert ["where.exe", "msvcp140.dll", "msvcp140_1.dll"] in asks
    assert REG in asks
    assert not _tf_asked(asks)
    assert not [a for a in asks if a[0] == "where.exe" and any(w.startswith("cudart64") for w in a)]


def test_a_copy_found_elsewhere_on_path_gets_the_same_search_asked():
    """https://github.com/tensorflow/tensorflow/issues/50955 (tests/pasted/catalogue_examples): TensorFlow 2.5, where
    msvcp140.dll answering a JDK's copy before System32's: where.exe shows the order."""
    asks = _asks(ROOT / "tests/pasted/catalogue_examples/tensorflow-50955-msvcp140-shadowed-on-path.txt")
    assert ["where.exe", "msvcp140.dll", "msvcp140_1.dll"] in asks
    assert REG in asks


def test_tensorflow_that_imports_and_misses_cudart_is_not_asked_about_the_runtime():
    """tests/pasted/cases/lightweight-mmm-23 (a recorded case): TensorFlow on Windows logging cudart64's warning, its
    import fine: no Visual C++ runtime asks."""
    asks = _asks(ROOT / "tests/pasted/cases/lightweight-mmm-23-windows-cudart-warning-runs-fine/report.txt")
    assert ["where.exe", "msvcp140.dll", "msvcp140_1.dll"] not in asks
    assert REG not in asks
