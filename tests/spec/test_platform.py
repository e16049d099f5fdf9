"""docs/findings: the platform, Windows, probe, doctor, requirement and bandwidth findings, each documented rule as a
test on a recorded machine with one fact changed, or a minimal one (tests/spec/machine.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from gpudoctor.model import Severity
from tests.spec.machine import codes, facts_of, found, nvml_gpu, nvml_machine, recorded, report
from tests.spec.registry import FIRES, QUIET, states

TOOLKITS = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"

# --- wsl1-no-cuda, wsl-linux-driver-installed -------------------------------------------------------------


@pytest.mark.parametrize("release", ["4.4.0-19041-Microsoft", "4.4.0-22000-Microsoft"])
@states("wsl1-no-cuda", FIRES)
def test_a_microsoft_kernel_without_wsl2_signs_is_wsl1(release):
    """wsl1-no-cuda.md: "WSL 1: otherwise, either text contains Microsoft, for example 4.4.0-19041-Microsoft." """
    snap = recorded("wsl1")
    snap["platform"]["release"] = release
    assert len(found(snap, "wsl1-no-cuda")) == 1
    assert not codes(snap) & {"gpu-none", "driver-missing"}  # "Not said with it: ... gpu-none and driver-missing"


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s["platform"].update(release="5.15.153.1-microsoft-standard-WSL2"),
        lambda s: s["platform"].update(release="5.10.16.3-WSL2"),
        lambda s: s["files"].update({"/dev/dxg": {"type": "char", "readable": True, "writable": True}}),
        lambda s: s["platform"].update(release="6.5.0-generic") or s["files"].pop("/proc/version"),
    ],
    ids=["microsoft-standard", "WSL2", "dev-dxg", "not-wsl"],
)
@states("wsl1-no-cuda", QUIET)
def test_wsl2_signs_or_no_microsoft_kernel_are_not_wsl1(edit):
    """wsl1-no-cuda.md: "WSL 2: either text contains microsoft-standard or WSL2, or /dev/dxg exists." """
    snap = recorded("wsl1")
    edit(snap)
    assert found(snap, "wsl1-no-cuda") == []


@pytest.mark.parametrize("release", ["6.5.0-generic"])
@states("wsl1-no-cuda", FIRES)
def test_microsoft_in_proc_version_alone_is_wsl1(release):
    """wsl1-no-cuda.md: "WSL 1: otherwise, either text contains Microsoft" - the kernel release or /proc/version."""
    snap = recorded("wsl1")
    snap["platform"]["release"] = release
    assert "Microsoft" in snap["files"]["/proc/version"]
    assert len(found(snap, "wsl1-no-cuda")) == 1


@states("wsl-linux-driver-installed", FIRES)
def test_linux_driver_libraries_or_module_on_wsl2_fire():
    """wsl-linux-driver-installed.md: "the ldconfig -p cache lists libcuda.so.1 or libnvidia-ml.so.1 at a path outside
    /usr/lib/wsl/; /proc/driver/nvidia/version exists" - each alone."""
    snap = recorded("wsl2-linux-driver-installed")
    assert len(found(snap, "wsl-linux-driver-installed")) == 1
    module_only = recorded("wsl2-linux-driver-installed")
    module_only["commands"].pop("ldconfig -p")
    module_only["files"]["/proc/driver/nvidia/version"] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01\n"
    assert len(found(module_only, "wsl-linux-driver-installed")) == 1


@states("wsl-linux-driver-installed", QUIET)
def test_only_wsl_libraries_or_not_wsl2_is_quiet():
    """wsl-linux-driver-installed.md: libraries under /usr/lib/wsl/ are Windows' own; "Only on WSL 2"."""
    snap = recorded("wsl2-linux-driver-installed")
    snap["commands"]["ldconfig -p"]["stdout"] = (
        "2 libs found in cache `/etc/ld.so.cache'\n"
        "\tlibnvidia-ml.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libnvidia-ml.so.1\n"
        "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1\n"
    )
    assert found(snap, "wsl-linux-driver-installed") == []
    bare = recorded("wsl2-linux-driver-installed")
    bare["platform"]["release"] = "6.5.0-generic"
    bare["files"].pop("/dev/dxg")
    assert found(bare, "wsl-linux-driver-installed") == []


# --- windows-cuda-path-missing, windows-dll-missing, windows-tcc-mode, windows-driver-store-stale -----------


@states("windows-cuda-path-missing", FIRES)
def test_a_cuda_path_variable_naming_a_vxy_folder_not_listed_fires():
    """windows-cuda-path-missing.md: "The rule: the variable's value is a vX.Y folder under that listed folder that is
    not in the listing." (CUDA_PATH_V12_3 after v12.3 was deleted)"""
    assert len(found(recorded("windows-cuda118-after-deleting-v123"), "windows-cuda-path-missing")) == 1


