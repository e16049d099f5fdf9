"""The snapshot format: a whole machine as one JSON document (docs/snapshot-format.md).

Loading validates the shape and names what is wrong; saving redacts the
host name, GPU serials and UUIDs, and user names in home directories.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gpudoctor.errors import SnapshotError
from gpudoctor.host.winpath import is_windows_path

FORMAT = "gpudoctor-snapshot/1"

_TOP_LEVEL = {
    "format",
    "recorded_with",
    "recorded_at",
    "redacted",
    "note",
    "platform",
    "env",
    "files",
    "dirs",
    "commands",
    "python",
    "nvml",
    "elf",
    "partial",  # true: what the snapshot does not hold is unknown, not absent (docs/pasted.md)
    "pasted",  # what `--from` read: blocks, error texts, what the text showed missing (docs/pasted.md)
}


def empty_snapshot() -> dict[str, Any]:
    return {"format": FORMAT, "platform": {}, "env": {}, "files": {}, "dirs": {}, "commands": {}}


def load_snapshot(path: str) -> dict[str, Any]:
    """Read and validate a snapshot file. Raises SnapshotError naming the problem (MissingInput when absent).

    Read through gpudoctor.bounded: a regular file of at most 32 MiB, gzip-compressed or not (at most 32 MiB
    once decompressed), strict JSON nested at most 64 deep.
    """
    from gpudoctor.bounded import MAX_INPUT_BYTES, parse_json_text, read_input_bytes
    from gpudoctor.errors import InputError, MissingInput

    try:
        data = read_input_bytes(path, "snapshot file")
    except MissingInput as exc:
        raise MissingInput(exc.message, hint="record one with: gpudoctor snapshot -o FILE") from None
    except InputError as exc:
        raise SnapshotError(exc.message, hint=exc.hint) from None
    if data[:2] == b"\x1f\x8b":
        # gzip (a real machine's snapshot holds its libraries' symbol tables: 5.7 MB, 0.7 MB compressed), read
        # within the same bound once decompressed: a small file that inflates past it is refused, not expanded.
        import zlib

        inflate = zlib.decompressobj(wbits=31)
        try:
            data = inflate.decompress(data, MAX_INPUT_BYTES + 1)
        except zlib.error as exc:
            raise SnapshotError(f"{path}: not a readable gzip file ({exc})") from None
        if len(data) > MAX_INPUT_BYTES or inflate.unconsumed_tail:
            raise SnapshotError(f"{path} decompresses to more than {MAX_INPUT_BYTES // (1024 * 1024)} MiB, not a snapshot")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"{path} is not UTF-8 text (byte {exc.start}), not a snapshot file") from None
    try:
        data = parse_json_text(text, path, "snapshot file")
    except InputError as exc:
        raise SnapshotError(exc.message, hint="a snapshot is one JSON object; see docs/snapshot-format.md") from None
    return validate_snapshot(data, path)


def _object(data: dict[str, Any], key: str) -> dict[str, Any]:
    """data[key] where it is an object, else {} (validate_snapshot names the wrong type once, above its use)."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def validate_snapshot(data: Any, where: str = "snapshot") -> dict[str, Any]:
    """Check every field's type where it is loaded, so that nothing past this point meets a wrong one.

    A snapshot comes from a machine or a person gpudoctor does not control: a string where a number
    goes, a negative memory size or a relative path is named here, never found later as a crash.
    Unknown keys are allowed (the format only ever gains fields).
    """
    problems: list[str] = []
    if not isinstance(data, dict):
        raise SnapshotError(f"{where}: a snapshot is a JSON object, not {_json_type(data)}")
    fmt = data.get("format")
    if fmt != FORMAT:
        raise SnapshotError(
            f"{where}: unknown snapshot format {_short(fmt)}",
            hint=f'this gpudoctor reads "format": "{FORMAT}"',
        )
    unknown = sorted(set(data) - _TOP_LEVEL)
    if unknown:
        problems.append(f"unknown top-level keys: {', '.join(_short(k) for k in unknown[:10])}")
    for key in ("platform", "env", "files", "dirs", "commands"):
        if key in data and not isinstance(data[key], dict):
            problems.append(f'"{key}" must be an object, not {_json_type(data[key])}')
    if "partial" in data and not isinstance(data["partial"], bool):
        problems.append('"partial" must be true or false')
    if "pasted" in data and not isinstance(data["pasted"], dict):
        problems.append(f'"pasted" must be an object, not {_json_type(data["pasted"])}')
    for key in ("recorded_with", "recorded_at", "note"):
        if key in data and not isinstance(data[key], str):
            problems.append(f'"{key}" must be a string')
    files = _object(data, "files")
    for path, entry in files.items():
        if not _absolute(path):
            problems.append(f"files: {_short(path)} is not an absolute path")
        if isinstance(entry, str):
            continue
        if not isinstance(entry, dict) or not ({"link", "error", "type"} & set(entry)):
            problems.append(f'files: {_short(path)} must be text, {{"link": ...}}, {{"error": ...}} or {{"type": ...}}')
            continue
        _check(entry, _FILE_ENTRY, f"files: {_short(path)}", problems)
    dirs = _object(data, "dirs")
    for path, listing in dirs.items():
        if not _absolute(path):
            problems.append(f"dirs: {_short(path)} is not an absolute path")
        if isinstance(listing, list):
            # A Windows directory's names hold neither separator.
            banned = "/\\" if is_windows_path(path) else "/"
            if not all(isinstance(n, str) and n not in ("", ".", "..") and not any(c in n for c in banned) for n in listing):
                problems.append(f"dirs: {_short(path)} must list names (strings without /)")
        elif not (isinstance(listing, dict) and isinstance(listing.get("error"), str)):
            problems.append(f'dirs: {_short(path)} must be a list of names or {{"error": "ERRNO"}}')
    commands = _object(data, "commands")
    for key, entry in commands.items():
        if not isinstance(entry, dict) or not ("rc" in entry or entry.get("timeout") is True or entry.get("overflow") is True):
            problems.append(
                f'commands: {_short(key)} must be {{"rc": N, "stdout": ..., "stderr": ...}}, {{"timeout": true}} '
                'or {"overflow": true}'
            )
            continue
        _check(entry, _COMMAND_ENTRY, f"commands: {_short(key)}", problems)
    for section in ("env", "platform"):
        values = _object(data, section)
        for key, value in values.items():
            if not isinstance(value, str):
                problems.append(f"{section}: {_short(key)} must be a string")
    python = data.get("python")
    if python is not None:
        if not isinstance(python, dict):
            problems.append('"python" must be an object')
        else:
            _check(python, _PYTHON_ERROR if "error" in python else _PYTHON, "python", problems)
    elf = data.get("elf")
    if elf is not None:
        if not isinstance(elf, dict):
            problems.append('"elf" must be an object of absolute paths')
        else:
            for path, entry in elf.items():
                if not _absolute(path):
                    problems.append(f"elf: {_short(path)} is not an absolute path")
                _check(entry, _ELF_ENTRY, f"elf: {_short(path)}", problems)
    nvml = data.get("nvml")
    if nvml is not None:
        if not isinstance(nvml, dict) or not isinstance(nvml.get("status"), str):
            problems.append('"nvml" must be an object with a "status" string')
        else:
            _check(nvml, _NVML, "nvml", problems)
    if problems:
        shown = problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else [])
        raise SnapshotError(
            # One line: an error is one line naming the problem (docs/security.md); the problems joined by "; ".
            f"{where}: invalid snapshot: " + "; ".join(shown),
            hint="see docs/snapshot-format.md",
        )
    data.setdefault("files", {})
    data.setdefault("dirs", {})
    data.setdefault("commands", {})
    data.setdefault("env", {})
    data.setdefault("platform", {})
    return data


