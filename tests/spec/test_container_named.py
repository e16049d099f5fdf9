"""The container a plan's commands name (issue 27, "placeholder where the value is known"): where the paste shows the
program's container by name - a `docker run --name`, a compose file's one `container_name:`, a `docker exec NAME` -
every `<container>` is filled with it (gpudoctor.planner.where.container_name); where it shows none, or a variable, or
two, the placeholder stays with the ask that decides it. The name is data: the quoting layer prints it, and a name
docker would refuse is never read as one."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.facts import CONTAINER_NAMED
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from tests.spec.machine import argv_words, pasted_report

BLIND = Path(__file__).resolve().parents[1] / "blind"


def _case(path: str) -> str:
    return (BLIND / path / "input.txt").read_text(encoding="utf-8")


def _named(text: str) -> list[str]:
    snap = read_pasted([Source("t", text)])
    return [c["means"] for c in snap["pasted"]["cues"] if c.get("cue") == CONTAINER_NAMED]


def _asked(text: str) -> list[tuple[str, ...]]:
    r = pasted_report(text)
    return [tuple(str(w) for w in a.command.argv) for a in ask_for(r.facts, r.findings)]


# tests/blind/plans5/cases/447-...: `docker run -it --rm --name comfyui-cn --gpus 0 ...`
GPUS_ZERO = "plans5/cases/447-comfyuidocker93-wsl2-docker-desktop-gpus-0-requests-no-gpu"
# tests/blind/plans6/cases/541-...: a compose file with `container_name: frigate`
FRIGATE = "plans6/cases/541-frigate4819-debian-docker-libnvcuvid-missing-on-host"
# tests/blind/plans6/cases/531-...: a compose file with `container_name: '${LLM_NAME}'` (a variable of its .env)
OLLAMA_VARIABLE = "plans6/cases/531-ollama3417-compose-gpus-in-env-file-no-device-reservation"


def _plan_lines(text: str) -> list[tuple[str, ...]]:
    from gpudoctor.planner.deciders import with_values

    r = pasted_report(text)
    return [a for f in with_values(r.findings, r.facts) if f.remediation for a in argv_words(f.remediation)]


def test_the_docker_run_name_fills_the_exec_after_the_reporters_own_run_again():
    lines = _plan_lines(_case(GPUS_ZERO))
    assert ("docker", "exec", "comfyui-cn", "nvidia-smi") in lines
    # quiet twin: the same run without --name starts a container docker names at random: no name is written in
    lines = _plan_lines(_case(GPUS_ZERO).replace("--name comfyui-cn", ""))
    assert not any("comfyui-cn" in a for a in lines) and any(a[:2] == ("docker", "run") for a in lines)


def test_a_compose_files_one_container_name_is_the_container_asked():
    assert _named(_case(FRIGATE)) == ["frigate"]
    asked = _asked(_case(FRIGATE))
    assert ("docker", "exec", "frigate", "printenv", "NVIDIA_DRIVER_CAPABILITIES") in asked
    assert not any("<container>" in a for a in asked)


def test_a_variable_two_names_or_a_name_docker_refuses_is_no_container_name():
    # the .env's variable is not shown: the ask that lists the containers stays
    assert _named(_case(OLLAMA_VARIABLE)) == []
    asked = _asked(_case(OLLAMA_VARIABLE))
    assert any(a[:2] == ("docker", "ps") for a in asked) and not any("LLM_NAME" in " ".join(a) for a in asked)
    # two services named: which one ran the program is not shown
    assert _named(_case(FRIGATE).replace("container_name: frigate", "container_name: frigate\n    container_name: db")) == []
    # shell syntax is no name docker accepts (daemon/names/names.go): never read as one, so never printed
    hostile = _case(FRIGATE).replace("container_name: frigate", "container_name: frigate;rm -rf ~")
    assert _named(hostile) == []
    assert not any("rm" in a for a in _asked(hostile))
