"""Hold a recording of the real libnvidia-ml (tools/nvml_record.py) against tests/sim/fake_nvml.c, and list the differences.

    python3 tools/nvml_compare.py RECORDING.json [--smi-csv QUERY.csv] [--format text|json]

How: the fake is built as the tests build it (tests/sim/build.py), fed with the data file that
tests/sim/machine.py would write for the recording's `state` (the NvmlState gpudoctor made of the real
answers: what a recorded machine holds), and the same recorder runs against it in a child process. Then,
call by call (matched by name, arguments and occurrence):
- calls made on one side only (the fake's answers led gpudoctor elsewhere);
- a different error or return code, a different value in any field of the result, different C entry
  points or return codes underneath (`_v2` against `_v3`, an INSUFFICIENT_SIZE round);
- and the NvmlState gpudoctor derived from each: this one must not differ for the simulated machines to hold.

Each difference explained in tests/sim/nvml_differences.toml (`call` and `path` as shell patterns, `why`)
is listed as explained; the exit status is 1 while any is not, 0 when none is left, 2 when nothing could be
compared (no C compiler, no nvml.h, no recording).

`--smi-csv`: also set the recording's NVML state beside `nvidia-smi --query-gpu=<QUERY_FIELDS> --format=csv`
read at the same time (tools/gpu_truth.py writes both): one row per field gpudoctor reads, agreeing or not;
fields that move by the second (temperature, power, load, clocks) are marked volatile and never fail.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXPLAINED = ROOT / "tests" / "sim" / "nvml_differences.toml"
RECORDER = ROOT / "tools" / "nvml_record.py"
MIB = 1024 * 1024

# NvmlState field (per device; `system.` for the whole driver) -> the nvidia-smi --query-gpu field that reads
# the same value, how the NVML value prints there, and whether it moves by the second. Field names as nvidia-smi
# 590/595 lists them (shared/fixtures/nvidia-smi-csv/*query-gpu-all-fields.csv).
SMI_FIELDS: tuple[tuple[str, str, str, bool], ...] = (
    ("system.driver_version", "driver_version", "text", False),
    ("name", "name", "text", False),
    ("uuid", "uuid", "text", False),
    ("pci_bus_id", "pci.bus_id", "upper", False),
    ("compute_capability", "compute_cap", "text", False),
    ("memory.total_bytes", "memory.total", "mib", False),
    ("memory.used_bytes", "memory.used", "mib", True),
    ("memory.free_bytes", "memory.free", "mib", True),
    ("pcie_gen_current", "pcie.link.gen.current", "int", True),
    ("pcie_gen_max", "pcie.link.gen.max", "int", False),
    ("pcie_gen_gpu_max", "pcie.link.gen.gpumax", "int", False),
    ("pcie_width_current", "pcie.link.width.current", "int", True),
    ("pcie_width_max", "pcie.link.width.max", "int", False),
    ("persistence_mode", "persistence_mode", "enabled", False),
    ("mig_mode.current", "mig.mode.current", "enabled", False),
    ("mig_mode.pending", "mig.mode.pending", "enabled", False),
    ("ecc_mode.current", "ecc.mode.current", "enabled", False),
    ("ecc_mode.pending", "ecc.mode.pending", "enabled", False),
    ("ecc_volatile_uncorrected", "ecc.errors.uncorrected.volatile.total", "int", False),
    ("ecc_aggregate_uncorrected", "ecc.errors.uncorrected.aggregate.total", "int", False),
    ("retired_pages_pending", "retired_pages.pending", "yes", False),
    ("remapped_rows.correctable", "remapped_rows.correctable", "int", False),
    ("remapped_rows.uncorrectable", "remapped_rows.uncorrectable", "int", False),
    ("remapped_rows.pending", "remapped_rows.pending", "yes", False),
    ("remapped_rows.failure", "remapped_rows.failure", "yes", False),
    ("clock_event_reasons", "clocks_event_reasons.active", "hex", True),
    ("temperature_c", "temperature.gpu", "int", True),
    ("power_draw_w", "power.draw", "watts", True),
    ("performance_state", "pstate", "text", True),
    ("utilization_gpu", "utilization.gpu", "int", True),
)
QUERY_FIELDS = tuple(dict.fromkeys(query for _, query, _, _ in SMI_FIELDS))


class CannotCompare(Exception):
    """Nothing to compare: the reason (the exit status is 2)."""


def _import_sim() -> Any:
    sys.path.insert(0, str(ROOT))
    try:
        from tests.sim import build, machine
    except ImportError as exc:
        raise CannotCompare(f"tests/sim cannot be imported here: {exc}") from None
    return build, machine


def fake_recording(state: dict[str, Any], timeout_s: float = 120) -> dict[str, Any]:
    """What the recorder gets from the fake NVML fed with `state` (built and run as the simulated machines do)."""
    status = state.get("status")
    if status in ("library_not_found", "binding_missing", "timeout"):
        raise CannotCompare(f"the recording's NVML status is {status}: no library answered, nothing to compare")
    build, machine = _import_sim()
    try:
        libraries = build.build_libraries()
    except build.Unavailable as exc:
        raise CannotCompare(str(exc)) from None
    with tempfile.TemporaryDirectory(prefix="nvml-compare-") as tmp:
        data, out = Path(tmp) / "nvml.txt", Path(tmp) / "fake.json"
        data.write_text(machine.nvml_data(state), encoding="utf-8")
        library = machine.nvml_library(state, libraries)
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(library), env.get("LD_LIBRARY_PATH")]))
        env["GPUDOCTOR_SIM_NVML"] = str(data)
        done = subprocess.run(
            [sys.executable, str(RECORDER), "--no-redact", "--output", str(out)],  # the fake holds no secret
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode != 0:
            raise RuntimeError(f"the recorder failed against the fake NVML:\n{done.stderr}")
        doc: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    if not str(doc.get("library") or "").startswith(str(library)):
        raise RuntimeError(f"the recorder loaded {doc.get('library')}, not the fake in {library}")
    return doc


def flatten(value: Any, prefix: str) -> dict[str, Any]:
    """{'result.total': 1, 'result.0.pid': 2, ...}: every leaf by its dotted path."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}"))
        return out or {prefix: {}}
    if isinstance(value, list):
        out = {}
        for index, item in enumerate(value):
            out.update(flatten(item, f"{prefix}.{index}"))
        out[f"{prefix}.length"] = len(value)
        return out
    return {prefix: value}


