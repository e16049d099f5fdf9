"""CUDA's error numbers and names (cudaError_t, CUresult), and a reader of them from any line a program printed.

One table: each error that decides something, by its number, its runtime name (cudaError_t, driver_types.h), its driver
name (CUresult, cuda.h) and the string cudaGetErrorString / cuGetErrorString give. Numbers and names: NVIDIA/cuda-python
cuda_bindings/cuda/bindings/cyruntime.pxd.in @06fb29fe (CUDA 12.8's driver_types.h) and cydriver.pxd.in @07a64885
(CUDA 13.0's cuda.h), the files catalogue.toml's CUDA entries cite. The runtime and the driver share every number
here (CUDA 10.1 renumbered the runtime's enum to the driver's); where their names differ both are kept (2:
cudaErrorMemoryAllocation / CUDA_ERROR_OUT_OF_MEMORY, 209: cudaErrorNoKernelImageForDevice / CUDA_ERROR_NO_BINARY_FOR_GPU).
Strings: the closed runtime and driver print them; each is the text catalogue.toml's entry for it reads (from the
threads it cites), "" where none is quoted.

Before CUDA 10.1 the runtime numbered its errors otherwise (driver_types.h of CUDA 3.2 to 10.0: 4 cudaErrorLaunchFailure,
30 cudaErrorUnknown, 34 cudaErrorNotReady, 38 cudaErrorNoDevice, 48 cudaErrorNoKernelImageForDevice): a bare number
is read only where it means the same in both numberings or exists in the new one only (2, 3, 35 and 46 are the same in
both; 100, 209, 222, 8xx and 999 are new). 34 is read as the stub library: the old cudaErrorNotReady is a query's
"not yet", which no check fails on. A program's old-numbered 4, 30, 38 or 48 is read by its string (catalogue.toml).

`read` finds the errors in a text: by name (cudaErrorX, CUDA_ERROR_X, not in a line of code that compares or defines
one), or by number where the line says it is CUDA's ("CUDA error 35", "cuda runtime error (46)", "Cuda failure in
file 'x.cu' line 51: 35", "CUresult 100", "cudaError_t 2", "error code 999" beside a CUDA call, TensorRT's "CUDA
initialization failure with error: 35"). `evidence` turns each into the evidence the catalogue's entry for the same
error gives (one decision per error: the checks read it as they read the string), or, for an error whose number does
not decide a cause (999 unknown, 719 launch failure, 3 initialization error) or whose name and number disagree, a
cuda-error-number the report leaves NOT DECIDED with its asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor.lazypattern import LazyPattern as _Lazy

# typing's constant without typing (`bench bandwidth` reads the table's numbers: error_texts stays unimported there)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gpudoctor.parsers.error_texts import ErrorEvidence


@dataclass(frozen=True)
class CudaError:
    number: int
    runtime: str  # cudaError_t's name
    driver: str  # CUresult's name
    string: str  # what cudaGetErrorString / cuGetErrorString print ("" where no source quotes it)
    entry: str = ""  # the catalogue.toml message that reads the same error by its string: its meaning and asks
    kind: str = ""  # or the extractor's kind (gpudoctor.parsers.error_texts) that reads it; neither: decides nothing


# (entry or kind: where a message reads the error's string, its number is the same evidence)
TABLE: tuple[CudaError, ...] = (
    CudaError(2, "cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY", "out of memory", entry="cuda-runtime-out-of-memory"),
    CudaError(3, "cudaErrorInitializationError", "CUDA_ERROR_NOT_INITIALIZED", "initialization error"),
    CudaError(34, "cudaErrorStubLibrary", "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library", entry="cuda-stub-library"),
    CudaError(
        35,
        "cudaErrorInsufficientDriver",
        "CUDA_ERROR_INSUFFICIENT_DRIVER",
        "CUDA driver version is insufficient for CUDA runtime version",
        kind="cuda-driver-insufficient",
    ),
    CudaError(
        36,
        "cudaErrorCallRequiresNewerDriver",
        "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
        "API call is not supported in the installed CUDA driver",
        entry="cuda-call-requires-newer-driver",
    ),
    CudaError(
        46,
        "cudaErrorDevicesUnavailable",
        "CUDA_ERROR_DEVICE_UNAVAILABLE",
        "CUDA-capable device(s) is/are busy or unavailable",
        entry="cuda-devices-unavailable",
    ),
    CudaError(100, "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected", entry="cuda-no-device"),
    CudaError(
        101, "cudaErrorInvalidDevice", "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal", entry="cuda-invalid-device-ordinal"
    ),
    CudaError(
        209,
        "cudaErrorNoKernelImageForDevice",
        "CUDA_ERROR_NO_BINARY_FOR_GPU",
        "no kernel image is available for execution on the device",
        kind="no-kernel-image",
    ),
    CudaError(
        221,
        "cudaErrorJitCompilerNotFound",
        "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
        "PTX JIT compiler library not found",
        entry="cuda-jit-compiler-not-found",
    ),
    CudaError(
        222,
        "cudaErrorUnsupportedPtxVersion",
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        "the provided PTX was compiled with an unsupported toolchain.",
        entry="cuda-unsupported-ptx-version",
    ),
    CudaError(
        304,
        "cudaErrorOperatingSystem",
        "CUDA_ERROR_OPERATING_SYSTEM",
        "OS call failed or operation not supported on this OS",
        entry="cuda-operating-system",
    ),
    CudaError(719, "cudaErrorLaunchFailure", "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"),
    CudaError(
        802, "cudaErrorSystemNotReady", "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized", entry="cuda-system-not-ready"
    ),
    CudaError(
        803,
        "cudaErrorSystemDriverMismatch",
        "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        "system has unsupported display driver / cuda driver combination",
        kind="libcuda-kernel-mismatch",
    ),
    CudaError(
        804,
        "cudaErrorCompatNotSupportedOnDevice",
        "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
        "forward compatibility was attempted on non supported HW",
        entry="cuda-compat-not-supported-on-device",
    ),
    CudaError(999, "cudaErrorUnknown", "CUDA_ERROR_UNKNOWN", "unknown error"),
)

_BY_NUMBER = {e.number: e for e in TABLE}
_BY_NAME = {name.lower(): e for e in TABLE for name in (e.runtime, e.driver)}


def driver_number(name: str) -> int:
    """The number of the CUresult `name` (a name the table lacks is a bug in the caller: ValueError)."""
    (number,) = (e.number for e in TABLE if e.driver == name)
    return number


# The kind of an error read by its number or name that decides no cause alone: named in the report, NOT DECIDED.
UNDECIDED = "cuda-error-number"


@dataclass(frozen=True)
class CudaErrorFact:
    """One CUDA error a line shows: which API's (runtime, driver, or "" where the line does not say), its number and
    name as printed (None where not), and the line."""

    api: str
    number: int | None
    name: str | None
    line: str

    def error(self) -> CudaError | None:
        """The table's error this is, where it names one: a name and a number that disagree name none."""
        by_name = _BY_NAME.get(self.name.lower()) if self.name else None
        by_number = _BY_NUMBER.get(self.number) if self.number is not None else None
        if self.name and self.number is not None:
            return by_name if by_name is not None and by_name is by_number else None
        return by_name or by_number