@states("windows-cuda-path-missing", QUIET)
def test_a_listed_folder_or_a_custom_path_is_quiet():
    """windows-cuda-path-missing.md: a value whose folder is listed is fine; "A value elsewhere (a custom install path)
    is not judged."; "Where: native Windows, with the toolkits' folder ... listed." """
    listed = recorded("windows-cuda118-after-deleting-v123")
    listed["dirs"][TOOLKITS].append("v12.3")
    assert found(listed, "windows-cuda-path-missing") == []
    custom = recorded("windows-cuda118-after-deleting-v123")
    custom["env"]["CUDA_PATH_V12_3"] = "D:\\sdk\\cuda\\v12.3"
    assert found(custom, "windows-cuda-path-missing") == []
    linux = recorded("windows-cuda118-after-deleting-v123")
    linux["platform"] = {"system": "Linux", "release": "6.5.0-generic", "machine": "x86_64"}
    assert found(linux, "windows-cuda-path-missing") == []


@states("windows-dll-missing", FIRES)
def test_tensorflow_2_10_or_older_without_its_dlls_fires():
    """windows-dll-missing.md: "Where: native Windows, TensorFlow found and not tensorflow-cpu ..., not newer than
    2.10"; "The rule: the DLLs of its tested build ... are looked up in the folders Windows' DLL search uses"."""
    assert len(found(recorded("windows-tf291-venv-no-cuda-dlls"), "windows-dll-missing")) == 1
    at_210 = recorded("windows-tf291-venv-no-cuda-dlls")
    at_210["python"]["distributions"]["tensorflow"] = "2.10.1"
    assert len(found(at_210, "windows-dll-missing")) == 1


@states("windows-dll-missing", QUIET)
def test_dlls_present_tensorflow_cpu_or_after_2_10_are_quiet():
    """windows-dll-missing.md: every DLL found in System32 is quiet; tensorflow-cpu is not judged; after 2.10
    framework-windows-native-gpu says that case."""
    (f,) = found(recorded("windows-tf291-venv-no-cuda-dlls"), "windows-dll-missing")
    dlls = [e.value.split(":")[0] for e in f.evidence if e.source == "dll-search"]
    assert "cudart64_110.dll" in dlls  # "CUDA 11.x's runtime is cudart64_110.dll"
    present = recorded("windows-tf291-venv-no-cuda-dlls")
    present["dirs"]["C:\\Windows\\System32"] += dlls
    assert found(present, "windows-dll-missing") == []
    cpu = recorded("windows-tf291-venv-no-cuda-dlls")
    cpu["python"]["distributions"] = {"tensorflow-cpu": "2.9.1"}
    assert found(cpu, "windows-dll-missing") == []
    newer = recorded("windows-tf291-venv-no-cuda-dlls")
    newer["python"]["distributions"]["tensorflow"] = "2.11.0"
    assert found(newer, "windows-dll-missing") == []


@states("windows-tcc-mode", FIRES, QUIET)
def test_a_gpu_in_tcc_mode_fires_one_in_wddm_does_not():
    """windows-tcc-mode.md: "The rule: nvidia-smi reports the GPU's current driver model as TCC" (the P100 in TCC, the
    GeForce in WDDM beside it: one finding)."""
    snap = recorded("windows-p100-tcc-geforce-wddm-wsl")
    assert [f.severity.name for f in found(snap, "windows-tcc-mode")] == ["INFO"]  # native CUDA uses it
    snap["commands"]["nvidia-smi"]["stdout"] = snap["commands"]["nvidia-smi"]["stdout"].replace("TCC   |", "WDDM  |")
    assert found(snap, "windows-tcc-mode") == []


@states("windows-driver-store-stale", FIRES)
def test_two_nvidia_display_packages_fire():
    """windows-driver-store-stale.md: "The rule: two or more packages whose class is Display adapters ... and whose
    provider is NVIDIA." """
    (f,) = found(recorded("windows-egpu-rtx5060ti-ada-laptop-two-nvidia-releases"), "windows-driver-store-stale")
    assert f.severity == Severity.WARNING


@states("windows-driver-store-stale", QUIET)
def test_one_nvidia_display_package_is_quiet():
    """windows-driver-store-stale.md: one NVIDIA package (the Windows 7 store) has nothing stale."""
    assert found(recorded("windows-win7-driver-store-one-nvidia-package"), "windows-driver-store-stale") == []


# --- probe-timeout, probe-failed --------------------------------------------------------------------------


