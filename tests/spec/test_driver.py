"""docs/findings: the driver area (driver-missing, driver-nouveau, driver-unreachable, driver-library-mismatch,
device-nodes-missing, container-no-gpu, gpu-none), each documented sentence of "How gpudoctor decides" as a test.

Each docstring quotes the page. Machines are recorded ones (tests/machines) with one fact changed, or the
minimal NVML machine of tests/spec/machine.py.
"""

from __future__ import annotations

import pytest

from tests.spec.machine import codes, found, nvml_machine, recorded
from tests.spec.registry import FIRES, QUIET, states

# --- driver-missing ---------------------------------------------------------------------------------------


@states("driver-missing", FIRES)
def test_driver_missing_fires_with_an_nvidia_gpu_on_the_bus_and_no_driver_at_all():
    """driver-missing.md: "It fires only when all of these hold: 1. The PCI bus ... shows at least one NVIDIA
    display device. 2. Neither NVML nor nvidia-smi answers ... 3. No NVIDIA kernel module version can be read
    ... 4. nvidia is not listed in /proc/modules." """
    (f,) = found(recorded("rtx3080-no-driver"), "driver-missing")
    assert f.code == "driver-missing"


@pytest.mark.parametrize(
    "edit",
    [
        # 1. no NVIDIA display device on the bus
        lambda s: (
            [s["files"].pop(k) for k in list(s["files"]) if k.startswith("/sys/bus/pci/devices/0000:01")]
            and s["commands"].pop("lspci -nn")
        ),
        # 3. a module version can be read
        lambda s: s["files"].update({"/sys/module/nvidia/version": "550.54.14\n"}),
        lambda s: s["files"].update(
            {"/proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14\n"}
        ),
        # 4. nvidia listed in /proc/modules
        lambda s: s["files"].update({"/proc/modules": "nvidia 1 0 - Live 0x0\n"}),
    ],
    ids=["no-nvidia-on-bus", "sys-module-version", "proc-driver-version", "nvidia-in-proc-modules"],
)
@states("driver-missing", QUIET)
def test_driver_missing_needs_every_condition(edit):
    """driver-missing.md: "It fires only when all of these hold" - each condition broken alone silences it."""
    snap = recorded("rtx3080-no-driver")
    edit(snap)
    assert found(snap, "driver-missing") == []


@states("driver-missing", QUIET)
def test_driver_missing_is_not_said_in_a_container_on_wsl_or_with_nouveau():
    """driver-missing.md: "It is deliberately not said ... nouveau holds the GPU ... inside a container ...
    on WSL, where the driver comes from Windows." """
    assert "driver-missing" not in codes(recorded("rtx3080-nouveau"))
    in_container = recorded("rtx3080-no-driver")
    in_container["files"]["/.dockerenv"] = ""
    assert "driver-missing" not in codes(in_container)
    wsl = recorded("rtx3080-no-driver")
    wsl["platform"] = {"system": "Linux", "release": "5.15.153.1-microsoft-standard-WSL2", "machine": "x86_64"}
    assert "driver-missing" not in codes(wsl)


@states("driver-missing", QUIET)
def test_without_a_driver_version_the_follow_on_checks_stay_silent():
    """driver-missing.md: "With no driver version known, the follow-on checks stay silent, such as
    toolkit-newer-than-driver and framework-driver-too-old." (the CUDA 12.5 nvcc, the cu121 torch, no driver)"""
    snap = recorded("rtx3080-no-driver")
    tk = recorded("rtx3090-nvcc125-only-driver525")
    snap["commands"]["nvcc --version"] = tk["commands"]["nvcc --version"]
    snap["env"] = {"PATH": "/usr/local/cuda-12.5/bin:/usr/bin:/bin"}
    found_codes = codes(snap)
    assert "driver-missing" in found_codes
    assert not found_codes & {"toolkit-newer-than-driver", "framework-driver-too-old"}


