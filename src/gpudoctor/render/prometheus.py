"""`--format prometheus`: the report as Prometheus text exposition (format 0.0.4), for node_exporter's
textfile collector (`check --textfile DIR`, docs/cluster.md).

Rendered from the JSON report document (gpudoctor.report/1, `render.json_report.report_document` plus
`requirements` and `node`), so that what Prometheus sees is what `--format json` says. Every series:

- gpudoctor_check_success            1 when a report was made, 0 when the doctor itself failed (exit 3)
- gpudoctor_check_timestamp_seconds  when the check ended (Unix time); alert on it going stale
- gpudoctor_check_duration_seconds   how long the check took
- gpudoctor_exit_code                the check's exit status (docs/exit-codes.md)
- gpudoctor_healthy                  1 when nothing is at or above --fail-on (exit status 0)
- gpudoctor_findings{severity}       findings per severity (every severity, 0 included)
- gpudoctor_finding{code,severity,area,gpu}   one series per finding (the count, when one code fires
                                     twice for the same GPU); gpu is "" when the finding is not one GPU's
- gpudoctor_requirement_met{requirement,kind} 1 met, 0 unmet; gpudoctor_requirements{state} the counts
- info metrics (value 1, the facts in labels): gpudoctor_build_info, gpudoctor_check_info,
  gpudoctor_driver_info, gpudoctor_python_info, gpudoctor_framework_info, gpudoctor_cuda_toolkit_info,
  gpudoctor_cudnn_info, gpudoctor_gpu_info
- per GPU{gpu}: memory total/used bytes, temperature, power draw, PCIe link width and generation
  (current and max), uncorrected ECC errors, lost

Label values are machine data (GPU names, versions, paths): each is shown as text (controls as visible
escapes, gpudoctor.sanitize), cut to MAX_LABEL_CHARS, then escaped as the exposition format requires
(backslash, double quote, line feed), so no value can end its label, its line or the file.
Series with the same labels are one series (values added), as a scrape must never see a duplicate.
"""

from __future__ import annotations

import math
import re
from typing import Any

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MAX_LABEL_CHARS = 256
SEVERITIES = ("error", "warning", "info")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_GPU_IN_TITLE = re.compile(r"\bGPU (\d+)\b")

Labels = tuple[tuple[str, str], ...]


def label_value(value: Any) -> str:
    """A label value as it is written between the double quotes of the text format."""
    from gpudoctor.sanitize import clean_line

    text = clean_line("" if value is None else str(value))
    text = _SURROGATE.sub("\ufffd", text)  # a lone surrogate is not UTF-8: the file must be
    if len(text) > MAX_LABEL_CHARS:
        text = text[: MAX_LABEL_CHARS - 1] + "…"
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))


class Family:
    """One metric: its HELP, its TYPE and its samples, one per distinct label set."""

    def __init__(self, name: str, kind: str, help_text: str) -> None:
        self.name, self.kind, self.help = name, kind, help_text
        self.samples: dict[Labels, float] = {}

    def set(self, value: float, **labels: Any) -> None:
        self.samples[_labels(labels)] = value

    def add(self, value: float, **labels: Any) -> None:
        key = _labels(labels)
        self.samples[key] = self.samples.get(key, 0) + value

    def lower(self, value: float, **labels: Any) -> None:
        """Keep the smallest value seen for these labels (a requirement stated twice, met once: unmet)."""
        key = _labels(labels)
        self.samples[key] = min(self.samples.get(key, value), value)

    def lines(self) -> list[str]:
        if not self.samples:
            return []
        out = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]
        for labels, value in sorted(self.samples.items()):
            inner = ",".join(f'{k}="{v}"' for k, v in labels)
            out.append(f"{self.name}{{{inner}}} {_number(value)}" if inner else f"{self.name} {_number(value)}")
        return out


def _labels(labels: dict[str, Any]) -> Labels:
    return tuple((k, label_value(v)) for k, v in labels.items())


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    return None


def _found(outcome: Any) -> dict[str, Any] | None:
    outcome = _dict(outcome)
    value = outcome.get("value")
    return value if outcome.get("status") == "found" and isinstance(value, dict) else None


def finding_gpu(finding: dict[str, Any]) -> str:
    """The GPU a finding is about, from its title ("GPU 0 reports memory errors"); "" when none or several."""
    gpus = set(_GPU_IN_TITLE.findall(str(finding.get("title") or "")))
    return gpus.pop() if len(gpus) == 1 else ""