@states("probe-timeout", FIRES)
def test_a_hung_nvidia_smi_or_nvml_is_an_error():
    """probe-timeout.md: "A hang (error): nvidia-smi -q -x or nvidia-smi was killed at the limit; NVML did not
    answer." and "No cascade: when NVML or nvidia-smi hung, driver-unreachable is not said as well." """
    snap = recorded("h100-nvidia-smi-hangs")
    (f,) = found(snap, "probe-timeout")
    assert f.severity == Severity.ERROR
    assert "driver-unreachable" not in codes(snap)
    smi_only = recorded("h100-nvidia-smi-hangs")
    smi_only["nvml"] = {"status": "library_not_found", "error": "libnvidia-ml.so.1: cannot open shared object file"}
    assert found(smi_only, "probe-timeout")[0].severity == Severity.ERROR


@states("probe-timeout", FIRES)
def test_a_toolkit_probe_timing_out_is_a_warning():
    """probe-timeout.md: "Not a hang (warning): ... nvcc --version or another toolkit probe that timed out"."""
    snap = nvml_machine()
    snap["env"]["PATH"] = "/usr/local/cuda/bin:/usr/bin:/bin"
    snap["files"]["/usr/local/cuda/bin/nvcc"] = {"type": "file", "binary": True, "executable": True}
    snap["commands"] = {"/usr/local/cuda/bin/nvcc --version": {"timeout": True}, "nvcc --version": {"timeout": True}}
    (f,) = found(snap, "probe-timeout")
    assert f.severity == Severity.WARNING


@states("probe-timeout", QUIET)
def test_nothing_timed_out_is_quiet():
    """probe-timeout.md: no probe at its limit: nothing to say (a machine whose NVML answers)."""
    assert found(nvml_machine(), "probe-timeout") == []


@states("probe-failed", FIRES)
def test_an_unreadable_driver_version_file_is_a_probe_failure():
    """probe-failed.md: "An outcome of kind permission, unparseable, failed, crash or not-recorded ... for any of these:
    the kernel driver version (/proc/driver/nvidia/version)" (tests/machines/tesla-t4-proc-unreadable: EACCES)."""
    assert len(found(recorded("tesla-t4-proc-unreadable"), "probe-failed")) == 1


@states("probe-failed", QUIET)
def test_genuinely_absent_things_and_timeouts_are_not_probe_failures():
    """probe-failed.md: "Not included: Timeouts. ... Things that are genuinely absent, such as no driver or no torch
    installed. Those are facts, not failures."; the PCI bus is "skipped when the driver lists the GPUs itself"."""
    readable = recorded("tesla-t4-proc-unreadable")
    readable["files"]["/proc/driver/nvidia/version"] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  515.105.01\n"
    assert found(readable, "probe-failed") == []
    assert found(recorded("rtx3080-no-driver"), "probe-failed") == []
    assert found(recorded("h100-nvidia-smi-hangs"), "probe-failed") == []


# --- internal-check-error ---------------------------------------------------------------------------------


def _with_check(monkeypatch, run):
    import gpudoctor.checks as checks

    real = checks.all_checks
    extra = checks.Check("spec-probe", "doctor", ("gpu-none",), run)
    monkeypatch.setattr(checks, "all_checks", lambda pasted=True: (*real(pasted), extra))


@pytest.mark.parametrize(
    "run",
    [
        lambda facts, ctx: iter([1 / 0]),
        lambda facts, ctx: [dataclasses.replace(_a_finding(), code="driver-missing")],
    ],
    ids=["raises", "undeclared-code"],
)
@states("internal-check-error", FIRES)
def test_a_check_that_raises_or_yields_an_undeclared_code_becomes_internal_check_error(monkeypatch, run):
    """internal-check-error.md: "The check becomes this finding when either happens: it raises any exception; it
    yields a finding whose code it did not declare in its registration." "The same text goes into the report's
    internal_errors list"; every other check still runs."""
    from gpudoctor.checks import run_checks

    _with_check(monkeypatch, run)
    facts = facts_of("rtx3080-no-driver")
    out, internal = run_checks(facts)
    (f,) = [x for x in out if x.code == "internal-check-error"]
    assert f.severity == Severity.WARNING and internal and internal[0].startswith("spec-probe: ")
    assert any(x.code == "driver-missing" for x in out)  # the real checks still ran