# --- driver-nouveau ---------------------------------------------------------------------------------------


@states("driver-nouveau", FIRES)
def test_nouveau_in_proc_modules_or_bound_to_the_gpu_fires():
    """driver-nouveau.md: "it fires if either of these holds: nouveau is listed in /proc/modules; an NVIDIA GPU on
    the PCI bus is bound to nouveau." Each alone is enough."""
    (f,) = found(recorded("rtx3080-nouveau"), "driver-nouveau")
    assert f.code == "driver-nouveau"
    only_modules = recorded("rtx3080-nouveau")
    only_modules["files"].pop("/sys/bus/pci/devices/0000:01:00.0/driver")
    assert len(found(only_modules, "driver-nouveau")) == 1
    only_bound = recorded("rtx3080-nouveau")
    only_bound["files"]["/proc/modules"] = "snd_hda_intel 61440 0 - Live 0x0\n"
    assert len(found(only_bound, "driver-nouveau")) == 1


@states("driver-nouveau", QUIET)
def test_nouveau_neither_loaded_nor_bound_is_silent():
    """driver-nouveau.md: the rule is "either of these holds"; with neither, it is silent (the machine without
    any driver), and driver-missing speaks instead; with nouveau, driver-missing is not said ("No cascade")."""
    snap = recorded("rtx3080-nouveau")
    snap["files"]["/proc/modules"] = "snd_hda_intel 61440 0 - Live 0x0\n"
    snap["files"].pop("/sys/bus/pci/devices/0000:01:00.0/driver")
    snap["commands"].pop("lspci -nn")
    assert found(snap, "driver-nouveau") == []
    assert "driver-missing" not in codes(recorded("rtx3080-nouveau"))


# --- driver-unreachable -----------------------------------------------------------------------------------


@states("driver-unreachable", FIRES)
def test_driver_unreachable_when_neither_nvml_nor_nvidia_smi_answered():
    """driver-unreachable.md: ""reachable" means NVML or nvidia-smi answered. The finding fires when neither did." """
    (f,) = found(recorded("h100-driver-unreachable"), "driver-unreachable")
    assert f.code == "driver-unreachable"


@states("driver-unreachable", QUIET)
def test_driver_unreachable_is_silent_when_either_answers():
    """driver-unreachable.md: "reachable" means NVML *or* nvidia-smi answered."""
    nvml_only = nvml_machine()
    assert found(nvml_only, "driver-unreachable") == []
    smi_only = recorded("rtx4090-device-node-permissions")  # nvidia-smi -q -x answers, no NVML recorded
    assert found(smi_only, "driver-unreachable") == []


@pytest.mark.parametrize(
    ("slug", "cause"),
    [
        ("driver-library-mismatch-after-upgrade", "driver-library-mismatch"),
        ("h100-nvidia-smi-hangs", "probe-timeout"),
        ("wsl2-linux-driver-installed", "wsl-linux-driver-installed"),
        ("rtx3080-no-driver", "driver-missing"),
        ("docker-started-without-gpus", "container-no-gpu"),
    ],
)
@states("driver-unreachable", QUIET)
def test_driver_unreachable_defers_to_the_code_that_names_the_cause(slug, cause):
    """driver-unreachable.md: "Not said, because another code names the cause: driver-library-mismatch ...
    probe-timeout ... wsl-linux-driver-installed ... container-no-gpu ... driver-missing"."""
    found_codes = codes(recorded(slug))
    assert cause in found_codes and "driver-unreachable" not in found_codes


# --- driver-library-mismatch ------------------------------------------------------------------------------


@states("driver-library-mismatch", FIRES)
def test_mismatch_from_nvml_init_status():
    """driver-library-mismatch.md: "1. NVML's nvmlInit fails with NVML_ERROR_LIB_RM_VERSION_MISMATCH. gpudoctor
    records this as status lib_rm_version_mismatch." (and no driver-unreachable: "No cascade")"""
    snap = recorded("driver-library-mismatch-after-upgrade")
    snap.pop("commands")
    assert len(found(snap, "driver-library-mismatch")) == 1
    assert "driver-unreachable" not in codes(snap)


