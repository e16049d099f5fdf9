"""NVML's "Driver/library version mismatch" inside a docker container: which side differs decides the fix, so the
plan's reads lead (host nvidia-smi and module, the image's NVML/libcuda copies) and recreating the container comes
first only where the text says a new container works (gpudoctor.checks.driver._which_side,
gpudoctor.pasted.container_age). Threads: NVIDIA/nvidia-container-toolkit#171 and NVIDIA/nvidia-docker#843 (a new
container fails: the reads lead), NVIDIA/nvidia-docker#737 (new containers work: recreation leads). Assertions are on
commands and cues (data)."""

from __future__ import annotations

from gpudoctor.facts import NVIDIA_RUNTIME_SAID, STALE_CONTAINER
from tests.unit.test_rule_edges_checks_v2 import findings, from_text

_MISMATCH = "Failed to initialize NVML: Driver/library version mismatch\n"


def _argv(remediation) -> list[tuple[str, ...]]:
    return [tuple(str(a) for a in c.argv) for c in remediation.commands]


def _cues(facts) -> set[str]:
    return {c.get("cue") for c in facts.pasted.cues}


def test_in_a_container_with_nothing_said_the_reads_lead_and_recreation_waits_on_them():
    facts = from_text("nvidia-smi in docker take error: " + _MISMATCH)
    (f,) = findings(facts, "driver-library-mismatch")
    argv = _argv(f.remediation)
    assert argv[0] == ("nvidia-smi",) and argv[1] == ("cat", "/proc/driver/nvidia/version")
    assert argv[2][:5] == ("docker", "run", "--rm", "--gpus", "all") and argv[2][-3:-1] == ("sh", "-c")
    commit = next(c for c in f.remediation.commands if len(c.argv) > 1 and str(c.argv[1]) == "commit")
    assert argv.index(tuple(str(a) for a in commit.argv)) > 2 and commit.note.startswith("only where the host and a new")
    assert f.remediation.alternative is not None and ("sudo", "reboot") in [
        tuple(str(a) for a in (("sudo",) if c.root else ()) + tuple(c.argv)) for c in f.remediation.alternative.commands
    ]


def test_a_new_container_said_to_work_keeps_recreation_first():
    text = (
        "Check the nvidia-smi by connecting the existing containers: " + _MISMATCH + "When I run a new container that is "
        "not an existing list, it works properly with the newly installed driver.\n"
    )
    facts = from_text(text)
    assert STALE_CONTAINER in _cues(facts)
    (f,) = findings(facts, "driver-library-mismatch")
    verbs = [a[1] for a in _argv(f.remediation) if a[0] == "docker"]
    assert "commit" in verbs and "run" not in verbs[: verbs.index("commit")]


def test_nvidia_docker2_shown_starts_the_test_container_with_its_runtime():
    text = "ii  nvidia-docker2  2.0.3+docker18.06.1  all  nvidia-docker CLI wrapper\nnvidia-smi in docker fails: " + _MISMATCH
    facts = from_text(text)
    assert NVIDIA_RUNTIME_SAID in _cues(facts)
    (f,) = findings(facts, "driver-library-mismatch")
    runs = [a for a in _argv(f.remediation) if a[:2] == ("docker", "run")]
    assert runs and all("--gpus" not in a and "--runtime=nvidia" in a and "NVIDIA_VISIBLE_DEVICES=all" in a for a in runs)


def test_a_failing_docker_run_of_an_image_names_it_and_drops_recreation():
    text = "nvidia-smi in docker fails:\n$ docker run --rm --gpus all myorg/app:1.0 nvidia-smi\n" + _MISMATCH
    facts = from_text(text)
    (f,) = findings(facts, "driver-library-mismatch")
    argv = _argv(f.remediation)
    assert argv[2][:6] == ("docker", "run", "--rm", "--gpus", "all", "myorg/app:1.0")
    assert not any(a[1] in ("commit", "rm") for a in argv if a[0] == "docker")


def test_prose_about_containers_without_a_new_one_working_is_no_stale_cue():
    facts = from_text("The new container image fails with " + _MISMATCH)
    assert STALE_CONTAINER not in _cues(facts)