@states("internal-check-error", QUIET)
def test_a_check_yielding_only_its_declared_codes_is_no_internal_error(monkeypatch):
    """internal-check-error.md: a check that neither raises nor yields an undeclared code is no internal error; "Not
    covered: an invalid compatibility matrix (a MatrixError) ... stops the run"."""
    from gpudoctor.checks import run_checks
    from gpudoctor.errors import MatrixError

    _with_check(monkeypatch, lambda facts, ctx: [_a_finding()])
    out, internal = run_checks(facts_of("rtx3080-no-driver"))
    assert internal == [] and "internal-check-error" not in {x.code for x in out}

    def bad_matrix(facts, ctx):
        raise MatrixError("compat_matrix/torch.toml: invalid")

    _with_check(monkeypatch, bad_matrix)
    with pytest.raises(MatrixError):
        run_checks(facts_of("rtx3080-no-driver"))


def _a_finding():
    from gpudoctor.model import Finding

    return Finding("gpu-none", Severity.INFO, "doctor", "spec", "spec")


# --- requirement-unmet ------------------------------------------------------------------------------------

GIB = 1024**3


def _met(snapshot: dict, spec: str) -> bool:
    from gpudoctor.checks.requirements import evaluate, parse_requirements

    r = report(snapshot)
    (outcome,) = evaluate(parse_requirements([spec]), r.facts, r.findings)
    assert (outcome.finding is None) == outcome.met
    assert outcome.finding is None or outcome.finding.code == "requirement-unmet"
    return outcome.met


H100 = nvml_machine(driver="550.54.14", cuda=12040)  # one H100 80 GB (85899345920 bytes), cc 9.0, CUDA 12.4
TWO = nvml_machine(nvml_gpu(0), nvml_gpu(1))
ONE_LOST = nvml_machine(nvml_gpu(0), {"index": 1, "lost": "gpu_is_lost"})


@pytest.mark.parametrize(
    ("machine", "spec"),
    [
        (H100, "gpu"),
        (TWO, "gpus>=2"),
        (H100, "driver>=550.54.14"),
        (H100, "driver>=550"),
        (H100, "driver<550.54.15"),
        (H100, "cuda>=12.4"),
        (H100, "cc>=9.0"),
        (H100, "compute-capability>=8.0"),
        (H100, "gpu-memory>=80GiB"),
        (H100, "gpu-memory>=85899345920B"),
        (H100, "gpu-memory-free>=80GiB"),
        (H100, "bf16"),
        (H100, "fp8"),
    ],
)
@states("requirement-unmet", QUIET)
def test_a_requirement_met_at_its_boundary(machine, spec):
    """requirement-unmet.md: the "Met when" column, at the boundary (equal is met for >=)."""
    assert _met(machine, spec)


@pytest.mark.parametrize(
    ("machine", "spec"),
    [
        (recorded("rtx3080-no-driver"), "gpu"),
        (H100, "gpus>=2"),
        (ONE_LOST, "gpus>=2"),  # "a lost GPU does not count"
        (H100, "driver>=550.54.15"),  # patch
        (H100, "driver>=550.55"),  # minor
        (H100, "driver>=551"),  # major
        (H100, "cuda>=12.5"),
        (H100, "cc>=9.1"),
        (H100, "gpu-memory>=85899345921B"),
        (H100, "gpu-memory>81GiB"),
        (nvml_machine(nvml_gpu(compute_capability="7.5", name="NVIDIA GeForce RTX 2070")), "bf16"),
        (nvml_machine(nvml_gpu(compute_capability="8.6", name="NVIDIA GeForce RTX 3090")), "fp8"),
        (H100, "torch>=2.3"),
        (H100, "torch:cuda"),
    ],
)
@states("requirement-unmet", FIRES)
def test_a_requirement_not_met_just_past_its_boundary(machine, spec):
    """requirement-unmet.md: the "Met when" column, one step past the boundary at each component (major, minor, patch;
    a byte of memory); "gpus>=2 ... a lost GPU does not count"; bf16 needs 8.0, fp8 8.9; "torch alone: installed"."""
    assert not _met(machine, spec)


@states("requirement-unmet", FIRES, QUIET)
def test_cuda_visible_devices_is_applied_to_the_gpu_count():
    """requirement-unmet.md: "gpus>=2: the number of visible GPUs satisfies the condition (CUDA_VISIBLE_DEVICES
    applied ...)"."""
    hidden = nvml_machine(nvml_gpu(0), nvml_gpu(1))
    hidden["env"]["CUDA_VISIBLE_DEVICES"] = "0"
    assert _met(TWO, "gpus>=2") and not _met(hidden, "gpus>=2")


