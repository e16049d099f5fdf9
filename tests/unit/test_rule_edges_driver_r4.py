"""Rules of the driver, health, platform, reported-text, remedy, memory, Windows and doctor checks at their edges.

Round four of the mutation work (docs/testing.md, "Mutation testing"): mutants of these modules drawn at random
(not from the published or held-out samples) that the suite let through. Each test asserts what a user sees, the
finding, what it names, its evidence and the exact commands of its fix, on a recorded machine (tests/machines)
with one fact changed at a time, or on pasted text read as `gpudoctor check --from` reads it, and where a rule
has a bound it pins both sides.
"""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import Process
from gpudoctor.model import Severity
from gpudoctor.probed import Found
from tests.conftest import ROOT
from tests.unit.test_rule_edges_checks import facts_of, findings, lines, replace
from tests.unit.test_rule_edges_checks_v2 import from_text

HEALTHY = "h100x8-driver565-torch221-cu121"
UNREACHABLE = "h100-driver-unreachable"


def with_gpu(facts, index=0, **changes):
    """facts with one GPU's fields changed (the others as recorded)."""
    gpus = tuple(dataclasses.replace(g, **changes) if g.index == index else g for g in facts.driver.gpus)
    return replace(facts, driver={"gpus": gpus})


def evidence(finding):
    return [(e.source, e.value) for e in finding.evidence]


# --- driver-library-mismatch ------------------------------------------------------------------------------


def test_a_mismatch_in_a_container_reboots_the_host_as_root():
    """tests/machines/h100x8-driver565-torch221-cu121 in a Docker container whose NVML loads a 550.144 library
    beside the host's 565.57.01 module: the fix is on the host, and rebooting a machine is root's (sudo reboot),
    only where nvidia-smi fails on the host as well."""
    facts = replace(facts_of(HEALTHY), driver={"nvml_version": "12.550.144"}, platform={"container": "docker"})
    (f,) = findings(facts, "driver-library-mismatch")
    assert f.remediation.where == "the host"
    assert lines(f) == [
        "nvidia-smi  # on the host",
        "cat /proc/driver/nvidia/version  # the module loaded now",
        "docker run --rm --gpus all '<image>' sh -c 'ldconfig -p | grep -E \"libnvidia-ml|libcuda\"'  # read-only: the "
        "NVML and libcuda the image's loader finds; a version other than the host's module is the image's own",
        "docker commit '<container>' '<new-image>'  # only where the host and a new container work: only if the "
        "container holds changes worth keeping",
        "docker rm -f '<container>'",
        "docker run --gpus all '<image>'  # the committed image, or the original one; with your usual options",
    ]
    alternative = f.remediation.alternative
    assert alternative is not None and alternative.where == "the host"
    assert [c.argv for c in alternative.commands] == [("cat", "/proc/driver/nvidia/version"), ("reboot",)]
    assert all(c.root for c in alternative.commands[1:])


# --- driver-unreachable -----------------------------------------------------------------------------------


def test_an_unreachable_driver_cites_nvidia_smi_only_where_it_ran():
    """tests/machines/h100-driver-unreachable: NVML answers Unknown Error and nvidia-smi fails; both are evidence,
    with the loaded module. Where nvidia-smi is not installed at all (status missing) it said nothing: neither
    the evidence nor the detail may cite it."""
    base = facts_of(UNREACHABLE)
    (f,) = findings(base, "driver-unreachable")
    assert evidence(f) == [
        ("nvml", "unknown: Unknown Error"),
        (
            "cmd:nvidia-smi",
            "failed: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
            "latest NVIDIA driver is installed and running.",
        ),
        ("file:/proc/driver/nvidia/version", "565.57.01"),
    ]
    assert f.detail == "NVML answers unknown and nvidia-smi failed; no GPU can be used until this is solved."
    (f,) = findings(replace(base, driver={"smi_status": "missing", "smi_error": None}), "driver-unreachable")
    assert evidence(f) == [("nvml", "unknown: Unknown Error"), ("file:/proc/driver/nvidia/version", "565.57.01")]
    assert f.detail == "NVML answers unknown; no GPU can be used until this is solved."


def test_no_permission_is_the_users_groups_on_a_machine_and_the_containers_start_in_a_container():
    """NVML's NO_PERMISSION with the module loaded: on a machine the user is missing from the group that owns the
    device nodes (video); in a container whose nodes are all present the container was handed nodes by hand, and
    the fix is to start it through the NVIDIA container toolkit, on the host."""
    base = replace(facts_of(UNREACHABLE), driver={"nvml_status": "no_permission", "nvml_error": "Insufficient Permissions"})
    (f,) = findings(base, "driver-unreachable")
    assert (f.remediation.component, f.remediation.where) == ("driver", "")
    assert lines(f) == ["ls -l /dev/ | grep nvidia", "sudo usermod -aG video '<user>'"]
    (c,) = findings(replace(base, platform={"container": "docker"}), "driver-unreachable")
    assert (c.remediation.component, c.remediation.where) == ("container", "the host")
    assert c.remediation.summary.startswith("The container's device nodes are not accessible")
    # `--gpus all` first; configuring docker (its restart stops every container) only as the alternative (issue 27, kind 6)
    assert lines(c) == ["docker run --gpus all '<image>'  # with your usual options"]
    # ...which installs the toolkit first (nothing shows it on the host): the host's family is not known from inside
    # the container, so it is asked (and whether docker is the snap) before the apt route.
    # (after the read-only check of the toolkit's hook, which dockerd registers its GPU driver from)
    words = [x.words for x in c.remediation.alternative.commands][1:]
    assert c.remediation.alternative.commands[0].words == ("command", "-v", "nvidia-container-runtime-hook")
    assert words[:2] == [("cat", "/etc/os-release"), ("snap", "list", "docker")]
    assert words[5:] == [
        ("apt-get", "update"),
        ("apt-get", "install", "-y", "nvidia-container-toolkit"),
        ("nvidia-ctk", "runtime", "configure", "--runtime=docker"),
        ("systemctl", "restart", "docker"),
        ("docker", "run", "--gpus", "all", "<image>"),
    ]


def test_a_missing_driver_library_in_wsl_is_the_windows_drivers():
    """tests/machines/wsl2-linux-driver-installed without the Linux driver package (only /usr/lib/wsl/lib's libcuda
    in the cache) and NVML's library not found: in WSL 2 the libraries come from the Windows driver, so the fix is
    in Windows (update the driver and WSL, restart WSL). Any other NVML failure there gets the kernel-log advice."""
    wsl = dataclasses.replace(
        replace(facts_of("wsl2-linux-driver-installed"), driver={"nvml_status": "library_not_found"}),
        ldconfig=Found({"libcuda.so.1": ("/usr/lib/wsl/lib/libcuda.so.1",)}, "cmd:ldconfig -p"),
    )
    (f,) = findings(wsl, "driver-unreachable")
    assert (f.remediation.component, f.remediation.where) == ("driver", "Windows")
    assert lines(f) == ["ls -l /usr/lib/wsl/lib/", "wsl --update  # in Windows", "wsl --shutdown  # in Windows"]
    (other,) = findings(replace(wsl, driver={"nvml_status": "unknown"}), "driver-unreachable")
    assert other.remediation.where != "Windows"
    assert other.remediation.summary.startswith("Read the kernel log")


# --- health -----------------------------------------------------------------------------------------------


def test_a_gpu_lost_is_diagnosed_with_the_kernel_log_read_as_root():
    """tests/machines/h100x2-gpu-fallen-off-bus: before the reboot, collect the driver's state and read the kernel
    log (dmesg needs root where kernel.dmesg_restrict is set, the default on Ubuntu and Debian), then lspci the
    slot and reboot."""
    (f,) = findings(facts_of("h100x2-gpu-fallen-off-bus"), "gpu-lost")
    assert lines(f) == [
        "sudo nvidia-bug-report.sh  # writes nvidia-bug-report.log.gz here; before the reboot",
        "sudo dmesg | grep -i -E 'nvrm|xid|aer:'",
        "lspci -s 0000:2a:00.0  # '(rev ff)': the GPU does not answer on the bus",
        "sudo reboot  # drain the node first on a cluster",
    ]


