"""Containers in pasted reports: NCCL's shared memory in a pod or a docker container, docker's `--gpus 0`."""

from __future__ import annotations

from gpudoctor.cmdline import Placeholder
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted

NCCL_SHM = (
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled "
    "system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
    "Last error:\n"
    "Error while creating shared memory segment /dev/shm/nccl-F9ffgB (size 9637888)\n"
)


def _codes(text: str):
    snapshot = validate_snapshot(read_pasted([Source("t", text)]), "t")
    report = diagnose(ReplayHost(snapshot))
    assert not report.internal_errors, report.internal_errors
    return {f.code: f for f in report.findings}


def _argv(f) -> list[tuple]:
    return [tuple(str(a) if isinstance(a, Placeholder) else a for a in c.argv) for c in f.remediation.commands]


def test_nccl_shm_segment_in_a_pod_mounts_a_memory_emptydir_at_dev_shm():
    codes = _codes(
        NCCL_SHM + "When I check shm size in the deployment pod it only has 64MB:\nkubectl exec -it x -- df -h /dev/shm\n"
    )
    f = codes["shm-too-small"]
    argv = _argv(f)
    assert argv[0] == ("kubectl", "get", "pods", "-o", "wide")
    assert ("kubectl", "edit", "deployment", "<deployment>") in argv
    assert not any("docker" in a for a in argv)
    assert f.remediation.where == "the cluster"
    assert "pasted-error-unexplained" not in codes


def test_nccl_shm_segment_in_docker_recreates_the_reporters_container_with_ipc_host():
    codes = _codes(NCCL_SHM + "docker run --gpus all --rm -it video-diffusion /bin/bash\n")
    argv = _argv(codes["shm-too-small"])
    assert argv[0] == ("docker", "run", "--ipc=host", "--gpus", "all", "--rm", "-it", "video-diffusion", "/bin/bash")


def test_nccl_attaching_to_a_segment_is_not_read_as_dev_shm_too_small():
    # "attaching to" is a peer's segment gone (another cause, vllm-project/vllm#18831): not the size of /dev/shm.
    codes = _codes(
        "NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-glnlGK (size 14156128), error: No such "
        "file or directory (2)\n"
    )
    assert "shm-too-small" not in codes
