"""gpu-lost at its edges: where the lost GPU's bus id comes from, each way the loss is said (NVML, nvidia-smi, a
pasted kernel log), and what the fix says for each cause.

The base is tests/machines/h100x2-gpu-fallen-off-bus (GPU 0 answers at 0000:18:00.0, GPU 1's handle answers
GPU_IS_LOST, two NVIDIA GPUs on the PCI bus); each test changes the facts a branch turns on and runs every check.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.doctor import diagnose
from gpudoctor.facts import PciGpu, Process
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.probed import Found

MACHINES = Path(__file__).resolve().parents[1] / "machines"
SMI_LOST = "Unable to determine the device handle for GPU 0000:2A:00.0: GPU is lost.  Reboot the system to recover this GPU"


@pytest.fixture(scope="module")
def base():
    return diagnose(ReplayHost(load_snapshot(str(MACHINES / "h100x2-gpu-fallen-off-bus" / "snapshot.json")))).facts


def driver(facts, **changes):
    return dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, **changes))


def findings(facts, code="gpu-lost"):
    found, internal = run_checks(facts)
    assert not internal
    return [f for f in found if f.code == code]


def text(finding) -> str:
    r = finding.remediation
    return "\n".join([finding.title, finding.detail, r.summary, *r.lines()])


def test_the_lost_gpu_is_placed_by_the_one_spare_nvidia_gpu_on_the_bus(base):
    (f,) = findings(base)
    assert f.title == "GPU 1 (0000:2a:00.0) is lost: the driver cannot reach it"
    assert f.severity.label == "error" and f.area == "health" and f.remediation.component == "health"
    assert [e.source for e in f.evidence] == ["nvml", "file:/sys/bus/pci/devices/0000:2a:00.0"]
    assert "sudo reboot" in "\n".join(f.remediation.lines()) and "--gpu-reset" not in "\n".join(f.remediation.lines())


def test_two_spare_gpus_on_the_bus_place_neither(base):
    pci = base.kernel.pci.value + (PciGpu("0000:3b:00.0", "0x2330", "0x030200", None, "nvidia"),)
    facts = dataclasses.replace(base, kernel=dataclasses.replace(base.kernel, pci=Found(pci, base.kernel.pci.source)))
    (f,) = findings(facts)
    assert f.title == "GPU 1 is lost: the driver cannot reach it"
    assert "lspci -s" not in text(f)


def test_a_gpu_bound_to_another_driver_is_not_the_lost_one(base):
    pci = tuple(
        dataclasses.replace(p, kernel_driver="vfio-pci") if p.slot == "0000:2a:00.0" else p for p in base.kernel.pci.value
    )
    facts = dataclasses.replace(base, kernel=dataclasses.replace(base.kernel, pci=Found(pci, base.kernel.pci.source)))
    (f,) = findings(facts)
    assert f.title == "GPU 1 is lost: the driver cannot reach it"


def test_nvidia_smi_names_the_bus_id(base):
    facts = driver(base, smi_status="failed", smi_error=SMI_LOST, smi_error_kind="gpu-lost")
    facts = dataclasses.replace(facts, kernel=dataclasses.replace(facts.kernel, pci=Found((), "sysfs")))
    (f,) = findings(facts)
    assert f.title == "GPU 1 (0000:2A:00.0) is lost: the driver cannot reach it"
    assert f.evidence[1].source == "cmd:nvidia-smi" and "GPU is lost" in f.evidence[1].value
    assert "lspci -s 0000:2a:00.0" in text(f)


def test_a_field_answering_gpu_is_lost_keeps_the_bus_id_nvml_gave(base):
    gpus = (
        base.driver.gpus[0],
        dataclasses.replace(base.driver.gpus[0], index=1, pci_bus_id="00000000:3B:00.0", lost=True, lost_error="gpu_is_lost"),
    )
    (f,) = findings(driver(base, gpus=gpus))
    assert f.title == "GPU 1 (00000000:3B:00.0) is lost: the driver cannot reach it"


def test_insufficient_power_says_the_cables(base):
    gpus = (base.driver.gpus[0], dataclasses.replace(base.driver.gpus[1], lost_error="insufficient_power"))
    (f,) = findings(driver(base, gpus=gpus))
    assert "NVML answers INSUFFICIENT_POWER" in f.detail and "power cables" in f.detail
    assert "Xid 79" not in f.detail and f.remediation.summary.startswith("Attach and seat the GPU's external power cables")


def test_in_a_container_the_fix_runs_on_the_host(base):
    facts = dataclasses.replace(base, platform=dataclasses.replace(base.platform, container="docker"))
    (f,) = findings(facts)
    assert f.remediation.where == "the host"


def test_without_nvml_nvidia_smi_says_it_and_driver_unreachable_does_not(base):
    """NVML's binding missing: nvidia-smi reached the driver and named the GPU it cannot get a handle for."""
    facts = driver(
        base,
        nvml_status="binding_missing",
        gpus=(),
        nvml_gpus=(),
        smi_status="failed",
        smi_error="Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error",
        smi_error_kind="gpu-lost",
    )
    (f,) = findings(facts)
    assert f.title == "the GPU at 0000:0B:00.0 is lost: the driver cannot reach it"
    assert "('Unknown Error')" in f.detail and "Xid 79" in f.detail
    assert findings(facts, "driver-unreachable") == []