def test_a_gpu_is_busy_from_five_percent_utilisation():
    """A PCIe link below its generation is judged only while the GPU works (GPUs lower the generation when idle to
    save power). Busy is a utilisation of 5% or more: at 5% a Gen4 link on a Gen5 GPU is a warning, at 4% (no
    process, no idle reason, no performance state) the GPU is idle and the slower link says nothing."""
    base = with_gpu(facts_of(HEALTHY), throttle_reasons=(), pcie_gen_current=4)
    (f,) = findings(with_gpu(base, utilization_gpu_percent=5), "pcie-link-degraded")
    assert f.severity is Severity.WARNING
    assert f.title == "GPU 0's PCIe link runs below its maximum while busy: Gen4 of Gen5"
    assert findings(with_gpu(base, utilization_gpu_percent=4), "pcie-link-degraded") == []


def test_memory_held_names_the_five_largest_holders():
    """Six processes hold GPU 0's memory: the finding names the five that hold the most, largest first, and leaves
    out the smallest, so the line stays readable however many processes there are."""
    gib = 1024**3
    procs = tuple(Process(1000 + i, f"job{i}", size * gib) for i, size in enumerate((3, 30, 1, 20, 10, 5)))
    (f,) = findings(with_gpu(facts_of(HEALTHY), processes=procs, memory_used_bytes=69 * gib), "gpu-memory-held")
    assert (
        "by job1 (pid 1001, 30.0 GiB), job3 (pid 1003, 20.0 GiB), job4 (pid 1004, 10.0 GiB), job5 (pid 1005, 5.0 GiB), "
        "job0 (pid 1000, 3.0 GiB). A new job" in f.detail
    )
    assert "job2" not in f.detail


# --- the doctor's own limits --------------------------------------------------------------------------------


def test_an_nvml_binding_that_crashed_or_is_missing_is_said_with_its_error_else_its_status():
    """gpudoctor's own NVML binding crashed or is not installed: probe-failed names NVML and says why, with the
    binding's error text where there is one and the status itself where there is none (never 'None')."""
    base = facts_of(HEALTHY)
    for status in ("crash", "binding_missing"):
        (f,) = findings(replace(base, driver={"nvml_status": status, "nvml_error": None}), "probe-failed")
        assert f.title == "gpudoctor could not see: NVML"
        assert f.detail == f"The diagnosis of these areas may be incomplete. NVML: library-error ({status})"
        assert evidence(f) == [("nvml", f"library-error: {status}")]
    (f,) = findings(replace(base, driver={"nvml_status": "crash", "nvml_error": "NVMLError: boom"}), "probe-failed")
    assert evidence(f) == [("nvml", "library-error: NVMLError: boom")]


# --- what pasted text reports ----------------------------------------------------------------------------

DOCKER_RUN = "$ docker run -it pytorch/pytorch python -c 'import torch'\n"


def test_a_container_started_without_gpus_is_said_only_where_the_gpu_is_shown_unusable_for_want_of_a_device():
    """`docker run` without --gpus, then CUDA finding no device: the container has no GPU (container-no-gpu). The
    same run followed by NVML's version mismatch or Unknown Error shows a GPU that was reached and failed another
    way: those findings, and not container-no-gpu."""
    found, _ = run_checks(from_text(DOCKER_RUN + "RuntimeError: no CUDA-capable device is detected\n"))
    assert [f.code for f in found] == ["container-no-gpu"]
    found, _ = run_checks(from_text(DOCKER_RUN + "Failed to initialize NVML: Driver/library version mismatch\n"))
    assert [f.code for f in found] == ["driver-library-mismatch"]
    found, _ = run_checks(from_text(DOCKER_RUN + "Failed to initialize NVML: Unknown Error\n"))
    assert [f.code for f in found] == ["driver-unreachable"]


def test_an_extension_build_is_refused_only_for_another_cuda_major():
    """torch.utils.cpp_extension refuses a toolkit of another CUDA major than PyTorch's and only warns for another
    minor (its _check_cuda_version): 11.8 against 12.1 is a finding, 12.1 against 12.4 is none."""
    said = (
        "The detected CUDA version ({}) mismatches the version that was used to compile\n"
        "PyTorch ({}). Please make sure to use the same CUDA versions.\n"
    )
    (f,) = findings(from_text(said.format("11.8", "12.1")), "toolkit-torch-major-mismatch")
    assert f.title == "the CUDA toolkit that builds extensions is 11.8, PyTorch was built with CUDA 12.1"
    assert findings(from_text(said.format("12.1", "12.4")), "toolkit-torch-major-mismatch") == []


def test_wsl_gpu_access_blocked_is_a_linux_driver_inside_wsl_only_where_the_text_shows_one_installed():
    """tests/pasted/cases/wsl-9166 (https://github.com/microsoft/WSL/issues/9166) in short: NVML inside WSL 2 says
    'GPU access blocked by the operating system'. With an apt install of a Linux driver package shown, that package
    is the cause (wsl-linux-driver-installed, naming it); blocked alone may be the Windows side, an old Windows
    driver, so it is not said."""
    blocked = "Ubuntu 22.04 in WSL2\n$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system\n"
    assert findings(from_text(blocked), "wsl-linux-driver-installed") == []
    (f,) = findings(from_text(blocked + "$ sudo apt-get install -y nvidia-utils-535\n"), "wsl-linux-driver-installed")
    assert "(nvidia-utils-535)" in f.detail
    assert evidence(f) == [
        ("pasted", "$ sudo apt-get install -y nvidia-utils-535"),
        ("pasted", "Failed to initialize NVML: GPU access blocked by the operating system"),
    ]


# --- Windows ------------------------------------------------------------------------------------------------


def test_the_driver_store_listing_marks_the_package_in_use_and_only_it():
    """Two NVIDIA display packages in the driver store, the running driver 552.22 (31.0.15.5222): the evidence
    lists both, and only oem41.inf, the one in use, is marked so."""
    from tests.unit.test_windows_checks import _block, _findings, _machine

    store = _block("oem12.inf", "31.0.15.3667") + _block("oem41.inf", "31.0.15.5222")
    (f,) = _findings(_machine(store), "windows-driver-store-stale")
    assert evidence(f) == [
        ("cmd:pnputil /enum-drivers", "oem12.inf (nv_dispi.inf): 31.0.15.3667 = driver 536.67, dated 01/01/2024"),
        ("cmd:pnputil /enum-drivers", "oem41.inf (nv_dispi.inf): 31.0.15.5222 = driver 552.22, dated 01/01/2024 (in use)"),
    ]


def test_a_dll_is_found_elsewhere_only_in_a_folder_that_holds_it():
    """TensorFlow 2.10.1 on native Windows needs cudart64_110.dll and cudnn64_8.dll. Only cuDNN is installed, in its
    own folder that is not on PATH: cuDNN is said to be there, and the CUDA runtime, which that folder does not hold,
    is in no folder at all (so the fix installs the CUDA 11.2 toolkit instead of a PATH line)."""
    from tests.unit.test_windows_checks import _findings, _machine

    snap = _machine(
        "",
        env={"PATH": "C:\\Windows\\system32"},
        dirs={"C:\\Program Files\\NVIDIA\\CUDNN\\v8.1\\bin": ["cudnn64_8.dll"]},
        python={
            "version": "3.10.11",
            "executable": "C:\\Python310\\python.exe",
            "site_packages": ["C:\\Python310\\Lib\\site-packages"],
            "distributions": {"tensorflow": "2.10.1"},
        },
    )
    (f,) = _findings(snap, "windows-dll-missing")
    assert "cudart64_110.dll is in none of the" in f.detail
    assert "cudnn64_8.dll is in C:\\Program Files\\NVIDIA\\CUDNN\\v8.1\\bin, which is not on PATH" in f.detail
    assert evidence(f) == [
        ("dll-search", "cudart64_110.dll: not found in the DLL search path"),
        ("dll-search", "cudnn64_8.dll: not found in the DLL search path"),
        ("dll-search", "cudnn64_8.dll: found in C:/Program Files/NVIDIA/CUDNN/v8.1/bin (cudnn, not searched)"),
    ]
    assert f.remediation.summary.startswith("Install the CUDA 11.2 toolkit")
    assert f.remediation.commands == ()


# --- the shared fix commands (planner/remedy.py) ---------------------------------------------------------------


def _gpus_cc(facts, *ccs):
    """facts whose GPUs have these compute capabilities (one per GPU, the rest dropped)."""
    gpus = tuple(dataclasses.replace(g, compute_capability=cc) for g, cc in zip(facts.driver.gpus, ccs, strict=False))
    return replace(facts, driver={"gpus": gpus})


