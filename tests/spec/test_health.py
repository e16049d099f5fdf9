"""docs/findings: the GPU health area (gpu-ecc-errors, gpu-throttled, pcie-link-degraded, gpu-memory-held, gpu-lost,
mig-enabled, cuda-visible-devices-hides-all), each documented sentence of "How gpudoctor decides" as a test, on the
minimal NVML machine of tests/spec/machine.py (one GPU's fields changed) or a recorded machine."""

from __future__ import annotations

import pytest

from gpudoctor.model import Severity
from tests.spec.machine import MACHINES, argv_of, codes, found, nvml_gpu, nvml_machine, pasted_findings, recorded
from tests.spec.registry import FIRES, QUIET, states

GIB = 1024**3
TOTAL = 80 * GIB

# --- gpu-ecc-errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "severity"),
    [
        ({"ecc_volatile_uncorrected": 1}, Severity.ERROR),
        ({"retired_pages_pending": True}, Severity.ERROR),
        ({"remapped_rows": {"pending": False, "failure": True}}, Severity.ERROR),
        ({"ecc_aggregate_uncorrected": 1}, Severity.WARNING),
        ({"remapped_rows": {"pending": True, "failure": False}}, Severity.WARNING),
    ],
    ids=["volatile", "retired-pending", "remap-failure", "aggregate-only", "remap-pending"],
)
@states("gpu-ecc-errors", FIRES)
def test_ecc_errors_and_warnings(fields, severity):
    """gpu-ecc-errors.md: "Errors: volatile uncorrected errors, retired pages pending, or a remapping failure.
    Warnings: aggregate (lifetime) uncorrected errors only, or a remapping pending." """
    (f,) = found(nvml_machine(nvml_gpu(ecc_mode={"current": True, "pending": True}, **fields)), "gpu-ecc-errors")
    assert f.severity == severity


@states("gpu-ecc-errors", QUIET)
def test_no_ecc_finding_at_zero_or_where_unsupported():
    """gpu-ecc-errors.md: "Not judged: fields the GPU does not support (no ECC on most GeForce cards)." - zero counts
    and no pending flags are quiet, and so are fields left out (not supported)."""
    zero = nvml_gpu(
        ecc_mode={"current": True, "pending": True},
        ecc_volatile_uncorrected=0,
        ecc_aggregate_uncorrected=0,
        retired_pages_pending=False,
        remapped_rows={"pending": False, "failure": False},
    )
    assert found(nvml_machine(zero), "gpu-ecc-errors") == []
    assert found(nvml_machine(nvml_gpu()), "gpu-ecc-errors") == []


@states("gpu-ecc-errors", FIRES)
def test_one_ecc_finding_per_gpu_listing_every_problem():
    """gpu-ecc-errors.md: "One finding per GPU, listing every problem found." """
    bad = {"ecc_volatile_uncorrected": 2, "retired_pages_pending": True, "ecc_mode": {"current": True, "pending": True}}
    fs = found(nvml_machine(nvml_gpu(0, **bad), nvml_gpu(1, **bad)), "gpu-ecc-errors")
    assert len(fs) == 2


# --- gpu-throttled ----------------------------------------------------------------------------------------

# NVML's clock-event reason bits (nvml.h: nvmlClocksEventReason*)
IDLE, APP_CLOCKS, SW_POWER_CAP, HW_SLOWDOWN, SYNC_BOOST = 0x1, 0x2, 0x4, 0x8, 0x10
SW_THERMAL, HW_THERMAL, HW_POWER_BRAKE, DISPLAY_CLOCKS = 0x20, 0x40, 0x80, 0x100


@pytest.mark.parametrize("bit", [HW_SLOWDOWN, HW_THERMAL, SW_THERMAL, HW_POWER_BRAKE])
@states("gpu-throttled", FIRES)
def test_each_protective_slowdown_fires(bit):
    """gpu-throttled.md: "Rule: any of hw_slowdown, hw_thermal_slowdown, sw_thermal_slowdown or
    hw_power_brake_slowdown is active." """
    assert len(found(nvml_machine(nvml_gpu(clock_event_reasons=bit | IDLE)), "gpu-throttled")) == 1


