"""Merging JSON reports from many machines: nodes by findings, and the facts that differ between nodes.

Input: `gpudoctor check --format json` documents (schema gpudoctor.report/1),
one or several per file (plain `srun` concatenates its tasks' outputs), or a
directory of such files (`*.json`, not recursive). Each report is one node,
named by its `node` field (`check --node NAME`, the host name by default),
else by its file name (`reports/gpu-07.json` -> `gpu-07`; the second document
of `all.json` -> `all#2`). A name met twice keeps the first and suffixes the
others with their file name.

Pure except for reading the given files; no probing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gpudoctor.errors import GpudoctorError, MissingInput, UsageError

SCHEMA = "gpudoctor.merge/1"
REPORT_SCHEMA = "gpudoctor.report/1"
_SEVERITY_RANK = {"info": 10, "warning": 20, "error": 30}

# The facts compared between nodes, in display order: key -> label.
FACT_LABELS = {
    "gpu_models": "GPU models",
    "gpu_count": "GPU count",
    "driver": "driver version",
    "cuda": "CUDA (driver)",
    "pcie_width": "PCIe link width",
    "pcie_gen_max": "PCIe generation (max)",
    "toolkits": "CUDA toolkits",
    "cudnn": "cuDNN",
    "python": "Python",
    "torch": "PyTorch build",
    "tensorflow": "TensorFlow build",
    "jax": "JAX build",
    "nvidia_wheels": "NVIDIA wheels",
    "kernel": "kernel",
    "os": "OS",
    "container": "container",
}


@dataclass
class Node:
    name: str
    source: str
    status: str  # healthy, info, warning, error, doctor-error
    exit_code: int | None
    findings: list[dict[str, Any]]
    facts: dict[str, str]
    requirements: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None  # the doctor's own failure (an error document, exit 3)

    def worst_rank(self) -> int:
        return max((_SEVERITY_RANK.get(f.get("severity", ""), 0) for f in self.findings), default=0)


@dataclass
class Unreadable:
    source: str
    error: str


@dataclass
class Merged:
    nodes: list[Node]
    unreadable: list[Unreadable]
    codes: dict[str, dict[str, Any]]  # code -> {severity, nodes, titles: {title: nodes}}
    differences: dict[str, dict[str, list[str]]]  # fact -> value -> nodes
    same: dict[str, str]  # fact -> the value every node shares


# --------------------------------------------------------------------------- reading


def expand_paths(paths: Iterable[str]) -> tuple[list[str], list[Unreadable]]:
    """Files as given, and the `*.json` entries of each directory, sorted; and the directories that
    could not be listed. A missing path is a usage error (exit 2).

    Every `*.json` entry of a directory is taken, whatever it is: a FIFO, a device or a directory named
    `x.json` is then listed as unreadable by `read_reports`, never silently skipped.
    """
    files: list[str] = []
    bad: list[Unreadable] = []
    for p in paths:
        if os.path.isdir(p):
            try:
                names = os.listdir(p)
            except OSError as exc:
                bad.append(Unreadable(p, f"cannot list directory: {exc.strerror or exc}"))
                continue
            found = sorted(os.path.join(p, n) for n in names if n.endswith(".json"))
            if not found:
                raise UsageError(
                    f"no *.json reports in directory {p}", hint="write them with: gpudoctor check --format json > DIR/NODE.json"
                )
            files += found
        elif os.path.lexists(p):
            files.append(p)
        else:
            raise MissingInput(f"no such report file or directory: {p}")
    if not files and not bad:
        raise UsageError("no reports given", hint="gpudoctor report merge REPORT.json ... | DIR")
    return files, bad


def _without_path(message: str, path: str) -> str:
    """An InputError's message without the leading path: the unreadable list names it already."""
    return message[len(path) + 1 :] if message.startswith(path + " ") else message


