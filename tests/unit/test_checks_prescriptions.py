"""The fixes of the driver, platform, health, memory and doctor checks: right for the machine, and data.

Each case starts from a recorded machine (tests/machines) and changes the one fact under test, so the
rest of the machine stays real.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpudoctor.checks import Context, driver, health, platform
from gpudoctor.cmdline import Cmd, Placeholder, render
from gpudoctor.facts import Distro
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.planner.remedy import driver_install, package_repair, pip
from gpudoctor.probed import Found
from gpudoctor.probes import run_probes
from tests.conftest import MACHINES

CTX = Context()


def facts_of(slug: str):
    return run_probes(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))))


def with_platform(facts, **changes):
    return dataclasses.replace(facts, platform=dataclasses.replace(facts.platform, **changes))


def with_driver(facts, **changes):
    return dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, **changes))


def one(check, facts):
    found = list(check(facts, CTX))
    assert len(found) == 1, [f.code for f in found]
    return found[0]


def text(remediation) -> str:
    return "\n".join(remediation.lines())


def words(remediation) -> list[tuple[str, ...]]:
    return [c.words for c in remediation.commands if isinstance(c, Cmd)]


# --- driver/library mismatch, by cause -------------------------------------------------------------

MISMATCH = "driver-library-mismatch-after-upgrade"  # module 565.57.01, libraries 550.144 (NVML's text)


def test_libraries_older_than_the_module_do_not_lead_with_a_reboot():
    r = one(driver.check_library_mismatch, facts_of(MISMATCH)).remediation
    assert r.component == "driver" and r.where == ""
    cmds = words(r)
    assert cmds[0] == ("modinfo", "-F", "version", "nvidia"), "first tell the causes apart"
    assert ("dpkg", "--configure", "-a") in cmds and ("apt-get", "install", "--fix-broken", "-y") in cmds
    reboot = next(c for c in r.commands if isinstance(c, Cmd) and c.words == ("reboot",))
    assert "modinfo" in reboot.note, "a reboot only once the module on disk matches"
    assert not any(c[0] == "rmmod" for c in cmds)


def test_libraries_newer_than_the_module_reboot_or_reload_after_repair():
    facts = facts_of(MISMATCH)
    facts = dataclasses.replace(
        facts,
        kernel=dataclasses.replace(
            facts.kernel,
            proc_driver=Found(
                dataclasses.replace(facts.kernel.proc_driver.value, version="520.56.06"), "file:/proc/driver/nvidia/version"
            ),
        ),
    )
    f = one(driver.check_library_mismatch, facts)
    assert "newer than the loaded module" in f.detail
    cmds = words(f.remediation)
    assert cmds.index(("apt-get", "install", "--fix-broken", "-y")) < cmds.index(("reboot",)), (
        "a partial upgrade is finished before the reboot that loads its module"
    )
    # Reloading the modules is the reboot's alternative, never run after it (issue 27, kind 7).
    assert not any(c[0] in ("rmmod", "modprobe") for c in cmds)
    assert ("rmmod", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia") in words(f.remediation.alternative)


def test_rhel_repairs_with_dnf():
    facts = with_platform(facts_of(MISMATCH), distro=Distro(id="rocky", id_like="rhel centos fedora", version_id="9.3"))
    cmds = words(one(driver.check_library_mismatch, facts).remediation)
    assert ("dnf", "check") in cmds and ("rpm", "-qa") in cmds
    assert not any(c[0] in ("apt-get", "dpkg") for c in cmds)


def test_mismatch_inside_a_container_is_fixed_on_the_host_never_in_the_container():
    facts = with_platform(facts_of(MISMATCH), container="docker", container_evidence="/.dockerenv")
    f = one(driver.check_library_mismatch, facts)
    r = f.remediation
    assert r.where == "the host"
    assert not any(c[0] == "rmmod" or c[0] == "modprobe" for c in words(r))
    # no reboot in the step (a container older than the host's driver is recreated); the host's reboot is the
    # alternative, for a host whose own nvidia-smi fails too
    assert not [c for c in r.commands if isinstance(c, Cmd) and c.words == ("reboot",)]
    assert r.alternative is not None and r.alternative.where == "the host"
    assert [c.words for c in r.alternative.commands if isinstance(c, Cmd)][-1] == ("reboot",)
    assert "image" in r.summary


def test_two_copies_of_the_library_are_two_installs():
    facts = facts_of(MISMATCH)
    copies = {"libnvidia-ml.so.1": ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "/usr/local/lib/libnvidia-ml.so.1")}
    facts = dataclasses.replace(facts, ldconfig=Found(copies, "cmd:ldconfig -p"))
    f = one(driver.check_library_mismatch, facts)
    assert "two driver installations" in f.detail
    cmds = words(f.remediation)
    assert ("ls", "-l", *copies["libnvidia-ml.so.1"]) in cmds
    assert ("nvidia-uninstall",) in cmds


def test_two_copies_inside_a_container_are_the_image_s():
    facts = facts_of(MISMATCH)
    copies = {"libnvidia-ml.so.1": ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "/opt/drv/libnvidia-ml.so.1")}
    facts = with_platform(dataclasses.replace(facts, ldconfig=Found(copies, "cmd:ldconfig -p")), container="docker")
    r = one(driver.check_library_mismatch, facts).remediation
    assert r.where == "the image"
    assert not any(c[0] in ("reboot", "rmmod") for c in words(r))


def test_mismatch_without_the_library_version_says_what_to_run():
    facts = facts_of(MISMATCH)
    facts = with_driver(facts, smi_error=None, smi_error_kind=None, nvml_error="RM has detected an NVML/RM version mismatch.")
    f = one(driver.check_library_mismatch, facts)
    assert "does not say which side changed" in f.detail
    cmds = words(f.remediation)
    assert ("cat", "/proc/driver/nvidia/version") in cmds and ("modinfo", "-F", "version", "nvidia") in cmds
    assert any(c.pipe == ("grep", "-i", "nvidia") for c in f.remediation.commands if isinstance(c, Cmd))


# --- containers -----------------------------------------------------------------------------------


def test_nvml_unknown_error_after_daemon_reload_is_fixed_on_the_host():
    f = one(driver.check_unreachable, facts_of("docker-nvml-unknown-error-after-daemon-reload"))
    r = f.remediation
    assert (r.component, r.where) == ("container", "the host")
    assert ("nvidia-ctk", "system", "create-dev-char-symlinks", "--create-all") in words(r)
    assert ("docker", "restart", "<container>") in words(r)
    assert "reboot" not in text(r)


@pytest.mark.parametrize("runtime, program", [("docker", "docker"), ("podman", "podman"), ("kubernetes", "kubectl")])
def test_container_without_gpu_gets_its_runtime_s_commands_for_the_host(runtime, program):
    facts = with_platform(facts_of("docker-started-without-gpus"), container=runtime)
    r = one(platform.check_container_no_gpu, facts).remediation
    assert (r.component, r.where) == ("container", "the host")
    assert any(c[0] == program for c in words(r))
    assert "reboot" not in text(r) and "nvidia-driver" not in text(r)


def test_a_hung_driver_in_a_container_is_reset_on_the_host():
    facts = with_platform(facts_of("h100-nvidia-smi-hangs"), container="docker")
    r = one(driver.check_probe_timeout, facts).remediation
    assert r.where == "the host"


# --- MIG: the GPU's own profiles --------------------------------------------------------------------


def _mig_gpu(name: str, gib: float):
    facts = facts_of("a30-mig-enabled-no-instances")
    gpu = dataclasses.replace(facts.driver.gpus[0], name=name, memory_total_bytes=int(gib * 1024**3))
    return with_driver(facts, gpus=(gpu,))


@pytest.mark.parametrize(
    "name, gib, profile",
    [
        ("NVIDIA A30", 24, "2g.12gb"),
        ("NVIDIA A100-SXM4-40GB", 40, "3g.20gb"),
        ("NVIDIA A100 80GB PCIe", 80, "3g.40gb"),
        ("NVIDIA H100 80GB HBM3", 79.6, "3g.40gb"),
        ("NVIDIA H200", 140.4, "3g.71gb"),
    ],
)
def test_mig_instances_are_created_from_the_gpu_s_own_profiles(name, gib, profile):
    r = one(platform.check_mig, _mig_gpu(name, gib)).remediation
    create = [c for c in words(r) if "-cgi" in c][0]
    assert create == ("nvidia-smi", "mig", "-i", "0", "-cgi", f"{profile},{profile}", "-C")
    assert r.component == "gpu"


def test_mig_on_an_unknown_gpu_lists_profiles_first_and_leaves_the_profile_to_the_person():
    r = one(platform.check_mig, _mig_gpu("NVIDIA Future GPU", 300)).remediation
    listing, create = r.commands
    assert listing.words[-1] == "-lgip"
    assert Placeholder("profile") in create.argv
    assert "<profile>" in render(create)


def test_recorded_a30_no_longer_gets_an_a100_profile_id():
    r = one(platform.check_mig, facts_of("a30-mig-enabled-no-instances")).remediation
    assert "9,9" not in text(r) and "2g.12gb,2g.12gb" in text(r)


# --- health: bus ids and indexes as single arguments ---------------------------------------------------


def test_pcie_bus_id_is_one_argument_and_grep_is_a_pipe():
    facts = facts_of("h100nvl-failing-gpu")
    r = next(iter(health.check_pcie(facts, CTX))).remediation
    lspci = next(c for c in r.commands if isinstance(c, Cmd) and c.argv[0] == "lspci")
    assert lspci.argv == ("lspci", "-vv", "-s", "0000:17:00.0") and lspci.root
    assert lspci.pipe == ("grep", "-E", "LnkCap|LnkSta")
    assert render(lspci) == "sudo lspci -vv -s 0000:17:00.0 | grep -E 'LnkCap|LnkSta'"


def test_a_hostile_bus_id_never_reaches_the_command():
    facts = facts_of("h100nvl-failing-gpu")
    evil = dataclasses.replace(facts.driver.gpus[0], pci_bus_id="0000:17:00.0;touch /tmp/x")
    r = next(iter(health.check_pcie(with_driver(facts, gpus=(evil,)), CTX))).remediation
    lspci = next(c for c in r.commands if isinstance(c, Cmd) and c.argv[0] == "lspci")
    assert lspci.argv[-1] == Placeholder("bus-id")
    assert "touch" not in text(r)


# --- driver installation per distribution ---------------------------------------------------------------


@pytest.mark.parametrize(
    "distro, expected",
    [
        (Distro(id="ubuntu", id_like="debian"), ("apt-get", "install", "-y", "nvidia-driver-550-open")),
        (Distro(id="debian"), ("apt-get", "install", "-y", "cuda-drivers-550")),
        (Distro(id="rocky", id_like="rhel centos fedora"), ("dnf", "module", "enable", "-y", "nvidia-driver:550-open")),
        (Distro(id="arch"), ("pacman", "-S", "--needed", "nvidia-open")),
    ],
)
def test_driver_install_uses_the_distribution_s_package_names(distro, expected):
    facts = with_platform(facts_of("rtx4090-device-node-permissions"), distro=distro)
    assert expected in [c.words for c in driver_install(facts, "550", CTX)]


def test_pre_turing_gpus_get_the_proprietary_modules_on_rhel():
    facts = with_platform(facts_of("p100-driver510-torch-cu121"), distro=Distro(id="rhel", version_id="9.3"))
    (cmd,) = driver_install(facts, "535", CTX)
    assert cmd.words == ("dnf", "module", "install", "-y", "nvidia-driver:535-dkms")


def test_unknown_distribution_gets_no_guessed_commands():
    facts = with_platform(facts_of("rtx3080-no-driver"), distro=Distro(id="gentoo"))
    assert driver_install(facts) == () and package_repair(facts) == ()
    f = one(driver.check_driver_missing, facts)
    assert "NVIDIA's installer" in f.remediation.summary


def test_pip_keeps_the_interpreter_path_as_one_argument():
    facts = facts_of("rtx4090-nvcc118-torch-cu121")
    cmd = pip(facts, "install", "torch==2.3.1")
    assert cmd.argv[1:] == ("-m", "pip", "install", "torch==2.3.1")


# --- every fix of these checks, on every recorded machine ---------------------------------------------------


def test_every_remediation_of_these_checks_is_data_with_a_component():
    from gpudoctor.checks import doctor, memory

    checked = 0
    for snapshot in sorted(MACHINES.glob("*/snapshot.json")):
        facts = run_probes(ReplayHost(load_snapshot(str(snapshot))))
        for module in (driver, platform, health, memory, doctor):
            for check in module.CHECKS:
                for f in check.run(facts, CTX):
                    r = f.remediation
                    assert r is not None and r.component, (snapshot.parent.name, f.code)
                    # gpu-none names no command where lspci is not installed (issue 31: none is suggested that the
                    # machine lacks): its fix is the summary's, another machine.
                    no_lspci = f.code == "gpu-none" and not facts.kernel.lspci
                    assert r.commands or no_lspci, (snapshot.parent.name, f.code)
                    for line in r.lines("posix"):
                        assert "not shown" not in line, (snapshot.parent.name, f.code, line)
                    checked += 1
    assert checked >= 20  # the recorded machines give these checks work


def test_a_run_installer_driver_is_removed_before_the_distributions_packages_go_on():
    # /usr/bin/nvidia-uninstall is left by NVIDIA's .run installer only: installing Ubuntu's packages on top
    # would mix two installations, so the step removes the .run installation first (one step, in order).
    import json

    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.planner.remedy import driver_install
    from gpudoctor.probes import run_probes

    path = Path(__file__).resolve().parents[1] / "machines" / "rtx3080-no-driver" / "snapshot.json"
    snap = json.loads(path.read_text(encoding="utf-8"))
    plain = run_probes(ReplayHost(validate_snapshot(json.loads(json.dumps(snap)))))
    assert not plain.kernel.run_installer
    assert [c.argv[0] for c in driver_install(plain)] == ["apt-get", "ubuntu-drivers"]
    snap["files"]["/usr/bin/nvidia-uninstall"] = "#!/bin/sh\n"
    ran = run_probes(ReplayHost(validate_snapshot(snap)))
    assert ran.kernel.run_installer
    assert [c.argv for c in driver_install(ran)][:1] == [("nvidia-uninstall", "--silent")]
    assert [c.argv[0] for c in driver_install(ran)][1:] == ["apt-get", "ubuntu-drivers"]
