"""Recorded machines (tests/machines) as snapshot dicts to change one fact of, and what gpudoctor finds on them."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from tests.machines import snapshot_text

MACHINES = Path(__file__).resolve().parents[1] / "machines"


@cache
def _recorded(slug: str) -> str:
    return snapshot_text(MACHINES / slug)


def recorded(slug: str) -> dict:
    """A fresh copy of the recorded machine's snapshot, to change."""
    return json.loads(_recorded(slug))


def report(snapshot: dict):
    return diagnose(ReplayHost(validate_snapshot(copy.deepcopy(snapshot))))


def found(snapshot: dict, code: str) -> list:
    """The findings of `code` gpudoctor reports on the machine (no internal error allowed)."""
    r = report(snapshot)
    assert not [f for f in r.findings if f.code == "internal-check-error"], [f.detail for f in r.findings]
    return [f for f in r.findings if f.code == code]


def codes(snapshot: dict) -> set[str]:
    return {f.code for f in report(snapshot).findings}


def nvml_gpu(index: int = 0, **fields) -> dict:
    """One GPU as NVML reports it on a healthy idle H100 (fields not given are left out: unknown)."""
    gpu = {
        "index": index,
        "name": "NVIDIA H100 80GB HBM3",
        "uuid": f"GPU-{index:08d}-0000-0000-0000-000000000000",
        "pci_bus_id": f"00000000:{0x18 + index:02X}:00.0",
        "compute_capability": "9.0",
        "memory": {"total_bytes": 85899345920, "used_bytes": 0, "free_bytes": 85899345920},
        "processes": [],
        "errors": {},
    }
    gpu.update(fields)
    return gpu


def nvml_machine(*gpus: dict, driver: str = "550.54.14", cuda: int = 12040, **top) -> dict:
    """A minimal Linux machine whose NVML answers: the driver loaded, its device nodes, and `gpus`."""
    gpus = gpus or (nvml_gpu(),)
    files = {
        "/etc/os-release": 'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\n',
        "/proc/driver/nvidia/version": f"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {driver}  Release Build\n",
        "/proc/modules": "nvidia_uvm 1 0 - Live 0x0\nnvidia 1 1 nvidia_uvm, Live 0x0\n",
        "/dev/nvidiactl": {"type": "char", "readable": True, "writable": True},
        "/dev/nvidia-uvm": {"type": "char", "readable": True, "writable": True},
    }
    for g in gpus:
        files[f"/dev/nvidia{g['index']}"] = {"type": "char", "readable": True, "writable": True}
        if "pci_bus_id" not in g:
            continue  # a GPU whose handle NVML could not get (lost): no bus id from NVML
        slot = g["pci_bus_id"][4:].lower()
        files[f"/sys/bus/pci/devices/{slot}/vendor"] = "0x10de\n"
        files[f"/sys/bus/pci/devices/{slot}/class"] = "0x030200\n"
        files[f"/sys/bus/pci/devices/{slot}/driver"] = {"link": "../../../bus/pci/drivers/nvidia"}
    snap = {
        "format": "gpudoctor-snapshot/1",
        "platform": {"system": "Linux", "release": "6.5.0-generic", "machine": "x86_64"},
        "env": {"PATH": "/usr/bin:/bin"},
        "files": files,
        "nvml": {
            "status": "ok",
            "driver_version": driver,
            "nvml_version": f"12.{driver}",
            "cuda_driver_version": cuda,
            "devices": list(gpus),
        },
    }
    snap.update(top)
    return snap


def facts_of(slug: str):
    return report(recorded(slug)).facts


def judged(facts, code: str) -> list:
    """The findings of `code` the checks give on `facts` (facts changed in code: dataclasses.replace)."""
    from gpudoctor.checks import run_checks

    out, internal = run_checks(facts)
    assert not internal, internal
    return [f for f in out if f.code == code]


def replace(obj, **changes):
    """obj with fields changed; a dict value changes fields of that field (replace(facts, driver={...}))."""
    import dataclasses

    return dataclasses.replace(
        obj, **{k: dataclasses.replace(getattr(obj, k), **v) if isinstance(v, dict) else v for k, v in changes.items()}
    )


def pasted_report(text: str):
    """gpudoctor's report on a pasted text, as `check --from` reads it (no internal error allowed)."""
    from gpudoctor.pasted import Source, read_pasted

    r = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not r.internal_errors, r.internal_errors
    return r


def pasted_findings(text: str) -> dict:
    """What gpudoctor finds in a pasted report, by code (no internal error allowed)."""
    return {f.code: f for f in pasted_report(text).findings}


def planned_findings(text: str) -> dict:
    """The findings of a pasted report as `check --from` prints them (gpudoctor.pipeline.check: each command through the
    planner's filters, gpudoctor.planner.deciders), by code."""
    from gpudoctor.pasted import Source, read_pasted
    from gpudoctor.pipeline import CheckRequest, check

    done = check(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")), CheckRequest())
    assert not done.report.internal_errors, done.report.internal_errors
    return {f.code: f for f in done.report.findings}


def argv_words(remediation) -> list[tuple[str, ...]]:
    """The argv of each command step of a remediation, every word as text (a placeholder by its name)."""
    from gpudoctor.cmdline import Cmd

    return [tuple(str(w) for w in c.argv) for c in remediation.commands if isinstance(c, Cmd)]


def argv_of(finding) -> list[tuple[str, ...]]:
    """The argv of each command of a finding's remediation (prose lines left out)."""
    return [cmd.argv for cmd in finding.remediation.commands if hasattr(cmd, "argv")]
