"""The driver and health rules at their edges, each branch on its own, on a recorded machine's facts.

The base is tests/machines/h100x8-driver565-torch221-cu121 (healthy: module and library 565.57.01, NVML ok,
every device node readable and writable); each test changes the one fact a branch turns on and runs every
check, so a rule that reads another fact, or a branch that is dropped, fails here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.doctor import diagnose
from gpudoctor.facts import DeviceNode, LibDir
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.probed import Found

SNAPSHOT = Path(__file__).resolve().parents[1] / "machines" / "h100x8-driver565-torch221-cu121" / "snapshot.json"
MISMATCH_TEXT = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.144"


@pytest.fixture(scope="module")
def base():
    return diagnose(ReplayHost(load_snapshot(str(SNAPSHOT)))).facts


def driver(facts, **changes):
    return dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, **changes))


def findings(facts, code):
    found, internal = run_checks(facts)
    assert not internal
    return [f for f in found if f.code == code]


def text(finding) -> str:
    r = finding.remediation
    return "\n".join([finding.title, finding.detail, r.summary if r else "", *(r.lines() if r else [])])


# --- driver-library-mismatch: each way it is seen, each cause ------------------------------------------


def test_the_healthy_base_has_no_mismatch(base):
    assert findings(base, "driver-library-mismatch") == []


def test_versions_differ_while_nvml_is_ok(base):
    """NVML answers (it loaded the older library) but its version is not the module's: said by no error."""
    facts = driver(base, nvml_version="12.550.144", nvml_driver_version="550.144")
    (f,) = findings(facts, "driver-library-mismatch")
    assert "Kernel module 565.57.01, library 550.144: the libraries are older than the loaded module" in f.detail
    assert "modinfo -F version nvidia" in text(f)


def test_the_library_version_falls_back_to_nvmls_driver_version(base):
    facts = driver(base, nvml_version=None, nvml_driver_version="570.86.10")
    (f,) = findings(facts, "driver-library-mismatch")
    assert "Kernel module 565.57.01, library 570.86.10: the libraries are newer than the loaded module" in f.detail


def test_a_library_version_without_a_cuda_prefix_is_taken_whole(base):
    (f,) = findings(driver(base, nvml_version="570"), "driver-library-mismatch")
    assert "library 570:" in f.detail


def test_versions_that_differ_while_nvml_fails_for_another_reason_are_not_a_mismatch(base):
    facts = driver(base, nvml_status="driver_not_loaded", nvml_version="12.550.144", nvml_driver_version=None)
    assert findings(facts, "driver-library-mismatch") == []


def test_equal_versions_with_nvml_ok_are_not_a_mismatch(base):
    assert findings(driver(base, nvml_version="12.565.57.01"), "driver-library-mismatch") == []


def test_said_by_nvml_alone(base):
    facts = driver(
        base, nvml_status="lib_rm_version_mismatch", nvml_error=MISMATCH_TEXT, nvml_driver_version=None, nvml_version=None
    )
    (f,) = findings(facts, "driver-library-mismatch")
    assert "Kernel module 565.57.01, library 550.144" in f.detail
    assert ("nvml", MISMATCH_TEXT) in {(e.source, e.value) for e in f.evidence}
    assert findings(facts, "driver-unreachable") == []  # one finding for one cause


def test_said_by_nvidia_smi_alone(base):
    facts = driver(
        base,
        nvml_status="ok",
        nvml_version="12.565.57.01",
        smi_status="failed",
        smi_error=MISMATCH_TEXT,
        smi_error_kind="driver-library-mismatch",
    )
    (f,) = findings(facts, "driver-library-mismatch")
    # The text names the library nvidia-smi loaded (550.144), ahead of NVML's own version.
    assert "library 550.144" in f.detail
    assert ("cmd:nvidia-smi", MISMATCH_TEXT) in {(e.source, e.value) for e in f.evidence}
    assert findings(facts, "driver-unreachable") == []


