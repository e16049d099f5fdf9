"""The container runtime's requirement error cut inside its condition (gpudoctor.parsers.error_texts'
_CONTAINER_CUDA_CUT, checks.reported.check_reported_container).

nvidia-container-cli's conditions are cuda, driver, arch and brand (NVIDIA/libnvidia-container src/cli/configure.c
@e27a4a75, `rules[]`): a message that ends "unsatisfied condition: cu" where the paste ends is the image's CUDA
requirement refused by the host's driver, its version unread. The version is never filled in, and the switch that
skips the check (NVIDIA_DISABLE_REQUIRE, sound only within one CUDA major) is not offered without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

ROOT = Path(__file__).resolve().parents[2]
# A Runpod pod of 2x A100 starting a TGI image, the hook's message cut inside its condition where the stored copy ends.
CUT_CASE = ROOT / "tests/blind/plans12/cases/1213-tgi1391-runpod-2xa100-tgi-latest-image-needs-cuda121-driver-older/input.txt"
# https://github.com/SyneRBI/PETRIC2/issues/27: the whole message (docker run --gpus all on a 551.78 driver).
WHOLE = (
    "docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime "
    "create failed: runc create failed: unable to start container process: error during container init: error running "
    "prestart hook #0: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n"
    "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer "
    "version, or use an earlier cuda container\n"
)
# https://github.com/moby/moby/issues/38757: the hook refusing the image's brand condition, not its CUDA.
BRAND = (
    "docker: Error response from daemon: OCI runtime create failed: container_linux.go:348: starting container process "
    'caused "process_linux.go:402: container init caused \\"process_linux.go:385: running prestart hook 1 caused '
    '\\\\\\"error running hook: exit status 1, stdout: , stderr: exec command: [/usr/bin/nvidia-container-cli '
    "--load-kmods configure --ldconfig=@/sbin/ldconfig.real --device=all --compute --utility --require=cuda>=10.0 "
    "brand=tesla,driver>=384,driver<385 --pid=28631 /var/lib/docker/aufs/mnt/9ebf41a7806e]\\\\\\\\nnvidia-container-cli: "
    'requirement error: unsatisfied condition: brand = tesla\\\\\\\\n\\\\\\"\\"": unknown.\n'
)


def _run(text: str):
    snap = read_pasted([Source("report.txt", text)])
    report = diagnose(ReplayHost(validate_snapshot(snap, "report")))
    assert not report.internal_errors, report.internal_errors
    return report


def _requirement(report) -> list:
    return [e for e in report.facts.pasted.errors if e.kind == "container-requires-cuda"]


def test_the_requirement_cut_inside_its_condition_is_the_drivers_cuda_with_the_version_unread():
    report = _run(CUT_CASE.read_text(encoding="utf-8"))
    [e] = _requirement(report)
    assert e.get("cuda") is None
    [f] = [f for f in report.findings if f.code == "toolkit-newer-than-driver"]
    assert f.severity.name == "ERROR" and f.area == "driver"
    assert f.remediation.where == "the host"
    # no version invented, and no NVIDIA_DISABLE_REQUIRE without the version that decides whether it is sound
    assert "None" not in f.title + f.detail + f.remediation.summary
    assert f.remediation.alternative is None
    assert "pasted-error-unexplained" not in {x.code for x in report.findings}


# The whole message of another report cut where a stored copy or a terminal cuts it: each cut inside the condition
# reads as the CUDA requirement without a version; the whole one keeps its version.
@pytest.mark.parametrize("cut", ["c", "cu", "cud", "cuda", "cuda>=", "cuda>=1", "cuda>=12"])
def test_a_real_message_cut_anywhere_in_its_cuda_condition_reads_the_same(cut):
    head = WHOLE[: WHOLE.index("unsatisfied condition: ") + len("unsatisfied condition: ")]
    for tail in ("", "\n", "\n```\n"):
        [e] = _requirement(_run(head + cut + tail))
        assert e.get("cuda") is None


def test_the_whole_message_keeps_its_version_and_its_alternative():
    report = _run(WHOLE)
    [e] = _requirement(report)
    assert e.get("cuda") == "12.8"
    [f] = [f for f in report.findings if f.code == "toolkit-newer-than-driver"]
    assert "12.8" in f.title


def test_quiet_twin_another_condition_or_words_after_it_are_not_a_cuda_requirement():
    # the brand condition refused (moby/moby#38757): not the driver's CUDA, whatever --require=cuda>= the command shows
    assert not _requirement(_run(BRAND))
    # a cut "cu" with the text going on after it is not a message cut where the paste ends
    head = WHOLE[: WHOLE.index("unsatisfied condition: ") + len("unsatisfied condition: ")]
    assert not _requirement(_run(head + "cu\nthen I rebooted and it works now\n"))