def _keyed(calls: list[dict[str, Any]]) -> dict[tuple[str, str, int], dict[str, Any]]:
    seen: dict[tuple[str, str], int] = {}
    out = {}
    for call in calls:
        base = (call["call"], json.dumps(call.get("args", [])))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out[(base[0], base[1], n)] = call
    return out


def _answer(call: dict[str, Any]) -> dict[str, Any]:
    leaves = {"error": call.get("error"), "rc": call.get("rc")}
    if "result" in call:
        leaves.update(flatten(call["result"], "result"))
    leaves["c"] = [[c["symbol"], c.get("rc"), c.get("missing", False)] for c in call.get("c", [])]
    return leaves


def differences(real: dict[str, Any], fake: dict[str, Any]) -> list[dict[str, Any]]:
    """Every difference between two recordings: per call, then the derived NvmlState."""
    out: list[dict[str, Any]] = []
    real_calls, fake_calls = _keyed(real.get("calls", [])), _keyed(fake.get("calls", []))
    for key in [*real_calls, *(k for k in fake_calls if k not in real_calls)]:
        name, args, n = key
        where = {"call": name, "args": json.loads(args), "occurrence": n}
        if key not in fake_calls:
            out.append({**where, "path": "call", "real": "made", "fake": "not made"})
            continue
        if key not in real_calls:
            out.append({**where, "path": "call", "real": "not made", "fake": "made"})
            continue
        a, b = _answer(real_calls[key]), _answer(fake_calls[key])
        for path in [*a, *(p for p in b if p not in a)]:
            if a.get(path, "(absent)") != b.get(path, "(absent)"):
                out.append({**where, "path": path, "real": a.get(path, "(absent)"), "fake": b.get(path, "(absent)")})
    a, b = flatten(real.get("state", {}), "state"), flatten(fake.get("state", {}), "state")
    for path in [*a, *(p for p in b if p not in a)]:
        if a.get(path, "(absent)") != b.get(path, "(absent)"):
            out.append(
                {
                    "call": "state",
                    "args": [],
                    "occurrence": 0,
                    "path": path,
                    "real": a.get(path, "(absent)"),
                    "fake": b.get(path, "(absent)"),
                }
            )
    return out


def load_explained(path: Path) -> list[dict[str, str]]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    if not path.is_file():
        return []
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("difference", [])
    for entry in entries:
        missing = {"call", "path", "why"} - set(entry)
        if missing:
            raise ValueError(f"{path}: an explained difference lacks {', '.join(sorted(missing))}: {entry}")
    return list(entries)