_NAME = r"(?P<name>cudaError[A-Z][A-Za-z]{1,60}|CUDA_ERROR_[A-Z][A-Z0-9_]{1,60})"
# A name with its number: checkCudaErrors' "code=35(cudaErrorInsufficientDriver)", numba's "[100] Call to cuInit
# results in CUDA_ERROR_NO_DEVICE", and "CUDA_ERROR_NO_DEVICE (100)".
_NAMED = _Lazy(
    r"(?:\bcode=(?P<before>\d{1,4})\(|\[(?P<numba>-?\d{1,4})\] Call to \w{1,80} results in )?\b"
    + _NAME
    + r"\b(?:\s?[(\[](?P<after>\d{1,4})[)\]])?"
)
# A name in a line of code (compared, a case label, an enumerator or #define), or in a log line of a program that
# retries or waits on it (a fabric manager still starting): no error the program stopped on (catalogue.toml's CUDA
# family reads no name alone for the same reason; tests/pasted/test_catalogue_cuda_errors.py holds the near misses).
_CODE = _Lazy(
    r"==|!=|\bcase\s|#\s?define\b|\b(?:cudaError[A-Z]\w*|CUDA_ERROR_\w+)\s*=\s*\d|(?i:\bretr(?:y|ying|ies)\b|\bwaiting\b)"
)
# A number the line says is CUDA's, with the API where the words say it.
_NUMBERED = _Lazy(
    r"(?i:\bcuda[ _](?P<rt>runtime[ _])?(?:api[ _])?error(?:[ _]code)?:?\s?\(?(?P<n1>\d{1,4})\)?(?![\d.]))"
    r"|(?i:\bcuda failure\b(?:[^\n]{0,300}?\bline \d{1,6})?:\s?(?P<n2>\d{1,4})\b)"
    r"|(?i:\bcuda initiali[sz]ation failure with error:?\s?(?P<n3>\d{1,4})\b)"
    r"|\bCUresult\b[ :=(]{0,3}(?P<drv>\d{1,4})\b"
    r"|\bcudaError_t\b[ :=(]{0,3}(?P<rtn>\d{1,4})\b"
)
# "error code 999" is CUDA's only beside a CUDA call or the word CUDA (not inside a path, where a DLL's loader error
# code follows a CUDA folder: "...\CUDA\v11.6\bin\cudnn64_8.dll ... error code 126").
_ERROR_CODE = _Lazy(r"(?i:\berror[ _]code\b[ :=]{0,3}(?P<n>\d{1,4})\b)")
_CUDA_WORD = _Lazy(r"(?<![\\/\w])(?:(?i:cuda)(?![\\/\w])|cu[A-Z][a-z]\w{1,40}\b|cuda[A-Z]\w{1,40}\b)")
_LOADER = _Lazy(r"(?i:\.dll\b|LoadLibrary|cannot open shared object)")
_MAX_LINES = 200_000


