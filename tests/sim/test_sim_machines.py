"""Recorded machines run LIVE on a simulated NVIDIA machine, end to end, and judged as their replay is.

Each machine below is laid out as a temporary root (tests/sim/machine.py), with the fake libnvidia-ml.so.1
(tests/sim/fake_nvml.c, built against NVIDIA's nvml.h) answering from its `nvml` section and the fake
libcuda.so.1 copying at what its recorded PCIe link gives. Then the real `gpudoctor` program runs on it
(`--root`, hidden): the real nvidia-ml-py calls the C library through ctypes, the adapter reads it, the
checks judge it. What a live run finds must be what the replay of the same snapshot finds.

What the live run sees that replay does not (and why the comparison still holds): the environment's
LD_LIBRARY_PATH names the fake libraries' directory (no check reads it for these machines); where the
snapshot records no Python environment, the live run describes gpudoctor's own interpreter (replay has
none; no warning or error comes of it here, and the comparison covers info findings too); fields the
recording does not hold, the fake NVML answers NOT_SUPPORTED, as a real library does for a GPU without
them (test_live_nvml_state_is_the_recorded_one checks that nothing else differs).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpudoctor.bandwidth.expected import load_link_table
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from tests.sim.machine import SimMachine, build_machine, driver_era

MACHINES = Path(__file__).resolve().parents[1] / "machines"

# slug -> what of the live NVML path it exercises.
SIMULATED = {
    "h100x8-driver565-torch221-cu121": "8 x H100: eight handles, the Python environment through its recorded interpreter",
    "a100-mig-two-instances": "MIG mode and two MIG device handles; a 510 driver's library without the R535 entry point",
    "rtx3060-laptop-torch-cpu-build": "a laptop GPU idling at Gen1 x8; ECC, MIG and row remapping NOT_SUPPORTED; pre-R535 library",
    "rtx3060-desktop-other-jobs-hold-memory": "a desktop whose memory other processes hold: both struct versions of the process list",
    "gt1030-desktop-graphics-holders-nvml": "a desktop whose Xorg, compositor and browser hold memory as graphics processes; "
    "a 470 driver's library (no _v3 process lists)",
    "h100x2-gpu-fallen-off-bus": "GPU_IS_LOST from one device's handle while the other answers",
    "driver-library-mismatch-after-upgrade": "nvmlInit answers LIB_RM_VERSION_MISMATCH",
    "h100-nvidia-smi-hangs": "nvmlInit hangs (and nvidia-smi with it): gpudoctor stops waiting at its time limit",
    "h100nvl-failing-gpu": "ECC errors, a row remapping failure, thermal clock event reasons, a link trained at x8",
    "wsl2-linux-driver-installed": "nvmlInit answers DRIVER_NOT_LOADED",
    "h100-driver-unreachable": "nvmlInit answers UNKNOWN",
    "ci-docker-cuda13-no-gpu": "no libnvidia-ml.so.1 at all",
}


def snapshot_of(slug: str) -> dict[str, Any]:
    return json.loads((MACHINES / slug / "snapshot.json").read_text(encoding="utf-8"))


def machine(slug: str, tmp_path: Path, libraries, **kw) -> SimMachine:
    return build_machine(snapshot_of(slug), tmp_path / slug, libraries, **kw)


def findings(report_findings) -> set[tuple[str, str, str]]:
    return {(f.code, f.severity.label, f.title) for f in report_findings}


@pytest.mark.parametrize("slug", sorted(SIMULATED))
def test_live_findings_equal_replay_findings(slug, tmp_path, libraries):
    if snapshot_of(slug)["nvml"]["status"] == "library_not_found" and _real_nvml_here():
        pytest.skip(
            "an NVIDIA GPU's driver is installed here: the loader finds its real NVML where the simulated machine has none"
        )
    sim = machine(slug, tmp_path, libraries)
    # The hanging nvmlInit gets a short probe limit (one second, not five; the finding does not name it); the
    # others keep the default, so that a busy machine never turns a slow answer into a probe-timeout finding.
    hangs = snapshot_of(slug)["nvml"]["status"] == "timeout"
    done = sim.run("check", "--root", str(sim.root), "--format", "json", *(("--probe-timeout", "1") if hangs else ()))
    assert done.returncode in (0, 1), done.stderr
    live = json.loads(done.stdout)
    got = {(f["code"], f["severity"], f["title"]) for f in live["findings"]}
    replayed = findings(diagnose(ReplayHost(snapshot_of(slug))).findings)
    assert got == replayed, f"{slug} ({SIMULATED[slug]}): live only {got - replayed}, replay only {replayed - got}"
    assert live["facts"]["driver"]["nvml_status"] == snapshot_of(slug)["nvml"]["status"]


def _real_nvml_here() -> bool:
    probe = "import ctypes\ntry:\n    ctypes.CDLL('libnvidia-ml.so.1')\nexcept OSError:\n    raise SystemExit(1)"
    return subprocess.run([sys.executable, "-c", probe], env={"PATH": "/usr/bin:/bin"}, timeout=30).returncode == 0


def _without_empty(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_empty(v) for k, v in value.items() if v != {}}
    if isinstance(value, list):
        return [_without_empty(v) for v in value]
    return value


@pytest.mark.parametrize(
    "slug", sorted(s for s in SIMULATED if snapshot_of(s)["nvml"].get("status") not in ("timeout", "library_not_found"))
)
def test_live_nvml_state_is_the_recorded_one(slug, tmp_path, libraries):
    """`gpudoctor snapshot` live on the simulation records the NVML state the machine was recorded with:
    every value and error, and the error text nvidia-ml-py made of nvmlErrorString's answer."""
    sim = machine(slug, tmp_path, libraries)
    done = sim.run("snapshot", "--root", str(sim.root), "--output", "-", "--no-redact")
    assert done.returncode == 0, done.stderr
    live, recorded = _without_empty(json.loads(done.stdout)["nvml"]), _without_empty(snapshot_of(slug)["nvml"])
    if driver_era(recorded) == "before-r510" and "nvmlDeviceGetMemoryInfo_v2->nvmlDeviceGetMemoryInfo" not in str(recorded):
        # Recorded before gpudoctor asked for NVML's v2 memory call, which a pre-R510 library lacks too.
        live["fallbacks"] = [f for f in live["fallbacks"] if not f.startswith("nvmlDeviceGetMemoryInfo_v2->")]
    assert {k: v for k, v in live.items() if k != "devices"} == {k: v for k, v in recorded.items() if k != "devices"}
    assert len(live.get("devices", [])) == len(recorded.get("devices", []))
    for got, want in zip(live.get("devices", []), recorded.get("devices", []), strict=True):
        if "memory" in want and "reserved_bytes" not in want["memory"]:
            # Recorded through NVML's v1 memory call (its used holds the reservation); the fake answers v2 with
            # that used and nothing reserved (a pre-R510 library: v1 again, and no reservation read).
            assert got["memory"].pop("reserved_bytes", 0) == 0
        assert {k: v for k, v in got.items() if k != "errors"} == {k: v for k, v in want.items() if k != "errors"}
        recorded_errors, live_errors = want.get("errors", {}), got.get("errors", {})
        # What the recording does not hold, the library does not support: nothing else may differ.
        extra = {k: v for k, v in live_errors.items() if k not in recorded_errors}
        assert all(v == "not_supported" and k not in want for k, v in extra.items()), extra
        assert {k: live_errors.get(k) for k in recorded_errors} == recorded_errors