def read_reports(files: Iterable[str]) -> tuple[list[tuple[str, str, dict[str, Any]]], list[Unreadable]]:
    """(default node name, source, document) per report, and what could not be read.

    Each file is read bounded (gpudoctor.bounded: a regular file of at most 32 MiB, strict JSON nested at
    most 64 deep); one that fails any bound is unreadable, and the others are still merged.
    """
    from gpudoctor.bounded import parse_json_documents, read_input_text

    out: list[tuple[str, str, dict[str, Any]]] = []
    bad: list[Unreadable] = []
    for path in files:
        stem = os.path.basename(path)
        stem = stem[: -len(".json")] if stem.endswith(".json") else stem
        try:
            docs = parse_json_documents(read_input_text(path, "report"), path, "report")
        except GpudoctorError as exc:  # InputError, and MissingInput for a file gone since it was listed
            bad.append(Unreadable(path, _without_path(exc.message, path)))
            continue
        if not docs:
            bad.append(Unreadable(path, "empty file"))
            continue
        for k, doc in enumerate(docs, 1):
            where = path if len(docs) == 1 else f"{path}#{k}"
            if not isinstance(doc, dict) or doc.get("schema") != REPORT_SCHEMA:
                got = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
                bad.append(Unreadable(where, f"not a gpudoctor report (schema {got!r}, expected {REPORT_SCHEMA!r})"))
                continue
            out.append((stem if len(docs) == 1 else f"{stem}#{k}", where, doc))
    return out, bad


# --------------------------------------------------------------------------- facts


def _found(outcome: Any) -> Any:
    if isinstance(outcome, dict) and outcome.get("status") == "found":
        return outcome.get("value")
    return None


def _status(outcome: Any) -> str:
    if isinstance(outcome, dict):
        return str(outcome.get("status", "unknown"))
    return "unknown"


def node_facts(facts: Any) -> dict[str, str]:
    """The comparable facts of one report's `facts` object, each as one display string."""
    if not isinstance(facts, dict):
        return {}
    out: dict[str, str] = {}
    driver = facts.get("driver") or {}
    gpus = [g for g in driver.get("gpus") or [] if isinstance(g, dict)]
    models: dict[str, int] = {}
    for g in gpus:
        name = g.get("name") or "unknown GPU"
        models[name] = models.get(name, 0) + 1
    out["gpu_models"] = ", ".join(f"{n} × {name}" for name, n in sorted(models.items())) or "none"
    out["gpu_count"] = str(len(gpus))
    out["driver"] = driver.get("nvml_driver_version") or driver.get("smi_driver_version") or "none"
    out["cuda"] = driver.get("nvml_cuda_version") or driver.get("smi_cuda_version") or "none"
    if gpus:
        out["pcie_width"] = " ".join(f"x{g.get('pcie_width_current') or '?'}" for g in gpus)
        out["pcie_gen_max"] = " ".join(f"Gen{g.get('pcie_gen_max') or '?'}" for g in gpus)
    tks = (facts.get("toolkits") or {}).get("toolkits") or []
    out["toolkits"] = ", ".join(sorted({str(t.get("version") or "?") for t in tks if isinstance(t, dict)})) or "none"
    cudnn = facts.get("cudnn") or []
    out["cudnn"] = ", ".join(sorted({str(c.get("version") or "?") for c in cudnn if isinstance(c, dict)})) or "none"
    fw = facts.get("frameworks") or {}
    py = _found(fw.get("python"))
    out["python"] = str(py.get("version")) if isinstance(py, dict) and py.get("version") else _status(fw.get("python"))
    torch = _found(fw.get("torch"))
    if isinstance(torch, dict):
        cuda = torch.get("cuda")
        out["torch"] = f"{torch.get('version')} " + (
            f"(CUDA {cuda})" if cuda else f"(ROCm {torch['hip']})" if torch.get("hip") else "(CPU)"
        )
    else:
        out["torch"] = _status(fw.get("torch"))
    tf = _found(fw.get("tensorflow"))
    if isinstance(tf, dict):
        kind = f"CUDA {tf.get('cuda')}" if tf.get("cuda") else ("CPU" if tf.get("is_cuda_build") is False else "build unknown")
        out["tensorflow"] = f"{tf.get('distribution')} {tf.get('version')} ({kind})"
    else:
        out["tensorflow"] = _status(fw.get("tensorflow"))
    jax = _found(fw.get("jax"))
    if isinstance(jax, dict):
        plugins = ", ".join(f"{k} {v}" for k, v in sorted((jax.get("plugins") or {}).items()))
        out["jax"] = f"{jax.get('jax') or '?'} (jaxlib {jax.get('jaxlib') or '?'}{'; ' + plugins if plugins else ''})"
    else:
        out["jax"] = _status(fw.get("jax"))
    wheels = fw.get("nvidia_wheels") or {}
    out["nvidia_wheels"] = ", ".join(f"{k} {v}" for k, v in sorted(wheels.items())) or "none"
    plat = facts.get("platform") or {}
    out["kernel"] = str(plat.get("release") or "?")
    distro = plat.get("distro") or {}
    out["os"] = str(distro.get("pretty_name") or plat.get("system") or "?")
    out["container"] = str(plat.get("container") or "none")
    return out