def test_a_gpu_nvml_answers_for_is_not_lost_because_nvidia_smi_named_it(base):
    facts = driver(
        base,
        gpus=(base.driver.gpus[0],),
        smi_status="failed",
        smi_error="Unable to determine the device handle for GPU 0000:18:00.0: Unknown Error",
        smi_error_kind="gpu-lost",
    )
    assert findings(facts) == []


def test_a_healthy_machine_has_none():
    facts = diagnose(ReplayHost(load_snapshot(str(MACHINES / "h100x8-driver565-torch221-cu121" / "snapshot.json")))).facts
    assert findings(facts) == []


# --- pasted reports --------------------------------------------------------------------------------


def from_text(text: str):
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted import Source, read_pasted

    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "pasted text"))).facts


XID = "Mar 26 12:33:30 Ubuntu-PC kernel: NVRM: Xid (PCI:0000:65:00): 79, GPU has fallen off the bus.\n"
TABLE = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 375.26                 Driver Version: 375.26                    |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  GeForce 840M        Off  | 0000:{bus}:00.0     Off |                  N/A |
| N/A   47C    P0    N/A /  N/A |    242MiB /  2002MiB |     24%      Default |
+-------------------------------+----------------------+----------------------+
"""


def test_a_pasted_kernel_log_with_xid_79_is_a_lost_gpu():
    (f,) = findings(from_text(XID))
    assert f.title == "the GPU at 0000:65:00.0 fell off the bus (Xid 79)"
    assert f.evidence[0].source == "pasted" and "79, GPU has fallen off the bus" in f.evidence[0].value


def test_a_pasted_xid_79_of_a_gpu_the_table_shows_answering_is_history():
    assert findings(from_text(XID + TABLE.format(bus="65"))) == []
    assert len(findings(from_text(XID + TABLE.format(bus="03")))) == 1


def test_a_pasted_nvidia_smi_lost_gpu():
    facts = from_text("$ nvidia-smi\n" + SMI_LOST + "\n")
    (f,) = findings(facts)
    assert f.title == "the GPU at 0000:2A:00.0 is lost: the driver cannot reach it"
    assert findings(facts, "driver-unreachable") == []


def test_graphics_and_compute_lists_merge_by_pid():
    from gpudoctor.probes.driver import nvml_processes

    dev = {
        "processes": [{"pid": 7, "name": "blender", "used_bytes": 100}, {"pid": 8, "name": None, "used_bytes": None}],
        "graphics_processes": [{"pid": 7, "name": "blender", "used_bytes": 120}, {"pid": 9, "name": "Xorg", "used_bytes": 5}],
    }
    assert nvml_processes(dev) == (Process(7, "blender", 120, "C+G"), Process(8, None, None, "C"), Process(9, "Xorg", 5, "G"))
    assert nvml_processes({"processes": [{"pid": 1, "name": "a", "used_bytes": 2}]}) == (Process(1, "a", 2, "C"),)


def test_insufficient_power_said_by_nvidia_smi_says_the_cables(base):
    smi = "Unable to determine the device handle for GPU 0000:82:00.0: Unable to communicate with GPU because it is insufficiently powered."
    facts = driver(
        base, nvml_status="binding_missing", gpus=(), nvml_gpus=(), smi_status="failed", smi_error=smi, smi_error_kind="gpu-lost"
    )
    (f,) = findings(facts)
    assert f.remediation.summary.startswith("Attach and seat the GPU's external power cables") and "Xid 79" not in f.detail


def test_a_gpu_the_driver_never_brought_up_is_not_lost():
    """'Not Found' for a device handle (an open kernel module on a GPU it cannot drive): not a lost GPU."""
    from gpudoctor.parsers.error_texts import classify_error_text, lost_gpu_handles

    text = "Unable to determine the device handle for GPU 0000:D8:00.0: Not Found"
    assert classify_error_text(text) is None and lost_gpu_handles(text) == ()


def test_on_windows_the_fix_restarts_windows_and_collects_nothing_linux_has(base):
    facts = dataclasses.replace(base, platform=dataclasses.replace(base.platform, system="Windows"))
    (f,) = findings(facts)
    lines = f.remediation.lines("powershell")
    assert f.remediation.summary.startswith("Restart the machine: a GPU that fell off the bus")
    assert "shutdown /r /t 0" in lines  # (shutdown.exe: cmd.exe and PowerShell both run it)
    assert not any(word in "\n".join(lines) for word in ("nvidia-bug-report.sh", "dmesg", "lspci", "reboot"))


def test_a_lost_gpu_does_not_count_for_a_gpus_requirement(base):
    from gpudoctor.checks.requirements import evaluate, parse_requirements

    (outcome,) = evaluate(parse_requirements(["gpus>=2"]), base, run_checks(base)[0])
    assert outcome.finding is not None and outcome.finding.code == "requirement-unmet"
    assert "1 GPU(s), and 1 lost" in outcome.finding.detail


def test_a_machine_whose_only_gpu_is_lost_has_no_gpu_to_require(base):
    from gpudoctor.checks.requirements import evaluate, parse_requirements

    facts = driver(base, gpus=(base.driver.gpus[1],))
    (outcome,) = evaluate(parse_requirements(["gpu"]), facts, run_checks(facts)[0])
    assert outcome.finding is not None and "no usable GPU: 1 lost (see gpu-lost)" in outcome.finding.detail
    (kept,) = evaluate(parse_requirements(["gpu"]), base, run_checks(base)[0])
    assert kept.finding is None


def test_no_permission_for_a_handle_is_not_a_lost_gpu(base):
    gpus = (base.driver.gpus[0], dataclasses.replace(base.driver.gpus[1], lost_error="no_permission"))
    assert findings(driver(base, gpus=gpus)) == []


def test_the_memory_view_says_a_lost_gpu_is_lost_instead_of_question_marks():
    # `gpudoctor memory` on the machine whose GPU 1 fell off the bus: NVML has no memory figure for it, so the
    # view says why (and where to read more) rather than "unknown GPU ? used of ?"; JSON carries NVML's error.
    import json

    from typer.testing import CliRunner

    from tests.conftest import real_app

    snap = str(MACHINES / "h100x2-gpu-fallen-off-bus" / "snapshot.json")
    text_run = CliRunner().invoke(real_app(), ["memory", "--replay", snap], env={"COLUMNS": "120"})
    assert text_run.exit_code == 0, text_run.output
    assert "GPU 1  lost: the driver cannot reach it (NVML: GPU_IS_LOST; gpudoctor explain gpu-lost)" in text_run.output
    assert "?" not in text_run.output
    json_run = CliRunner().invoke(real_app(), ["memory", "--replay", snap, "--format", "json"])
    gpus = {g["index"]: g for g in json.loads(json_run.output)["gpus"]}
    assert (gpus[0]["lost"], gpus[1]["lost"]) == (None, "gpu_is_lost")


@pytest.mark.parametrize("spec", ["cc>=7.0", "gpu-memory>=1GiB", "gpu-memory-free>=1MiB", "bf16"])
def test_a_per_gpu_requirement_judges_the_usable_gpus_and_says_the_lost_one_was_not_judged(base, spec):
    from gpudoctor.checks.requirements import evaluate, parse_requirements

    # GPU 0 (an H100, 80 GB) meets each; GPU 1's recorded values are from before it was lost: not evidence.
    (outcome,) = evaluate(parse_requirements([spec]), base, run_checks(base)[0])
    assert outcome.finding is None
    assert outcome.met is True
    assert "GPU 1 (unknown GPU): lost, not judged" in outcome.found


@pytest.mark.parametrize("spec", ["cc>=7.0", "gpu-memory>=1GiB", "bf16"])
def test_a_per_gpu_requirement_is_not_met_when_every_gpu_is_lost(base, spec):
    from gpudoctor.checks.requirements import evaluate, parse_requirements

    # The lost GPU was recorded as an H100 (cc 9.0, 80 GB): those values must not meet anything once it is lost.
    lost_only = (dataclasses.replace(base.driver.gpus[1], name="NVIDIA H100 80GB HBM3"),)
    facts = driver(base, gpus=lost_only)
    (outcome,) = evaluate(parse_requirements([spec]), facts, run_checks(facts)[0])
    assert outcome.finding is not None and outcome.finding.code == "requirement-unmet"
    assert "no usable GPU: 1 lost (see gpu-lost)" in outcome.finding.detail


BLIND = Path(__file__).resolve().parents[1] / "blind"


def _argv(finding):
    return [tuple(str(a) for a in c.argv) for c in finding.remediation.commands]


def test_the_reporters_words_that_the_gpu_falls_off_the_bus_are_xid_79_tested_by_power_and_heat():
    # open-gpu-kernel-modules' thread (tests/blind/plans17/cases/1713-*): "gpu randomly falls off the bus when playing
    # games", no kernel log pasted: confirm Xid 79, watch temperature and power under the load, cap the clock as a test
    text = next(BLIND.glob("plans17/cases/1713-*")).joinpath("input.txt").read_text(encoding="utf-8")
    (f,) = findings(from_text(text))
    assert f.evidence[0].value == "gpu randomly falls off the bus when playing games on the nvidia gpu"
    argv = _argv(f)
    assert argv[0] == ("dmesg", "-T") and f.remediation.commands[0].root
    assert ("nvidia-smi", "-q", "-d", "TEMPERATURE,POWER,PERFORMANCE", "-l", "5") in argv
    assert ("nvidia-smi", "-lgc", "<clock-range-mhz>") in argv
    assert ("reboot",) not in argv and f.remediation.alternative is not None  # the state and the reboot after a loss
    # https://github.com/pop-os/pop/issues/3363, its title quoting the driver without the kernel log line
    (f,) = findings(from_text('nvidia error "GPU has fallen off the bus"\n'))
    assert f.title == "the GPU falls off the bus (Xid 79, in the reporter's words)"


def test_quiet_twins_a_gpu_that_never_fell_off_and_the_kernel_log_line_itself():
    # pop-os/pop#3363's commenter whose laptop GPU does so only idle: "my GPU has never ever fallen off the bus when
    # it's under load"
    assert findings(from_text("my GPU has never ever fallen off the bus when it's under load thus far\n")) == []
    assert findings(from_text("the bus is fine, my GPU did not fall off the bus at all\n")) == []
    # the driver's own line is the kernel log's finding (its bus id), not the words'
    (f,) = findings(from_text(XID))
    assert f.title == "the GPU at 0000:65:00.0 fell off the bus (Xid 79)"
