"""After-round h277 (set 19, kind 9: a right finding whose plan had no command): the least driver an upgrade must reach
where the build's CUDA is not shown; a native CUDA program's runtime library found and put on LD_LIBRARY_PATH. Each
rule is shown by two real threads; the quiet twins keep it to them. Expectations by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pasted.cli_json import blind_case, check, paste

pytestmark = pytest.mark.slow

CASES = Path(__file__).resolve().parent / "cases"
BLOCKING = ("warning", "error", "critical")


def _codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in BLOCKING]


def _step(doc: dict, code: str) -> dict:
    return next(s for s in doc["plan"]["steps"] if code in s["codes"])


def _summary(doc: dict, code: str) -> str:
    return " ".join(_step(doc, code)["summaries"])


# --- the driver's floor, where the build's CUDA is not shown ----------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "floor"),
    [
        ("plans19/cases/1961", "367.48"),  # apache/mxnet#3486: 352.99, a CUDA 8.0 build (367.44 tried, still below)
        ("plans12/cases/1224", "375.26"),  # NVIDIA/nvidia-docker#414: 367.57 under a CUDA 8.0 GA2 image
    ],
)
def test_the_upgrade_names_the_least_driver_that_serves_a_newer_cuda(case: str, floor: str):
    doc = check(blind_case(case))
    assert "toolkit-newer-than-driver" in _codes(doc)
    assert f"at least {floor}" in _summary(doc, "toolkit-newer-than-driver")


def test_a_driver_below_every_release_listed_names_none(tmp_path: Path):
    # the quiet twin: no version shown, no floor to name (the matrix is asked for none)
    doc = paste(tmp_path, "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n")
    step = next((s for s in doc["plan"]["steps"] if s["codes"]), None)
    assert step is None or "at least" not in " ".join(step["summaries"])


# --- a native program's CUDA runtime, missing at its start -------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "soname"),
    [
        (lambda: blind_case("plans19/cases/1967"), "libcudart.so.11.0"),  # tonyyxliu/CUHKSZ-CSC4005#69
        (lambda: CASES / "ccminer-149-title-loader-message-libcudart90-no-space" / "report.txt", "libcudart.so.9.0"),
    ],
)
def test_the_loader_message_at_start_finds_the_library_and_prepends_its_directory(path, soname: str):
    doc = check(path())
    assert _codes(doc) == ["framework-cuda-libs-missing"]
    commands = _step(doc, "framework-cuda-libs-missing")["commands"]
    assert commands[0]["argv"] == ["find", "/", "-name", f"{soname}*", "-not", "-path", "/proc/*"]  # no -xdev: /opt
    prepend = commands[1]
    assert prepend["prepend"] == "LD_LIBRARY_PATH" and prepend["parts"][0]["output_of"][-1] == soname
    assert not any("pip" in c.get("argv", []) for c in commands)  # no wheel or framework extra for a native program


def test_a_python_modules_missing_runtime_keeps_the_frameworks_remedy(tmp_path: Path):
    # the quiet twin: the same library missing inside a Python import is no native program's start
    doc = paste(
        tmp_path,
        "import torch\nOSError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n",
    )
    steps = [s for s in doc["plan"]["steps"] if "framework-cuda-libs-missing" in s["codes"]]
    assert steps
    commands = [c for s in steps for c in s["commands"]]
    assert not any(c.get("argv", [])[-3:] == ["-not", "-path", "/proc/*"] for c in commands)
    # no CUDA shown: the reads decide first (the look for the copies there are, the framework's packages), no export
    # of a copy found anywhere (gpudoctor.checks.library_copy.a_copy_may_fix); no ldd of a program
    assert ["find", "/", "-xdev", "-name", "libcudart.so*"] in [c.get("argv") for c in commands]
    assert not any(c.get("prepend") for c in commands)
    assert not any(c.get("argv", [""])[0] == "ldd" for c in commands)


# --- a driver's version at the end of a sentence ----------------------------------------------------------------------


def test_a_driver_version_before_a_full_stop_is_read():
    # NVIDIA/cutlass#2866: "my CUDA driver is 570.133.20." (the full stop no part of the version)
    doc = check(blind_case("plans19/cases/1904"))
    assert doc["facts"]["driver"]["nvml_driver_version"] == "570.133.20"
    assert "at least 580.65.06" in _summary(doc, "toolkit-newer-than-driver")  # R580: CUDA 13.0's minimum


def test_a_version_that_goes_on_after_its_dot_is_not_cut_short(tmp_path: Path):
    # the quiet twin: "driver 535.1x" is no version, and a dot followed by more is part of the number
    from gpudoctor.parsers.error_texts import _DRIVER_PROSE

    assert _DRIVER_PROSE.search("the driver 535.1x") is None
    assert _DRIVER_PROSE.search("gpu driver 525.85.12, cuda 12.0").group("version") == "525.85.12"
