"""The distribution from a paste's traces where it names none (gpudoctor.pasted.distro_traces): a kernel release, an
Ubuntu kernel build, a package manager run, Debian's multiarch directory; each fact on its line, traces that disagree
decide nothing, and inside a container none decides. The planner then prints the family's install commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.distro_traces import DISTRIBUTIONS, agreed, field_distribution, read_traces
from gpudoctor.pasted.gathered import Gathered
from gpudoctor.pasted.read import _os as read_os_field
from gpudoctor.planner.remedy import family

TESTS = Path(__file__).resolve().parents[1]


def _diagnose(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return report


def _text(path: str) -> str:
    folder = TESTS / path
    name = "input.txt" if (folder / "input.txt").exists() else "report.txt"
    return (folder / name).read_text(encoding="utf-8")


def _cited(text: str) -> list[str]:
    """The lines the os-release fact cites."""
    (fact,) = [f for f in read_pasted([Source("t", text)])["pasted"]["read_from"] if f["fact"] == "files./etc/os-release"]
    return [line["text"] for line in fact["lines"]]


def _argv(report, code: str) -> list[tuple]:
    (finding,) = [f for f in report.findings if f.code == code]
    return [tuple(str(a) for a in c.argv) for c in finding.remediation.commands if isinstance(c, Cmd)]


def test_an_ubuntu_kernel_flavour_gives_ubuntu_and_its_driver_install():
    # CuPy's form: "OS : Linux-6.5.0-41-generic-x86_64-with-glibc2.35", Python's platform(); nouveau holds the GPU
    text = _text("blind/plans10/cases/1004-cupy8395-ubuntu-laptop-rtx3050-bound-to-nouveau-no-nvidia-driver")
    report = _diagnose(text)
    distro = report.facts.platform.distro
    assert (distro.id, distro.id_like, distro.version_id) == ("ubuntu", "debian", None)
    assert any("6.5.0-41-generic" in line for line in _cited(text))
    argv = _argv(report, "driver-nouveau")
    assert ("update-initramfs", "-u") in argv
    # the install before the reboot, no branch shown: the one Ubuntu recommends for the GPU
    assert argv.index(("ubuntu-drivers", "install")) < argv.index(("reboot",))


def test_an_ubuntu_kernel_build_names_the_release_it_was_built_for():
    # apex's thread (tests/blind/plans9 923): `uname -a` "6.2.0-36-generic #37~22.04.1-Ubuntu", an HWE kernel built
    # for 22.04
    text = _text("blind/plans9/cases/923-apex1761-ubuntu2204-torch212-cu121-apt-nvcc115-usr-bin-mismatch")
    distro = _diagnose(text).facts.platform.distro
    assert (distro.id, distro.version_id) == ("ubuntu", "22.04")
    # https://github.com/NVIDIA/nvidia-docker/issues/365: "3.13.0-116-generic #163-Ubuntu" names Ubuntu, not its release
    report = _diagnose(_text("pasted/cases/nvidia-docker-365-kernel-upgrade-module-missing"))
    assert (report.facts.platform.distro.id, report.facts.platform.distro.version_id) == ("ubuntu", None)
    assert ("ubuntu-drivers", "install") in _argv(report, "driver-missing")


def test_an_rpm_kernel_tag_gives_fedora_or_the_rhel_family_with_its_release():
    # https://github.com/negativo17/nvidia-driver/issues/73: the boot line's /vmlinuz-4.20.6-200.fc29.x86_64
    report = _diagnose(_text("pasted/cases/negativo17-73-fedora29-nouveau-holds-gm204"))
    distro = report.facts.platform.distro
    assert (distro.id, distro.version_id, family(report.facts)) == ("fedora", "29", "rhel")
    assert ("dracut", "--force") in _argv(report, "driver-nouveau")
    # accelerate's form (tests/blind/plans7 608): "Linux-3.10.0-957.el7.x86_64-..." names RHEL 7's family, not which
    # of its rebuilds
    text = _text("blind/plans7/cases/608-accel1643-slurm-gres3-accelerate-config-gpu-ids-0-7-overrides-control")
    distro = _diagnose(text).facts.platform.distro
    assert (distro.id, distro.id_like, distro.version_id) == (None, "rhel", "7")


def test_a_package_manager_run_and_the_multiarch_directory_give_the_family_only():
    # faster-whisper's thread (tests/blind/plans2 154): `ls /usr/lib/x86_64-linux-gnu/...`, Debian's multiarch layout
    text = _text("blind/plans2/cases/154-fasterwhisper885-system-cudnn92-ct2-needs-cudnn8")
    distro = _diagnose(text).facts.platform.distro
    assert (distro.id, distro.id_like) == (None, "debian")
    # a reporter's own apt run: the family; Ubuntu's and Debian's driver packages differ, so no driver install
    traced = agreed(read_traces([("t", ["user@box:~$ sudo apt install nvidia-cuda-toolkit"])]))
    assert traced is not None and (traced.distro, traced.family, traced.release) == ("", "debian", "")
    # Debian's kernel since trixie names its release: +deb13
    traced = agreed(read_traces([("t", ["Linux host 6.12.90+deb13.1-amd64 #1 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux"])]))
    assert traced is not None and (traced.distro, traced.release) == ("debian", "13")


def test_quiet_twins_disagreeing_traces_a_dockerfile_line_and_a_container():
    # an Ubuntu kernel beside a dnf run: two families, nothing concluded
    assert agreed(read_traces([("t", ["Linux-5.15.0-91-generic-x86_64-with-glibc2.35", "$ sudo dnf install gcc"])])) is None
    # a Fedora and a RHEL tag: two releases
    assert agreed(read_traces([("t", ["4.20.6-200.fc29.x86_64", "3.10.0-957.el7.x86_64"])])) is None
    # a Dockerfile's RUN line and a sentence about apt are no run on this machine
    assert read_traces([("t", ["RUN apt-get install -y gcc-10", "I tried apt install nvidia-driver-535 first"])]) == []
    # nvidia-docker's thread (tests/blind/plans2 112): a `docker run` report whose kernel is the host's, while the
    # commands it shows ran in the image: no distribution
    text = _text("blind/plans2/cases/112-nvdocker1366-gpus1-no-process-seen-from-other-window")
    assert read_traces([("t", text.splitlines())])  # the trace is there...
    distro = _diagnose(text).facts.platform.distro
    assert (distro.id, distro.id_like) == (None, None)  # ...and decides nothing
    # a stated distribution stands (llama.cpp's "Debian GNU/Linux 13 (trixie)" beside its +deb13 kernel)
    text = _text("blind/plans10/cases/1033-llamacpp24418-debian13-docker-server-cuda-image-driver-550-error-804-gtx1080ti")
    distro = _diagnose(text).facts.platform.distro
    assert (distro.id, distro.version_id, distro.pretty_name) == ("debian", "13", "Debian GNU/Linux 13 (trixie)")


def test_a_package_version_built_for_ubuntu_names_it_and_its_release():
    # the Shine cluster's thread (tests/blind/plans14 1447): apt's history shows unattended-upgrade moving
    # libnvidia-common-460 to 460.80-0ubuntu0.20.04.2 and the reporter ran apt and ubuntu-drivers: Ubuntu 20.04, so
    # the plan's `ubuntu-drivers` exists there (it was an unmet precondition while only apt's family was read)
    text = _text(
        "blind/plans14/cases/1447-shinecluster-50-lab-cluster-ubuntu2004-unattended-upgrade-nvidia-460-then-apt-reinstall-driver-library-mismatch-needs-reboot"
    )
    distro = _diagnose(text).facts.platform.distro
    assert (distro.id, distro.id_like, distro.version_id) == ("ubuntu", "debian", "20.04")
    assert any("0ubuntu0.20.04" in line for line in _cited(text))
    # a graphics-drivers PPA build keeps "ubuntu" before its ~gpu suffix: Ubuntu, its release not read from it
    traced = agreed(read_traces([("t", ["ii  nvidia-driver-470  470.57.02-0ubuntu0~gpu20.04.1  amd64"])]))
    assert traced is not None and (traced.distro, traced.release) == ("ubuntu", "")


def test_quiet_twins_debian_and_nvidia_repository_versions_name_no_ubuntu():
    # Debian's own revision (+debNuM), NVIDIA's CUDA repository's plain -1, and "ubuntu" not in a Debian revision
    lines = ["ii  libc6:amd64  2.31-13+deb11u5  amd64", "ii  cuda-drivers  525.60.13-1  amd64", "tag: my-ubuntu-image"]
    assert read_traces([("t", lines)]) == []


def test_a_distribution_the_reporter_names_gives_its_install_route():
    # AlphaFold's thread (tests/blind/plans17/cases/1745-alphafold-361-fedora-docker-20-run-docker-unknown-runtime-
    # specified-nvidia): "on fedora with docker version 20.10.12" and docker's "Unknown runtime specified nvidia": the
    # container toolkit's install takes the guide's dnf route, not apt's
    report = _diagnose(
        _text("blind/plans17/cases/1745-alphafold-361-fedora-docker-20-run-docker-unknown-runtime-specified-nvidia")
    )
    distro = report.facts.platform.distro
    assert (distro.id, distro.id_like, family(report.facts)) == ("fedora", "rhel", "rhel")
    argv = _argv(report, "container-no-gpu")
    assert ("dnf", "install", "-y", "nvidia-container-toolkit") in argv
    assert not any(a[:1] == ("apt-get",) for a in argv) and ("cat", "/etc/os-release") not in argv
    # JAX's thread (tests/blind/plans11 1113): "running centos 7": CentOS, its release 7
    text = _text("blind/plans11/cases/1113-jax854-centos7-glibc217-jaxlib-xla-extension-needs-glibc223-importerror")
    distro = _diagnose(text).facts.platform.distro
    assert (distro.id, distro.id_like, distro.version_id) == ("centos", "rhel", "7")
    # https://github.com/NVIDIA/nvidia-container-toolkit/issues/268 (tests/blind/pasted 029): "On OpenSUSE Tumbleweed"
    distro = _diagnose(
        _text("blind/pasted/cases/029-nvidia-container-toolkit-268-rootless-podman-insufficient-permissions")
    ).facts.platform.distro
    assert (distro.id, distro.id_like) == ("opensuse-tumbleweed", "suse")


def test_quiet_twins_an_image_tag_two_named_distributions_and_a_docker_run():
    # an image's tag, a file name and a web address name no machine
    lines = ["FROM nvidia/cuda:12.2.0-base on ubuntu:22.04", "built on ubuntu-22.04 runners", "see help.ubuntu.com"]
    assert read_traces([("t", lines)]) == []
    # a derivative not listed names no family word of its own (its ID_LIKE is its base's, which one family word cannot
    # carry): Pop!_OS and Manjaro are not read (Linux Mint is, as one of Ubuntu's archive: the test below)
    assert read_traces([("t", ["on Pop!_OS 22.04", "running Manjaro"])]) == []
    # two distributions in one sentence disagree: nothing concluded
    assert agreed(read_traces([("t", ["it works on Ubuntu 22.04 but not on Fedora 38"])])) is None
    # refact's thread (tests/blind/plans7 638): "Im running ubuntu 22.04 lts" beside a `docker run --gpus all`: the paste
    # shows a container, where no trace decides (the sentence may be the image's)
    text = _text("blind/plans7/cases/638-refact410-ubuntu2204-docker-gpus-all-no-device-driver-toolkit-missing")
    assert read_traces([("t", text.splitlines())])
    distro = _diagnose(text).facts.platform.distro
    assert (distro.id, distro.id_like) == (None, None)


def test_linux_mint_named_takes_ubuntus_driver_packages_never_debians():
    # RPG's thread (tests/pasted/cases/rpg-open-remode-9-driver340-cuda70): "on Linux Mint 17.2", driver 340.93 under a
    # CUDA 7.0 build: Mint's Driver Manager is ubuntu-drivers', so the upgrade is Ubuntu's route, then the reboot
    report = _diagnose(_text("pasted/cases/rpg-open-remode-9-driver340-cuda70"))
    distro = report.facts.platform.distro
    assert (distro.id, distro.id_like) == ("linuxmint", "debian")
    (finding,) = [f for f in report.findings if f.code == "toolkit-newer-than-driver"]
    assert [c.argv for c in finding.remediation.commands if isinstance(c, Cmd)] == [
        ("apt-get", "update"),
        ("ubuntu-drivers", "install"),
        ("reboot",),
    ]
    # nvtop's thread (tests/blind/plans20/cases/2064-*): "on my Linux Mint installation" beside a driver/library
    # mismatch: the package listing and the conditional repair are apt's
    report = _diagnose(
        _text("blind/plans20/cases/2064-nvtop95-linuxmint-gtx1650-nvtop-nvml-driver-library-mismatch-reinstall-driver")
    )
    (finding,) = [f for f in report.findings if f.code == "driver-library-mismatch"]
    argvs = [c.argv for c in finding.remediation.commands if isinstance(c, Cmd)]
    assert ("dpkg", "-l") in argvs and ("dpkg", "--configure", "-a") in argvs


@pytest.mark.parametrize("name,distro", [(name, distro) for name, distro, _, _ in DISTRIBUTIONS])
def test_each_distribution_name_is_read_by_the_sentence_and_the_os_field_readers(name, distro):
    """pasted.distro_traces.DISTRIBUTIONS is the one list of names: a row added there is read both in a sentence about
    the machine (a trace with its ID) and as an OS field's answer (the platform Linux, gpudoctor.pasted.read._os)."""
    said = name.title()
    traces = read_traces([("t", [f"The error happens when running {said} with two GPUs."])])
    assert [(t.distro, t.means) for t in traces] == [(distro, "the distribution the reporter names")]
    g = Gathered()
    assert read_os_field(g, said) is True
    assert g.system == "Linux"