def test_the_open_kernel_modules_fit_from_turing_on_and_only_where_every_gpu_is_turing_or_newer():
    """NVIDIA's open kernel modules drive Turing (compute capability 7.5) and newer only (NVIDIA Driver Installation
    Guide, "Kernel Modules", remedy.SOURCE_DRIVER_GUIDE): 7.5 fits, 7.0 (Volta) does not, and one Volta GPU beside
    an H100 rules them out for the machine. Without a compute capability the loaded module's own flavour answers
    (open: they fit; proprietary: unknown), unless the matrix knows the GPU by name."""
    from gpudoctor.checks import Context
    from gpudoctor.planner.remedy import open_modules_fit

    base = facts_of(HEALTHY)
    assert open_modules_fit(_gpus_cc(base, "7.5")) is True
    assert open_modules_fit(_gpus_cc(base, "7.0")) is False
    assert open_modules_fit(_gpus_cc(base, "9.0", "7.0")) is False
    assert open_modules_fit(_gpus_cc(base, "9.0", "8.6")) is True
    unnamed = _gpus_cc(base, None)
    assert open_modules_fit(unnamed) is True  # the loaded module is the open flavour (its /proc version line)
    module = base.kernel.proc_driver
    proprietary = replace(
        unnamed, kernel={"proc_driver": Found(dataclasses.replace(module.value, flavor="proprietary"), module.source)}
    )
    assert open_modules_fit(proprietary) is None
    assert open_modules_fit(proprietary, Context()) is True  # the matrix: an H100 is compute capability 9.0


def test_driver_install_per_distribution_branch_and_module_flavour():
    """The driver's install commands, exactly, per family (remedy.py's docstring, from NVIDIA's installation guide
    and the distributions' archives): Ubuntu's nvidia-driver-<branch>[-open] or ubuntu-drivers; Debian's
    cuda-drivers-<branch> (NVIDIA's repository) or its own nvidia-driver; RHEL's dnf module streams (open, else
    the proprietary <branch>-dkms); Arch's nvidia-open only for GPUs the open modules drive; nothing known for
    SUSE or an unknown distribution. A .run installation is removed first, in the same step."""
    from gpudoctor.cmdline import render_all
    from gpudoctor.facts import Distro
    from gpudoctor.planner.remedy import driver_install

    turing, pascal = _gpus_cc(facts_of(HEALTHY), "7.5"), _gpus_cc(facts_of(HEALTHY), "6.0")

    def cmds(facts, distro, branch=None):
        # Each command with its note (data) after it, as lines(f) gives them.
        commands = driver_install(replace(facts, platform={"distro": distro}), branch)
        return [render_all([c], "posix")[-1] + (f"  # {c.note}" if c.note else "") for c in commands]

    ubuntu, debian = Distro(id="ubuntu", id_like="debian"), Distro(id="debian")
    rocky, arch, suse = (
        Distro(id="rocky", id_like="rhel centos fedora"),
        Distro(id="arch"),
        Distro(id="opensuse-leap", id_like="suse"),
    )
    update = "sudo apt-get update"
    assert cmds(turing, ubuntu, "550") == [update, "sudo apt-get install -y nvidia-driver-550-open  # Ubuntu's archive"]
    assert cmds(pascal, ubuntu, "550") == [update, "sudo apt-get install -y nvidia-driver-550  # Ubuntu's archive"]
    assert cmds(turing, ubuntu) == [update, "sudo ubuntu-drivers install  # the branch Ubuntu recommends for this GPU"]
    assert cmds(turing, debian, "550") == [update, "sudo apt-get install -y cuda-drivers-550  # NVIDIA's CUDA repository"]
    assert cmds(pascal, debian) == [update, "sudo apt-get install -y nvidia-driver  # Debian's non-free component"]
    enable = "sudo dnf module enable -y nvidia-driver:{}  # NVIDIA's CUDA repository"
    assert cmds(turing, rocky, "550") == [enable.format("550-open"), "sudo dnf install -y nvidia-open"]
    assert cmds(turing, rocky) == [enable.format("open-dkms"), "sudo dnf install -y nvidia-open"]
    proprietary = "sudo dnf module install -y nvidia-driver:{}  # NVIDIA's CUDA repository; proprietary modules"
    assert cmds(pascal, rocky, "550") == [proprietary.format("550-dkms")]
    # no branch asked for: a Pascal GPU's last branch, R580 (h160: "latest" follows the newest, which drops Pascal)
    assert cmds(pascal, rocky) == [proprietary.format("580-dkms")]
    assert cmds(turing, arch) == ["sudo pacman -S --needed nvidia-open"]
    assert cmds(pascal, arch) == []
    assert cmds(turing, suse, "550") == []
    run = replace(turing, kernel={"run_installer": True})
    assert cmds(run, ubuntu, "550") == [
        "sudo nvidia-uninstall --silent  # removes the .run installation first",
        update,
        "sudo apt-get install -y nvidia-driver-550-open  # Ubuntu's archive",
    ]
    assert cmds(run, suse, "550") == []  # no recipe to replace it with: the .run installation stays


def test_restarts_reloads_and_container_gpu_access_per_system_and_runtime():
    """Restart: `reboot` on Linux, `shutdown /r /t 0` on Windows (cmd.exe and PowerShell both run it), both as root. Reloading the modules
    unloads the dependants first (nvidia_uvm, nvidia_drm, nvidia_modeset hold nvidia). A container restarts with
    its runtime's command (a Kubernetes pod is deleted so its controller starts a new one) and gets the GPU
    through the NVIDIA container toolkit: Docker's --gpus, Podman's CDI device, Kubernetes' resource limit."""
    from gpudoctor.cmdline import render_all
    from gpudoctor.planner.remedy import (
        container_gpu_commands,
        docker_runtime_setup,
        reboot,
        reload_modules,
        restart_container,
        where_run,
    )

    def with_notes(commands):
        # Each command with its note (data) after it; where a note is printed is gpudoctor.cmdline's to decide.
        return [render_all([c], "posix")[-1] + (f"  # {c.note}" if c.note else "") for c in commands]

    base = facts_of(HEALTHY)
    assert render_all(reboot(), "posix") == ["sudo reboot"]
    assert render_all(reboot(base), "posix") == ["sudo reboot"]
    assert render_all(reboot(replace(base, platform={"system": "Windows"})), "powershell") == [
        "# as Administrator",
        "shutdown /r /t 0",
    ]
    assert with_notes(reload_modules()) == [
        "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia  # or, without a reboot: stop GPU jobs and the display "
        "manager first",
        "sudo modprobe nvidia",
    ]
    restarts = {r: with_notes((restart_container(r),)) for r in ("docker", "podman", "kubernetes", None)}
    assert restarts == {
        "docker": ["docker restart '<container>'"],
        "podman": ["podman restart '<container>'"],
        "kubernetes": ["kubectl delete pod '<pod>'  # its controller starts a new one"],
        None: ["docker restart '<container>'"],
    }
    docker = ["docker run --gpus all '<image>'  # with your usual options"]
    assert with_notes(container_gpu_commands("docker")) == docker
    assert with_notes(container_gpu_commands(None)) == docker
    # Nothing shows the NVIDIA Container Toolkit installed: NVIDIA's repository, its package, then docker's runtime.
    assert [c.words for c in docker_runtime_setup(base)][-5:] == [
        ("apt-get", "update"),
        ("apt-get", "install", "-y", "nvidia-container-toolkit"),
        ("nvidia-ctk", "runtime", "configure", "--runtime=docker"),
        ("systemctl", "restart", "docker"),
        ("docker", "run", "--gpus", "all", "<image>"),
    ]
    assert with_notes(docker_runtime_setup(base)[-2:]) == [
        "sudo systemctl restart docker  # stops every running container on this host",
        "docker run --gpus all '<image>'  # with your usual options",
    ]
    assert with_notes(container_gpu_commands("podman")) == [
        "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml",
        "podman run --device nvidia.com/gpu=all '<image>'  # with your usual options",
    ]
    assert with_notes(container_gpu_commands("kubernetes")) == [
        "kubectl describe node '<node>' | grep nvidia.com/gpu  # the node must offer nvidia.com/gpu; the pod asks for "
        "it in resources.limits"
    ]
    assert where_run(base) == ""
    assert where_run(replace(base, platform={"container": "podman"})) == "the host"


def test_pip_runs_in_the_probed_interpreter_else_the_systems_python():
    """pip is run as `<the probed interpreter> -m pip`, so it installs where the framework was found; without a
    probed interpreter, `python3` on Linux and `python` on Windows (which has no python3 by default)."""
    from gpudoctor.cmdline import render_all
    from gpudoctor.planner.remedy import pip
    from gpudoctor.probed import Unknown

    base = facts_of(HEALTHY)
    assert render_all((pip(base, "install", "torch==2.3.1"),), "posix") == ["/usr/bin/python3 -m pip install torch==2.3.1"]
    unprobed = replace(base, frameworks={"python": Unknown("not-recorded", "no python", "python")})
    assert render_all((pip(unprobed, "list"),), "posix") == ["python3 -m pip list"]
    windows = replace(unprobed, platform={"system": "Windows"})
    assert render_all((pip(windows, "list"),), "powershell") == ["python -m pip list"]


