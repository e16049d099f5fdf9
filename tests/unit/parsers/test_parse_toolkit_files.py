"""CUDA version.json / version.txt / cuda.h, nvcc --version and cuDNN headers."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.errors import ParseError
from gpudoctor.parsers.cuda_version_file import parse_cuda_h_version, parse_cuda_version_json, parse_cuda_version_txt
from gpudoctor.parsers.cudnn_header import CudnnVersionMacrosMissing, parse_cudnn_header
from gpudoctor.parsers.nvcc import parse_nvcc_version

FIXTURES = Path(__file__).parents[2] / "fixtures"


def _files(folder: str) -> list[str]:
    return sorted(p.name for p in (FIXTURES / folder).iterdir())


# --- version.json -----------------------------------------------------------------

JSON_EXPECTED = {
    "version.json_cuda-12.8.2_windows-driver-572.61.json": dict(
        version="12.8.2",
        source="cuda",
        cudart="12.8.90",
        nvcc="12.8.93",
        cublas="12.8.5.5",
        driver_name="NVIDIA Windows Driver",
        driver="572.61",
        components=30,
    ),
}


def test_every_version_file_has_expectations() -> None:
    assert set(_files("cuda-version-files")) == set(JSON_EXPECTED)


@pytest.mark.parametrize("name", _files("cuda-version-files"))
def test_version_json_facts(name: str) -> None:
    parsed = parse_cuda_version_json((FIXTURES / "cuda-version-files" / name).read_text(encoding="utf-8"))
    want = JSON_EXPECTED[name]
    assert parsed.version == want["version"] and parsed.source == want["source"]
    assert parsed.components["cuda_cudart"] == want["cudart"]
    assert parsed.components["cuda_nvcc"] == want["nvcc"]
    assert parsed.components["libcublas"] == want["cublas"]
    assert parsed.bundled_driver_name == want["driver_name"]
    assert parsed.bundled_driver_version == want["driver"]
    assert len(parsed.components) == want["components"]


def test_version_json_fallbacks() -> None:
    no_sdk = '{"cuda_cudart": {"name": "CUDA Runtime (cudart)", "version": "12.4.127"}}'
    parsed = parse_cuda_version_json(no_sdk)
    assert (parsed.version, parsed.source, parsed.bundled_driver_version) == ("12.4.127", "cuda_cudart", None)
    only_nvcc = '{"cuda_nvcc": {"name": "CUDA NVCC", "version": "13.0.88"}}'
    assert parse_cuda_version_json(only_nvcc).source == "cuda_nvcc"
    for bad in ("", "[]", "{}", '{"cuda": 12}', '{"libcublas": {"version": "12.8.5.5"}}', "{" * 100000):
        with pytest.raises(ParseError):
            parse_cuda_version_json(bad)


def test_version_txt_and_cuda_h() -> None:
    parsed = parse_cuda_version_txt("CUDA Version 10.2.89\nCUDA Patch Version 10.2.1\nCUDA Patch Version 10.2.2\n")
    assert parsed.version == "10.2.89" and parsed.source == "version.txt"
    assert parsed.patches == ("10.2.1", "10.2.2")
    assert parse_cuda_h_version("#ifndef X\n#define CUDA_VERSION 12040\n") == "12.4"
    assert parse_cuda_h_version("# define CUDA_VERSION 11080 /* 11.8 */\n") == "11.8"
    assert parse_cuda_h_version("#define CUDA_VERSION 10020\n") == "10.2"
    for bad in ("", "CUDA 10.2", "CUDA Version ten\n"):
        with pytest.raises(ParseError):
            parse_cuda_version_txt(bad)
    for bad in ("", "#define CUDA_VERSION_MAJOR 12\n", "#define CUDA_VERSION 12\n"):
        with pytest.raises(ParseError):
            parse_cuda_h_version(bad)


# --- nvcc ---------------------------------------------------------------------------

NVCC_EXPECTED = {
    "nvcc-version_cuda-10.2.89.txt": ("10.2", "10.2.89", None, "Wed_Oct_23_19:24:38_PDT_2019"),
    "nvcc-version_cuda-11.8.89.txt": ("11.8", "11.8.89", "cuda_11.8.r11.8/compiler.31833905_0", "Wed_Sep_21_10:33:58_PDT_2022"),
    "nvcc-version_cuda-12.5.40.txt": ("12.5", "12.5.40", "cuda_12.5.r12.5/compiler.34177558_0", "Wed_Apr_17_19:19:55_PDT_2024"),
    "nvcc-version_cuda-13.0.88_pip-assembled-toolkit.txt": (
        "13.0",
        "13.0.88",
        "cuda_13.0.r13.0/compiler.36424714_0",
        "Wed_Aug_20_01:58:59_PM_PDT_2025",
    ),
}


def test_every_nvcc_fixture_has_expectations() -> None:
    assert set(_files("nvcc")) == set(NVCC_EXPECTED)


@pytest.mark.parametrize("name", _files("nvcc"))
def test_nvcc_facts(name: str) -> None:
    parsed = parse_nvcc_version((FIXTURES / "nvcc" / name).read_text(encoding="utf-8"))
    assert (parsed.release, parsed.version, parsed.build, parsed.built_on) == NVCC_EXPECTED[name]


@pytest.mark.parametrize("text", ["", "nvcc: command not found", "Cuda compilation tools, release 12.5"])
def test_nvcc_garbage(text: str) -> None:
    with pytest.raises(ParseError):
        parse_nvcc_version(text)


# --- cuDNN headers --------------------------------------------------------------------

CUDNN_EXPECTED = {
    "cudnn.h_cudnn-7.2.1_version-block-excerpt.h": "7.2.1",
    "cudnn.h_cudnn-9.24.0_no-version-macros.h": CudnnVersionMacrosMissing,
    "cudnn_version.h_cudnn-8.2.1.h": "8.2.1",
}


def test_every_cudnn_fixture_has_expectations() -> None:
    assert set(_files("cudnn-headers")) == set(CUDNN_EXPECTED)


@pytest.mark.parametrize("name", _files("cudnn-headers"))
def test_cudnn_facts(name: str) -> None:
    # newline="" keeps the CRLF of cudnn_version.h_cudnn-8.2.1.h as committed.
    with open(FIXTURES / "cudnn-headers" / name, encoding="utf-8", newline="") as handle:
        text = handle.read()
    want = CUDNN_EXPECTED[name]
    if isinstance(want, str):
        assert parse_cudnn_header(text) == want
    else:
        with pytest.raises(want) as caught:
            parse_cudnn_header(text)
        assert isinstance(caught.value, ParseError)
        assert "cudnn_version.h" in caught.value.message


def test_crlf_fixture_really_has_crlf() -> None:
    raw = (FIXTURES / "cudnn-headers" / "cudnn_version.h_cudnn-8.2.1.h").read_bytes()
    assert b"#define CUDNN_MAJOR 8\r\n" in raw


def test_cudnn_other_garbage_is_plain_parse_error() -> None:
    with pytest.raises(ParseError) as caught:
        parse_cudnn_header("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n")
    assert not isinstance(caught.value, CudnnVersionMacrosMissing)
    assert parse_cudnn_header("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 10\n#define CUDNN_PATCHLEVEL 0\n") == "9.10.0"
