"""Issues 27/28 (h204): onnxruntime's "Failed to create CUDAExecutionProvider" pasted with its log prefix and without
the requirements link (catalogue entry onnxruntime-cuda-provider-create-failed-bare) is read, not passed over as a
clean bill: the asks are what names the cause (both onnxruntime packages, the provider library's unresolved CUDA and
cuDNN libraries under ldd, LD_LIBRARY_PATH). Its twins: the form with the link keeps its own entry, and a Windows paste
is not asked for Linux's ldd."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.test_corpus import run_cli

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = TESTS / "pasted" / "catalogue_examples"
ENTRY = "onnxruntime-cuda-provider-create-failed-bare"


def _check(paste: Path) -> dict:
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    doc = json.loads(out)
    assert code == doc["exit_code"], err
    return doc


def _asks(doc: dict) -> list[str]:
    return [a["command"] for a in doc["pasted"]["ask_for"]]


def _entries(doc: dict) -> set[str]:
    """The catalogue entries the text was read with."""
    return {v for e in doc["facts"]["pasted"]["errors"] for k, v in e["values"] if k == "entry"}


def _cases(pattern: str) -> Path:
    (paste,) = (TESTS / "blind" / "plans14" / "cases").glob(pattern)
    return paste


def test_the_bare_warning_is_read_and_asks_for_what_names_the_cause():
    # https://github.com/microsoft/onnxruntime/issues/15873 (catalogue example): 'GPU' and the CUDA provider listed,
    # then the warning with its prefix and no link.
    doc = _check(EXAMPLES / "ort-15873-create-cuda-provider-failed-bare.txt")
    assert _entries(doc) >= {ENTRY}
    assert "pasted-error-unexplained" in {f["code"] for f in doc["findings"]}
    asks = _asks(doc)
    assert any(a.endswith("-m pip show onnxruntime onnxruntime-gpu") for a in asks)
    assert any(a.endswith("| xargs ldd") and "libonnxruntime_providers_cuda.so" in a for a in asks)
    assert "printenv LD_LIBRARY_PATH" in asks


def test_onnxruntime_110s_warning_with_its_period():
    # tests/blind/plans14/cases/1408-*: ONNX Runtime 1.10.0, the warning ending "CUDAExecutionProvider." in backticks.
    doc = _check(_cases("1408-*/input.txt"))
    assert {f["code"] for f in doc["findings"]} == {"pasted-error-unexplained"}
    assert any(a.endswith("| xargs ldd") for a in _asks(doc))


def test_quiet_twin_the_form_with_the_link_keeps_its_own_entry():
    doc = _check(EXAMPLES / "ort-13264-centos-ort1120-create-cuda-provider-failed.txt")
    assert ENTRY not in _entries(doc) and "onnxruntime-cuda-provider-create-failed" in _entries(doc)
    assert not any(a.endswith("| xargs ldd") for a in _asks(doc))


def test_quiet_twin_windows_is_not_asked_for_ldd(tmp_path):
    # The same warning in a Windows session (a C:\ prompt): ldd and xargs are not Windows programs.
    text = (EXAMPLES / "ort-15873-create-cuda-provider-failed-bare.txt").read_text(encoding="utf-8")
    paste = tmp_path / "issue.txt"
    paste.write_text("(venv) C:\\Users\\me\\proj>python infer.py\n" + text, encoding="utf-8")
    doc = _check(paste)
    assert doc["facts"]["platform"]["system"] == "Windows" and ENTRY in _entries(doc)
    assert not any("ldd" in a or "printenv" in a for a in _asks(doc))