def test_rhel_in_an_os_field_is_linux():
    # "RHEL" was in the sentence reader's names and not in the OS field's: a form's "OS: RHEL 8.6" named no platform
    g = Gathered()
    assert read_os_field(g, "RHEL 8.6") is True
    assert (g.system, g.os_pretty) == ("Linux", "RHEL 8.6")


# --- an OS field's answer: the distribution it names wherever the name stands (issues 27/28) --------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        # TensorRT's form (tests/blind/plans3 216): uname -v's "18.04.1-Ubuntu", the name after its release
        ("blind/plans3/cases/216-trt2218-libnvinfer-builder-resource-842-not-on-path", ("ubuntu", "debian", "18.04")),
        # TensorFlow's form (tests/blind/plans7 602): "WSL2 Ubuntu 22.04", WSL first
        ("blind/plans7/cases/602-tf59413-wsl2-tf211-pip-with-only-cuda12-installed", ("ubuntu", "debian", "22.04")),
        # the GPU Operator's thread (tests/blind/plans18 1818): "Red Hat9.2", the release glued to the name
        (
            "blind/plans18/cases/1818-k8sdm37-kubernetes-rhel92-gpu-operator-v2390-tesla-p4-nouveau-loaded-driver-daemonset-kernel-crash-blacklist",
            ("rhel", None, "9.2"),
        ),
        # https://github.com/pytorch/pytorch/issues/43058: "Red Hat Enterprise Linux Server 7.6 (Maipo)", an edition between
        ("pasted/cases/pytorch-43058-v100-torch160-cu102-driver418", ("rhel", None, "7.6")),
        # a CARLA reporter (tests/blind/plans13 1307): "Ubuntu : Ubuntu 18.04.6 LTS (bionic)", the name twice
        (
            "blind/plans13/cases/1307-libnvct181-ubuntu1804-docker-gpus-all-nvidia-cuda-110-base-tag-removed-manifest-unknown",
            ("ubuntu", "debian", "18.04"),
        ),
        # an Xid report (tests/blind/plans17 1713): lsb_release's "Description:    Gentoo Linux", no listed name: the
        # name's own first word, the field's label left out
        (
            "blind/plans17/cases/1713-ogkm507-gentoo-laptop-rtx3070ti-driver-53041-xid-79-fallen-off-bus-power-thermal",
            ("gentoo", None, None),
        ),
    ],
)
def test_an_os_field_gives_the_distribution_it_names_wherever_the_name_stands(path, expected):
    distro = _diagnose(_text(path)).facts.platform.distro
    assert (distro.id, distro.id_like, distro.version_id or None) == expected