def gpus_of(facts: dict[str, Any]) -> list[dict[str, Any]]:
    return [g for g in _list(_dict(facts.get("driver")).get("gpus")) if isinstance(g, dict)]


def render_prometheus(doc: dict[str, Any], *, timestamp: float, duration_s: float | None = None) -> str:
    """The exposition text of one report document (or error document) of `check`."""
    from gpudoctor import __version__

    fams: dict[str, Family] = {}

    def fam(name: str, kind: str, help_text: str) -> Family:
        return fams.setdefault(name, Family(name, kind, help_text))

    error = doc.get("error")
    fam("gpudoctor_check_success", "gauge", "1 when the check made a report, 0 when the doctor itself failed.").set(
        0 if error else 1
    )
    fam("gpudoctor_check_timestamp_seconds", "gauge", "When the check ended, in seconds since the Unix epoch.").set(timestamp)
    if duration_s is not None:
        fam("gpudoctor_check_duration_seconds", "gauge", "How long the check took, in seconds.").set(duration_s)
    exit_code = doc.get("exit_code")
    if isinstance(exit_code, int) and not isinstance(exit_code, bool):
        fam("gpudoctor_exit_code", "gauge", "The check's exit status: 0 healthy, 1 findings, 3 the doctor failed.").set(exit_code)
        fam("gpudoctor_healthy", "gauge", "1 when no finding is at or above --fail-on (exit status 0).").set(
            1 if exit_code == 0 else 0
        )
    fam("gpudoctor_build_info", "gauge", "The gpudoctor that made this report.").set(
        1, version=doc.get("tool_version") or __version__
    )
    if error:
        fam("gpudoctor_check_error_info", "gauge", "Why the doctor failed.").set(1, message=_dict(error).get("message"))
        return _text(fams)

    fam("gpudoctor_check_info", "gauge", "The checked node and how it was read (live, replay).").set(
        1, node=doc.get("node") or "", host_mode=doc.get("host_mode") or "", status=doc.get("status") or ""
    )
    counts = fam("gpudoctor_findings", "gauge", "Findings of each severity.")
    for sev in SEVERITIES:
        counts.set(0, severity=sev)
    per = fam("gpudoctor_finding", "gauge", "A finding (the number of them with these labels); see `gpudoctor explain CODE`.")
    for f in _list(doc.get("findings")):
        if not isinstance(f, dict):
            continue
        sev = str(f.get("severity") or "info")
        counts.add(1, severity=sev)
        per.add(1, code=f.get("code"), severity=sev, area=f.get("area"), gpu=finding_gpu(f))

    requirements = [r for r in _list(doc.get("requirements")) if isinstance(r, dict)]
    if requirements:
        met = fam("gpudoctor_requirement_met", "gauge", "1 when the requirement (--require) is met, 0 when not.")
        states = fam("gpudoctor_requirements", "gauge", "Requirements (--require) met and unmet.")
        states.set(0, state="met")
        states.set(0, state="unmet")
        for r in requirements:
            ok = r.get("met") is True
            met.lower(1 if ok else 0, requirement=r.get("spec"), kind=r.get("kind"))
            states.add(1, state="met" if ok else "unmet")

    facts = _dict(doc.get("facts"))
    _versions(facts, fam)
    _gpus(facts, fam)
    return _text(fams)