def test_a_pre_r510_library_makes_the_binding_fall_back(tmp_path, libraries):
    """A driver older than R510 lacks nvmlDeviceGetComputeRunningProcesses_v3 and nvmlDeviceGetGpuMaxPcieLinkGeneration:
    the real nvidia-ml-py meets FUNCTION_NOT_FOUND, and the adapter falls back to _v2 and records it."""
    snap = snapshot_of("rtx3060-desktop-other-jobs-hold-memory")
    nvml = snap["nvml"]
    nvml["fallbacks"] = [
        "nvmlDeviceGetMemoryInfo_v2->nvmlDeviceGetMemoryInfo",  # its used then holds the driver's reservation
        "nvmlDeviceGetCurrentClocksEventReasons->nvmlDeviceGetCurrentClocksThrottleReasons",
        "nvmlDeviceGetComputeRunningProcesses_v3->nvmlDeviceGetComputeRunningProcesses_v2",
        "nvmlDeviceGetGraphicsRunningProcesses_v3->nvmlDeviceGetGraphicsRunningProcesses_v2",
    ]
    assert driver_era(nvml) == "before-r510"
    sim = build_machine(snap, tmp_path / "old", libraries)
    done = sim.run("snapshot", "--root", str(sim.root), "--output", "-", "--no-redact")
    live = json.loads(done.stdout)["nvml"]
    assert live["fallbacks"] == nvml["fallbacks"]
    (dev,) = live["devices"]
    assert dev["errors"]["pcie_gen_gpu_max"] == "function_not_found"
    assert "reserved_bytes" not in dev["memory"]  # read through v1
    assert [p["pid"] for p in dev["processes"]] == [31337, 4242]  # read through the _v2 struct
    assert dev["processes"][0]["used_bytes"] == 8053063680 and dev["processes"][0]["name"] == "python"


