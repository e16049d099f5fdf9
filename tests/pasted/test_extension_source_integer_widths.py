"""nvcc refusing an extension's own source (issues 27/28): a template called with a 64-bit integer and a `long`
(catalogue.toml: nvcc-template-integer-widths) is the source's fault, not the environment's: under MSVC long is 32
bits, so code written for Linux does not compile on Windows. The finding says so and its fix rebuilds a fixed source;
it never reinstalls the toolkit, the driver or torch. Real reports: a blind case (cited by path), the catalogue's
example, and public threads (URL beside the text); a quiet twin whose argument types are an API's, not widths."""

from __future__ import annotations

from tests.pasted import cli_json

_case, _check, _paste = cli_json.blind_case, cli_json.check, cli_json.paste
ROOT = cli_json.ROOT
CODE = "extension-not-built"


def _finding(doc: dict) -> dict:
    (finding,) = [f for f in doc["findings"] if f["code"] == CODE]
    return finding


def _argv(doc: dict) -> list[list[str]]:
    finding = _finding(doc)
    return [c["argv"] for c in finding["remediation"]["argv"]]


def test_detectron2_source_on_windows():
    # tests/blind/plans16/cases/1648-*: Windows 10, a conda env, python setup.py install of a checkout; nvcc refuses
    # ROIAlign_cuda.cu's ATenCeilDiv with (long long, long): the source, not the toolkit the build found
    doc = _check(_case("plans16/cases/1648-detectron2-848"))
    finding = _finding(doc)
    assert finding["severity"] == "error"
    assert "at::cuda::ATenCeilDiv" in finding["title"] and "(long long, long)" in finding["title"]
    argv = _argv(doc)
    assert argv[0] == ["git", "pull"]
    assert argv[-1] == ["python", "-m", "pip", "install", "--no-build-isolation", "--no-cache-dir", "-e", "."]
    # nothing of the environment is reinstalled: no toolkit, no driver, no other torch
    assert not [a for a in argv if {"torch", "cuda", "cuda-toolkit"} & set(a)]
    assert [f["code"] for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")] == [CODE]


def test_the_catalogue_example_mmdetection_on_windows():
    # tests/pasted/catalogue_examples/mmdetection-2262-*: mmdetection's roi_align_v2 kernel, (long long, long) then
    # (int64_t, long); the first is read
    doc = _check(ROOT / "tests/pasted/catalogue_examples/mmdetection-2262-windows-roi-align-v2-ateenceildiv-long-long.txt")
    assert "(long long, long)" in _finding(doc)["title"]
    assert _finding(doc)["severity"] == "error"


def test_torchvision_windows_ci_public_thread(tmp_path):
    # https://github.com/pytorch/vision/pull/1485 (its description): torchvision's Windows CUDA build, (int64_t, long)
    doc = _paste(
        tmp_path,
        "CUDA builds on Windows were failing after #1410 was merged, with errors like\n"
        "D:/_work/1/s/packaging/windows/vision/torchvision/csrc/cuda/PSROIAlign_cuda.cu(339): error: no instance of "
        'function template "at::cuda::ATenCeilDiv" matches the argument list\n'
        "              argument types are: (int64_t, long)\n",
    )
    assert "(int64_t, long)" in _finding(doc)["title"]


def test_cutorch_windows_public_thread(tmp_path):
    # https://github.com/torch/cutorch/issues/810 (its log): THCCeilDiv with (ptrdiff_t, long) under Visual Studio 14.0
    doc = _paste(
        tmp_path,
        "c:\\users\\me\\appdata\\local\\temp\\luarocks_cutorch-scm-1-2243\\cutorch\\\n"
        'lib\\thc\\THCReduce.cuh(324): error: no instance of function template "THCCeilDiv"\n'
        " matches the argument list\n"
        "            argument types are: (ptrdiff_t, long)\n",
    )
    assert "THCCeilDiv" in _finding(doc)["title"] and "(ptrdiff_t, long)" in _finding(doc)["title"]


def test_quiet_twin_an_api_mismatch_is_not_read_as_widths(tmp_path):
    # the same words about an API's argument types (an extension built against another torch's signatures): not widths
    doc = _paste(
        tmp_path,
        'src/nms_cuda.cu(52): error: no instance of overloaded function "at::zeros" matches the argument list\n'
        "            argument types are: (int64_t, c10::ScalarType)\n",
    )
    assert "extension-source-integer-widths" not in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    assert CODE not in [f["code"] for f in doc["findings"]]
