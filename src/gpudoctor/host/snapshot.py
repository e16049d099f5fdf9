"""The snapshot format: a whole machine as one JSON document (docs/snapshot-format.md).

Loading validates the shape and names what is wrong; saving redacts the
host name, GPU serials and UUIDs, and user names in home directories.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gpudoctor.errors import SnapshotError

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
}


def empty_snapshot() -> dict[str, Any]:
    return {"format": FORMAT, "platform": {}, "env": {}, "files": {}, "dirs": {}, "commands": {}}


def load_snapshot(path: str) -> dict[str, Any]:
    """Read and validate a snapshot file. Raises SnapshotError naming the problem (MissingInput when absent).

    Read through gpudoctor.bounded: a regular file of at most 32 MiB, strict JSON nested at most 64 deep.
    """
    from gpudoctor.bounded import load_json_file
    from gpudoctor.errors import InputError, MissingInput

    try:
        data = load_json_file(path, "snapshot")
    except MissingInput as exc:
        raise MissingInput(exc.message, hint="record one with: gpudoctor snapshot -o FILE") from None
    except InputError as exc:
        raise SnapshotError(exc.message, hint=exc.hint or "a snapshot is one JSON object; see docs/snapshot-format.md") from None
    return validate_snapshot(data, path)


def validate_snapshot(data: Any, where: str = "snapshot") -> dict[str, Any]:
    problems: list[str] = []
    if not isinstance(data, dict):
        raise SnapshotError(f"{where}: a snapshot is a JSON object, not {type(data).__name__}")
    fmt = data.get("format")
    if fmt != FORMAT:
        raise SnapshotError(
            f"{where}: unknown snapshot format {fmt!r}",
            hint=f'this gpudoctor reads "format": "{FORMAT}"',
        )
    unknown = sorted(set(data) - _TOP_LEVEL)
    if unknown:
        problems.append(f"unknown top-level keys: {', '.join(unknown)}")
    for key in ("platform", "env", "files", "dirs", "commands"):
        if key in data and not isinstance(data[key], dict):
            problems.append(f'"{key}" must be an object')
    for path, entry in (data.get("files") or {}).items() if isinstance(data.get("files"), dict) else ():
        if not path.startswith("/"):
            problems.append(f'files: "{path}" is not an absolute path')
        if isinstance(entry, str):
            continue
        if not isinstance(entry, dict) or not ({"link", "error", "type"} & set(entry)):
            problems.append(f'files: "{path}" must be text, {{"link": ...}}, {{"error": ...}} or {{"type": ...}}')
    for key, entry in (data.get("commands") or {}).items() if isinstance(data.get("commands"), dict) else ():
        if not isinstance(entry, dict) or not ("rc" in entry or entry.get("timeout")):
            problems.append(f'commands: "{key}" must be {{"rc": N, "stdout": ..., "stderr": ...}} or {{"timeout": true}}')
    for key, value in (data.get("env") or {}).items() if isinstance(data.get("env"), dict) else ():
        if not isinstance(value, str):
            problems.append(f'env: "{key}" must be a string')
    python = data.get("python")
    if python is not None and not isinstance(python, dict):
        problems.append('"python" must be an object')
    nvml = data.get("nvml")
    if nvml is not None and (not isinstance(nvml, dict) or "status" not in nvml):
        problems.append('"nvml" must be an object with a "status"')
    if problems:
        raise SnapshotError(
            f"{where}: invalid snapshot:\n" + "\n".join(f"  {p}" for p in problems),
            hint="see docs/snapshot-format.md",
        )
    data.setdefault("files", {})
    data.setdefault("dirs", {})
    data.setdefault("commands", {})
    data.setdefault("env", {})
    data.setdefault("platform", {})
    return data


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
    if hostname and len(hostname) >= 3:
        text = re.sub(rf"\b{re.escape(hostname)}\b", "redacted-host", text)
    return text


def dump_snapshot(snapshot: dict[str, Any], hostname: str | None = None, users: list[str] | None = None) -> str:
    """Serialise a snapshot, redacted unless both hostname and users are None."""
    text = json.dumps(snapshot, indent=1, sort_keys=True, ensure_ascii=False)
    if hostname is None and not users:
        return text + "\n"
    return redact(text, hostname, users or []) + "\n"
