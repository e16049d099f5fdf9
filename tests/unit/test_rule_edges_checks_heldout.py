"""Rules of checks/ at the edges the held-out mutation sample found unguarded (docs/testing.md, "Mutation testing").

Each test was written for a mutant that survived `tools/mutate.py --sample 200 --all-of "" --seed 21`, but asserts
what a user sees: the finding, what it names, its evidence and the commands of its fix. Facts are recorded
machines (tests/machines) with one fact changed at a time, or pasted text read as `gpudoctor check --from` reads it.
"""

from __future__ import annotations

import dataclasses
import json

from gpudoctor.cmdline import render_all
from gpudoctor.doctor import diagnose
from gpudoctor.facts import Distro
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from tests.unit.test_rule_edges_checks_v2 import MACHINES, facts_of, findings, from_text, lines, replace, with_tf

# --- driver -----------------------------------------------------------------------------------------------

PROC_VERSION = "file:/proc/driver/nvidia/version"


def test_a_library_mismatch_cites_the_loaded_modules_version_or_says_it_was_unreadable():
    """tests/machines/driver-library-mismatch-after-upgrade: the kernel module is 565.57.01 (its
    /proc/driver/nvidia/version), the library 550.144. The evidence quotes the module's version from that file; a
    pasted nvidia-smi error alone shows no /proc file, so the evidence says it was unreadable rather than naming a
    version nobody saw."""
    (f,) = findings(facts_of("driver-library-mismatch-after-upgrade"), "driver-library-mismatch")
    assert [e.value for e in f.evidence if e.source == PROC_VERSION] == ["565.57.01"]
    pasted = from_text("$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\n")
    (f,) = findings(pasted, "driver-library-mismatch")
    assert [e.value for e in f.evidence if e.source == PROC_VERSION] == ["unreadable"]


def test_pasted_text_that_never_listed_dev_has_no_missing_device_nodes():
    """A pasted /proc/driver/nvidia/version shows a loaded 550.54.14 driver but nothing of /dev: the device nodes
    were not shown, which is not the same as shown missing, so device-nodes-missing (and its nvidia-modprobe fix)
    would be a guess."""
    facts = from_text(
        "$ cat /proc/driver/nvidia/version\n"
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
        "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n"
    )
    assert facts.kernel.proc_driver.value.version == "550.54.14"  # the driver is known: the check is not skipped for that
    assert findings(facts, "device-nodes-missing") == []


def test_the_driver_upgrade_on_arch_installs_the_open_modules_as_root():
    """tests/machines/rtx4090-nvcc118-torch-cu121 on Arch Linux with driver 470 (CUDA 11.4): torch 2.2.1+cu121 needs
    a newer driver. An RTX 4090 (Ada, 8.9) runs NVIDIA's open kernel modules, which Arch packages as nvidia-open;
    pacman installs system packages only as root, so the fix's command carries sudo."""
    facts = replace(
        facts_of("rtx4090-nvcc118-torch-cu121"),
        driver={"smi_driver_version": "470.199.02", "smi_cuda_version": "11.4"},
        platform={"distro": Distro(id="arch", pretty_name="Arch Linux")},
    )
    (f,) = findings(facts, "framework-driver-too-old")
    driver = f.remediation.alternative
    assert driver.component == "driver"
    assert render_all(driver.commands, "posix")[0] == "sudo pacman -S --needed nvidia-open"


# --- memory ---------------------------------------------------------------------------------------------


def test_a_process_on_a_mig_instance_is_not_warned_of_jobs_on_another_gpu():
    """tests/machines/rtx4000ada-tf-beside-torch-job (TensorFlow beside a PyTorch job on GPU 0) with a second,
    MIG-enabled GPU 1 and CUDA_VISIBLE_DEVICES naming one of its MIG instances before GPU 0. CUDA enumerates a
    single MIG instance when one is named (NVIDIA's MIG user guide, "Device Enumeration",
    https://docs.nvidia.com/datacenter/tesla/mig-user-guide/mig-device-names.html), and a MIG instance's
    memory is its own: TensorFlow will not meet the job on GPU 0, so there is no tf-preallocates warning. With
    CUDA_VISIBLE_DEVICES=0 it runs on GPU 0 beside the job, and is warned."""
    facts = facts_of("rtx4000ada-tf-beside-torch-job")
    gpu0 = facts.driver.gpus[0]
    gpu1 = dataclasses.replace(
        gpu0,
        index=1,
        uuid="GPU-5a1b6c2d-0000-4000-8000-000000000001",
        pci_bus_id="00000000:02:00.0",
        mig_current=True,
        mig_devices=2,
        processes=(),
    )

    def visible(value):
        return replace(
            facts, driver={"gpus": (gpu0, gpu1)}, platform={"env": {**facts.platform.env, "CUDA_VISIBLE_DEVICES": value}}
        )

    assert findings(visible("MIG-7c3e1f0a-2b4d-5e6f-8a9b-0c1d2e3f4a5b,0"), "tf-preallocates") == []
    assert len(findings(visible("0"), "tf-preallocates")) == 1