# --- field types ----------------------------------------------------------------------------------
# A tiny schema language: a type spec is one of the markers below, ("opt", spec) for "or null",
# ("list", spec), ("map", spec) for an object of any keys, or a dict of known keys -> spec
# (other keys are allowed and not checked).
_STR = "string"
_BOOL = "boolean"
_COUNT = "non-negative integer"  # sizes, counts, indexes, pids, bit masks
_NUMBER = "number"
_INT = "integer"  # exit statuses: negative for a signal


def _opt(spec: Any) -> tuple[str, Any]:
    return ("opt", spec)


def _list(spec: Any) -> tuple[str, Any]:
    return ("list", spec)


def _map(spec: Any) -> tuple[str, Any]:
    return ("map", spec)


_MAX_COUNT = 2**64  # NVML's counters are 64-bit; a larger one is not from a GPU


def _type_ok(value: Any, spec: str) -> bool:
    if spec == _STR:
        return isinstance(value, str)
    if spec == _BOOL:
        return isinstance(value, bool)
    if spec == _COUNT:
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _MAX_COUNT
    if spec == _INT:
        return isinstance(value, int) and not isinstance(value, bool) and abs(value) < _MAX_COUNT
    if spec == _NUMBER:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) < 1e300
    raise AssertionError(spec)


