"""Merging JSON reports from many machines: nodes by findings, and the facts that differ between nodes.

Input: `gpudoctor check --format json` documents (schema gpudoctor.report/1),
one or several per file (plain `srun` concatenates its tasks' outputs), or a
directory of such files (`*.json`, not recursive). Each report is one node,
named by its `node` field (`check --node NAME`, the host name by default),
else by its file name (`reports/gpu-07.json` -> `gpu-07`; the second document
of `all.json` -> `all#2`). A name met twice keeps the first and suffixes the
others with their file name.

At fleet size (docs/cluster.md, bench/merge_fleet.py): reports are read one at a time and folded into
a `Merger`, so memory does not grow with the reports, only with the node names (each finding's and
each fact value's list of nodes: a reference per node, plus the names themselves, about 100 bytes a
node). Up to DETAIL_LIMIT nodes the text view lists every node; above it, nodes are grouped by their
findings and each fact's drift is "N nodes differ" with a few names. Distinct fact values, titles and
finding sets are tracked up to MAX_GROUPS each (the rest are counted together) and each kept text is cut
at MAX_TEXT characters: a fleet of hostile reports cannot grow them without bound either. `--format json`
spools each node's entry to a temporary file as it is read and copies them out at the end.
`--baseline REPORT` compares every node's facts and findings with one known-good report.

Pure except for reading the given files (and the spool); no probing.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from gpudoctor.errors import GpudoctorError, MissingInput, UsageError

SCHEMA = "gpudoctor.merge/1"
REPORT_SCHEMA = "gpudoctor.report/1"
_SEVERITY_RANK = {"info": 10, "warning": 20, "error": 30}
_STATUS_ORDER = ("healthy", "info", "warning", "error", "doctor-error")

DETAIL_LIMIT = 50  # up to this many nodes, the text view has one line per node
SHOWN_NAMES = 5  # beyond it, each group names this many nodes and counts the rest
MAX_GROUPS = 1000  # distinct values per fact, titles per code, finding sets, failed nodes kept
MAX_TEXT = 1024  # a fact value, title, error or name kept at most this long
# What one report may bring: a node has tens of findings; one hostile report of 250,000 must not fill the
# merge. The rest is counted in one "report-capped" line of that node, so the cut is said, not silent.
MAX_FINDINGS_PER_REPORT = 256
MAX_REQUIREMENTS_PER_REPORT = 256
OTHER = "(other values)"

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

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.name,
            "source": self.source,
            "status": self.status,
            "exit_code": self.exit_code,
            "findings": [{"code": f.get("code"), "severity": f.get("severity"), "title": f.get("title")} for f in self.findings],
            "requirements": self.requirements,
            "facts": self.facts,
            "error": self.error,
        }


@dataclass
class Unreadable:
    source: str
    error: str


@dataclass
class Baseline:
    """`--baseline REPORT`: the known-good node, and how every merged node differs from it."""

    node: Node
    differences: dict[str, dict[str, list[str]]]  # fact -> value (not the baseline's) -> nodes
    codes: dict[str, dict[str, Any]]  # code the baseline does not have -> {severity, nodes}


@dataclass
class Merged:
    nodes: list[Node]  # every node up to DETAIL_LIMIT (+1); beyond, only the first ones (the spool has all)
    unreadable: list[Unreadable]
    codes: dict[str, dict[str, Any]]  # code -> {severity, nodes, titles: {title: nodes}}
    differences: dict[str, dict[str, list[str]]]  # fact -> value -> nodes
    same: dict[str, str]  # fact -> the value every node shares
    count: int = 0  # nodes merged
    by_status: dict[str, int] = field(default_factory=dict)
    groups: list[tuple[str, tuple[tuple[str, str], ...], int, list[str]]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (node, the doctor's error), at most MAX_GROUPS
    failed_count: int = 0
    max_rank: int = 0
    with_facts: int = 0
    baseline: Baseline | None = None
    spool: IO[str] | None = None  # one JSON node entry a line, when asked for (--format json)

    @property
    def grouped(self) -> bool:
        return self.count > DETAIL_LIMIT


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


def iter_reports(files: Iterable[str]) -> Iterator[tuple[str, str, dict[str, Any]] | Unreadable]:
    """(default node name, source, document) per report, or what could not be read, one file at a time.

    Each file is read bounded (gpudoctor.bounded: a regular file of at most 32 MiB, strict JSON nested at
    most 64 deep); one that fails any bound is unreadable, and the others are still merged.
    """
    from gpudoctor.bounded import parse_json_documents, read_input_text

    for path in files:
        stem = os.path.basename(path)
        stem = stem[: -len(".json")] if stem.endswith(".json") else stem
        try:
            text = read_input_text(path, "report")
        except GpudoctorError as exc:  # InputError, and MissingInput for a file gone since it was listed
            yield Unreadable(path, _cut(_without_path(exc.message, path)))
            continue
        try:
            docs = parse_json_documents(text, path, "report")
        except GpudoctorError as exc:
            # Whole reports before the problem (srun's outputs, then a truncated or garbled one) still count.
            docs = _documents_before_error(text)
            if not docs:
                yield Unreadable(path, _cut(_without_path(exc.message, path)))
                continue
            docs.append(Unreadable(f"{path}#{len(docs) + 1}", _cut(_without_path(exc.message, path))))
        del text
        if not docs:
            yield Unreadable(path, "empty file")
            continue
        for k, doc in enumerate(docs, 1):
            if isinstance(doc, Unreadable):
                yield doc
                continue
            where = path if len(docs) == 1 else f"{path}#{k}"
            if not isinstance(doc, dict) or doc.get("schema") != REPORT_SCHEMA:
                got = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
                yield Unreadable(where, _cut(f"not a gpudoctor report (schema {got!r}, expected {REPORT_SCHEMA!r})"))
                continue
            yield (stem if len(docs) == 1 else f"{stem}#{k}", where, doc)
        del docs


def _documents_before_error(text: str) -> list[Any]:
    """The JSON documents that `text` holds whole before its first unreadable part (each within the
    nesting bound of gpudoctor.bounded)."""
    from gpudoctor.bounded import decoder, json_depth_ok

    dec = decoder()
    docs: list[Any] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return docs
        try:
            value, i = dec.raw_decode(text, i)
        except (ValueError, RecursionError):
            return docs
        if not json_depth_ok(value):
            return docs
        docs.append(value)


def read_reports(files: Iterable[str]) -> tuple[list[tuple[str, str, dict[str, Any]]], list[Unreadable]]:
    """Every report of `files` in memory (for a few files; `merge_paths` streams)."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    bad: list[Unreadable] = []
    for item in iter_reports(files):
        if isinstance(item, Unreadable):
            bad.append(item)
        else:
            out.append(item)
    return out, bad


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
    return _cut(message + (f" (hint: {error['hint']})" if error.get("hint") else ""))


