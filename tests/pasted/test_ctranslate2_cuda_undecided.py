"""Issues 27/28 (h204): CTranslate2 missed cuDNN 8 by soname, its version not shown, on a machine the text says has
CUDA 11. CTranslate2's builds that load cuDNN 8 are of two CUDA majors (3.x: CUDA 11; 4.0-4.4: CUDA 12;
compat_matrix/libraries.toml, OpenNMT/CTranslate2 CHANGELOG.md), so the CUDA 12 wheels are not the only reading: the
finding names both and its plan is the commands that decide (gpudoctor.checks.libraries._ct2_cuda_open). Where the
text states no CUDA, the CUDA 12 build (faster-whisper 1.x's) stays the reading, and its wheels the fix."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile.test_corpus import run_cli

BLIND = Path(__file__).resolve().parents[1] / "blind"


def _check(paste: Path) -> dict:
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    doc = json.loads(out)
    assert code == doc["exit_code"], err
    return doc


def _cudnn_missing(doc: dict) -> dict:
    (f,) = [f for f in doc["findings"] if f["code"] == "cudnn-missing"]
    return f


def _argvs(f: dict) -> list[list[str]]:
    return [c["argv"] for c in f["remediation"]["argv"] if "argv" in c]


def _installs(f: dict) -> list[list[str]]:
    return [a for a in _argvs(f) if "install" in a]


def test_cuda_11_stated_leaves_the_ctranslate2_build_to_its_version():
    # tests/blind/plans14/cases/1449-*: "I have cuda version 11.8", pip install faster-whisper, then
    # "Could not load library libcudnn_ops_infer.so.8"; which ctranslate2 pip installed is not shown.
    (paste,) = (BLIND / "plans14" / "cases").glob("1449-*/input.txt")
    f = _cudnn_missing(_check(paste))
    assert _installs(f) == []  # no wheels of a CUDA major the text does not decide
    assert any(a[:2] == ["ldconfig", "-p"] for a in _argvs(f))  # the loader's cache: which cuDNN it can find
    assert any(a[:2] == ["python3", "-c"] and "ctranslate2.__version__" in a[2] for a in _argvs(f))  # the release
    assert "nvidia-cublas-cu11" in f["remediation"]["summary"] and "nvidia-cublas-cu12" in f["remediation"]["summary"]


def test_a_cuda_11_library_directory_with_the_file_listed_takes_the_listed_directory():
    # tests/blind/plans14/cases/1434-*: the reporter's LD_LIBRARY_PATH names /usr/local/cuda-11.7/lib64; the script
    # imports faster_whisper; cuDNN 8 cannot be opened, and `find /` lists libcudnn_ops_infer.so.8 in the user site's
    # nvidia/cudnn/lib: the file is there, so which build asked for it no longer decides the fix (no install; the
    # listed directory goes on the loader's path: tests/pasted/test_library_file_shown.py).
    (paste,) = (BLIND / "plans14" / "cases").glob("1434-*/input.txt")
    f = _cudnn_missing(_check(paste))
    assert _installs(f) == []
    assert "/.local/lib/python3.8/site-packages/nvidia/cudnn/lib" in f["remediation"]["summary"]


def test_quiet_twin_no_cuda_stated_keeps_the_cuda_12_wheels():
    # tests/blind/plans2/cases/154-*: faster-whisper misses libcudnn_ops_infer.so.8 beside a system cuDNN 9.2, no CUDA
    # stated: the CUDA 12 build of cuDNN 8 is the reading, its wheels the fix (that case's expected plan).
    (paste,) = (BLIND / "plans2" / "cases").glob("154-*/input.txt")
    f = _cudnn_missing(_check(paste))
    assert [a[-3:] for a in _installs(f)] == [["install", "nvidia-cublas-cu12", "nvidia-cudnn-cu12==8.9.7.29"]]


def test_quiet_twin_ctranslate2s_own_cublas_message_is_not_asked_its_release():
    # tests/blind/plans3/cases/245-*: CTranslate2's own "Library libcublas.so.11 is not found" names its CUDA major
    # (a 3.x build): no release to ask for (the ctranslate2 component asks only beside a loader's miss).
    (paste,) = (BLIND / "plans3" / "cases").glob("245-*/input.txt")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    doc = json.loads(out)
    assert not any("ctranslate2.get_cuda_device_count" in a["command"] for a in doc["pasted"]["ask_for"])
