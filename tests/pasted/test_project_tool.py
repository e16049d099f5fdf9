"""The tool that manages the program's environment (gpudoctor.planner.where.tool, read from the paste by
gpudoctor.pasted.cues): every package step and every question of the interpreter is written in that tool's own
commands, its pins unchanged; a paste that shows no such tool keeps the interpreter's pip (the quiet twins).

Whole recorded pastes: a uv project (plans8's 805, onnxruntime and onnxruntime-gpu added together with `uv add`), a
venv uv made and fills (plans5's 442, Pinokio's `uv pip install` into app/env), Colab (plans3's 245, CTranslate2's
CUDA 11 cuBLAS), a Jupyter notebook on Windows (plans5's 404, `!pip` beside anaconda3\\envs\\DL), and a pipenv
project (tests/pasted/cases/pipenv-3548-...). Expectations written by hand from each thread; argv, not prose."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.facts import PROJECT_TOOL
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pipeline import CheckRequest, check
from gpudoctor.planner import where
from gpudoctor.planner.actions import classify

TESTS = Path(__file__).resolve().parents[1]
UV_PROJECT = TESTS / "blind/plans8/cases/805-ort23833-ubuntu2204-uv-onnxruntime-and-onnxruntime-gpu-1201-cpu-providers-only"
UV_VENV = TESTS / "blind/plans5/cases/442-pinokio978-wsl-rmbg-app-env-cpu-torch-index-gpu-not-detected"
COLAB = TESTS / "blind/plans3/cases/245-whisperct2-74-colab-cuda12-ct2-3x-libcublas11"
WINDOWS_NOTEBOOK = TESTS / "blind/plans5/cases/404-pt131662-windows-torch240-cu121-fbgemm-dll-libomp-missing"
PIPENV = TESTS / "pasted/cases/pipenv-3548-tf-gpu-libcublas9-beside-cuda10/report.txt"


def _text(path: Path) -> str:
    return (path / "input.txt" if path.is_dir() else path).read_text(encoding="utf-8")


def _run(text: str):
    """The facts, the plan's commands (as `check` prints them, after the consequence model) and the asks' argv."""
    result = check(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")), CheckRequest())
    steps = [c.words for s in result.plan.steps for c in s.commands if isinstance(c, Cmd)]
    asks = [a.command.words for a in result.asks]
    return result.report.facts, steps, asks


def _tools(facts) -> list[str]:
    return [c["means"] for c in facts.pasted.cues if c["cue"] == PROJECT_TOOL]


def _pip_of_python(argv: tuple[str, ...]) -> bool:
    return argv[1:3] == ("-m", "pip")


# --- a uv project: uv remove / uv add, never pip (its .venv has none, and `uv run` syncs the lock back) -------------


def test_a_uv_project_removes_and_adds_with_uv():
    facts, steps, asks = _run(_text(UV_PROJECT))
    assert _tools(facts) == ["uv project"]
    assert ("uv", "remove", "onnxruntime-gpu", "onnxruntime") in steps
    assert ("uv", "add", "onnxruntime-gpu==1.20.1") in steps  # the pin as the conflict rule wrote it
    assert not any(_pip_of_python(s) for s in steps)
    # The interpreter asked through the project, as it is (no sync first).
    code = [a for a in asks if "-c" in a]
    assert code and all(a[:4] == ("uv", "run", "--no-sync", "python") for a in code)


def test_a_venv_that_is_not_uvs_keeps_pip():
    # The same report, the project made with venv and pip: nothing names uv.
    text = (
        _text(UV_PROJECT)
        .replace("root@ubuntu:~/proj# uv init\nInitialized project `proj`\n", "root@ubuntu:~/proj# python3 -m venv .venv\n")
        .replace("uv add onnxruntime-gpu onnxruntime", "pip install onnxruntime-gpu onnxruntime")
        .replace("uv run python3", "python3")
    )
    facts, steps, _ = _run(text)
    assert _tools(facts) == []
    assert ("python3", "-m", "pip", "uninstall", "-y", "onnxruntime-gpu", "onnxruntime") in steps
    assert ("python3", "-m", "pip", "install", "onnxruntime-gpu==1.20.1") in steps
    assert not any(s[0] == "uv" for s in steps)


def test_uv_named_in_prose_is_no_project():
    text = _text(UV_PROJECT).replace("root@ubuntu:~/proj# uv init\n", "I would rather use uv init later\n")
    text = text.replace(
        "root@ubuntu:~/proj# uv add onnxruntime-gpu onnxruntime", "root@ubuntu:~/proj# pip install onnxruntime-gpu onnxruntime"
    )
    text = text.replace("root@ubuntu:~/proj# uv run python3", "root@ubuntu:~/proj# python3")
    assert _tools(_run(text)[0]) == []


# --- a venv uv made (no project): uv's pip interface, told which interpreter -----------------------------------------


def test_a_venv_uv_fills_gets_uv_pip_with_its_python():
    facts, steps, _ = _run(_text(UV_VENV))
    assert _tools(facts) == ["uv venv"]
    py = "/home/lkyu/pinokio/api/RMBG-2-Studio.git/app/env/bin/python"
    installs = [s for s in steps if s[:3] == ("uv", "pip", "install")]
    assert installs and all(s[3:5] == ("--python", py) for s in installs)
    torch = installs[0]
    assert "torch==2.6.0+cu124" in torch and "torchvision==0.21.0+cu124" in torch  # pins unchanged
    assert torch[torch.index("--index-url") + 1] == "https://download.pytorch.org/whl/cu124"


# --- a notebook: %pip into the kernel's interpreter, off Windows ---------------------------------------------------


def test_colab_installs_with_percent_pip():
    facts, steps, _ = _run(_text(COLAB))
    assert _tools(facts) == ["notebook"]
    assert ("%pip", "install", "nvidia-cublas-cu11", "nvidia-cudnn-cu11==8.*") in steps
    assert not any(_pip_of_python(s) for s in steps)


def test_without_the_notebook_cue_the_same_step_is_plain_pip():
    text = _text(COLAB).replace("on google colab", "on my server")
    facts, steps, _ = _run(text)
    assert _tools(facts) == []
    assert ("python3", "-m", "pip", "install", "nvidia-cublas-cu11", "nvidia-cudnn-cu11==8.*") in steps


def test_a_windows_notebook_keeps_the_environments_own_python():
    # `!pip` in Jupyter on Windows: %pip there goes to cmd.exe, which the plan's quoting is not written for; the
    # traceback's anaconda3\envs\DL\python.exe is that kernel's interpreter, run from its prompt.
    facts, steps, _ = _run(_text(WINDOWS_NOTEBOOK))
    assert _tools(facts) == ["notebook"]
    torch = [s for s in steps if "torch==2.4.1" in s]
    assert torch and torch[0][:3] == ("c:\\Users\\Noor\\anaconda3\\envs\\DL\\python.exe", "-m", "pip")


# --- a pipenv project: pipenv's own verbs, else pip through `pipenv run` -------------------------------------------


def test_a_pipenv_project_asks_through_pipenv_run():
    facts, steps, asks = _run(_text(PIPENV))
    assert _tools(facts) == ["pipenv"]  # `"pipenv install tensoflow-gpu"`, quoted in the report's prose
    assert ("pipenv", "run", "python", "-m", "pip", "list") in steps
    code = [s for s in steps if "-c" in s]
    assert code and code[0][:3] == ("pipenv", "run", "python")


def test_plain_pip_in_the_same_report_keeps_python3():
    facts, steps, _ = _run(_text(PIPENV).replace('"pipenv install tensoflow-gpu"', '"pip install tensoflow-gpu"'))
    assert _tools(facts) == []
    assert ("python3", "-m", "pip", "list") in steps


@pytest.mark.parametrize(
    ("pip_args", "expected"),
    [
        (("install", "tensorflow-gpu==1.13.1"), ("pipenv", "install", "tensorflow-gpu==1.13.1")),
        (("uninstall", "-y", "tensorflow-gpu"), ("pipenv", "uninstall", "tensorflow-gpu")),
        # What pipenv's own install cannot say goes to the environment's pip, through pipenv.
        (
            ("install", "--no-deps", "tensorflow-gpu==1.13.1"),
            ("pipenv", "run", "python", "-m", "pip", "install", "--no-deps", "tensorflow-gpu==1.13.1"),
        ),
    ],
)
def test_pipenv_package_steps(pip_args, expected):
    facts = _run(_text(PIPENV))[0]
    assert where.package_step(facts, *pip_args).words == expected


@pytest.mark.parametrize(
    ("pip_args", "expected"),
    [
        (("install", "--force-reinstall", "onnxruntime-gpu==1.20.1"),
         ("uv", "add", "onnxruntime-gpu==1.20.1", "--reinstall-package", "onnxruntime-gpu")),
        (("install", "torch==2.6.0+cu124", "--index-url", "https://download.pytorch.org/whl/cu124"),
         ("uv", "add", "torch==2.6.0+cu124", "--index", "https://download.pytorch.org/whl/cu124")),
        # uv add has no --no-deps: uv's pip interface, in the project's .venv (found from the working directory).
        (("install", "--no-deps", "xformers==0.0.28"), ("uv", "pip", "install", "--no-deps", "xformers==0.0.28")),
        (("list",), ("uv", "pip", "list")),
    ],
)  # fmt: skip
def test_uv_project_package_steps(pip_args, expected):
    facts = _run(_text(UV_PROJECT))[0]
    assert where.package_step(facts, *pip_args).words == expected


# --- the consequence model reads each tool's commands back as pip's ------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "kind", "tool", "names"),
    [
        (("uv", "add", "onnxruntime-gpu==1.20.1"), "pip-install", "uv", ("onnxruntime-gpu",)),
        (("uv", "remove", "onnxruntime"), "pip-uninstall", "uv", ("onnxruntime",)),
        (("poetry", "add", "torch==2.5.1"), "pip-install", "poetry", ("torch",)),
        (("pipenv", "uninstall", "tensorflow-gpu"), "pip-uninstall", "pipenv", ("tensorflow-gpu",)),
        (("pipenv", "run", "python", "-m", "pip", "install", "--no-deps", "x==1"), "pip-install", "pipenv", ("x",)),
        (("%pip", "install", "nvidia-cublas-cu11"), "pip-install", "%pip", ("nvidia-cublas-cu11",)),
        (("uv", "run", "--no-sync", "python", "-c", "import torch"), "inspect", "uv", ()),
    ],
)
def test_each_tools_command_is_read_back(argv, kind, tool, names):
    a = classify(Cmd(argv))
    assert (a.kind, a.tool, tuple(r.name for r in a.requirements)) == (kind, tool, names)


# --- where each step runs: in the program's container or pod, never a container-only path on the host -------------

POD = TESTS / "blind/plans7/cases/650-ollama3211-kubernetes-pod-no-nvml-discovered-node-works-ask"
SWARM = TESTS / "blind/plans8/cases/848-ollama14031-docker-swarm-h100nvl-mig-not-detected-since-0132"
NGC = TESTS / "blind/plans8/cases/820-dle251-docker-ngc-pytorch1908-ssd-dali-cuda-driver-insufficient"


def test_a_pods_server_log_is_kubectls_not_journalctls():
    _, _, asks = _run(_text(POD))
    # the pod's name is not shown: the ask lists the pods to fill into `kubectl logs <pod>` (gpudoctor.planner.deciders)
    assert ("kubectl", "get", "pods", "-A", "-o", "wide") in asks
    assert not any(a[0] == "journalctl" for a in asks)


HELM_POD = (
    TESTS / "blind/plans12/cases/1235-ollamahelm-88-kubernetes-baremetal-ollama-chart-pod-nvidia-smi-works-ollama-no-gpu-ask"
)
DRIVER_POD = TESTS / "blind/plans10/cases/1003-gpuop381-a100-preinstalled-driver-daemonset-stays-init-by-design-control"


def test_a_pod_named_with_its_container_and_namespace_is_asked_by_name():
    """`kubectl exec POD -c CONTAINER -n NAMESPACE -- ...` (the plans12 case 1235, its pod written as the reporter wrote
    it) and `kubectl logs POD -c CONTAINER -n NAMESPACE` (the plans10 case 1003): the container option before the
    namespace no longer hides the namespace, and the server's log is asked of that pod, not of a list of every pod."""
    from gpudoctor.facts import KUBECTL_POD

    _, _, asks = _run(_text(HELM_POD))
    assert ("kubectl", "logs", "-n", "ollama-helm", "My-Ollama-POD") in asks
    assert ("kubectl", "get", "pods", "-A", "-o", "wide") not in asks
    snap = validate_snapshot(read_pasted([Source("t", _text(DRIVER_POD))]), "t")
    assert {c["means"] for c in snap["pasted"]["cues"] if c["cue"] == KUBECTL_POD} == {
        "gpu-operator/nvidia-driver-daemonset-k9jnv"
    }
    # the quiet twin: kubectl naming no pod (a listing) gives no pod to ask by name
    snap = validate_snapshot(read_pasted([Source("t", "$ kubectl describe pods | grep -i nvidia\n")]), "t")
    assert not [c for c in snap["pasted"]["cues"] if c["cue"] == KUBECTL_POD]