def test_memory_view_live(tmp_path, libraries):
    sim = machine("rtx3060-desktop-other-jobs-hold-memory", tmp_path, libraries)
    done = sim.run("memory", "--root", str(sim.root), "--format", "json")
    assert done.returncode == 1, done.stderr  # 1: a GPU at least 25% held (docs of `gpudoctor memory`)
    doc = json.loads(done.stdout)
    replayed = sim.run(
        "memory", "--replay", str(MACHINES / "rtx3060-desktop-other-jobs-hold-memory" / "snapshot.json"), "--format", "json"
    )
    # The processes' own details come from /proc/PID, which neither the recording nor the simulated root holds;
    # the live run says why in its own words (another PID namespace), the replay in its own.
    live_gpus, replay_gpus = doc["gpus"], json.loads(replayed.stdout)["gpus"]
    for gpus in (live_gpus, replay_gpus):
        for gpu in gpus:
            for proc in gpu["processes"]:
                proc.pop("problem")
    assert live_gpus == replay_gpus
    assert [p["pid"] for p in doc["gpus"][0]["processes"]] == [31337, 4242]


def test_graphics_processes_name_the_holder_live_as_in_replay(tmp_path, libraries):
    """A desktop's holders are graphics processes (nvmlDeviceGetGraphicsRunningProcesses, through the _v2 struct of
    a 470 driver's library): the live run names Xorg as the replay does, with the same detail."""
    slug = "gt1030-desktop-graphics-holders-nvml"
    sim = machine(slug, tmp_path, libraries)
    done = sim.run("check", "--root", str(sim.root), "--format", "json")
    assert done.returncode == 1, done.stderr
    live = json.loads(done.stdout)
    (held,) = [f for f in live["findings"] if f["code"] == "gpu-memory-held"]
    (replayed,) = [f for f in diagnose(ReplayHost(snapshot_of(slug))).findings if f.code == "gpu-memory-held"]
    assert held["detail"] == replayed.detail and "/usr/lib/Xorg (pid 607, 0.5 GiB)" in held["detail"]
    procs = live["facts"]["driver"]["gpus"][0]["processes"]
    assert [(p["pid"], p["type"]) for p in procs[:2]] == [(607, "G"), (746, "G")] and len(procs) == 10
    recorded = json.loads(sim.run("snapshot", "--root", str(sim.root), "--output", "-").stdout)["nvml"]
    assert "nvmlDeviceGetGraphicsRunningProcesses_v3->nvmlDeviceGetGraphicsRunningProcesses_v2" in recorded["fallbacks"]