def _finding(f: dict[str, Any]) -> dict[str, Any]:
    """A finding's code, severity and title as strings: what merging compares and shows."""
    return {
        "code": _cut(str(f.get("code")), 200),
        "severity": _cut(str(f.get("severity", "info")), 50),
        "title": _cut(str(f.get("title") or "")),
    }


def _node(name: str, source: str, doc: dict[str, Any]) -> Node:
    exit_code = doc.get("exit_code")
    facts = node_facts(doc.get("facts")) if "facts" in doc else {}
    raw = _list(doc.get("findings"))
    findings = [_finding(f) for f in raw[:MAX_FINDINGS_PER_REPORT]]
    if len(raw) > MAX_FINDINGS_PER_REPORT:
        findings.append(
            {
                "code": "report-capped",
                "severity": "info",
                "title": f"{len(raw) - MAX_FINDINGS_PER_REPORT} more findings not merged: "
                f"one report brings at most {MAX_FINDINGS_PER_REPORT}",
            }
        )
    requirements = [_requirement(r) for r in _list(doc.get("requirements"))[:MAX_REQUIREMENTS_PER_REPORT]]
    return Node(
        name,
        source,
        str(doc.get("status") or ("doctor-error" if doc.get("error") else "healthy")),
        exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None,
        findings,
        {k: _cut(v) for k, v in facts.items()},
        requirements,
        _error_text(doc.get("error")),
    )


def _requirement(r: dict[str, Any]) -> dict[str, Any]:
    """A requirement's outcome as merging keeps it: its scalar fields, texts cut (nothing nested grows the merge)."""
    return {
        _cut(str(k), 100): (_cut(v) if isinstance(v, str) else v)
        for k, v in list(r.items())[:32]
        if v is None or isinstance(v, (str, int, float, bool))
    }


