"""A ctypes binding to the CUDA driver API (libcuda.so.1), just wide enough for copy benchmarks.

Why the driver API through ctypes: every NVIDIA driver installs libcuda.so.1, so the benchmark
needs neither the CUDA toolkit (no nvcc, no libcudart) nor a framework (no torch, no cupy). It
measures the machine as the driver sees it, which is what a doctor needs on a machine whose
toolkit or framework may be the very thing that is broken.

ABI rules, taken from cuda.h (CUDA 13.0), that every signature below follows:
- `CUdeviceptr` is an unsigned 64-bit integer (`c_uint64`), not a pointer; sizes are `size_t`;
  handles (`CUcontext`, `CUstream`, `CUevent`) are opaque pointers; `CUdevice` is an int.
- The public names are macros for versioned entry points (`#define cuMemAlloc cuMemAlloc_v2`).
  The unversioned symbols are still exported with their old ABI (32-bit device pointers and
  sizes), so we look up the versioned name. Where the version came late (cuEventElapsedTime_v2 in
  CUDA 12.8, cuDevicePrimaryCtxRelease_v2 in 11.0) a driver older than the header lacks it, and
  the older symbol, of identical signature, is the fallback.
- We use the device's primary context (retain/release), the one the runtime and frameworks
  share, instead of creating a private one.

Every buffer, stream, event, context and peer mapping is handed out by a context manager, so it
is released on every path, errors and Ctrl-C included. Nothing is loaded at import time.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Iterator
from ctypes import POINTER, c_char_p, c_float, c_int, c_size_t, c_ubyte, c_uint, c_uint64, c_void_p
from typing import Any, cast

from gpudoctor.errors import GpudoctorError
from gpudoctor.parsers.cuda_errors import driver_number

CUresult = c_int
CUdevice = c_int
CUdeviceptr = c_uint64
CUcontext = c_void_p
CUstream = c_void_p
CUevent = c_void_p

# Where libcuda.so.1 lives: the loader's search path first (what every driver package installs),
# then WSL's directory, which is not always on it.
LIBRARY_CANDIDATES: tuple[str, ...] = ("libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1")

# CUresult values gpudoctor reacts to by name (cuda.h, enum cudaError_enum): those a paste's error decides something
# by are gpudoctor.parsers.cuda_errors' table, the one place their numbers are written; the one only this
# measurement meets (a peer mapping made twice) is its own.
CUDA_SUCCESS = 0
CUDA_ERROR_OUT_OF_MEMORY = driver_number("CUDA_ERROR_OUT_OF_MEMORY")
CUDA_ERROR_NOT_INITIALIZED = driver_number("CUDA_ERROR_NOT_INITIALIZED")
CUDA_ERROR_STUB_LIBRARY = driver_number("CUDA_ERROR_STUB_LIBRARY")
CUDA_ERROR_INSUFFICIENT_DRIVER = driver_number("CUDA_ERROR_INSUFFICIENT_DRIVER")
CUDA_ERROR_DEVICE_UNAVAILABLE = driver_number("CUDA_ERROR_DEVICE_UNAVAILABLE")
CUDA_ERROR_NO_DEVICE = driver_number("CUDA_ERROR_NO_DEVICE")
CUDA_ERROR_OPERATING_SYSTEM = driver_number("CUDA_ERROR_OPERATING_SYSTEM")
CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704
CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = driver_number("CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")
CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = driver_number("CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE")

CU_STREAM_NON_BLOCKING = 0x1  # our streams must not synchronise with the legacy default stream
CU_EVENT_DEFAULT = 0x0  # timing enabled (CU_EVENT_DISABLE_TIMING would make ElapsedTime fail)

# public name -> (symbols to try in order, argtypes). Every function returns CUresult.
SIGNATURES: dict[str, tuple[tuple[str, ...], tuple[Any, ...]]] = {
    "cuInit": (("cuInit",), (c_uint,)),
    "cuDriverGetVersion": (("cuDriverGetVersion",), (POINTER(c_int),)),
    "cuGetErrorName": (("cuGetErrorName",), (CUresult, POINTER(c_char_p))),
    "cuGetErrorString": (("cuGetErrorString",), (CUresult, POINTER(c_char_p))),
    "cuDeviceGetCount": (("cuDeviceGetCount",), (POINTER(c_int),)),
    "cuDeviceGet": (("cuDeviceGet",), (POINTER(CUdevice), c_int)),
    "cuDeviceGetName": (("cuDeviceGetName",), (c_char_p, c_int, CUdevice)),
    "cuDeviceGetPCIBusId": (("cuDeviceGetPCIBusId",), (c_char_p, c_int, CUdevice)),
    "cuDeviceTotalMem": (("cuDeviceTotalMem_v2",), (POINTER(c_size_t), CUdevice)),
    "cuDeviceCanAccessPeer": (("cuDeviceCanAccessPeer",), (POINTER(c_int), CUdevice, CUdevice)),
    "cuDevicePrimaryCtxRetain": (("cuDevicePrimaryCtxRetain",), (POINTER(CUcontext), CUdevice)),
    "cuDevicePrimaryCtxRelease": (("cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"), (CUdevice,)),
    "cuCtxPushCurrent": (("cuCtxPushCurrent_v2",), (CUcontext,)),
    "cuCtxPopCurrent": (("cuCtxPopCurrent_v2",), (POINTER(CUcontext),)),
    "cuCtxSynchronize": (("cuCtxSynchronize",), ()),
    "cuCtxEnablePeerAccess": (("cuCtxEnablePeerAccess",), (CUcontext, c_uint)),
    "cuCtxDisablePeerAccess": (("cuCtxDisablePeerAccess",), (CUcontext,)),
    "cuMemGetInfo": (("cuMemGetInfo_v2",), (POINTER(c_size_t), POINTER(c_size_t))),
    "cuMemAlloc": (("cuMemAlloc_v2",), (POINTER(CUdeviceptr), c_size_t)),
    "cuMemFree": (("cuMemFree_v2",), (CUdeviceptr,)),
    "cuMemHostAlloc": (("cuMemHostAlloc",), (POINTER(c_void_p), c_size_t, c_uint)),
    "cuMemFreeHost": (("cuMemFreeHost",), (c_void_p,)),
    "cuMemsetD8": (("cuMemsetD8_v2",), (CUdeviceptr, c_ubyte, c_size_t)),
    "cuMemcpyHtoD": (("cuMemcpyHtoD_v2",), (CUdeviceptr, c_void_p, c_size_t)),
    "cuMemcpyDtoH": (("cuMemcpyDtoH_v2",), (c_void_p, CUdeviceptr, c_size_t)),
    "cuMemcpyHtoDAsync": (("cuMemcpyHtoDAsync_v2",), (CUdeviceptr, c_void_p, c_size_t, CUstream)),
    "cuMemcpyDtoHAsync": (("cuMemcpyDtoHAsync_v2",), (c_void_p, CUdeviceptr, c_size_t, CUstream)),
    "cuMemcpyDtoDAsync": (("cuMemcpyDtoDAsync_v2",), (CUdeviceptr, CUdeviceptr, c_size_t, CUstream)),
    "cuMemcpyPeerAsync": (
        ("cuMemcpyPeerAsync",),
        (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, c_size_t, CUstream),
    ),
    "cuStreamCreate": (("cuStreamCreate",), (POINTER(CUstream), c_uint)),
    "cuStreamDestroy": (("cuStreamDestroy_v2",), (CUstream,)),
    "cuStreamSynchronize": (("cuStreamSynchronize",), (CUstream,)),
    "cuStreamWaitEvent": (("cuStreamWaitEvent",), (CUstream, CUevent, c_uint)),
    "cuEventCreate": (("cuEventCreate",), (POINTER(CUevent), c_uint)),
    "cuEventRecord": (("cuEventRecord",), (CUevent, CUstream)),
    "cuEventSynchronize": (("cuEventSynchronize",), (CUevent,)),
    "cuEventElapsedTime": (("cuEventElapsedTime_v2", "cuEventElapsedTime"), (POINTER(c_float), CUevent, CUevent)),
    "cuEventDestroy": (("cuEventDestroy_v2",), (CUevent,)),
}


class CudaError(Exception):
    """A driver call that returned something other than CUDA_SUCCESS."""

    def __init__(self, code: int, name: str, call: str, text: str | None = None) -> None:
        self.code = code
        self.name = name
        self.call = call
        self.text = text
        super().__init__(f"{call} failed: {name} ({code})" + (f": {text}" if text else ""))


class DriverUnavailable(GpudoctorError):
    """No usable CUDA driver: the library is missing, is a stub, or cuInit refused.

    `reason` is one word for scripts: library-missing, symbol-missing, stub-library, no-device,
    insufficient-driver, driver-mismatch, device-unavailable, init-failed.
    """

    def __init__(self, reason: str, message: str, hint: str | None = None) -> None:
        super().__init__(message, hint)
        self.reason = reason
        self.attempts: list[str] = []  # what the loader said of each candidate


# What cuInit's failure means for the user: (reason, one sentence saying what is wrong and what to do, hint).
_INIT_FAILURES: dict[int, tuple[str, str, str]] = {
    CUDA_ERROR_NO_DEVICE: (
        "no-device",
        "The NVIDIA driver sees no GPU (cuInit: CUDA_ERROR_NO_DEVICE); check CUDA_VISIBLE_DEVICES and, in a container, "
        "give it a GPU with --gpus all.",
        "an empty or wrong CUDA_VISIBLE_DEVICES hides every GPU; on a MIG GPU name a MIG device in it; `nvidia-smi -L` lists them",
    ),
    CUDA_ERROR_STUB_LIBRARY: (
        "stub-library",
        "The libcuda.so.1 that was loaded is the CUDA toolkit's stub, not the driver (cuInit: CUDA_ERROR_STUB_LIBRARY); "
        "remove .../lib64/stubs from LD_LIBRARY_PATH.",
        "install the NVIDIA driver if it is missing; `gpudoctor check` shows which libcuda is found",
    ),
    CUDA_ERROR_INSUFFICIENT_DRIVER: (
        "insufficient-driver",
        "The NVIDIA driver is older than its CUDA library expects (cuInit: CUDA_ERROR_INSUFFICIENT_DRIVER); reboot after "
        "the driver upgrade or reinstall the driver.",
        "`gpudoctor check` compares the kernel module with the user-space driver",
    ),
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: (
        "driver-mismatch",
        "The CUDA driver library does not match the loaded kernel module (cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH); "
        "reboot after the driver upgrade or reload the nvidia module.",
        "a cuda-compat directory on LD_LIBRARY_PATH causes it too",
    ),
    CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: (
        "driver-mismatch",
        "The CUDA forward-compatibility library in use does not support this GPU (cuInit: "
        "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE); remove cuda-compat from LD_LIBRARY_PATH.",
        "forward compatibility works only on data-centre GPUs",
    ),
    CUDA_ERROR_DEVICE_UNAVAILABLE: (
        "device-unavailable",
        "Every GPU is busy or closed to new contexts (cuInit: CUDA_ERROR_DEVICE_UNAVAILABLE); wait for the process that "
        "holds it, or set the compute mode to Default.",
        "`nvidia-smi -q -d COMPUTE` shows the compute mode; `nvidia-smi` the processes",
    ),
    CUDA_ERROR_OPERATING_SYSTEM: (
        "init-failed",
        "The operating system refused to open the GPU (cuInit: CUDA_ERROR_OPERATING_SYSTEM); check that /dev/nvidia* "
        "exist and that this user may open them.",
        "`dmesg` shows NVRM errors; `gpudoctor check` checks the device nodes",
    ),
}


def _handle(ptr: c_void_p) -> int:
    """The handle a successful create or retain call wrote: never NULL, which ctypes would read as None."""
    return cast(int, ptr.value)


def resolve_symbols(
    lib: Any, signatures: dict[str, tuple[tuple[str, ...], tuple[Any, ...]]] = SIGNATURES
) -> tuple[dict[str, Any], dict[str, str]]:
    """Look up every function, set its argtypes and restype; return (functions, public name -> symbol used).

    Raises DriverUnavailable naming the first function the library lacks.
    """
    functions: dict[str, Any] = {}
    chosen: dict[str, str] = {}
    for public, (symbols, argtypes) in signatures.items():
        for symbol in symbols:
            try:
                fn = getattr(lib, symbol)
            except AttributeError:
                continue
            fn.argtypes = list(argtypes)
            fn.restype = CUresult
            functions[public] = fn
            chosen[public] = symbol
            break
        else:
            raise DriverUnavailable(
                "symbol-missing",
                f"The CUDA driver library lacks {' and '.join(symbols)}; this driver is too old for the benchmark.",
                "install a current NVIDIA driver",
            )
    return functions, chosen


_load_lock = threading.Lock()


def load_library(candidates: tuple[str, ...] | None = None) -> tuple[Any, str]:
    """dlopen the first candidate that loads; DriverUnavailable when none does."""
    from gpudoctor.trust import library_for_root, running_as_root

    names = LIBRARY_CANDIDATES if candidates is None else candidates
    errors = []
    with _load_lock:
        for name in names:
            if running_as_root() and "/" not in name:
                # As root, never from a directory a user can change (gpudoctor.trust.library_for_root).
                found = library_for_root(name)
                if found is None:
                    errors.append(f"{name}: not in any directory only root can change")
                    continue
                name = found
            try:
                return ctypes.CDLL(name), name
            except OSError as exc:
                errors.append(f"{name}: {exc}")
    missing = DriverUnavailable(
        "library-missing",
        "No NVIDIA driver: libcuda.so.1 could not be loaded; install the NVIDIA driver for this GPU, or in a "
        "container give it the GPU with the NVIDIA Container Toolkit (docker run --gpus all).",
        "`gpudoctor check` shows what else is missing",
    )
    missing.attempts = errors
    raise missing


class CudaDriver:
    """The driver API, one method per call the benchmark makes; every failure raises CudaError."""

    def __init__(self, lib: Any, path: str = "libcuda.so.1") -> None:
        self.lib = lib
        self.path = path
        self._fn, self.entry_points = resolve_symbols(lib)

    @classmethod
    def open(cls, candidates: tuple[str, ...] | None = None) -> CudaDriver:
        """Load the library, resolve every symbol and run cuInit; DriverUnavailable if any step fails."""
        lib, path = load_library(candidates)
        driver = cls(lib, path)
        rc = driver._fn["cuInit"](0)
        if rc != CUDA_SUCCESS:
            name = driver.error_name(rc)
            reason, message, hint = _INIT_FAILURES.get(
                rc,
                (
                    "init-failed",
                    f"The NVIDIA driver could not be initialised (cuInit: {name}); run `gpudoctor check` to find out why.",
                    "`dmesg` shows NVRM errors",
                ),
            )
            raise DriverUnavailable(reason, message, hint)
        return driver

    # --- errors ---------------------------------------------------------------------
    def error_name(self, code: int) -> str:
        text = c_char_p()
        if self._fn["cuGetErrorName"](code, ctypes.byref(text)) == CUDA_SUCCESS and text.value:
            return text.value.decode("ascii", "replace")
        return f"CUresult {code}"

    def error_string(self, code: int) -> str | None:
        text = c_char_p()
        if self._fn["cuGetErrorString"](code, ctypes.byref(text)) == CUDA_SUCCESS and text.value:
            return text.value.decode("utf-8", "replace")
        return None

    def call(self, name: str, *args: Any) -> None:
        rc = self._fn[name](*args)
        if rc != CUDA_SUCCESS:
            raise CudaError(rc, self.error_name(rc), self.entry_points.get(name, name), self.error_string(rc))

    def _call_quietly(self, name: str, *args: Any) -> None:
        """A release on an error path: it must not hide the error that got us there."""
        # A ctypes failure while unwinding is not the story.
        with contextlib.suppress(Exception):
            self._fn[name](*args)

    # --- driver and devices -------------------------------------------------------------
    def driver_version(self) -> int:
        value = c_int()
        self.call("cuDriverGetVersion", ctypes.byref(value))
        return value.value

    def device_count(self) -> int:
        value = c_int()
        self.call("cuDeviceGetCount", ctypes.byref(value))
        return value.value

    def device(self, ordinal: int) -> int:
        dev = CUdevice()
        self.call("cuDeviceGet", ctypes.byref(dev), ordinal)
        return dev.value

    def device_name(self, dev: int) -> str:
        buf = ctypes.create_string_buffer(256)
        self.call("cuDeviceGetName", buf, len(buf), dev)
        return buf.value.decode("utf-8", "replace")

    def device_pci_bus_id(self, dev: int) -> str:
        buf = ctypes.create_string_buffer(64)
        self.call("cuDeviceGetPCIBusId", buf, len(buf), dev)
        return buf.value.decode("ascii", "replace")

    def device_total_memory(self, dev: int) -> int:
        value = c_size_t()
        self.call("cuDeviceTotalMem", ctypes.byref(value), dev)
        return value.value

    def can_access_peer(self, dev: int, peer: int) -> bool:
        value = c_int()
        self.call("cuDeviceCanAccessPeer", ctypes.byref(value), dev, peer)
        return bool(value.value)

    # --- contexts ------------------------------------------------------------------------
    @contextlib.contextmanager
    def primary_context(self, dev: int) -> Iterator[int]:
        """The device's primary context, retained for the block and released after it."""
        ctx = CUcontext()
        self.call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
        with self._released("cuDevicePrimaryCtxRelease", dev):
            yield _handle(ctx)

    @contextlib.contextmanager
    def current(self, ctx: int) -> Iterator[None]:
        """Make `ctx` current for the block; the previous one is current again after it."""
        self.call("cuCtxPushCurrent", CUcontext(ctx))
        popped = CUcontext()
        with self._released("cuCtxPopCurrent", ctypes.byref(popped)):
            yield

    def synchronize(self) -> None:
        self.call("cuCtxSynchronize")

    def memory_info(self) -> tuple[int, int]:
        """(free, total) bytes of the current context's device."""
        free, total = c_size_t(), c_size_t()
        self.call("cuMemGetInfo", ctypes.byref(free), ctypes.byref(total))
        return free.value, total.value

    @contextlib.contextmanager
    def peer_access(self, ctx: int, peer_ctx: int) -> Iterator[bool]:
        """Let `ctx` reach `peer_ctx`'s memory for the block; yields whether we enabled it (False: it already was)."""
        with self.current(ctx):
            rc = self._fn["cuCtxEnablePeerAccess"](CUcontext(peer_ctx), 0)
        if rc == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED:
            yield False  # someone else's mapping: not ours to remove
            return
        if rc != CUDA_SUCCESS:
            raise CudaError(rc, self.error_name(rc), "cuCtxEnablePeerAccess", self.error_string(rc))
        try:
            yield True
        except BaseException:
            with self.current(ctx):
                self._call_quietly("cuCtxDisablePeerAccess", CUcontext(peer_ctx))
            raise
        with self.current(ctx):
            self.call("cuCtxDisablePeerAccess", CUcontext(peer_ctx))

    # --- memory --------------------------------------------------------------------------
    @contextlib.contextmanager
    def device_memory(self, nbytes: int) -> Iterator[int]:
        """`nbytes` of device memory in the current context; yields the CUdeviceptr as an int."""
        ptr = CUdeviceptr()
        self.call("cuMemAlloc", ctypes.byref(ptr), nbytes)
        with self._released("cuMemFree", CUdeviceptr(ptr.value)):
            yield ptr.value

    @contextlib.contextmanager
    def pinned_memory(self, nbytes: int, flags: int = 0) -> Iterator[int]:
        """`nbytes` of page-locked host memory (cuMemHostAlloc); yields its address."""
        ptr = c_void_p()
        self.call("cuMemHostAlloc", ctypes.byref(ptr), nbytes, flags)
        if not ptr.value:
            raise CudaError(CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "cuMemHostAlloc", "returned NULL")
        with self._released("cuMemFreeHost", c_void_p(ptr.value)):
            yield ptr.value

    def memset_d8(self, dptr: int, value: int, nbytes: int) -> None:
        self.call("cuMemsetD8", CUdeviceptr(dptr), value, nbytes)

    def memcpy_htod(self, dst: int, src: int, nbytes: int) -> None:
        self.call("cuMemcpyHtoD", CUdeviceptr(dst), c_void_p(src), nbytes)

    def memcpy_dtoh(self, dst: int, src: int, nbytes: int) -> None:
        self.call("cuMemcpyDtoH", c_void_p(dst), CUdeviceptr(src), nbytes)

    def memcpy_htod_async(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self.call("cuMemcpyHtoDAsync", CUdeviceptr(dst), c_void_p(src), nbytes, CUstream(stream))

    def memcpy_dtoh_async(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self.call("cuMemcpyDtoHAsync", c_void_p(dst), CUdeviceptr(src), nbytes, CUstream(stream))

    def memcpy_dtod_async(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self.call("cuMemcpyDtoDAsync", CUdeviceptr(dst), CUdeviceptr(src), nbytes, CUstream(stream))

    def memcpy_peer_async(self, dst: int, dst_ctx: int, src: int, src_ctx: int, nbytes: int, stream: int) -> None:
        self.call(
            "cuMemcpyPeerAsync",
            CUdeviceptr(dst),
            CUcontext(dst_ctx),
            CUdeviceptr(src),
            CUcontext(src_ctx),
            nbytes,
            CUstream(stream),
        )

    # --- streams and events --------------------------------------------------------------
    @contextlib.contextmanager
    def stream(self) -> Iterator[int]:
        handle = CUstream()
        self.call("cuStreamCreate", ctypes.byref(handle), CU_STREAM_NON_BLOCKING)
        with self._released("cuStreamDestroy", CUstream(handle.value)):
            yield _handle(handle)

    def stream_synchronize(self, stream: int) -> None:
        self.call("cuStreamSynchronize", CUstream(stream))

    def stream_wait_event(self, stream: int, event: int) -> None:
        self.call("cuStreamWaitEvent", CUstream(stream), CUevent(event), 0)

    @contextlib.contextmanager
    def event(self) -> Iterator[int]:
        handle = CUevent()
        self.call("cuEventCreate", ctypes.byref(handle), CU_EVENT_DEFAULT)
        with self._released("cuEventDestroy", CUevent(handle.value)):
            yield _handle(handle)

    def event_record(self, event: int, stream: int) -> None:
        self.call("cuEventRecord", CUevent(event), CUstream(stream))

    def event_synchronize(self, event: int) -> None:
        self.call("cuEventSynchronize", CUevent(event))

    def event_elapsed_s(self, start: int, end: int) -> float:
        ms = c_float()
        self.call("cuEventElapsedTime", ctypes.byref(ms), CUevent(start), CUevent(end))
        return ms.value / 1000.0

    # --- the release discipline ---------------------------------------------------------------
    @contextlib.contextmanager
    def _released(self, name: str, *args: Any) -> Iterator[None]:
        """Call `name(*args)` when the block ends: checked on success, quietly on an error path."""
        try:
            yield
        except BaseException:
            self._call_quietly(name, *args)
            raise
        self.call(name, *args)


def host_buffer(nbytes: int) -> Any:
    """Ordinary pageable host memory (what `malloc` gives), as a ctypes array; address via ctypes.addressof."""
    return (ctypes.c_char * nbytes)()


def fill(address: int, pattern: bytes) -> None:
    ctypes.memmove(address, pattern, len(pattern))


def read(address: int, nbytes: int) -> bytes:
    return ctypes.string_at(address, nbytes)


def zero(address: int, nbytes: int) -> None:
    ctypes.memset(address, 0, nbytes)
