"""After-round h282 (set 20, kinds 3/5/8: the deciding ask missing, asks that cannot run where they are typed, host
steps for a container): RAPIDS' `conda list` ask where pip installed the packages and nothing shows conda; the import
typed at Python's prompt run again where the paste cuts its traceback before the error; nvidia-smi failing in a
container started without the GPU, which no host kernel-module step reaches. Each rule is shown by two real threads; the
quiet twins keep it to them. Expectations by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pasted.cli_json import asked, blind_case, check, paste

pytestmark = pytest.mark.slow

CASES = Path(__file__).resolve().parent / "cases"
BLOCKING = ("warning", "error", "critical")


def _codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in BLOCKING]


def _plan_argv(doc: dict) -> list[list[str]]:
    return [c["argv"] for s in doc["plan"]["steps"] for c in s.get("commands", []) if "argv" in c]


# --- RAPIDS' package list from pip, where pip installed it -------------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [
        "plans20/cases/2003",  # rapidsai/cuml#404: `# pip install cuml-cuda100` in a Docker image
        "plans20/cases/2004",  # rapidsai/cuml#5214: cudf-cu11/cuml-cu11 in ~/.local/lib/python3.8/site-packages
    ],
)
def test_a_pip_install_is_listed_by_pip_not_conda(case: str):
    argv = asked(check(blind_case(case)))
    assert not any(a[:2] == ["conda", "list"] for a in argv)
    assert any(a[1:4] == ["-m", "pip", "list"] for a in argv)


@pytest.mark.parametrize(
    "case",
    [
        "plans18/cases/1810",  # rapidsai/cudf#10308: a conda environment with RAPIDS 22.02
        "plans6/cases/512",  # rapidsai/cudf#13112: a conda list pasted (conda-forge and rapidsai channels)
    ],
)
def test_conda_keeps_its_own_list(case: str):
    # the quiet twins: conda shown, or no pip install shown: conda's list stays
    assert any(a[:2] == ["conda", "list"] for a in asked(check(blind_case(case))))


# --- nvidia-smi inside a container started without the GPU ------------------------------------------------------------


def test_nvidia_smi_unreachable_in_a_plain_docker_run_restarts_it_with_the_gpu():
    # mattshma/bigdata#108: `docker run -v ...` of a Jupyter image, nvidia-smi inside cannot reach the driver, while
    # `nvidia-docker run ... nvidia-smi` works: the run that lacked the GPU is given it, no host kernel-module step
    doc = check(blind_case("plans20/cases/2067"))
    assert _codes(doc) == ["container-no-gpu"]
    runs = [a for a in _plan_argv(doc) if a[:2] == ["docker", "run"]]
    assert runs and runs[0][2:4] == ["--gpus", "all"] and runs[0][-1] == "MY_DOCKER_IMAGE"
    assert not any(a[:1] in (["lsmod"], ["modinfo"]) or "modprobe" in a for a in _plan_argv(doc) + asked(doc))


def test_the_gpu_request_failing_too_is_not_answered_by_requesting_it():
    # ameli/manylinux-cuda#5: plain `docker run -it`, nvidia-smi inside cannot reach the driver; the `--gpus all` run
    # then fails in the container toolkit's hook: no host kernel-module plan, and no --gpus rerun either
    doc = check(CASES / "manylinux-cuda-5-docker-run-it-nvidia-smi-cannot-communicate-then-gpus-hook-fails" / "report.txt")
    assert not {"driver-unreachable", "container-no-gpu"} & set(_codes(doc))
    assert not any("modprobe" in a for a in _plan_argv(doc))


def test_nvidia_smi_unreachable_without_a_container_keeps_the_host_steps(tmp_path: Path):
    # the quiet twin: no docker run shown, the host's module is what the plan reads
    doc = paste(tmp_path, "$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n")
    assert "driver-unreachable" in _codes(doc)


# --- the import a cut traceback hides the error of -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "module"),
    [
        ("plans20/cases/2004", "cuml"),  # rapidsai/cuml#5214: `>>> import cuml`, cut inside rmm's gpu.py
        ("plans18/cases/1810", "cudf"),  # rapidsai/cudf#10308: `import cudf`, cut mid-path
        ("plans3/cases/219", "torchvision"),  # pytorch/vision#9174: `import torchvision`, cut mid-path
    ],
)
def test_a_cut_import_traceback_asks_for_the_import_again(case: str, module: str):
    argv = asked(check(blind_case(case)))
    assert any(a[1:] == ["-c", f"import {module}"] for a in argv)


def test_a_cut_traceback_of_a_function_call_asks_no_import(tmp_path: Path):
    # the quiet twin: the REPL's frame, then a function of a package's module (not its __init__ at module level)
    doc = paste(
        tmp_path,
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/usr/lib/python3/dist-packages/tensorflow/python/client/session.py", line 1511, in __init__\n'
        "    super\n",
    )
    argv = asked(doc)
    assert argv and not any(a[1:] == ["-c", "import tensorflow"] for a in argv)