@pytest.mark.parametrize("mask", [IDLE, SW_POWER_CAP, APP_CLOCKS, SYNC_BOOST, DISPLAY_CLOCKS, 0, None])
@states("gpu-throttled", QUIET)
def test_normal_operation_is_not_throttling(mask):
    """gpu-throttled.md: "Not reported, because they are normal operation rather than protection: gpu_idle;
    sw_power_cap ...; application clock settings, sync boost, display clock settings." and "Not judged when the
    reasons are unknown"."""
    gpu = nvml_gpu() if mask is None else nvml_gpu(clock_event_reasons=mask)
    assert found(nvml_machine(gpu), "gpu-throttled") == []


@states("gpu-throttled", FIRES)
def test_throttled_is_one_finding_per_gpu():
    """gpu-throttled.md: "Scope: one finding per GPU." """
    fs = found(
        nvml_machine(nvml_gpu(0, clock_event_reasons=HW_THERMAL), nvml_gpu(1, clock_event_reasons=SW_THERMAL)), "gpu-throttled"
    )
    assert len(fs) == 2


# --- pcie-link-degraded -----------------------------------------------------------------------------------


def _link(gen=5, width=16, gen_max=5, width_max=16, **busy):
    return nvml_gpu(pcie_gen_current=gen, pcie_width_current=width, pcie_gen_max=gen_max, pcie_width_max=width_max, **busy)


BUSY = {"utilization_gpu": 5, "performance_state": "P0"}
IDLE_P8 = {"performance_state": "P8", "utilization_gpu": 0}


@pytest.mark.parametrize(("gen", "width"), [(5, 8), (4, 16), (5, 15)])
@states("pcie-link-degraded", FIRES)
def test_busy_narrower_or_slower_link_is_a_warning(gen, width):
    """pcie-link-degraded.md: "Busy (warning): the width is narrower than its maximum, or the generation is lower."
    (busy: "when its utilisation is 5% or more")"""
    (f,) = found(nvml_machine(_link(gen, width, **BUSY)), "pcie-link-degraded")
    assert f.severity == Severity.WARNING


@states("pcie-link-degraded", FIRES, QUIET)
def test_idle_narrow_is_info_idle_slow_is_nothing():
    """pcie-link-degraded.md: "Idle (info): the width is narrower than its maximum. A lower generation alone at
    idle is normal power saving and is not reported." (idle: "its performance state is P5 or lower (P8 ...)")"""
    (f,) = found(nvml_machine(_link(5, 8, **IDLE_P8)), "pcie-link-degraded")
    assert f.severity == Severity.INFO
    assert found(nvml_machine(_link(1, 16, **IDLE_P8)), "pcie-link-degraded") == []


@states("pcie-link-degraded", FIRES, QUIET)
def test_busy_is_judged_on_activity_at_the_5_percent_boundary():
    """pcie-link-degraded.md: "busy when its utilisation is 5% or more"; at 4% with no other sign it is not busy,
    so a lower generation is not reported."""
    assert len(found(nvml_machine(_link(4, 16, utilization_gpu=5)), "pcie-link-degraded")) == 1
    assert found(nvml_machine(_link(4, 16, utilization_gpu=4)), "pcie-link-degraded") == []


@states("pcie-link-degraded", FIRES)
def test_without_activity_figures_a_process_in_p0_to_p2_makes_it_busy():
    """pcie-link-degraded.md: "otherwise, with neither known, busy when a process runs on it in P0-P2"."""
    proc = [{"pid": 4242, "name": "python3", "used_bytes": GIB}]
    assert len(found(nvml_machine(_link(4, 16, performance_state="P2", processes=proc)), "pcie-link-degraded")) == 1
    assert found(nvml_machine(_link(4, 16, performance_state="P2")), "pcie-link-degraded") == []


@states("pcie-link-degraded", QUIET)
def test_a_full_link_or_unknown_link_fields_are_not_judged():
    """pcie-link-degraded.md: at its maximum nothing is said; "Not judged when the link fields are unknown"."""
    assert found(nvml_machine(_link(5, 16, **BUSY)), "pcie-link-degraded") == []
    assert found(nvml_machine(nvml_gpu(**BUSY)), "pcie-link-degraded") == []