@states("requirement-unmet", FIRES, QUIET)
def test_framework_requirements_on_a_recorded_machine():
    """requirement-unmet.md: "torch>=2.3 ... the distribution is installed in the probed environment, at a version
    satisfying it"; "torch:cuda: PyTorch is a CUDA build, a GPU is visible, and no framework check found it cannot use
    the GPU" (PyTorch 2.2.1+cu121 on 8 x H100 with driver 565; the same PyTorch on driver 510: too old)."""
    ok = recorded("h100x8-driver565-torch221-cu121")
    assert _met(ok, "torch>=2.2.1") and _met(ok, "torch==2.2.*") and _met(ok, "torch:cuda")
    assert not _met(ok, "torch>=2.2.2") and not _met(ok, "torch>=2.3")
    assert not _met(recorded("p100-driver510-torch-cu121"), "torch:cuda")
    assert not _met(recorded("rtx3060-laptop-torch-cpu-build"), "torch:cuda")


# --- bandwidth-low, bandwidth-copy-corrupt -----------------------------------------------------------------

BANDWIDTH = Path(__file__).resolve().parents[1] / "fixtures" / "bandwidth"
HEALTHY_GEN4 = "derived_dgx-a100-sxm4-80gb_gen4x16_bandwidthtest.json"  # PCIe Gen4 x16: healthy 22.1-26.5 GB/s


def _bench(edit=None):
    from gpudoctor.bandwidth.expected import load_link_table
    from gpudoctor.bandwidth.judge import judge_run
    from gpudoctor.bandwidth.results import BenchRun

    run = BenchRun.from_json(json.loads((BANDWIDTH / HEALTHY_GEN4).read_text(encoding="utf-8")))
    if edit:
        run = dataclasses.replace(run, gpus=tuple(dataclasses.replace(g, measurements=edit(g.measurements)) for g in run.gpus))
    return judge_run(run, load_link_table()).findings


def _h2d_at(gb_per_s: float):
    def edit(ms):
        return tuple(
            dataclasses.replace(m, samples_gb_per_s=tuple(gb_per_s for _ in m.samples_gb_per_s)) if m.test == "h2d" else m
            for m in ms
        )

    return edit


@states("bandwidth-low", FIRES)
def test_pinned_copies_below_the_healthy_range_are_low():
    """bandwidth-low.md: "pinned host-to-device or device-to-host below the low end of the healthy range: warning"
    (Gen4 x16: 22.1 GB/s); "below half the theoretical figure, the finding says so" (31.5 / 2)."""
    (f,) = _bench(_h2d_at(22.0))
    assert (f.code, f.severity) == ("bandwidth-low", Severity.WARNING)
    (half,) = _bench(_h2d_at(15.0))
    assert half.code == "bandwidth-low"


@states("bandwidth-low", QUIET)
def test_pinned_copies_at_the_low_end_are_healthy():
    """bandwidth-low.md: at the low end of the healthy range (22.1 GB/s) nothing is said; only sizes of 4 MiB and up are
    judged ("below 4 MiB nothing is judged")."""
    assert _bench() == []
    assert _bench(_h2d_at(22.1)) == []
    from gpudoctor.bandwidth.judge import MIN_JUDGED_BYTES

    assert _bench(lambda ms: tuple(dataclasses.replace(m, size_bytes=MIN_JUDGED_BYTES - 1) for m in _h2d_at(1.0)(ms))) == []


@states("bandwidth-copy-corrupt", FIRES)
def test_any_verified_copy_that_differs_is_corrupt():
    """bandwidth-copy-corrupt.md: "Any differing byte of any verified measurement raises the finding; there is no
    threshold." """
    first = [True]

    def one_bad(ms):
        out = []
        for m in ms:
            out.append(dataclasses.replace(m, verified=not first[0]))
            first[0] = False
        return tuple(out)

    (f,) = [x for x in _bench(one_bad) if x.code == "bandwidth-copy-corrupt"]
    assert f.severity == Severity.ERROR


@states("bandwidth-copy-corrupt", QUIET)
def test_unverified_or_intact_copies_are_not_corrupt():
    """bandwidth-copy-corrupt.md: "Only copies the benchmark itself made are judged, and only with --verify" - not
    verified (None) or verified intact (True) is quiet."""
    for verified in (None, True):
        assert _bench(lambda ms, v=verified: tuple(dataclasses.replace(m, verified=v) for m in ms)) == []


# --- windows-driver-store-stale: the rule and its safety, on a minimal Windows machine -------------------------

DISPLAY = "{4d36e968-e325-11ce-bfc1-08002be10318}"


