"""Property tests: any text into any parser gives a result or ParseError, never another exception."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudoctor.errors import ParseError
from gpudoctor.parsers.arch_flags import arch_name, read_refusal
from gpudoctor.parsers.container import parse_docker_info, parse_nvidia_container_cli_info
from gpudoctor.parsers.cuda_version_file import parse_cuda_h_version, parse_cuda_version_json, parse_cuda_version_txt
from gpudoctor.parsers.cudnn_header import parse_cudnn_header
from gpudoctor.parsers.error_texts import classify_error_text, extract_evidence, extract_nvml_library_version
from gpudoctor.parsers.jax_version import parse_dist_metadata, parse_jaxlib_version_py
from gpudoctor.parsers.library_lines import read_library_lines
from gpudoctor.parsers.lspci import parse_lspci
from gpudoctor.parsers.nvcc import parse_nvcc_version
from gpudoctor.parsers.nvidia_smi_csv import parse_nvidia_smi_csv
from gpudoctor.parsers.nvidia_smi_text import parse_nvidia_smi_list, parse_nvidia_smi_table, parse_nvidia_smi_version
from gpudoctor.parsers.nvidia_smi_xml import parse_nvidia_smi_xml
from gpudoctor.parsers.proc_driver_version import parse_proc_driver_version, parse_sys_module_version
from gpudoctor.parsers.tf_build_info import parse_tf_build_info
from gpudoctor.parsers.torch_version import parse_torch_version_py
from gpudoctor.parsers.xmlsafe import parse_xml
from gpudoctor.pasted.printed import printed_versions
from gpudoctor.versions import at_least, major_minor, vkey

FIXTURES = Path(__file__).parents[2] / "fixtures"

# Every public parse function, with the fixture folder whose files are its real input.
PARSERS: dict[str, tuple[Callable[[str], object], str]] = {
    "nvidia_smi_xml": (parse_nvidia_smi_xml, "nvidia-smi-xml"),
    "xml": (parse_xml, "nvidia-smi-xml"),
    "nvidia_smi_table": (parse_nvidia_smi_table, "nvidia-smi-text"),
    "nvidia_smi_version": (parse_nvidia_smi_version, "nvidia-smi-text"),
    "nvidia_smi_list": (parse_nvidia_smi_list, "nvidia-smi-text"),
    "nvidia_smi_csv": (parse_nvidia_smi_csv, "nvidia-smi-csv"),
    "proc_driver_version": (parse_proc_driver_version, "proc-driver-version"),
    "sys_module_version": (parse_sys_module_version, "proc-driver-version"),
    "cuda_version_json": (parse_cuda_version_json, "cuda-version-files"),
    "cuda_version_txt": (parse_cuda_version_txt, "nvcc"),
    "cuda_h_version": (parse_cuda_h_version, "cudnn-headers"),
    "nvcc_version": (parse_nvcc_version, "nvcc"),
    "cudnn_header": (parse_cudnn_header, "cudnn-headers"),
    "lspci": (parse_lspci, "lspci"),
    "torch_version_py": (parse_torch_version_py, "torch-version"),
    "tf_build_info": (parse_tf_build_info, "tf-build-info"),
    "jaxlib_version_py": (parse_jaxlib_version_py, "jax-version"),
    "dist_metadata": (parse_dist_metadata, "jax-version"),
    "docker_info": (parse_docker_info, "docker-info"),
    "nvidia_container_cli_info": (parse_nvidia_container_cli_info, "docker-info"),
}

SETTINGS = settings(
    max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _texts(folder: str) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted((FIXTURES / folder).iterdir())]


def _parse_or_parse_error(parser: Callable[[str], object], text: str) -> None:
    with contextlib.suppress(ParseError):
        parser(text)


# Any character, lone surrogates and controls included.
ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=()), max_size=400)
# Bytes decoded the ways a caller might decode captured output.
DECODED_BYTES = st.tuples(st.binary(max_size=400), st.sampled_from(["replace", "surrogateescape", "latin-1"])).map(
    lambda pair: pair[0].decode("latin-1") if pair[1] == "latin-1" else pair[0].decode("utf-8", errors=pair[1])
)
# Text that shares the vocabulary of the real formats, to get past the first checks.
TOKENS = st.sampled_from(
    [
        "<nvidia_smi_log>",
        "</nvidia_smi_log>",
        '<gpu id="0">',
        "</gpu>",
        "<fb_memory_usage>",
        "<total>",
        "</total>",
        "N/A",
        "[N/A]",
        "MiB",
        " ",
        "\n",
        "|",
        "+---+",
        "|===|",
        "NVIDIA-SMI 535.104.05",
        "Driver Version: 535.104.05",
        "CUDA Version: 12.2",
        "Processes:",
        "MIG devices:",
        "Bus-Id",
        "  0  NVIDIA A100 On |",
        "00000000:01:00.0",
        "NVRM version:",
        "NVIDIA UNIX Open Kernel Module for aarch64  35.3.1  Release Build",
        "GCC version:",
        "release 12.5, V12.5.40",
        "#define CUDNN_MAJOR 8",
        "#define CUDA_VERSION 12040",
        "{",
        "}",
        '"cuda":',
        '"version": "12.4"',
        "__version__ = '2.2.1'",
        "build_info = collections.OrderedDict([",
        "('a', 1)",
        "])",
        "01:00.0 VGA compatible controller [0300]: ",
        "[10de:2206]",
        "(rev a1)",
        "\tKernel driver in use: nvidia",
        "Name: x",
        "Version: 1",
        "Requires-Dist: a",
        " Runtimes: nvidia runc",
        "Device Index: 0",
        "(null)",
        "GPU 0: NVIDIA A30 (UUID: GPU-1)",
        "  MIG 1g.6gb Device 0: (UUID: MIG-1)",
        "memory.total [MiB]",
        ", ",
        "Failed to initialize NVML: Driver/library version mismatch",
        "\r\n",
        "\x00",
        "\udc80",
        "9" * 5000,
    ]
)
TOKEN_SOUP = st.lists(TOKENS, max_size=60).map("".join)


@pytest.mark.parametrize("name", sorted(PARSERS))
@SETTINGS
@given(text=st.one_of(ANY_TEXT, DECODED_BYTES, TOKEN_SOUP))
def test_random_text_gives_result_or_parse_error(name: str, text: str) -> None:
    _parse_or_parse_error(PARSERS[name][0], text)


@pytest.mark.parametrize("name", sorted(PARSERS))
@SETTINGS
@given(data=st.data())
def test_mangled_real_captures(name: str, data: st.DataObject) -> None:
    parser, folder = PARSERS[name]
    texts = _texts(folder)
    text = data.draw(st.sampled_from(texts))
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    insert = data.draw(st.one_of(ANY_TEXT, TOKEN_SOUP))
    mangled = data.draw(
        st.sampled_from(
            [
                text[:end],  # truncated
                text[start:end],  # a slice
                text[:start] + insert + text[end:],  # a piece replaced
                text[:start] + text[end:] * 2,  # a piece dropped, the tail repeated
            ]
        )
    )
    _parse_or_parse_error(parser, mangled)


XML_TEXTS = _texts("nvidia-smi-xml")


@SETTINGS
@given(index=st.integers(0, len(XML_TEXTS) - 1), fraction=st.floats(0, 1))
def test_truncated_real_xml(index: int, fraction: float) -> None:
    text = XML_TEXTS[index]
    cut = int(len(text) * fraction)
    _parse_or_parse_error(parse_nvidia_smi_xml, text[:cut])


@SETTINGS
@given(text=st.one_of(ANY_TEXT, DECODED_BYTES, TOKEN_SOUP))
def test_error_classifier_never_raises(text: str) -> None:
    code = classify_error_text(text)
    assert code is None or isinstance(code, str)
    version = extract_nvml_library_version(text)
    assert version is None or isinstance(version, str)


@SETTINGS
@given(text=st.one_of(ANY_TEXT, DECODED_BYTES, TOKEN_SOUP))
def test_library_line_reader_never_raises(text: str) -> None:
    # (gpudoctor.parsers.library_lines: every fact typed, whatever the text; tests/hostile/test_library_lines_fuzz.py
    # joins its own forms at random and times its longest lines)
    for fact in read_library_lines(text):
        assert fact.side in ("link", "load") and fact.image in ("elf", "dll") and isinstance(fact.stub, bool)


@SETTINGS
@given(text=st.one_of(ANY_TEXT, TOKEN_SOUP), fields=st.lists(st.text(max_size=20), max_size=5))
def test_csv_with_field_list(text: str, fields: list[str]) -> None:
    _parse_or_parse_error(lambda t: parse_nvidia_smi_csv(t, fields=fields), text)


@SETTINGS
@given(
    raw=st.one_of(st.none(), ANY_TEXT, st.from_regex(r"\d{1,6}(\.\d{1,6}){0,3}", fullmatch=True)),
    minimum=st.sampled_from(["535", "12.4", "525.60.13"]),
)
def test_version_helpers_never_raise(raw: str | None, minimum: str) -> None:
    vkey(raw)
    major_minor(raw)
    assert at_least(raw, minimum) in (True, False, None)


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_non_text_input_is_parse_error(name: str) -> None:
    parser = PARSERS[name][0]
    for value in (None, b"<nvidia_smi_log/>", 42):
        with pytest.raises(ParseError):
            parser(value)  # type: ignore[arg-type]


# The readers of pasted text (no ParseError contract: any text reads, what is not theirs gives nothing): the error
# texts' evidence, the stated floors among it, and the versions programs print they loaded (gpudoctor.pasted.printed).
READERS: dict[str, Callable[[str], object]] = {
    "error_evidence": extract_evidence,
    "printed_versions": lambda text: printed_versions(text.splitlines()),
}
READER_TEXTS = _texts("errors") + [
    "W1110 17:34:13.224603  3418 gpu_resources.cc:149] device: 0, cuDNN Version: 5.1.\n"
    "Loaded cuDNN version 8100\nDriver Not Supported: your driver is older than 535\n"
    "RuntimeError: CUDA green contexts require driver version >= 12.0, got 11.4\n"
]


@pytest.mark.parametrize("name", sorted(READERS))
@SETTINGS
@given(data=st.data())
def test_pasted_readers_survive_random_and_mangled_text(name: str, data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(READER_TEXTS))
    start = data.draw(st.integers(0, len(text)))
    insert = data.draw(st.one_of(ANY_TEXT, DECODED_BYTES, TOKEN_SOUP))
    READERS[name](data.draw(st.sampled_from([insert, text[:start] + insert + text[start:], text[start:] * 3])))


@SETTINGS
@given(
    text=st.one_of(ANY_TEXT, TOKEN_SOUP, st.from_regex(r"(nvcc|ptxas) fatal ?: (Unsupported gpu architecture|Value) '\w{0,24}'"))
)
def test_arch_readers_never_raise(text: str) -> None:
    # parsers.arch_flags: a refusal is typed or None, and an architecture read from it always has its program
    refusal = read_refusal(text)
    assert refusal is None or (refusal.by in ("nvcc", "ptxas") and refusal.arch.cc)
    name = arch_name(text)
    assert name is None or name.amd or name.cc
