"""Pure parser: the workloads a pasted docker compose file or Kubernetes pod spec declares, and the GPUs each asks for.

Pastes hold fragments (a service without `services:` above it, a Deployment's `containers:` list alone), so this
reads YAML's block layout by indentation instead of loading a document; flow style and anchors are not followed.
A compose service requests the GPU with `deploy.resources.reservations.devices` (capabilities [gpu]), `gpus:`,
`runtime: nvidia` or NVIDIA_VISIBLE_DEVICES (docs.docker.com, "GPU support in Compose"); a pod's container with
`nvidia.com/gpu` in its resources, the NVIDIA device plugin's resource (NVIDIA/k8s-device-plugin README).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LINES = 20_000  # a spec is short; longer texts are read up to here


@dataclass(frozen=True)
class Workload:
    """One compose service or pod container: `gpus` is what it requests ("all", a count) or None for nothing."""

    kind: str  # "compose" or "kubernetes"
    name: str
    image: str
    gpus: str | None
    line: str  # the line naming the service or container
    complete: bool  # the text shows where it ends (not cut mid-value)


_KEY = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z0-9_.\-/\"']{1,120}):(?:\s+(?P<value>\S.*))?$")
_ITEM = re.compile(r"^(?P<indent> *)- +(?P<rest>\S.*)$")
_COMPOSE_GPU = re.compile(
    r"capabilities:\s*\[?[^\]\n]*\bgpu\b|^\s*-\s*\"?gpu\"?\s*$|^\s*gpus:|^\s*runtime:\s*[\"']?nvidia\b|NVIDIA_VISIBLE_DEVICES"
    r"|nvidia\.com/gpu",
    re.IGNORECASE | re.MULTILINE,
)
_POD_GPU = re.compile(r"nvidia\.com/gpu[\"']?\s*:\s*[\"']?(?P<n>\d+)")
_CUT = re.compile(r"(?:\\|[|>][+-]?|,|:)$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _value(text: str, key: str) -> str:
    m = re.search(rf"^\s*(?:-\s+)?{key}:\s+[\"']?(?P<v>[^\"'\s#]+)", text, re.MULTILINE)
    return m.group("v") if m else ""


def _strip_comment(line: str) -> str:
    at = line.find(" #")
    return line[:at].rstrip() if at >= 0 else line.rstrip()


def parse_workloads(lines: list[str]) -> list[Workload]:
    """Every compose service (a key whose block holds `image:` or `build:`) and every pod container (an item of a
    `containers:` list), in order. Never raises."""
    lines = [_strip_comment(x) for x in lines[:MAX_LINES]]
    out: list[Workload] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _KEY.match(line)
        if m and m.group("key") == "containers" and not m.group("value"):
            end = _block_end(lines, i, _indent(line), list_at_same=True)
            out += _containers(lines[i + 1 : end], lines, end)
            i = end
            continue
        if m and not m.group("value") and (service := _service(lines, i)) is not None:
            out.append(service[0])
            i = service[1]
            continue
        i += 1
    return out


def _block_end(lines: list[str], i: int, indent: int, list_at_same: bool = False) -> int:
    """The index after the block under line i: lines deeper than `indent` (and, for a list YAML writes at its key's
    indent, `- ` items at it), blank lines inside."""
    j = i + 1
    last = i + 1
    while j < len(lines):
        x = lines[j]
        if not x.strip():
            j += 1
            continue
        if _indent(x) > indent or (list_at_same and _indent(x) == indent and x.lstrip().startswith("- ")):
            j += 1
            last = j
            continue
        break
    return last


def _ended(lines: list[str], end: int, body: list[str]) -> bool:
    """Whether the text shows the block's end: a YAML line follows it, or its last line is not cut mid-value."""
    tail = next((x for x in reversed(body) if x.strip()), "")
    follows = next((x for x in lines[end : end + 3] if x.strip()), "")
    return bool(_KEY.match(follows) or _ITEM.match(follows)) or not _CUT.search(tail)


def _containers(body: list[str], lines: list[str], end: int) -> list[Workload]:
    items: list[list[str]] = []
    item_indent = None
    for x in body:
        m = _ITEM.match(x)
        if m and (item_indent is None or _indent(x) == item_indent):
            item_indent = _indent(x)
            items.append([x])
        elif items:
            items[-1].append(x)
    out = []
    for n, item in enumerate(items):
        text = "\n".join(item)
        image = _value(text, "image")
        if not image:
            continue
        gpu = _POD_GPU.search(text)
        complete = n < len(items) - 1 or _ended(lines, end, item)
        out.append(
            Workload("kubernetes", _value(text, "name"), image, gpu.group("n") if gpu else None, item[0].strip(), complete)
        )
    return out


def _service(lines: list[str], i: int) -> tuple[Workload, int] | None:
    """A compose service at line i: a key with no value whose direct children hold `image:` or `build:`."""
    indent = _indent(lines[i])
    end = _block_end(lines, i, indent)
    body = lines[i + 1 : end]
    child = min((_indent(x) for x in body if x.strip()), default=None)
    if child is None or child <= indent:
        return None
    keys = {m.group("key") for x in body if _indent(x) == child and (m := _KEY.match(x))}
    # a CI job (GitLab's script/stage, GitHub's runs-on/steps) names an image too, and is no compose service
    if not keys & {"image", "build"} or keys & {
        "containers",
        "spec",
        "template",
        "services",
        "script",
        "stage",
        "steps",
        "runs-on",
    }:
        return None
    text = "\n".join(body)
    gpus = None
    if _COMPOSE_GPU.search(text):
        gpus = _value(text, "count") or _value(text, "gpus") or "all"
    name = _KEY.match(lines[i]).group("key").strip("\"'")  # type: ignore[union-attr]  # matched by the caller
    return Workload("compose", name, _value(text, "image"), gpus, lines[i].strip(), _ended(lines, end, body)), end