def explain(found: list[dict[str, Any]], explained: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Each difference with the `why` of the first explanation whose call and path patterns match it (or None)."""
    out = []
    for diff in found:
        why = next(
            (
                e["why"]
                for e in explained
                if fnmatch.fnmatchcase(diff["call"], e["call"]) and fnmatch.fnmatchcase(diff["path"], e["path"])
            ),
            None,
        )
        out.append({**diff, "why": why})
    return out


def _dig(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def _as_smi(value: Any, how: str) -> Any:
    if value is None:
        return None
    if how == "mib":
        return str(int(value) // MIB)
    if how == "enabled":
        return "Enabled" if value else "Disabled"
    if how == "yes":
        return "Yes" if value else "No"
    if how == "upper":
        return str(value).upper()
    return value


def _smi_value(text: str | None, how: str) -> Any:
    if text is None:
        return None
    try:
        if how in ("int", "hex"):
            return int(text, 16) if how == "hex" else int(text)
        if how == "watts":
            return float(text)
    except ValueError:
        return text
    return text.upper() if how == "upper" else text


def smi_parity(state: dict[str, Any], csv_text: str) -> list[dict[str, Any]]:
    """One row per GPU and field of SMI_FIELDS: the NVML value, nvidia-smi's, and whether they agree (None: one is missing)."""
    from gpudoctor.parsers.nvidia_smi_csv import parse_nvidia_smi_csv

    rows = parse_nvidia_smi_csv(csv_text)
    by_bus = {str(r.get("pci.bus_id") or "").upper(): r for r in rows}
    out = []
    for dev in state.get("devices") or []:
        smi = by_bus.get(str(dev.get("pci_bus_id") or "").upper())
        for field, query, how, volatile in SMI_FIELDS:
            nvml = _dig(state, field[len("system.") :]) if field.startswith("system.") else _dig(dev, field)
            want = _as_smi(nvml, how)
            got = _smi_value(smi.get(query), how) if smi is not None else None
            if how == "watts" and want is not None and got is not None:
                agree: bool | None = abs(float(want) - float(got)) <= 0.05 * max(float(want), 1.0)
            else:
                agree = None if want is None or got is None else want == got
            out.append(
                {
                    "gpu": dev.get("index"),
                    "field": field,
                    "query": query,
                    "nvml": want,
                    "smi": got,
                    "agree": agree,
                    "volatile": volatile,
                }
            )
    return out


def compare(recording: dict[str, Any], explained: list[dict[str, str]]) -> dict[str, Any]:
    fake = fake_recording(recording.get("state") or {})
    found = explain(differences(recording, fake), explained)
    return {
        "real_library": recording.get("library"),
        "fake_library": fake.get("library"),
        "binding": recording.get("binding"),
        "calls_real": len(recording.get("calls", [])),
        "calls_fake": len(fake.get("calls", [])),
        "differences": found,
        "unexplained": sum(1 for d in found if d["why"] is None),
    }


def render_text(report: dict[str, Any]) -> str:
    lines = [
        f"real NVML: {report.get('real_library')}  fake: {report.get('fake_library')}  nvidia-ml-py {report.get('binding')}",
        f"calls: {report.get('calls_real')} real, {report.get('calls_fake')} fake; "
        f"{len(report.get('differences', []))} differences, {report.get('unexplained')} unexplained",
    ]
    for d in report.get("differences", []):
        args = ",".join(map(str, d["args"]))
        mark = "explained" if d["why"] else "UNEXPLAINED"
        lines.append(f"  {mark}: {d['call']}({args}) {d['path']}: real {d['real']!r}, fake {d['fake']!r}")
        if d["why"]:
            lines.append(f"      why: {d['why']}")
    for row in report.get("smi_parity", []):
        if row["agree"] is False:
            tag = "volatile" if row["volatile"] else "DIFFERS"
            lines.append(
                f"  nvidia-smi {tag}: GPU {row['gpu']} {row['field']} ({row['query']}): NVML {row['nvml']!r}, nvidia-smi {row['smi']!r}"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("recording", help="a tools/nvml_record.py recording (JSON)")
    parser.add_argument("--explained", default=str(EXPLAINED), help="the explained differences (TOML)")
    parser.add_argument("--smi-csv", help="nvidia-smi --query-gpu=QUERY_FIELDS --format=csv, read beside the recording")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    try:
        recording = json.loads(Path(args.recording).read_text(encoding="utf-8"))
        report = compare(recording, load_explained(Path(args.explained)))
    except (OSError, ValueError, CannotCompare) as exc:
        sys.stderr.write(f"nvml_compare: cannot compare: {exc}\n")
        return 2
    if args.smi_csv:
        from gpudoctor.errors import ParseError

        try:
            report["smi_parity"] = smi_parity(recording.get("state") or {}, Path(args.smi_csv).read_text(encoding="utf-8"))
        except (OSError, ParseError) as exc:
            report["smi_parity"], report["smi_error"] = [], f"{args.smi_csv}: {exc}"
            report["smi_differs"] = None
        else:
            report["smi_differs"] = sum(1 for r in report["smi_parity"] if r["agree"] is False and not r["volatile"])
    sys.stdout.write(json.dumps(report, indent=1) + "\n" if args.format == "json" else render_text(report))
    return 1 if report["unexplained"] or report.get("smi_differs") else 0


if __name__ == "__main__":
    try:
        import gpudoctor  # noqa: F401 - installed, or on PYTHONPATH
    except ImportError:
        sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main())