@states("driver-library-mismatch", FIRES)
def test_mismatch_from_nvidia_smi_text():
    """driver-library-mismatch.md: "2. The output of nvidia-smi contains Driver/library version mismatch." """
    snap = recorded("driver-library-mismatch-after-upgrade")
    snap.pop("nvml")
    assert len(found(snap, "driver-library-mismatch")) == 1


@pytest.mark.parametrize("library", ["551.54.14", "550.55.14", "550.54.15", "550.54"])
@states("driver-library-mismatch", FIRES)
def test_mismatch_when_module_and_nvml_library_differ_at_any_component(library):
    """driver-library-mismatch.md: "3. NVML works, yet the kernel module's version differs from the library's"
    - at the major, the minor, the patch, or a part missing."""
    snap = nvml_machine(driver="550.54.14")
    snap["nvml"]["driver_version"] = library
    snap["nvml"]["nvml_version"] = f"12.{library}"
    (f,) = found(snap, "driver-library-mismatch")
    quoted = " ".join(e.value for e in f.evidence)  # "The evidence quotes both versions."
    assert "550.54.14" in quoted and library in quoted


@states("driver-library-mismatch", QUIET)
def test_no_mismatch_when_module_and_library_agree():
    """driver-library-mismatch.md: rule 3 needs the versions to differ; equal ones are quiet."""
    assert found(nvml_machine(driver="550.54.14"), "driver-library-mismatch") == []


@states("driver-library-mismatch", FIRES, QUIET)
def test_the_library_version_is_nvmls_own_version_read_as_a_driver_version():
    """driver-library-mismatch.md: "NVML's own version 12.550.54.14 is read as driver 550.54.14; without it, the
    driver version NVML or nvidia-smi reports is used." """
    snap = nvml_machine(driver="550.54.14")
    snap["nvml"]["nvml_version"] = "12.550.54.15"  # the library says 550.54.15 whatever the driver field says
    assert len(found(snap, "driver-library-mismatch")) == 1
    snap["nvml"].pop("nvml_version")  # without it: NVML's driver version, equal to the module's
    assert found(snap, "driver-library-mismatch") == []
    snap["nvml"]["driver_version"] = "550.54.15"
    assert len(found(snap, "driver-library-mismatch")) == 1


@states("driver-library-mismatch", FIRES)
def test_the_module_version_comes_from_sys_module_without_proc():
    """driver-library-mismatch.md: "the kernel module's version comes from /proc/driver/nvidia/version, else
    /sys/module/nvidia/version"."""
    snap = nvml_machine(driver="550.54.14")
    snap["files"].pop("/proc/driver/nvidia/version")
    snap["files"]["/sys/module/nvidia/version"] = "550.54.15\n"
    assert len(found(snap, "driver-library-mismatch")) == 1
    snap["files"]["/sys/module/nvidia/version"] = "550.54.14\n"
    assert found(snap, "driver-library-mismatch") == []


# --- device-nodes-missing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("node", ["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0"])
@states("device-nodes-missing", FIRES)
def test_a_missing_node_fires(node):
    """device-nodes-missing.md: "Missing: /dev/nvidiactl absent, /dev/nvidia-uvm absent, or no numbered
    /dev/nvidiaN at all." """
    snap = nvml_machine()
    snap["files"].pop(node)
    assert len(found(snap, "device-nodes-missing")) == 1


@states("device-nodes-missing", FIRES)
def test_a_node_not_readable_and_writable_fires():
    """device-nodes-missing.md: "Denied: any /dev/nvidia* character device that is not both readable and writable
    by the user who ran gpudoctor." """
    for field in ("readable", "writable"):
        snap = nvml_machine()
        snap["files"]["/dev/nvidiactl"][field] = False
        assert len(found(snap, "device-nodes-missing")) == 1