def test_the_same_server_on_the_node_keeps_journalctl():
    text = (
        _text(POD)
        .replace("i have cluster kubernetes with 4070 Super GPU", "i have a server with 4070 Super GPU")
        .replace("On kubernetes cluster into container ollama doesn't detect gpu", "On my server ollama doesn't detect gpu")
    )
    text = "\n".join(x for x in text.splitlines() if not x.startswith("stream logs failed"))
    _, _, asks = _run(text)
    assert ("journalctl", "-u", "ollama", "--no-pager") in asks
    assert not any(a[0] == "kubectl" for a in asks)


def test_an_issue_forms_docker_runtime_and_swarm_are_a_container():
    _, _, asks = _run(_text(SWARM))
    # the container's name is not shown: the ask lists the containers to fill into `docker logs <container>`
    assert ("docker", "ps", "-a") in asks
    assert not any(a[0] == "journalctl" for a in asks)
    # Without the form's Runtime and Deployment lines nothing says docker runs the server (its image tag alone does not).
    plain = "\n".join(x for x in _text(SWARM).splitlines() if not x.startswith(("- **Runtime**", "- **Deployment**")))
    assert ("journalctl", "-u", "ollama", "--no-pager") in _run(plain)[2]


def _steps_with_where(text: str):
    result = check(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")), CheckRequest())
    return [(s.where, [c.words for c in s.commands if isinstance(c, Cmd)]) for s in result.plan.steps]


def test_a_driver_step_for_a_container_runs_on_the_host_and_asks_the_interpreter_inside():
    # NGC's SSD container: DALI in /opt/conda fails on the host's driver. Said to run in a docker container, the driver
    # step is the host's, and the container's own interpreter is asked inside the container (its name is not shown, so
    # no `docker exec <container>`: the command itself, marked as run there; gpudoctor.planner.deciders.inside).
    text = "I run this inside the docker container built from the repository's Dockerfile.\n" + _text(NGC)
    ((where_, commands),) = _steps_with_where(text)
    assert where_ == "the host"
    assert ("nvidia-smi",) in commands
    result = check(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")), CheckRequest())
    notes = {c.words: c.note for c in result.plan.steps[0].commands if isinstance(c, Cmd)}
    assert notes[("/opt/conda/bin/python", "-m", "torch.utils.collect_env")] == "inside the container"
    assert not any(w[0] == "docker" and "exec" in w for w in notes)


def test_typed_inside_the_container_its_interpreter_is_run_as_it_is():
    # The same report typed at the container's own prompt (a container id as the host name): no docker exec.
    text = "root@0a1b2c3d4e5f:/workspace# ./examples/SSD300_FP16_4GPU.sh . /coco --save\n" + _text(NGC)
    ((where_, commands),) = _steps_with_where(text)
    assert where_ == "the host"
    assert ("/opt/conda/bin/python", "-m", "torch.utils.collect_env") in commands


def test_a_report_that_names_no_container_keeps_one_unmarked_step():
    ((where_, commands),) = _steps_with_where(_text(NGC))
    assert where_ == ""
    assert ("/opt/conda/bin/python", "-m", "torch.utils.collect_env") in commands


@pytest.mark.parametrize(
    ("argv", "kind", "tool"),
    [
        (("docker", "exec", "<container>", "/opt/conda/bin/python", "-m", "pip", "install", "x==1"), "pip-install",
         "/opt/conda/bin/python"),
        (("kubectl", "exec", "p", "--", "nvidia-smi", "-L"), "inspect", "nvidia-smi"),
    ],
)  # fmt: skip
def test_a_command_run_in_the_container_is_read_as_what_it_runs_there(argv, kind, tool):
    a = classify(Cmd(argv))
    assert (a.kind, a.tool) == (kind, tool)


# --- the consequence model knows the tool is there where the paste shows it run --------------------------------------


def _consequences(text: str, swap=None):
    import dataclasses

    from gpudoctor.checks import run_checks
    from gpudoctor.planner.consequences import consequences

    result = check(ReplayHost(validate_snapshot(read_pasted([Source("report.txt", text)]), "report")), CheckRequest())
    plan = result.plan
    if swap is not None:  # the plan's first step with its package command written for another tool
        first = plan.steps[0]
        commands = tuple(swap if isinstance(c, Cmd) and c.words[1:3] == ("-m", "pip") else c for c in first.commands)
        plan = dataclasses.replace(plan, steps=(dataclasses.replace(first, commands=commands), *plan.steps[1:]))
    return consequences(plan, result.report.facts, result.report.findings, lambda f: run_checks(f)[0])


@pytest.mark.parametrize("case", [UV_PROJECT, UV_VENV, COLAB])
def test_the_tool_the_paste_shows_run_is_no_unmet_precondition(case):
    assert not [v for v in _consequences(_text(case)).violations if v.kind == "unmet-precondition"]


def test_percent_pip_without_a_notebook_is_an_unmet_precondition():
    text = _text(COLAB).replace("on google colab", "on my server")
    got = _consequences(text, swap=Cmd(("%pip", "install", "nvidia-cublas-cu11"))).violations
    assert [v.reason for v in got if v.kind == "unmet-precondition"] == ["%pip is a notebook's: the report shows no notebook"]