# --- gpu presence, nouveau, probe timeouts -----------------------------------------------------------------------


def test_in_wsl2_the_dxg_node_is_the_gpu():
    """tests/machines/wsl2-linux-driver-installed with a CPU-only PyTorch (2.13.0+cpu, from
    rtx3060-laptop-torch-cpu-build): WSL 2 hides the PCI bus and NVML lists no GPU there, and /dev/dxg (the GPU
    paravirtualisation node) is the one sign of a GPU; with it the CPU build is a finding, without it there is no
    GPU to miss."""
    wsl = replace(
        facts_of("wsl2-linux-driver-installed"), frameworks={"torch": facts_of("rtx3060-laptop-torch-cpu-build").frameworks.torch}
    )
    (f,) = findings(wsl, "framework-cpu-build")
    assert f.title == "PyTorch 2.13.0+cpu is a CPU-only build, so it cannot use the NVIDIA GPU"
    assert findings(replace(wsl, kernel={"device_nodes": ()}), "framework-cpu-build") == []


def test_nouveau_is_also_kept_off_the_kernel_command_line_on_rhel_only():
    """tests/machines/rtx3080-nouveau: on Ubuntu the blacklist file and update-initramfs suffice; on RHEL-family
    systems rd.driver.blacklist keeps nouveau out of the initramfs only, so grubby adds modprobe.blacklist and
    rd.driver.blacklist to every boot entry (NVIDIA's installation guide), after dracut rebuilds the initramfs."""
    from gpudoctor.facts import Distro

    base = facts_of("rtx3080-nouveau")
    # The format's backslash outside single quotes, where every POSIX shell and fish read it alike.
    blacklist = "printf '%s\\n' 'blacklist nouveau' 'options nouveau modeset=0' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf"
    # Secure Boot first: on, the module the install builds must be signed and its key enrolled before it loads
    secure_boot = "mokutil --sb-state  # Secure Boot on: the NVIDIA module must be signed and its key enrolled"
    (f,) = findings(base, "driver-nouveau")
    assert lines(f) == [
        secure_boot,
        blacklist,
        "sudo update-initramfs -u",
        "sudo apt-get update",
        "sudo ubuntu-drivers install  # the branch Ubuntu recommends for this GPU",
        "sudo reboot",
    ]
    (f,) = findings(replace(base, platform={"distro": Distro(id="rocky", id_like="rhel centos fedora")}), "driver-nouveau")
    assert lines(f) == [
        secure_boot,
        blacklist,
        "sudo dracut --force",
        "sudo grubby --update-kernel=ALL '--args=modprobe.blacklist=nouveau rd.driver.blacklist=nouveau'",
        # nouveau holds the GPU, so NVML names no GPU and no compute capability: the flavour is asked for, never
        # guessed (issue 27, kind 9: the open modules cannot drive a GPU before Turing)
        "lspci -nn | grep -i nvidia  # which GPU: Turing and newer - GTX 16, RTX 20, T4 on - take the open modules, "
        "older ones the proprietary",
        "sudo dnf module install -y '<nvidia-driver-stream>'  # NVIDIA's CUDA repository: nvidia-driver:580-dkms "
        "before Turing (580 is the last branch for Maxwell, Pascal and Volta, 470 for Kepler; the proprietary modules), "
        "nvidia-driver:open-dkms from Turing on",
        "sudo reboot",
    ]


def test_nouveau_with_no_known_driver_install_prints_no_blacklist_and_no_reboot():
    """tests/machines/rtx3080-nouveau on a distribution with no install recipe (Gentoo): a blacklist and a reboot alone
    boot into no NVIDIA driver (issue 27, kind 9: plans10 1004's first run printed exactly that), so the step prints no
    command and the prose says where the driver comes from. Quiet twin: the recorded Ubuntu machine keeps its whole
    route, the install before the reboot (test above)."""
    from gpudoctor.facts import Distro

    (f,) = findings(replace(facts_of("rtx3080-nouveau"), platform={"distro": Distro(id="gentoo")}), "driver-nouveau")
    assert lines(f) == [] and "NVIDIA's installer" in f.remediation.summary
    (f,) = findings(facts_of("rtx3080-nouveau"), "driver-nouveau")
    assert [ln.split("  #")[0] for ln in lines(f)][-2:] == ["sudo ubuntu-drivers install", "sudo reboot"]


def _k40c():
    """tests/pasted/cases/pytorch-31319-k40c-sm35-torch131-no-kernel-image: a Tesla K40c (Kepler, 3.5) as pasted."""
    return from_text((ROOT / "tests/pasted/cases/pytorch-31319-k40c-sm35-torch131-no-kernel-image/report.txt").read_text())


@pytest.mark.parametrize(
    ("case", "stream"),
    [
        # tests/machines: a Tesla P100 (Pascal, 6.0): R580 is the last branch that drives it; "latest" follows the newest
        ("p100-driver510-torch-cu121", "nvidia-driver:580-dkms"),
        # the pasted Tesla K40c (Kepler): R470
        ("pasted-k40c", "nvidia-driver:470-dkms"),
        # the P100 machine with its GPU's compute capability read as Fermi's (2.0; no Fermi GPU is recorded): R390,
        # the oldest of the three it is below
        ("p100-as-fermi", "nvidia-driver:390-dkms"),
    ],
)
def test_a_retired_generation_gets_its_last_driver_branch_on_rhel(case, stream):
    """Where no branch is asked for, the proprietary route names the GPU generation's last branch (NVIDIA's Unix graphics
    feature deprecation schedule), never the stream that follows the newest one. Quiet twin: a Turing-or-newer GPU
    (tests/machines/rtx4090-device-node-permissions) takes the open modules' stream and no branch is pinned."""
    from gpudoctor.checks import Context
    from gpudoctor.facts import Distro
    from gpudoctor.planner.remedy import driver_install, last_branch

    ctx = Context()
    base = (
        _k40c()
        if case == "pasted-k40c"
        else with_gpu(facts_of("p100-driver510-torch-cu121"), compute_capability="2.0")
        if case == "p100-as-fermi"
        else facts_of(case)
    )
    facts = replace(base, platform={"distro": Distro(id="rhel", version_id="9.3")})
    assert [c.words for c in driver_install(facts, None, ctx)] == [("dnf", "module", "install", "-y", stream)]
    assert last_branch(facts, ctx) == stream.split(":")[1].split("-")[0]
    ada = replace(facts_of("rtx4090-device-node-permissions"), platform={"distro": Distro(id="rhel", version_id="9.3")})
    assert last_branch(ada, ctx) is None
    assert [c.words for c in driver_install(ada, None, ctx)] == [
        ("dnf", "module", "enable", "-y", "nvidia-driver:open-dkms"),
        ("dnf", "install", "-y", "nvidia-open"),
    ]


def test_a_hung_nvidia_smi_or_nvml_is_a_stuck_driver_and_a_slow_toolkit_probe_only_an_incomplete_view():
    """nvidia-smi or NVML not answering within the probe's time means the driver is stuck (an error: read the
    kernel log for Xid, reset or reboot); a toolkit probe (nvcc --version) that timed out leaves only that area
    unseen (a warning: rerun with a longer --probe-timeout)."""
    base = facts_of(HEALTHY)
    hung_driver = [
        "sudo dmesg | grep -i xid",
        "timeout 30 nvidia-smi",
        "sudo nvidia-smi --gpu-reset -i '<index>'  # the GPU the kernel log names; no process may use it",
    ]
    for changes, name, said in (
        ({"smi_status": "timeout", "smi_timeout_s": 10}, "nvidia-smi", "nvidia-smi did not answer within 10 s"),
        ({"nvml_status": "timeout", "nvml_error": "NVML did not answer within 10 s"}, "nvml", "NVML did not answer within 10 s"),
    ):
        (f,) = findings(replace(base, driver=changes), "probe-timeout")
        assert (f.severity, f.area, f.title) == (Severity.ERROR, "driver", f"a probe hung past its time limit: {name}")
        assert evidence(f) == [(f"probe:{name}", said)]
        assert lines(f) == hung_driver
        assert f.remediation.requires_root
    (f,) = findings(replace(base, toolkits={"problems": ("nvcc --version timed out after 10 s",)}), "probe-timeout")
    assert (f.severity, f.area, f.title) == (Severity.WARNING, "doctor", "a probe hung past its time limit: toolkits")
    assert f.detail == "The diagnosis of that area is incomplete. nvcc --version timed out after 10 s"
    assert lines(f) == ["gpudoctor check --probe-timeout 30"]
    assert not f.remediation.requires_root