@states("device-nodes-missing", QUIET)
def test_device_nodes_not_said_without_a_driver_on_wsl2_or_in_a_gpu_less_container():
    """device-nodes-missing.md: "Only when a driver is loaded ... Not said on WSL 2 ... Not said in a container
    that lacks /dev/nvidiactl or every /dev/nvidiaN"; with every node there and usable it is quiet too."""
    assert found(nvml_machine(), "device-nodes-missing") == []
    assert found(recorded("rtx3080-no-driver"), "device-nodes-missing") == []
    assert found(recorded("wsl2-linux-driver-installed"), "device-nodes-missing") == []
    assert found(recorded("docker-started-without-gpus"), "device-nodes-missing") == []


@states("device-nodes-missing", FIRES)
def test_a_container_with_the_gpu_nodes_but_no_uvm_is_still_reported():
    """device-nodes-missing.md: "A container that has those nodes but lacks /dev/nvidia-uvm is still reported
    here." """
    snap = nvml_machine()
    snap["files"]["/.dockerenv"] = ""
    snap["files"].pop("/dev/nvidia-uvm")
    assert len(found(snap, "device-nodes-missing")) == 1


@pytest.mark.parametrize("source", ["/sys/module/nvidia/version", "/proc/modules"])
@states("device-nodes-missing", FIRES)
def test_a_driver_is_loaded_by_any_of_its_three_signs(source):
    """device-nodes-missing.md: "a version in /proc/driver/nvidia/version or /sys/module/nvidia/version, or nvidia
    in /proc/modules" - each alone (no NVML) makes missing nodes a finding."""
    snap = recorded("rtx3080-no-driver")
    snap["files"][source] = "550.54.14\n" if source.startswith("/sys") else "nvidia 1 0 - Live 0x0\n"
    assert len(found(snap, "device-nodes-missing")) == 1


# --- container-no-gpu -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "marker",
    [
        ("env", "KUBERNETES_SERVICE_HOST", "10.0.0.1"),
        ("file", "/run/.containerenv", ""),
        ("file", "/.dockerenv", ""),
        ("env", "container", "podman"),
        ("file", "/proc/1/cgroup", "0::/kubepods/besteffort/pod1\n"),
    ],
    ids=["kubernetes", "podman", "docker", "container-env", "cgroup"],
)
@states("container-no-gpu", FIRES)
def test_each_container_sign_with_no_gpu_fires(marker):
    """container-no-gpu.md: "It is a container: one of these holds ... KUBERNETES_SERVICE_HOST ... /run/.containerenv
    ... /.dockerenv ... container= ... /proc/1/cgroup mentions kubepods, docker, libpod or lxc." """
    snap = recorded("docker-started-without-gpus")
    snap["files"].pop("/.dockerenv")
    kind, name, value = marker
    (snap["env"] if kind == "env" else snap["files"])[name] = value
    assert len(found(snap, "container-no-gpu")) == 1


@states("container-no-gpu", QUIET)
def test_not_a_container_is_not_container_no_gpu():
    """container-no-gpu.md: without any sign of a container, the check is silent (driver-missing speaks)."""
    snap = recorded("docker-started-without-gpus")
    snap["files"].pop("/.dockerenv")
    assert found(snap, "container-no-gpu") == []


@states("container-no-gpu", QUIET)
def test_a_container_with_the_gpu_nodes_is_not_container_no_gpu():
    """container-no-gpu.md: "It has no GPU: neither NVML nor nvidia-smi answers, and the container does not have
    both /dev/nvidiactl and a numbered /dev/nvidiaN." """
    snap = recorded("docker-started-without-gpus")
    snap["files"]["/dev/nvidiactl"] = {"type": "char", "readable": True, "writable": True}
    snap["files"]["/dev/nvidia0"] = {"type": "char", "readable": True, "writable": True}
    assert found(snap, "container-no-gpu") == []
    answering = nvml_machine()
    answering["files"]["/.dockerenv"] = ""
    assert found(answering, "container-no-gpu") == []


