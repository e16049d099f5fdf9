"""NVENC/NVDEC failing where the host's package listing shows the NVIDIA driver without its video library package
(issues 27/28): the package named at the driver's version. Minimal pastes, data asserted."""

from __future__ import annotations

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.spec.registry import FIRES, QUIET, states

CODE = "driver-video-library-missing"
APT_DEBIAN = (
    "# apt list --installed | grep nvidia\n"
    "libnvidia-encode1/unknown,now 535.104.05-1 amd64 [installed]\n"
    "nvidia-driver/unknown,now 535.104.05-1 amd64 [installed]\n"
    "nvidia-smi/unknown,now 535.104.05-1 amd64 [installed]\n"
)
DPKG_UBUNTU = (
    "$ dpkg -l | grep nvidia\n"
    "ii  libnvidia-compute-535:amd64   535.183.01-0ubuntu0.22.04.1  amd64  NVIDIA libcompute package\n"
    "ii  libnvidia-encode-535:amd64    535.183.01-0ubuntu0.22.04.1  amd64  NVENC Video Encoding runtime library\n"
    "ii  nvidia-driver-535             535.183.01-0ubuntu0.22.04.1  amd64  NVIDIA driver metapackage\n"
)
CANNOT_LOAD = "[h264_cuvid @ 0x55d5] Cannot load libnvcuvid.so.1\n"


def _run(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    found = {f.code: f for f in report.findings}
    cmds = [c.argv for c in found[CODE].remediation.commands if isinstance(c, Cmd)] if CODE in found else []
    return found, cmds


@states(CODE, FIRES)
def test_debian_listing_without_libnvcuvid1_installs_it_at_the_drivers_version():
    found, cmds = _run(APT_DEBIAN + "hwaccel_args: -c:v h264_cuvid # doesn't work\n")
    assert CODE in found
    assert cmds == [("ldconfig", "-p"), ("apt-get", "install", "-y", "libnvcuvid1=535.104.05-1")]


@states(CODE, FIRES)
def test_ubuntu_dpkg_rows_name_the_branchs_decode_package():
    found, cmds = _run(DPKG_UBUNTU + CANNOT_LOAD)
    assert cmds[-1] == ("apt-get", "install", "-y", "libnvidia-decode-535=535.183.01-0ubuntu0.22.04.1")


@states(CODE, FIRES)
def test_ffmpeg_naming_the_encoder_asks_only_for_the_encoder_package():
    listing = APT_DEBIAN.replace("libnvidia-encode1/unknown,now 535.104.05-1 amd64 [installed]\n", "")
    found, cmds = _run(listing + "[h264_nvenc @ 0x1] Cannot load libnvidia-encode.so.1\n")
    assert cmds[-1] == ("apt-get", "install", "-y", "libnvidia-encode1=535.104.05-1")


@states(CODE, QUIET)
def test_a_listing_with_the_video_packages_is_quiet():
    listing = APT_DEBIAN + "libnvcuvid1/unknown,now 535.104.05-1 amd64 [installed]\n"
    found, _ = _run(listing + CANNOT_LOAD)
    assert CODE not in found


@states(CODE, QUIET)
def test_a_listing_without_a_video_failure_is_quiet():
    found, _ = _run(APT_DEBIAN)
    assert CODE not in found and "pasted-error-unexplained" not in found