# --- health: what nvidia-smi says of a lost GPU, the PCIe link ------------------------------------------------------


def test_nvidia_smis_lost_gpu_is_named_by_its_bus_id_where_it_gives_one():
    """nvidia-smi's 'Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost' names the GPU: the
    finding says the GPU at that bus id; the bare 'GPU is lost' names none, and the finding says a GPU."""
    lost = "GPU is lost.  Reboot the system to recover this GPU"
    (f,) = findings(from_text(f"$ nvidia-smi\nUnable to determine the device handle for GPU 0000:02:00.0: {lost}\n"), "gpu-lost")
    assert f.title == "the GPU at 0000:02:00.0 is lost: the driver cannot reach it"
    assert f.detail.startswith(
        f"nvidia-smi could not get the device handle of the GPU at 0000:02:00.0 ('{lost}'): the GPU has fallen"
    )
    (f,) = findings(from_text(f"$ nvidia-smi\n{lost}\n"), "gpu-lost")
    assert f.title == "a GPU is lost: the driver cannot reach it"
    assert f.detail.startswith(f"nvidia-smi could not get the device handle of a GPU ('{lost}'): the GPU has fallen")


def test_an_idle_gpu_names_its_narrow_link_but_not_its_lower_generation():
    """GPU 0 idle (NVML's gpu_idle reason) at x8 of x16 and Gen4 of Gen5: the width is worth a note (it may be the
    slot), the generation is not (GPUs lower it when idle to save power)."""
    idle = with_gpu(facts_of(HEALTHY), throttle_reasons=("gpu_idle",), pcie_gen_current=4, pcie_width_current=8)
    (f,) = findings(idle, "pcie-link-degraded")
    assert (f.severity, f.title) == (Severity.INFO, "GPU 0's PCIe link runs below its maximum while idle: width x8 of x16")


# --- platform: containers without a GPU, WSL ------------------------------------------------------------------------


def test_a_container_without_gpus_is_said_where_the_bus_shows_one_or_nothing_shows_the_bus_but_a_gpu_was_asked_for():
    """tests/machines/docker-started-without-gpus without the GPU on its PCI bus: a bus read that shows no NVIDIA GPU
    is gpu-none's (whatever NVIDIA_VISIBLE_DEVICES asks for); with the bus unreadable, NVIDIA_VISIBLE_DEVICES=all
    says a GPU was meant to be there (container-no-gpu), and without it nothing does."""
    from gpudoctor.probed import Unknown

    base = facts_of("docker-started-without-gpus")
    env = {k: v for k, v in base.platform.env.items() if k != "NVIDIA_VISIBLE_DEVICES"}
    asked = {**env, "NVIDIA_VISIBLE_DEVICES": "all"}
    empty_bus, unread_bus = Found((), "dir:/sys/bus/pci/devices"), Unknown("not-recorded", "no /sys/bus/pci", "")

    def codes(pci, environ):
        found, _ = run_checks(replace(base, kernel={"pci": pci}, platform={"env": environ}))
        return {f.code for f in found}

    assert codes(empty_bus, asked) == {"gpu-none"}
    assert codes(empty_bus, env) == {"gpu-none"}
    assert "container-no-gpu" in codes(unread_bus, asked)
    assert "container-no-gpu" not in codes(unread_bus, env)


def test_a_linux_driver_in_wsl_cites_its_loaded_module_too():
    """tests/machines/wsl2-linux-driver-installed with the Linux driver's module loaded as well (565.57.01 in
    /proc/driver/nvidia/version): that is evidence of the Linux driver beside its libraries."""
    base = facts_of("wsl2-linux-driver-installed")
    module = facts_of(HEALTHY).kernel.proc_driver
    (f,) = findings(replace(base, kernel={"proc_driver": module}), "wsl-linux-driver-installed")
    assert evidence(f) == [
        ("cmd:ldconfig -p", "/lib/x86_64-linux-gnu/libcuda.so.1"),
        ("cmd:ldconfig -p", "/lib/x86_64-linux-gnu/libnvidia-ml.so.1"),
        ("file:/proc/driver/nvidia/version", "565.57.01"),
    ]


# --- pasted text: a driver too old -------------------------------------------------------------------------------


def test_a_reported_old_driver_belongs_to_the_framework_that_said_it_else_to_the_toolkit():
    """PyTorch's 'driver on your system is too old' names PyTorch: framework-driver-too-old in the frameworks area;
    the CUDA runtime's bare 'driver version is insufficient' names no framework: toolkit-newer-than-driver in the
    toolkit area. An image refused by nvidia-container-cli for its CUDA needs the host's driver upgraded, as root."""
    (f,) = findings(
        from_text(
            "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver\n"
        ),
        "framework-driver-too-old",
    )
    assert (f.area, f.title) == (
        "frameworks",
        "PyTorch needs a newer CUDA than the installed driver supports (it supports CUDA up to 11.4)",
    )
    # Upgrading the driver, as root; no distribution is named, so no install command, and no reboot alone (issue 27, kind 7)
    assert (f.remediation.requires_root, lines(f)) == (True, [])
    (f,) = findings(from_text("CUDA driver version is insufficient for CUDA runtime version\n"), "toolkit-newer-than-driver")
    assert (f.area, f.title) == ("toolkit", "the program needs a newer CUDA than the installed driver supports")
    assert f.remediation.requires_root
    refused = (
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver to a "
        "newer version, or use an earlier cuda container: unknown.\n"
    )
    (f,) = findings(from_text(refused), "toolkit-newer-than-driver")
    assert f.title == "the image needs CUDA 12.4, newer than the host's driver supports"
    assert f.remediation.requires_root
    assert lines(f) == []  # the host's distribution is not known: no install, so no reboot alone


# --- branches no test reached before ------------------------------------------------------------------------------


def test_a_missing_nvml_binding_with_no_nvidia_smi_is_the_doctors_blind_spot_not_an_unreachable_driver():
    """gpudoctor's own NVML binding is not installed and nvidia-smi is not there either: nothing was asked of the
    driver, so it is not said unreachable (probe-failed says what gpudoctor could not see). With nvidia-smi there
    and failing to reach the driver, it is."""
    base = facts_of(HEALTHY)
    blind = replace(
        base, driver={"nvml_status": "binding_missing", "nvml_error": None, "smi_status": "missing", "smi_error": None}
    )
    found, _ = run_checks(blind)
    assert [f.code for f in found] == ["probe-failed"]
    failing = replace(
        blind,
        driver={
            "smi_status": "failed",
            "smi_error": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
        },
    )
    found, _ = run_checks(failing)
    assert [f.code for f in found] == ["driver-unreachable", "probe-failed"]


def test_a_container_without_any_device_node_is_a_container_started_without_gpus_not_missing_nodes():
    """tests/machines/docker-started-without-gpus with the host's module visible in /proc/driver/nvidia/version (as
    it is inside a container): no /dev/nvidia* at all is the runtime not passing the GPU in, container-no-gpu,
    whose fix starts the container with GPU access; creating nodes inside it would not help."""
    facts = replace(facts_of("docker-started-without-gpus"), kernel={"proc_driver": facts_of(HEALTHY).kernel.proc_driver})
    found, _ = run_checks(facts)
    assert [f.code for f in found] == ["container-no-gpu"]


def test_one_missing_device_node_is_created_on_the_host_and_the_container_restarted_with_its_runtime():
    """tests/machines/h100x8-driver565-torch221-cu121 without /dev/nvidia-uvm (the nodes CUDA opens besides
    /dev/nvidiactl and /dev/nvidiaN; nvidia-modprobe -u creates it): on the machine that is the one command; in a
    container the node is created on the host and the container restarted (a Kubernetes pod by deleting it)."""
    base = facts_of(HEALTHY)
    no_uvm = replace(base, kernel={"device_nodes": tuple(n for n in base.kernel.device_nodes if n.path != "/dev/nvidia-uvm")})
    modprobe = "sudo nvidia-modprobe -u -c=0  # creates /dev/nvidia-uvm and /dev/nvidia0"
    (f,) = findings(no_uvm, "device-nodes-missing")
    assert f.title == "the GPU device nodes are missing"
    assert "; missing: /dev/nvidia-uvm." in f.detail
    assert evidence(f) == [("file:/dev/nvidia-uvm", "absent")]
    assert (lines(f), f.remediation.where) == ([modprobe], "")
    for runtime, restart in (
        ("docker", "docker restart '<container>'"),
        ("kubernetes", "kubectl delete pod '<pod>'  # its controller starts a new one"),
    ):
        (f,) = findings(replace(no_uvm, platform={"container": runtime}), "device-nodes-missing")
        assert (lines(f), f.remediation.where, f.remediation.component) == ([modprobe, restart], "the host", "driver")
        assert f.remediation.summary.startswith("A container sees the host's device nodes: create them on the host")


