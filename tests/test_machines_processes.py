"""Every recorded machine's GPU processes, compared with that machine's loader model (issue 32): `memory --pid`
and `check --pid` on the replayed snapshot, each process the memory view lists.

The expectations are written by hand from each snapshot's /proc/PID/maps record (read before running
gpudoctor on it): what the process mapped from the CUDA library families, and the verdict beside the
prediction. A process whose maps the snapshot does not hold says so; a new recording of maps must be
added to MAPPED (the set of recorded PIDs is compared with it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.probes import ProbeOptions
from tests.conftest import real_app
from tests.machines import snapshot_file
from tests.schemas import assert_valid

MACHINES = Path(__file__).resolve().parent / "machines"

_SITE = "/opt/pidjob/env/lib/python3.11/site-packages"
JOB_PID = 21509  # the job's PID as recorded (the snapshot's note names it)
# (slug, pid) -> the process's expected `process` object minus pid: its maps' error, or its CUDA libraries as
# (library family, path, verdict).
MAPPED: dict[tuple[str, int], tuple[str | None, tuple[tuple[str, str, str], ...]]] = {
    # The maps of the three TensorFlow/JAX processes were unreadable to the recording user (EACCES).
    ("h100-load-tf-jax-configured", 11327): ("process 11327 belongs to another user: run as its owner or root", ()),
    ("h100-load-tf-jax-configured", 11328): ("process 11328 belongs to another user: run as its owner or root", ()),
    ("h100-load-tf-jax-configured", 11345): ("process 11345 belongs to another user: run as its owner or root", ()),
    # torch's job: only libtorch_cpu.so and libtorch_cuda.so were recorded (an excerpt): no library of a CUDA family.
    ("rtx4000ada-tf-beside-torch-job", 4937): (None, ()),
    # The notebook's TensorFlow: libtensorflow_framework.so.2 and _pywrap_tensorflow_internal.so only.
    ("t4-jax-beside-tf-notebook", 5762): (None, ()),
    # Built here (record.sh): the job dlopen()ed the copy torch's RUNPATH leads to, a second libcudart.so.12 and a
    # libnccl.so.2 (no framework's model names NCCL here: the stand-in NEEDs only libcudart) by full path.
    ("build-machine-job-maps-another-cudart", JOB_PID): (
        None,
        (
            ("libcudart", f"{_SITE}/nvidia/cuda_runtime/lib/libcudart.so.12", "as-predicted"),
            ("libcudart", "/opt/pidjob/job/lib/libcudart.so.12", "differs"),
            ("libnccl", "/opt/pidjob/job/lib/libnccl.so.2", "not-predicted"),
        ),
    ),
}


def _recorded_maps(slug: str) -> set[int]:
    files = load_snapshot(str(snapshot_file(MACHINES / slug)))["files"]
    return {int(p.split("/")[2]) for p in files if p.startswith("/proc/") and p.endswith("/maps")}


def _processes() -> list[tuple[str, int]]:
    """(slug, pid) of every process a recorded machine's memory view lists."""
    out = []
    for snap in sorted(MACHINES.glob("*/snapshot.json")):
        r = CliRunner().invoke(real_app(), ["memory", "--replay", str(snap), "--format", "json"])
        if not r.stdout.strip().startswith("{"):
            continue
        view = json.loads(r.stdout)
        # The processes holding GPU memory, and any whose maps were recorded (snapshot --pid; a machine without a GPU).
        pids = {p["pid"] for g in view.get("gpus", []) for p in g.get("processes", [])} | _recorded_maps(snap.parent.name)
        out += [(snap.parent.name, pid) for pid in sorted(pids)]
    return out


PROCESSES = _processes()


def test_every_recorded_maps_file_is_expected():
    slugs = {slug for slug, _ in PROCESSES}
    recorded = {(slug, pid) for slug in slugs for pid in _recorded_maps(slug)}
    assert recorded == set(MAPPED)
    assert len(PROCESSES) >= 10  # the machines that record GPU processes (ten and more)


@pytest.mark.parametrize(("slug", "pid"), PROCESSES, ids=[f"{s}-{p}" for s, p in PROCESSES])
def test_memory_and_check_compare_each_process_with_the_loader_model(slug, pid):
    snap = str(snapshot_file(MACHINES / slug))
    r = CliRunner().invoke(real_app(), ["memory", "--replay", snap, "--pid", str(pid), "--format", "json"])
    doc = json.loads(r.stdout)
    assert_valid(doc, "memory --pid")
    proc = doc["process"]
    error, libraries = MAPPED.get((slug, pid), (f"process {pid}'s maps are not recorded in the snapshot", ()))
    assert proc["pid"] == pid and proc["error"] == error
    # In maps order (by address), each file once.
    assert sorted((lib["library"], lib["path"], lib["verdict"]) for lib in proc["libraries"]) == sorted(libraries)
    # check --pid decides the same: a finding names another copy exactly when a library's verdict differs.
    report = diagnose(ReplayHost(load_snapshot(snap)), ProbeOptions(pid=pid))
    codes = [f.code for f in report.findings if f.code.startswith("process-")]
    differs = any(verdict == "differs" for _, _, verdict in libraries)
    assert codes == (["process-library-differs"] if differs else []) + ["process-libraries-mapped"]