@states("container-no-gpu", FIRES, QUIET)
def test_a_gpu_was_meant_to_be_here():
    """container-no-gpu.md: "A GPU was meant to be here: the host's PCI bus, as the container sees it, shows an
    NVIDIA GPU, or the bus could not be read and NVIDIA_VISIBLE_DEVICES is set. A bus that was read and shows no
    NVIDIA GPU wins over the variable ... When neither holds, this check stays silent and gpu-none covers the
    machine." """
    no_var = recorded("docker-started-without-gpus")
    no_var["env"].pop("NVIDIA_VISIBLE_DEVICES")
    assert len(found(no_var, "container-no-gpu")) == 1  # the bus shows the A100
    empty_bus = recorded("docker-started-without-gpus")  # NVIDIA_VISIBLE_DEVICES=all, as every CUDA image sets
    for k in [k for k in empty_bus["files"] if k.startswith("/sys/bus/pci/devices/0000:07")]:
        empty_bus["files"].pop(k)
    assert found(empty_bus, "container-no-gpu") == []
    unread = recorded("docker-started-without-gpus")
    for k in [k for k in unread["files"] if k.startswith("/sys/bus/pci")]:
        unread["files"].pop(k)
    unread["commands"] = {"lspci -nn": {"rc": 1, "stdout": "", "stderr": "lspci: Cannot find any working access method."}}
    assert len(found(unread, "container-no-gpu")) == 1
    unread["env"].pop("NVIDIA_VISIBLE_DEVICES")
    assert found(unread, "container-no-gpu") == []


# --- gpu-none ---------------------------------------------------------------------------------------------


@states("gpu-none", FIRES)
def test_gpu_none_when_the_bus_has_no_nvidia_display_function():
    """gpu-none.md: "PCI bus: every /sys/bus/pci/devices/*/vendor equal to 0x10de, keeping only display-class
    functions. NVSwitch bridges (0x0680xx) and the GPU's HDMI audio function (0x0403xx) do not count." """
    snap = recorded("ci-docker-cuda13-no-gpu")
    assert len(found(snap, "gpu-none")) == 1
    bare = recorded("rtx3080-no-driver")
    bare["commands"].pop("lspci -nn")
    for cls in ("0x068000\n", "0x040300\n"):
        bare["files"]["/sys/bus/pci/devices/0000:01:00.0/class"] = cls
        assert len(found(bare, "gpu-none")) == 1, cls


@states("gpu-none", QUIET)
def test_gpu_none_is_not_said_with_a_gpu_on_wsl_or_when_the_bus_could_not_be_read():
    """gpu-none.md: a display-class NVIDIA function counts; "Not said on WSL"; "Not said when the bus could not be
    read (permission denied, lspci failed or is missing)"."""
    assert found(recorded("rtx3080-no-driver"), "gpu-none") == []
    assert found(recorded("wsl1"), "gpu-none") == []
    unread = recorded("rtx3080-no-driver")
    for k in [k for k in unread["files"] if k.startswith("/sys/bus/pci")]:
        unread["files"].pop(k)
    unread["commands"]["lspci -nn"] = {"rc": 1, "stdout": "", "stderr": "pcilib: Cannot open /sys/bus/pci/devices"}
    found_codes = codes(unread)
    assert "gpu-none" not in found_codes and "probe-failed" in found_codes