def test_a_slow_ldconfig_or_pci_probe_is_a_warning_named_once():
    """ldconfig -p or the PCI bus read timing out leaves that area unseen: a warning naming the probe, with its own
    message; a failure already recorded under that probe's name is not said twice."""
    from gpudoctor.probed import Unknown

    base = facts_of(HEALTHY)
    said = "ldconfig -p did not answer within 10 s"
    slow = dataclasses.replace(base, ldconfig=Unknown("timeout", said, "cmd:ldconfig -p"))
    (f,) = findings(slow, "probe-timeout")
    assert (f.severity, f.title) == (Severity.WARNING, "a probe hung past its time limit: ldconfig")
    assert evidence(f) == [("probe:ldconfig", said)]
    (f,) = findings(
        replace(base, kernel={"pci": Unknown("timeout", "lspci did not answer within 10 s", "cmd:lspci")}), "probe-timeout"
    )
    assert evidence(f) == [("probe:pci", "lspci did not answer within 10 s")]
    recorded = dataclasses.replace(slow, failures={"ldconfig": Unknown("timeout", said, "cmd:ldconfig -p")})
    (f,) = findings(recorded, "probe-timeout")
    assert evidence(f) == [("probe:ldconfig", said)]


NVCC_12_4 = (
    "$ nvcc --version\nnvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2024 NVIDIA Corporation\n"
    "Cuda compilation tools, release 12.4, V12.4.131\n"
)
SMI_HEADER = "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: {}     |\n"


def test_a_pasted_toolkit_newer_than_the_driver_is_said_once_and_only_when_newer():
    """nvcc 12.4 pasted beside nvidia-smi's header for a driver that supports CUDA 11.4: one
    toolkit-newer-than-driver (the toolkit check's, never a second from the pasted text), also when the CUDA
    runtime's 'driver version is insufficient' is pasted too. A driver for CUDA 12.4 or 12.6 runs it: nothing."""
    for extra in ("", "CUDA driver version is insufficient for CUDA runtime version\n"):
        (f,) = findings(from_text(NVCC_12_4 + SMI_HEADER.format("11.4") + extra), "toolkit-newer-than-driver")
        assert f.title == "CUDA toolkit 12.4.131 at the nvcc on PATH is newer than the driver supports (CUDA 11.4)"
    for cuda in ("12.4", "12.6"):
        assert findings(from_text(NVCC_12_4 + SMI_HEADER.format(cuda)), "toolkit-newer-than-driver") == []


def test_a_docker_run_without_gpus_alone_is_not_a_container_without_a_gpu():
    """The `docker run` line without --gpus is only half of the evidence: nothing shown fails inside the container
    (a default runtime of nvidia in daemon.json needs no --gpus), so nothing is said."""
    found, _ = run_checks(from_text(DOCKER_RUN))
    assert [f.code for f in found] == []


def test_torch_not_compiled_with_cuda_is_a_cpu_build_said_once():
    """PyTorch's 'Torch not compiled with CUDA enabled' alone: a CPU-only build of a PyTorch whose version was not
    shown; with a pip list showing torch 2.3.1 the finding names it, once."""
    said = "RuntimeError: Torch not compiled with CUDA enabled\n"
    (f,) = findings(from_text(said), "framework-cpu-build")
    assert f.title == "the installed PyTorch is a CPU-only build"
    assert evidence(f) == [("pasted", "RuntimeError: Torch not compiled with CUDA enabled")]
    (f,) = findings(from_text("$ pip list\nPackage Version\n------- -------\ntorch 2.3.1\n\n" + said), "framework-cpu-build")
    assert f.title == "PyTorch 2.3.1 is a CPU-only build, so it cannot use the NVIDIA GPU"


# --- the registry and its crash isolation (checks/__init__.py) ---------------------------------------------------


def test_a_crashing_check_is_one_internal_finding_and_the_others_still_run(monkeypatch):
    """A check that raises becomes internal-check-error naming it (its area not judged) and every other check still
    runs; a check that emits a code it did not declare is treated as crashed too (the registry lists every code
    `check` can say, for the finding pages and --explain)."""
    from gpudoctor.checks import Check, driver

    def boom(facts, ctx):
        raise RuntimeError("no such field")
        yield  # a generator, as the checks are

    def undeclared(facts, ctx):
        yield from driver.check_unreachable(facts, ctx)

    monkeypatch.setattr(driver, "CHECKS", (Check("boom", "driver", (), boom), Check("liar", "driver", ("gpu-none",), undeclared)))
    found, internal = run_checks(facts_of(UNREACHABLE))
    assert internal == [
        "boom: RuntimeError: no such field",
        "liar: ValueError: emitted undeclared codes ['driver-unreachable']",
    ]
    crashed = [f for f in found if f.code == "internal-check-error"]
    assert [(f.severity, f.area, f.title, f.detail) for f in crashed] == [
        (Severity.WARNING, "doctor", "the boom check crashed; its area was not judged", "RuntimeError: no such field"),
        (
            Severity.WARNING,
            "doctor",
            "the liar check crashed; its area was not judged",
            "ValueError: emitted undeclared codes ['driver-unreachable']",
        ),
    ]
    assert lines(crashed[0]) == ["gpudoctor snapshot -o machine.json"]
    assert [f.code for f in found if f.code != "internal-check-error"] == []  # the unreachable driver's own check is gone


def test_an_invalid_matrix_fails_the_run_instead_of_becoming_findings(tmp_path):
    """A matrix that does not load is the doctor's own failure (MatrixError, one clear line from the CLI), not a
    crashed check per rule that consults it."""
    from gpudoctor.errors import MatrixError

    (tmp_path / "torch.toml").write_text("not = [valid", encoding="utf-8")
    with pytest.raises(MatrixError):
        run_checks(facts_of(HEALTHY), matrix_path=str(tmp_path))


def test_the_registry_lists_each_code_once_with_the_crash_code_first():
    from gpudoctor.checks import check_codes

    codes = check_codes()
    assert codes[:3] == ("internal-check-error", "gpu-none", "driver-nouveau")
    assert len(codes) == len(set(codes))
    assert {"probe-failed", "gpu-memory-held", "windows-dll-missing", "wsl-linux-driver-installed"} <= set(codes)