def test_field_distribution_reads_one_name_or_none():
    assert field_distribution("Host is Ubuntu 20.04.5 LTS  aarch64") == ("ubuntu", "debian", "20.04")
    assert field_distribution("CentOS Linux release 7.9.2009 (Core)") == ("centos", "rhel", "7.9")
    assert field_distribution("Debian GNU/Linux 12 (bookworm)") == ("debian", "debian", "12")
    # two distributions decide nothing; a name inside another word is none
    assert field_distribution("Ubuntu 20.04 / CentOS 7") is None
    assert field_distribution("xubuntu-desktop") is None


def test_a_rhel_release_before_8_gets_no_dnf_module_command():
    # RHEL 7.6 (pytorch/pytorch#43058, driver 418 under a CUDA 10.2 torch): yum and no module streams there, so no
    # `dnf module` line is written; the step keeps its prose
    report = _diagnose(_text("pasted/cases/pytorch-43058-v100-torch160-cu102-driver418"))
    argv = [
        tuple(str(a) for a in c.argv)
        for f in report.findings
        if f.remediation
        for c in f.remediation.commands
        if isinstance(c, Cmd)
    ]
    assert not [a for a in argv if a[:1] in (("dnf",), ("sudo",)) and "dnf" in a]
    # a RHEL-family 8+ release keeps NVIDIA's module stream (the GPU Operator's RHEL 9.2 node, plans18 1818, and a
    # kernel's .el9 tag alike: the release, not the family, decides)
    from gpudoctor.planner.remedy import _before_modules

    rhel9 = _diagnose(
        _text(
            "blind/plans18/cases/1818-k8sdm37-kubernetes-rhel92-gpu-operator-v2390-tesla-p4-nouveau-loaded-driver-daemonset-kernel-crash-blacklist"
        )
    )
    assert _before_modules(rhel9.facts) is False
    accel = _diagnose(_text("blind/plans7/cases/608-accel1643-slurm-gres3-accelerate-config-gpu-ids-0-7-overrides-control"))
    assert _before_modules(accel.facts) is True  # "3.10.0-957.el7.x86_64": RHEL 7's family