def test_memory_watch_draws_frames_live(tmp_path, libraries):
    sim = machine("a100-mig-two-instances", tmp_path, libraries)
    # A terminal's redraws (rich draws every frame only to a terminal; forced here, as a pipe has none).
    done = sim.run("memory", "--root", str(sim.root), "--watch", "--count", "3", "--interval", "0", env={"FORCE_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("GPU memory at") >= 3  # three redraws (rich may draw the last once more on exit)
    assert "NVIDIA A100-SXM4-40GB" in done.stdout and "MIG" in done.stdout


def _practical(gen: int, width: int) -> float:
    spec = load_link_table().pcie(gen, width)
    assert spec is not None and spec.practical_gb_per_s is not None
    return round(spec.practical_gb_per_s, 2)


BENCH = ("bench", "bandwidth", "--sizes", "4M", "--repeats", "2", "--warmup", "0", "--format", "json", "--no-progress")


def test_bench_bandwidth_live_gives_what_the_recorded_link_predicts(tmp_path, libraries):
    """8 x H100 at Gen5 x16: each GPU measured copies at the link's practical figure, judged healthy.

    Three of the eight (first, middle, last): the fake's copies are real memcpy, and the reading of the link
    under load queues a gigabyte of them per GPU (`measure._read_under_load`)."""
    sim = machine("h100x8-driver565-torch221-cu121", tmp_path, libraries, link_files=True)
    done = sim.run(*BENCH, "--root", str(sim.root), "--tests", "h2d,d2h,d2d,bidir", "--gpu", "0,3,7")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [g["ordinal"] for g in doc["gpus"]] == [0, 3, 7] and doc["findings"] == []
    for gpu in doc["gpus"]:
        assert gpu["name"] == "NVIDIA H100 80GB HBM3" and gpu["nvml_index"] == gpu["ordinal"]
        assert gpu["link"]["gen_under_load"] == 5 and gpu["link"]["width_under_load"] == 16
        for test in ("h2d", "d2h"):
            assert gpu["judged"][test]["status"] == "ok"
            assert gpu["judged"][test]["median_gb_per_s"] == _practical(5, 16)


def test_bench_bandwidth_live_on_a_link_trained_at_x8(tmp_path, libraries):
    """The H100 NVL whose link trained at x8 of x16: copies give Gen5 x8's figure, judged low against x16."""
    sim = machine("h100nvl-failing-gpu", tmp_path, libraries, link_files=True)
    done = sim.run(*BENCH, "--root", str(sim.root), "--tests", "h2d,d2h")
    assert done.returncode == 1, done.stderr
    doc = json.loads(done.stdout)
    (gpu,) = doc["gpus"]
    assert gpu["judged"]["h2d"]["status"] == "low" and gpu["judged"]["h2d"]["median_gb_per_s"] == _practical(5, 8)
    assert gpu["expected"]["label"] == "PCIe Gen5 x16" and gpu["expected_trained"]["label"] == "PCIe Gen5 x8"
    assert [f["code"] for f in doc["findings"]] == ["bandwidth-low"]


def test_bench_bandwidth_verify_catches_a_corrupted_copy_live(tmp_path, libraries):
    sim = machine("rtx3060-desktop-other-jobs-hold-memory", tmp_path, libraries, link_files=True, corrupt=True)
    done = sim.run(*BENCH, "--root", str(sim.root), "--tests", "h2d,d2h", "--verify")
    assert done.returncode == 1, done.stderr
    doc = json.loads(done.stdout)
    assert "bandwidth-copy-corrupt" in [f["code"] for f in doc["findings"]]
    assert {r["test"]: r["verified"] for r in doc["gpus"][0]["results"]} == {"h2d": False, "d2h": False}


def test_bench_bandwidth_live_on_a_driver_library_mismatch(tmp_path, libraries):
    """cuInit answers CUDA_ERROR_SYSTEM_DRIVER_MISMATCH where NVML answered LIB_RM_VERSION_MISMATCH: one sentence, exit 3."""
    snap = snapshot_of("driver-library-mismatch-after-upgrade")
    # The recording holds no GPU for the CUDA side; one GPU stands in so that libcuda.so.1 is there to refuse.
    snap["nvml"]["devices"] = [{"index": 0, "name": "NVIDIA A100-SXM4-40GB", "pci_bus_id": "00000000:00:04.0"}]
    sim = build_machine(snap, tmp_path / "mismatch", libraries)
    done = sim.run("bench", "bandwidth", "--root", str(sim.root), "--no-progress")
    assert done.returncode == 3
    assert "kernel module" in done.stderr and "Traceback" not in done.stderr