# --------------------------------------------------------------------------- merging


def _error_text(error: Any) -> str | None:
    if not isinstance(error, dict):
        return None
    message = str(error.get("message") or "failed")
    return message + (f" (hint: {error['hint']})" if error.get("hint") else "")


def _finding(f: dict[str, Any]) -> dict[str, Any]:
    """A finding's code, severity and title as strings: what merging compares and shows."""
    return {"code": str(f.get("code")), "severity": str(f.get("severity", "info")), "title": str(f.get("title") or "")}


def _node(name: str, source: str, doc: dict[str, Any]) -> Node:
    exit_code = doc.get("exit_code")
    return Node(
        name,
        source,
        str(doc.get("status") or ("doctor-error" if doc.get("error") else "healthy")),
        exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None,
        [_finding(f) for f in _list(doc.get("findings")) if isinstance(f, dict)],
        node_facts(doc.get("facts")) if "facts" in doc else {},
        [r for r in _list(doc.get("requirements")) if isinstance(r, dict)],
        _error_text(doc.get("error")),
    )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def merge_documents(reports: list[tuple[str, str, dict[str, Any]]], unreadable: list[Unreadable] | None = None) -> Merged:
    nodes: list[Node] = []
    bad: list[Unreadable] = list(unreadable or [])
    seen: set[str] = set()
    for default_name, source, doc in reports:
        name = str(doc.get("node") or default_name)
        if name in seen:
            name = f"{name} ({os.path.basename(source)})"
        k = 2
        while name in seen:
            name, k = f"{name}#{k}", k + 1
        try:
            node = _node(name, source, doc)
        except (AttributeError, TypeError, ValueError, KeyError) as exc:
            # A report of the right schema with a field of the wrong type: this node is unreadable,
            # the others are still merged.
            bad.append(Unreadable(source, f"malformed report ({type(exc).__name__}: {exc})"))
            continue
        seen.add(name)
        nodes.append(node)
    codes: dict[str, dict[str, Any]] = {}
    for n in nodes:
        for f in n.findings:
            code = str(f.get("code"))
            entry = codes.setdefault(code, {"severity": f.get("severity", "info"), "nodes": [], "titles": {}})
            if _SEVERITY_RANK.get(str(f.get("severity")), 0) > _SEVERITY_RANK.get(entry["severity"], 0):
                entry["severity"] = f.get("severity")
            if n.name not in entry["nodes"]:
                entry["nodes"].append(n.name)
            holders = entry["titles"].setdefault(str(f.get("title") or ""), [])
            if n.name not in holders:
                holders.append(n.name)
    codes = dict(sorted(codes.items(), key=lambda kv: (-_SEVERITY_RANK.get(kv[1]["severity"], 0), kv[0])))
    differences: dict[str, dict[str, list[str]]] = {}
    same: dict[str, str] = {}
    with_facts = [n for n in nodes if n.facts]
    for key in FACT_LABELS:
        values: dict[str, list[str]] = {}
        for n in with_facts:
            if key in n.facts:
                values.setdefault(n.facts[key], []).append(n.name)
        if not values:
            continue
        covered = sum(len(v) for v in values.values())
        if len(values) > 1 or covered < len(with_facts):
            if covered < len(with_facts):
                values["(not reported)"] = [n.name for n in with_facts if key not in n.facts]
            differences[key] = dict(sorted(values.items(), key=lambda kv: (-len(kv[1]), kv[0])))
        else:
            same[key] = next(iter(values))
    return Merged(nodes, bad, codes, differences, same)


def merge_paths(paths: Iterable[str]) -> Merged:
    files, unlisted = expand_paths(paths)
    reports, bad = read_reports(files)
    return merge_documents(reports, unlisted + bad)


def merge_exit_code(merged: Merged, fail_on_rank: int, fail_on_drift: bool) -> int:
    """0 every node fine; 1 a node with findings at or above --fail-on, an unreadable report, a node
    whose doctor failed, or (with --fail-on-drift) facts that differ; 3 when no report could be read."""
    if not merged.nodes:
        return 3
    if merged.unreadable or any(n.status == "doctor-error" for n in merged.nodes):
        return 1
    if any(n.worst_rank() >= fail_on_rank for n in merged.nodes):
        return 1
    if fail_on_drift and merged.differences:
        return 1
    return 0