# --- platform ---------------------------------------------------------------------------------------------


def test_a_container_without_gpus_cites_the_images_cuda_requirement():
    """tests/machines/docker-started-without-gpus: the image sets NVIDIA_REQUIRE_CUDA=cuda>=12.1 (NVIDIA's CUDA
    images do), a sign the container was meant to have a GPU; the finding shows it as evidence."""
    (f,) = findings(facts_of("docker-started-without-gpus"), "container-no-gpu")
    assert [e.value for e in f.evidence if e.source == "env:NVIDIA_REQUIRE_CUDA"] == ["cuda>=12.1"]


# --- what pasted text reports ----------------------------------------------------------------------------

TOO_OLD = "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver\n"


def test_a_reported_old_driver_offers_a_build_for_the_cuda_it_supports_only_when_that_is_known():
    """PyTorch's 'too old (found version 11040)' says the driver supports CUDA 11.4, so the fix may offer a build
    for CUDA <= 11.4; 'CUDA driver version is insufficient' names no version, so the fix offers no such build."""
    (f,) = findings(from_text(TOO_OLD), "framework-driver-too-old")
    # No system named: where the driver comes from, the restart after it, no restart command alone (issue 27, kind 7)
    assert f.remediation.summary.endswith("then restart the machine; or install a build for CUDA <= 11.4.")
    assert f.remediation.commands == ()
    said = "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"
    (f,) = findings(from_text(said), "toolkit-newer-than-driver")
    assert f.remediation.summary.endswith("then restart the machine.")
    assert "install a build for CUDA <=" not in f.remediation.summary


def test_a_reported_old_driver_is_said_once_when_the_installed_build_already_says_it():
    """The pasted pip list shows torch 2.1.2+cu121 and the error shows a driver for CUDA 11.4: the framework check
    already finds that PyTorch 2.1.2+cu121 needs CUDA 12.1, with a fix that names a cu118 build; the error text
    adds nothing, so there is one finding, the one with the better fix."""
    facts = from_text("$ pip list\nPackage Version\n------- -------\ntorch 2.1.2+cu121\n\n" + TOO_OLD)
    (f,) = findings(facts, "framework-driver-too-old")
    assert f.title == "PyTorch 2.1.2+cu121 needs CUDA 12.1, which the driver (CUDA 11.4) cannot run"


# --- frameworks -------------------------------------------------------------------------------------------


def test_tensorflow_on_native_windows_cites_its_release_row():
    """tests/machines/windows-rtx3080-tensorflow215: TensorFlow 2.15 has a row in compat_matrix/tensorflow.toml,
    which cites TensorFlow's tested build configurations (tf-tested-configs); the finding names that source."""
    (f,) = findings(facts_of("windows-rtx3080-tensorflow215"), "framework-windows-native-gpu")
    assert "tf-tested-configs" in f.sources


def test_libraries_for_tensorflow_before_cuda_11_are_those_of_its_own_cuda_minor():
    """tests/machines/rtx3060-tf211-cuda12-only with TensorFlow 2.3.0 instead of 2.11.0: TensorFlow 2.3 was built
    for CUDA 10.1 and loads libcudart.so.10.1, a soname that carries the minor before CUDA 11, so only CUDA 10.1's
    libraries serve (10.2's are libcudart.so.10.2): the fix names cuda-libraries-10-1 and cudatoolkit=10.1."""
    facts = with_tf(facts_of("rtx3060-tf211-cuda12-only"), version="2.3.0", cuda="10.1")
    (f,) = findings(facts, "framework-cuda-libs-missing")
    assert "libcudart.so.10.1" in f.title
    assert "NVIDIA's CUDA repository's cuda-libraries-10-1, or a conda environment with cudatoolkit=10.1" in f.remediation.summary
    assert "10.2" not in f.remediation.summary