# What a report's fields must be (schema gpudoctor.report/1): a field of another type makes the report
# unreadable with this named, rather than read as something it does not say.
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "node": (str,),
    "status": (str,),
    "exit_code": (int,),
    "findings": (list,),
    "facts": (dict,),
    "requirements": (list,),
    "error": (dict, type(None)),
}
_FINDING_TYPES: dict[str, tuple[type, ...]] = {"code": (str,), "severity": (str,), "title": (str,)}


def type_problem(doc: dict[str, Any]) -> str | None:
    """None when the fields merging reads have their types; else which field is wrong, in one clause."""

    def kind(value: Any) -> str:
        return (
            "null"
            if value is None
            else {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(type(value), "a number")
        )

    for name, types in _FIELD_TYPES.items():
        if name in doc and (not isinstance(doc[name], types) or isinstance(doc[name], bool)):
            want = " or ".join(kind(t()) if t is not type(None) else "null" for t in types)
            return f"field {name!r} is {kind(doc[name])}, not {want}"
    for i, f in enumerate(doc.get("findings") or []):
        if not isinstance(f, dict):
            return f"findings[{i}] is {kind(f)}, not an object"
        for name, types in _FINDING_TYPES.items():
            if name not in f or not isinstance(f[name], types):
                return f"findings[{i}].{name} is {kind(f.get(name)) if name in f else 'missing'}, not a string"
        if f["severity"] not in _SEVERITY_RANK:
            return f"findings[{i}].severity is {f['severity'][:20]!r}, not one of info, warning, error"
    for i, r in enumerate(doc.get("requirements") or []):
        if not isinstance(r, dict):
            return f"requirements[{i}] is {kind(r)}, not an object"
    return None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


class Merger:
    """Reports folded in one at a time (`add`); `result()` the merge. Memory: see the module's docstring."""

    def __init__(self, baseline: Node | None = None, spool: bool = False) -> None:
        self.count = 0
        self.by_status: dict[str, int] = {}
        self.detail: list[Node] = []
        self.seen: set[str] = set()
        self.unreadable: list[Unreadable] = []
        self.codes: dict[str, dict[str, Any]] = {}
        self.values: dict[str, dict[str, list[str]]] = {k: {} for k in FACT_LABELS}
        self.missing: dict[str, list[str]] = {k: [] for k in FACT_LABELS}
        self.with_facts = 0
        self.groups: dict[tuple[str, tuple[tuple[str, str], ...]], list[Any]] = {}
        self.failed: list[tuple[str, str]] = []
        self.failed_count = 0
        self.max_rank = 0
        self.baseline = baseline
        self.vs_baseline: dict[str, dict[str, list[str]]] = {k: {} for k in FACT_LABELS}
        self.new_codes: dict[str, dict[str, Any]] = {}
        # Closed with the merge (it lives as long as the Merged that writes it out).
        self.spool: IO[str] | None = tempfile.TemporaryFile("w+", encoding="utf-8") if spool else None  # noqa: SIM115

    def add_unreadable(self, item: Unreadable) -> None:
        self.unreadable.append(item)

    def add(self, default_name: str, source: str, doc: dict[str, Any]) -> None:
        item = summarize(default_name, source, doc)
        if isinstance(item, Unreadable):
            self.unreadable.append(item)
        else:
            self.add_node(item)

    def add_node(self, node: Node) -> None:
        """A node read by `summarize` (here or in a worker process), named uniquely, folded in."""
        name = node.name
        if name in self.seen:
            name = f"{name} ({os.path.basename(node.source)})"
        k = 2
        while name in self.seen:
            name, k = f"{name}#{k}", k + 1
        node.name = name
        self.seen.add(name)
        self._fold(node)

    def _fold(self, n: Node) -> None:
        self.count += 1
        self.by_status[n.status] = self.by_status.get(n.status, 0) + 1
        self.max_rank = max(self.max_rank, n.worst_rank())
        if len(self.detail) <= DETAIL_LIMIT:
            self.detail.append(n)
        if self.spool is not None:
            self.spool.write(json.dumps(n.to_json(), sort_keys=True) + "\n")
        if n.error or n.status == "doctor-error":
            self.failed_count += 1
            if n.error and len(self.failed) < MAX_GROUPS:
                self.failed.append((n.name, n.error))
        worst: dict[str, str] = {}
        for f in n.findings:
            code, sev = f["code"], f["severity"]
            if _SEVERITY_RANK.get(sev, 0) >= _SEVERITY_RANK.get(worst.get(code, ""), -1):
                worst[code] = sev
            entry = self.codes.get(code)
            if entry is None:
                entry = self.codes[code] = {"severity": sev, "nodes": [], "titles": {}}
            if _SEVERITY_RANK.get(sev, 0) > _SEVERITY_RANK.get(entry["severity"], 0):
                entry["severity"] = sev
            if not entry["nodes"] or entry["nodes"][-1] is not n.name:
                entry["nodes"].append(n.name)
            titles = entry["titles"]
            title = f["title"] if f["title"] in titles or len(titles) < MAX_GROUPS else OTHER
            holders = titles.setdefault(title, [])
            if not holders or holders[-1] is not n.name:
                holders.append(n.name)
        key = (n.status, tuple(sorted(worst.items())))
        group = self.groups.get(key)
        if group is None and len(self.groups) >= MAX_GROUPS:
            key = (n.status, (("(other findings)", ""),))
            group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = [0, []]
        group[0] += 1
        if len(group[1]) < SHOWN_NAMES:
            group[1].append(n.name)
        if n.facts:
            self.with_facts += 1
            for key_, values in self.values.items():
                value = n.facts.get(key_)
                if value is None:
                    self.missing[key_].append(n.name)
                    continue
                holders = values.get(value)
                if holders is None:
                    holders = values.setdefault(value if len(values) < MAX_GROUPS else OTHER, [])
                holders.append(n.name)
            if self.baseline is not None:
                self._compare(n)

    def _compare(self, n: Node) -> None:
        assert self.baseline is not None
        ref = self.baseline.facts
        for key in FACT_LABELS:
            value = n.facts.get(key, "(not reported)")
            if value != ref.get(key, "(not reported)"):
                values = self.vs_baseline[key]
                holders = values.get(value)
                if holders is None:
                    holders = values.setdefault(value if len(values) < MAX_GROUPS else OTHER, [])
                holders.append(n.name)
        ref_codes = {f["code"] for f in self.baseline.findings}
        seen: set[str] = set()
        for f in n.findings:
            code = f["code"]
            if code in ref_codes or code in seen:
                continue
            seen.add(code)
            entry = self.new_codes.setdefault(code, {"severity": f["severity"], "nodes": []})
            if _SEVERITY_RANK.get(f["severity"], 0) > _SEVERITY_RANK.get(entry["severity"], 0):
                entry["severity"] = f["severity"]
            entry["nodes"].append(n.name)

    def result(self) -> Merged:
        codes = dict(sorted(self.codes.items(), key=lambda kv: (-_SEVERITY_RANK.get(kv[1]["severity"], 0), kv[0])))
        differences: dict[str, dict[str, list[str]]] = {}
        same: dict[str, str] = {}
        for key, values in self.values.items():
            if not values:
                continue
            if len(values) > 1 or self.missing[key]:
                if self.missing[key]:
                    values["(not reported)"] = self.missing[key]
                differences[key] = _by_count(values)
            else:
                same[key] = next(iter(values))
        baseline = None
        if self.baseline is not None:
            baseline = Baseline(
                self.baseline,
                {k: _by_count(v) for k, v in self.vs_baseline.items() if v},
                dict(sorted(self.new_codes.items(), key=lambda kv: (-_SEVERITY_RANK.get(kv[1]["severity"], 0), kv[0]))),
            )
        groups = sorted(
            ((status, codes_, g[0], g[1]) for (status, codes_), g in self.groups.items()),
            key=lambda g: (_status_rank(g[0]), -g[2], g[1]),
        )
        if self.spool is not None:
            self.spool.seek(0)
        return Merged(
            self.detail,
            self.unreadable,
            codes,
            differences,
            same,
            count=self.count,
            by_status=self.by_status,
            groups=groups,
            failed=self.failed,
            failed_count=self.failed_count,
            max_rank=self.max_rank,
            with_facts=self.with_facts,
            baseline=baseline,
            spool=self.spool,
        )


def _status_rank(status: str) -> int:
    return _STATUS_ORDER.index(status) if status in _STATUS_ORDER else 9


def _by_count(values: dict[str, list[str]]) -> dict[str, list[str]]:
    return dict(sorted(values.items(), key=lambda kv: (-len(kv[1]), kv[0])))


def merge_documents(reports: Iterable[tuple[str, str, dict[str, Any]]], unreadable: list[Unreadable] | None = None) -> Merged:
    merger = Merger()
    for item in unreadable or []:
        merger.add_unreadable(item)
    for default_name, source, doc in reports:
        merger.add(default_name, source, doc)
    return merger.result()


def read_baseline(path: str) -> Node:
    """`--baseline REPORT`: one readable report (exit 2 when it is missing or is not one)."""
    if not os.path.lexists(path):
        raise MissingInput(f"no such baseline report: {path}")
    items = list(iter_reports([path]))
    if len(items) != 1 or isinstance(items[0], Unreadable):
        why = items[0].error if items and isinstance(items[0], Unreadable) else f"{len(items)} reports in one file"
        raise UsageError(f"--baseline {path}: not one readable report ({why})", "give one node's `gpudoctor check --format json`")
    node = summarize(*items[0])
    if isinstance(node, Unreadable):
        raise UsageError(f"--baseline {path}: {node.error}")
    return node


def summarize(default_name: str, source: str, doc: dict[str, Any]) -> Node | Unreadable:
    """One report as the merge keeps it (named by its `node`, else `default_name`; made unique later)."""
    problem = type_problem(doc)
    if problem:
        return Unreadable(source, _cut(f"malformed report: {problem}"))
    try:
        return _node(_cut(str(doc.get("node") or default_name), 256), source, doc)
    except (AttributeError, TypeError, ValueError, KeyError) as exc:
        # A report of the right schema with a field of the wrong type: this node is unreadable,
        # the others are still merged.
        return Unreadable(source, _cut(f"malformed report ({type(exc).__name__}: {exc})"))


def read_summaries(files: list[str]) -> list[Node | Unreadable]:
    """`files` read and summarized: what a worker process sends back (a few hundred bytes a node)."""
    return [item if isinstance(item, Unreadable) else summarize(*item) for item in iter_reports(files)]


PARALLEL_MIN = 2000  # files from which reading is spread over worker processes (--jobs)
CHUNK = 250  # files per task given to a worker


def default_jobs(files: int) -> int:
    """Worker processes for `files` files: one per CPU (at most 4) for a fleet, none for a few reports."""
    return 1 if files < PARALLEL_MIN else max(1, min(4, os.cpu_count() or 1))


def _summaries(files: list[str], jobs: int) -> Iterator[Node | Unreadable]:
    """Every file's summaries, in the order of `files`. With jobs > 1, worker processes read and parse
    (the costly part) while this one folds; at most 2 x jobs tasks are in flight, so results never pile
    up in memory however slow the folding is."""
    if jobs <= 1:
        for item in iter_reports(files):
            yield item if isinstance(item, Unreadable) else summarize(*item)
        return
    import multiprocessing
    from collections import deque
    from itertools import islice

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunks = (files[i : i + CHUNK] for i in range(0, len(files), CHUNK))
    with ctx.Pool(jobs) as pool:
        pending = deque(pool.apply_async(read_summaries, (c,)) for c in islice(chunks, 2 * jobs))
        while pending:
            done = pending.popleft().get()
            for chunk in islice(chunks, 1):
                pending.append(pool.apply_async(read_summaries, (chunk,)))
            yield from done


def merge_paths(paths: Iterable[str], baseline: str | None = None, spool: bool = False, jobs: int = 0) -> Merged:
    """Merge the reports of `paths` one at a time (see the module's docstring); jobs 0: `default_jobs`."""
    ref = read_baseline(baseline) if baseline is not None else None
    files, unlisted = expand_paths(paths)
    merger = Merger(ref, spool)
    for bad in unlisted:
        merger.add_unreadable(bad)
    for item in _summaries(files, jobs or default_jobs(len(files))):
        if isinstance(item, Unreadable):
            merger.add_unreadable(item)
        else:
            merger.add_node(item)
    return merger.result()


def merge_exit_code(merged: Merged, fail_on_rank: int, fail_on_drift: bool) -> int:
    """0 every node fine; 1 a node with findings at or above --fail-on, an unreadable report, a node
    whose doctor failed, or (with --fail-on-drift) facts that differ (from the baseline's, with
    --baseline); 3 when no report could be read."""
    if not merged.count:
        return 3
    if merged.unreadable or merged.failed_count:
        return 1
    if merged.max_rank >= fail_on_rank:
        return 1
    if fail_on_drift:
        if merged.baseline is not None:
            return 1 if merged.baseline.differences or merged.baseline.codes else 0
        if merged.differences:
            return 1
    return 0


# --------------------------------------------------------------------------- rendering

_CELL = {"error": "E", "warning": "W", "info": "i"}


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in rows]


