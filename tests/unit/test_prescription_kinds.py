"""Issue 27's kinds of wrong plan, each held on a recorded machine (tests/machines/) or a pasted case: the plan's
commands (argv), where they run and their alternatives, never the prose.

- kind 1: a pip framework's CUDA libraries come from its wheels, never a root system package;
- kind 6: the cheapest sufficient fix first (`docker run --gpus all`), the daemon's setup as a labelled alternative;
- kind 7: a reboot only after the change it activates; every driver/library-mismatch branch the evidence allows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd, Placeholder, PrependPath, render
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.planner import offers, prescribe
from gpudoctor.planner.remedy import KEEP

MACHINES = Path(__file__).resolve().parents[1] / "machines"


def _plan(slug: str) -> prescribe.Prescription:
    report = diagnose(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))))
    return prescribe.build(report.findings)


def _argvs(lines) -> list[tuple[str, ...]]:
    return [c.words for c in lines if isinstance(c, Cmd)]


def _all_argvs(plan: prescribe.Prescription) -> list[tuple[str, ...]]:
    out = []
    for step in plan.steps:
        out += _argvs(step.commands)
        for alt in step.alternatives:
            out += _argvs(alt.remediation.commands)
    return out


# --- kind 1 -------------------------------------------------------------------------------------


def test_kind1_pip_tensorflow_gets_cuda11_wheels_not_apt():
    plan = _plan("rtx3060-tf211-cuda12-only")
    argvs = _all_argvs(plan)
    assert not [a for a in argvs if "apt-get" in a or "apt-mark" in a or "dpkg" in a], argvs
    assert not any(c.root for s in plan.steps for c in s.commands if isinstance(c, Cmd))
    (step,) = plan.steps  # the CUDA libraries and cuDNN: one step, said once
    assert step.component == "toolkit"  # the libraries' step: `gpudoctor fix` does not reinstall TensorFlow for it
    assert offers.applies(step.component, step.codes, step.commands, step.where) is None
    assert set(step.codes) == {"framework-cuda-libs-missing", "cudnn-missing"}
    install, env, keep = step.commands
    assert isinstance(install, Cmd) and install.words[:4] == ("/usr/bin/python3", "-m", "pip", "install")
    assert "/usr/lib/python3/dist-packages" in install.note  # a system interpreter: the wheels must land beside TF
    # exactly the wheels of the sonames TF 2.11 lacks here (libcurand.so.10 and libcusolver.so.11 are CUDA 12.4's too)
    assert set(install.words[4:]) == {
        "nvidia-cuda-runtime-cu11",
        "nvidia-cublas-cu11",
        "nvidia-cufft-cu11",
        "nvidia-cusparse-cu11",
        "nvidia-cudnn-cu11>=8.1,<9",
    }
    # the wheels' directories put first, what was there kept after them by the shell (no value written over it)
    assert isinstance(env, PrependPath) and env.name == "LD_LIBRARY_PATH"
    entries = (env.literal or "").split(":")
    site = "/usr/lib/python3/dist-packages/nvidia"
    assert entries == [f"{site}/{d}/lib" for d in ("cuda_runtime", "cublas", "cufft", "cusparse", "cudnn")]
    # kept for new shells: the system interpreter has no environment of its own, so ~/.bashrc, the line as data
    assert keep.words == ("/usr/bin/python3", "-c", KEEP["bashrc"], render(env, "posix"))


def test_kind1_pip_tensorflow_with_a_too_old_cudnn_gets_the_cudnn_wheel_ahead_of_it():
    plan = _plan("rtx3060-tf211-cudnn80-too-old")  # libcudnn.so.8 8.0.5 on LD_LIBRARY_PATH; TF 2.11 needs >= 8.1
    (step,) = plan.steps
    assert (step.component, step.codes) == ("cudnn", ("cudnn-too-old",))
    assert offers.applies(step.component, step.codes, step.commands, step.where) is None  # not a framework reinstall
    install, env, keep = step.commands
    assert isinstance(install, Cmd) and not install.root
    assert install.words == ("/usr/bin/python3", "-m", "pip", "install", "nvidia-cudnn-cu11>=8.1,<9")
    assert isinstance(env, PrependPath)  # ahead of the old copy's /usr/local/cuda-11.8/lib64, which stays behind it
    assert env.literal == "/usr/lib/python3/dist-packages/nvidia/cudnn/lib"
    assert keep.words == ("/usr/bin/python3", "-c", KEEP["bashrc"], render(env, "posix"))


# --- kind 6 -------------------------------------------------------------------------------------


def test_kind6_docker_run_gpus_first_daemon_restart_only_as_alternative():
    plan = _plan("docker-started-without-gpus")
    (step,) = plan.steps
    assert step.where == "the host"
    assert _argvs(step.commands) == [("docker", "run", "--gpus", "all", "<image>")]
    (alt,) = step.alternatives
    argvs = _argvs(alt.remediation.commands)
    assert ("nvidia-ctk", "runtime", "configure", "--runtime=docker") in argvs
    restart = next(c for c in alt.remediation.commands if c.words[-2:] == ("restart", "docker"))
    assert "every running container" in restart.note  # labelled with what it costs


def _as_slurm_job(slug: str) -> prescribe.Prescription:
    """The recorded machine as a Slurm job sees it: SLURM_JOB_ID set (a variable gpudoctor records)."""
    import json

    snap = json.loads((MACHINES / slug / "snapshot.json").read_text(encoding="utf-8"))
    snap.setdefault("env", {})["SLURM_JOB_ID"] = "4242"
    return prescribe.build(diagnose(ReplayHost(snap)).findings)


def test_kind6_a_cluster_job_gets_its_own_fix_first_and_the_driver_labelled_for_the_administrator():
    from gpudoctor.planner.cluster import ADMINISTRATORS as ADMINISTRATOR

    plan = _as_slurm_job("p100-driver510-torch-cu121")  # torch cu121 on driver 510: a cu118 build runs on it
    (step,) = plan.steps
    assert (step.component, step.where) == ("torch", "")  # the user's own environment: theirs to run
    assert _argvs(step.commands)[-1][:4] == ("/usr/bin/python3", "-m", "pip", "install")
    (alt,) = step.alternatives
    assert (alt.remediation.component, alt.remediation.where) == ("driver", ADMINISTRATOR)
    assert step.to_json()["alternatives"][0]["where"] == ADMINISTRATOR
    # the same machine outside a job: the driver is this machine's to upgrade
    (plain,) = _plan("p100-driver510-torch-cu121").steps
    assert plain.alternatives[0].remediation.where == ""


def test_kind6_a_cluster_jobs_driver_mismatch_is_the_administrators():
    from gpudoctor.planner.cluster import ADMINISTRATORS as ADMINISTRATOR

    (step,) = _as_slurm_job("driver-library-mismatch-after-upgrade").steps
    assert (step.component, step.where) == ("driver", ADMINISTRATOR)
    assert step.alternatives[0].remediation.where == ADMINISTRATOR
    assert step.fix_kind({"driver-library-mismatch": "reinstall"}) is None  # never one `gpudoctor fix` runs here


# --- kind 7 -------------------------------------------------------------------------------------


def test_kind7_mismatch_libs_older_offers_the_userspace_of_the_loaded_module():
    plan = _plan("driver-library-mismatch-after-upgrade")  # module 565.57.01, library 550.144, Ubuntu
    (step,) = plan.steps
    argvs = _argvs(step.commands)
    assert argvs[-1] == ("reboot",)  # the reboot last, after the checks and the repair
    assert argvs[0] == ("modinfo", "-F", "version", "nvidia")  # first: which branch this is
    assert not [a for a in argvs if a[0] in ("rmmod", "modprobe")]  # never back to back with the reboot
    (alt,) = step.alternatives
    assert _argvs(alt.remediation.commands)[-1] == (
        "apt-get",
        "install",
        "-y",
        "nvidia-utils-565=565.57.01-*",
        "libnvidia-compute-565=565.57.01-*",
    )
    assert alt.remediation.commands[-1].root
    assert not [a for a in _argvs(alt.remediation.commands) if "reboot" in a]


def test_kind7_mismatch_libs_newer_reload_is_the_reboots_alternative():
    from gpudoctor.checks.driver import mismatch_fix

    report = diagnose(ReplayHost(load_snapshot(str(MACHINES / "driver-library-mismatch-after-upgrade" / "snapshot.json"))))
    cause, _, fix = mismatch_fix(report.facts, "550.144", "565.57.01")  # the other way round: an upgrade, not rebooted
    assert cause == "libs-newer"
    argvs = _argvs(fix.commands)
    assert argvs[-1] == ("reboot",)
    assert not [a for a in argvs if a[0] in ("rmmod", "modprobe")]
    assert fix.alternative is not None
    alt = _argvs(fix.alternative.commands)
    assert [a[0] for a in alt] == ["modinfo", "rmmod", "modprobe"]
    assert not [a for a in alt if "reboot" in a]


def test_kind7_mismatch_in_a_container_offers_the_host_driver_upgrade():
    import dataclasses

    from gpudoctor.checks.driver import mismatch_fix

    report = diagnose(ReplayHost(load_snapshot(str(MACHINES / "driver-library-mismatch-after-upgrade" / "snapshot.json"))))
    facts = report.facts
    facts = dataclasses.replace(facts, platform=dataclasses.replace(facts.platform, container="docker"))
    cause, _, fix = mismatch_fix(facts, "550.144", "565.57.01")  # the image's libraries newer than the host's module
    assert cause == "container" and fix.where == "the host"
    assert fix.alternative is not None and fix.alternative.where == "the host"
    assert fix.alternative.component == "driver"
    assert "565.57.01" in fix.alternative.commands[0].note
    # the host's module newer than the image's libraries: no host upgrade to offer; the other way out is the host's
    # reboot, for a host upgraded without one (the step reads the host and the image first, then recreates the
    # container only where a new one works: checks.driver._which_side)
    fix = mismatch_fix(facts, "565.57.01", "550.144")[2]
    assert [c.argv[:3] for c in fix.commands][3:5] == [("docker", "commit", Placeholder("container")), ("docker", "rm", "-f")]
    assert fix.alternative is not None and [c.argv for c in fix.alternative.commands][-1] == ("reboot",)
    assert not any("565.57.01" in c.note for c in fix.alternative.commands)


BLIND = Path(__file__).resolve().parents[1] / "blind" / "plans" / "cases"


@pytest.mark.parametrize(
    "case",
    ["010-forge2053-windows-found11070", "039-gptsovits83-found11040-torch-too-new", "040-omost120-found11060"],
)
def test_kind7_no_bare_reboot_for_a_driver_too_old_without_an_install_recipe(case):
    """framework-driver-too-old from pasted text that names no distribution (the blind set's cases 010, a Windows
    portable install, 039 and 040): the plan printed only `sudo reboot`."""
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.pasted import Source, read_pasted

    text = (BLIND / case / "input.txt").read_text(encoding="utf-8")
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("input.txt", text)]), "pasted text")))
    assert "framework-driver-too-old" in {f.code for f in report.findings}
    argvs = _all_argvs(prescribe.build(report.findings))
    for i, argv in enumerate(argvs):
        if argv[-1] in ("reboot", "Restart-Computer") or argv[:2] == ("shutdown", "/r"):  # a reboot only after an install
            assert any("install" in a for a in argvs[:i]), argvs


# --- kind 8 -------------------------------------------------------------------------------------

# A Windows TensorFlow's build_info.py (a real one: tests/fixtures/PROVENANCE.md): DLL suffixes, not versions.
_WINDOWS_BUILD_INFO = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "tf-build-info"
    / ("build_info.py_tensorflow-2.5-era_windows_cuda-64_112.py")
)


def test_kind8_windows_tensorflow_dll_names_and_versions_from_build_info_are_not_garbled():
    """windows-tf291-venv-no-cuda-dlls with its build_info.py on disk: the rule read "64_112" as a version and printed
    `cudart64_64_1120.dll` and "the CUDA 64_112 toolkit"."""
    import json

    snap = json.loads((MACHINES / "windows-tf291-venv-no-cuda-dlls" / "snapshot.json").read_text(encoding="utf-8"))
    site = snap["python"]["site_packages"][0]
    snap.setdefault("files", {})[f"{site}/tensorflow/python/platform/build_info.py"] = _WINDOWS_BUILD_INFO.read_text(
        encoding="utf-8"
    )
    snap["python"]["locations"] = {"tensorflow": site}
    report = diagnose(ReplayHost(snap))
    tf = report.facts.frameworks.tensorflow.value
    assert (tf.cuda, tf.cudnn, tf.is_cuda_build) == ("11.2", "8", True)
    (f,) = [f for f in report.findings if f.code == "windows-dll-missing"]
    assert [e.value for e in f.evidence] == [
        "cudart64_110.dll: not found in the DLL search path",
        "cudnn64_8.dll: not found in the DLL search path",
    ]


# --- kind 9 -------------------------------------------------------------------------------------


def test_kind9_no_driver_flavour_guessed_for_an_unknown_gpu():
    """tests/real/fedora29-nouveau-holds-gm204: a Maxwell GPU (GM204) that nothing here names by compute capability;
    the plan offered NVIDIA's open kernel modules, which cannot drive it. The GPU is asked for, the stream left to
    choose, named for both."""
    real = Path(__file__).resolve().parents[1] / "real" / "fedora29-nouveau-holds-gm204" / "snapshot.json"
    report = diagnose(ReplayHost(load_snapshot(str(real))))
    (step,) = prescribe.build(report.findings).steps
    argvs = _argvs(step.commands)
    assert not [a for a in argvs if "nvidia-open" in a or any("open" in w for w in a if w.startswith("nvidia-driver:"))]
    assert argvs[-3:] == [("lspci", "-nn"), ("dnf", "module", "install", "-y", "<nvidia-driver-stream>"), ("reboot",)]
    stream = step.commands[-2]
    # (the proprietary stream is the last branch of the generations before Turing, 580: latest-dkms follows the newest
    # branch, which no longer drives them)
    assert "nvidia-driver:580-dkms" in stream.note and "nvidia-driver:open-dkms" in stream.note


# --- kind 2 -------------------------------------------------------------------------------------


def test_kind2_an_alternative_that_another_step_undoes_is_not_offered():
    """ "or instead: torch 2.1.0+cu121", then a step that installs torch 2.0.1+cu118: taking the alternative, the next
    step would undo it. The plan keeps only alternatives that hold with every other step."""
    from gpudoctor.model import Finding, Remediation, Severity

    def pip_install(*specs: str) -> Cmd:
        return Cmd(("python3", "-m", "pip", "install", *specs))

    other_build = Remediation("torch 2.1 cu121 instead", (pip_install("torch==2.1.0+cu121"),), component="torch")
    toolkit = Remediation(
        "a toolkit of PyTorch's CUDA", (Cmd(("gpudoctor", "switch-cuda", "11.8")),), component="toolkit", alternative=other_build
    )
    torch = Remediation("torch 2.0.1 cu118", (pip_install("torch==2.0.1+cu118"),), component="torch")
    held = Remediation("torch 2.0.1 cu118 again", (pip_install("torch==2.0.1+cu118"),), component="torch")
    kept = Remediation("a toolkit", (Cmd(("gpudoctor", "switch-cuda", "11.8")),), component="toolkit", alternative=held)
    findings = [
        Finding("toolkit-torch-major-mismatch", Severity.ERROR, "toolkit", "t", "d", remediation=toolkit),
        Finding("framework-driver-too-old", Severity.ERROR, "frameworks", "t", "d", remediation=torch),
    ]
    plan = prescribe.build(findings)
    assert plan.step("toolkit").alternatives == ()
    assert plan.problems == ()
    findings[0] = Finding("toolkit-torch-major-mismatch", Severity.ERROR, "toolkit", "t", "d", remediation=kept)
    assert [a.remediation for a in prescribe.build(findings).step("toolkit").alternatives] == [held]  # agrees: kept


def _every_recorded_plan():
    real = Path(__file__).resolve().parents[1] / "real"
    for path in sorted([*MACHINES.glob("*/snapshot.json"), *real.glob("*/snapshot.json")]):
        yield path.parent.name, prescribe.build(diagnose(ReplayHost(load_snapshot(str(path)))).findings)


def test_kind2_and_7_on_every_recorded_machine_and_real_case():
    """No alternative pins what another step pins otherwise; no reboot right before or after a module reload;
    no reboot without a command before it in its step that changes what the reboot loads (kind 7)."""
    for slug, plan in _every_recorded_plan():
        for i, step in enumerate(plan.steps):
            others = [c for s in plan.steps[:i] + plan.steps[i + 1 :] for c in s.commands if isinstance(c, Cmd)]
            other_pins = {n: v for c in others for n, v in prescribe._pins(c).items()}
            for alt in step.alternatives:
                for c in alt.remediation.commands:
                    if isinstance(c, Cmd):
                        for n, v in prescribe._pins(c).items():
                            assert other_pins.get(n, v) == v, f"{slug}: the alternative pins {n}=={v}, a step {other_pins[n]}"
            for lines in [step.commands, *(a.remediation.commands for a in step.alternatives)]:
                argvs = _argvs(lines)
                for j, argv in enumerate(argvs):
                    if argv[0] in ("reboot", "Restart-Computer") or argv[:2] == ("shutdown", "/r"):
                        near = argvs[max(0, j - 1) : j + 2]
                        assert not [a for a in near if a[0] in ("rmmod", "modprobe")], f"{slug}: reboot beside a reload"
                        assert j > 0, f"{slug}: a reboot alone: {step.codes}"


def test_kind2_the_toolkit_side_finds_the_cuda_of_pytorchs_major_that_fits_when_one_does():
    """rtx4090-nvcc118-torch-cu121 (PyTorch 2.2.1+cu121, nvcc 11.8) on a Blackwell GPU (12.0) and a CUDA 13.0 driver:
    CUDA 12.1 cannot build for sm_120 and 13.0 is not PyTorch's major, but 12.8 is both. The toolkit side said "No
    CUDA version fits PyTorch's CUDA major, this driver and every GPU here"."""
    import dataclasses

    from gpudoctor.checks import Context
    from gpudoctor.checks.toolkit import qualifies, toolkit_fix
    from tests.unit.test_rule_edges_checks import facts_of, replace

    facts = facts_of("rtx4090-nvcc118-torch-cu121")
    blackwell = tuple(dataclasses.replace(g, compute_capability="12.0") for g in facts.driver.gpus)
    facts = replace(
        facts,
        driver={"smi_driver_version": "580.65.06", "nvml_driver_version": "580.65.06", "smi_cuda_version": "13.0",
                "nvml_cuda_version": "13.0", "gpus": blackwell},
    )  # fmt: skip
    ctx = Context()
    assert not qualifies(facts, ctx, "12.1") and not qualifies(facts, ctx, "13.0")
    fix = toolkit_fix(facts, ctx)
    assert fix.version is not None and fix.version.startswith("12.")
    assert qualifies(facts, ctx, fix.version)
    assert fix.commands  # an install, not "no CUDA version fits"