def _store(packages, driver: str | None = "591.86", gpus: int = 1) -> dict:
    """A Windows machine whose driver store holds `packages` (published, original, provider, version, class GUID)."""
    blocks = ["Microsoft PnP Utility", ""]
    for published, original, provider, version, guid in packages:
        blocks += [
            f"Published Name:     {published}",
            f"Original Name:      {original}",
            f"Provider Name:      {provider}",
            "Class Name:         Display",
            f"Class GUID:         {guid}",
            f"Driver Version:     01/20/2026 {version}",
            "Signer Name:        Microsoft Windows Hardware Compatibility Publisher",
            "",
        ]
    snap: dict = {
        "format": "gpudoctor-snapshot/1",
        "platform": {"system": "Windows", "release": "11", "machine": "AMD64"},
        "commands": {"pnputil /enum-drivers /class Display": {"rc": 0, "stdout": "\n".join(blocks) + "\n", "stderr": ""}},
    }
    if driver:
        devices = [
            {"index": i, "name": "NVIDIA GeForce RTX 5060 Ti", "pci_bus_id": f"00000000:5{i}:00.0",
             "memory": {"total_bytes": 17103323136, "used_bytes": 0, "free_bytes": 17103323136}}
            for i in range(gpus)
        ]  # fmt: skip
        snap["nvml"] = {"status": "ok", "driver_version": driver, "cuda_driver_version": 13010, "devices": devices}
    return snap


IN_USE = ("oem10.inf", "nv_dispig.inf", "NVIDIA", "32.0.15.9186", DISPLAY)  # 591.86: the running driver
OLDER = ("oem11.inf", "nv_dispig.inf", "NVIDIA", "31.0.15.5222", DISPLAY)  # 552.22
NEWER = ("oem12.inf", "nv_dispig.inf", "NVIDIA", "32.0.15.9659", DISPLAY)  # 596.59


def _deleted(finding) -> list[str]:
    """The published names the fix deletes."""
    cmds = finding.remediation.commands if finding.remediation else ()
    return [a for c in cmds for a in getattr(c, "argv", ()) if a.lower().endswith(".inf") and "delete" in " ".join(c.argv)]


@states("windows-driver-store-stale", FIRES)
def test_an_older_package_beside_the_one_in_use_is_offered_never_the_one_in_use():
    """windows-driver-store-stale.md: "Each package's Windows version is turned into NVIDIA's number (31.0.15.5222 ->
    552.22 ...). The package whose number is the running driver's ... is the one in use; every other one is stale."
    "The package in use is never named for deletion." """
    (f,) = found(_store([IN_USE, OLDER]), "windows-driver-store-stale")
    assert _deleted(f) == ["oem11.inf"]
    assert any("552.22" in e.value for e in f.evidence) and any("591.86" in e.value for e in f.evidence)


@states("windows-driver-store-stale", FIRES)
def test_a_newer_package_is_never_offered_and_without_the_running_driver_nothing_is():
    """windows-driver-store-stale.md: "A package newer than the running driver is never offered"; "When no package
    matches the running driver (or the driver version is unknown), no deletion is offered at all"; "a published name
    reaches a command only when it matches oemNN.inf exactly"."""
    (f,) = found(_store([IN_USE, OLDER, NEWER]), "windows-driver-store-stale")
    assert _deleted(f) == ["oem11.inf"]
    (f,) = found(_store([IN_USE, OLDER], driver=None), "windows-driver-store-stale")
    assert _deleted(f) == []
    (f,) = found(_store([IN_USE, OLDER], driver="591.87"), "windows-driver-store-stale")
    assert _deleted(f) == []
    odd = ("oem11.inf;calc", "nv_dispig.inf", "NVIDIA", "31.0.15.5222", DISPLAY)
    (f,) = found(_store([IN_USE, odd]), "windows-driver-store-stale")
    assert _deleted(f) == []


@states("windows-driver-store-stale", FIRES)
def test_with_two_gpus_only_the_same_inf_family_is_offered():
    """windows-driver-store-stale.md: "With two or more, only older copies of the same INF family as the one in use are:
    another family ... can be what the other GPU is bound to, so it is listed, not offered" """
    other_family = ("oem13.inf", "nvltwi.inf", "NVIDIA", "31.0.15.5222", DISPLAY)
    (f,) = found(_store([IN_USE, OLDER, other_family], gpus=2), "windows-driver-store-stale")
    assert _deleted(f) == ["oem11.inf"]
    (f,) = found(_store([IN_USE, OLDER, other_family], gpus=1), "windows-driver-store-stale")
    assert sorted(_deleted(f)) == ["oem11.inf", "oem13.inf"]


