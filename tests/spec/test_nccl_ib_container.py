"""docs/findings/nccl-ib-not-in-container.md: NCCL's 'NET/IB : No device found' where the ranks run in a container and
the text expects InfiniBand is the container started without /dev/infiniband (pytorch/pytorch#111424, NVIDIA/nccl#952);
the line alone in a log, or without a container, is not judged (any machine without RDMA prints it)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from tests.spec.registry import FIRES, QUIET, states

ROOT = Path(__file__).resolve().parents[2]
CODE = "nccl-ib-not-in-container"
_LOG = "node013:37715:38896 [0] NCCL INFO NET/IB : No device found.\n"


def _report(text: str):
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))


def _case(prefix: str) -> str:
    (path,) = ROOT.glob(f"tests/blind/plans22/cases/{prefix}-*/input.txt")
    return path.read_text(encoding="utf-8")


def _steps(finding) -> list[Cmd]:
    return [c for c in finding.remediation.commands if isinstance(c, Cmd)]


@states(CODE, FIRES)
def test_a_docker_run_without_the_rdma_devices_gets_them_on_every_node():
    # NVIDIA/nccl#952 (plans22 2208): the reporter quotes "NCCL INFO NET/IB : No device found" as the problem, beside
    # the docker run each node starts (--network=host, no /dev/infiniband)
    report = _report(_case("2208"))
    (finding,) = (f for f in report.findings if f.code == CODE)
    assert finding.severity.name == "ERROR" and "pasted-error-unexplained" not in {f.code for f in report.findings}
    steps = _steps(finding)
    assert steps[0].argv == ("ibv_devinfo",)
    run = next(s for s in steps if s.argv[:2] == ("docker", "run"))
    assert run.argv[2:6] == ("--device=/dev/infiniband", "--cap-add=IPC_LOCK", "--ulimit", "memlock=-1")
    assert "nvcr.io/nvidia/pytorch:23.06-py3" in run.argv
    assert steps[-1].argv == ("ls", "-l", "/dev/infiniband")  # inside: the devices are there
    # its asks about /dev/shm and the stack decided nothing: the finding's own steps read the devices
    assert not any("/dev/shm" in a.command.argv for a in ask_for(report.facts, report.findings))


@states(CODE, FIRES)
def test_a_slurm_job_in_a_container_with_ib_asked_for_mounts_the_devices():
    # pytorch/pytorch#111424 (plans22 2202): NCCL_IB_DISABLE=0 and `module load docker` in the batch script, NCCL's log
    # with "NET/IB : No device found."; mounting /dev/infiniband into the pyxis container fixed it
    report = _report(_case("2202"))
    (finding,) = (f for f in report.findings if f.code == CODE)
    run = next(s for s in _steps(finding) if s.argv[:1] == ("srun",))
    assert "--container-mounts=/dev/infiniband:/dev/infiniband" in run.argv
    assert run.argv[1:3] == ("--container-image", Placeholder("image"))


@states(CODE, QUIET)
def test_the_line_alone_or_without_a_container_or_without_ib_expected_is_not_judged():
    ib_on = "export NCCL_IB_DISABLE=0\n"
    docker = "docker run --gpus all --network=host nvcr.io/nvidia/pytorch:23.06-py3\n"
    for text in (
        _LOG,  # a log line alone: any host without RDMA prints it
        ib_on + _LOG,  # InfiniBand asked for, no container: the hosts may have none
        docker + _LOG,  # a container, but nothing expects InfiniBand (a log line, not the reporter's problem)
        docker + "export NCCL_IB_DISABLE=1\n" + _LOG,  # InfiniBand turned off on purpose
    ):
        assert CODE not in {f.code for f in _report(text).findings}, text
    assert CODE in {f.code for f in _report(docker + ib_on + _LOG).findings}