def _names(names: list[str], grouped: bool) -> str:
    """Every name in a small merge; at fleet size the first SHOWN_NAMES and how many more."""
    if not grouped or len(names) <= SHOWN_NAMES:
        return ", ".join(names)
    return ", ".join(names[:SHOWN_NAMES]) + f", … (+{len(names) - SHOWN_NAMES} more)"


def _nodes(n: int) -> str:
    return f"{n} node" if n == 1 else f"{n} nodes"


def render_text(merged: Merged, columns: int | None = None) -> str:
    """The text view; `columns`: prose wrapped to that width (a terminal's), the tables' rows whole."""
    from gpudoctor.textfit import Whole, fit_lines

    grouped = merged.grouped
    parts = [f"{v} {k}" for k, v in sorted(merged.by_status.items(), key=lambda kv: _status_rank(kv[0]))]
    head = f"{merged.count} node(s)" + (f": {', '.join(parts)}" if parts else "")
    if merged.unreadable:
        head += f"; {len(merged.unreadable)} report(s) unreadable"
    out = [head, ""]
    if merged.count and not grouped:
        codes = list(merged.codes)
        rows = [["NODE", "STATUS", "EXIT", *codes]]
        for n in merged.nodes:
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
        out += [Whole(line) for line in _table(rows)]
        out.append("")
    elif grouped:
        out.append("Nodes by findings:")
        rows = []
        for status, codes_, count, names in merged.groups:
            found = " ".join(f"{c}({_CELL.get(s, '?')})" if s else c for c, s in codes_) or "no findings"
            more = f", … (+{count - len(names)} more)" if count > len(names) else ""
            rows.append([str(count), status, found, ", ".join(names) + more])
        out += [Whole("  " + line) for line in _table(rows)]
        out.append("")
    if merged.codes:
        out.append("Findings (E error, W warning, i note):")
        for code, entry in merged.codes.items():
            out.append(
                f"  {code} ({entry['severity']}) on {len(entry['nodes'])} of {merged.count}: {_names(entry['nodes'], grouped)}"
            )
            titles = entry["titles"]
            for title, holders in titles.items():
                if title:
                    out.append(f"    {title}" + (f"  [{_names(holders, grouped)}]" if len(titles) > 1 else ""))
        out.append("")
    if merged.differences:
        out.append("Facts that differ between nodes:")
        for key, values in merged.differences.items():
            if grouped:
                common, holders = next(iter(values.items()))
                differ = merged.with_facts - len(holders)
                out.append(
                    f"  {FACT_LABELS[key]}: {differ} of {merged.with_facts} nodes {'differs' if differ == 1 else 'differ'} "
                    f"from the most common, {common} ({_nodes(len(holders))})"
                )
                rest = list(values.items())[1:]
            else:
                out.append(f"  {FACT_LABELS[key]}:")
                rest = list(values.items())
            width = max(len(v) for v, _ in rest) if rest else 0
            for value, names in rest:
                many = f"{_nodes(len(names))}: " if grouped else ""
                out.append(f"    {value.ljust(width)}  {many}{_names(names, grouped)}")
        out.append("")
    elif merged.with_facts > 1:
        out += ["Facts that differ between nodes: none", ""]
    if merged.same:
        out.append("Same on every node:")
        width = max(len(FACT_LABELS[k]) for k in merged.same)
        for key, value in merged.same.items():
            out.append(f"  {FACT_LABELS[key].ljust(width)}  {value}")
        out.append("")
    if merged.baseline is not None:
        out += _baseline_lines(merged, grouped)
    if merged.failed:
        out.append("Nodes where the doctor itself failed:")
        out += [f"  {name}: {error}" for name, error in merged.failed]
        if merged.failed_count > len(merged.failed):
            out.append(f"  … and {merged.failed_count - len(merged.failed)} more")
        out.append("")
    if merged.unreadable:
        out.append("Unreadable reports:")
        shown = merged.unreadable if not grouped else merged.unreadable[:MAX_GROUPS]
        out += [f"  {u.source}: {u.error}" for u in shown]
        if len(merged.unreadable) > len(shown):
            out.append(f"  … and {len(merged.unreadable) - len(shown)} more")
        out.append("")
    # Every entry of `out` is one line; node names, titles and facts come from files anyone can write:
    # clean_line shows their controls and newlines as escapes, so none acts on the terminal or forges a line.
    from gpudoctor.sanitize import clean_line

    cleaned = [Whole(clean_line(line)) if isinstance(line, Whole) else clean_line(line) for line in out]
    return "\n".join(fit_lines(cleaned, columns)).rstrip("\n") + "\n"