@states("windows-driver-store-stale", QUIET)
def test_one_nvidia_display_package_or_others_providers_are_quiet():
    """windows-driver-store-stale.md: "two or more packages whose class is Display adapters ... and whose provider is
    NVIDIA" - one NVIDIA package beside another provider's, or an NVIDIA package of another class, is not two."""
    intel = ("oem16.inf", "iigd_dch.inf", "Intel Corporation", "32.0.101.6078", DISPLAY)
    assert found(_store([IN_USE, intel]), "windows-driver-store-stale") == []
    other_class = ("oem11.inf", "nvhda.inf", "NVIDIA", "31.0.15.5222", "{4d36e96c-e325-11ce-bfc1-08002be10318}")
    assert found(_store([IN_USE, other_class]), "windows-driver-store-stale") == []


@pytest.mark.parametrize(
    ("spec", "met"),
    [
        ("gpu-memory>=85.8GB", True),  # 85899345920 B is 85.899... GB (powers of 1000)
        ("gpu-memory>=85.9GB", False),
        ("gpu-memory>=80GiB", True),  # exactly 80 GiB (powers of 1024)
        ("gpu-memory>=81920MiB", True),
        ("gpu-memory>=81921MiB", False),
        ("gpu-memory>=83886080KiB", True),
        ("gpu-memory>=85899345KB", True),
        ("gpu-memory>=85899346KB", False),
        ("gpu-memory>=0.078125TiB", True),
        ("gpu-memory>=0.09TB", False),
    ],
)
@states("requirement-unmet", FIRES, QUIET)
def test_sizes_in_powers_of_1000_and_of_1024(spec, met):
    """requirement-unmet.md: "Sizes need a unit: B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of
    1024)." (one H100 reporting 85899345920 bytes)"""
    assert _met(H100, spec) == met


@pytest.mark.parametrize("spec", ["vram>=8GiB", "driver>=abc", "gpu-memory>=40", "cc>>8.0"])
@states("requirement-unmet", QUIET)
def test_a_spec_that_cannot_be_parsed_is_a_usage_error(spec, capsys):
    """requirement-unmet.md: "A spec that cannot be parsed (an unknown name, driver>=abc, gpu-memory>=40) is a usage
    error: exit status 2, with a message saying what is wrong, before anything is probed." """
    from gpudoctor.cli import main

    snapshot = Path(__file__).resolve().parents[1] / "machines" / "h100-load-tf-jax-configured" / "snapshot.json"
    with pytest.raises(SystemExit) as exc:
        main(["check", "--replay", str(snapshot), "--require", spec])
    assert exc.value.code == 2 and spec.split(">")[0] in capsys.readouterr().err