def _check(value: Any, spec: Any, where: str, problems: list[str]) -> None:
    if len(problems) > 100:
        return
    if isinstance(spec, tuple):
        kind, inner = spec
        if kind == "opt":
            if value is not None:
                _check(value, inner, where, problems)
            return
        if kind == "list":
            if not isinstance(value, list):
                problems.append(f"{where} must be a list, not {_json_type(value)}")
                return
            for i, item in enumerate(value):
                _check(item, inner, f"{where}[{i}]", problems)
            return
        if kind == "map":
            if not isinstance(value, dict):
                problems.append(f"{where} must be an object, not {_json_type(value)}")
                return
            for key, item in value.items():
                _check(item, inner, f"{where}.{_short(key)}", problems)
            return
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            problems.append(f"{where} must be an object, not {_json_type(value)}")
            return
        for key, inner in spec.items():
            if key in value:
                _check(value[key], inner, f"{where}.{key}", problems)
        return
    if not _type_ok(value, spec):
        article = "an" if spec[0] in "aeiou" else "a"
        problems.append(f"{where} must be {article} {spec}, not {_json_type(value)} {_short(value)}")


_FILE_ENTRY = {"link": _STR, "error": _STR, "type": _STR, "readable": _BOOL, "writable": _BOOL, "binary": _BOOL}
_COMMAND_ENTRY = {
    "rc": _opt(_INT),
    "stdout": _STR,
    "stderr": _STR,
    "timeout": _BOOL,
    "timeout_s": _NUMBER,
    "overflow": _BOOL,
    "limit_bytes": _COUNT,
}
_PYTHON = {
    "executable": _STR,
    "version": _STR,
    "prefix": _STR,
    "kind": _STR,
    "site_packages": _list(_STR),
    "distributions": _map(_STR),
    "locations": _map(_STR),
}
# What gpudoctor.elf reads of a library: DT_NEEDED, DT_SONAME, DT_RPATH and DT_RUNPATH as stored, or the error.
_ELF_ENTRY = {
    "needed": _list(_STR),
    "soname": _STR,
    "rpath": _STR,
    "runpath": _STR,
    "nodeflib": _BOOL,
    "bits": _COUNT,
    "machine": _COUNT,
    "error": _STR,
    # gpudoctor.elfsyms, for installed extensions and torch's libraries only
    "symbols": {
        "undefined": _list(_STR),
        "defined": _list(_STR),
        "needs": _map(_list(_STR)),
        "versions": _list(_STR),
        "error": _STR,
    },
}
_PYTHON_ERROR = {"error": _STR, "detail": _STR, "executable": _STR}
_ON_OFF = {"current": _BOOL, "pending": _BOOL}
_NVML_DEVICE = {
    "index": _COUNT,
    "lost": _STR,
    "name": _STR,
    "uuid": _STR,
    "pci_bus_id": _STR,
    "compute_capability": _STR,
    "memory": {
        "total_bytes": _opt(_COUNT),
        "used_bytes": _opt(_COUNT),
        "free_bytes": _opt(_COUNT),
        "reserved_bytes": _opt(_COUNT),
    },
    "pcie_gen_current": _opt(_COUNT),
    "pcie_gen_max": _opt(_COUNT),
    "pcie_gen_gpu_max": _opt(_COUNT),
    "pcie_width_current": _opt(_COUNT),
    "pcie_width_max": _opt(_COUNT),
    "persistence_mode": _opt(_BOOL),
    "performance_state": _opt(_STR),
    "utilization_gpu": _opt(_COUNT),
    "mig_mode": _ON_OFF,
    "ecc_mode": _ON_OFF,
    "ecc_volatile_uncorrected": _opt(_COUNT),
    "ecc_aggregate_uncorrected": _opt(_COUNT),
    "retired_pages_pending": _opt(_BOOL),
    "remapped_rows": {"correctable": _COUNT, "uncorrectable": _COUNT, "pending": _BOOL, "failure": _BOOL},
    "clock_event_reasons": _opt(_COUNT),
    "temperature_c": _opt(_NUMBER),
    "power_draw_w": _opt(_NUMBER),
    "processes": _list({"pid": _COUNT, "used_bytes": _opt(_COUNT), "name": _opt(_STR)}),
    "graphics_processes": _list({"pid": _COUNT, "used_bytes": _opt(_COUNT), "name": _opt(_STR)}),
    "mig_devices": _list(
        {"slot": _COUNT, "uuid": _STR, "memory_total_bytes": _COUNT, "memory_used_bytes": _COUNT, "error": _STR}
    ),
    "errors": _map(_STR),
}
_NVML = {
    "status": _STR,
    "error": _opt(_STR),
    "driver_version": _opt(_STR),
    "nvml_version": _opt(_STR),
    "cuda_driver_version": _opt(_COUNT),
    "errors": _map(_STR),
    "fallbacks": _list(_STR),
    "devices": _list(_NVML_DEVICE),
}