def _baseline_lines(merged: Merged, grouped: bool) -> list[str]:
    b = merged.baseline
    assert b is not None
    out = [f"Compared with the baseline {b.node.name} ({b.node.source}):"]
    if not b.differences and not b.codes:
        out += ["  every node has the baseline's facts and no finding the baseline does not have", ""]
        return out
    for key, values in b.differences.items():
        differ = sum(len(v) for v in values.values())
        verb = "differs" if differ == 1 else "differ"
        out.append(f"  {FACT_LABELS[key]}: {_nodes(differ)} {verb} from the baseline's {b.node.facts.get(key, '(not reported)')}")
        width = max(len(v) for v in values)
        for value, names in values.items():
            out.append(f"    {value.ljust(width)}  {_nodes(len(names))}: {_names(names, True)}")
    if b.codes:
        out.append("  findings the baseline does not have:")
        for code, entry in b.codes.items():
            out.append(f"    {code} ({entry['severity']}) on {_nodes(len(entry['nodes']))}: {_names(entry['nodes'], True)}")
    same = [FACT_LABELS[k] for k in FACT_LABELS if k not in b.differences and k in b.node.facts]
    if same:
        out.append(f"  as on the baseline everywhere: {', '.join(same)}")
    out.append("")
    return out


def render_json(merged: Merged, exit_code: int) -> str:
    import io

    buf = io.StringIO()
    write_json(merged, exit_code, buf)
    return buf.getvalue()