@states("driver-nouveau", FIRES)
def test_without_sysfs_lspci_kernel_driver_in_use_names_nouveau():
    """driver-nouveau.md: "The bound driver is read from the /sys/bus/pci/devices/<slot>/driver link, or from "Kernel
    driver in use" in lspci -nnk when there is no sysfs." """
    snap = recorded("rtx3080-nouveau")
    snap["files"] = {k: v for k, v in snap["files"].items() if not k.startswith("/sys/")}
    snap["files"]["/proc/modules"] = "snd_hda_intel 61440 0 - Live 0x0\n"
    snap["commands"] = {
        "lspci -nnk": {
            "rc": 0,
            "stderr": "",
            "stdout": "01:00.0 VGA compatible controller [0300]: NVIDIA Corporation GA102 [GeForce RTX 3080] [10de:2206] (rev a1)\n"
            "\tKernel driver in use: nouveau\n\tKernel modules: nvidiafb, nouveau\n",
        }
    }
    assert len(found(snap, "driver-nouveau")) == 1
    snap["commands"]["lspci -nnk"]["stdout"] = snap["commands"]["lspci -nnk"]["stdout"].replace(
        "\tKernel driver in use: nouveau\n", ""
    )
    assert found(snap, "driver-nouveau") == []


@states("driver-missing", FIRES)
def test_the_detail_names_the_driver_the_gpu_is_bound_to_instead():
    """driver-missing.md: "The detail names the driver the GPU is bound to instead, if any (for example vfio-pci on a
    host that passes the GPU to a VM)." """
    snap = recorded("rtx3080-no-driver")
    snap["files"]["/sys/bus/pci/devices/0000:01:00.0/driver"] = {"link": "../../../bus/pci/drivers/vfio-pci"}
    (f,) = found(snap, "driver-missing")
    assert "vfio-pci" in f.detail + " ".join(e.value for e in f.evidence)


@states("container-no-gpu", FIRES)
def test_the_container_signs_are_tested_in_their_order():
    """container-no-gpu.md: "It is a container: one of these holds, tested in this order: KUBERNETES_SERVICE_HOST is set
    (kubernetes); /run/.containerenv exists (podman); /.dockerenv exists (docker)" - the first that holds names it."""
    snap = recorded("docker-started-without-gpus")  # /.dockerenv
    snap["files"]["/run/.containerenv"] = ""
    (f,) = found(snap, "container-no-gpu")
    assert "podman" in f.title
    snap["env"]["KUBERNETES_SERVICE_HOST"] = "10.0.0.1"
    (f,) = found(snap, "container-no-gpu")
    assert "kubernetes" in f.title and f.remediation is not None and not f.remediation.requires_root


@states("gpu-none", FIRES, QUIET)
def test_without_sysfs_lspci_stands_in():
    """gpu-none.md: "Without sysfs, lspci -nnk (then lspci -nn, then lspci) stands in." """
    snap = recorded("rtx3080-no-driver")  # lspci -nn shows the RTX 3080
    snap["files"] = {k: v for k, v in snap["files"].items() if not k.startswith("/sys/")}
    assert found(snap, "gpu-none") == [] and "driver-missing" in codes(snap)
    snap["commands"]["lspci -nn"]["stdout"] = "00:02.0 VGA compatible controller [0300]: Intel Corporation UHD 630 [8086:3e92]\n"
    assert len(found(snap, "gpu-none")) == 1


@states("probe-failed", FIRES)
def test_a_missing_or_crashed_nvml_binding_is_a_probe_failure():
    """probe-failed.md: "NVML: NVML crashed, or gpudoctor's own Python binding is missing, or it is the wrong package." """
    for status in ("binding_missing", "crash"):
        snap = nvml_machine()
        snap["nvml"] = {"status": status, "error": "No module named 'pynvml'"}
        snap["commands"] = {"nvidia-smi -q -x": recorded("rtx4090-device-node-permissions")["commands"]["nvidia-smi -q -x"]}
        (f,) = found(snap, "probe-failed")
        assert any(e.source == "nvml" for e in f.evidence), status