def _absolute(path: str) -> bool:
    """A POSIX absolute path, or a Windows one with its drive letter (C:\\... or C:/..., snapshots recorded on Windows)."""
    return (path.startswith("/") or is_windows_path(path)) and "\x00" not in path


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _short(value: Any, limit: int = 60) -> str:
    """A value for a message: repr'd (so control characters show escaped), and cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_SERIAL_XML = re.compile(r"<serial>[^<]*</serial>")
_SERIAL_JSON = re.compile(r'("serial"\s*:\s*)"[^"]*"')


def redact(text: str, hostname: str | None, users: list[str]) -> str:
    """Replace personal and unique identifiers in a serialised snapshot.

    Each distinct UUID maps to the same stand-in everywhere, so that
    CUDA_VISIBLE_DEVICES=GPU-... still names the same GPU after redaction.
    """
    mapping: dict[str, str] = {}

    def uuid(match: re.Match[str]) -> str:
        found = match.group(0)
        if found not in mapping:
            n = len(mapping)
            mapping[found] = f"{match.group(1)}-00000000-0000-0000-0000-{n:012d}"
        return mapping[found]

    text = _UUID.sub(uuid, text)
    text = _SERIAL_XML.sub("<serial>REDACTED</serial>", text)
    text = _SERIAL_JSON.sub(r'\1"REDACTED"', text)
    for user in users:
        if user and user not in ("root", "user"):
            text = text.replace(f"/home/{user}", "/home/user").replace(f"/Users/{user}", "/Users/user")
            # Windows profiles (C:\Users\NAME), whose backslashes the JSON text holds escaped, in any case.
            text = re.sub(rf"(?i)(\\\\Users\\\\){re.escape(user)}\b", r"\1user", text)
    if hostname and len(hostname) >= 3:
        text = re.sub(rf"\b{re.escape(hostname)}\b", "redacted-host", text)
    return text


def dump_snapshot(snapshot: dict[str, Any], hostname: str | None = None, users: list[str] | None = None) -> str:
    """Serialise a snapshot, redacted unless both hostname and users are None."""
    text = json.dumps(snapshot, indent=1, sort_keys=True, ensure_ascii=False)
    if hostname is None and not users:
        return text + "\n"
    return redact(text, hostname, users or []) + "\n"