def write_json(merged: Merged, exit_code: int, out: IO[str]) -> None:
    """The gpudoctor.merge/1 document, written piece by piece: the nodes come from the spool when there
    is one (every node), else from `merged.nodes` (a merge of at most DETAIL_LIMIT nodes)."""

    def dump(value: Any) -> str:
        # One line per entry of an object or array: readable, and written by json's C encoder (an indented
        # dump is pure Python, and at fleet size each list of nodes has 100,000 names).
        if isinstance(value, dict) and value:
            items = sorted(value.items())
            return "{\n" + ",\n".join(f"    {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in items) + "\n  }"
        if isinstance(value, list) and value:
            return "[\n" + ",\n".join(f"    {json.dumps(v, sort_keys=True)}" for v in value) + "\n  ]"
        return json.dumps(value, sort_keys=True)

    if merged.spool is None and merged.count > len(merged.nodes):
        raise ValueError("a merge of more than DETAIL_LIMIT nodes is written from its spool (merge_paths(..., spool=True))")
    doc: dict[str, Any] = {
        "codes": merged.codes,
        "differences": {k: [{"value": v, "nodes": names} for v, names in vals.items()] for k, vals in merged.differences.items()},
        "exit_code": exit_code,
        "same": merged.same,
        "schema": SCHEMA,
        "unreadable": [{"source": u.source, "error": u.error} for u in merged.unreadable],
    }
    if merged.baseline is not None:
        b = merged.baseline
        doc["baseline"] = {
            "node": b.node.name,
            "source": b.node.source,
            "facts": b.node.facts,
            "differences": {k: [{"value": v, "nodes": names} for v, names in vals.items()] for k, vals in b.differences.items()},
            "codes": b.codes,
        }
    out.write("{\n")
    keys = sorted([*doc, "nodes"])
    for i, key in enumerate(keys):
        end = ",\n" if i < len(keys) - 1 else "\n"
        if key != "nodes":
            out.write(f"  {json.dumps(key)}: {dump(doc[key])}{end}")
            continue
        out.write('  "nodes": [')
        first = True
        lines: Iterable[str] = (
            merged.spool if merged.spool is not None else (json.dumps(n.to_json(), sort_keys=True) for n in merged.nodes)
        )
        for line in lines:
            out.write(("\n    " if first else ",\n    ") + line.rstrip("\n"))
            first = False
        out.write(("\n  ]" if not first else "]") + end)
    out.write("}\n")