def read(text: str) -> list[CudaErrorFact]:
    """The CUDA errors `text` shows, each once per (api, number, name), in order. Never raises on content."""
    if not isinstance(text, str):
        return []
    out: dict[tuple[str, int | None, str | None], CudaErrorFact] = {}
    for line in text.splitlines()[:_MAX_LINES]:
        # (a plain-text prefilter: every form holds "cu" in some case, most lines of a log do not)
        if "cu" not in line.lower():
            continue
        line = line[:2_000]
        for fact in _line_facts(line):
            out.setdefault((fact.api, fact.number, fact.name), fact)
    return list(out.values())


def _line_facts(line: str) -> list[CudaErrorFact]:
    found: list[CudaErrorFact] = []
    stripped = line.strip()[:300]
    code = _CODE.search(line) is not None
    named_spans = []
    for m in _NAMED.finditer(line):
        if code:
            break
        number = m.group("before") or m.group("numba") or m.group("after")
        name = m.group("name")
        api = "runtime" if name.startswith("cudaError") else "driver"
        found.append(CudaErrorFact(api, int(number) if number else None, name, stripped))
        named_spans.append(m.span())
    for m in _NUMBERED.finditer(line):
        if any(s <= m.start() < e for s, e in named_spans):
            continue
        if m.group("drv"):
            found.append(CudaErrorFact("driver", int(m.group("drv")), None, stripped))
        elif m.group("rtn"):
            found.append(CudaErrorFact("runtime", int(m.group("rtn")), None, stripped))
        else:
            n = m.group("n1") or m.group("n2") or m.group("n3")
            found.append(CudaErrorFact("runtime" if m.group("rt") else "", int(n), None, stripped))
    if not found and _CUDA_WORD.search(line) and not _LOADER.search(line):
        for m in _ERROR_CODE.finditer(line):
            found.append(CudaErrorFact("", int(m.group("n")), None, stripped))
    # (a name with its number beside it is one error: the number alone read again is not another)
    numbers = {f.number for f in found if f.name}
    return [f for f in found if f.name or f.number not in numbers]


def evidence(facts: list[CudaErrorFact]) -> list[ErrorEvidence]:
    """Each fact as the evidence its error's catalogue entry (or extractor) gives, its api, number and name beside;
    an error the table holds without a decision, or whose name and number disagree, as UNDECIDED; an error the table
    does not hold (its name or number read, nothing known of it) as nothing."""
    from gpudoctor.parsers.catalogue import by_id
    from gpudoctor.parsers.error_texts import ErrorEvidence

    out: list[ErrorEvidence] = []
    for fact in facts:
        error = fact.error()
        conflict = fact.name is not None and fact.number is not None and error is None and _known(fact)
        if error is None and not conflict:
            continue
        values = {"api": fact.api, "number": "" if fact.number is None else str(fact.number), "name": fact.name or ""}
        if error is not None:
            values["name"] = values["name"] or (error.driver if fact.api == "driver" else error.runtime)
            values["number"] = str(error.number)
        values = {k: v for k, v in values.items() if v}
        entry = by_id(error.entry) if error is not None and error.entry else None
        if entry is not None:
            values["entry"] = entry.id
            if entry.evidence == "nvml":  # NVML's and the runtime's failures share the kind: the code says which
                values["code"] = "cuda-no-device"
            out.append(ErrorEvidence(entry.evidence, fact.line, tuple(sorted(values.items()))))
        elif error is not None and error.kind:
            out.append(ErrorEvidence(error.kind, fact.line, tuple(sorted(values.items()))))
        else:
            out.append(ErrorEvidence(UNDECIDED, fact.line, tuple(sorted(values.items()))))
    return out


def _known(fact: CudaErrorFact) -> bool:
    """Whether the table holds the fact's name or its number (a disagreement between two unknowns says nothing)."""
    return (fact.name or "").lower() in _BY_NAME or fact.number in _BY_NUMBER