def test_memory_held_is_said_from_a_quarter_of_the_gpu_on():
    """The default share of memory held by others that is worth a warning is 25% (Context.memory_held_share): a
    quarter of GPU 0 held is said, one byte less is not; a share set by the caller moves the bound."""
    from gpudoctor.checks import Context

    base = facts_of(HEALTHY)
    total = 80 * 1024**3
    held = with_gpu(base, memory_total_bytes=total, memory_used_bytes=total // 4, processes=())
    (f,) = findings(held, "gpu-memory-held")
    assert f.title == "25% of GPU 0's memory is held by other processes"
    assert evidence(f) == [("nvml", f"used {total // 4} of {total} bytes")]
    assert findings(with_gpu(held, memory_used_bytes=total // 4 - 1), "gpu-memory-held") == []
    assert findings(held, "gpu-memory-held", ctx=Context(memory_held_share=0.5)) == []


# --- round four, third chunk ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "hung"),
    [
        ({"smi_status": "timeout", "smi_timeout_s": 10}, "nvidia-smi"),
        ({"nvml_status": "timeout", "nvml_error": "NVML did not answer within 10 s"}, "nvml"),
    ],
)
def test_a_driver_probe_that_hung_is_said_as_a_hang_not_as_an_unreachable_driver(changes, hung):
    """tests/machines/h100-driver-unreachable where nvidia-smi or NVML (either one alone) did not answer in time:
    the driver is stuck, which probe-timeout says (its fix is the driver's, root's: Xid, reset, reboot);
    driver-unreachable would send the user after permissions or libraries instead."""
    (f,) = findings(replace(facts_of(UNREACHABLE), driver=changes), "probe-timeout")
    assert f.title == f"a probe hung past its time limit: {hung}"
    assert (f.remediation.component, f.remediation.requires_root) == ("driver", True)
    assert findings(replace(facts_of(UNREACHABLE), driver=changes), "driver-unreachable") == []


def test_a_slow_probe_that_is_not_the_drivers_is_the_doctors_own_limit():
    """A toolkit probe that timed out: the remediation belongs to gpudoctor's own run (component doctor), not the
    driver, and is no root matter."""
    (f,) = findings(replace(facts_of(HEALTHY), toolkits={"problems": ("nvcc --version timed out after 10 s",)}), "probe-timeout")
    assert (f.remediation.component, f.remediation.requires_root, f.remediation.where) == ("doctor", False, "")


@pytest.mark.parametrize(
    ("state", "busy"),
    [
        ("P0", True),
        ("P2", True),  # a process in P0-P2: working
        ("P3", False),  # a process in P3-P4 with no utilisation known: not known to be working
        ("P5", False),  # clocks parked
        ("P8", False),
        ("P32", True),  # NVML_PSTATE_UNKNOWN (32): no state known, so the process on it decides
        ("[N/A]", True),
        (None, True),
    ],
)
def test_a_gpu_with_a_process_is_busy_by_its_performance_state(state, busy):
    """_busy (health.py) without NVML's idle reason and without a utilisation: a process on a GPU in P0-P2, or in
    an unknown state, means work; P5 and lower parks the clocks (idle). NVML's performance states are P0-P15 and
    32, NVML_PSTATE_UNKNOWN (NVML API reference, nvmlPstates_t:
    https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html), which host/nvml.py writes as "P32": an
    unknown state, never a parked P32. Seen through the PCIe rule: a Gen4 link on a Gen5 GPU is said only while busy."""
    gpu0 = with_gpu(
        facts_of(HEALTHY),
        throttle_reasons=(),
        pcie_gen_current=4,
        utilization_gpu_percent=None,
        performance_state=state,
        processes=(Process(4242, "train.py", 1024**3, "C"),),
    )
    said = findings(gpu0, "pcie-link-degraded")
    assert [f.title for f in said] == (["GPU 0's PCIe link runs below its maximum while busy: Gen4 of Gen5"] if busy else [])


def test_cuda_visible_devices_is_said_only_when_an_entry_names_no_gpu():
    """tests/machines/rtx2070x2-cuda-visible-devices-wrong (two GPUs, 0 and 1): "0" and "1,0" are valid, nothing is
    said; "0,7,1" stops at 7 (CUDA reads up to the first invalid entry), so only GPU 0 is visible, a warning naming
    what was ignored; "7" hides every GPU, an error."""
    base = facts_of("rtx2070x2-cuda-visible-devices-wrong")

    def said(value):
        return findings(
            replace(base, platform={"env": {**base.platform.env, "CUDA_VISIBLE_DEVICES": value}}),
            "cuda-visible-devices-hides-all",
        )

    assert said("0") == [] and said("1,0") == []
    (f,) = said("0,7,1")
    assert (f.severity, f.title) == (Severity.WARNING, "CUDA_VISIBLE_DEVICES names GPUs that do not exist")
    assert f.detail == (
        "CUDA_VISIBLE_DEVICES='0,7,1', and this machine has 2 GPU(s) (indices 0-1). CUDA stops reading at the first "
        "invalid entry, so only 0 is visible; ignored: 7, 1."
    )
    (f,) = said("7")
    assert (f.severity, f.title) == (Severity.ERROR, "CUDA_VISIBLE_DEVICES hides every GPU")
    assert f.detail.endswith("No entry names one of them, so every CUDA program sees zero devices.")


def test_the_preallocation_findings_cite_the_frameworks_memory_documentation():
    """tf-preallocates cites the matrix's TensorFlow memory settings (its GPU guide and wheel notes,
    compat_matrix/memory_settings.toml), jax-preallocates JAX's GPU memory allocation page and changelog: the
    setting's own sources first, then its controls'."""
    (f,) = findings(facts_of("rtx4000ada-tf-beside-torch-job"), "tf-preallocates")
    assert f.sources == ("tf-gpu-guide", "pypi-tf-wheels")
    (f,) = findings(facts_of("t4-jax-beside-tf-notebook"), "jax-preallocates")
    assert f.sources == ("jax-memory-docs", "jax-changelog")
    assert f.title == "JAX 0.4.13 will preallocate 75% of GPU(s) that other jobs use"


# --- pasted text: PyTorch's architecture warning, cuDNN, the driver's evidence, WSL --------------------------------

ARCH_WARNING = (
    "NVIDIA GeForce RTX 5070 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
    "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n"
)


def test_pytorchs_architecture_warning_names_the_build_where_its_version_was_shown():
    """PyTorch's own warning that an RTX 5070 (sm_120, Blackwell) is not among its architectures: the finding names
    the PyTorch version where a pip list showed it (2.3.1, its CUDA build not shown, so only the warning judges),
    and 'the installed PyTorch' where nothing did."""
    (f,) = findings(from_text(ARCH_WARNING), "framework-arch-unsupported")
    assert f.title == "the installed PyTorch has no kernels for the NVIDIA GeForce RTX 5070 (compute capability 12.0)"
    listed = "$ pip list\nPackage Version\n------- -------\ntorch 2.3.1\n\n"
    (f,) = findings(from_text(listed + ARCH_WARNING), "framework-arch-unsupported")
    assert f.title == "PyTorch 2.3.1 has no kernels for the NVIDIA GeForce RTX 5070 (compute capability 12.0)"
    assert f.detail.startswith("PyTorch itself said so: the build carries sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90, none")


def test_a_pasted_cudnn_too_old_names_the_framework_the_traceback_shows_else_the_framework():
    """TensorFlow's 'Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0': with a traceback
    path inside tensorflow/ the finding names TensorFlow; alone it says 'the framework' (never an empty name)."""
    said = "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.\n"
    (f,) = findings(from_text(said), "cudnn-too-old")
    assert f.title == "cuDNN 8.0.5 is older than the framework requires (8.1.0)"
    assert "where the framework loads it, or a build of the framework made for cuDNN 8.0.5" in f.remediation.summary
    traceback = '  File "/usr/lib/python3/dist-packages/tensorflow/python/x.py"\n'
    (f,) = findings(from_text(traceback + said), "cudnn-too-old")
    assert f.title == "cuDNN 8.0.5 is older than TensorFlow requires (8.1.0)"


def test_a_reported_old_driver_cites_at_most_two_of_the_lines_that_say_it():
    """Three lines say the driver is too old (PyTorch's 'found version' twice, the runtime's 'insufficient' once):
    the evidence quotes the first two, in order."""
    text = (
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver\n"
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11020). Please update\n"
        "CUDA driver version is insufficient for CUDA runtime version\n"
    )
    (f,) = findings(from_text(text), "framework-driver-too-old")
    assert evidence(f) == [
        (
            "pasted",
            "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver",
        ),
        ("pasted", "RuntimeError: The NVIDIA driver on your system is too old (found version 11020). Please update"),
    ]


def test_a_linux_driver_package_install_is_no_wsl_finding_outside_wsl():
    """`apt-get install nvidia-driver-535` is the ordinary install on a Linux machine: only inside WSL 2 (here shown
    by NVML's 'GPU access blocked by the operating system') does it shadow the Windows driver."""
    install = "$ sudo apt-get install -y nvidia-driver-535\n"
    assert findings(from_text(install), "wsl-linux-driver-installed") == []
    blocked = "Failed to initialize NVML: GPU access blocked by the operating system\n"
    (f,) = findings(from_text(install + blocked), "wsl-linux-driver-installed")
    assert "(nvidia-driver-535)" in f.detail


# --- round four, fourth chunk -------------------------------------------------------------------------------------


def test_the_nouveau_fix_is_roots():
    """Blacklisting nouveau, rebuilding the initramfs and installing the driver all write system files: root's."""
    (f,) = findings(facts_of("rtx3080-nouveau"), "driver-nouveau")
    assert (f.remediation.requires_root, f.remediation.component) == (True, "driver")


def test_a_mismatch_cites_the_module_and_the_library_it_compared():
    """NVML answers with a 550.144 library beside the loaded 565.57.01 module: the evidence is the module's version
    (from /proc) and the library's (from NVML), nothing else."""
    (f,) = findings(replace(facts_of(HEALTHY), driver={"nvml_version": "12.550.144"}), "driver-library-mismatch")
    assert evidence(f) == [("file:/proc/driver/nvidia/version", "565.57.01"), ("nvml", "library 550.144")]


def test_a_stuck_gpu_seen_from_a_container_is_reset_or_rebooted_on_the_host():
    """Inside a container nothing can reset the GPU or reboot its machine: an unreachable driver (NVML failing with
    no 'Unknown Error') and a hung nvidia-smi both say the reboot is the host's; on the machine itself they do not."""
    base = replace(facts_of(UNREACHABLE), driver={"nvml_error": None})
    (f,) = findings(replace(base, platform={"container": "docker"}), "driver-unreachable")
    assert f.remediation.summary.endswith("needs a reboot of the host; nothing inside the container can reset it.")
    assert f.remediation.where == "the host"
    (f,) = findings(base, "driver-unreachable")
    assert f.remediation.summary.endswith("needs a reboot; other errors may clear with a GPU reset.")
    hung = replace(facts_of(HEALTHY), driver={"smi_status": "timeout", "smi_timeout_s": 10})
    (f,) = findings(replace(hung, platform={"container": "docker"}), "probe-timeout")
    assert (f.remediation.summary, f.remediation.where) == (
        "Look for Xid errors in the kernel log; a GPU in that state needs a reset or a reboot of the host.",
        "the host",
    )
    (f,) = findings(hung, "probe-timeout")
    assert (f.remediation.summary, f.remediation.where) == (
        "Look for Xid errors in the kernel log; a GPU in that state needs a reset or a reboot.",
        "",
    )


# --- round four, fifth chunk --------------------------------------------------------------------------------------


def test_a_failed_probe_is_probe_failed_and_a_timed_out_one_probe_timeout():
    """A probe refused (nvidia-smi: permission denied) is a blind spot, probe-failed naming it and why; a probe that
    ran out of time is probe-timeout's alone, not said twice."""
    from gpudoctor.probed import Unknown

    base = facts_of(HEALTHY)
    failed = dataclasses.replace(base, failures={"nvidia-smi": Unknown("failed", "permission denied", "cmd:nvidia-smi")})
    found, _ = run_checks(failed)
    assert [(f.code, f.title) for f in found] == [("probe-failed", "gpudoctor could not see: nvidia-smi")]
    assert found[0].detail == "The diagnosis of these areas may be incomplete. nvidia-smi: failed (permission denied)"
    slow = dataclasses.replace(
        base, failures={"ldconfig": Unknown("timeout", "ldconfig -p did not answer within 10 s", "cmd:ldconfig -p")}
    )
    found, _ = run_checks(slow)
    assert [(f.code, f.title) for f in found] == [("probe-timeout", "a probe hung past its time limit: ldconfig")]


def test_a_missing_driver_reads_the_kernel_log_as_root():
    """tests/machines/rtx3080-no-driver (Ubuntu): install the branch Ubuntu recommends, load the module, read why it
    did not load in the kernel log (dmesg needs root where kernel.dmesg_restrict is set), check Secure Boot."""
    (f,) = findings(facts_of("rtx3080-no-driver"), "driver-missing")
    assert lines(f) == [
        "sudo apt-get update",
        "sudo ubuntu-drivers install  # the branch Ubuntu recommends for this GPU",
        "sudo modprobe nvidia",
        "sudo dmesg | grep -i -E 'nvidia|nvrm'",
        "mokutil --sb-state  # Secure Boot on: the module must be signed",
    ]


def test_the_daemon_reload_workaround_creates_the_dev_char_links_as_root():
    """tests/machines/docker-nvml-unknown-error-after-daemon-reload: NVIDIA's workaround for NVML's Unknown Error
    after `systemctl daemon-reload` creates the /dev/char links on the host (root writes /dev), keeps them with NVIDIA's
    udev rule (root writes /lib/udev), then the container is restarted; Docker's cgroup driver is read first."""
    (f,) = findings(facts_of("docker-nvml-unknown-error-after-daemon-reload"), "driver-unreachable")
    assert lines(f) == [
        "docker info --format '{{.CgroupDriver}} cgroup v{{.CgroupVersion}}'  # on the host: systemd is the cgroup "
        "driver whose daemon-reload drops the GPU devices",
        "sudo nvidia-ctk system create-dev-char-symlinks --create-all  # on the host; NVIDIA Container Toolkit 1.12 or newer",
        'echo \'ACTION=="add", DEVPATH=="/bus/pci/drivers/nvidia", RUN+="/usr/bin/nvidia-ctk system '
        "create-dev-char-symlinks --create-all\"' | sudo tee /lib/udev/rules.d/71-nvidia-dev-char.rules  # recreates the "
        "links whenever the nvidia driver binds again: after a restart or a driver reload",
        "docker restart '<container>'",
    ]


def test_xlas_copy_of_tensorflow_in_a_jax_log_names_jax_not_tensorflow():
    """JAX's XLA logs from paths under external/org_tensorflow/ (XLA lived in TensorFlow's tree): a cuDNN message
    from there is JAX's, and the finding names JAX; a path under tensorflow/ itself names TensorFlow."""
    said = "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.\n"
    xla = "E external/org_tensorflow/tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:439] "
    (f,) = findings(from_text(xla + said), "cudnn-too-old")
    assert f.title == "cuDNN 8.0.5 is older than JAX requires (8.1.0)"


def test_a_linux_driver_package_installed_in_wsl2_is_said_without_the_blocked_message():
    """`uname -a` shows the WSL 2 kernel (microsoft-standard-WSL2) and the text shows nvidia-utils-535 installed with
    apt: that package is the cause even where NVML's 'GPU access blocked' was not pasted."""
    uname = (
        "$ uname -a\nLinux DESKTOP-1 5.15.153.1-microsoft-standard-WSL2 #1 SMP Fri Mar 29 23:14:13 UTC 2024 x86_64 "
        "x86_64 x86_64 GNU/Linux\n"
    )
    (f,) = findings(from_text(uname + "$ sudo apt-get install -y nvidia-utils-535\n"), "wsl-linux-driver-installed")
    assert evidence(f) == [("pasted", "$ sudo apt-get install -y nvidia-utils-535")]


def test_a_module_secure_boot_may_refuse_gets_the_enrolment_as_its_alternative():
    """tests/blind/plans10/cases/1044 (Fedora 34, RPM Fusion's akmod-nvidia, Secure Boot on; pasted: nvidia-smi "couldn't
    communicate" and nothing else): the step reads why the module is not loaded, and the Secure Boot branch is commands
    (issue 27, kind 9: the review asked for kmodgenca, mokutil --import, akmods --force and the reboot). The paste names
    no distribution, so its alternative reads /etc/os-release, which decides whose key signs the module; with the
    distribution the thread names, the commands. Quiet twin: tests/machines/h100-driver-unreachable, whose module is
    loaded, gets no enrolment (Secure Boot refuses a module at load, never one that runs)."""
    from gpudoctor.facts import Distro
    from gpudoctor.planner.actions import classify

    case = ROOT / "tests/blind/plans10/cases/1044-nvautoinstall75-fedora34-rtx2060super-secure-boot-blocks-akmod-nvidia"
    pasted = from_text((case / "input.txt").read_text(encoding="utf-8"))
    (f,) = findings(pasted, "driver-unreachable")
    assert [c.words for c in f.remediation.alternative.commands] == [("cat", "/etc/os-release")]
    (f,) = findings(replace(pasted, platform={"distro": Distro(id="fedora", version_id="34")}), "driver-unreachable")
    assert [c.words for c in f.remediation.alternative.commands] == [
        ("kmodgenca", "-a"),
        ("mokutil", "--import", "/etc/pki/akmods/certs/public_key.der"),
        ("akmods", "--force"),
        ("reboot",),
    ]
    # the consequence model reads the key's import as a change of the next boot, the sb-state as a reading
    kinds = [classify(c).kind for c in f.remediation.alternative.commands]
    assert kinds[1:2] == ["boot-image"] and kinds[-1] == "reboot"
    assert {classify(c).kind for c in f.remediation.commands if c.words[0] == "mokutil"} == {"inspect"}
    (f,) = findings(replace(pasted, platform={"distro": Distro(id="ubuntu", id_like="debian")}), "driver-unreachable")
    assert [c.words for c in f.remediation.alternative.commands] == [
        ("update-secureboot-policy", "--enroll-key"),
        ("reboot",),
    ]
    (f,) = findings(facts_of("h100-driver-unreachable"), "driver-unreachable")
    assert f.remediation.alternative is None or not any("mokutil" in c.words for c in f.remediation.alternative.commands)