def _versions(facts: dict[str, Any], fam) -> None:
    driver = _dict(facts.get("driver"))
    version = driver.get("nvml_driver_version") or driver.get("smi_driver_version")
    cuda = driver.get("nvml_cuda_version") or driver.get("smi_cuda_version")
    if version or cuda:
        fam("gpudoctor_driver_info", "gauge", "The NVIDIA driver and the newest CUDA it supports.").set(
            1, version=version or "", cuda_version=cuda or ""
        )
    frameworks = _dict(facts.get("frameworks"))
    python = _found(frameworks.get("python"))
    if python:
        fam("gpudoctor_python_info", "gauge", "The Python interpreter whose environment was checked.").set(
            1, version=python.get("version") or "", executable=python.get("executable") or ""
        )
    info = fam("gpudoctor_framework_info", "gauge", "A deep-learning framework found, with the CUDA it was built for.")
    torch = _found(frameworks.get("torch"))
    if torch:
        info.set(
            1, framework="torch", version=torch.get("version") or "", cuda=torch.get("cuda") or "", rocm=torch.get("hip") or ""
        )
    tf = _found(frameworks.get("tensorflow"))
    if tf:
        info.set(1, framework="tensorflow", version=tf.get("version") or "", cuda=tf.get("cuda") or "", rocm="")
    jax = _found(frameworks.get("jax"))
    if jax:
        info.set(1, framework="jax", version=jax.get("jax") or "", cuda="", rocm="")
    toolkits = fam("gpudoctor_cuda_toolkit_info", "gauge", "A CUDA toolkit installed on the node.")
    for t in _list(_dict(facts.get("toolkits")).get("toolkits")):
        if isinstance(t, dict):
            toolkits.set(1, version=t.get("version") or "", path=t.get("root") or t.get("path") or "")
    cudnn = fam("gpudoctor_cudnn_info", "gauge", "A cuDNN found (system library or pip wheel).")
    for c in _list(facts.get("cudnn")):
        if isinstance(c, dict):
            cudnn.set(1, version=c.get("version") or "", kind=c.get("kind") or "", path=c.get("path") or "")


# Per-GPU numbers: fact key -> (metric, help).
_GPU_GAUGES = {
    "memory_total_bytes": ("gpudoctor_gpu_memory_total_bytes", "The GPU's memory."),
    "memory_used_bytes": ("gpudoctor_gpu_memory_used_bytes", "The GPU's memory in use when checked."),
    "temperature_c": ("gpudoctor_gpu_temperature_celsius", "The GPU's temperature when checked."),
    "power_draw_w": ("gpudoctor_gpu_power_draw_watts", "The GPU's power draw when checked."),
    "pcie_width_current": ("gpudoctor_gpu_pcie_link_width", "The GPU's PCIe link width (lanes) when checked."),
    "pcie_width_max": ("gpudoctor_gpu_pcie_link_width_max", "The widest PCIe link the GPU and its slot support."),
    "pcie_gen_current": ("gpudoctor_gpu_pcie_link_generation", "The GPU's PCIe generation when checked (drops when idle)."),
    "pcie_gen_max": ("gpudoctor_gpu_pcie_link_generation_max", "The highest PCIe generation the GPU and its slot support."),
    "ecc_volatile_uncorrected": (
        "gpudoctor_gpu_ecc_uncorrected_volatile",
        "Uncorrectable ECC errors since the GPU's last reset.",
    ),
    "lost": ("gpudoctor_gpu_lost", "1 when the driver reports the GPU lost (fallen off the bus)."),
}


def _gpus(facts: dict[str, Any], fam) -> None:
    for g in gpus_of(facts):
        index = g.get("index")
        gpu = str(index) if isinstance(index, int) and not isinstance(index, bool) else ""
        cc = g.get("compute_capability")
        fam("gpudoctor_gpu_info", "gauge", "A GPU the driver sees.").set(
            1,
            gpu=gpu,
            name=g.get("name") or "",
            uuid=g.get("uuid") or "",
            pci_bus_id=g.get("pci_bus_id") or "",
            compute_capability=".".join(str(x) for x in cc) if isinstance(cc, list) else (cc or ""),
        )
        for key, (name, help_text) in _GPU_GAUGES.items():
            value = _num(g.get(key))
            if value is not None:
                fam(name, "gauge", help_text).set(value, gpu=gpu)


def _text(fams: dict[str, Family]) -> str:
    lines: list[str] = []
    for f in fams.values():
        lines += f.lines()
    return "\n".join(lines) + "\n"


def render(result: Any) -> str:
    """--format prometheus: the check's document as a text exposition, stamped now."""
    from gpudoctor.render.json_report import check_document

    return render_document(check_document(result), result.request.started)


def render_error(message: str, hint: str | None, exit_code: Any, started: float = 0.0) -> str:
    import json

    from gpudoctor.render.json_report import error_document

    return render_document(json.loads(error_document(message, hint, exit_code)), started)


def render_document(doc: dict[str, Any], started: float) -> str:
    """`doc` (a report or an error document) stamped with the time now and the check's duration since `started`."""
    import time

    return render_prometheus(doc, timestamp=time.time(), duration_s=round(time.monotonic() - started, 4))
