"""`docker exec <container> CMD` with the container's name unknown is CMD run inside it (gpudoctor.planner.deciders)."""

from __future__ import annotations

from gpudoctor.cmdline import Cmd, Placeholder
from gpudoctor.planner.deciders import fill, inside, placeholders


def test_an_exec_into_an_unnamed_container_is_its_command_marked_inside():
    line = Cmd(("docker", "exec", Placeholder("container"), "/opt/conda/bin/python", "-m", "pip", "list"))
    got = inside(line)
    assert (got.argv, got.note) == (("/opt/conda/bin/python", "-m", "pip", "list"), "inside the container")
    assert not placeholders(got)


def test_an_exec_into_an_unnamed_pod_drops_kubectls_separator():
    line = Cmd(("kubectl", "exec", Placeholder("pod"), "--", "nvidia-smi", "-L"), note="the pod's GPUs")
    got = inside(line)
    assert (got.argv, got.note) == (("nvidia-smi", "-L"), "inside the pod; the pod's GPUs")


def test_a_named_container_keeps_docker_exec():
    # quiet twin: the facts name the container, so the filled command runs from the host as it is
    line = fill(Cmd(("docker", "exec", Placeholder("container"), "python3", "-V")), {"container": "ssd"})
    assert inside(line) == line and line.argv[:3] == ("docker", "exec", "ssd")


def test_execs_own_options_are_not_dropped():
    # quiet twin: `-u 1000` or `-w /work` change what the command does; the bare command would lose them
    line = Cmd(("docker", "exec", "-u", "1000", Placeholder("container"), "id"))
    assert inside(line) == line


def test_other_commands_and_logs_are_left_as_they_are():
    for line in (Cmd(("docker", "logs", Placeholder("container"))), Cmd(("nvidia-smi",))):
        assert inside(line) == line
