"""NVENC/NVDEC failing where the host's package listing shows the NVIDIA driver without its video library package
(issues 27/28): the package named at the driver's version. Minimal pastes, data asserted."""

from __future__ import annotations

from pathlib import Path

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
    assert cmds == [("ldconfig", "-p"), ("apt-get", "update"), ("apt-get", "install", "-y", "libnvcuvid1=535.104.05-1")]


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


CAPABILITY = "container-video-capability-missing"
PLANS9 = Path(__file__).resolve().parents[1] / "blind" / "plans9" / "cases"
# https://github.com/ErsatzTV/legacy/issues/1977: its title (FFmpeg's message) and the reporter's comment, verbatim;
# adding the video capability to --gpus made the library load (the thread's next error is the encoder's parameters)
_ERSATZTV_1977 = """Cannot load libnvidia-encode.so.1

`docker exec ersatztv nvidia-smi` same output

starting with `docker start ersatztv`
"""
# https://github.com/NVIDIA/nvidia-docker/issues/766 (its report, verbatim): the video capability passed, and the
# library still missing: not the capability (that container was not run by the NVIDIA runtime at all)
_NVIDIA_DOCKER_766 = """I _think_ from reading https://github.com/NVIDIA/nvidia-docker/issues/531 that provided I use docker-nvidia wrapper (as opposed to just "docker"), and pass NVIDIA_DRIVER_CAPABILITIES=compute,utility,video as an environment variable, that nvidia-docker will mount the necessary libraries etc into my container "on-the-fly", and ffmpeg will "just work".

Sadly, this is not the case (I've probably misunderstood), and I get our old friend:

```
[h264_cuvid @ 0x1ec8780] Cannot load libnvcuvid.so.1
[h264_cuvid @ 0x1ec8780] Failed loading nvcuvid.
```

Further, libnvcuvid.so.1 is nowhere to be found on the container's filesystem.
"""


def _argvs(finding) -> list[tuple]:
    return [tuple(map(str, c.argv)) + tuple(map(str, c.pipe)) for c in finding.remediation.commands if isinstance(c, Cmd)]


@states(CAPABILITY, FIRES)
def test_a_video_library_missing_in_a_named_container_recreates_it_with_the_video_capability():
    # tests/blind/plans9 case 903 (DALI#2362): DALI's VideoReader, a container entered with docker exec; ErsatzTV#1977:
    # FFmpeg's encoder, a container docker exec names
    text = next(PLANS9.glob("903-*")).joinpath("input.txt").read_text(encoding="utf-8")
    for paste, name in ((text, "slowfast"), (_ERSATZTV_1977, "ersatztv")):
        found, _ = _run(paste)
        f = found[CAPABILITY]
        assert (f.remediation.where, f.remediation.component) == ("the host", "container")
        argvs = _argvs(f)
        assert argvs[0][:3] == ("docker", "inspect", name)
        assert argvs[1] == ("docker", "commit", name, f"{name}:video")
        assert argvs[2] == ("docker", "rm", "-f", name)
        assert argvs[3] == (
            "docker",
            "run",
            "-it",
            "--name",
            name,
            "--gpus",
            'all,"capabilities=compute,utility,video"',
            f"{name}:video",
        )
        # never a driver installed inside the container, never the variable exported in it
        assert not any(a[0] in ("apt-get", "export") for a in argvs)


@states(CAPABILITY, QUIET)
def test_a_container_that_asked_for_video_or_a_host_listing_is_not_the_capability():
    # the quiet twins: the capability passed (nvidia-docker#766; plans9 914, DALI#4034: set, and a driver then installed
    # in the container); a video library missing with no container named; the host's package listing (the package rule)
    text_914 = next(PLANS9.glob("914-*")).joinpath("input.txt").read_text(encoding="utf-8")
    for paste in (_NVIDIA_DOCKER_766, text_914, CANNOT_LOAD, "$ docker exec -it web bash\n" + DPKG_UBUNTU + CANNOT_LOAD):
        found, _ = _run(paste)
        assert CAPABILITY not in found, found.keys()