def test_kind9_ubuntu_with_a_branch_and_no_gpu_known_asks_for_the_flavour():
    """A driver branch chosen by code (a requirement's floor) for a GPU nothing names: never nvidia-driver-N (which no
    Blackwell GPU runs) nor -open (which no GPU before Turing runs) on a guess; known GPUs keep their package."""
    from gpudoctor.checks import Context
    from gpudoctor.planner.remedy import driver_install

    facts = diagnose(ReplayHost(load_snapshot(str(MACHINES / "rtx3080-nouveau" / "snapshot.json")))).facts
    unknown = [c.words for c in driver_install(facts, "570", Context())]
    assert unknown == [
        ("lspci", "-nn"),
        ("apt-get", "update"),
        ("apt-get", "install", "-y", "<nvidia-driver-package>"),
    ]
    # Known GPUs (by NVML, else the matrix's entry for the name) keep their package: a P100 (Pascal) the proprietary
    # modules, an RTX 4090 (Ada) the open ones.
    pascal = diagnose(ReplayHost(load_snapshot(str(MACHINES / "p100-driver510-torch-cu121" / "snapshot.json")))).facts
    assert [c.words for c in driver_install(pascal, "570", Context())][-1] == ("apt-get", "install", "-y", "nvidia-driver-570")
    ada = diagnose(ReplayHost(load_snapshot(str(MACHINES / "rtx4090-nvcc118-torch-cu121" / "snapshot.json")))).facts
    assert [c.words for c in driver_install(ada, "570", Context())][-1] == ("apt-get", "install", "-y", "nvidia-driver-570-open")
