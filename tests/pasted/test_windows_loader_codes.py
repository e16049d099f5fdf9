"""Windows' loader errors read by their number where the usual wording is cut or another library prints it
(catalogue.toml's block of branch h191): error 193 after cuDNN 8's own words is a file that is no 64-bit image, not a
DLL missing from PATH; error 1114 with no DLL named is a DLL whose start-up failed, asked about the C++ runtime it
links. Each on whole real pastes, with the quiet twin that must not change."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = TESTS / "pasted" / "catalogue_examples"


def _case(blind_set: str, prefix: str) -> str:
    return next((TESTS / "blind" / blind_set / "cases").glob(prefix + "*")).joinpath("input.txt").read_text(encoding="utf-8")


def _run(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    asks = [tuple(map(str, a.command.argv)) for a in ask_for(report.facts, report.findings)]
    return snapshot, {f.code: f for f in report.findings}, asks


def test_cudnn8_error_193_is_a_bad_image_asked_with_each_copys_machine_type_not_a_path_fix():
    # tests/blind/plans8/cases/810-* (Paddle, cuDNN 8.4 for CUDA 11.6) and tests/blind/plans13/cases/1351-* (TensorFlow
    # through DeepLabCut, cuDNN 8.5): "Could not load library cudnn_cnn_infer64_8.dll. Error code 193" on Windows
    for text in (_case("plans8", "810-"), _case("plans13", "1351-")):
        snapshot, codes, asks = _run(text)
        assert snapshot["platform"]["system"] == "Windows"
        assert "windows-dll-missing" not in codes  # (no PATH fix: the file is found, and is no 64-bit image)
        assert "windows-dll-bad-image" in {e["kind"] for e in snapshot["pasted"]["errors"]}
        assert "library-missing" not in {e["kind"] for e in snapshot["pasted"]["errors"]}
        assert ("where.exe", "zlibwapi.dll", "cudnn64_8.dll", "cudnn_cnn_infer64_8.dll", "cudnn_ops_infer64_8.dll") in asks
        machine = next(a for a in asks if a[1:2] == ("-c",) and "struct" in a[2])
        assert "zlibwapi.dll" in machine[2] and "60" in machine[2]  # (the PE header's offset at 0x3c, its machine field)


def test_cudnn8_error_126_stays_a_dll_missing_from_path():
    # the quiet twin: AlexeyAB/darknet#8239 (https://github.com/AlexeyAB/darknet/issues/8239), cuDNN 8.3 on Windows,
    # "Could not load library cudnn_cnn_infer64_8.dll. Error code 126": a sub-library or what it links is not found
    text = (
        "CUDA-version: 11050 (11050), cuDNN: 8.3.0, CUDNN_HALF=1, GPU count: 1\n"
        " 0 : compute_capability = 860, cudnn_half = 1, GPU: NVIDIA GeForce RTX 3060\n"
        "Windows 11\n"
        "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n"
        "Please make sure cudnn_cnn_infer64_8.dll is in your library path!\n"
    )
    snapshot, codes, _ = _run(text)
    assert "windows-dll-bad-image" not in {e["kind"] for e in snapshot["pasted"]["errors"]}
    assert "library-missing" in {e["kind"] for e in snapshot["pasted"]["errors"]}


_RUNTIME = ("where.exe", "msvcp140.dll", "vcruntime140.dll", "vcruntime140_1.dll")
_REDIST = ("reg", "query", "HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64", "/v", "Version")


def test_error_1114_with_no_dll_named_asks_for_the_cpp_runtime_that_loads():
    # bitsandbytes-foundation/bitsandbytes#320 (https://github.com/bitsandbytes-foundation/bitsandbytes/issues/320):
    # ctypes.CDLL's OSError names no DLL; tests/blind/plans13/cases/1314-* (torch 2.9.0 on Windows): the paste ends
    # inside Windows' text, before torch's ' Error loading "<dll>"'
    for text in (
        (EXAMPLES / "bitsandbytes-320-winerror-1114-ctypes-unnamed.txt").read_text(encoding="utf-8"),
        _case("plans13", "1314-"),
    ):
        snapshot, codes, asks = _run(text)
        assert "windows-dll-init-failed-unnamed" in {e["kind"] for e in snapshot["pasted"]["errors"]}
        assert _RUNTIME in asks and _REDIST in asks
        assert "windows-dll-missing" not in codes


def test_error_1114_that_names_torchs_c10_is_judged_as_before_and_not_asked_twice():
    # the quiet twin: XiaoGu-G2020/DeltaForceMarketBot#46 (tests/pasted/head/platforms/torch-c10-winerror-1114.txt),
    # Windows' text and torch's ' Error loading "...\\c10.dll"' on two lines: the named entry reads it, the unnamed
    # one stays silent and the Visual C++ runtime finding stands
    text = (TESTS / "pasted" / "head" / "platforms" / "torch-c10-winerror-1114.txt").read_text(encoding="utf-8")
    snapshot, codes, asks = _run(text)
    kinds = {e["kind"] for e in snapshot["pasted"]["errors"]}
    assert "windows-dll-init-failed" in kinds
    assert "windows-dll-missing" in codes
    assert _REDIST not in asks  # (the unnamed entry's asks: its `unless` names the named entry's kind)
