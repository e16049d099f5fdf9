"""Record what libnvidia-ml.so.1 answers to every NVML call gpudoctor makes, as JSON (schema gpudoctor.nvml-recording/1).

gpudoctor makes all its NVML calls in one place, `gpudoctor.host.nvml.read_nvml_state(binding)`, through
nvidia-ml-py (`pynvml`). This recorder hands that function a tracing stand-in for the binding, so the calls
recorded are exactly the ones gpudoctor makes, in its order, with nothing to keep in step by hand:

- `calls`: one entry per binding call, as gpudoctor made it: `call` (the pynvml name), `args` (a device
  handle as `gpu0`, a MIG device's as `gpu0/mig3`), and either `result` (every field of what came back:
  ctypes structures field by field, process entries as nvidia-ml-py made them) or `error` (the NVML
  return code by gpudoctor's name) with `rc`; and `c`: each C entry point the binding called meanwhile,
  with its return code (`missing` where the library lacks the symbol), so a `_v2`/`_v3` choice and the
  INSUFFICIENT_SIZE round of the process lists are visible;
- `state`: the NvmlState gpudoctor made of those answers (what `gpudoctor snapshot` records under `nvml`);
- `library`: the libnvidia-ml file the process loaded (from /proc/self/maps), `binding`: nvidia-ml-py's version.

tools/nvml_compare.py runs this same recorder against tests/sim/fake_nvml.c, fed with `state`, and lists
where the fake answers otherwise. Run: `python3 tools/nvml_record.py --output FILE` with gpudoctor importable (UUIDs and serials redacted as
`gpudoctor snapshot` redacts them, unless --no-redact).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import functools
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

SCHEMA = "gpudoctor.nvml-recording/1"


class Trace:
    """The calls recorded so far and the C calls of the binding call in progress."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.c_calls: list[dict[str, Any]] | None = None
        self.labels: dict[int, str] = {}

    def c_call(self, symbol: str, rc: Any = None, missing: bool = False) -> None:
        if self.c_calls is None:
            return  # nvmlInit's library loading, before any binding call is traced
        entry: dict[str, Any] = {"symbol": symbol}
        if missing:
            entry["missing"] = True
        elif isinstance(rc, int):
            entry["rc"] = rc
        self.c_calls.append(entry)


class _CFunction:
    """A ctypes function from pynvml's lookup that records each call and its return code.

    pynvml sets `restype` on some (nvmlErrorString): attribute writes and reads go to the real function."""

    def __init__(self, symbol: str, fn: Any, trace: Trace) -> None:
        object.__setattr__(self, "_symbol", symbol)
        object.__setattr__(self, "_fn", fn)
        object.__setattr__(self, "_trace", trace)

    def __call__(self, *args: Any) -> Any:
        rc = self._fn(*args)
        self._trace.c_call(self._symbol, rc)
        return rc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fn, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._fn, name, value)


def _handle_key(value: Any) -> int | None:
    try:
        return ctypes.cast(value, ctypes.c_void_p).value
    except (TypeError, ctypes.ArgumentError):
        return None