def test_a_driver_too_old_for_keras_3_tensorflow_puts_the_driver_first_not_the_keras_2_downgrade():
    """tests/machines/rtx3060-tf211-cuda12-only with TensorFlow 2.16.1 (built for CUDA 12.3) installed in place of
    2.11.0 and driver 470.199.02 (CUDA 11.4) in place of 570.124.04. A build this driver runs means going back
    below TensorFlow 2.16, where tf.keras is Keras 2 and code written for Keras 3 may not run: a move that changes
    the user's code, so the driver upgrade comes first and that downgrade is the alternative."""
    raw = (MACHINES / "rtx3060-tf211-cuda12-only" / "snapshot.json").read_text(encoding="utf-8")
    raw = raw.replace("2.11.0", "2.16.1").replace("('cuda_version', '11.2')", "('cuda_version', '12.3')")
    raw = raw.replace("570.124.04", "470.199.02").replace("<cuda_version>12.8<", "<cuda_version>11.4<")
    facts = diagnose(ReplayHost(validate_snapshot(json.loads(raw)))).facts
    (f,) = findings(facts, "framework-driver-too-old")
    assert f.remediation.component == "driver"
    assert f.remediation.summary.startswith("Upgrade the NVIDIA driver to >= 525.60.13")
    alt = f.remediation.alternative
    assert alt.component == "tensorflow"
    assert "downgrade tensorflow 2.16.1 -> 2.14.*" in alt.summary and "tf.keras is Keras 2" in alt.summary


def test_moving_windows_tensorflow_back_to_2_10_removes_tensorflow_intel_too():
    """tests/machines/windows-rtx3080-tensorflow215 with Python 3.10.11 in place of 3.11.7, so that TensorFlow 2.10
    (Python < 3.11) installs into this environment. TensorFlow 2.15 on Windows is a shell over tensorflow-intel,
    which holds its code; tensorflow 2.10 does not depend on tensorflow-intel, so pip would leave 2.15's code in
    place. The fix is the planner's: resolve 2.10 first (a dry run), remove tensorflow-intel, then install 2.10, with
    numpy<2 (TensorFlow supports NumPy 2 from 2.18). Native 2.10 is printed where conda brings its CUDA 11.2 and
    cuDNN 8.1 (a conda environment, here); without conda the printed route is WSL 2, and no 2.10 install is printed."""
    facts = facts_of("windows-rtx3080-tensorflow215")
    py = facts.frameworks.python
    plain = replace(facts, frameworks={"python": dataclasses.replace(py, value=dataclasses.replace(py.value, version="3.10.11"))})
    (f,) = findings(plain, "framework-windows-native-gpu")
    assert lines(f) == ["sudo wsl --install  # restart Windows when it asks"]
    assert not any("tensorflow==2.10" in line for line in lines(f))
    env = "C:/Users/me/miniconda3/envs/tf"
    conda = dataclasses.replace(
        py.value,
        version="3.10.11",
        kind="conda",
        prefix=env,
        executable=f"{env}/python.exe",
        site_packages=[f"{env}/Lib/site-packages"],
    )
    (f,) = findings(replace(facts, frameworks={"python": dataclasses.replace(py, value=conda)}), "framework-windows-native-gpu")
    assert lines(f) == [
        f"conda install -y -p {env} -c conda-forge cudatoolkit=11.2 cudnn=8.1",
        f"{env}/python.exe -m pip install --dry-run 'tensorflow==2.10.*' 'numpy<2'",
        f"{env}/python.exe -m pip uninstall -y tensorflow-intel",
        f"{env}/python.exe -m pip install 'tensorflow==2.10.*' 'numpy<2'",
    ]


# --- toolkit ----------------------------------------------------------------------------------------------


def test_moving_pytorch_to_nvccs_major_in_the_same_release_says_so():
    """tests/machines/rtx4090-nvcc118-torch-cu121: nvcc 11.8 and torch 2.2.1+cu121. PyTorch 2.2 has a cu118 build,
    so the PyTorch side of the fix keeps the release and changes only its CUDA variant, and says that."""
    (f,) = findings(facts_of("rtx4090-nvcc118-torch-cu121"), "toolkit-torch-major-mismatch")
    alt = f.remediation.alternative.summary
    assert "PyTorch 2.2 (cu118), the same release, built for CUDA 11.8" in alt
    assert "the nearest release" not in alt
