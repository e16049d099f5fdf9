"""`--format nfd`: a Node Feature Discovery feature file, and `--format npd`: one line for a Node
Problem Detector custom plugin (docs/cluster.md, deploy/kubernetes/).

NFD's nfd-worker reads every file of /etc/kubernetes/node-feature-discovery/features.d/ whose name does
not start with a dot (NFD 0.15 and later: a temporary file written beside it is never read), one
`name=value` per line, and turns each into a node label. The names are in the namespace
gpudoctor.feature.node.kubernetes.io, a sub-namespace of feature.node.kubernetes.io that NFD allows
without -extra-label-ns. Every value is made a valid Kubernetes label value (at most 63 characters of
[A-Za-z0-9._-], beginning and ending with a letter or digit); a fact that leaves nothing valid is left
out rather than guessed. `# +expiry-time=` makes NFD drop the labels when gpudoctor stops refreshing
them: a node that is no longer checked must not keep saying healthy.

NPD's custom plugin protocol: the plugin's exit status is the condition (0 OK, 1 problem, 2 unknown)
and its output, one line, the condition's message (NPD cuts it at the config's max_output_length).
Both read the JSON report document (render.prometheus), so they agree with `--format json`.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

from gpudoctor.render.prometheus import _SURROGATE, _dict, _found, _list, gpus_of

NAMESPACE = "gpudoctor.feature.node.kubernetes.io"
EXPIRY = timedelta(hours=1)
NPD_MAX_CHARS = 160  # also the max_output_length of deploy/kubernetes/npd-gpudoctor.json
NPD_OK, NPD_PROBLEM, NPD_UNKNOWN = 0, 1, 2

_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_INVALID = re.compile(r"[^A-Za-z0-9._-]+")
_MAJOR = re.compile(r"^(\d+)")


def label_value(value: Any) -> str | None:
    """`value` as a valid label value: invalid runs become '-', the ends trimmed to a letter or digit,
    at most 63 characters. None when nothing valid is left."""
    if value is None or value is False:
        return None
    text = _INVALID.sub("-", str(value))[:63].strip("-_.")
    return text if text and _NAME.match(text) else None


def _bool(value: bool) -> str:
    return "true" if value else "false"


def nfd_labels(doc: dict[str, Any]) -> dict[str, str]:
    """label name (without the namespace) -> value."""
    raw: dict[str, Any] = {}
    exit_code = doc.get("exit_code")
    raw["healthy"] = _bool(exit_code == 0 and not doc.get("error"))
    raw["status"] = doc.get("status") or ("doctor-error" if doc.get("error") else None)
    if doc.get("error"):
        return _valid(raw)
    findings = [f for f in _list(doc.get("findings")) if isinstance(f, dict)]
    raw["errors"] = str(sum(1 for f in findings if f.get("severity") == "error"))
    raw["warnings"] = str(sum(1 for f in findings if f.get("severity") == "warning"))
    facts = _dict(doc.get("facts"))
    driver = _dict(facts.get("driver"))
    version = driver.get("nvml_driver_version") or driver.get("smi_driver_version")
    if isinstance(version, str):
        raw["driver"] = version
        m = _MAJOR.match(version)
        raw["driver-major"] = m.group(1) if m else None
    cuda = driver.get("nvml_cuda_version") or driver.get("smi_cuda_version")
    if isinstance(cuda, str):
        raw["cuda"] = cuda
        m = _MAJOR.match(cuda)
        raw["cuda-major"] = m.group(1) if m else None
    gpus = gpus_of(facts)
    raw["gpu-count"] = str(len(gpus))
    names = sorted({str(g.get("name")) for g in gpus if g.get("name")})
    if len(names) == 1:
        raw["gpu-model"] = names[0]
    ccs = {str(g.get("compute_capability")) for g in gpus if isinstance(g.get("compute_capability"), str)}
    if len(ccs) == 1:
        raw["compute-capability"] = ccs.pop()
    frameworks = _dict(facts.get("frameworks"))
    torch = _found(frameworks.get("torch"))
    if torch is not None:
        raw["torch"] = torch.get("version")
        raw["torch-cuda"] = _bool(bool(torch.get("cuda")))
        raw["torch-cuda-version"] = torch.get("cuda")
    tf = _found(frameworks.get("tensorflow"))
    if tf is not None:
        raw["tensorflow-cuda"] = _bool(bool(tf.get("cuda") or tf.get("is_cuda_build")))
    jax = _found(frameworks.get("jax"))
    if jax is not None:
        raw["jax-cuda"] = _bool(any("cuda" in str(k) for k in _dict(jax.get("plugins"))))
    return _valid(raw)


def _valid(raw: dict[str, Any]) -> dict[str, str]:
    out = {}
    for name, value in raw.items():
        v = label_value(value)
        if v is not None:
            out[name] = v
    return out


def render_nfd(doc: dict[str, Any], *, timestamp: float) -> str:
    expiry = datetime.fromtimestamp(timestamp, tz=timezone.utc) + EXPIRY
    lines = [
        "# gpudoctor check --format nfd (docs/cluster.md); NFD drops these labels when the file goes stale",
        f"# +expiry-time={expiry.strftime('%Y-%m-%dT%H:%M:%SZ')}",
    ]
    lines += [f"{NAMESPACE}/{name}={value}" for name, value in nfd_labels(doc).items()]
    return "\n".join(lines) + "\n"


def npd_status(doc: dict[str, Any]) -> int:
    """The plugin's exit status: 0 OK (exit 0), 1 a problem (exit 1), 2 unknown (the doctor failed)."""
    code = doc.get("exit_code")
    if doc.get("error") or code not in (0, 1):
        return NPD_UNKNOWN
    return NPD_OK if code == 0 else NPD_PROBLEM


def render_npd(doc: dict[str, Any], max_chars: int = NPD_MAX_CHARS) -> str:
    """One line: the condition's message. Worst finding first, then how many more."""
    from gpudoctor.sanitize import clean_line

    status = npd_status(doc)
    if status == NPD_UNKNOWN:
        error = _dict(doc.get("error"))
        line = f"gpudoctor could not check the node: {error.get('message') or 'exit status ' + str(doc.get('exit_code'))}"
    else:
        findings = [f for f in _list(doc.get("findings")) if isinstance(f, dict)]
        rank = {"error": 0, "warning": 1, "info": 2}
        findings.sort(key=lambda f: rank.get(str(f.get("severity")), 3))
        if status == NPD_OK:
            line = "gpudoctor: healthy" + (f" ({len(findings)} below --fail-on)" if findings else "")
        else:
            worst = findings[0] if findings else {}
            more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
            line = f"{worst.get('code')}: {worst.get('title')}{more}"
            if len(line) > max_chars and more:
                # Keep the count of the others visible: cut the title, not the tail.
                head = f"{worst.get('code')}: {worst.get('title')}"
                line = head[: max_chars - len(more) - 1] + "…" + more
    line = _SURROGATE.sub("\ufffd", clean_line(line))
    if len(line) > max_chars:
        line = line[: max_chars - 1] + "…"
    return line + "\n"


def render(result: Any) -> str:
    """--format nfd: the check's document as Node Feature Discovery labels, stamped now."""
    import time

    from gpudoctor.render.json_report import check_document

    return render_nfd(check_document(result), timestamp=time.time())


def render_error(message: str, hint: str | None, exit_code: Any, started: float = 0.0) -> str:
    import json
    import time

    from gpudoctor.render.json_report import error_document

    return render_nfd(json.loads(error_document(message, hint, exit_code)), timestamp=time.time())