@pytest.mark.parametrize(("fail_on", "code"), [("warning", 1), ("error", 0)])
@states("internal-check-error", FIRES)
def test_internal_check_error_fails_the_run_only_at_warning(monkeypatch, capsys, fail_on, code):
    """internal-check-error.md: "this is a warning, so it makes gpudoctor check exit with 1 under the default --fail-on
    warning. With --fail-on error it does not fail the run." (on a machine with no other finding)"""
    from gpudoctor.cli import main

    _with_check(monkeypatch, lambda facts, ctx: iter([1 / 0]))
    snapshot = Path(__file__).resolve().parents[1] / "machines" / "h100-load-tf-jax-configured" / "snapshot.json"
    with pytest.raises(SystemExit) as exc:
        main(["check", "--replay", str(snapshot), "--fail-on", fail_on, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in out["findings"]] == ["internal-check-error"]
    assert exc.value.code == code


def _figure(test: str, gb_per_s: float, size: int | None = None):
    def edit(ms):
        out = []
        for m in ms:
            if m.test == test:
                m = dataclasses.replace(m, samples_gb_per_s=tuple(gb_per_s for _ in m.samples_gb_per_s))
                if size is not None:
                    m = dataclasses.replace(m, size_bytes=size)
            out.append(m)
        return tuple(out)

    return edit


@states("bandwidth-low", FIRES, QUIET)
def test_pageable_copies_below_a_fifth_of_pinned_are_info():
    """bandwidth-low.md: "pageable copies below a fifth of the pinned figure (pageable_share_low, 0.2; 0.2-0.6 is
    normal): info" (pinned host to device: 25.7 GB/s, so a fifth is 5.14)."""
    (f,) = _bench(_figure("h2d-pageable", 5.0))
    assert (f.code, f.severity) == ("bandwidth-low", Severity.INFO)
    assert _bench(_figure("h2d-pageable", 5.2)) == []


@states("bandwidth-low", FIRES, QUIET)
def test_the_judged_figure_is_the_best_median_at_32_mib_and_above():
    """bandwidth-low.md: "the judged figure is the best median at 32 MiB and above, where a copy is bound by the link
    and not by per-copy overhead. Without such sizes, the largest size of at least 4 MiB is used" - a low figure at
    a smaller size beside a healthy one at 64 MiB is not judged; the other way round it is."""
    from gpudoctor.bandwidth.sizes import MIB

    def with_64mib(low_small: bool):
        def edit(ms):
            (h2d,) = [m for m in ms if m.test == "h2d"]
            big = dataclasses.replace(
                h2d, size_bytes=64 * MIB, samples_gb_per_s=tuple(10.0 if not low_small else 25.0 for _ in h2d.samples_gb_per_s)
            )
            small = dataclasses.replace(h2d, samples_gb_per_s=tuple(10.0 if low_small else 25.0 for _ in h2d.samples_gb_per_s))
            return tuple(m for m in ms if m.test != "h2d") + (small, big)

        return edit

    assert _bench(with_64mib(low_small=True)) == []
    assert [f.code for f in _bench(with_64mib(low_small=False))] == ["bandwidth-low"]


@states("bandwidth-low", QUIET)
def test_no_link_generation_and_width_nothing_is_judged():
    """bandwidth-low.md: "When NVML gives no link generation and width, nothing is judged." """
    from gpudoctor.bandwidth.expected import load_link_table
    from gpudoctor.bandwidth.judge import judge_run
    from gpudoctor.bandwidth.results import BenchRun, LinkState

    run = BenchRun.from_json(json.loads((BANDWIDTH / HEALTHY_GEN4).read_text(encoding="utf-8")))
    gpus = tuple(dataclasses.replace(g, link=LinkState(), measurements=_h2d_at(1.0)(g.measurements)) for g in run.gpus)
    assert judge_run(dataclasses.replace(run, gpus=gpus), load_link_table()).findings == []


@pytest.mark.parametrize(
    ("slug", "spec", "met"),
    [
        ("rtx4000ada-tf-beside-torch-job", "tensorflow:gpu", True),
        ("windows-rtx3080-tensorflow215", "tensorflow:gpu", False),  # framework-windows-native-gpu: it cannot
        ("t4-jax-beside-tf-notebook", "jax:cuda", True),  # a +cuda11 jaxlib
        ("rtx4090-jax-cpu-only", "jax:cuda", False),
        ("rtx4000ada-tf-beside-torch-job", "tensorflow>=2.11", True),
        ("rtx4000ada-tf-beside-torch-job", "tensorflow>=2.11.1", False),
        ("t4-jax-beside-tf-notebook", "jax>=0.4.13", True),
        ("t4-jax-beside-tf-notebook", "jax>=0.4.14", False),
    ],
)
@states("requirement-unmet", FIRES, QUIET)
def test_framework_build_requirements(slug, spec, met):
    """requirement-unmet.md: "tensorflow:gpu: TensorFlow is a CUDA build (not tensorflow-cpu), a GPU is visible, and no
    framework check found it cannot use the GPU"; "jax:cuda: JAX has a CUDA plugin (jax-cudaNN-plugin, or a +cuda
    jaxlib), a GPU is visible ..."; versions at the patch."""
    assert _met(recorded(slug), spec) == met


@pytest.mark.parametrize(("cc", "met"), [("8.0", True), ("7.5", False)])
@states("requirement-unmet", FIRES, QUIET)
def test_tf32_needs_ampere(cc, met):
    """requirement-unmet.md: "bf16 (also tf32, fp8): every visible GPU runs that format on its Tensor Cores" - TF32
    from compute capability 8.0."""
    assert _met(nvml_machine(nvml_gpu(compute_capability=cc)), "tf32") == met


@states("windows-dll-missing", FIRES, QUIET)
def test_a_dll_only_in_a_toolkit_folder_off_path_is_still_missing():
    """windows-dll-missing.md: "looked up in the folders Windows' DLL search uses, in order: NVIDIA pip wheel folders,
    the Python folder, System32, the conda environment's Library\\bin, then PATH. A DLL found only in a toolkit's bin
    ... that is not on PATH is named with its folder." On PATH, it is found."""
    snap = recorded("windows-tf291-venv-no-cuda-dlls")
    (f,) = found(snap, "windows-dll-missing")
    dlls = [e.value.split(":")[0] for e in f.evidence if e.source == "dll-search"]
    tk_bin = f"{TOOLKITS}\\v11.2\\bin"
    snap.setdefault("dirs", {})[TOOLKITS] = ["v11.2"]
    snap["dirs"][tk_bin] = [*dlls, "nvcc.exe"]
    (f,) = found(snap, "windows-dll-missing")
    assert "v11.2" in " ".join(e.value for e in f.evidence) + f.detail
    snap["env"]["PATH"] = f"{tk_bin};" + snap["env"]["PATH"]
    assert found(snap, "windows-dll-missing") == []
