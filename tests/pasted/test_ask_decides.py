"""Asks that decide (issues 27/28), on whole recorded reports (the blind sets' inputs): each asked where the failure
ran (inside a cluster job: gpudoctor.planner.where.in_job), in the interpreter the paste shows (a site-packages path
wrapped onto the next line, runpy's own error naming sys.executable: gpudoctor.pasted.read), none for a cause the paste
rules out (a framework in the same environment reaching the GPU: gpudoctor.checks.symptoms), and each with its own
description (catalogue.toml's `each`). Each rule beside its quiet twin; argv, notes and fields, not prose."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.parsers.catalogue import _each, components, messages
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.planner.where import IN_JOB

BLIND = Path(__file__).resolve().parents[1] / "blind"


def _text(case: str) -> str:
    folder, name = case.split("/")
    return next((BLIND / folder / "cases").glob(f"{name}-*/input.txt")).read_text(encoding="utf-8")


def _asks(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")))
    return report, ask_for(report.facts, report.findings)


# --- where: inside the job ---------------------------------------------------------------------------------------

_SLURM = "plans8/849"  # timm#1033: DDP through slurm on a shared cluster, GPUs busy or unavailable


def test_a_slurm_jobs_reads_of_its_own_environment_are_asked_inside_the_job():
    _, asks = _asks(_text(_SLURM))
    noted = {a.command.argv[:2]: a.command.note for a in asks}
    # the compute node's GPUs, their compute mode and holders, not the login node's (error 46: the build decides
    # nothing of it, so no interpreter is asked: tests/pasted/test_asks_decide_once.py)
    assert noted[("nvidia-smi", "--query-gpu=index,uuid,compute_mode")] == IN_JOB
    assert noted[("env",)] == IN_JOB  # the variables the scheduler set for the job
    # the job's id, from the job's own environment (its batch script's output)
    assert noted[("printenv", "SLURM_JOB_ID")].startswith("inside the job")


def test_the_same_report_from_a_workstation_asks_on_its_own_shell():
    text = _text(_SLURM).replace("through slurm on a shared cluster", "on my workstation")
    _, asks = _asks(text)
    assert asks and all(a.command.note != IN_JOB for a in asks)


# --- the interpreter the paste shows -----------------------------------------------------------------------------

_JAX_ENV = "plans11/1112"  # jax#2594: JAX on the CPU in a conda env whose torch sees the GPU, its path wrapped
_ENV_PYTHON = "/home/michelangelo/miniconda3/envs/nlp_36/bin/python"


def test_a_site_packages_path_wrapped_onto_the_next_line_names_the_environments_interpreter():
    report, asks = _asks(_text(_JAX_ENV))
    assert report.facts.frameworks.python.value.executable == _ENV_PYTHON
    pythons = [a.command.argv[a.command.argv[0] == "env" and 2 or 0] for a in asks if "jax" in " ".join(map(str, a.command.argv))]
    assert pythons and set(pythons) == {_ENV_PYTHON}


def test_a_path_head_with_words_after_it_is_no_wrapped_path():
    text = _text(_JAX_ENV).replace(
        "/home/michelangelo/miniconda3/envs/nlp_36/\n", "/home/michelangelo/miniconda3/envs/nlp_36/ says\n"
    )
    _, asks = _asks(text)
    assert not any(_ENV_PYTHON in map(str, a.command.argv) for a in asks)


_RUNPY = "plans11/1109"  # DeepSpeed#2707: "/home/ub_flan/bert/bert/bin/python3: Error while finding module specification"


def test_runpys_own_error_names_the_interpreter_that_ran():
    _, asks = _asks(_text(_RUNPY))
    found = [a for a in asks if "importlib.util" in " ".join(map(str, a.command.argv))]
    assert found and found[0].command.argv[0] == "/home/ub_flan/bert/bert/bin/python3"


def test_runpys_error_from_the_systems_python_keeps_the_usual_name():
    _, asks = _asks(_text(_RUNPY).replace("/home/ub_flan/bert/bert/bin/python3:", "/usr/bin/python3:"))
    found = [a for a in asks if "importlib.util" in " ".join(map(str, a.command.argv))]
    assert found and found[0].command.argv[0] == "python3"


# --- a cause the paste rules out is not asked --------------------------------------------------------------------


def test_a_gpu_reached_in_the_same_environment_rules_out_a_variable_hiding_it():
    report, asks = _asks(_text(_JAX_ENV))  # torch.cuda.is_available() answered True in the same env and IDE
    assert ("printenv", "CUDA_VISIBLE_DEVICES") not in [a.command.argv for a in asks]
    unexplained = next(f for f in report.findings if f.code == "pasted-error-unexplained")
    assert "CUDA_VISIBLE_DEVICES" not in unexplained.detail


def test_without_that_answer_the_variable_is_still_asked():
    text = _text(_JAX_ENV).replace("torch.cuda.is_available()\n\nTrue", "torch.cuda.is_available()")
    _, asks = _asks(text)
    assert ("printenv", "CUDA_VISIBLE_DEVICES") in [a.command.argv for a in asks]


# --- each ask its own description ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [
        "plans11/1107",  # ncclSystemError: /dev/shm and NCCL's log
        "plans11/1152",  # unspecified launch failure: the kernel's Xid and the GPU's temperature, power, ECC
        "plans11/1112",  # No GPU/TPU found: jaxlib's build and its backend's log
        "plans8/849",  # CUDA devices unavailable: compute mode and the processes on each GPU
    ],
)
def test_two_asks_never_share_one_description(case):
    _, asks = _asks(_text(case))
    whys = [a.why for a in asks]
    assert len(asks) >= 2 and len(set(whys)) == len(whys)


def test_a_catalogue_entrys_own_texts_match_its_asks():
    for m in messages():
        assert not m.each or len(m.each) == len(m.ask), m.id
    for c in components():
        for asks, texts in c.each:
            assert len(texts) == len(getattr(c, asks)), c.id
    with pytest.raises(ValueError, match="each_linux"):
        _each({"id": "x", "ask_linux": [["ldconfig", "-p"]], "each_linux": ["one", "two"]}, ("ask", "ask_linux"))


# --- where: a container the reporter says they use -------------------------------------------------------------------

_CONTAINER = "plans7/611"  # xgboost#11482: "I am using UBI9 nvidia CUDA 12.6 x86 container."


def test_a_container_the_reporter_says_they_use_is_where_the_asks_run():
    _, asks = _asks(_text(_CONTAINER))
    pip = next(a for a in asks if "xgboost" in a.command.argv)
    assert pip.command.note == "inside the container"
    assert any(a.command.argv[:2] == ("docker", "run") and a.command.note == "on the host" for a in asks)


def test_without_that_sentence_the_asks_run_on_the_machine():
    _, asks = _asks(_text(_CONTAINER).replace("I am using UBI9 nvidia CUDA 12.6 x86 container.", ""))
    assert not any(a.command.note in ("inside the container", "on the host") for a in asks)


def test_an_errors_advice_to_use_another_container_names_no_container_of_the_reporters():
    text = (BLIND.parent / "pasted" / "cases" / "vortex-106-container-requires-cuda102" / "report.txt").read_text(
        encoding="utf-8"
    )
    assert "use an earlier cuda container" in text
    report, _ = _asks(text)
    assert not report.facts.pasted.cues


_CHINESE = "plans7/610"  # Paddle#39102: "进入容器后通过pip安装" (after entering the container, installed with pip)


def test_a_container_said_in_chinese_is_where_the_asks_run():
    _, asks = _asks(_text(_CHINESE))
    loader = [a for a in asks if a.command.argv[:1] in (("ldconfig",), ("printenv",))]
    assert loader and all(a.command.note == "inside the container" for a in loader)


def test_an_image_said_in_chinese_names_no_container():
    _, asks = _asks(_text(_CHINESE).replace("\u5bb9\u5668", "\u955c\u50cf"))  # every "container" made "image"
    assert not any(a.command.note == "inside the container" for a in asks)


# --- the ask that decides a finding with no command names it (Ask.codes) -------------------------------------------


def test_a_kernel_image_missing_with_neither_gpu_nor_build_known_names_the_arch_list_ask_as_its_step():
    # pytorch#149845: "no kernel image" on an RTX 5090 D after a nightly install, which torch ran not shown: the
    # finding has no command of its own, and torch's `when` ask for that line (its arch list) is what decides it.
    report, asks = _asks(_text("plans5/406"))
    (f,) = [f for f in report.findings if f.code == "framework-arch-unsupported"]
    assert not (f.remediation and f.remediation.commands)
    linked = [a.command.argv[-1] for a in asks if "framework-arch-unsupported" in a.codes]
    assert linked == ["import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list())"]
    # (the general questions decide nothing of it in particular: they name no finding)
    assert not any(a.codes for a in asks if a.command.argv[:3] == ("python3", "-m", "torch.utils.collect_env"))


def test_the_same_ask_beside_a_finding_with_its_own_command_names_nothing():
    # comfyui-docker#61: the same "no kernel image" line, a GTX 1080 Ti and the container's torch shown, so the finding
    # prints its own fix: torch's arch-list ask is still asked, made for that line, but completes no finding.
    report, asks = _asks(_text("plans4/357"))
    (f,) = [f for f in report.findings if f.code == "framework-arch-unsupported"]
    assert f.remediation is not None and f.remediation.commands
    (made,) = [a for a in asks if a.made_for == ("no-kernel-image",)]
    assert made.command.argv[-1].endswith("torch.cuda.get_arch_list())") and made.codes == ()


# --- the GPU Operator's node: its pods decide, not the typing shell's stack --------------------------------------

# NVIDIA/gpu-operator#1947 (the validator on OpenShift), #133 (the validation hook's driver error) and
# open-webui/open-webui#2165 (pods on a k3s node the operator manages): no Python program of the reporter's is shown.
_OPERATOR = ("plans7/625", "plans23/2303", "plans22/2252")


@pytest.mark.parametrize("case", _OPERATOR)
def test_a_gpu_operator_node_is_asked_for_the_operators_pods_and_release(case):
    _, asks = _asks(_text(case))
    argvs = [a.command.argv for a in asks]
    assert ("kubectl", "describe", "pods", "-A", "-l", "app=nvidia-driver-daemonset") in argvs
    assert ("helm", "list", "-A") in argvs
    assert any(
        argv[:4] == ("kubectl", "get", "pods", "-A") and "device-plugin" in " ".join(a.command.pipe)
        for a in asks
        for argv in [a.command.argv]
    )
    # the shell's own packages, toolkit and GPU-selecting variable are not asked there
    assert not [a for a in asks if "pip" in a.command.argv or a.command.argv[:1] == ("nvcc",)]
    assert ("printenv", "CUDA_VISIBLE_DEVICES") not in argvs


def test_a_healthy_report_from_an_operator_node_is_not_asked_for_its_pods():
    # NVIDIA/gpu-operator#381: a driver daemonset that stays in Init by design beside a preinstalled driver (no failure)
    _, asks = _asks(_text("plans10/1003"))
    assert not [a for a in asks if a.command.argv[:1] in (("kubectl",), ("helm",))]
