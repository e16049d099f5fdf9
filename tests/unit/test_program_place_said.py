"""Where the program runs, read from how the reporter says it (blind sets' kind-8 gap, "inside the container/image/pod"):
the container runtime said in prose or in an issue form's field, a pod told by what it does, an Apptainer/Singularity
image built or said. Whole recorded pastes of the open blind sets, expectations written by hand from each thread;
asserted on cues, argv and notes, never the prose."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import read_pasted
from gpudoctor.pasted.read import Source
from gpudoctor.planner import where

BLIND = Path(__file__).resolve().parents[1] / "blind"


def _case(set_name: str, prefix: str):
    path = next((BLIND / set_name / "cases").glob(f"{prefix}-*/input.txt"))
    return _report(path.read_text(encoding="utf-8"))


def _report(text: str):
    return diagnose(ReplayHost(validate_snapshot(read_pasted([Source("issue.txt", text)]), "pasted text")))


def _asks(report) -> list[Cmd]:
    from gpudoctor.pasted.ask import ask_for

    return [a.command for a in ask_for(report.facts, report.findings) if isinstance(a.command, Cmd)]


def test_docker_said_with_on_and_from_places_the_python_reads_inside():
    # SYSTRAN/faster-whisper#278 (plans22/2235): "install faster_whisper on python buster docker", "I prefer to work
    # from docker"; the thread's fix is the image's cuDNN, read inside it, with the host's nvidia-smi beside
    report = _case("plans22", "2235")
    assert where.container_said(report.facts) == "docker"
    asks = _asks(report)
    pythons = [c for c in asks if str(c.argv[0]).startswith("python")]
    assert pythons and all(c.note == "inside the container" for c in pythons)
    assert [c.note for c in asks if c.argv[0] == "nvidia-smi"] == ["on the host"]


def test_rapids_environment_location_field_answered_docker():
    # rapidsai/cuml#404 (plans20/2003): "- Environment location: custom docker"
    report = _case("plans20", "2003")
    assert where.container_said(report.facts) == "docker"
    assert any(c.argv[:1] == ("printenv",) and c.note == "inside the container" for c in _asks(report))


def test_pod_told_by_what_it_does_in_a_kubernetes_cluster():
    # ollama/ollama#6383 (plans19/1944): "deploying ollama in a self-hosted kubernetes cluster ... when the pod starts":
    # the server's log is the pod's (kubectl logs), never a systemd unit's on the node
    report = _case("plans19", "1944")
    assert where.container_said(report.facts) == "kubernetes"
    asks = _asks(report)
    assert not any(c.argv[:1] == ("journalctl",) for c in asks)
    assert any(c.argv[:2] == ("kubectl", "get") for c in asks)


def test_singularity_image_built_from_docker_is_where_the_python_runs():
    # ufoym/deepo#30 (plans23/2342): `sudo singularity build py27-gpu.img docker://ufoym/deepo:all-py27`, then run;
    # the questions are the image's, asked with the driver bound in (--nv), and without the build's sudo
    report = _case("plans23", "2342")
    asks = _asks(report)
    assert ("singularity", "exec", "--nv", "py27-gpu.img", "python3", "-m", "pip", "list") in [c.words for c in asks]
    assert not any(c.root for c in asks if c.argv[:1] == ("singularity",))


def test_singularity_said_without_its_file_is_not_a_placeholder_in_a_step():
    # google-deepmind/alphafold3#141 (plans17/1739): "created a singularity container from that", no file named: the
    # image cue is there (side notes say inside), and no Python read is wrapped around an unknown <sif-file>
    report = _case("plans17", "1739")
    built = where.program_image(report.facts)
    assert built is not None and built.get("runtime") == "singularity" and built.get("means") == ""
    step = where.python_step(report.facts, "-m", "pip", "list")
    assert step.argv[0] != "singularity"


def test_docker_named_as_something_else_places_nothing():
    for text in (
        "On the docker side this works: nvidia-smi lists the GPU\n",
        "I pulled it from docker hub and installed it on the host\n",
        "I installed docker on ubuntu 22.04 and the driver 535\n",
    ):
        report = _report(text + "RuntimeError: No CUDA GPUs are available\n")
        assert where.container_said(report.facts) is None, text