# --- gpu-memory-held --------------------------------------------------------------------------------------


def _held(used: int, total: int = TOTAL):
    return nvml_gpu(
        memory={"total_bytes": total, "used_bytes": used, "free_bytes": total - used},
        processes=[{"pid": 777, "name": "python3", "used_bytes": used}],
    )


@states("gpu-memory-held", FIRES, QUIET)
def test_memory_held_at_the_25_percent_boundary():
    """gpu-memory-held.md: "Rule: held memory is at least 25 % of the total." - exactly a quarter fires, a byte
    less does not."""
    assert len(found(nvml_machine(_held(TOTAL // 4)), "gpu-memory-held")) == 1
    assert found(nvml_machine(_held(TOTAL // 4 - 1)), "gpu-memory-held") == []


@states("gpu-memory-held", FIRES)
def test_held_is_the_sum_of_the_processes_and_used_memory_without_them():
    """gpu-memory-held.md: "Held memory: the sum of the per-process figures. When no per-process figures exist
    ..., the GPU's used memory counts instead." """
    two = nvml_gpu(
        memory={"total_bytes": TOTAL, "used_bytes": TOTAL // 4, "free_bytes": TOTAL * 3 // 4},
        processes=[{"pid": 1, "name": "a", "used_bytes": TOTAL // 8}, {"pid": 2, "name": "b", "used_bytes": TOTAL // 8}],
    )
    assert len(found(nvml_machine(two), "gpu-memory-held")) == 1
    no_procs = nvml_gpu(memory={"total_bytes": TOTAL, "used_bytes": TOTAL // 2, "free_bytes": TOTAL // 2})
    assert len(found(nvml_machine(no_procs), "gpu-memory-held")) == 1


ROOT = MACHINES.parents[1]
FUSER = ("fuser", "-v", "/dev/nvidiactl", "/dev/nvidia-uvm")
QUERY = ("nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv", "-i", "0")


@pytest.mark.parametrize(
    "path",
    [
        "tests/pasted/cases/crosse-2-oom-p100-memory-held-no-process/report.txt",  # nvidia-smi's table, no process
        "tests/pasted/cases/fastmri-238-oom-zombie-holds-8gb-gpu/report.txt",  # a zombie nvidia-smi does not list
        # an OOM message: 530 MiB reserved by PyTorch, 12.5 MiB free of 11.17 GiB, "nothing else runs"
        *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("tests/blind/plans12/cases/1221-*/input.txt")),
    ],
)
def test_a_pasted_report_naming_no_holder_asks_fuser_not_gpudoctor(path):
    """The reader of a pasted report has no gpudoctor to run; where the text names no process, the holder may be one
    nvidia-smi cannot name, and fuser on the driver's device files lists it."""
    f = pasted_findings((ROOT / path).read_text(encoding="utf-8"))["gpu-memory-held"]
    assert argv_of(f) == [QUERY, FUSER]
    assert f.remediation.commands[-1].root  # (only root sees other users' processes)


def test_a_machine_keeps_its_own_memory_view_and_no_fuser():
    """Quiet twin: on the machine itself gpudoctor's memory view names the holders (the recorded machine lists them)."""
    (f,) = found(recorded("rtx3060-desktop-other-jobs-hold-memory"), "gpu-memory-held")
    assert argv_of(f)[:2] == [("gpudoctor", "memory"), QUERY]
    assert FUSER not in argv_of(f)


# --- gpu-lost ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("error", ["gpu_is_lost", "unknown", "insufficient_power", "irq_issue"])
@states("gpu-lost", FIRES)
def test_a_handle_that_answers_an_error_is_a_lost_gpu(error):
    """gpu-lost.md: "GPU_IS_LOST means ... fallen off the bus ... Another error there (UNKNOWN, INSUFFICIENT_POWER ...,
    IRQ_ISSUE) also leaves the GPU unusable, and is reported with its name." One finding per lost GPU."""
    snap = nvml_machine(nvml_gpu(0), {"index": 1, "lost": error})
    (f,) = found(snap, "gpu-lost")
    assert f.code == "gpu-lost"


@states("gpu-lost", QUIET)
def test_no_permission_is_not_a_lost_gpu():
    """gpu-lost.md: "Not NO_PERMISSION: that is this user's access to the device, not the GPU"; answering GPUs are
    judged as usual."""
    assert found(nvml_machine(nvml_gpu(0), {"index": 1, "lost": "no_permission"}), "gpu-lost") == []
    assert found(nvml_machine(nvml_gpu(0), nvml_gpu(1)), "gpu-lost") == []


@states("gpu-lost", FIRES)
def test_the_recorded_fallen_gpu():
    """gpu-lost.md: "One finding per lost GPU." (tests/machines/h100x2-gpu-fallen-off-bus: GPU 1 lost)"""
    assert len(found(recorded("h100x2-gpu-fallen-off-bus"), "gpu-lost")) == 1


# --- mig-enabled ------------------------------------------------------------------------------------------


@states("mig-enabled", FIRES)
def test_mig_on_fires_and_turning_off_reads_as_on():
    """mig-enabled.md: the current and pending MIG mode; "Not distinguished: a GPU whose MIG mode is being turned
    off (current on, pending off) reads as MIG on." """
    for pending in (True, False):
        gpu = nvml_gpu(mig_mode={"current": True, "pending": pending}, mig_devices=[])
        assert len(found(nvml_machine(gpu), "mig-enabled")) == 1
    assert len(found(recorded("a30-mig-enabled-no-instances"), "mig-enabled")) == 1


@states("mig-enabled", QUIET)
def test_mig_off_is_quiet():
    """mig-enabled.md: MIG mode off (current off), or unknown: nothing to say."""
    assert found(nvml_machine(nvml_gpu(mig_mode={"current": False, "pending": False})), "mig-enabled") == []
    assert found(nvml_machine(nvml_gpu()), "mig-enabled") == []


# --- cuda-visible-devices-hides-all -----------------------------------------------------------------------


def _visible(value: str, *gpus):
    snap = nvml_machine(*(gpus or (nvml_gpu(0), nvml_gpu(1))))
    snap["env"]["CUDA_VISIBLE_DEVICES"] = value
    return snap


@pytest.mark.parametrize("value", ["2", "-1", "GPU-99", "MIG-1", "", "2,0"])
@states("cuda-visible-devices-hides-all", FIRES)
def test_an_invalid_first_entry_hides_every_gpu(value):
    """cuda-visible-devices-hides-all.md: "An entry is valid if it is: an index below the number of GPUs;
    GPU-..., when it is a prefix of a GPU's UUID; MIG-..., when the driver reports at least one MIG instance." -
    index 2 of 2 GPUs (the boundary), a negative one, an unknown UUID, MIG without instances; CUDA stops at the
    first invalid entry (2,0 hides both: tests/machines/rtx2070x2-cuda-visible-devices-wrong)."""
    assert len(found(_visible(value), "cuda-visible-devices-hides-all")) == 1


@pytest.mark.parametrize("value", ["1", "0,1", "GPU-00000001", "GPU-00000000-0000-0000-0000-000000000000"])
@states("cuda-visible-devices-hides-all", QUIET)
def test_a_valid_entry_shows_a_gpu(value):
    """cuda-visible-devices-hides-all.md: index 1 of 2 GPUs (the boundary's other side), a UUID prefix, a whole UUID."""
    assert found(_visible(value), "cuda-visible-devices-hides-all") == []


@states("cuda-visible-devices-hides-all", QUIET)
def test_not_judged_when_unset_or_when_no_driver_lists_a_gpu():
    """cuda-visible-devices-hides-all.md: "Not judged when the variable is unset, or when no driver lists any GPU." """
    assert found(nvml_machine(nvml_gpu(0)), "cuda-visible-devices-hides-all") == []
    no_driver = recorded("rtx3080-no-driver")
    no_driver["env"] = {"CUDA_VISIBLE_DEVICES": "5"}
    assert found(no_driver, "cuda-visible-devices-hides-all") == []


@states("cuda-visible-devices-hides-all", QUIET)
def test_a_mig_entry_is_valid_with_an_instance():
    """cuda-visible-devices-hides-all.md: "MIG-..., when the driver reports at least one MIG instance." """
    gpu = nvml_gpu(mig_mode={"current": True, "pending": True}, mig_devices=[{"index": 0, "uuid": "MIG-abc"}])
    assert found(_visible("MIG-abc", gpu), "cuda-visible-devices-hides-all") == []
    assert "mig-enabled" in codes(_visible("MIG-abc", gpu))


def _smi_failing(stderr: str) -> dict:
    """The H100 node with no NVML binding, where nvidia-smi -q -x fails with `stderr`."""
    snap = recorded("h100-driver-unreachable")
    snap["nvml"] = {"status": "binding_missing", "error": "No module named 'pynvml'"}
    snap["commands"]["nvidia-smi -q -x"] = {"rc": 15, "stdout": "", "stderr": stderr}
    return snap


@pytest.mark.parametrize(
    "said",
    ["GPU is lost.  Reboot the system to recover this GPU", "Unknown Error",
     "Unable to communicate with GPU because it is insufficiently powered."],
)  # fmt: skip
@states("gpu-lost", FIRES)
def test_without_nvml_nvidia_smi_naming_a_lost_gpu(said):
    """gpu-lost.md: "Without NVML ...: nvidia-smi's Unable to determine the device handle for GPU ... with GPU is lost,
    Unknown Error or Unable to communicate with GPU because it is insufficiently powered, one finding per GPU it names
    ... Then driver-unreachable is not said as well: nvidia-smi reached the driver." """
    snap = _smi_failing(f"Unable to determine the device handle for GPU 0000:18:00.0: {said}\n")
    (f,) = found(snap, "gpu-lost")
    assert "0000:18:00.0" in f.title
    assert "driver-unreachable" not in codes(snap)


@states("gpu-lost", QUIET)
def test_not_found_is_not_a_lost_gpu():
    """gpu-lost.md: "Not with Not Found: there the driver never brought the GPU up, a different cause." """
    snap = _smi_failing("Unable to determine the device handle for GPU 0000:18:00.0: Not Found\n")
    assert found(snap, "gpu-lost") == []


@pytest.mark.parametrize(
    ("fields", "fires"),
    [
        ({"clock_event_reasons": IDLE, "processes": [{"pid": 1, "name": "python3", "used_bytes": GIB}]}, False),
        ({"performance_state": "P8", "processes": [{"pid": 1, "name": "jupyter", "used_bytes": 20 * GIB}]}, False),
        ({"performance_state": "P5", "processes": [{"pid": 1, "name": "python3", "used_bytes": GIB}]}, False),
        ({"performance_state": "P3", "processes": [{"pid": 1, "name": "python3", "used_bytes": GIB}]}, False),
        ({"performance_state": "P2", "processes": [{"pid": 1, "name": "python3", "used_bytes": GIB}]}, True),
        ({"performance_state": "P0", "processes": [{"pid": 1, "name": "python3", "used_bytes": GIB}]}, True),
        ({"utilization_gpu": 37}, True),  # busy with no process visible (another container's)
    ],
    ids=["gpu-idle-reason", "parked-P8-holding-memory", "P5", "P3-with-process", "P2-with-process", "P0", "util-no-process"],
)
@states("pcie-link-degraded", FIRES, QUIET)
def test_a_lower_generation_is_reported_only_when_busy(fields, fires):
    """pcie-link-degraded.md: "whether the GPU is busy, judged on its activity and never on memory held ...: idle when
    gpu_idle is among its clock-event reasons or its performance state is P5 or lower (P8: clocks parked); busy when its
    utilisation is 5% or more (even with no process visible ...); otherwise, with neither known, busy when a process
    runs on it in P0-P2"; a lower generation is reported only when busy."""
    assert len(found(nvml_machine(_link(4, 16, **fields)), "pcie-link-degraded")) == int(fires)