def plain(value: Any, trace: Trace) -> Any:
    """What the binding returned, as JSON: structures field by field, handles by label, bytes as text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, (list, tuple)):
        return [plain(v, trace) for v in value]
    if isinstance(value, ctypes._Pointer):  # a device handle (c_nvmlDevice_t is a pointer type)
        key = _handle_key(value)
        return {"handle": trace.labels.get(key or 0, "unknown")}
    if isinstance(value, ctypes.Structure):
        return {name: plain(getattr(value, name), trace) for name, *_ in value._fields_}
    if isinstance(value, ctypes.Array):
        return [plain(v, trace) for v in value]
    if hasattr(value, "__dict__"):  # nvidia-ml-py's nvmlFriendlyObject (process entries)
        return {k: plain(v, trace) for k, v in sorted(vars(value).items())}
    return repr(value)


class TracingBinding:
    """Stands in for the pynvml module: every nvml* function call is recorded; everything else passes through."""

    def __init__(self, nv: Any, trace: Trace) -> None:
        self._nv = nv
        self._trace = trace

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._nv, name)
        if name.startswith("nvml") and callable(value) and not isinstance(value, type):
            return functools.partial(self._call, name, value)
        return value

    def _arg(self, value: Any) -> Any:
        if isinstance(value, ctypes._Pointer):
            return self._trace.labels.get(_handle_key(value) or 0, "unknown-handle")
        return plain(value, self._trace)

    def _call(self, name: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from gpudoctor.host.nvml import error_name

        trace = self._trace
        entry: dict[str, Any] = {"call": name, "args": [self._arg(a) for a in args]}
        if kwargs:  # nvmlDeviceGetMemoryInfo(handle, version=nvmlMemory_v2)
            entry["kwargs"] = {k: self._arg(v) for k, v in sorted(kwargs.items())}
        outer, trace.c_calls = trace.c_calls, []
        try:
            result = fn(*args, **kwargs)
        except self._nv.NVMLError as exc:
            entry["error"] = error_name(exc)
            entry["rc"] = getattr(exc, "value", None)
            raise
        else:
            if name.startswith("nvmlDeviceGetHandleByIndex"):
                trace.labels[_handle_key(result) or 0] = f"gpu{args[0]}"
            elif name == "nvmlDeviceGetMigDeviceHandleByIndex":
                trace.labels[_handle_key(result) or 0] = f"{self._arg(args[0])}/mig{args[1]}"
            entry["result"] = plain(result, trace)
            return result
        finally:
            entry["c"], trace.c_calls = trace.c_calls, outer
            trace.calls.append(entry)


def _loaded_library() -> str | None:
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                if "libnvidia-ml" in line:
                    return line.split(None, 5)[-1].strip()
    except OSError:
        return None
    return None


def record() -> dict[str, Any]:
    """Read NVML as gpudoctor does, through the tracing binding; the recording as a JSON-ready dict."""
    from importlib import metadata

    from gpudoctor.host.nvml import read_nvml_state

    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "recorded_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
        "kernel": platform.release(),
    }
    try:
        doc["binding"] = metadata.version("nvidia-ml-py")
    except metadata.PackageNotFoundError:
        doc["binding"] = None
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError as exc:
        doc.update(library=None, state=read_nvml_state(), calls=[], load_error=str(exc))
        return doc
    import pynvml

    trace = Trace()
    original = pynvml._nvmlGetFunctionPointer

    def traced_lookup(symbol: str) -> Any:
        try:
            fn = original(symbol)
        except pynvml.NVMLError:
            trace.c_call(symbol, missing=True)
            raise
        return _CFunction(symbol, fn, trace)

    pynvml._nvmlGetFunctionPointer = traced_lookup
    try:
        state = read_nvml_state(TracingBinding(pynvml, trace))
    finally:
        pynvml._nvmlGetFunctionPointer = original
    doc.update(library=_loaded_library(), state=state, calls=trace.calls)
    return doc


def _write(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)


def redacted(text: str) -> str:
    """The recording with GPU and MIG UUIDs, serials, this host's name and user replaced, as `gpudoctor snapshot` does."""
    import getpass
    import socket

    from gpudoctor.host.snapshot import redact

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = ""
    return redact(text, socket.gethostname(), [user])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", "-o", default="-", help="where to write the recording ('-': stdout)")
    parser.add_argument("--no-redact", action="store_true", help="keep UUIDs and serials (redacted by default)")
    parser.add_argument("--redacted", metavar="FILE", help="also write a redacted copy here (with --no-redact: both at once)")
    args = parser.parse_args(argv)
    text = json.dumps(record(), indent=1) + "\n"
    _write(args.output, text if args.no_redact else redacted(text))
    if args.redacted:
        _write(args.redacted, redacted(text))
    return 0


if __name__ == "__main__":
    try:
        import gpudoctor  # noqa: F401 - installed, or on PYTHONPATH
    except ImportError:  # a checkout: its src/ holds everything gpudoctor.host.nvml needs
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    raise SystemExit(main())
