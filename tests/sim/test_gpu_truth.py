"""`make gpu-truth` without a GPU (tools/gpu_truth.py --mode sim), and the NVML recorder and comparison it uses.

The script runs once per session against the simulated 8 x H100 (tests/sim): every file it writes must be what it
says (JSON that parses, the summary saying first that no GPU was there, each step's status with its reason), and
the NVML recording of the fake, held against the fake again, must show no difference. The comparison tool is then
given a recording with planted differences (as a real library would answer) and must list exactly those.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gpudoctor.host.snapshot import load_snapshot
from tests.sim.machine import build_machine

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"
MACHINES = ROOT / "tests" / "machines"


def _tool(name: str) -> ModuleType:
    sys.path.insert(0, str(TOOLS))  # gpu_truth imports nvml_compare as a sibling
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def truth(libraries, tmp_path_factory) -> Path:
    """One run of the script in simulated mode (its results folder). `libraries`: skips without a C compiler or nvml.h."""
    out = tmp_path_factory.mktemp("gpu-truth")
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    done = subprocess.run(
        [sys.executable, str(TOOLS / "gpu_truth.py"), "--mode", "sim", "--output", str(out), "--budget", "400"],
        capture_output=True,
        text=True,
        timeout=480,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def test_the_summary_says_no_gpu_and_what_ran(truth):
    summary = json.loads((truth / "summary.json").read_text())
    gpu_truth = _tool("gpu_truth")
    assert summary["schema"] == gpu_truth.SCHEMA and summary["gpu"] is False
    assert summary["simulated_machine"] == gpu_truth.SIM_MACHINE
    first = (truth / "summary.md").read_text().split("\n\n")[1]
    assert first.startswith("**NO GPU") and "simulated machine" in first and "nothing below measures hardware" in first
    status = {s["name"]: s for s in summary["steps"]}
    assert summary["failed"] == [], [status[n]["why"] for n in summary["failed"]]
    for ran in ("check-v", "check-json", "snapshot", "check-deep", "check-require", "memory-json", "memory-plan-json"):
        assert status[ran]["status"] == "ok" and status[ran]["rc"] in (0, 1), status[ran]
    for name in ("holders", "reference", "pytest-gpu"):
        assert status[name]["status"] == "skipped" and status[name]["why"].startswith("no GPU"), status[name]
    # Every command line the summary records is an argv list (no shell): the check --require specs one by one.
    require = status["check-require"]["argv"]
    assert [require[i + 1] for i, a in enumerate(require) if a == "--require"] == list(gpu_truth.REQUIRE)
    assert summary["bandwidth"]["compared"] is False and "no GPU" in summary["bandwidth"]["why"]


def test_every_json_it_wrote_parses_and_is_what_its_name_says(truth):
    docs = {p.name: json.loads(p.read_text()) for p in truth.glob("*.json")}
    assert {"summary.json", "check.json", "check-deep.json", "check-require.json", "snapshot.json", "memory.json"} <= set(docs)
    assert {"memory-plan.json", "bandwidth-1.json", "nvml-record.json", "nvml-record-raw.json", "nvml-compare.json"} <= set(docs)
    for name in ("check.json", "check-deep.json", "check-require.json"):
        assert isinstance(docs[name]["findings"], list) and docs[name]["exit_code"] in (0, 1)
    assert len(docs["check.json"]["facts"]["driver"]["gpus"]) == 8
    load_snapshot(truth / "snapshot.json")  # a snapshot `check --replay` accepts
    assert docs["memory.json"]["schema"] == "gpudoctor.memory/1" and len(docs["memory.json"]["gpus"]) == 8
    assert docs["memory-plan.json"]["schema"] == "gpudoctor.memory-plan/1"
    bench = docs["bandwidth-1.json"]
    assert [g["ordinal"] for g in bench["gpus"]] == [0] and bench["errors"] == []
    assert {r["test"] for r in bench["gpus"][0]["results"]} >= {"h2d", "d2h", "h2d-pageable", "d2h-pageable"}


def test_the_recording_of_the_fake_nvml_matches_the_fake(truth):
    recording = json.loads((truth / "nvml-record.json").read_text())
    assert recording["schema"] == "gpudoctor.nvml-recording/1"
    assert "gpudoctor-sim-" in recording["library"]  # the fake answered, not a real driver's library
    calls = [c["call"] for c in recording["calls"]]
    assert calls[0] == "nvmlInit" and calls[-1] == "nvmlShutdown"
    assert calls.count("nvmlDeviceGetHandleByIndex") == 8 and recording["state"]["status"] == "ok"
    compared = json.loads((truth / "nvml-compare.json").read_text())
    assert compared["differences"] == [] and compared["unexplained"] == 0
    assert compared["calls_real"] == compared["calls_fake"] == len(calls)


def _record_fake(slug: str, where: Path, libraries) -> dict[str, Any]:
    snapshot = json.loads((MACHINES / slug / "snapshot.json").read_text())
    sim = build_machine(snapshot, where, libraries)
    out = where / "recording.json"
    env = {**sim.env, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(TOOLS / "nvml_record.py"), "--output", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


def test_the_comparison_lists_what_a_real_library_answers_otherwise(tmp_path, libraries):
    """A desktop RTX 3060 with two compute processes, recorded through the fake; then three answers changed as a real
    library could give them: power to the milliwatt (the NvmlState keeps 0.1 W), the PCI device id (the fake leaves 0),
    and the memory read through the v1 nvmlDeviceGetMemoryInfo (the C entry point underneath; gpudoctor asks for v2)."""
    nvml_compare = _tool("nvml_compare")
    recording = _record_fake("rtx3060-desktop-other-jobs-hold-memory", tmp_path, libraries)
    real = copy.deepcopy(recording)
    by_call = {c["call"]: c for c in real["calls"]}
    assert by_call["nvmlDeviceGetPowerUsage"]["result"] == 118300
    by_call["nvmlDeviceGetPowerUsage"]["result"] = 118342
    by_call["nvmlDeviceGetPciInfo"]["result"]["pciDeviceId"] = 0x250310DE
    assert by_call["nvmlDeviceGetMemoryInfo"]["kwargs"] == {"version": 33554472}  # nvmlMemory_v2: NVML_STRUCT_VERSION(Memory, 2)
    by_call["nvmlDeviceGetMemoryInfo"]["c"] = [{"symbol": "nvmlDeviceGetMemoryInfo", "rc": 0}]

    found = nvml_compare.compare(real, [])
    got = {(d["call"], d["path"]): (d["real"], d["fake"]) for d in found["differences"]}
    assert got == {
        ("nvmlDeviceGetPowerUsage", "result"): (118342, 118300),
        ("nvmlDeviceGetPciInfo", "result.pciDeviceId"): (0x250310DE, 0),
        ("nvmlDeviceGetMemoryInfo", "c"): ([["nvmlDeviceGetMemoryInfo", 0, False]], [["nvmlDeviceGetMemoryInfo_v2", 0, False]]),
    }
    assert found["unexplained"] == 3

    explained = [{"call": "nvmlDeviceGetPci*", "path": "result.pci*", "why": "gpudoctor reads busId alone"}]
    found = nvml_compare.compare(real, explained)
    whys = {d["call"]: d["why"] for d in found["differences"]}
    assert whys == {
        "nvmlDeviceGetPowerUsage": None,
        "nvmlDeviceGetPciInfo": "gpudoctor reads busId alone",
        "nvmlDeviceGetMemoryInfo": None,
    }
    assert found["unexplained"] == 2

    # A call the fake's answers never lead gpudoctor to: a process the real library listed and the state lost.
    real["calls"].insert(-1, {"call": "nvmlSystemGetProcessName", "args": [999], "result": "ghost", "c": []})
    (extra,) = [d for d in nvml_compare.compare(real, [])["differences"] if d["path"] == "call"]
    assert (extra["call"], extra["args"], extra["real"], extra["fake"]) == ("nvmlSystemGetProcessName", [999], "made", "not made")


def test_the_committed_explanations_parse(tmp_path):
    nvml_compare = _tool("nvml_compare")
    for entry in nvml_compare.load_explained(nvml_compare.EXPLAINED):
        assert entry["why"].strip() and entry["call"] and entry["path"]
    bad = tmp_path / "bad.toml"
    bad.write_text('[[difference]]\ncall = "nvmlDeviceGetName"\npath = "result"\n')
    with pytest.raises(ValueError, match="lacks why"):
        nvml_compare.load_explained(bad)


def test_holders_are_judged_on_what_memory_reports(truth, tmp_path, libraries):
    """gpu_truth.judge_holders on `gpudoctor memory --format json` of the RTX 3060 desktop: its python (pid 31337,
    7.5 GiB) is named with its size; with no /proc of it, no framework, which the judgement must call wrong."""
    gpu_truth = _tool("gpu_truth")
    snapshot = json.loads((MACHINES / "rtx3060-desktop-other-jobs-hold-memory" / "snapshot.json").read_text())
    sim = build_machine(snapshot, tmp_path / "m", libraries)
    done = sim.run("memory", "--root", str(sim.root), "--format", "json")
    started = {
        "torch": {"pid": 31337, "requested_bytes": 7 * gpu_truth.GIB},
        "cupy": {"pid": 5, "requested_bytes": gpu_truth.GIB},
    }
    torch, cupy = gpu_truth.judge_holders(json.loads(done.stdout), started)
    assert (torch["named"], torch["size_right"], torch["framework_right"], torch["memory_used_bytes"]) == (
        True,
        True,
        False,
        8053063680,
    )
    assert (cupy["named"], cupy["size_right"], cupy["framework_right"]) == (False, False, False)


def test_bandwidth_is_set_beside_the_reference_from_32_mib(truth, tmp_path):
    """compare_bandwidth over the simulated run's own bench JSON and reference lines in the reference program's format:
    4 MiB is left out (not link-bound), pinned 2% off passes, pageable is reported whatever its difference."""
    gpu_truth = _tool("gpu_truth")
    bench = json.loads((truth / "bandwidth-1.json").read_text())
    (tmp_path / "bandwidth-1.json").write_text(json.dumps(bench))
    lines = []
    for m in bench["gpus"][0]["results"]:
        factor = {"h2d": 0.98, "d2h": 1.02}.get(m["test"], 1.5)
        samples = [v * factor for v in m["samples_gb_per_s"]]
        lines.append(json.dumps({"test": m["test"], "size_bytes": m["size_bytes"], "samples_gb_per_s": samples}))
    (tmp_path / "reference-1.jsonl").write_text("\n".join(lines) + "\n")
    result = gpu_truth.compare_bandwidth(tmp_path)
    rows = {(r["test"], r["size_mib"]): r for r in result["rows"]}
    assert set(rows) == {("h2d", 32), ("d2h", 32), ("h2d-pageable", 32), ("d2h-pageable", 32)}
    assert rows[("h2d", 32)]["within_3pct"] and rows[("d2h", 32)]["within_3pct"]
    assert not rows[("h2d-pageable", 32)]["within_3pct"] and result["pinned_within_3pct"] is True
    assert "| h2d | 32 MiB |" in gpu_truth.bandwidth_markdown(result, "test")


CSV = ROOT / "tests" / "fixtures" / "nvidia-smi-csv"


@pytest.mark.parametrize(
    "capture",
    [
        "h100-80gb-hbm3_driver-590.48.01_mig-enabled_query-gpu-all-fields.csv",
        "geforce-rtx-4080-super_driver-595.71.05_query-gpu-all-fields.csv",
    ],
)
def test_every_query_field_is_one_nvidia_smi_knows(capture):
    """The --query-gpu list the script asks for, against the header real nvidia-smi 590 and 595 print for all fields:
    one unknown name makes nvidia-smi refuse the whole query."""
    from gpudoctor.parsers.nvidia_smi_csv import parse_nvidia_smi_csv

    (row,) = parse_nvidia_smi_csv((CSV / capture).read_text())
    assert [field for field in _tool("nvml_compare").QUERY_FIELDS if field not in row] == []


def test_nvml_beside_nvidia_smi_on_the_rtx_4080_capture():
    """smi_parity on real nvidia-smi output: tests/machines/rtx4080super-idle-p8-notebook-holds-memory-gen1 took the
    GPU's readings from this capture (its machine.toml says which) and added a notebook's 9.5 GiB by hand. The readings
    agree in nvidia-smi's own units and words; the memory in use does not, and is a volatile field, never a failure."""
    nvml_compare = _tool("nvml_compare")
    snapshot = json.loads((MACHINES / "rtx4080super-idle-p8-notebook-holds-memory-gen1" / "snapshot.json").read_text())
    csv = (CSV / "geforce-rtx-4080-super_driver-595.71.05_query-gpu-all-fields.csv").read_text()
    rows = {r["field"]: r for r in nvml_compare.smi_parity(snapshot["nvml"], csv)}
    for field in ("system.driver_version", "name", "pci_bus_id", "compute_capability", "memory.total_bytes", "pcie_gen_current"):
        assert rows[field]["agree"] is True, rows[field]
    for field in ("pcie_gen_max", "pcie_width_current", "persistence_mode", "performance_state", "utilization_gpu"):
        assert rows[field]["agree"] is True, rows[field]
    assert (rows["memory.total_bytes"]["nvml"], rows["persistence_mode"]["smi"], rows["performance_state"]["smi"]) == (
        "16376",
        "Disabled",
        "P8",
    )
    assert rows["memory.used_bytes"]["agree"] is False and rows["memory.used_bytes"]["volatile"] is True
    assert rows["ecc_mode.current"]["agree"] is None  # [N/A] on a GeForce card, not_supported in NVML
    assert [r["field"] for r in rows.values() if r["agree"] is False and not r["volatile"]] == []


def test_holders_say_what_they_hold_and_end_when_told(tmp_path, monkeypatch):
    """The holder mechanics without a GPU: a process that prints a line of its own first, then what it holds, waits on
    its stdin, and ends when the script closes it (the script's own exit closes it too)."""
    gpu_truth = _tool("gpu_truth")
    code = "import json,os,sys\nprint('a library greets', flush=True)\nprint(json.dumps({'pid': os.getpid(), 'bytes': int(sys.argv[1])}), flush=True)\n"
    monkeypatch.setattr(gpu_truth, "HOLDERS", {"plain": (4096, code)})
    run = gpu_truth.Run(tmp_path, 120)
    started = gpu_truth.start_holders(run, sys.executable, dict(os.environ))
    holder = started["plain"]
    assert holder["ready"] == {"pid": holder["pid"], "bytes": 4096} and holder["proc"].poll() is None
    gpu_truth.stop_holders(started)
    run.log.close()
    assert holder["proc"].returncode == 0
    assert [(s["name"], s["status"]) for s in run.steps] == [("holder-plain", "ok")]
