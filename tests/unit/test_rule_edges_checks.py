"""Rules of checks/ (cuDNN, driver, health, memory, toolkit) at the edges the mutation run found unguarded.

Each test is written for a mutant that survived the suite (tools/mutate.py; docs/testing.md, "Mutation
testing"), but asserts what a user sees: the finding, what it names and the commands of its fix. Facts are
recorded machines (tests/machines) with one fact changed at a time, in code or in the snapshot itself.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from gpudoctor.checks import Context, run_checks
from gpudoctor.checks.toolkit import toolkit_target
from gpudoctor.cmdline import render_all
from gpudoctor.doctor import diagnose
from gpudoctor.facts import CudnnInstall, Distro, Gpu, Toolkit
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.probed import Unknown

MACHINES = Path(__file__).resolve().parents[1] / "machines"


def facts_of(slug):
    return diagnose(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json")))).facts


def edited(slug, edit):
    """The machine's facts after `edit` changed its snapshot (as a person would edit machine.toml)."""
    data = json.loads((MACHINES / slug / "snapshot.json").read_text(encoding="utf-8"))
    edit(data)
    return diagnose(ReplayHost(validate_snapshot(data))).facts


def findings(facts, code, ctx=None):
    found, internal = run_checks(facts, ctx=ctx)
    assert not internal
    return [f for f in found if f.code == code]


def lines(finding):
    """Each command as rendered with its note (data) after it; where a note is printed is gpudoctor.cmdline's
    to decide (tests/unit/test_cmdline.py)."""
    return [
        line + (f"  # {c.note}" if c.note else "") for c in finding.remediation.commands for line in render_all([c], "posix")[-1:]
    ]


def replace(facts, **areas):
    """facts with some fields of one area changed: replace(facts, driver={"gpus": ...})."""
    return dataclasses.replace(facts, **{k: dataclasses.replace(getattr(facts, k), **v) for k, v in areas.items()})


def with_torch(facts, **changes):
    t = facts.frameworks.torch
    return replace(facts, frameworks={"torch": dataclasses.replace(t, value=dataclasses.replace(t.value, **changes))})


def with_tf(facts, **changes):
    tf = facts.frameworks.tensorflow
    return replace(facts, frameworks={"tensorflow": dataclasses.replace(tf, value=dataclasses.replace(tf.value, **changes))})


# --- cuDNN ------------------------------------------------------------------------------------------------


def test_a_system_cudnn_built_for_another_cuda_major_is_a_mismatch():
    """TensorFlow 2.15 is built for CUDA 12.2 (https://www.tensorflow.org/install/source#gpu); the machine's
    LD_LIBRARY_PATH still leads to the CUDA 11.8 tree's cuDNN 8.0.5, which NVIDIA built for CUDA 10.2 and 11.x
    only (cuDNN support matrix, compat_matrix/cudnn.toml). cuDNN 8.9.7 has a CUDA 12 build: no mismatch."""
    base = with_tf(facts_of("rtx3060-tf211-cudnn80-too-old"), version="2.15.0", cuda="12.2", cudnn="8")
    (f,) = findings(base, "cudnn-cuda-mismatch")
    assert f.title == "TensorFlow 2.15.0 uses CUDA 12 but loads cuDNN 8.0.5 (built for CUDA 10, 11)"
    assert f.sources == ("cudnn-support-matrix",)  # the cuDNN release row says which CUDA majors it was built for
    newer = dataclasses.replace(
        base, cudnn=(CudnnInstall("8.9.7", 8, "library", "/usr/local/cuda-11.8/lib64/libcudnn.so.8.9.7"),)
    )
    assert findings(newer, "cudnn-cuda-mismatch") == []