# --------------------------------------------------------------------------- rendering

_CELL = {"error": "E", "warning": "W", "info": "i"}


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in rows]


def render_text(merged: Merged) -> str:
    nodes = merged.nodes
    by_status: dict[str, int] = {}
    for n in nodes:
        by_status[n.status] = by_status.get(n.status, 0) + 1
    parts = [
        f"{v} {k}"
        for k, v in sorted(
            by_status.items(),
            key=lambda kv: (
                ("healthy", "info", "warning", "error", "doctor-error").index(kv[0])
                if kv[0] in ("healthy", "info", "warning", "error", "doctor-error")
                else 9
            ),
        )
    ]
    head = f"{len(nodes)} node(s)" + (f": {', '.join(parts)}" if parts else "")
    if merged.unreadable:
        head += f"; {len(merged.unreadable)} report(s) unreadable"
    out = [head, ""]
    if nodes:
        codes = list(merged.codes)
        rows = [["NODE", "STATUS", "EXIT", *codes]]
        for n in nodes:
            sev = {
                str(f.get("code")): str(f.get("severity"))
                for f in sorted(n.findings, key=lambda f: _SEVERITY_RANK.get(str(f.get("severity")), 0))
            }
            rows.append(
                [
                    n.name,
                    n.status,
                    "?" if n.exit_code is None else str(n.exit_code),
                    *(_CELL.get(sev[c], "?") if c in sev else "." for c in codes),
                ]
            )
        out += _table(rows)
        out.append("")
    if merged.codes:
        out.append("Findings (E error, W warning, i note):")
        for code, entry in merged.codes.items():
            out.append(f"  {code} ({entry['severity']}) on {len(entry['nodes'])} of {len(nodes)}: {', '.join(entry['nodes'])}")
            titles = entry["titles"]
            for title, holders in titles.items():
                if title:
                    out.append(f"    {title}" + (f"  [{', '.join(holders)}]" if len(titles) > 1 else ""))
        out.append("")
    if merged.differences:
        out.append("Facts that differ between nodes:")
        for key, values in merged.differences.items():
            out.append(f"  {FACT_LABELS[key]}:")
            width = max(len(v) for v in values)
            for value, names in values.items():
                out.append(f"    {value.ljust(width)}  {', '.join(names)}")
        out.append("")
    elif len([n for n in nodes if n.facts]) > 1:
        out += ["Facts that differ between nodes: none", ""]
    if merged.same:
        out.append("Same on every node:")
        width = max(len(FACT_LABELS[k]) for k in merged.same)
        for key, value in merged.same.items():
            out.append(f"  {FACT_LABELS[key].ljust(width)}  {value}")
        out.append("")
    failed = [n for n in nodes if n.error]
    if failed:
        out.append("Nodes where the doctor itself failed:")
        out += [f"  {n.name}: {n.error}" for n in failed]
        out.append("")
    if merged.unreadable:
        out.append("Unreadable reports:")
        out += [f"  {u.source}: {u.error}" for u in merged.unreadable]
        out.append("")
    # Every entry of `out` is one line; node names, titles and facts come from files anyone can write:
    # clean_line shows their controls and newlines as escapes, so none acts on the terminal or forges a line.
    from gpudoctor.sanitize import clean_line

    return "\n".join(clean_line(line) for line in out).rstrip("\n") + "\n"


def render_json(merged: Merged, exit_code: int) -> str:
    doc = {
        "schema": SCHEMA,
        "exit_code": exit_code,
        "nodes": [
            {
                "node": n.name,
                "source": n.source,
                "status": n.status,
                "exit_code": n.exit_code,
                "findings": [{"code": f.get("code"), "severity": f.get("severity"), "title": f.get("title")} for f in n.findings],
                "requirements": n.requirements,
                "facts": n.facts,
                "error": n.error,
            }
            for n in merged.nodes
        ],
        "codes": merged.codes,
        "differences": {k: [{"value": v, "nodes": names} for v, names in vals.items()] for k, vals in merged.differences.items()},
        "same": merged.same,
        "unreadable": [{"source": u.source, "error": u.error} for u in merged.unreadable],
    }
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"
