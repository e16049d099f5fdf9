"""Issue 27 (h245): "NameError: name 'tcnn' is not defined" is tiny-cuda-nn's bindings failing to import, hidden.

The catalogue's tinycudann-alias-undefined reads the NameError a program raises on the first use of the alias
tinycudann's README gives (`import tinycudann as tcnn`) after an import inside try/except ImportError failed quietly
(nerfstudio/field_components/encodings.py @7d09be5ab4de1e66c867b8b2074c05b037e1e828). The failure is NOT DECIDED, and
the asks run the import itself in the interpreter that ran, where its own error decides (not installed there, or
built against another torch or CUDA). The quiet twin: tinycudann imported and working, failing on its input's shape.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.test_corpus import run_cli

TESTS = Path(__file__).resolve().parent.parent


def _check(path: Path) -> dict:
    code, out, err = run_cli("check", "--from", str(path), "--format", "json")
    doc = json.loads(out)
    assert code == doc["exit_code"], err
    return doc


@pytest.mark.parametrize(
    ("paste", "python"),
    [
        # kerrj/lerf#8's comment (tests/pasted/catalogue_examples/README.md): no OS named
        ("pasted/catalogue_examples/lerf-8-tcnn-not-defined.txt", "python3"),
        # a Windows conda environment's ns-train, the NameError in the description and a traceback cut before it
        (
            "blind/plans17/cases/1746-nerfstudio-724-windows-miniconda-nerfacto-tcnn-not-defined-vanilla-nerf-trains-ask/input.txt",
            # the environment's own interpreter, from its console-script launcher frame (h266)
            "C:\\Users\\user\\miniconda3\\envs\\nerfstudio\\python.exe",
        ),
    ],
)
def test_the_alias_undefined_asks_the_import_itself(paste, python):
    doc = _check(TESTS / paste)
    (finding,) = [f for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")]
    assert finding["code"] == "pasted-error-unexplained"
    asked = [a["argv"] for a in doc["pasted"]["ask_for"]]
    assert [python, "-c", "import tinycudann"] in asked
    assert [python, "-m", "pip", "show", "tinycudann"] in asked


def test_tinycudann_that_imported_and_fails_on_its_input_is_not_read_as_not_imported(tmp_path):
    # https://github.com/nerfstudio-project/nerfstudio/issues/1539: the bindings run, the input's width is wrong
    paste = tmp_path / "input.txt"
    paste.write_text("RuntimeError: tinycudann/bindings.cpp:87 check failed input.size(1) == n_input_dims()\n", encoding="utf-8")
    asked = [a["argv"] for a in _check(paste)["pasted"]["ask_for"]]
    assert not any(a[-1] == "import tinycudann" for a in asked)