def test_in_a_container_the_fix_is_on_the_host(base):
    facts = driver(base, nvml_version="12.550.144")
    facts = dataclasses.replace(facts, platform=dataclasses.replace(facts.platform, container="docker"))
    (f,) = findings(facts, "driver-library-mismatch")
    assert "inside a container the kernel module is the host's" in f.detail
    # from the host: the host and the image are read first, then a container older than the host's driver is
    # recreated (only where a new one works); nothing reboots or unloads inside it
    assert f.remediation.where == "the host"
    assert [c.argv[:2] for c in f.remediation.commands] == [
        ("nvidia-smi",),
        ("cat", "/proc/driver/nvidia/version"),
        ("docker", "run"),
        ("docker", "commit"),
        ("docker", "rm"),
        ("docker", "run"),
    ]
    assert f.remediation.alternative is not None and f.remediation.alternative.where == "the host"


def test_two_copies_of_the_library_are_two_installations(base):
    facts = driver(base, nvml_version="12.550.144")
    facts = dataclasses.replace(
        facts,
        ldconfig=Found({"libnvidia-ml.so.1": ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",)}, "cmd:ldconfig -p"),
        ld_library_path=(LibDir("/usr/local/lib", "LD_LIBRARY_PATH", ("libnvidia-ml.so.1",)),),
    )
    (f,) = findings(facts, "driver-library-mismatch")
    assert "more than one place, so two driver installations are mixed" in f.detail
    assert "ls -l /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 /usr/local/lib/libnvidia-ml.so.1" in text(f)


# --- device nodes: missing, or only a permission problem ------------------------------------------------


def nodes(facts, *device_nodes):
    return dataclasses.replace(facts, kernel=dataclasses.replace(facts.kernel, device_nodes=tuple(device_nodes)))


ALL = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0")


def test_permission_only(base):
    facts = nodes(base, *(DeviceNode(p, "char", True, p != "/dev/nvidia0") for p in ALL))
    (f,) = findings(facts, "device-nodes-missing")
    assert f.title == "the GPU device nodes are not accessible to this user"
    assert "not readable and writable by this user: /dev/nvidia0" in f.detail and "missing" not in f.detail
    lines = f.remediation.lines()
    assert any("usermod -aG video" in line for line in lines)
    assert not any("nvidia-modprobe" in line for line in lines)  # nothing to create


def test_unreadable_counts_like_unwritable(base):
    facts = nodes(base, *(DeviceNode(p, "char", p != "/dev/nvidiactl", True) for p in ALL))
    (f,) = findings(facts, "device-nodes-missing")
    assert "not readable and writable by this user: /dev/nvidiactl" in f.detail


def test_unknown_access_is_not_a_problem(base):
    assert findings(nodes(base, *(DeviceNode(p, "char", None, None) for p in ALL)), "device-nodes-missing") == []


def test_missing_only(base):
    facts = nodes(base, DeviceNode("/dev/nvidiactl", "char", True, True), DeviceNode("/dev/nvidia0", "char", True, True))
    (f,) = findings(facts, "device-nodes-missing")
    assert f.title == "the GPU device nodes are missing"
    assert "missing: /dev/nvidia-uvm" in f.detail and "not readable" not in f.detail
    lines = f.remediation.lines()
    assert any("nvidia-modprobe -u -c=0" in line for line in lines)
    assert not any("usermod" in line for line in lines)


def test_no_numbered_node_is_missing_nvidia0(base):
    facts = nodes(base, DeviceNode("/dev/nvidiactl", "char", True, True), DeviceNode("/dev/nvidia-uvm", "char", True, True))
    (f,) = findings(facts, "device-nodes-missing")
    assert "missing: /dev/nvidia0" in f.detail


# --- GPU memory health: each signal alone ----------------------------------------------------------------


def one_gpu(facts, index, **changes):
    gpus = tuple(dataclasses.replace(g, **changes) if g.index == index else g for g in facts.driver.gpus)
    return driver(facts, gpus=gpus)


@pytest.mark.parametrize(
    ("changes", "severity", "problem"),
    [
        ({"retired_pages_pending": True}, "error", "retired pages pending a reset"),
        ({"remapped_rows_pending": True}, "warning", "row remapping pending a reset"),
        ({"remapped_rows_failure": True}, "error", "a row remapping failure"),
        ({"ecc_volatile_uncorrected": 1}, "error", "1 uncorrectable ECC error(s) since the last reset"),
        ({"ecc_aggregate_uncorrected": 3}, "warning", "3 uncorrectable ECC error(s) over the GPU's lifetime"),
    ],
)
def test_each_memory_error_signal_alone(base, changes, severity, problem):
    (f,) = findings(one_gpu(base, 3, **changes), "gpu-ecc-errors")
    assert f.severity.label == severity
    assert f.title == f"GPU 3 reports memory errors: {problem}"
    assert "nvidia-smi --gpu-reset -i 3" in text(f)


def test_a_clean_gpu_reports_no_memory_errors(base):
    assert findings(one_gpu(base, 3, ecc_volatile_uncorrected=0, ecc_aggregate_uncorrected=0), "gpu-ecc-errors") == []


def test_an_unknown_cause_says_how_to_tell_them_apart_as_root(base):
    """NVML says mismatch but names no library version: neither side is known to have changed."""
    facts = driver(
        base,
        nvml_status="lib_rm_version_mismatch",
        nvml_error="Driver/library version mismatch",
        nvml_driver_version=None,
        nvml_version=None,
        smi_driver_version=None,
    )
    (f,) = findings(facts, "driver-library-mismatch")
    assert "Kernel module 565.57.01, library unknown: the evidence does not say which side changed" in f.detail
    assert f.remediation.summary.startswith("Tell the causes apart")
    assert f.remediation.requires_root
    lines = f.remediation.lines()
    assert lines[:4] == [
        "# the module loaded now",
        "cat /proc/driver/nvidia/version",
        "# the module on disk: what a reboot would load",
        "modinfo -F version nvidia",
    ]


@pytest.mark.parametrize(("library", "cause"), [("550.144", "libs-older"), ("570.86.10", "libs-newer")])
def test_each_known_cause_is_roots_to_fix(base, library, cause):
    (f,) = findings(driver(base, nvml_version=f"12.{library}"), "driver-library-mismatch")
    assert f.remediation.requires_root and f.remediation.component == "driver"
    assert ("older" if cause == "libs-older" else "newer") in f.detail


@pytest.mark.parametrize(
    ("distro", "install"),
    [
        ("ubuntu", "sudo apt-get install -y libnvidia-compute-565"),
        ("debian", "dpkg -l | grep -i nvidia"),
    ],
)
def test_module_loaded_but_no_user_space_library(base, distro, install):
    """NVML's library is not found while the 565 module is loaded: the libraries of that branch are missing."""
    facts = driver(base, nvml_status="library_not_found", nvml_driver_version=None, nvml_version=None, smi_status="missing")
    facts = dataclasses.replace(
        facts, platform=dataclasses.replace(facts.platform, distro=dataclasses.replace(facts.platform.distro, id=distro))
    )
    (f,) = findings(facts, "driver-unreachable")
    r = f.remediation
    assert r.summary.startswith("The kernel module is loaded but libnvidia-ml.so.1 cannot be loaded")
    assert r.requires_root and r.component == "driver"
    assert r.lines()[0] == "ldconfig -p | grep -E 'libnvidia-ml|libcuda'"
    assert install in r.lines()


def test_in_a_container_a_permission_problem_is_the_containers_to_fix(base):
    facts = nodes(base, *(DeviceNode(p, "char", True, p != "/dev/nvidia0") for p in ALL))
    facts = dataclasses.replace(facts, platform=dataclasses.replace(facts.platform, container="docker"))
    (f,) = findings(facts, "device-nodes-missing")
    assert (f.remediation.component, f.remediation.where) == ("container", "the host")
    assert not any("usermod" in line for line in f.remediation.lines())


def test_said_by_nvml_with_the_kernel_modules_version_unreadable(base):
    from gpudoctor.probed import Absent

    facts = driver(
        base, nvml_status="lib_rm_version_mismatch", nvml_error=MISMATCH_TEXT, nvml_driver_version=None, nvml_version=None
    )
    facts = dataclasses.replace(
        facts, kernel=dataclasses.replace(facts.kernel, proc_driver=Absent("permission"), module_version=Absent("permission"))
    )
    (f,) = findings(facts, "driver-library-mismatch")
    assert f.detail.startswith("Kernel module unknown, library 550.144: ")