def test_the_shadowing_copy_is_only_taken_off_when_the_one_behind_it_is_new_enough():
    """tests/machines/rtx3060-jax-cudnn-shadowed-by-ld-library-path, but the wheel behind the LD_LIBRARY_PATH copy
    is nvidia-cudnn-cu12 9.5.1.17, itself older than JAX 0.6.0's 9.8: taking the old copy off LD_LIBRARY_PATH
    would load another too-old cuDNN, so the fix installs the wheel JAX needs instead."""

    def older_wheel(data):
        data["python"]["distributions"]["nvidia-cudnn-cu12"] = "9.5.1.17"

    (f,) = findings(edited("rtx3060-jax-cudnn-shadowed-by-ld-library-path", older_wheel), "cudnn-too-old")
    assert "new enough" not in f.remediation.summary and "nothing needs installing" not in f.remediation.summary
    assert lines(f)[0] == "/home/user/venv/bin/python3 -m pip install 'nvidia-cudnn-cu12>=9.8,<10.0'"


def _torch_on_cudnn_wheel(cudnn_wheel):
    """tests/machines/h100x8-driver565-torch221-cu121 upgraded to PyTorch 2.10.0+cu128, which pins
    nvidia-cudnn-cu12==9.10.2.21 (compat_matrix/torch.toml), with the cuDNN wheel `cudnn_wheel` left behind
    (a `pip install --no-deps torch`, or a constraints file pinning the old wheel)."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    version, names = cudnn_wheel
    dirs = tuple(
        dataclasses.replace(d, names=names) if d.path.endswith("/nvidia/cudnn/lib") else d
        for d in base.frameworks.torch.value.lib_dirs
    )
    facts = with_torch(base, version="2.10.0+cu128", cuda="12.8", lib_dirs=dirs)
    return replace(facts, frameworks={"nvidia_wheels": {**base.frameworks.nvidia_wheels, "nvidia-cudnn-cu12": version}})


def test_an_old_cudnn_wheel_of_the_right_cuda_major_is_upgraded_in_place():
    """The wheel is of the right CUDA major (cu12), only old: installing the pinned version replaces it; nothing
    is uninstalled (an uninstall is for a wheel of another CUDA major, whose files overlap)."""
    (f,) = findings(_torch_on_cudnn_wheel(("9.1.0.70", ("libcudnn.so.9",))), "cudnn-too-old")
    assert f.title == "cuDNN 9.1.0.70 is older than PyTorch 2.10.0+cu128 requires (9.10.2.21)"
    assert lines(f) == ["/usr/bin/python3 -m pip install nvidia-cudnn-cu12==9.10.2.21"]


def test_a_missing_cudnn_major_is_installed_as_the_pinned_wheel():
    """Only cuDNN 8's wheel (8.9.2.26, PyTorch 2.2's) is there and PyTorch 2.10 loads libcudnn.so.9: missing."""
    (f,) = findings(_torch_on_cudnn_wheel(("8.9.2.26", ("libcudnn.so.8",))), "cudnn-missing")
    assert f.title == "PyTorch 2.10.0+cu128 needs libcudnn.so.9 and none can be loaded"
    assert lines(f) == ["/usr/bin/python3 -m pip install nvidia-cudnn-cu12==9.10.2.21"]


def test_cudnn_9_on_a_rhel_family_system_is_installed_with_dnf_as_root():
    """JAX installed with the local-CUDA plugin (jax[cuda12_local]: no NVIDIA wheels) on Rocky Linux 9 loads the
    system's cuDNN 9.1.0 through LD_LIBRARY_PATH; JAX 0.6.0 needs 9.8. cuDNN 9 comes as one package per CUDA
    major, libcudnn9-cuda-12 (NVIDIA's cuDNN 9 installation guide for Linux, SOURCE_CUDNN9_INSTALL), installed
    by dnf, which needs root."""

    def rocky_without_wheels(data):
        for path in [p for p in data["files"] if "/site-packages/nvidia/" in p]:
            del data["files"][path]
        for name in [n for n in data["python"]["distributions"] if n.startswith("nvidia-")]:
            del data["python"]["distributions"][name]
        data["files"]["/etc/os-release"] = 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.4"\n'

    (f,) = findings(edited("rtx3060-jax-cudnn-shadowed-by-ld-library-path", rocky_without_wheels), "cudnn-too-old")
    assert lines(f)[0] == "sudo dnf install -y libcudnn9-cuda-12  # NVIDIA's CUDA repository"
    assert f.remediation.requires_root


def test_with_no_package_for_the_distribution_the_fix_names_nvidias_archive():
    """On Arch no distribution package of NVIDIA's CUDA repository is known: no command, and the fix says
    where cuDNN 8 for CUDA 11 comes from instead (NVIDIA's tar archive)."""
    from gpudoctor.probed import Unknown

    # The interpreter unknown: a TensorFlow not known to be pip's (pip's gets NVIDIA's wheel, issue 27 kind 1).
    base = replace(facts_of("rtx3060-tf211-cudnn80-too-old"), frameworks={"python": Unknown("failed", "not probed", "python")})
    (f,) = findings(replace(base, platform={"distro": Distro(id="arch")}), "cudnn-too-old")
    assert f.remediation.commands == ()
    assert "install cuDNN 8 for CUDA 11 from NVIDIA's archive (tar)" in f.remediation.summary


# --- driver -----------------------------------------------------------------------------------------------


def test_the_nouveau_fix_rebuilds_arch_linuxs_initramfs_with_mkinitcpio_as_root():
    """Arch Linux builds its initramfs with mkinitcpio (https://wiki.archlinux.org/title/Mkinitcpio); the
    blacklist only takes effect once the initramfs is rebuilt, which writes /boot: root. Printed only with the driver
    install before the reboot: Arch's nvidia-open (pacman) for a Turing or newer GPU; where no install is known for the
    GPU, no blacklist and reboot are printed at all (that reboot would come up with no driver)."""
    base = replace(facts_of("rtx3080-nouveau"), platform={"distro": Distro(id="arch")})
    (f,) = findings(base, "driver-nouveau")
    assert lines(f) == []  # nouveau holds it: NVML names no GPU, so Arch's package for it is not known
    ampere = replace(base, driver={"gpus": (Gpu(0, "NVIDIA GeForce RTX 3080", compute_capability="8.6"),)})
    (f,) = findings(ampere, "driver-nouveau")
    printed = lines(f)
    assert (
        printed.index("sudo mkinitcpio -P") < printed.index("sudo pacman -S --needed nvidia-open") < printed.index("sudo reboot")
    )


def test_with_no_driver_the_absent_device_nodes_are_not_a_second_finding():
    """tests/machines/rtx3080-no-driver: no NVIDIA module, so no /dev/nvidia* can exist yet; driver-missing
    says it, and device-nodes-missing (whose fix, nvidia-modprobe, needs the driver) must not."""
    found, internal = run_checks(facts_of("rtx3080-no-driver"))
    assert not internal
    assert [f.code for f in found] == ["driver-missing"]


def test_a_probe_other_than_the_drivers_that_ran_out_of_time_is_said():
    """The frameworks probe (a slow network file system, say) did not finish: its area was not judged, which is
    said as a warning (not a hung driver) with the way to give it more time."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    why = Unknown("timeout", "the frameworks probe did not finish before the deadline", "probe:frameworks")
    (f,) = findings(dataclasses.replace(base, failures={"frameworks": why}), "probe-timeout")
    assert f.title == "a probe hung past its time limit: frameworks"
    assert f.severity is Severity.WARNING
    assert "the frameworks probe did not finish before the deadline" in f.detail
    assert lines(f) == ["gpudoctor check --probe-timeout 30"]


# --- health -----------------------------------------------------------------------------------------------


def test_a_busy_gpu_on_a_slower_link_generation_is_a_warning():
    """GPU 0 of the H100 node, at work (97%, P0), trained its full-width x16 link at Gen3 of its Gen5: under
    load that is a real shortfall (an idle GPU may lower its generation to save power; a busy one does not)."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    gpus = list(base.driver.gpus)
    gpus[0] = dataclasses.replace(
        gpus[0], throttle_reasons=(), utilization_gpu_percent=97, performance_state="P0", pcie_gen_current=3
    )
    (f,) = findings(replace(base, driver={"gpus": tuple(gpus)}), "pcie-link-degraded")
    assert f.title == "GPU 0's PCIe link runs below its maximum while busy: Gen3 of Gen5"
    assert f.severity is Severity.WARNING


# --- memory -----------------------------------------------------------------------------------------------


def test_a_matrix_without_jaxs_off_values_still_knows_them(tmp_path):
    """A matrix given with --matrix whose XLA_PYTHON_CLIENT_PREALLOCATE control lists no values (the field is
    optional): JAX's documented off values (false, False, 0; https://docs.jax.dev/en/latest/gpu_memory_allocation.html)
    still apply, so XLA_PYTHON_CLIENT_PREALLOCATE=false is not reported as preallocating."""
    text = (Path(__file__).resolve().parents[2] / "compat_matrix" / "memory_settings.toml").read_text(encoding="utf-8")
    values = 'values = ["false", "False", "0"], '
    assert text.count(values) == 1
    (tmp_path / "memory_settings.toml").write_text(text.replace(values, ""), encoding="utf-8")
    ctx = Context(str(tmp_path))
    assert ctx.matrix.memory_setting("jax").control("XLA_PYTHON_CLIENT_PREALLOCATE").values == ()
    base = facts_of("t4-jax-beside-tf-notebook")
    assert len(findings(base, "jax-preallocates", ctx)) == 1  # unset: JAX takes 75% next to the notebook
    off = replace(base, platform={"env": {**base.platform.env, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}})
    assert findings(off, "jax-preallocates", ctx) == []


# --- toolkit ----------------------------------------------------------------------------------------------


def test_a_toolkit_named_only_by_cuda_home_is_the_one_judged_for_the_gpus():
    """A job script exports CUDA_HOME=/opt/cuda-11.7 on the H100 node (no nvcc on PATH, no /usr/local/cuda):
    builds use that toolkit, and CUDA 11.7 cannot target compute capability 9.0 (sm_90 came with CUDA 11.8,
    CUDA 11.8 release notes; compat_matrix/gpu_arch.toml)."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    tk = Toolkit("/opt/cuda-11.7", "11.7.1", "version.json", ("CUDA_HOME",), "/opt/cuda-11.7/bin/nvcc", True)
    facts = replace(base, toolkits={"toolkits": (tk,), "cuda_home": "/opt/cuda-11.7"})
    found = findings(facts, "toolkit-arch-unsupported")
    assert len(found) == len(base.driver.gpus)
    assert found[0].title == "nvcc 11.7 cannot build for GPU 0 (NVIDIA H100 80GB HBM3, compute capability 9.0)"


def test_a_toolkit_of_exactly_the_drivers_cuda_is_run_by_it():
    """The driver is known only by the CUDA it reports (12.4, its version number not reported): a CUDA 12.4
    toolkit is at that bound, so the driver runs it and it is the toolkit to use."""
    base = facts_of("h100x8-driver565-torch221-cu121")
    tk = Toolkit("/usr/local/cuda-12.4", "12.4.131", "version.json", ("nvcc on PATH",), "/usr/local/cuda-12.4/bin/nvcc", True)
    driver = {"nvml_driver_version": None, "smi_driver_version": None, "nvml_cuda_version": None, "smi_cuda_version": "12.4"}
    facts = replace(base, toolkits={"toolkits": (tk,)}, driver=driver)
    assert (facts.driver.version, facts.driver.cuda_version) == (None, "12.4")
    assert toolkit_target(facts, Context()) is tk
