"""After-round h247 (plans17): the reporter's interpreter and the cheap fix first. Recorded pastes, expectations by
hand; each rule with the near miss that must not fire."""

from __future__ import annotations

from pathlib import Path

from tests.pasted.cli_json import blind_case, check

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _argvs(doc: dict) -> list[list[str]]:
    return [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"] if "argv" in c]


def _asks(doc: dict) -> list[list[str]]:
    return [a["argv"] for a in doc["pasted"]["ask_for"] or []]


def test_a_stated_python_2_is_run_as_python_not_python3():
    # tensorflow/tensorflow#33359 (tests/blind/plans17/cases/1720-*): the form says "Python version: 2.7" on CentOS 7,
    # where /usr/bin/python is 2.7 and a python3, if any, holds other packages: the .bashrc keeper and the asks run
    # `python`
    doc = check(blind_case("plans17/cases/1720"))
    assert doc["facts"]["frameworks"]["python"]["value"]["executable"] == "python"
    assert any(a[0] == "python" and a[1] == "-c" for a in _argvs(doc))
    assert not [a for a in _argvs(doc) + _asks(doc) if a and a[0] == "python3"]
    # tensorflow/tensorflow#10073 (tests/blind/plans16/cases/1615-*): the version from the traceback's
    # /usr/local/lib/python2.7/dist-packages, in an nvidia/cuda:8.0 image
    doc = check(blind_case("plans16/cases/1615"))
    assert ["python", "-m", "pip", "list"] in _asks(doc)


def test_a_stated_python_3_keeps_python3():
    # the near miss: NVIDIA/nccl#1113 (tests/blind/plans17/cases/1724-*) states "Python 3.7.5" under WSL 2
    doc = check(blind_case("plans17/cases/1724"))
    assert doc["facts"]["frameworks"]["python"]["value"]["executable"] == "python3"


def test_the_xgboost_ask_names_the_interpreter_and_the_copy_and_runs_before_build_info():
    # dmlc/xgboost#6353 (tests/blind/plans17/cases/1710-*): a 2020 notebook, where xgboost.build_info() (from 1.6.0,
    # dmlc/xgboost 46726ec1) would raise AttributeError before anything printed
    doc = check(blind_case("plans17/cases/1710"))
    (code,) = [a[2] for a in _asks(doc) if a[:2] == ["python3", "-c"] and "xgboost" in a[2]]
    assert "sys.executable" in code and "xgboost.__file__" in code
    assert 'getattr(xgboost, "build_info", dict)()' in code and "xgboost.build_info()" not in code
    # dmlc/xgboost#11394 (catalogue example): the message's own asks begin with the same question
    doc = check(EXAMPLES / "xgboost-11394-spark-not-compiled-with-gpu-support.txt")
    asks = [a for a in _asks(doc) if "xgboost" in " ".join(a)]
    assert "xgboost.__file__" in asks[0][-1]


def test_ptx_newer_than_the_driver_in_a_conda_environment_pins_the_environments_cuda_first():
    # numba/numba#3794 (tests/blind/plans17/cases/1723-*): conda environments, PTX 6.3 (CUDA 10.0) on driver 390.87
    # (PTX 6.1, CUDA 9.1): the environment's cudatoolkit below 9.2 first, the driver upgrade beside it
    doc = check(blind_case("plans17/cases/1723"))
    (step,) = [s for s in doc["plan"]["steps"] if "toolkit-newer-than-driver" in s["codes"]]
    assert [c["argv"] for c in step["commands"]] == [["conda", "list", "cudatoolkit"], ["conda", "install", "cudatoolkit<9.2"]]
    assert not step["requires_root"]
    # rapidsai/cuspatial#1320 (https://github.com/rapidsai/cuspatial/pull/1320, catalogue example): a conda env's
    # numba, PTX 8.3 (CUDA 12.3) on a driver of PTX 8.2 (CUDA 12.2): CUDA 12's cuda-version metapackage
    doc = check(EXAMPLES / "cuspatial-1320-conda-env-ptx-83-driver-82.txt")
    assert ["conda", "install", "cuda-version<12.3"] in _argvs(doc)


def test_ptx_newer_than_the_driver_outside_conda_keeps_the_driver_first():
    # the near miss: numba/numba#8961 (catalogue example): a system CUDA 12.1 toolkit, no conda: the driver step leads
    doc = check(EXAMPLES / "numba-8961-ptx-81-driver-80.txt")
    assert not [a for a in _argvs(doc) if a[:2] == ["conda", "install"]]
    assert doc["plan"]["steps"][0]["component"] == "driver"
