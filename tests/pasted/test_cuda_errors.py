"""CUDA's error numbers and names read from any line (gpudoctor.parsers.cuda_errors): recorded pastes and blind cases,
expectations by hand; each form with the near miss that must not fire (a line number, a port, a DLL's loader code, a
TensorRT status, a name in a line of code, a number the runtime numbered otherwise before CUDA 10.1)."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudoctor.parsers.cuda_errors import TABLE, UNDECIDED, CudaErrorFact, evidence, read
from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.read import Source
from tests.pasted.cli_json import ROOT, asked, blind_case, check

EXAMPLES = ROOT / "tests/pasted/catalogue_examples"


def _read(path) -> list[tuple[str, int | None, str | None]]:
    return [(f.api, f.number, f.name) for f in read(path.read_text(encoding="utf-8"))]


def _kinds(text: str) -> list[tuple[str, str | None, str | None]]:
    return [(e.kind, e.get("number"), e.get("entry")) for e in evidence(read(text))]


def _errors(path) -> list[dict]:
    return read_pasted([Source(str(path), path.read_text(encoding="utf-8"))])["pasted"]["errors"]


def test_the_table_holds_one_error_per_number_and_name():
    numbers = [e.number for e in TABLE]
    names = [n.lower() for e in TABLE for n in (e.runtime, e.driver)]
    assert len(numbers) == len(set(numbers)) and len(names) == len(set(names))
    # the runtime's and the driver's names of the same number (cuda-python's cyruntime / cydriver)
    by_number = {e.number: (e.runtime, e.driver) for e in TABLE}
    assert by_number[35] == ("cudaErrorInsufficientDriver", "CUDA_ERROR_INSUFFICIENT_DRIVER")
    assert by_number[209] == ("cudaErrorNoKernelImageForDevice", "CUDA_ERROR_NO_BINARY_FOR_GPU")
    assert by_number[46] == ("cudaErrorDevicesUnavailable", "CUDA_ERROR_DEVICE_UNAVAILABLE")


def test_each_entry_the_table_names_is_in_the_catalogue():
    from gpudoctor.parsers.catalogue import by_id

    assert all(by_id(e.entry) is not None for e in TABLE if e.entry)


def test_a_bare_number_after_the_check_macros_file_and_line_is_read_and_the_line_number_is_not():
    # tests/blind/plans16/cases/1647-* (Frigate's TensorRT plugin: "line 51: 35") and jkjung-avt/tensorrt_demos#547
    # ("line 51:35", no space): the number after the line's, not 51
    assert _read(blind_case("plans16/cases/1647")) == [("", 35, None)]
    assert _read(EXAMPLES / "tensorrt-demos-547-yolo-layer-cuda-failure-35.txt") == [("", 35, None)]
    assert _kinds("Cuda failure in file 'yolo_layer.cu' line 51: 35") == [("cuda-driver-insufficient", "35", None)]


def test_the_check_macros_35_decides_the_driver_older_than_the_programs_cuda_end_to_end():
    # the catalogue's h231 entry for this one macro is gone: the number alone decides it, through the same finding
    doc = check(EXAMPLES / "tensorrt-demos-547-yolo-layer-cuda-failure-35.txt")
    assert "toolkit-newer-than-driver" in {f["code"] for f in doc["findings"]}


def test_names_and_numbers_as_programs_print_them():
    # checkCudaErrors (tests/blind/plans3/cases/209-*: "code=35(cudaErrorInsufficientDriver)")
    assert ("runtime", 35, "cudaErrorInsufficientDriver") in _read(blind_case("plans3/cases/209"))
    # llama.cpp's "CUDA error 222 at ggml-cuda.cu:..." (tests/blind/plans8/cases/831-*)
    assert ("", 222, None) in _read(blind_case("plans8/cases/831"))
    # PyTorch 0.x's THC: "cuda runtime error (46)" (tests/blind/plans16/cases/1606-*)
    assert ("runtime", 46, None) in _read(blind_case("plans16/cases/1606"))
    # numba's "[100] Call to cuInit results in CUDA_ERROR_NO_DEVICE" (tests/blind/plans10/cases/1025-*)
    assert ("driver", 100, "CUDA_ERROR_NO_DEVICE") in _read(blind_case("plans10/cases/1025"))
    # TensorRT's "CUDA initialization failure with error 2" (tensorrtx#804), the same number in both numberings
    assert _kinds((EXAMPLES / "tensorrtx-804-cuda-initialization-failure-2.txt").read_text(encoding="utf-8")) == [
        ("gpu-memory-exhausted", "2", "cuda-runtime-out-of-memory")
    ]


def test_a_number_read_gives_the_evidence_of_the_catalogue_entry_for_its_words():
    assert _kinds("CUDA error 34 at ggml-cuda.cu:100") == [("cuda-stub-library", "34", "cuda-stub-library")]
    assert _kinds("cuInit failed: CUresult 100") == [("nvml", "100", "cuda-no-device")]
    assert _kinds("RuntimeError: cuda runtime error (46)") == [("cuda-devices-unavailable", "46", "cuda-devices-unavailable")]
    assert _kinds("while (status != cudaErrorSystemNotReady) {") == []  # (a comparison's name is code)
    assert _kinds("cudaGetDeviceCount returned cudaErrorSystemNotReady") == [
        ("cuda-system-not-ready", "802", "cuda-system-not-ready")
    ]
    assert _kinds("mlc: cuModuleLoadData failed with error: CUDA_ERROR_NO_BINARY_FOR_GPU") == [("no-kernel-image", "209", None)]
    assert _kinds("cudaMalloc failed with error code 999") == [(UNDECIDED, "999", None)]
    # 803, read by error_texts by its name and words: the same kind by its number
    assert _kinds("CUDA error 803 at main.cu:12") == [("libcuda-kernel-mismatch", "803", None)]


def test_an_error_that_decides_nothing_alone_heads_a_not_decided_report():
    # tests/blind/plans6/cases/512-*: numba's "[35] Call to cudaRuntimeGetVersion results in cudaErrorUnknown" (numba
    # names an error it has no name for cudaErrorUnknown): name and number disagree, no cause is read from either
    errors = _errors(blind_case("plans6/cases/512"))
    undecided = [e["values"] for e in errors if e["kind"] == UNDECIDED]
    assert undecided == [{"api": "runtime", "name": "cudaErrorUnknown", "number": "35"}]
    doc = check(blind_case("plans6/cases/512"))
    codes = {f["code"] for f in doc["findings"]}
    assert "pasted-error-unexplained" in codes and doc["findings"][0]["title"].startswith("NOT DECIDED")


def test_an_undecided_error_yields_to_a_message_that_reads_the_failure():
    # tests/blind/plans16/cases/1610-*: DALI's "cudaErrorInitializationError (3)", which its catalogue entry reads
    kinds = [e["kind"] for e in _errors(blind_case("plans16/cases/1610"))]
    assert UNDECIDED not in kinds and "dali-cuda-init-failed" in kinds


def test_a_number_the_runtime_numbered_otherwise_before_cuda_10_1_is_not_read_bare():
    # tests/blind/plans10/cases/1028-*: PyTorch 0.x's "cuda runtime error (4) : unspecified launch failure": 4 was the
    # launch failure's number before CUDA 10.1 (now cudaErrorCudartUnloading): the catalogue reads its words instead
    text = blind_case("plans10/cases/1028").read_text(encoding="utf-8")
    assert ("runtime", 4, None) in [(f.api, f.number, f.name) for f in read(text)]
    assert all(e.get("number") != "4" for e in evidence(read(text)))
    assert evidence([CudaErrorFact("runtime", 4, None, "cuda runtime error (4)")]) == []
    assert evidence([CudaErrorFact("runtime", 38, None, "cuda runtime error (38)")]) == []


def test_quiet_twins_that_are_no_cuda_error():
    # a DLL's loader code under a CUDA folder (tests/blind/plans3/cases/210-*: "Error code 127"; plans8/810: 193)
    assert _read(blind_case("plans3/cases/210")) == []
    assert _read(blind_case("plans8/cases/810")) == []
    # TensorRT's own status ("Error Code 1: Serialization", tests/blind/plans7/cases/605-*)
    assert _read(blind_case("plans7/cases/605")) == []
    for line in (
        "listen tcp 0.0.0.0:35: bind: address already in use (error code 35)",
        '  File "/opt/cuda_utils.py", line 35, in <module>',
        "Warning: CUDA 11.8 installed, driver 535",
        "cu_seqlens error code 2",
        "if (err == cudaErrorInsufficientDriver) { retry(); }",
        "    CUDA_ERROR_STUB_LIBRARY = 34,",
        "INFO retrying while cuInit returns CUDA_ERROR_SYSTEM_NOT_READY (fabric manager starting)",
        "Cuda failure in file 'yolo_layer.cu' line 51: 350",
        "CUDA error 12.4 is not supported",
    ):
        assert evidence(read(line)) == [], line


def test_the_asks_of_the_no_device_entry_follow_its_number():
    # numba's "... CUDA_ERROR_NO_DEVICE (100)" (cudf#13388): the no-device entry's asks, by its number and name
    doc = check(EXAMPLES / "cudf-13388-numba-cuinit-no-device.txt")
    assert ["printenv", "CUDA_VISIBLE_DEVICES"] in asked(doc)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.text(max_size=60),
            st.sampled_from(
                [
                    "CUDA error ",
                    "cuda runtime error (",
                    "Cuda failure in file 'a' line 1:",
                    "CUresult ",
                    "code=",
                    "cudaError",
                    "CUDA_ERROR_",
                    "error code ",
                    "cuInit ",
                    "[",
                    "] Call to cuInit results in ",
                    "(",
                    ")",
                    "35",
                    "999",
                    "\n",
                    ":",
                    " ",
                ]
            ),
        ),
        max_size=40,
    ).map("".join)
)
def test_any_text_is_read_without_an_exception(text):
    evidence(read(text))


def test_a_long_line_of_the_forms_words_is_read_in_bounded_time():
    for shape in ("Cuda failure " * 50_000, "cudaErrorX " * 50_000, "CUDA error " * 50_000, ("cu" * 100 + "\n") * 20_000):
        start = time.process_time()
        read(shape)
        assert time.process_time() - start < 5, shape[:20]
